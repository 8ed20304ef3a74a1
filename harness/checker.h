/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checker: a pure core that takes decoded fsaio records (live, replayed
 * or synthetic) and produces invariant verdicts and statistics.  It knows
 * nothing of libbpf, BPF maps or the live system.
 */
#ifndef FSAIO_CHECKER_H
#define FSAIO_CHECKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../bpf/fsaio.h"

/* What the traced kernel lets us observe, and what it is expected to do. */
struct checker_config {
	bool see_libaio_kernel_complete; /* kernel-side libaio COMPLETE events (fentry aio_complete_rw / fsaio tp) */
	bool see_retry;		/* per-request RETRY/WAKE/RESUME events (fentry or fsaio tp) */
	bool see_sleep;		/* SLEEP events with stacks (tp_btf/raw_tp sched_switch) */
	bool libaio_async_expected; /* patched kernel with fs.aio-buffered-async=1 */
	bool libaio_submit_unseen; /* no syscalls:sys_enter_io_submit: libaio kernel
				    * events of unknown requests are counted, not failed */
	const char *skip_retry_reason;	/* why see_retry is false, for SKIP lines */
};

enum verdict {
	VERDICT_PASS,
	VERDICT_FAIL,
	VERDICT_XFAIL,	/* known kernel limitation, measured (stock libaio blocking) */
	VERDICT_SKIP,	/* not observable here, or nothing to check */
	VERDICT_ERROR,	/* the trace itself cannot be trusted (lost records, malformed) */
};

enum invariant_id {
	INV_TRACE_INTEGRITY,
	INV_EXACTLY_ONCE,
	INV_RETRY_LIFECYCLE,
	INV_NONBLOCKING_SUBMIT_LIBAIO,
	INV_NONBLOCKING_SUBMIT_IO_URING,
	INV_RESUME_CONTEXT,
	INV_QUIESCENCE,
	INV__COUNT,
};

struct invariant_result {
	const char *name;	/* stable: "trace_integrity", "exactly_once", ... */
	enum verdict verdict;
	uint64_t observations;	/* how many things were checked */
	char detail[512];	/* one line: counts, or the offending request id
				 * and its event sequence on failure */
};

#define HIST_BUCKETS 32		/* log2 buckets of nanoseconds */

struct wait_cell {
	uint64_t count;
	uint64_t total_ns;
	uint64_t max_ns;
	uint64_t hist[HIST_BUCKETS];	/* hist[i]: duration in [2^i, 2^(i+1)) ns */
};

struct engine_stats {
	uint64_t submitted;	/* requests accepted (SUBMIT minus rejected by SUBMIT_DONE) */
	uint64_t completed;	/* requests completed (COMPLETE or REAP, once each);
				 * submitted == completed + abandoned + in flight */
	uint64_t blocked_in_submit;	/* page/bit/writeback/journal sleeps inside this engine's submit syscall */
	uint64_t blocked_ns;	/* their total duration */
	uint64_t retries;
	uint64_t wakes;
	uint64_t resumes;
	uint64_t punts;
	uint64_t submit_calls;	/* submit syscalls seen (SUBMIT_DONE) */
	uint64_t submit_ns;	/* total time inside them */
	uint64_t errors;	/* completions with res < 0 */
	uint64_t abandoned;	/* libaio: never reaped, context destroyed or
				 * process exited first (not in completed) */
};

struct checker_stats {
	struct engine_stats engine[FSAIO_ENGINE__COUNT];
	struct wait_cell waits[FSAIO_SITE__COUNT][FSAIO_CTX__COUNT];
	uint64_t records;	/* records fed */
	uint64_t lost;		/* ring buffer reserve failures (TRACE_END.arg0) + seq gaps */
	uint64_t malformed;	/* records rejected by the decoder */
};

struct checker;

struct checker *checker_new(const struct checker_config *cfg);
void checker_free(struct checker *c);

/* Feed one decoded record.  Records are expected in seq order; a gap
 * counts as lost records.  Returns 0, or -EINVAL for a record that fails
 * validation (counted in stats.malformed, makes trace_integrity ERROR). */
int checker_feed(struct checker *c, const struct fsaio_record *rec);

/* Note a record the decoder could not parse (truncated, bad version). */
void checker_note_malformed(struct checker *c, const char *why);

/* Evaluate all invariants.  Call once, after the last record (normally
 * FSAIO_EV_TRACE_END); later calls do nothing.  Results are valid until
 * checker_free(); before checker_finish() every result reads ERROR
 * "not evaluated". */
void checker_finish(struct checker *c);

const struct invariant_result *checker_result(const struct checker *c,
					      enum invariant_id id);
const struct checker_stats *checker_stats(const struct checker *c);

/* Helpers shared with the reports. */
const char *verdict_name(enum verdict v);		/* "pass", "fail", ... */
const char *engine_name(enum fsaio_engine e);		/* "libaio", "io_uring" */
const char *wait_site_name(enum fsaio_wait_site s);	/* "folio_bit", ... */
const char *context_name(enum fsaio_context x);		/* "submit_libaio", ... */
const char *event_type_name(enum fsaio_event_type t);	/* "submit", ... */

/* Worst of two verdicts for an aggregate exit status:
 * ERROR > FAIL > XFAIL > PASS > SKIP (SKIP only if all skipped; an XFAIL
 * run aggregates to XFAIL, whose exit status is still a pass). */
enum verdict verdict_worse(enum verdict a, enum verdict b);

#endif
