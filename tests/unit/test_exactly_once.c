// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the checker core, exactly_once: every accepted request
 * completes once, with the same result in the kernel and for the user,
 * whatever process or recycled pointer it has; libaio batch entries
 * io_submit rejected are not requests; io_uring CQEs without a request of
 * their own (early failures, overflowed or skipped CQEs, multishot,
 * zero-copy notifications) are named and counted.
 */
#include "checker_fixture.h"

CHECKER_FIXTURE(patched, synth_cfg_all())
CHECKER_FIXTURE(stock, synth_cfg_stock())

/* ---------- exactly_once ---------- */

TEST_F(patched, libaio_batch_completes_once_passes)
{
	struct checker *c = self->c;
	unsigned i;

	aio_batch(c, 42, IOCB, 1, 4);
	for (i = 0; i < 4; i++)
		aio_complete(c, IOCB + 64 * i, 4096);
	for (i = 0; i < 4; i++)
		aio_reap(c, 42, IOCB + 64 * i, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_TRACE_INTEGRITY);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_EQ(4, INV(c, INV_EXACTLY_ONCE)->observations);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_NONBLOCKING_SUBMIT_LIBAIO);
	EXPECT_VERDICT(c, VERDICT_SKIP, INV_NONBLOCKING_SUBMIT_IO_URING);
	EXPECT_DETAIL(c, INV_NONBLOCKING_SUBMIT_IO_URING, "no io_uring requests");
	EXPECT_VERDICT(c, VERDICT_PASS, INV_RETRY_LIFECYCLE);
	EXPECT_EQ(0, INV(c, INV_RETRY_LIFECYCLE)->observations);
	EXPECT_DETAIL(c, INV_RETRY_LIFECYCLE, "no retry armed");
	EXPECT_EQ(4, LIBAIO(c)->submitted);
	EXPECT_EQ(4, LIBAIO(c)->completed);
	EXPECT_EQ(1, LIBAIO(c)->submit_calls);
	EXPECT_EQ(1000, LIBAIO(c)->submit_ns);
	EXPECT_STREQ("exactly_once", INV(c, INV_EXACTLY_ONCE)->name);
}

TEST_F(patched, no_requests_skips_exactly_once)
{
	struct checker *c = self->c;

	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_SKIP, INV_EXACTLY_ONCE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_VERDICT(c, VERDICT_SKIP, INV_NONBLOCKING_SUBMIT_LIBAIO);
}

TEST_F(patched, io_uring_double_complete_fails)
{
	struct checker *c = self->c;

	uring_submit(c, 7, UREQ);
	uring_submit_done(c, 7, 1);
	uring_complete(c, 7, UREQ, 4096);
	uring_complete(c, 7, UREQ, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "completed twice");
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE,
		      "req 0xffff888004a1c000 (io_uring tgid 7): submit, complete(4096), complete(4096)");
	EXPECT_EQ(1, URING(c)->completed);
}

/*
 * One libaio iocb, accepted alone: its kernel completions, then its reaps.
 * Exactly once: one of each where both are observable, one reap where
 * only reaps are, and the same result on both sides.
 */
FIXTURE_VARIANT(one_iocb) {
	struct cfg_delta cfg;
	int nr_complete, nr_reap;
	int32_t complete[2], reap[2];	/* kernel and user results */
	enum verdict exactly_once;
	const char *detail[2];		/* of exactly_once */
	enum verdict quiescence;
	uint64_t errors;		/* libaio requests with a result < 0 */
};

CHECKER_FIXTURE(one_iocb, config_of(variant->cfg))

FIXTURE_VARIANT_ADD(one_iocb, double_reap) {
	.cfg = { .stock = true },
	.nr_reap = 2, .reap = { 4096, 4096 },
	.exactly_once = VERDICT_FAIL,
	.detail = { "(libaio tgid 42): submit, reap(4096), reap(4096)" },
};

FIXTURE_VARIANT_ADD(one_iocb, double_kernel_complete) {
	.nr_complete = 2, .complete = { 4096, 4096 },
	.nr_reap = 1, .reap = { 4096 },
	.exactly_once = VERDICT_FAIL,
	.detail = { "completed twice" },
};

FIXTURE_VARIANT_ADD(one_iocb, kernel_user_result_mismatch) {
	.nr_complete = 1, .complete = { 4096 },
	.nr_reap = 1, .reap = { -5 },
	.exactly_once = VERDICT_FAIL,
	.detail = { "kernel result 4096 != user result -5" },
	.errors = 1,
};

/* kernel completions observable: a reap without one is a miss */
FIXTURE_VARIANT_ADD(one_iocb, reap_without_kernel_complete) {
	.nr_reap = 1, .reap = { 4096 },
	.exactly_once = VERDICT_FAIL,
	.detail = { "reaped without a kernel completion" },
};

/* not observable (stock host): the reap alone is the completion */
FIXTURE_VARIANT_ADD(one_iocb, reap_kernel_complete_unseen) {
	.cfg = { .no_kernel_complete = true },
	.nr_reap = 1, .reap = { 4096 },
	.exactly_once = VERDICT_PASS,
};

TEST_F(one_iocb, exactly_once)
{
	struct checker *c = self->c;
	int i;

	aio_batch(c, 42, IOCB, 1, 1);
	for (i = 0; i < variant->nr_complete; i++)
		aio_complete(c, IOCB, variant->complete[i]);
	for (i = 0; i < variant->nr_reap; i++)
		aio_reap(c, 42, IOCB, variant->reap[i]);
	FINISH(c);
	EXPECT_VERDICT(c, variant->exactly_once, INV_EXACTLY_ONCE);
	EXPECT_DETAILS(c, INV_EXACTLY_ONCE, variant->detail);
	EXPECT_VERDICT(c, variant->quiescence, INV_QUIESCENCE);
	EXPECT_EQ(variant->errors, LIBAIO(c)->errors);
}

TEST_F(stock, reap_of_unsubmitted_iocb_fails)
{
	struct checker *c = self->c;

	aio_batch(c, 42, IOCB, 1, 1);
	aio_reap(c, 42, IOCB, 4096);
	aio_reap(c, 42, IOCB + 0x1000, 512);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "never seen submitted");
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "req 0x7ffc0000b000");
}

/*
 * libaio kernel events (fsaio:* or fentry) of an iocb never seen
 * submitted: a failure where submits are observable; on a kernel without
 * syscalls: tracepoints, a SKIP that says so.
 */
FIXTURE_VARIANT(unsubmitted_iocb) {
	struct cfg_delta cfg;
	enum verdict exactly_once;
	const char *detail[2];		/* of exactly_once */
	bool retry_fails;		/* else retry_lifecycle is not FAIL */
};

CHECKER_FIXTURE(unsubmitted_iocb, config_of(variant->cfg))

FIXTURE_VARIANT_ADD(unsubmitted_iocb, submit_seen) {
	.exactly_once = VERDICT_FAIL,
	.retry_fails = true,
};

FIXTURE_VARIANT_ADD(unsubmitted_iocb, submit_unseen) {
	.cfg = { .submit_unseen = true },
	.exactly_once = VERDICT_SKIP,
	.detail = { "not observable" },
};

TEST_F(unsubmitted_iocb, kernel_events)
{
	struct checker *c = self->c;

	ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_LIBAIO, 42, IOCB);
	ev_req(c, FSAIO_EV_WAKE, FSAIO_ENGINE_LIBAIO, 0, IOCB);
	aio_complete(c, IOCB, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, variant->exactly_once, INV_EXACTLY_ONCE);
	EXPECT_DETAILS(c, INV_EXACTLY_ONCE, variant->detail);
	if (variant->retry_fails) {
		EXPECT_VERDICT(c, VERDICT_FAIL, INV_RETRY_LIFECYCLE);
	} else {
		EXPECT_NE(VERDICT_FAIL, V(c, INV_RETRY_LIFECYCLE)) TH_LOG("%s", D(c, INV_RETRY_LIFECYCLE));
	}
}

TEST_F(patched, io_uring_complete_of_unsubmitted_is_counted_not_failed)
{
	struct checker *c = self->c;

	uring_submit(c, 7, UREQ);
	uring_complete(c, 7, UREQ, 4096);
	uring_complete(c, 7, UREQ + 0x200, -22);	/* failed in io_init_req */
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "1 io_uring completions of unsubmitted");
}

TEST_F(patched, io_uring_multishot_more_cqes_are_not_completions)
{
	struct checker *c = self->c;
	struct fsaio_record r;
	int i;

	uring_submit(c, 7, UREQ);
	for (i = 0; i < 3; i++) {
		r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 7, UREQ);
		r.res = 100;
		r.arg0 = 1u << 1;	/* IORING_CQE_F_MORE */
		synth_feed(c, &r);
	}
	uring_complete(c, 7, UREQ, 0);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(1, URING(c)->completed);
}

TEST_F(patched, io_uring_complete_without_req_is_counted)
{
	struct checker *c = self->c;

	uring_submit(c, 7, UREQ);
	uring_complete(c, 7, 0, 0);		/* aux CQE: tracepoint req NULL */
	uring_complete(c, 7, UREQ, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
}

TEST_F(patched, pointer_reuse_after_completion_passes)
{
	struct checker *c = self->c;
	int i;

	for (i = 0; i < 5; i++) {
		uring_submit(c, 7, UREQ);
		uring_complete(c, 7, UREQ, 4096);
		aio_batch(c, 42, IOCB, i + 1, 1);
		aio_complete(c, IOCB, 4096);
		aio_reap(c, 42, IOCB, 4096);
	}
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_EQ(10, INV(c, INV_EXACTLY_ONCE)->observations);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(5, URING(c)->completed);
	EXPECT_EQ(5, LIBAIO(c)->completed);
}

/*
 * Requests that may end without a CQE: IOSQE_CQE_SKIP_SUCCESS (the kernel
 * posts no CQE on success, so no COMPLETE) and the links of a failed chain
 * (io_uring_fail_link; their -ECANCELED CQE is skipped when the failed
 * request had the flag).  Such a lifecycle ends when its req struct is
 * submitted again or at the end, counted in completed and cqe_skipped;
 * without the flag or the link failure, the same stream still fails.
 */
FIXTURE_VARIANT(cqe_skip) {
	bool skip;		/* SUBMIT with IOSQE_CQE_SKIP_SUCCESS */
	bool link_fail;		/* LINK_FAIL before the end */
	bool reuse;		/* the req struct submitted again (plain, completed) */
	bool complete;		/* a COMPLETE does come (a failure, never skipped) */
	enum verdict eonce, quiesce;
	uint64_t completed, skipped, errors;
	const char *detail;	/* in exactly_once's detail */
};
CHECKER_FIXTURE(cqe_skip, synth_cfg_stock())

FIXTURE_VARIANT_ADD(cqe_skip, silent_success_at_end) {
	.skip = true, .eonce = VERDICT_PASS, .quiesce = VERDICT_PASS,
	.completed = 1, .skipped = 1,
	.detail = "1 ended without a CQE (IOSQE_CQE_SKIP_SUCCESS",
};
FIXTURE_VARIANT_ADD(cqe_skip, silent_success_req_reused) {
	.skip = true, .reuse = true, .eonce = VERDICT_PASS, .quiesce = VERDICT_PASS,
	.completed = 2, .skipped = 1, .detail = "2 requests (0 libaio, 2 io_uring)",
};
FIXTURE_VARIANT_ADD(cqe_skip, failure_still_posts_its_cqe) {
	.skip = true, .complete = true, .eonce = VERDICT_PASS, .quiesce = VERDICT_PASS,
	.completed = 1, .skipped = 0, .errors = 1, .detail = "none completed twice",
};
FIXTURE_VARIANT_ADD(cqe_skip, failed_chain_link_silent) {
	.link_fail = true, .reuse = true, .eonce = VERDICT_PASS, .quiesce = VERDICT_PASS,
	.completed = 2, .skipped = 1, .errors = 1, .detail = "1 ended without a CQE",
};
FIXTURE_VARIANT_ADD(cqe_skip, failed_chain_link_cqe_posted) {
	.link_fail = true, .complete = true, .eonce = VERDICT_PASS,
	.quiesce = VERDICT_PASS, .completed = 1, .skipped = 0, .errors = 1,
	.detail = "none completed twice",
};
FIXTURE_VARIANT_ADD(cqe_skip, plain_request_never_completed) {
	.eonce = VERDICT_PASS, .quiesce = VERDICT_FAIL, .completed = 0,
	.detail = "1 requests (0 libaio, 1 io_uring)",
};
FIXTURE_VARIANT_ADD(cqe_skip, plain_request_reused_in_flight) {
	.reuse = true, .eonce = VERDICT_FAIL, .quiesce = VERDICT_PASS, .completed = 1,
	.detail = "submitted again before it completed",
};

TEST_F(cqe_skip, ends_without_cqe)
{
	struct checker *c = self->c;

	if (variant->skip)
		uring_submit_skip(c, 7, UREQ);
	else
		uring_submit(c, 7, UREQ);
	uring_submit_done(c, 7, 1);
	if (variant->link_fail)
		uring_link_fail(c, 7, UREQ);
	if (variant->complete)
		uring_complete(c, 7, UREQ, variant->link_fail ? -125 : -14);
	if (variant->reuse) {
		uring_submit(c, 7, UREQ);
		uring_complete(c, 7, UREQ, 0);
	}
	FINISH(c);
	EXPECT_VERDICT(c, variant->eonce, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, variant->detail);
	EXPECT_VERDICT(c, variant->quiesce, INV_QUIESCENCE);
	EXPECT_EQ(variant->completed, URING(c)->completed);
	EXPECT_EQ(variant->skipped, URING(c)->cqe_skipped);
	EXPECT_EQ(variant->errors, URING(c)->errors);
}

/*
 * Zero-copy sends: the request's own CQE carries F_MORE and ends it (its
 * req struct is freed); the notification CQE (F_NOTIF) comes from a request
 * the kernel allocated itself, on any req struct (often a finished
 * request's), and is matched to none.  A multishot request's F_MORE CQE
 * still does not end it.
 */
FIXTURE_VARIANT(zc_send) {
	unsigned opcode;	/* 47 IORING_OP_SEND_ZC, 22 RECV (multishot) */
	bool overflow;		/* the request's own CQE overflowed the CQ */
	uint64_t notif_req;	/* the notification's req struct (0: none) */
	enum verdict eonce, quiesce;
	uint64_t completed, notifs;
};
CHECKER_FIXTURE(zc_send, synth_cfg_stock())

FIXTURE_VARIANT_ADD(zc_send, notif_on_the_send_req_struct) {
	.opcode = 47, .notif_req = UREQ, .eonce = VERDICT_PASS,
	.quiesce = VERDICT_PASS, .completed = 1, .notifs = 1,
};
FIXTURE_VARIANT_ADD(zc_send, notif_on_another_req_struct) {
	.opcode = 47, .notif_req = UREQ + 0x100, .eonce = VERDICT_PASS,
	.quiesce = VERDICT_PASS, .completed = 1, .notifs = 1,
};
FIXTURE_VARIANT_ADD(zc_send, own_cqe_overflowed) {
	.opcode = 48, .overflow = true, .notif_req = UREQ, .eonce = VERDICT_PASS,
	.quiesce = VERDICT_PASS, .completed = 1, .notifs = 1,
};
FIXTURE_VARIANT_ADD(zc_send, multishot_more_cqe_does_not_end) {
	.opcode = 22, .eonce = VERDICT_PASS, .quiesce = VERDICT_FAIL,
	.completed = 0, .notifs = 0,
};

TEST_F(zc_send, own_cqe_ends_it)
{
	struct checker *c = self->c;
	struct fsaio_record r = synth_rec(FSAIO_EV_SUBMIT, FSAIO_ENGINE_IO_URING, 7, UREQ);

	r.user_data = 0x5e;
	r.arg0 = variant->opcode;
	r.ring = SYNTH_URING_RING;
	synth_feed(c, &r);
	uring_submit_done(c, 7, 1);
	if (variant->overflow) {
		uring_overflow(c, 0x5e, 4096, false, 1u << 1 /* F_MORE */);
	} else {
		r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 7, UREQ);
		r.user_data = 0x5e;
		r.res = 4096;
		r.arg0 = 1u << 1;	/* IORING_CQE_F_MORE */
		synth_feed(c, &r);
	}
	if (variant->notif_req) {
		r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 7, variant->notif_req);
		r.user_data = 0x5e;
		r.arg0 = 1u << 3;	/* IORING_CQE_F_NOTIF */
		synth_feed(c, &r);
	}
	FINISH(c);
	EXPECT_VERDICT(c, variant->eonce, INV_EXACTLY_ONCE);
	EXPECT_VERDICT(c, variant->quiesce, INV_QUIESCENCE);
	EXPECT_EQ(variant->completed, URING(c)->completed);
	EXPECT_EQ(variant->notifs, URING(c)->zc_notifs);
	if (variant->notifs) {
		EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "1 zero-copy send notifications");
		EXPECT_FALSE(HAS(c, INV_EXACTLY_ONCE, "unsubmitted"));
	}
}

/*
 * An overflowed CQE (no req) ends the first in-flight request of its ring
 * with its user_data; when two share it and the guess was wrong (the
 * chosen one's own CQE comes, or the other's req struct is reused), the
 * overflowed CQE moves to the other one.  With distinct user_data a second
 * CQE still fails.
 */
FIXTURE_VARIANT(ovf_same_ud) {
	uint64_t ud_b;		/* B's user_data; A's is 0 */
	bool reuse_b;		/* B's req struct submitted again (then completed) */
	enum verdict eonce, quiesce;
	uint64_t completed;
};
CHECKER_FIXTURE(ovf_same_ud, synth_cfg_stock())

FIXTURE_VARIANT_ADD(ovf_same_ud, own_cqe_of_the_guessed_one) {
	.ud_b = 0, .eonce = VERDICT_PASS, .quiesce = VERDICT_PASS, .completed = 2,
};
FIXTURE_VARIANT_ADD(ovf_same_ud, req_struct_of_the_other_reused) {
	.ud_b = 0, .reuse_b = true, .eonce = VERDICT_PASS, .quiesce = VERDICT_PASS,
	.completed = 3,
};
FIXTURE_VARIANT_ADD(ovf_same_ud, distinct_user_data_still_fails) {
	.ud_b = 7, .eonce = VERDICT_FAIL, .quiesce = VERDICT_FAIL, .completed = 1,
};

static void submit_ud(struct checker *c, uint64_t req, uint64_t ud)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_SUBMIT, FSAIO_ENGINE_IO_URING, 7, req);

	r.user_data = ud;
	r.ring = SYNTH_URING_RING;
	synth_feed(c, &r);
}

TEST_F(ovf_same_ud, overflowed_cqe_moves)
{
	struct checker *c = self->c;
	const uint64_t a = UREQ, b = UREQ + 0x100;

	submit_ud(c, a, 0);			/* e.g. a pipe read, pending */
	submit_ud(c, b, variant->ud_b);		/* a NOP whose CQE overflows */
	uring_overflow(c, 0, 0, false, 0);	/* taken for a's (the first) */
	if (variant->reuse_b) {
		submit_ud(c, b, 0);		/* b's struct was free: b ended */
		uring_complete(c, 7, b, 0);
	}
	uring_complete(c, 7, a, 4);		/* a's own CQE */
	FINISH(c);
	EXPECT_VERDICT(c, variant->eonce, INV_EXACTLY_ONCE);
	EXPECT_VERDICT(c, variant->quiesce, INV_QUIESCENCE);
	EXPECT_EQ(variant->completed, URING(c)->completed);
	EXPECT_EQ(1, URING(c)->cq_overflow);
	if (variant->eonce == VERDICT_PASS)
		EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "matched by a user_data several requests share");
}

TEST_F(stock, same_iocb_address_in_two_processes)
{
	struct checker *c = self->c;

	/* fork()ed workers share addresses; tgid keeps them apart */
	aio_batch(c, 42, IOCB, 1, 1);
	aio_batch(c, 43, IOCB, 1, 1);
	aio_reap(c, 43, IOCB, 4096);
	aio_reap(c, 42, IOCB, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
}

TEST_F(patched, kernel_completions_find_the_right_process)
{
	struct checker *c = self->c;

	/* two fork()ed workers, same iocb address, completions in IRQ */
	aio_batch(c, 42, IOCB, 1, 1);
	aio_batch(c, 43, IOCB, 1, 1);
	aio_complete(c, IOCB, 4096);
	aio_complete(c, IOCB, 4096);
	aio_reap(c, 43, IOCB, 4096);
	aio_reap(c, 42, IOCB, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
}

TEST_F(patched, resubmit_while_in_flight_fails)
{
	struct checker *c = self->c;

	uring_submit(c, 7, UREQ);
	uring_submit(c, 7, UREQ);
	uring_complete(c, 7, UREQ, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "submitted again before it completed");
}

/* ---------- libaio batches ---------- */

TEST_F(patched, rejected_batch_entries_not_in_flight)
{
	struct checker *c = self->c;
	unsigned i;

	for (i = 0; i < 4; i++)
		aio_submit(c, 42, IOCB + 64 * i, 9, i);
	aio_submit_done(c, 42, 9, 4, 2);	/* -> only the first two accepted */
	for (i = 0; i < 2; i++) {
		aio_complete(c, IOCB + 64 * i, 4096);
		aio_reap(c, 42, IOCB + 64 * i, 4096);
	}
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_EQ(2, INV(c, INV_EXACTLY_ONCE)->observations);
	EXPECT_EQ(2, LIBAIO(c)->submitted);
}

TEST_F(patched, batch_rejected_by_errno_drops_all)
{
	struct checker *c = self->c;
	unsigned i;

	for (i = 0; i < 3; i++)
		aio_submit(c, 42, IOCB + 64 * i, 1, i);
	aio_submit_done(c, 42, 1, 3, -11);	/* -EAGAIN */
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_VERDICT(c, VERDICT_SKIP, INV_EXACTLY_ONCE);
	EXPECT_EQ(0, LIBAIO(c)->submitted);
}

TEST_F(stock, rejected_iocb_can_be_resubmitted)
{
	struct checker *c = self->c;

	aio_submit(c, 42, IOCB, 1, 0);
	aio_submit(c, 42, IOCB + 64, 1, 1);
	aio_submit_done(c, 42, 1, 2, 1);
	aio_submit(c, 42, IOCB + 64, 2, 0);	/* retried in the next call */
	aio_submit_done(c, 42, 2, 1, 1);
	aio_reap(c, 42, IOCB, 4096);
	aio_reap(c, 42, IOCB + 64, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(2, LIBAIO(c)->submitted);
}

TEST_F(stock, completion_of_rejected_iocb_fails)
{
	struct checker *c = self->c;

	aio_submit(c, 42, IOCB, 1, 0);
	aio_submit_done(c, 42, 1, 1, 0);
	aio_reap(c, 42, IOCB, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "submit, rejected, reap(4096)");
}

TEST_F(patched, completion_before_submit_done_is_fine)
{
	struct checker *c = self->c;

	/* the disk can answer before io_submit returns */
	aio_submit(c, 42, IOCB, 1, 0);
	aio_submit(c, 42, IOCB + 64, 1, 1);
	aio_complete(c, IOCB, 4096);
	aio_submit_done(c, 42, 1, 2, 2);
	aio_complete(c, IOCB + 64, 4096);
	aio_reap(c, 42, IOCB, 4096);
	aio_reap(c, 42, IOCB + 64, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
}

TEST_F(stock, missing_submit_done_counts_batch_accepted)
{
	struct checker *c = self->c;

	aio_submit(c, 42, IOCB, 1, 0);		/* SUBMIT_DONE of batch 1 lost? */
	aio_submit(c, 42, IOCB + 64, 2, 0);
	aio_submit_done(c, 42, 2, 1, 0);	/* batch 2 rejected */
	aio_reap(c, 42, IOCB, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(1, LIBAIO(c)->submitted);
}

/* ---------- io_uring: early failures, recycling, CQ overflow ---------- */

/*
 * A request completes, its struct is recycled for an SQE that fails at
 * init (io_uring_req_failed, no submit_req) and completes with -EINVAL on
 * the same pointer: two requests, each completed once, not one completed
 * twice.
 */
TEST_F(patched, io_uring_failed_init_on_recycled_req_is_a_new_request)
{
	struct checker *c = self->c;

	uring_submit(c, 7, UREQ);
	ev_req(c, FSAIO_EV_PUNT, FSAIO_ENGINE_IO_URING, 7, UREQ);
	uring_complete(c, 7, UREQ, 0);
	uring_failed_init(c, 7, UREQ, -22);
	uring_complete(c, 7, UREQ, -22);
	uring_failed_init(c, 7, UREQ, -14);
	uring_complete(c, 7, UREQ, -14);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "3 requests (0 libaio, 3 io_uring), none completed twice");
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "2 SQEs failed at init");
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(3, URING(c)->submitted);
	EXPECT_EQ(3, URING(c)->completed);
	EXPECT_EQ(2, URING(c)->failed_init);
	EXPECT_EQ(2, URING(c)->errors);
}

/* ... but a request that really completes twice still fails */
TEST_F(patched, io_uring_failed_init_does_not_hide_a_double_completion)
{
	struct checker *c = self->c;

	uring_failed_init(c, 7, UREQ, -22);
	uring_complete(c, 7, UREQ, -22);
	uring_complete(c, 7, UREQ, -22);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "completed twice");
}

/*
 * A 4-entry CQ and 8 requests: 4 CQEs fit, 4 overflow (io_uring_complete
 * does not fire for them; io_uring_cqe_overflow does, without req), one of
 * which the kernel drops for want of memory; a multishot request's
 * intermediate CQE overflows too.  Every request completed exactly once,
 * none in flight; the overflow is the kernel's report, counted and said.
 */
TEST_F(patched, io_uring_cq_overflow_completes_requests)
{
	struct checker *c = self->c;
	uint64_t req;

	for (req = UREQ; req < UREQ + 8 * 0x100; req += 0x100)
		uring_submit(c, 7, req);
	uring_submit(c, 7, UREQ + 0x10000);		/* multishot */
	for (req = UREQ; req < UREQ + 4 * 0x100; req += 0x100)
		uring_complete(c, 7, req, 0);
	for (; req < UREQ + 8 * 0x100; req += 0x100)
		uring_overflow(c, req >> 4, 0, req == UREQ + 7 * 0x100, 0);
	uring_overflow(c, (UREQ + 0x10000) >> 4, 1, false, 1u << 1 /* F_MORE */);
	uring_complete(c, 7, UREQ + 0x10000, -125);	/* cancelled: its last CQE */
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "5 CQEs overflowed the CQ (1 dropped by the kernel");
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(9, URING(c)->submitted);
	EXPECT_EQ(9, URING(c)->completed);
	EXPECT_EQ(5, URING(c)->cq_overflow);
	EXPECT_EQ(1, URING(c)->cq_dropped);
	EXPECT_EQ(9, checker_stats(c)->by_opcode[FSAIO_ENGINE_IO_URING][0]);	/* "nop" */
	EXPECT_STREQ("nop", opcode_name(FSAIO_ENGINE_IO_URING, 0));
	EXPECT_STREQ("read", opcode_name(FSAIO_ENGINE_IO_URING, 22));
	EXPECT_STREQ("pwrite", opcode_name(FSAIO_ENGINE_LIBAIO, 1));
}

/*
 * Requests armed when the ring is torn down (process exit, ring close) are
 * cancelled there: -ECANCELED flagged FSAIO_F_TEARDOWN by the tracer.
 * Abandoned, like libaio's at io_destroy; a link member's -ECANCELED on a
 * live ring is an ordinary completion.
 */
TEST_F(patched, io_uring_teardown_cancellation_is_abandoned)
{
	struct checker *c = self->c;
	struct fsaio_record r;

	uring_submit(c, 7, UREQ);
	uring_submit(c, 7, UREQ + 0x100);
	uring_submit(c, 7, UREQ + 0x200);
	uring_complete(c, 7, UREQ + 0x200, -125);	/* a cancelled link member */
	r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 0, UREQ);
	r.res = -125;
	r.flags = FSAIO_F_TEARDOWN;
	synth_feed(c, &r);
	uring_overflow(c, (UREQ + 0x100) >> 4, -125, false, 0);	/* ... overflowed */
	FINISH(c);
	/* the overflowed one was not flagged: an ordinary completion */
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "1 abandoned unreaped (0 by io_destroy, 0 by process exit, "
		      "1 cancelled at io_uring ring teardown)");
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(3, URING(c)->submitted);
	EXPECT_EQ(2, URING(c)->completed);
	EXPECT_EQ(1, URING(c)->abandoned);
}

/* A multishot request's intermediate CQEs come without their req: named
 * for what they are, not "completions of unsubmitted requests". */
TEST_F(patched, io_uring_more_cqes_without_req_are_named)
{
	struct checker *c = self->c;
	struct fsaio_record r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 7, 0);

	uring_submit(c, 7, UREQ);
	r.arg0 = 1u << 1;	/* F_MORE */
	synth_feed(c, &r);
	uring_complete(c, 7, UREQ, -125);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "1 intermediate multishot CQEs");
	EXPECT_FALSE(HAS(c, INV_EXACTLY_ONCE, "unsubmitted"));
}

/* An overflowed CQE of nothing in flight is counted, as other unknown
 * io_uring completions are: never matched to a finished request. */
TEST_F(patched, io_uring_overflow_of_unknown_request_is_counted)
{
	struct checker *c = self->c;

	uring_submit(c, 7, UREQ);
	uring_complete(c, 7, UREQ, 0);
	uring_overflow(c, UREQ >> 4, 0, false, 0);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "1 io_uring completions of unsubmitted requests");
	EXPECT_EQ(1, URING(c)->completed);
}

TEST_HARNESS_MAIN
