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
#include "bpf/fsaio.h"
#include "bpf/fsaio_agg.h"
#include "bpf/fsaio_fold.h"
#include "core/names.h"
#include "core/verdict.h"

/* What the traced kernel lets us observe, and what it is expected to do. */
struct checker_config {
	bool see_libaio_kernel_complete; /* kernel-side libaio COMPLETE events (fentry aio_complete_rw / fsaio tp) */
	bool see_retry;		/* per-request RETRY/WAKE/RESUME events (fentry or fsaio tp) */
	bool see_sleep;		/* SLEEP events with stacks (tp_btf/raw_tp sched_switch) */
	bool libaio_async_expected; /* patched kernel with fs.aio-buffered-async=1 or 2 */
	bool libaio_opt_in;	/* fs.aio-buffered-async=1: a request that did not set
				 * IOCB_FLAG_BUFFERED_ASYNC stays synchronous (the
				 * BPF side marks it FSAIO_F_STAYS_SYNC) */
	bool libaio_async_off;	/* patched kernel with fs.aio-buffered-async=0: every
				 * libaio request must stay synchronous, as on stock */
	bool libaio_submit_unseen; /* no syscalls:sys_enter_io_submit: libaio kernel
				    * events of unknown requests are counted, not failed */
	const char *skip_retry_reason;	/* why see_retry is false, for SKIP lines */
	bool see_fsync;		/* FSYNC events of aio workers (fentry vfs_fsync_range
				 * + the patched kernel's fsaio tracepoints) */
	bool keep_stacks;	/* count sleeps per distinct stack (trace --stacks) */
};

enum invariant_id {
	INV_TRACE_INTEGRITY,
	INV_EXACTLY_ONCE,
	INV_RETRY_LIFECYCLE,
	INV_NONBLOCKING_SUBMIT_LIBAIO,
	INV_NONBLOCKING_SUBMIT_IO_URING,
	INV_RESUME_CONTEXT,
	INV_QUIESCENCE,
	INV_DURABILITY,		/* an async O_SYNC/O_DSYNC write completes after its final fsync */
	INV__COUNT,
};

#define HIST_BUCKETS 32		/* log2 buckets of nanoseconds */

struct wait_cell {
	uint64_t count;
	uint64_t total_ns;
	uint64_t max_ns;
	uint64_t hist[HIST_BUCKETS];	/* hist[i]: duration in [2^i, 2^(i+1)) ns */
};

/*
 * Per-engine counters, X(field, what): the struct, the JSON object
 * engines.<engine>.<field> (in this order) and the sums over runs are all
 * generated from this list; a new statistic is one line here.
 */
#define FSAIO_ENGINE_STATS(X)						\
	X(submitted, "requests accepted (SUBMIT minus rejected by SUBMIT_DONE)") \
	X(completed, "requests completed (COMPLETE or REAP, once each); "	\
		     "submitted == completed + abandoned + in flight")	\
	X(abandoned, "never reaped: libaio context destroyed or process "	\
		     "exited first, io_uring cancelled at ring teardown "	\
		     "(not in completed)")				\
	X(blocked_in_submit, "page/bit/writeback/journal sleeps inside this " \
			     "engine's submit syscall")			\
	X(blocked_ns, "their total duration")				\
	X(other_sleeps_in_submit, "other D-state sleeps inside the submit "	\
				  "syscall: block layer, io_other, locks")	\
	X(other_sleep_ns, "their total duration")			\
	X(stays_sync_sleeps, "libaio: of those, sleeps issuing a write the " \
			     "kernel keeps synchronous (S_SYNC inode, "	\
			     "no FOP_DSYNC_ASYNC)")			\
	X(retries, "armed retries (RETRY)")				\
	X(wakes, "wake callbacks (WAKE)")				\
	X(resumes, "resumptions (RESUME)")				\
	X(punts, "falls back to a blocking worker (PUNT)")		\
	X(submit_calls, "submit syscalls seen (SUBMIT_DONE)")		\
	X(submit_ns, "total time inside them")				\
	X(errors, "completions with res < 0")				\
	X(failed_init, "io_uring SQEs that failed at init "		\
		       "(io_uring_req_failed): requests of their own")	\
	X(cq_overflow, "io_uring completions that did not fit the CQ "	\
		       "(overflow list, delivered later)")		\
	X(cq_dropped, "of those, dropped by the kernel (no memory for "	\
		      "the overflow entry): never delivered")		\
	X(cqe_skipped, "io_uring requests that ended without a CQE "	\
		       "(IOSQE_CQE_SKIP_SUCCESS, or a failed chain's link "	\
		       "whose CQE the kernel skipped); in completed")	\
	X(zc_notifs, "io_uring zero-copy send notification CQEs "	\
		     "(IORING_CQE_F_NOTIF): the kernel's own requests, "	\
		     "not counted as requests")

struct engine_stats {
#define X(field, what) uint64_t field;
	FSAIO_ENGINE_STATS(X)
#undef X
};

struct checker_stats {
	struct engine_stats engine[FSAIO_ENGINE__COUNT];
	struct wait_cell waits[FSAIO_SITE__COUNT][FSAIO_CTX__COUNT];
	/* accepted requests by opcode (opcode_name); [FSAIO_MAX_OPCODE - 1]
	 * holds every larger one */
	uint64_t by_opcode[FSAIO_ENGINE__COUNT][FSAIO_MAX_OPCODE];
	uint64_t records;	/* records fed */
	uint64_t aggregated;	/* records the BPF side counted instead of
				 * sending (fsaio trace: fsaio_agg.h) */
	uint64_t voids;		/* VOID records: numbers a fold promote took
				 * and lost its slot with (fsaio_fold.h) */
	uint64_t lost;		/* records dropped in BPF (all causes) + seq gaps */
	uint64_t drops[FSAIO_DROP__COUNT];	/* of lost: dropped in BPF, by cause */
	uint64_t oom;		/* events the checker could not track (out of memory) */
	uint64_t malformed;	/* records rejected by the decoder */
	uint64_t ringbuf_bytes;	/* the ring buffer's largest size (TRACE_END) */
	uint64_t ringbuf_grows;	/* times it doubled under pressure */
};

struct checker;

struct checker *checker_new(const struct checker_config *cfg);
void checker_free(struct checker *c);

/* The checker has a reader for records of this type (enum
 * fsaio_event_type); false for retired types, which it reads past. */
bool checker_reads(unsigned int type);

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

/* With cfg.keep_stacks: the distinct sleep stacks, counted.  At most
 * STACKS_MAX are kept; sleeps of further stacks are counted in
 * checker_stacks_untracked(). */
#define STACKS_MAX 4096
struct stack_count {
	struct inv_stack k;	/* one sleep of it (pid, ns: the first) */
	uint64_t count;
	uint64_t total_ns;
};
/* The n most frequent stacks of one wait site, most frequent first, into
 * out; returns how many. */
int checker_top_stacks(const struct checker *c, enum fsaio_wait_site site,
		       struct stack_count *out, int n);
uint64_t checker_stacks_untracked(const struct checker *c);

/* Which engine_stats field each in-kernel count (fsaio_agg.h) is. */
#define FSAIO_AGG_FIELDS(X)						\
	X(FSAIO_AGG_SUBMITTED, submitted) X(FSAIO_AGG_COMPLETED, completed)	\
	X(FSAIO_AGG_ERRORS, errors) X(FSAIO_AGG_RETRIES, retries)		\
	X(FSAIO_AGG_WAKES, wakes) X(FSAIO_AGG_RESUMES, resumes)		\
	X(FSAIO_AGG_PUNTS, punts) X(FSAIO_AGG_SUBMIT_CALLS, submit_calls)	\
	X(FSAIO_AGG_SUBMIT_NS, submit_ns) X(FSAIO_AGG_FAILED_INIT, failed_init) \
	X(FSAIO_AGG_CQ_OVERFLOW, cq_overflow) X(FSAIO_AGG_CQ_DROPPED, cq_dropped) \
	X(FSAIO_AGG_ZC_NOTIFS, zc_notifs)

/* fsaio trace: the counts the BPF side kept instead of sending records
 * (fsaio_agg.h) join the statistics of the records it did send. */
void checker_stats_add_aggregate(struct checker_stats *st, const struct fsaio_agg *a);
void checker_add_aggregate(struct checker *c, const struct fsaio_agg *a);
/* fsaio check: the io_uring lifecycles the BPF side folded (a submit and
 * one plain final CQE, nothing else said: fsaio_fold.h) count as the
 * SUBMIT and COMPLETE records they stand for.  Before checker_finish(). */
void checker_add_folded(struct checker *c, const struct fsaio_fold_counts *f);

/* fsaio check: sleeps the BPF side counted instead of sending
 * (bpf/fsaio_sleeps.h): count sleeps like the SLEEP record like (its
 * site, context, flags, stack; pid and comm of one of them), total_ns
 * long in all, the longest max_ns, hist[i] of them in [2^i, 2^(i+1)) ns
 * (NULL: all in max_ns's bucket).  Taken as count records like it would
 * be.  Before checker_finish(). */
void checker_add_sleeps(struct checker *c, const struct fsaio_record *like, uint64_t count,
			uint64_t total_ns, uint64_t max_ns, const uint64_t hist[HIST_BUCKETS]);

/* Add the statistics of one run to a sum (maxima stay maxima). */
void checker_stats_add(struct checker_stats *sum, const struct checker_stats *s);

#endif
