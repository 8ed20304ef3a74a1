// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the checker core, resume_context: a resumed request runs as
 * its submitter (its mm, or none once the submitter exited; its credentials;
 * its I/O priority), and the worker gives all of it back when its work item
 * ends.
 */
#include "checker_fixture.h"

CHECKER_FIXTURE(patched, synth_cfg_all())

/* ---------- resume_context ---------- */

/*
 * One libaio iocb of tgid 42 through retry, wake (in IRQ) and resume, then
 * its completion: resumed in a kworker with or without the submitter's mm,
 * or by exit_aio() with the mm gone, which is only right once the
 * submitter exited.
 */
enum resumer {
	KWORKER_MM,		/* patched libaio: a kworker in the submitter's mm */
	KWORKER_NO_MM,		/* a kworker without it */
	MM_GONE,		/* the address space gone: mm 0, arg2 2 */
};

enum exit_at {
	NO_EXIT,
	EXIT_BEFORE_SUBMIT,	/* an earlier process with a recycled tgid */
	EXIT_AFTER_RETRY,
	EXIT_AT_END,		/* exit_mm() -> exit_aio() runs before
				 * sched_process_exit fires */
};

FIXTURE_VARIANT(libaio_resume) {
	enum resumer resumer;
	enum exit_at exit_at;
	int32_t res;
	bool reap;
	enum verdict resume_context;
	const char *detail[2];		/* of resume_context */
};

CHECKER_FIXTURE(libaio_resume, synth_cfg_all())

FIXTURE_VARIANT_ADD(libaio_resume, in_worker_context) {
	.resumer = KWORKER_MM,
	.res = 4096, .reap = true,
	.resume_context = VERDICT_PASS,
};

FIXTURE_VARIANT_ADD(libaio_resume, without_submitter_mm) {
	.resumer = KWORKER_NO_MM,
	.res = 4096, .reap = true,
	.resume_context = VERDICT_FAIL,
	.detail = { "resume(mm=0)" },
};

FIXTURE_VARIANT_ADD(libaio_resume, mm_gone_after_exit) {
	.resumer = MM_GONE, .exit_at = EXIT_AFTER_RETRY,
	.res = -EINTR,
	.resume_context = VERDICT_PASS,
	.detail = { "1 after the submitter exited" },
};

FIXTURE_VARIANT_ADD(libaio_resume, mm_gone_exit_traced_later) {
	.resumer = MM_GONE, .exit_at = EXIT_AT_END,
	.res = -EINTR,
	.resume_context = VERDICT_PASS,
};

FIXTURE_VARIANT_ADD(libaio_resume, mm_gone_without_exit) {
	.resumer = MM_GONE,
	.res = -EINTR, .reap = true,
	.resume_context = VERDICT_FAIL,
	.detail = { "1 of 1 resumes" },
};

FIXTURE_VARIANT_ADD(libaio_resume, mm_gone_exit_before_submit) {
	.resumer = MM_GONE, .exit_at = EXIT_BEFORE_SUBMIT,
	.res = 4096, .reap = true,
	.resume_context = VERDICT_FAIL,
};

TEST_F(libaio_resume, resume_context)
{
	struct checker *c = self->c;
	struct fsaio_record r;

	if (variant->exit_at == EXIT_BEFORE_SUBMIT)
		ev_proc_exit(c, 42);
	aio_batch(c, 42, IOCB, 1, 1);
	ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_LIBAIO, 42, IOCB);
	if (variant->exit_at == EXIT_AFTER_RETRY)
		ev_proc_exit(c, 42);
	ev_req(c, FSAIO_EV_WAKE, FSAIO_ENGINE_LIBAIO, 0, IOCB);
	if (variant->resumer == MM_GONE) {
		r = synth_rec(FSAIO_EV_RESUME, FSAIO_ENGINE_LIBAIO, 42, IOCB);
		r.arg0 = 43;
		r.arg2 = 2;
		synth_feed(c, &r);
	} else {
		ev_resume(c, FSAIO_ENGINE_LIBAIO, 3, IOCB, variant->resumer == KWORKER_MM);
	}
	aio_complete(c, IOCB, variant->res);
	if (variant->reap)
		aio_reap(c, 42, IOCB, variant->res);
	if (variant->exit_at == EXIT_AT_END)
		ev_proc_exit(c, 42);
	FINISH(c);
	EXPECT_VERDICT(c, variant->resume_context, INV_RESUME_CONTEXT);
	EXPECT_DETAILS(c, INV_RESUME_CONTEXT, variant->detail);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_RETRY_LIFECYCLE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
}

/* ---------- the submitter's identity: credentials, I/O priority ---------- */

/* One libaio read retried, woken and resumed by worker pid 43 whose
 * RESUME carries flags (arg2, with the packed priorities) and ring (the
 * packed fsuids), then completed and reaped. */
static void resumed_read(struct checker *c, uint64_t flags, uint64_t ring)
{
	struct fsaio_record r;

	aio_submit(c, 42, IOCB, 1, 0);
	aio_submit_done(c, 42, 1, 1, 1);
	ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_LIBAIO, 42, IOCB);
	ev_req(c, FSAIO_EV_WAKE, FSAIO_ENGINE_LIBAIO, 0, IOCB);
	r = synth_rec(FSAIO_EV_RESUME, FSAIO_ENGINE_LIBAIO, 42, IOCB);
	r.arg0 = 43;
	r.arg1 = 1;
	r.arg2 = flags;
	r.ring = ring;
	synth_feed(c, &r);
	aio_complete(c, IOCB, 4096);
	aio_reap(c, 42, IOCB, 4096);
}

/* A worker that resumes a request with its own credentials (a kworker's
 * root instead of the submitter's fsuid 65534) fails resume_context. */
TEST_F(patched, resume_with_other_credentials_fails)
{
	struct checker *c = self->c;

	resumed_read(c, FSAIO_RESUME_OTHER_CREDS, fsaio_resume_fsuids_pack(65534, 0));
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_RESUME_CONTEXT);
	EXPECT_DETAIL(c, INV_RESUME_CONTEXT, "resumed with other credentials than the submitter's "
		      "(fsuid 0, the submitter's 65534");
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
}

/* The resume names the thread that submitted the request: a kernel that
 * names the process (its tgid) for a request a second thread submitted
 * fails resume_context; naming the submitting thread, or not saying
 * (res 0: an older tracer, SystemTap), passes. */
static void resumed_by_thread(struct checker *c, uint64_t iocb, int32_t named)
{
	struct fsaio_record r;

	r = synth_rec(FSAIO_EV_SUBMIT, FSAIO_ENGINE_LIBAIO, 42, iocb);
	r.pid = 44;			/* a second thread of tgid 42 */
	r.arg1 = 4096;
	r.arg2 = fsaio_submit_arg2(0, 3, 0);
	r.res = 1;
	r.ring = SYNTH_RING;
	synth_feed(c, &r);
	r = synth_rec(FSAIO_EV_SUBMIT_DONE, FSAIO_ENGINE_LIBAIO, 42, 0);
	r.pid = 44;
	r.res = 1;
	r.arg0 = 1;
	r.arg2 = 1;
	synth_feed(c, &r);
	ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_LIBAIO, 42, iocb);
	ev_req(c, FSAIO_EV_WAKE, FSAIO_ENGINE_LIBAIO, 0, iocb);
	r = synth_rec(FSAIO_EV_RESUME, FSAIO_ENGINE_LIBAIO, 42, iocb);
	r.arg0 = 43;
	r.arg1 = 1;
	r.res = named;
	synth_feed(c, &r);
	aio_complete(c, iocb, 4096);
	aio_reap(c, 42, iocb, 4096);
}

TEST_F(patched, resume_naming_another_submitter_thread_fails)
{
	struct checker *c = self->c;

	resumed_by_thread(c, IOCB, 42);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_RESUME_CONTEXT);
	EXPECT_DETAIL(c, INV_RESUME_CONTEXT, "resumed for submitter thread 42, the request was "
		      "submitted by thread 44");
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
}

TEST_F(patched, resume_naming_the_submitter_thread_passes)
{
	struct checker *c = self->c;

	resumed_by_thread(c, IOCB, 44);
	resumed_by_thread(c, IOCB + 0x1000, 0);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_RESUME_CONTEXT);
}

/* A worker that would issue the request's block I/O at its own priority
 * (a kworker's be/4) where the request has the idle class (ionice -c3)
 * fails resume_context, by name; agreeing priorities raise no flag. */
TEST_F(patched, resume_at_other_ioprio_fails)
{
	struct checker *c = self->c;

	resumed_read(c, FSAIO_RESUME_OTHER_IOPRIO |
		     fsaio_resume_ioprios_pack(3 << 13, 2 << 13 | 4), 0);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_RESUME_CONTEXT);
	EXPECT_DETAIL(c, INV_RESUME_CONTEXT, "resumed at I/O priority be/4, the request's is idle");
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
}

/* A kworker that ends the work item of a request still holding the
 * submitter's credentials and I/O priority (revert_creds() or the
 * priority's give-back left out) fails resume_context, naming both; the
 * request itself was served right. */
TEST_F(patched, worker_keeping_the_submitters_context_fails)
{
	struct checker *c = self->c;
	struct fsaio_record r;

	resumed_read(c, 0, 0);
	r = synth_rec(FSAIO_EV_WORKER_KEPT, FSAIO_ENGINE_LIBAIO, 77, IOCB);
	r.arg0 = FSAIO_KEPT_CREDS | FSAIO_KEPT_IOPRIO;
	r.arg1 = 3 << 13;
	synth_feed(c, &r);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_RESUME_CONTEXT);
	EXPECT_DETAIL(c, INV_RESUME_CONTEXT, "the aio worker (pid 77) ended its work item for "
		      "req 0x");
	EXPECT_DETAIL(c, INV_RESUME_CONTEXT, "still holding the submitter's credentials, "
		      "I/O priority idle");
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
}

/* The flags word's upper half (the priorities) is not a flag: a resume
 * with same-priority bits left there by a newer tracer still passes. */
TEST_F(patched, resume_flags_ignore_the_ioprio_half)
{
	struct checker *c = self->c;

	resumed_read(c, fsaio_resume_ioprios_pack(0xffff, 0xffff), 0);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_RESUME_CONTEXT);
}

TEST_HARNESS_MAIN
