/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live tracer: probes kernel features, loads and attaches the BPF
 * programs, delivers decoded and enriched records (wait site from the
 * symbolized stack) to a callback.  The only part that knows libbpf.
 */
#ifndef FSAIO_TRACER_H
#define FSAIO_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "bpf/fsaio.h"
#include "bpf/fsaio_agg.h"
#include "bpf/fsaio_fold.h"
#include "bpf/fsaio_sleeps.h"
#include "core/features.h"	/* FEAT_* */

struct tracer_opts {
	bool verbose;		/* print feature probes and fallbacks to stderr */
	bool all_tasks;		/* trace every task (fsaio trace without -p/-c) */
	bool no_fentry;		/* don't try fentry/fexit even if they load */
	const char *comm;	/* trace only tasks with this comm, if set */
	size_t ringbuf_bytes;	/* first size; 0: default (8 MiB) */
	size_t ringbuf_max_bytes; /* grown up to; 0: 8x the first (max 1 GiB) */
	bool aggregate;		/* count records in BPF (fsaio_agg.h), send only
				 * sleeps, exits and anomalies (fsaio trace) */
	bool fold;		/* keep plain io_uring lifecycles in BPF
				 * (bpf/fsaio_fold.h; fsaio check) */
};

struct tracer;

typedef void (*tracer_record_fn)(const struct fsaio_record *rec, void *ctx);

/* Probe, load, attach.  On failure returns a negative errno and writes a
 * one-line reason (what to do) into err. */
int tracer_open(struct tracer **out, const struct tracer_opts *opts,
		char *err, size_t errlen);
uint32_t tracer_features(const struct tracer *t);
/* Human-readable feature report: one line per feature, what is missing
 * and what that costs.  Written to f. */
void tracer_print_features(const struct tracer *t, FILE *f);

/* Trace this process and (via fork) its descendants. */
int tracer_track_pid(struct tracer *t, pid_t tgid);

/* Poll the ring buffer up to timeout_ms; calls fn per record in seq
 * order.  Returns records delivered or negative errno (-EINTR passes). */
int tracer_poll(struct tracer *t, int timeout_ms, tracer_record_fn fn, void *ctx);

/* The ring buffer's size now; *grows: how many times it doubled because
 * records arrived faster than they were read. */
size_t tracer_ringbuf_bytes(const struct tracer *t, unsigned int *grows);

/* Events that never became records so far (sum over CPUs), per enum
 * fsaio_drop cause in drops[]; returns their sum. */
uint64_t tracer_drops(struct tracer *t, uint64_t drops[FSAIO_DROP__COUNT]);
/* The sum alone. */
uint64_t tracer_lost(struct tracer *t);

/* With opts.aggregate: the counts so far, summed over CPUs, into *out.
 * 0 or a negative errno. */
int tracer_read_agg(struct tracer *t, struct fsaio_agg *out);
/* With opts.fold: the folded lifecycles so far, summed over CPUs. */
int tracer_read_fold(struct tracer *t, struct fsaio_fold_counts *out);

/* dst = end - base, word by word, over size bytes of __u64 counters: the
 * counts since base.  For the structs made only of __u64 fields that
 * tracer_read_agg() and tracer_read_fold() fill; use COUNTERS_SINCE(). */
static inline void u64_words_sub(void *dst, const void *end, const void *base, size_t size)
{
	const __u64 *e = end, *b = base;
	__u64 *d = dst;
	size_t w;

	for (w = 0; w < size / sizeof(__u64); w++)
		d[w] = e[w] - b[w];
}

/* *dst = *end - *base for three objects of one all-__u64 counter type. */
#define COUNTERS_SINCE(dst, end, base) do {					\
	_Static_assert(sizeof(*(dst)) % sizeof(__u64) == 0,			\
		       "COUNTERS_SINCE: not a struct of __u64 counters");	\
	_Static_assert(sizeof(*(end)) == sizeof(*(dst)) &&			\
		       sizeof(*(base)) == sizeof(*(dst)),			\
		       "COUNTERS_SINCE: operands of different types");		\
	u64_words_sub((dst), (end), (base), sizeof(*(dst)));			\
} while (0)

/* With opts.fold: hand each kept submit still pending (in flight) to fn as
 * its SUBMIT record, then forget every kept request.  Call between runs,
 * with nothing traced running.  Returns the number handed, or -errno. */
int tracer_fold_flush(struct tracer *t, tracer_record_fn fn, void *ctx);

/* With opts.fold: hand each sleep key's sums (bpf/fsaio_sleeps.h) to fn
 * with the SLEEP record they stand for (stack classified as a record's),
 * then forget every key.  Call between runs, with nothing traced running.
 * Returns the number of keys handed, or -errno. */
typedef void (*tracer_sleeps_fn)(const struct fsaio_record *like,
				 const struct fsaio_sleep_agg *a, void *ctx);
int tracer_sleep_flush(struct tracer *t, tracer_sleeps_fn fn, void *ctx);

/* The kernel symbols the tracer loaded (NULL if /proc/kallsyms was
 * unreadable); valid until tracer_close(). */
const struct ksyms *tracer_ksyms(const struct tracer *t);

/* Detach and free everything.  Safe on NULL and after partial open. */
void tracer_close(struct tracer *t);

#endif
