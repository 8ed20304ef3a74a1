/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tracing session: the live tracer feeding one checker per segment (one
 * workload, or a whole trace), optionally recording every record to a log.
 */
#ifndef FSAIO_SESSION_H
#define FSAIO_SESSION_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "core/checker.h"
#include "live/tracer.h"

struct session {
	struct tracer *tracer;
	FILE *log;		/* --record, or NULL */
	int log_errno;		/* first failed log write, 0 if none */
	uint64_t log_records, log_hash;	/* what the closing record seals */
	struct checker *checker;	/* current segment */
	uint64_t drops_base[FSAIO_DROP__COUNT];	/* tracer_drops() at segment start */
	unsigned int grows_base;		/* ring buffer growths at segment start */
	struct fsaio_fold_counts fold_base;	/* tracer_read_fold() at segment start */
	uint32_t features;	/* FEAT_* (core/features.h) */
	bool keep_stacks;	/* checkers count sleeps per stack (trace --stacks) */
	/* The consumer thread (session_consume_start): while it runs, it is
	 * the only caller of session_poll and the only user of the checker. */
	pthread_t consumer;
	bool consuming;
	volatile bool consumer_stop;
};

/* The segment's drops so far, all causes. */
static inline uint64_t session_lost(struct session *s)
{
	uint64_t drops[FSAIO_DROP__COUNT], sum = 0;
	int i;

	tracer_drops(s->tracer, drops);
	for (i = 0; i < FSAIO_DROP__COUNT; i++)
		sum += drops[i] - s->drops_base[i];
	return sum;
}

/* Raise RLIMIT_NOFILE to what the tracer's programs need: a low limit
 * made attaching fail with EMFILE, which looked like a missing kernel
 * feature (a blind trace).  EXIT_PASS, or EXIT_ERROR when it cannot be
 * raised far enough (message printed).  session_open() calls it. */
int session_nofile(void);

/* Returns an exit code (EXIT_PASS on success) after printing the error. */
int session_open(struct session *s, const struct tracer_opts *o,
		 const char *record_path, const char *label);
/* A new checker for the next segment.  0 or -ENOMEM (message printed). */
int session_begin(struct session *s);
/* Poll once; returns records delivered or negative errno. */
int session_poll(struct session *s, int timeout_ms);
/*
 * Consume the ring buffer on a thread of its own, at a raised priority,
 * until session_consume_stop(): whatever else the caller does (relaying a
 * chatty command's output, waiting for it) cannot starve the consumer,
 * and the consumer cannot slow the relay.  0 or -errno (message printed).
 */
int session_consume_start(struct session *s);
void session_consume_stop(struct session *s);
/* Drain what is left, append TRACE_END, finish.  Caller owns the checker.
 * Stops the consumer thread first if it runs. */
struct checker *session_end(struct session *s);
/* Free everything.  Returns 0, or -errno when the event log could not
 * be written completely (message printed): the run has no trustworthy log. */
int session_close(struct session *s);

#endif
