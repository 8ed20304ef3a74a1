// SPDX-License-Identifier: GPL-2.0
/*
 * The run's own checks: did the workload pass by its own account
 * (workload_exit), and do its counts equal the traced ones
 * (workload_agreement)?
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "common.h"
#include "run/agreement.h"

static const struct engine_stats *engine_for(const struct checker_stats *st,
					      const char *engine)
{
	if (!strcmp(engine, "libaio") || !strcmp(engine, "mixed"))
		return &st->engine[FSAIO_ENGINE_LIBAIO];
	if (!strcmp(engine, "io_uring"))
		return &st->engine[FSAIO_ENGINE_IO_URING];
	return NULL;
}

/*
 * The workload's own counts must equal the traced ones: the tracer is only
 * trustworthy if it sees exactly what the program did.  For fio, its mean
 * submission latency must agree with the traced submit syscall time, and
 * the traced blocked time must fit inside it.
 */
void check_agreement(struct run_result *r, const struct workload *w,
		     const struct child *c)
{
	const struct checker_stats *st = checker_stats(r->checker);
	const struct workload_report *wr = &c->report;
	struct invariant_result *ir = &r->run_checks[RUN_CHECK_AGREEMENT];
	const struct engine_stats *es;
	const char *name = "workload_agreement";

	if (w->kind == WL_COMMAND) {
		invariant_set(ir, name, VERDICT_SKIP, 0,
			  "arbitrary command: it reports no counts of its own");
		return;
	}
	if (!wr->valid) {
		invariant_set(ir, name, r->exit_status == 0 ? VERDICT_FAIL : VERDICT_SKIP, 0,
			  "workload reported no counts (exit status %d)", r->exit_status);
		return;
	}
	es = engine_for(st, wr->engine);
	if (!es) {
		/* Synchronous engines: nothing async may have been traced. */
		uint64_t n = st->engine[FSAIO_ENGINE_LIBAIO].submitted +
			     st->engine[FSAIO_ENGINE_IO_URING].submitted;

		invariant_set(ir, name, n ? VERDICT_FAIL : VERDICT_PASS, wr->submitted,
			  "%s: %" PRIu64 " I/Os, %" PRIu64 " async requests traced",
			  wr->engine, wr->submitted, n);
		return;
	}
	/* Requests left to io_destroy or exit are joined too: the workload
	 * says how many it never reaped on purpose (abandoned=, 0 if absent). */
	if (es->submitted != wr->submitted || es->completed != wr->completed ||
	    es->abandoned != wr->abandoned) {
		invariant_set(ir, name, VERDICT_FAIL, wr->submitted,
			  "%s: workload submitted/completed/abandoned %" PRIu64 "/%" PRIu64
			  "/%" PRIu64 ", traced %" PRIu64 "/%" PRIu64 "/%" PRIu64,
			  wr->engine, wr->submitted, wr->completed, wr->abandoned,
			  es->submitted, es->completed, es->abandoned);
		return;
	}
	if (wr->abandoned) {
		invariant_set(ir, name, VERDICT_PASS, wr->submitted,
			  "%s: submitted/completed/abandoned %" PRIu64 "/%" PRIu64 "/%" PRIu64
			  " as traced", wr->engine, wr->submitted, wr->completed,
			  wr->abandoned);
		return;
	}
	if (w->kind == WL_FIO && es->submit_calls && wr->slat_samples) {
		double traced_us = es->submit_ns / 1e3 / es->submit_calls;
		double fio_us = wr->slat_mean_ns / 1e3;
		double blocked_us = es->blocked_ns / 1e3 / es->submit_calls;

		/* fio's slat brackets the submit call from user space: it adds
		 * fio's own work per I/O and, on a busy machine, the time fio
		 * waited for a CPU around the call (360 us of slat against 121
		 * us in the syscall, measured beside a stress-ng load).  So a
		 * slat above the traced time says nothing about the trace; the
		 * trace seeing more time in submit than fio around it (50% +
		 * 50 us of slack), or sleeps outlasting the calls, is wrong. */
		double slack = 0.5 * (fio_us > traced_us ? fio_us : traced_us) + 50;
		int fio_over = fio_us - traced_us > slack;

		if (traced_us - fio_us > slack || blocked_us > traced_us * 1.01 + 1) {
			invariant_set(ir, name, VERDICT_FAIL, wr->submitted,
				  "%s: fio slat mean %.1f us but traced submit %.1f us/call"
				  " (blocked %.1f us/call)", wr->engine, fio_us,
				  traced_us, blocked_us);
			return;
		}
		invariant_set(ir, name, VERDICT_PASS, wr->submitted,
			  "%s: %" PRIu64 "/%" PRIu64 " as traced; fio slat mean %.1f us%s,"
			  " traced submit %.1f us/call, blocked %.1f us/call",
			  wr->engine, wr->submitted, wr->completed, fio_us,
			  wr->slat_has_fill ? " (incl. verify buffer fill: upper bound)" :
			  fio_over ? " (fio's own work and CPU waits around the call)" : "",
			  traced_us, blocked_us);
		return;
	}
	invariant_set(ir, name, VERDICT_PASS, wr->submitted,
		  "%s: submitted/completed %" PRIu64 "/%" PRIu64 " as traced",
		  wr->engine, wr->submitted, wr->completed);
}

void check_exit(struct run_result *r, const struct workload *w,
		const struct child *c, int timeout, int skip_code)
{
	struct invariant_result *ir = &r->run_checks[RUN_CHECK_EXIT];
	const char *name = "workload_exit";
	const char *s = c->killed == 1 ? "" : "es";
	char left[96] = "";
	int st = c->status;

	/* What it left running is killed (run/child.h), and said. */
	if (c->killed && !c->timed_out && !c->interrupted)
		snprintf(left, sizeof(left), "; %d leftover process%s killed %d s after it exited",
			 c->killed, s, LEFTOVER_GRACE_S);
	r->exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (c->timed_out)
		invariant_set(ir, name, VERDICT_ERROR, 1,
			  "workload hung: killed after %d s (--timeout), %d process%s",
			  timeout, c->killed, s);
	else if (c->interrupted)
		invariant_set(ir, name, VERDICT_ERROR, 1, "interrupted: %d process%s killed",
			  c->killed, s);
	else if (fsaio_interrupted)
		invariant_set(ir, name, VERDICT_ERROR, 1, "interrupted");
	else if (WIFSIGNALED(st))
		invariant_set(ir, name, VERDICT_FAIL, 1, "workload killed by signal %d (%s)%s",
			  WTERMSIG(st), strsignal(WTERMSIG(st)), left);
	else if (skip_code && r->exit_status == skip_code)
		r->skipped_itself = true, invariant_set(ir, name, VERDICT_SKIP, 1, "%s skipped itself (exit %d)%s",
			      w->kind == WL_COMMAND ? "command" : "workload", skip_code, left);
	else if (r->exit_status)
		invariant_set(ir, name, VERDICT_FAIL, 1, "%s exited with status %d%s%s",
			  w->kind == WL_PROGRAM ? "workload" : w->kind == WL_FIO ? "fio" : "command",
			  r->exit_status,
			  w->kind == WL_PROGRAM ? " (data or result check failed)" : "", left);
	else
		invariant_set(ir, name, VERDICT_PASS, 1, "%s%s",
			  w->kind == WL_PROGRAM ? "exit 0, every byte read verified" :
			  w->kind == WL_FIO ? "fio exit 0 (verify where the job asks)" :
			  "exit 0", left);
}
