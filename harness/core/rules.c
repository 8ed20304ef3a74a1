// SPDX-License-Identifier: GPL-2.0
/*
 * The invariant rules: how the state the checker collected from the events
 * (checker.c, sleeps.c; checker_int.h) becomes one verdict per invariant,
 * at checker_finish().  One finish_* function per invariant, each alone
 * deciding its verdict and its one-line detail, then judge_with_loss().
 *
 * Verdicts.  Every invariant is PASS, FAIL, XFAIL, SKIP or ERROR.  Details
 * are one line; on failure they give the number of violations and the
 * first one, with the request's recent event sequence: "req 0x1000
 * (libaio tgid 42): submit, reap(4096), reap(4096)".
 *
 * ERROR: the trace cannot be trusted.  trace_integrity is ERROR on lost
 * records (ring buffer, BPF-side drops, seq gaps), on any malformed record
 * (rejected by checker_feed or noted by checker_note_malformed), on
 * duplicate seqs, when the checker ran out of memory, and without
 * TRACE_END.  With loss or out of memory every other invariant that
 * reached a verdict is ERROR too, "inconclusive", keeping what was seen
 * (judge_with_loss); a SKIP stays a SKIP.  Results read before
 * checker_finish() are ERROR "not evaluated".
 *
 * Skips.  nonblocking_submit_* SKIP without cfg.see_sleep or when the
 * engine had no requests; exactly_once SKIPs with no requests; retry_
 * lifecycle SKIPs without cfg.see_retry (cfg.skip_retry_reason);
 * resume_context SKIPs only when there were no RESUMEs and !see_retry;
 * durability SKIPs without cfg.see_fsync or when no O_SYNC/O_DSYNC write
 * went async.
 *
 * A RESUME without the submitter's mm passes only when the mm is gone
 * (FSAIO_RESUME_MM_GONE) and the submitter's process exited after the
 * SUBMIT (its PROC_EXIT may come after the RESUME: exit_mm() precedes the
 * tracepoint).  libaio blocking in io_submit is XFAIL unless
 * cfg.libaio_async_expected.
 *
 * Quiescence.  At the end every accepted lifecycle must have ended
 * (completed or abandoned) and no wait entry may be armed.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "core/checker_int.h"
#include "core/names.h"

/* The result of an invariant, its name kept (rules_init set it). */
#define set_result(ir, v, obs, ...) \
	invariant_set((ir), (ir)->name, (v), (obs), __VA_ARGS__)

/* "2 ring buffer reserve failures, 1 missing from seq": every cause of
 * loss with a count, ring buffer and seq always.  Returns snprintf's length. */
static size_t loss_causes(const struct checker *c, char *d, size_t len)
{
	static const char *const what[FSAIO_DROP__COUNT] = {
		[FSAIO_DROP_RINGBUF] = "ring buffer reserve failures",
		[FSAIO_DROP_USER_READ] = "unreadable user memory (iocb, io_event)",
		[FSAIO_DROP_BATCH_CUT] = "beyond the per-call batch limit",
		[FSAIO_DROP_MAP_FULL] = "state map full",
		[FSAIO_DROP_PROG_MISSED] = "program runs the kernel skipped (recursion)",
		[FSAIO_DROP_FOLD_RACE] = "fold promotes that kept losing their slot",
		[FSAIO_DROP_PAIR_TWICE] = "events a program pair sent twice",
	};
	uint64_t gaps = c->st.lost;
	size_t o = 0;
	unsigned i;

	for (i = 0; i < FSAIO_DROP__COUNT; i++)
		gaps -= c->end_drops[i];
	for (i = 0; i < FSAIO_DROP__COUNT; i++)
		if ((i == FSAIO_DROP_RINGBUF || c->end_drops[i]) && o < len)
			o += snprintf(d + o, len - o, "%" PRIu64 " %s, ", c->end_drops[i], what[i]);
	if (o < len)
		o += snprintf(d + o, len - o, "%" PRIu64 " missing from seq", gaps);
	return o;
}

static void finish_integrity(struct checker *c)
{
	struct invariant_result *ir = &c->res[INV_TRACE_INTEGRITY];
	char *d = ir->detail;
	size_t len = sizeof(ir->detail), o = 0;

	ir->verdict = VERDICT_ERROR;
	ir->observations = c->st.records;
	d[0] = '\0';
	/* Name every problem: one may explain another (a corrupt log). */
	if (c->st.malformed)
		o += snprintf(d + o, len - o, "%s%" PRIu64 " malformed records (first: %s)",
			      o ? "; " : "", c->st.malformed, c->malformed_first);
	if (c->st.lost && o < len) {
		o += snprintf(d + o, len - o, "%s%" PRIu64 " records lost (", o ? "; " : "",
			      c->st.lost);
		if (o < len)
			o += loss_causes(c, d + o, len - o);
		if (o < len)
			o += snprintf(d + o, len - o, ")");
	}
	if (c->oom && o < len)
		o += snprintf(d + o, len - o, "%schecker out of memory: %" PRIu64
			      " events not tracked", o ? "; " : "", c->oom);
	if (c->seq_dups && o < len)
		o += snprintf(d + o, len - o, "%s%" PRIu64 " duplicate seq numbers",
			      o ? "; " : "", c->seq_dups);
	if (!c->trace_ends && o < len)
		o += snprintf(d + o, len - o, "%sno trace_end record: log truncated or tracer stopped early",
			      o ? "; " : "");
	if (!o) {
		ir->verdict = VERDICT_PASS;
		o = snprintf(d, len, "%" PRIu64 " records, 0 lost", c->st.records);
		if (c->reordered && o < len)
			o += snprintf(d + o, len - o, ", %" PRIu64 " delivered out of seq order",
				      c->reordered);
	}
	if (c->st.ringbuf_grows && o < len)
		snprintf(d + o, len - o, "%sring buffer grown %" PRIu64 " times to %" PRIu64 " MiB",
			 ir->verdict == VERDICT_PASS ? ", " : "; ", c->st.ringbuf_grows,
			 c->st.ringbuf_bytes >> 20);
}
static void finish_exactly_once(struct checker *c)
{
	struct invariant_result *ir = &c->res[INV_EXACTLY_ONCE];
	const struct engine_stats *uring = &c->st.engine[FSAIO_ENGINE_IO_URING];
	char extra[480] = "", teardown[64] = "";
	size_t o = 0;

	if (c->abandoned[AB_TEARDOWN])
		snprintf(teardown, sizeof(teardown), ", %" PRIu64 " cancelled at io_uring ring teardown",
			 c->abandoned[AB_TEARDOWN]);

	if (abandoned_all(c))
		o += snprintf(extra, sizeof(extra), "; %" PRIu64 " abandoned unreaped (%"
			      PRIu64 " by io_destroy, %" PRIu64 " by process exit%s)",
			      abandoned_all(c), c->abandoned[AB_DESTROY], c->abandoned[AB_EXIT],
			      teardown);
	if (c->unmatched_uring && o < sizeof(extra))
		o += snprintf(extra + o, sizeof(extra) - o, "; %" PRIu64
			      " io_uring completions of unsubmitted requests", c->unmatched_uring);
	if (c->more_cqes && o < sizeof(extra))
		o += snprintf(extra + o, sizeof(extra) - o, "; %" PRIu64
			      " intermediate multishot CQEs (F_MORE, posted without their req)",
			      c->more_cqes);
	if (c->folded[FSAIO_ENGINE_IO_URING] && o < sizeof(extra))
		o += snprintf(extra + o, sizeof(extra) - o, "; %" PRIu64 " io_uring requests "
			      "with a plain lifecycle checked in the kernel",
			      c->folded[FSAIO_ENGINE_IO_URING]);
	if (c->folded[FSAIO_ENGINE_LIBAIO] && o < sizeof(extra))
		o += snprintf(extra + o, sizeof(extra) - o, "; %" PRIu64 " libaio requests "
			      "with a plain lifecycle checked in the kernel",
			      c->folded[FSAIO_ENGINE_LIBAIO]);
	if (uring->failed_init && o < sizeof(extra))
		o += snprintf(extra + o, sizeof(extra) - o, "; %" PRIu64
			      " SQEs failed at init (requests of their own)", uring->failed_init);
	if (uring->cqe_skipped && o < sizeof(extra))
		o += snprintf(extra + o, sizeof(extra) - o, "; %" PRIu64 " ended without a CQE "
			      "(IOSQE_CQE_SKIP_SUCCESS or a failed chain's skipped CQE)",
			      uring->cqe_skipped);
	if (uring->zc_notifs && o < sizeof(extra))
		o += snprintf(extra + o, sizeof(extra) - o, "; %" PRIu64 " zero-copy send "
			      "notifications (F_NOTIF, from the kernel's own request)",
			      uring->zc_notifs);
	if (uring->cq_overflow && o < sizeof(extra))
		o += snprintf(extra + o, sizeof(extra) - o, "; %" PRIu64 " CQEs overflowed the CQ (%"
			      PRIu64 " dropped by the kernel: never delivered%s)",
			      uring->cq_overflow, uring->cq_dropped,
			      c->ovf_moved ? "; matched by a user_data several requests share" : "");
	if (c->eonce.count)
		set_result(ir, VERDICT_FAIL, c->lifecycles, "%" PRIu64 " violations; first: %s",
			   c->eonce.count, c->eonce.first);
	else if (!c->lifecycles && c->unmatched_libaio)
		set_result(ir, VERDICT_SKIP, 0, "libaio submits not observable (no syscalls: "
			   "tracepoints); %" PRIu64 " kernel events of libaio requests seen",
			   c->unmatched_libaio);
	else if (!c->lifecycles)
		set_result(ir, VERDICT_SKIP, 0, "no async requests%s", extra);
	else
		set_result(ir, VERDICT_PASS, c->lifecycles,
			   "%" PRIu64 " requests (%" PRIu64 " libaio, %" PRIu64 " io_uring), "
			   "none completed twice%s%s", c->lifecycles,
			   c->st.engine[FSAIO_ENGINE_LIBAIO].submitted,
			   c->st.engine[FSAIO_ENGINE_IO_URING].submitted,
			   c->rejected ? ", rejected batch entries dropped" : "", extra);
}

static uint64_t sum_engines(const struct checker *c, size_t off)
{
	uint64_t n = 0;
	int e;

	for (e = 0; e < FSAIO_ENGINE__COUNT; e++)
		n += *(const uint64_t *)((const char *)&c->st.engine[e] + off);
	return n;
}

static void finish_retry(struct checker *c)
{
	struct invariant_result *ir = &c->res[INV_RETRY_LIFECYCLE];
	uint64_t retries = sum_engines(c, offsetof(struct engine_stats, retries));
	uint64_t wakes = sum_engines(c, offsetof(struct engine_stats, wakes));
	uint64_t resumes = sum_engines(c, offsetof(struct engine_stats, resumes));
	uint64_t punts = sum_engines(c, offsetof(struct engine_stats, punts));

	if (!c->cfg.see_retry) {
		set_result(ir, VERDICT_SKIP, 0, "%s", c->cfg.skip_retry_reason ?
			   c->cfg.skip_retry_reason : "retry/wake/resume not observable");
		return;
	}
	if (c->retry.count) {
		set_result(ir, VERDICT_FAIL, retries, "%" PRIu64 " violations; first: %s",
			   c->retry.count, c->retry.first);
		return;
	}
	if (!retries && !punts)
		set_result(ir, VERDICT_PASS, 0, "no retry armed (%" PRIu64 " requests; %s)",
			   c->lifecycles, c->cfg.libaio_async_off ?
			   "fs.aio-buffered-async=0: none went asynchronous" :
			   c->cfg.libaio_opt_in ? "fs.aio-buffered-async=1: did any set "
			   "IOCB_FLAG_BUFFERED_ASYNC? data cached?" : "data cached?");
	else
		set_result(ir, VERDICT_PASS, retries,
			   "%" PRIu64 " retries, %" PRIu64 " wakes, %" PRIu64 " resumes, %" PRIu64
			   " punts; each retry woken and resumed once%s", retries, wakes,
			   resumes, punts, c->unattributed ? " (some events had no request id)" : "");
}

/* "; 2 other sleeps inside (block 2), not FSAIO waits: first: ..." */
static size_t other_sleeps(const struct sleep_sum *o, uint64_t stays_sync,
			   char *d, size_t len)
{
	size_t n = 0;
	const char *sep = " (";
	int site;

	if (!o->count)
		return 0;
	n += snprintf(d + n, len - n, "; %" PRIu64 " other sleeps inside, %.1f ms",
		      o->count, o->ns / 1e6);
	for (site = 0; site < FSAIO_SITE__COUNT && n < len; site++) {
		if (!o->by_site[site])
			continue;
		n += snprintf(d + n, len - n, "%s%s %" PRIu64, sep, wait_site_name(site),
			      o->by_site[site]);
		sep = ", ";
	}
	if (n < len && stays_sync)
		n += snprintf(d + n, len - n, "; %" PRIu64 " in requests that stay "
			      "synchronous by design", stays_sync);
	if (n < len)
		n += snprintf(d + n, len - n, "), not FSAIO waits; first: %s", o->first);
	return n;
}

/*
 * The rule, the same for both engines: a submit that sleeps in an FSAIO
 * wait (fsaio_site_is_fsaio_wait: page/buffer bits, writeback, journal)
 * blocked; its other sleeps (block layer tags, other io_schedule users,
 * locks) are counted, named and shown with their stacks, but are not what
 * FSAIO promises to avoid and do not fail the check.
 */
static void finish_nonblocking(struct checker *c, enum invariant_id id,
			       enum fsaio_engine e)
{
	struct invariant_result *ir = &c->res[id];
	const struct engine_stats *es = &c->st.engine[e];
	const struct sleep_sum *s = &c->blocked[e], *o = &c->other[e];
	bool uring = e == FSAIO_ENGINE_IO_URING;
	const char *sys = uring ? "io_uring_enter" : "io_submit";
	char others[240] = "";

	if (!c->cfg.see_sleep) {
		set_result(ir, VERDICT_SKIP, 0, "D-state sleeps with stacks not observable");
		return;
	}
	if (!es->submitted && !es->submit_calls && !s->count && !o->count) {
		set_result(ir, VERDICT_SKIP, 0, "no %s requests", engine_name(e));
		return;
	}
	other_sleeps(o, es->stays_sync_sleeps, others, sizeof(others));
	if (!s->count) {
		set_result(ir, VERDICT_PASS, es->submitted,
			   "%" PRIu64 " requests in %" PRIu64 " %s calls, no FSAIO wait "
			   "(page/bit, writeback, journal) inside%s",
			   es->submitted, es->submit_calls, sys, others);
		ir->nr_stacks = o->nr_stacks;
		memcpy(ir->stacks, o->stacks, sizeof(ir->stacks));
		return;
	}
	if (uring || c->cfg.libaio_async_expected)
		set_result(ir, VERDICT_FAIL, es->submitted,
			   "%s slept %" PRIu64 " times in FSAIO waits (page/bit, writeback, "
			   "journal), %.1f ms; first: %s%s",
			   sys, s->count, s->ns / 1e6, s->first, others);
	else
		set_result(ir, VERDICT_XFAIL, es->submitted,
			   "%s: %s slept %" PRIu64 " times in FSAIO waits (page/bit, "
			   "writeback, journal), %.1f ms%s",
			   c->cfg.libaio_async_off ? "fs.aio-buffered-async=0, synchronous as on "
			   "stock" : "stock kernel", sys, s->count, s->ns / 1e6, others);
	ir->nr_stacks = s->nr_stacks;
	memcpy(ir->stacks, s->stacks, sizeof(ir->stacks));
}

static void finish_resume(struct checker *c)
{
	struct invariant_result *ir = &c->res[INV_RESUME_CONTEXT];
	uint64_t resumes = sum_engines(c, offsetof(struct engine_stats, resumes));
	size_t i, exited = 0;

	for (i = 0; i < c->nr_mm_gone; i++) {
		const struct mm_gone *g = &c->mm_gone[i];

		if (mark_at(c, g->tgid, 0) > g->born) {
			exited++;
		} else if (!c->resume.count++) {
			snprintf(c->resume.first, sizeof(c->resume.first),
				 "req 0x%" PRIx64 " (tgid %" PRIu32 ") resumed with the mm gone"
				 " but its process did not exit", g->req, g->tgid);
		}
	}

	if (c->resume.count)
		set_result(ir, VERDICT_FAIL, resumes, "%" PRIu64 " of %" PRIu64
			   " resumes not in the submitter's context (mm, credentials, I/O "
			   "priority) or not giving it back; first: %s",
			   c->resume.count, resumes, c->resume.first);
	else if (resumes && exited)
		set_result(ir, VERDICT_PASS, resumes, "%" PRIu64 " resumes, all with the submitter's"
			   " mm but %zu after the submitter exited (mm gone, none used)",
			   resumes, exited);
	else if (resumes)
		set_result(ir, VERDICT_PASS, resumes, "%" PRIu64 " resumes, all with the submitter's mm, "
			   "credentials and I/O priority, given back after", resumes);
	else if (c->cfg.see_retry)
		set_result(ir, VERDICT_PASS, 0, "no resumption happened");
	else
		set_result(ir, VERDICT_SKIP, 0, "%s", c->cfg.skip_retry_reason ?
			   c->cfg.skip_retry_reason : "resumptions not observable");
}

static void finish_quiescence(struct checker *c)
{
	struct invariant_result *ir = &c->res[INV_QUIESCENCE];
	uint64_t inflight = 0, armed = 0;
	uint64_t abandoned = abandoned_all(c);
	char extra[160] = "";
	uint32_t i;

	for (i = 0; i < c->nr_lcs; i++) {
		struct lc *l = &c->lcs[i];

		if (!(l->flags & LC_ACTIVE))
			continue;
		if (l->flags & LC_ABANDONED)
			continue;	/* judged by lc_abandon() */
		if (l->rstate != R_IDLE) {
			armed++;
			if (l->flags & LC_DONE)	/* in flight ones are reported below */
				fail_note(&c->quiesce, l, "wait entry still armed at the end");
		}
		if (l->flags & LC_DONE)
			continue;
		inflight++;
		if (l->engine == FSAIO_ENGINE_LIBAIO && (l->flags & LC_KCOMPLETE))
			fail_note(&c->quiesce, l, "completed in the kernel, never reaped (context alive)");
		else
			fail_note(&c->quiesce, l, "still in flight at the end");
	}
	if (inflight || armed)
		set_result(ir, VERDICT_FAIL, c->lifecycles,
			   "%" PRIu64 " requests never completed, %" PRIu64
			   " armed wait entries; first: %s", inflight, armed, c->quiesce.first);
	else if (c->aband.count)
		set_result(ir, VERDICT_FAIL, c->lifecycles,
			   "%" PRIu64 " of %" PRIu64 " abandoned requests not finished by the kernel; first: %s",
			   c->aband.count, abandoned, c->aband.first);
	else {
		if (abandoned)
			snprintf(extra, sizeof(extra), "; %" PRIu64 " abandoned by io_destroy/exit%s, %s",
				 abandoned, c->abandoned[AB_TEARDOWN] ? "/ring teardown" : "",
				 c->cfg.see_libaio_kernel_complete || !(c->abandoned[AB_DESTROY] +
									c->abandoned[AB_EXIT]) ?
				 "each completed in the kernel" :
				 "their kernel completion not observable here");
		set_result(ir, VERDICT_PASS, c->lifecycles,
			   "%" PRIu64 " requests, none in flight, no armed wait entry at the end%s",
			   c->lifecycles, extra);
	}
}

/*
 * A lost record may be the completion that was "missing", the sleep that
 * was not seen, the submit of a "completion without submit": with any loss
 * (or an event the checker could not track) no per-request verdict stands,
 * pass or fail.  They become ERROR "inconclusive", keeping what was seen.
 */
static void judge_with_loss(struct checker *c)
{
	char why[200], cause[160];
	int i;

	if (!c->st.lost && !c->oom)
		return;
	if (c->st.lost) {
		loss_causes(c, cause, sizeof(cause));
		snprintf(why, sizeof(why), "%" PRIu64 " records lost (%s)", c->st.lost, cause);
	} else {
		snprintf(why, sizeof(why), "checker out of memory: %" PRIu64
			 " events not tracked", c->oom);
	}
	for (i = 0; i < INV__COUNT; i++) {
		struct invariant_result *ir = &c->res[i];
		char seen[sizeof(ir->detail)];

		if (i == INV_TRACE_INTEGRITY || ir->verdict == VERDICT_SKIP ||
		    ir->verdict == VERDICT_ERROR)
			continue;
		snprintf(seen, sizeof(seen), "%s", ir->detail);
		snprintf(ir->detail, sizeof(ir->detail), "inconclusive: %s; as traced: %s: %s",
			 why, verdict_name(ir->verdict), seen);
		ir->verdict = VERDICT_ERROR;
	}
}

/*
 * An O_SYNC/O_DSYNC write that the kernel made asynchronous must complete
 * only after the worker's final ->fsync() (vfs_fsync_range): before it,
 * the data may sit in the page cache or the disk's volatile cache.
 */
static void finish_durability(struct checker *c)
{
	struct invariant_result *ir = &c->res[INV_DURABILITY];

	if (!c->cfg.see_fsync)
		set_result(ir, VERDICT_SKIP, 0, "the aio worker's final fsync needs fentry on "
			   "vfs_fsync_range and the patched kernel's fsaio tracepoints");
	else if (c->durab.count)
		set_result(ir, VERDICT_FAIL, c->sync_writes, "%" PRIu64 " of %" PRIu64
			   " async O_SYNC/O_DSYNC writes completed without their final fsync; "
			   "first: %s", c->durab.count, c->sync_writes, c->durab.first);
	else if (!c->sync_writes)
		set_result(ir, VERDICT_SKIP, 0, "no O_SYNC/O_DSYNC write went async");
	else
		set_result(ir, VERDICT_PASS, c->sync_writes, "%" PRIu64 " async O_SYNC/O_DSYNC "
			   "writes, each completed after its final fsync in the worker",
			   c->sync_writes);
}
static const char *const inv_names[INV__COUNT] = {
		[INV_TRACE_INTEGRITY] = "trace_integrity",
		[INV_EXACTLY_ONCE] = "exactly_once",
		[INV_RETRY_LIFECYCLE] = "retry_lifecycle",
		[INV_NONBLOCKING_SUBMIT_LIBAIO] = "nonblocking_submit_libaio",
		[INV_NONBLOCKING_SUBMIT_IO_URING] = "nonblocking_submit_io_uring",
		[INV_RESUME_CONTEXT] = "resume_context",
		[INV_QUIESCENCE] = "quiescence",
		[INV_DURABILITY] = "durability",
};

/* Results read before checker_finish() say so rather than pass. */
void rules_init(struct checker *c)
{
	int i;

	for (i = 0; i < INV__COUNT; i++) {
		c->res[i].name = inv_names[i];
		c->res[i].verdict = VERDICT_ERROR;
		snprintf(c->res[i].detail, sizeof(c->res[i].detail), "not evaluated");
	}
}

void rules_judge(struct checker *c)
{
	finish_integrity(c);
	finish_exactly_once(c);
	finish_retry(c);
	finish_nonblocking(c, INV_NONBLOCKING_SUBMIT_LIBAIO, FSAIO_ENGINE_LIBAIO);
	finish_nonblocking(c, INV_NONBLOCKING_SUBMIT_IO_URING, FSAIO_ENGINE_IO_URING);
	finish_resume(c);
	finish_quiescence(c);
	finish_durability(c);
	judge_with_loss(c);
}
