// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the checker core, retry_lifecycle: each RETRY woken once and
 * resumed once, before its request completes; a PUNT is a resumption path; a
 * wake of a wait entry still on its wait queue is the stale-WOKEN bug.
 */
#include "checker_fixture.h"

CHECKER_FIXTURE(patched, synth_cfg_all())

/* The patched kernel with its switch off (fs.aio-buffered-async=0) */
static inline struct checker_config cfg_switched_off(void)
{
	struct checker_config cfg = synth_cfg_all();

	cfg.libaio_async_expected = false;
	cfg.libaio_async_off = true;
	return cfg;
}
CHECKER_FIXTURE(switched_off, cfg_switched_off())

/* With the switch off the kernel must not take the asynchronous path: a
 * RETRY (a read) or a PUNT (an O_DSYNC write handed to the worker) of a
 * libaio request fails retry_lifecycle; synchronous requests, sleeping in
 * io_submit as on stock, pass (nonblocking_submit_libaio an XFAIL that
 * says why). */
TEST_F(switched_off, async_libaio_requests_fail)
{
	struct checker *c = self->c;

	aio_batch(c, 42, 0x1000, 1, 3);
	ev_sleep(c, 42, FSAIO_CTX_SUBMIT_LIBAIO, FSAIO_SITE_FOLIO_BIT, 100000);
	ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_LIBAIO, 42, 0x1000 + 64);
	ev_req(c, FSAIO_EV_WAKE, FSAIO_ENGINE_LIBAIO, 0, 0x1000 + 64);
	ev_resume(c, FSAIO_ENGINE_LIBAIO, 42, 0x1000 + 64, 1);
	ev_req(c, FSAIO_EV_PUNT, FSAIO_ENGINE_LIBAIO, 42, 0x1000 + 128);
	for (int i = 0; i < 3; i++) {
		aio_complete(c, 0x1000 + 64 * i, 4096);
		aio_reap(c, 42, 0x1000 + 64 * i, 4096);
	}
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_RETRY_LIFECYCLE);
	/* the RETRY and the PUNT */
	EXPECT_DETAIL(c, INV_RETRY_LIFECYCLE, "2 violations; first: ");
	EXPECT_DETAIL(c, INV_RETRY_LIFECYCLE, "went asynchronous (retry) with "
		      "fs.aio-buffered-async=0");
	EXPECT_VERDICT(c, VERDICT_XFAIL, INV_NONBLOCKING_SUBMIT_LIBAIO);
	EXPECT_DETAIL(c, INV_NONBLOCKING_SUBMIT_LIBAIO, "fs.aio-buffered-async=0, synchronous");
}

TEST_F(switched_off, synchronous_requests_pass)
{
	struct checker *c = self->c;

	aio_batch(c, 42, 0x1000, 1, 2);
	for (int i = 0; i < 2; i++) {
		aio_complete(c, 0x1000 + 64 * i, 4096);
		aio_reap(c, 42, 0x1000 + 64 * i, 4096);
	}
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_RETRY_LIFECYCLE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
}

/* ---------- retry_lifecycle ---------- */

TEST_F(patched, retry_wake_resume_passes)
{
	struct checker *c = self->c;

	uring_submit(c, 7, UREQ);
	uring_retry_cycle(c, UREQ);
	uring_retry_cycle(c, UREQ);
	uring_complete(c, 7, UREQ, 8192);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_RETRY_LIFECYCLE);
	EXPECT_EQ(2, INV(c, INV_RETRY_LIFECYCLE)->observations);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_RESUME_CONTEXT);
	EXPECT_EQ(2, INV(c, INV_RESUME_CONTEXT)->observations);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(2, URING(c)->retries);
	EXPECT_EQ(2, URING(c)->wakes);
	EXPECT_EQ(2, URING(c)->resumes);
}

TEST_F(patched, punt_is_a_resumption_path)
{
	struct checker *c = self->c;

	/* armed, then punted to io-wq: completion without wake is fine */
	uring_events(c, UREQ, "submit retry punt complete");
	/* punted straight away, the worker then resumes it */
	uring_events(c, UREQ + 0x200, "submit punt resume complete");
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_RETRY_LIFECYCLE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(2, URING(c)->punts);
}

/*
 * Must fail: one io_uring request whose retry events break the lifecycle
 * (retry -> wake -> resume or punt, then the completion).
 */
FIXTURE_VARIANT(uring_lifecycle) {
	const char *events;		/* uring_events() */
	const char *detail[2];		/* of retry_lifecycle, which fails */
	enum verdict quiescence;
	const char *quiescence_detail[2];
};

CHECKER_FIXTURE(uring_lifecycle, synth_cfg_all())

/* a wait entry not back to idle (armed, or woken and never resumed) is
 * left over at the end too */
FIXTURE_VARIANT_ADD(uring_lifecycle, wake_without_retry) {
	.events = "submit wake complete",
	.detail = { "wake without an armed retry: req 0xffff888004a1c000 (io_uring tgid 7): submit, wake" },
	.quiescence = VERDICT_FAIL,
};

FIXTURE_VARIANT_ADD(uring_lifecycle, double_wake) {
	.events = "submit retry wake wake resume complete",
	.detail = { "woken twice" },
};

FIXTURE_VARIANT_ADD(uring_lifecycle, resume_without_wake) {
	.events = "submit retry resume complete",
	.detail = { "resume without wake", "submit, retry(-529), resume(mm=1)" },
};

FIXTURE_VARIANT_ADD(uring_lifecycle, resume_without_any_retry) {
	.events = "submit resume complete",
	.detail = { "resume without an armed retry" },
};

FIXTURE_VARIANT_ADD(uring_lifecycle, complete_while_armed) {
	.events = "submit retry complete",
	.detail = { "completed while armed", "submit, retry(-529), complete(4096)" },
	.quiescence = VERDICT_FAIL,
	.quiescence_detail = { "1 armed wait entries" },
};

FIXTURE_VARIANT_ADD(uring_lifecycle, complete_after_wake_without_resume) {
	.events = "submit retry wake complete",
	.detail = { "wake without resume" },
	.quiescence = VERDICT_FAIL,
};

FIXTURE_VARIANT_ADD(uring_lifecycle, retry_while_armed) {
	.events = "submit retry retry",
	.detail = { "retry while already armed" },
	.quiescence = VERDICT_FAIL,
};

FIXTURE_VARIANT_ADD(uring_lifecycle, retry_after_completion) {
	.events = "submit complete wake",
	.detail = { "wake after completion" },
};

FIXTURE_VARIANT_ADD(uring_lifecycle, wake_for_unknown_request) {
	.events = "wake",
	.detail = { "never seen submitted" },
};

TEST_F(uring_lifecycle, fails)
{
	struct checker *c = self->c;

	ASSERT_EQ(0, uring_events(c, UREQ, variant->events));
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_RETRY_LIFECYCLE);
	EXPECT_DETAILS(c, INV_RETRY_LIFECYCLE, variant->detail);
	EXPECT_VERDICT(c, variant->quiescence, INV_QUIESCENCE);
	EXPECT_DETAILS(c, INV_QUIESCENCE, variant->quiescence_detail);
}

TEST_F(patched, inferred_events_are_counted)
{
	struct checker *c = self->c;
	struct fsaio_record r;

	uring_submit(c, 7, UREQ);
	r = synth_rec(FSAIO_EV_RETRY, FSAIO_ENGINE_IO_URING, 7, UREQ);
	r.flags = FSAIO_F_INFERRED;
	r.seq = 0;		/* harness-derived: no seq */
	synth_seq--;
	synth_feed(c, &r);
	r.type = FSAIO_EV_WAKE;
	synth_feed(c, &r);
	r.type = FSAIO_EV_RESUME;
	r.arg1 = 1;
	synth_feed(c, &r);
	uring_complete(c, 7, UREQ, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_TRACE_INTEGRITY);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_RETRY_LIFECYCLE);
	EXPECT_EQ(1, URING(c)->retries);
	EXPECT_EQ(1, URING(c)->resumes);
}

/*
 * The stale-WOKEN bug (ci/mutants/woken-kept-across-rearm): a re-armed
 * request queues its retry at once, the deferred wake traced while the
 * wait entry is still on the folio's wait queue (FSAIO_F_STILL_QUEUED,
 * read in BPF from aio_kiocb->ki_async).  The same sequence without the
 * flag is an early wake, which is fine.
 */
static void stale_woken_run(struct checker *c, bool still_queued)
{
	struct fsaio_record r;

	aio_submit(c, 42, IOCB, 1, 0);
	aio_submit_done(c, 42, 1, 1, 1);
	ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_LIBAIO, 42, IOCB);
	ev_req(c, FSAIO_EV_WAKE, FSAIO_ENGINE_LIBAIO, 0, IOCB);
	ev_resume(c, FSAIO_ENGINE_LIBAIO, 42, IOCB, 1);
	ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_LIBAIO, 42, IOCB);	/* in the worker */
	r = synth_rec(FSAIO_EV_WAKE, FSAIO_ENGINE_LIBAIO, 42, IOCB);
	r.arg1 = 1;	/* deferred: queued by the issuer */
	if (still_queued)
		r.flags = FSAIO_F_STILL_QUEUED;
	synth_feed(c, &r);
	ev_resume(c, FSAIO_ENGINE_LIBAIO, 42, IOCB, 1);
	aio_complete(c, IOCB, 8192);
	aio_reap(c, 42, IOCB, 8192);
}

TEST_F(patched, wake_with_entry_still_queued_fails)
{
	stale_woken_run(self->c, true);
	FINISH(self->c);
	EXPECT_VERDICT(self->c, VERDICT_FAIL, INV_RETRY_LIFECYCLE);
	EXPECT_DETAIL(self->c, INV_RETRY_LIFECYCLE, "retry queued while its wait entry was still "
		      "on a wait queue");
}

TEST_F(patched, early_wake_with_entry_off_the_queue_passes)
{
	stale_woken_run(self->c, false);
	FINISH(self->c);
	EXPECT_VERDICT(self->c, VERDICT_PASS, INV_RETRY_LIFECYCLE);
	EXPECT_EQ(2, INV(self->c, INV_RETRY_LIFECYCLE)->observations);
}

TEST_HARNESS_MAIN
