// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the checker core: for each invariant, event sequences that
 * must pass and sequences that must fail, fed as synthetic records.
 *
 * Every test owns one checker: its fixture's FIXTURE_SETUP makes it from a
 * config and FIXTURE_TEARDOWN frees it.  A fixture runs each of its tests
 * once per variant, so the tests are grouped by config: "patched" sees
 * everything (synth_cfg_all), "stock" is a stock host (synth_cfg_stock),
 * and a fixture with a variant table runs one stream under several
 * configs, or with a few parameters changed, and checks each variant's
 * verdicts.
 */
#include <string.h>
#include "kselftest_harness.h"
#include "synth.h"

/* EXPECT_EQ(4, some_u64) compares int with unsigned: fine for these
 * small constants, and the harness macros cannot cast for us. */
#pragma GCC diagnostic ignored "-Wsign-compare"

/*
 * What a fixture variant changes in synth_cfg_all() or, with .stock, in
 * synth_cfg_stock(): zero changes nothing.
 */
struct cfg_delta {
	bool stock;
	bool no_kernel_complete;	/* see_libaio_kernel_complete off */
	bool no_sleep;			/* see_sleep off */
	bool async_expected;		/* libaio_async_expected on */
	bool submit_unseen;		/* libaio_submit_unseen on */
};

static struct checker_config config_of(struct cfg_delta d)
{
	struct checker_config cfg = d.stock ? synth_cfg_stock() : synth_cfg_all();

	if (d.no_kernel_complete)
		cfg.see_libaio_kernel_complete = false;
	if (d.no_sleep)
		cfg.see_sleep = false;
	if (d.async_expected)
		cfg.libaio_async_expected = true;
	if (d.submit_unseen)
		cfg.libaio_submit_unseen = true;
	return cfg;
}

/* A fixture owning the checker self->c, made from config (an expression
 * that may use the fixture's variant). */
#define CHECKER_FIXTURE(name, config)					\
	FIXTURE(name) {							\
		struct checker *c;					\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		struct checker_config cfg = (config);			\
									\
		self->c = checker_new(&cfg);				\
		ASSERT_NE(NULL, self->c);				\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		checker_free(self->c);					\
	}

CHECKER_FIXTURE(patched, synth_cfg_all())
CHECKER_FIXTURE(stock, synth_cfg_stock())

#define V(c, id)	(INV(c, id)->verdict)
#define D(c, id)	(INV(c, id)->detail)
#define HAS(c, id, s)	(strstr(D(c, id), (s)) != NULL)
#define LIBAIO(c)	(&checker_stats(c)->engine[FSAIO_ENGINE_LIBAIO])
#define URING(c)	(&checker_stats(c)->engine[FSAIO_ENGINE_IO_URING])

/* Verdict and detail of invariant id; on failure they log the detail. */
#define EXPECT_VERDICT(c, v, id)					\
	EXPECT_EQ(v, V(c, id)) TH_LOG("%s", D(c, id))
#define EXPECT_DETAIL(c, id, s)						\
	EXPECT_TRUE(HAS(c, id, s)) TH_LOG("%s", D(c, id))
/* Each of a variant's (up to two) detail substrings of invariant id. */
#define EXPECT_DETAILS(c, id, details) do {				\
	for (int d_ = 0; d_ < 2 && (details)[d_]; d_++) {		\
		EXPECT_DETAIL(c, id, (details)[d_]);			\
	}								\
} while (0)

/* End the trace cleanly and evaluate; every record fed was valid. */
#define FINISH(c) do {							\
	synth_finish(c);						\
	ASSERT_EQ(0, synth_rc);						\
} while (0)

#define IOCB	0x7ffc0000a000ull
#define UREQ	0xffff888004a1c000ull

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

/* ---------- retry_lifecycle ---------- */

/*
 * Events of one io_uring request of tgid 7, in words: submit, retry, wake
 * (in IRQ), resume, punt, complete (4096).  -EINVAL for another word.
 */
static int uring_events(struct checker *c, uint64_t req, const char *events)
{
	char buf[128], *save, *ev;

	snprintf(buf, sizeof(buf), "%s", events);
	for (ev = strtok_r(buf, " ", &save); ev; ev = strtok_r(NULL, " ", &save)) {
		if (!strcmp(ev, "submit"))
			uring_submit(c, 7, req);
		else if (!strcmp(ev, "retry"))
			ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_IO_URING, 7, req);
		else if (!strcmp(ev, "wake"))
			ev_req(c, FSAIO_EV_WAKE, FSAIO_ENGINE_IO_URING, 0, req);
		else if (!strcmp(ev, "resume"))
			ev_resume(c, FSAIO_ENGINE_IO_URING, 7, req, 1);
		else if (!strcmp(ev, "punt"))
			ev_req(c, FSAIO_EV_PUNT, FSAIO_ENGINE_IO_URING, 7, req);
		else if (!strcmp(ev, "complete"))
			uring_complete(c, 7, req, 4096);
		else
			return -EINVAL;
	}
	return 0;
}

static void uring_retry_cycle(struct checker *c, uint64_t req)
{
	uring_events(c, req, "retry wake resume");
}

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

/* ---------- durability ---------- */

/*
 * An O_SYNC write the patched kernel makes asynchronous: punted to the
 * worker at submit, resumed, punted again in the worker for the final
 * step, which must be the fsync (FSAIO_EV_FSYNC), then completed.
 */
FIXTURE_VARIANT(sync_write) {
	bool fsync;			/* the worker's final fsync seen */
	bool osync_datasync;		/* an O_SYNC write, synced with datasync=1 */
	bool landed;			/* the hand-off says: 4096 bytes at 8192 */
	int64_t fsync_start, fsync_end;	/* the fsync's range */
	enum verdict verdict;
	const char *detail;
};

static struct checker_config cfg_fsync(void)
{
	struct checker_config cfg = synth_cfg_all();

	cfg.see_fsync = true;
	return cfg;
}

CHECKER_FIXTURE(sync_write, cfg_fsync())

FIXTURE_VARIANT_ADD(sync_write, fsynced) {
	.fsync = true, .verdict = VERDICT_PASS,
	.detail = "1 async O_SYNC/O_DSYNC writes, each completed after its final fsync",
};

FIXTURE_VARIANT_ADD(sync_write, no_final_fsync) {
	.verdict = VERDICT_FAIL,
	.detail = "1 of 1 async O_SYNC/O_DSYNC writes completed without their final fsync; "
		  "first: O_SYNC/O_DSYNC write completed without its final fsync in the worker",
};

FIXTURE_VARIANT_ADD(sync_write, osync_fdatasync_only) {
	.fsync = true, .osync_datasync = true, .verdict = VERDICT_FAIL,
	.detail = "1 of 1 async O_SYNC/O_DSYNC writes completed without their final fsync; "
		  "first: O_SYNC write completed after an fdatasync only (datasync=1): "
		  "its metadata was not committed",
};

/* an append (aio_offset 0) that landed at i_size 8192: the range made
 * stable must be where it landed (ci/mutants/append-synced-at-aio-offset) */
FIXTURE_VARIANT_ADD(sync_write, append_synced_where_it_landed) {
	.fsync = true, .landed = true, .fsync_start = 8192, .fsync_end = 12287,
	.verdict = VERDICT_PASS,
	.detail = "1 async O_SYNC/O_DSYNC writes, each completed after its final fsync",
};

FIXTURE_VARIANT_ADD(sync_write, append_synced_at_aio_offset) {
	.fsync = true, .landed = true, .fsync_start = 0, .fsync_end = 4095,
	.verdict = VERDICT_FAIL,
	.detail = "the final fsync covered [0, 4095] but the write landed at [8192, 12287]",
};

TEST_F(sync_write, durability)
{
	struct checker *c = self->c;
	struct fsaio_record r = synth_rec(FSAIO_EV_SUBMIT, FSAIO_ENGINE_LIBAIO, 42, IOCB);

	r.arg1 = 4096;
	r.arg2 = fsaio_submit_arg2(1 /* IOCB_CMD_PWRITE */, 3, 0);
	r.res = 1;
	r.ring = SYNTH_RING;
	synth_feed(c, &r);
	r = synth_rec(FSAIO_EV_PUNT, FSAIO_ENGINE_LIBAIO, 42, IOCB);	/* the hand-off */
	if (variant->landed) {
		r.arg0 = 8192;
		r.arg1 = 4096;
	}
	synth_feed(c, &r);
	aio_submit_done(c, 42, 1, 1, 1);
	ev_resume(c, FSAIO_ENGINE_LIBAIO, 42, IOCB, 1);
	r = synth_rec(FSAIO_EV_PUNT, FSAIO_ENGINE_LIBAIO, 42, IOCB);	/* in the worker */
	r.arg0 = variant->fsync_start;
	r.arg1 = 4096;
	r.arg2 = 1;
	synth_feed(c, &r);
	if (variant->fsync) {
		r = synth_rec(FSAIO_EV_FSYNC, FSAIO_ENGINE_LIBAIO, 42, IOCB);
		r.arg0 = variant->fsync_start;
		r.arg1 = variant->fsync_end;
		r.arg2 = 1;			/* O_SYNC */
		r.res = variant->osync_datasync;
		synth_feed(c, &r);
	}
	aio_complete(c, IOCB, 4096);
	aio_reap(c, 42, IOCB, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, variant->verdict, INV_DURABILITY);
	EXPECT_TRUE(HAS(c, INV_DURABILITY, variant->detail)) TH_LOG("%s", D(c, INV_DURABILITY));
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
}

/* A read punted to the worker needs no fsync */
TEST_F(sync_write, reads_are_not_judged)
{
	struct checker *c = self->c;

	aio_submit(c, 42, IOCB, 1, 0);
	ev_req(c, FSAIO_EV_PUNT, FSAIO_ENGINE_LIBAIO, 42, IOCB);
	aio_submit_done(c, 42, 1, 1, 1);
	aio_complete(c, IOCB, 4096);
	aio_reap(c, 42, IOCB, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_SKIP, INV_DURABILITY);
}

/* ---------- identity ---------- */

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

/*
 * Writes to an S_SYNC inode (chattr +S, -o sync) stay synchronous: their
 * sleeps inside io_submit (FSAIO_F_SYNC_INODE, set in BPF from the inode at
 * fsaio_submit) are the synchronous write's, not a blocked submit; the
 * same write handed to a worker (a PUNT carrying the flag) is the bug.
 */
static void sync_inode_write(struct checker *c, bool went_async)
{
	struct fsaio_record r;

	aio_submit(c, 42, IOCB, 1, 0);
	r = synth_rec(FSAIO_EV_SLEEP, FSAIO_ENGINE_NONE, 42, 0);
	r.ctx = FSAIO_CTX_SUBMIT_LIBAIO;
	r.site = FSAIO_SITE_WRITEBACK;
	r.arg0 = 3000000;
	r.arg1 = 209;	/* __NR_io_submit */
	r.flags = FSAIO_F_SYNC_INODE;
	synth_feed(c, &r);
	if (went_async) {
		r = synth_rec(FSAIO_EV_PUNT, FSAIO_ENGINE_LIBAIO, 42, IOCB);
		r.flags = FSAIO_F_SYNC_INODE;
		synth_feed(c, &r);
		ev_resume(c, FSAIO_ENGINE_LIBAIO, 42, IOCB, 1);
	}
	aio_submit_done(c, 42, 1, 1, 1);
	aio_complete(c, IOCB, 4096);
	aio_reap(c, 42, IOCB, 4096);
}

TEST_F(patched, sync_inode_write_sleeping_in_submit_passes)
{
	sync_inode_write(self->c, false);
	FINISH(self->c);
	EXPECT_VERDICT(self->c, VERDICT_PASS, INV_NONBLOCKING_SUBMIT_LIBAIO);
	EXPECT_DETAIL(self->c, INV_NONBLOCKING_SUBMIT_LIBAIO, "1 issuing writes to S_SYNC inodes");
	EXPECT_EQ(1, LIBAIO(self->c)->sync_inode_sleeps);
	EXPECT_EQ(0, LIBAIO(self->c)->blocked_in_submit);
}

TEST_F(patched, sync_inode_write_made_async_fails)
{
	sync_inode_write(self->c, true);
	FINISH(self->c);
	EXPECT_VERDICT(self->c, VERDICT_FAIL, INV_RETRY_LIFECYCLE);
	EXPECT_DETAIL(self->c, INV_RETRY_LIFECYCLE, "a write to an S_SYNC inode");
}

TEST_F(patched, writeback_sleep_without_the_flag_still_blocks)
{
	aio_submit(self->c, 42, IOCB, 1, 0);
	ev_sleep(self->c, 42, FSAIO_CTX_SUBMIT_LIBAIO, FSAIO_SITE_WRITEBACK, 3000000);
	aio_submit_done(self->c, 42, 1, 1, 1);
	aio_complete(self->c, IOCB, 4096);
	aio_reap(self->c, 42, IOCB, 4096);
	FINISH(self->c);
	EXPECT_VERDICT(self->c, VERDICT_FAIL, INV_NONBLOCKING_SUBMIT_LIBAIO);
}

/* ---------- trace --stacks ---------- */

static struct checker_config cfg_stacks(void)
{
	struct checker_config cfg = synth_cfg_all();

	cfg.keep_stacks = true;
	return cfg;
}

CHECKER_FIXTURE(stacks, cfg_stacks())

/* Sleeps counted per distinct (site, context, stack), most frequent first */
TEST_F(stacks, top_stacks_per_site)
{
	struct checker *c = self->c;
	struct stack_count top[4];
	struct fsaio_record r;
	int i;

	for (i = 0; i < 4; i++) {
		r = synth_rec(FSAIO_EV_SLEEP, FSAIO_ENGINE_NONE, 9, 0);
		r.ctx = FSAIO_CTX_SYNC_READ;
		r.site = FSAIO_SITE_FOLIO_BIT;
		r.arg0 = 1000;
		r.nr_stack = 2;
		r.stack[0] = 0xffffffff81000000ull;
		r.stack[1] = i < 3 ? 0xffffffff81000100ull : 0xffffffff81000200ull;
		synth_feed(c, &r);
	}
	ev_sleep(c, 9, FSAIO_CTX_KWORKER, FSAIO_SITE_JOURNAL, 5);
	FINISH(c);
	ASSERT_EQ(2, checker_top_stacks(c, FSAIO_SITE_FOLIO_BIT, top, 4));
	EXPECT_EQ(3, top[0].count);
	EXPECT_EQ(3000, top[0].total_ns);
	EXPECT_EQ(0xffffffff81000100ull, top[0].k.pc[1]);
	EXPECT_EQ(1, top[1].count);
	EXPECT_EQ(1, checker_top_stacks(c, FSAIO_SITE_JOURNAL, top, 4));
	EXPECT_EQ(0, checker_top_stacks(c, FSAIO_SITE_WRITEBACK, top, 4));
	EXPECT_EQ(0, checker_stacks_untracked(c));
}

/* Off (fsaio check): nothing kept */
TEST_F(patched, no_stacks_kept_unless_asked)
{
	struct checker *c = self->c;
	struct stack_count top[1];

	ev_sleep(c, 9, FSAIO_CTX_KWORKER, FSAIO_SITE_JOURNAL, 5);
	FINISH(c);
	EXPECT_EQ(0, checker_top_stacks(c, FSAIO_SITE_JOURNAL, top, 1));
}

/* ---------- nonblocking_submit ---------- */

TEST_F(patched, io_uring_blocking_in_submit_fails)
{
	struct checker *c = self->c;

	uring_submit(c, 7, UREQ);
	ev_sleep(c, 7, FSAIO_CTX_SUBMIT_IO_URING, FSAIO_SITE_FOLIO_BIT, 2000000);
	uring_submit_done(c, 7, 1);
	uring_complete(c, 7, UREQ, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_NONBLOCKING_SUBMIT_IO_URING);
	EXPECT_DETAIL(c, INV_NONBLOCKING_SUBMIT_IO_URING, "pid 7 (synth) slept in folio_bit for 2.000 ms");
	EXPECT_EQ(1, URING(c)->blocked_in_submit);
	EXPECT_EQ(2000000, URING(c)->blocked_ns);
	/* the offending sleep carries its stack, for the reports */
	ASSERT_EQ(1, INV(c, INV_NONBLOCKING_SUBMIT_IO_URING)->nr_stacks);
	EXPECT_EQ(3, INV(c, INV_NONBLOCKING_SUBMIT_IO_URING)->stacks[0].nr);
	EXPECT_EQ(0xffffffff81000000ull, INV(c, INV_NONBLOCKING_SUBMIT_IO_URING)->stacks[0].pc[0]);
	EXPECT_EQ(FSAIO_SITE_FOLIO_BIT, INV(c, INV_NONBLOCKING_SUBMIT_IO_URING)->stacks[0].site);
}

/*
 * 1024 cold reads in one io_uring_enter wait for block-layer request tags:
 * a sleep in submit, but not an FSAIO wait.  Counted, named, shown with its
 * stack; the one rule (fsaio_site_is_fsaio_wait) keeps it from failing,
 * for libaio and io_uring alike.
 */
FIXTURE_VARIANT(other_sleep) {
	int ctx;
	int site;
	enum invariant_id id;
	const char *detail;
};

CHECKER_FIXTURE(other_sleep, synth_cfg_all())

FIXTURE_VARIANT_ADD(other_sleep, io_uring_block_tag) {
	.ctx = FSAIO_CTX_SUBMIT_IO_URING, .site = FSAIO_SITE_BLOCK,
	.id = INV_NONBLOCKING_SUBMIT_IO_URING,
	.detail = "7 other sleeps inside, 8.3 ms (block 7), not FSAIO waits; "
		  "first: pid 7 (synth) slept in block for 1.186 ms",
};

FIXTURE_VARIANT_ADD(other_sleep, libaio_io_other) {
	.ctx = FSAIO_CTX_SUBMIT_LIBAIO, .site = FSAIO_SITE_IO_OTHER,
	.id = INV_NONBLOCKING_SUBMIT_LIBAIO,
	.detail = "7 other sleeps inside, 8.3 ms (io_other 7), not FSAIO waits",
};

/* an O_SYNC write's copy into the page cache stays in io_submit (as stock) */
FIXTURE_VARIANT_ADD(other_sleep, libaio_write_copy) {
	.ctx = FSAIO_CTX_SUBMIT_LIBAIO, .site = FSAIO_SITE_COPY,
	.id = INV_NONBLOCKING_SUBMIT_LIBAIO,
	.detail = "7 other sleeps inside, 8.3 ms (copy 7), not FSAIO waits",
};

TEST_F(other_sleep, counted_not_failed)
{
	const struct engine_stats *es;
	struct checker *c = self->c;
	int i;

	if (variant->ctx == FSAIO_CTX_SUBMIT_LIBAIO) {
		aio_submit(c, 7, IOCB, 1, 0);
		for (i = 0; i < 7; i++)
			ev_sleep(c, 7, variant->ctx, variant->site, 1186000);
		aio_submit_done(c, 7, 1, 1, 1);
		aio_complete(c, IOCB, 4096);
		aio_reap(c, 7, IOCB, 4096);
		es = &checker_stats(c)->engine[FSAIO_ENGINE_LIBAIO];
	} else {
		uring_submit(c, 7, UREQ);
		for (i = 0; i < 7; i++)
			ev_sleep(c, 7, variant->ctx, variant->site, 1186000);
		uring_submit_done(c, 7, 1);
		uring_complete(c, 7, UREQ, 4096);
		es = URING(c);
	}
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, variant->id);
	EXPECT_TRUE(HAS(c, variant->id, variant->detail)) TH_LOG("%s", D(c, variant->id));
	EXPECT_EQ(0, es->blocked_in_submit);
	EXPECT_EQ(7, es->other_sleeps_in_submit);
	EXPECT_EQ(7 * 1186000, es->other_sleep_ns);
	EXPECT_EQ(INV_MAX_STACKS, INV(c, variant->id)->nr_stacks);
	EXPECT_EQ((unsigned)variant->site, INV(c, variant->id)->stacks[0].site);
}

/* io_uring's inline write runs with IOCB_NOWAIT: a sleep in its copy blocked */
TEST_F(patched, io_uring_copy_sleep_fails)
{
	struct checker *c = self->c;

	uring_submit(c, 7, UREQ);
	ev_sleep(c, 7, FSAIO_CTX_SUBMIT_IO_URING, FSAIO_SITE_COPY, 1000000);
	uring_submit_done(c, 7, 1);
	uring_complete(c, 7, UREQ, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_NONBLOCKING_SUBMIT_IO_URING);
	EXPECT_DETAIL(c, INV_NONBLOCKING_SUBMIT_IO_URING, "pid 7 (synth) slept in copy for 1.000 ms");
	EXPECT_EQ(1, URING(c)->blocked_in_submit);
}

TEST_F(patched, io_uring_no_blocking_passes)
{
	struct checker *c = self->c;

	uring_submit(c, 7, UREQ);
	/* a mutex in submit, and page waits elsewhere, are not "blocked in submit" */
	ev_sleep(c, 7, FSAIO_CTX_SUBMIT_IO_URING, FSAIO_SITE_OTHER, 1000);
	ev_sleep(c, 8, FSAIO_CTX_IO_WQ_WORKER, FSAIO_SITE_FOLIO_BIT, 1000);
	uring_submit_done(c, 7, 1);
	uring_complete(c, 7, UREQ, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_NONBLOCKING_SUBMIT_IO_URING);
	EXPECT_EQ(1, INV(c, INV_NONBLOCKING_SUBMIT_IO_URING)->observations);
}

/*
 * io_submit of three iocbs sleeps in a page wait for each: what a stock
 * kernel does (XFAIL), a failure where submits should not block.
 */
FIXTURE_VARIANT(libaio_blocking) {
	struct cfg_delta cfg;
	enum verdict verdict;		/* of nonblocking_submit_libaio */
	const char *detail[2];
};

CHECKER_FIXTURE(libaio_blocking, config_of(variant->cfg))

FIXTURE_VARIANT_ADD(libaio_blocking, stock_kernel) {
	.cfg = { .stock = true },
	.verdict = VERDICT_XFAIL,
	.detail = { "stock kernel: io_submit slept 3 times in FSAIO waits (page/bit, writeback, journal), 4.5 ms" },
};

FIXTURE_VARIANT_ADD(libaio_blocking, async_expected) {
	.cfg = { .stock = true, .async_expected = true },
	.verdict = VERDICT_FAIL,
	.detail = { "slept 3 times", "first: pid 42" },
};

TEST_F(libaio_blocking, in_submit)
{
	struct checker *c = self->c;
	unsigned i;

	for (i = 0; i < 3; i++) {
		aio_submit(c, 42, IOCB + 64 * i, 1, i);
		ev_sleep(c, 42, FSAIO_CTX_SUBMIT_LIBAIO, FSAIO_SITE_FOLIO_BIT, 1500000);
	}
	aio_submit_done(c, 42, 1, 3, 3);
	for (i = 0; i < 3; i++)
		aio_reap(c, 42, IOCB + 64 * i, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, variant->verdict, INV_NONBLOCKING_SUBMIT_LIBAIO);
	EXPECT_DETAILS(c, INV_NONBLOCKING_SUBMIT_LIBAIO, variant->detail);
	EXPECT_EQ(3, LIBAIO(c)->blocked_in_submit);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
}

TEST_F(patched, libaio_not_blocking_passes)
{
	struct checker *c = self->c;

	aio_batch(c, 42, IOCB, 1, 2);
	ev_sleep(c, 42, FSAIO_CTX_REAP, FSAIO_SITE_OTHER, 5000);
	aio_complete(c, IOCB, 4096);
	aio_complete(c, IOCB + 64, 4096);
	aio_reap(c, 42, IOCB, 4096);
	aio_reap(c, 42, IOCB + 64, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_NONBLOCKING_SUBMIT_LIBAIO);
	EXPECT_EQ(2, INV(c, INV_NONBLOCKING_SUBMIT_LIBAIO)->observations);
}

/*
 * One io_uring request, submitted and completed, under configs that see
 * less: what a config cannot observe is a SKIP, never a PASS.
 */
FIXTURE_VARIANT(observe) {
	struct cfg_delta cfg;
	enum verdict verdict[INV__COUNT];	/* PASS where not named */
	const char *retry_detail;		/* all of retry_lifecycle's */
};

CHECKER_FIXTURE(observe, config_of(variant->cfg))

FIXTURE_VARIANT_ADD(observe, everything) {
	.verdict = {
		[INV_NONBLOCKING_SUBMIT_LIBAIO] = VERDICT_SKIP,
		[INV_DURABILITY] = VERDICT_SKIP,	/* no sync write */
	},
};

/* a stock host: no per-request retry events */
FIXTURE_VARIANT_ADD(observe, retry_unseen) {
	.cfg = { .stock = true },
	.verdict = {
		[INV_RETRY_LIFECYCLE] = VERDICT_SKIP,
		[INV_RESUME_CONTEXT] = VERDICT_SKIP,
		[INV_NONBLOCKING_SUBMIT_LIBAIO] = VERDICT_SKIP,
		[INV_DURABILITY] = VERDICT_SKIP,
	},
	.retry_detail = "test: retry not observable",
};

FIXTURE_VARIANT_ADD(observe, sleep_unseen) {
	.cfg = { .no_sleep = true },
	.verdict = {
		[INV_NONBLOCKING_SUBMIT_IO_URING] = VERDICT_SKIP,
		[INV_NONBLOCKING_SUBMIT_LIBAIO] = VERDICT_SKIP,
		[INV_DURABILITY] = VERDICT_SKIP,
	},
};

TEST_F(observe, one_io_uring_request)
{
	struct checker *c = self->c;
	int i;

	uring_submit(c, 7, UREQ);
	uring_complete(c, 7, UREQ, 4096);
	FINISH(c);
	for (i = 0; i < INV__COUNT; i++) {
		EXPECT_EQ(variant->verdict[i], V(c, i)) TH_LOG("%s: %s", INV(c, i)->name, D(c, i));
	}
	EXPECT_EQ(0, INV(c, INV_RESUME_CONTEXT)->observations);
	if (variant->retry_detail) {
		EXPECT_STREQ(variant->retry_detail, D(c, INV_RETRY_LIFECYCLE));
	}
}

TEST_F(patched, wait_cells_and_histogram)
{
	struct checker *c = self->c;
	const struct wait_cell *w;

	ev_sleep(c, 9, FSAIO_CTX_SYNC_WRITE, FSAIO_SITE_JOURNAL, 1024);	/* 2^10 */
	ev_sleep(c, 9, FSAIO_CTX_SYNC_WRITE, FSAIO_SITE_JOURNAL, 3000);	/* [2^11, 2^12) */
	ev_sleep(c, 9, FSAIO_CTX_SYNC_WRITE, FSAIO_SITE_JOURNAL, 0);
	ev_sleep(c, 9, FSAIO_CTX_KWORKER, FSAIO_SITE_WRITEBACK, 1ull << 40);
	FINISH(c);
	w = &checker_stats(c)->waits[FSAIO_SITE_JOURNAL][FSAIO_CTX_SYNC_WRITE];
	EXPECT_EQ(3, w->count);
	EXPECT_EQ(4024, w->total_ns);
	EXPECT_EQ(3000, w->max_ns);
	EXPECT_EQ(1, w->hist[0]);
	EXPECT_EQ(1, w->hist[10]);
	EXPECT_EQ(1, w->hist[11]);
	w = &checker_stats(c)->waits[FSAIO_SITE_WRITEBACK][FSAIO_CTX_KWORKER];
	EXPECT_EQ(1, w->hist[HIST_BUCKETS - 1]);
	EXPECT_EQ(0, LIBAIO(c)->blocked_in_submit);
}

/* ---------- quiescence ---------- */

TEST_F(patched, request_in_flight_at_end_fails)
{
	struct checker *c = self->c;

	uring_submit(c, 7, UREQ);
	uring_submit(c, 7, UREQ + 0x200);
	uring_complete(c, 7, UREQ, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_QUIESCENCE);
	EXPECT_DETAIL(c, INV_QUIESCENCE, "1 requests never completed");
	EXPECT_DETAIL(c, INV_QUIESCENCE, "still in flight at the end: req 0xffff888004a1c200 (io_uring tgid 7): submit");
	/* exactly_once does not double-report it */
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
}

/* ---------- abandoned: io_destroy and process exit ---------- */

#define RING_A	0x7f0000a00000ull
#define RING_B	0x7f0000b00000ull

/* Stock host: io_destroy with 2 of 4 unreaped; no kernel completions seen. */
TEST_F(stock, io_destroy_abandons_unreaped_requests)
{
	struct checker *c = self->c;
	const struct engine_stats *es = LIBAIO(c);

	aio_batch_in(c, 42, RING_A, IOCB, 1, 4);
	aio_reap(c, 42, IOCB, 4096);
	aio_reap(c, 42, IOCB + 64, 4096);
	aio_destroy(c, 42, RING_A, 0);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "; 2 abandoned unreaped (2 by io_destroy, 0 by process exit)");
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_DETAIL(c, INV_QUIESCENCE, "2 abandoned by io_destroy/exit, their kernel completion not observable");
	EXPECT_EQ(4, es->submitted);
	EXPECT_EQ(2, es->completed);
	EXPECT_EQ(2, es->abandoned);
}

/* Patched kernel: the kernel completed all four before io_destroy returned. */
TEST_F(patched, io_destroy_after_kernel_completions_passes)
{
	struct checker *c = self->c;
	unsigned i;

	aio_batch_in(c, 42, RING_A, IOCB, 1, 4);
	for (i = 0; i < 4; i++)
		aio_complete(c, IOCB + 64 * i, i == 3 ? -125 : 4096);	/* -ECANCELED */
	aio_reap(c, 42, IOCB, 4096);
	aio_destroy(c, 42, RING_A, 0);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_DETAIL(c, INV_QUIESCENCE, "3 abandoned by io_destroy/exit, each completed in the kernel");
	EXPECT_VERDICT(c, VERDICT_PASS, INV_RETRY_LIFECYCLE);
	EXPECT_EQ(1, LIBAIO(c)->completed);
	EXPECT_EQ(3, LIBAIO(c)->abandoned);
}

/* io_destroy returned while the kernel had not completed a request. */
TEST_F(patched, abandoned_without_kernel_completion_fails)
{
	struct checker *c = self->c;

	aio_batch_in(c, 42, RING_A, IOCB, 1, 2);
	aio_complete(c, IOCB, 4096);
	aio_destroy(c, 42, RING_A, 0);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_QUIESCENCE);
	EXPECT_DETAIL(c, INV_QUIESCENCE, "1 of 2 abandoned requests not finished by the kernel; "
		      "first: abandoned by io_destroy but never completed in the kernel: "
		      "req 0x7ffc0000a040 (libaio tgid 42): submit");
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
}

/* Retries observable, kernel completions not (fentry without aio_complete_rw). */
CHECKER_FIXTURE(kernel_complete_unseen, config_of((struct cfg_delta){ .no_kernel_complete = true }))

TEST_F(kernel_complete_unseen, abandoned_with_armed_wait_entry_fails)
{
	struct checker *c = self->c;

	aio_batch_in(c, 42, RING_A, IOCB, 1, 1);
	ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_LIBAIO, 42, IOCB);
	ev_proc_exit(c, 42);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_QUIESCENCE);
	EXPECT_DETAIL(c, INV_QUIESCENCE, "abandoned by process exit with a wait entry still armed");
}

/* Must fail: a request of a context that is still alive never completes;
 * destroying another context of the same process does not excuse it. */
TEST_F(stock, live_context_request_never_completed_fails)
{
	struct checker *c = self->c;

	aio_batch_in(c, 42, RING_A, IOCB, 1, 2);
	aio_batch_in(c, 42, RING_B, IOCB + 0x1000, 2, 1);
	aio_reap(c, 42, IOCB, 4096);
	aio_destroy(c, 42, RING_A, 0);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_QUIESCENCE);
	EXPECT_DETAIL(c, INV_QUIESCENCE, "1 requests never completed");
	EXPECT_DETAIL(c, INV_QUIESCENCE, "still in flight at the end: req 0x7ffc0000b000");
	EXPECT_EQ(1, LIBAIO(c)->abandoned);
}

/* Must fail: completed in the kernel but a live context never reaped it. */
TEST_F(patched, live_context_kernel_completed_never_reaped_fails)
{
	struct checker *c = self->c;

	aio_batch_in(c, 42, RING_A, IOCB, 1, 1);
	aio_complete(c, IOCB, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_QUIESCENCE);
	EXPECT_DETAIL(c, INV_QUIESCENCE, "completed in the kernel, never reaped (context alive)");
	EXPECT_EQ(0, LIBAIO(c)->abandoned);
}

TEST_F(stock, failed_io_destroy_abandons_nothing)
{
	struct checker *c = self->c;

	aio_batch_in(c, 42, RING_A, IOCB, 1, 1);
	aio_destroy(c, 42, RING_A, -22);	/* -EINVAL: not a context */
	aio_destroy(c, 42, 0, 0);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_QUIESCENCE);
	EXPECT_DETAIL(c, INV_QUIESCENCE, "still in flight");
}

/* Context addresses are per process: another one's io_destroy of the same
 * address, or an exit of another process, abandons nothing here. */
TEST_F(stock, io_destroy_of_another_process_abandons_nothing)
{
	struct checker *c = self->c;

	aio_batch_in(c, 42, RING_A, IOCB, 1, 1);
	aio_destroy(c, 43, RING_A, 0);
	ev_proc_exit(c, 43);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_QUIESCENCE);
	EXPECT_EQ(0, LIBAIO(c)->abandoned);
}

/* A context address reused after io_destroy + io_setup: only requests
 * submitted before the destroy are abandoned. */
TEST_F(stock, io_destroy_before_submit_is_not_blamed)
{
	struct checker *c = self->c;

	aio_destroy(c, 42, RING_A, 0);
	aio_batch_in(c, 42, RING_A, IOCB, 1, 2);
	aio_reap(c, 42, IOCB, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_QUIESCENCE);
	EXPECT_DETAIL(c, INV_QUIESCENCE, "still in flight at the end: req 0x7ffc0000a040");
	EXPECT_EQ(0, LIBAIO(c)->abandoned);
}

/* The same iocb submitted again in a new context after io_destroy
 * abandoned it: a new lifecycle, not "submitted again before it completed". */
TEST_F(patched, iocb_reused_after_io_destroy_passes)
{
	struct checker *c = self->c;

	aio_batch_in(c, 42, RING_A, IOCB, 1, 1);
	aio_complete(c, IOCB, 4096);
	aio_destroy(c, 42, RING_A, 0);
	aio_batch_in(c, 42, RING_B, IOCB, 2, 1);
	aio_complete(c, IOCB, 100);
	aio_reap(c, 42, IOCB, 100);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(2, LIBAIO(c)->submitted);
	EXPECT_EQ(1, LIBAIO(c)->completed);
	EXPECT_EQ(1, LIBAIO(c)->abandoned);
}

/* ... but without the io_destroy it still is a violation. */
TEST_F(stock, iocb_reused_in_another_live_context_fails)
{
	struct checker *c = self->c;

	aio_batch_in(c, 42, RING_A, IOCB, 1, 1);
	aio_batch_in(c, 42, RING_B, IOCB, 2, 1);
	aio_reap(c, 42, IOCB, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "submitted again before it completed");
}

/* exit_aio: a process exits (or is killed) with requests unreaped. */
TEST_F(patched, process_exit_abandons_unreaped_requests)
{
	struct checker *c = self->c;

	aio_batch(c, 42, IOCB, 1, 1);
	aio_complete(c, IOCB, 4096);
	ev_proc_exit(c, 42);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "1 abandoned unreaped (0 by io_destroy, 1 by process exit)");
	EXPECT_EQ(0, LIBAIO(c)->completed);
	EXPECT_EQ(1, LIBAIO(c)->abandoned);
}

/* Kernel events of an exiting process's request may be delivered after
 * its PROC_EXIT record: they still belong to the request. */
TEST_F(patched, kernel_events_after_process_exit_pass)
{
	struct checker *c = self->c;

	aio_batch(c, 42, IOCB, 1, 1);
	ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_LIBAIO, 42, IOCB);
	ev_proc_exit(c, 42);
	ev_req(c, FSAIO_EV_WAKE, FSAIO_ENGINE_LIBAIO, 42, IOCB);
	ev_resume(c, FSAIO_ENGINE_LIBAIO, 42, IOCB, 1);
	aio_complete(c, IOCB, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_RETRY_LIFECYCLE);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(1, LIBAIO(c)->abandoned);
}

/* Another thread still reaps after the leader's PROC_EXIT: completed. */
TEST_F(stock, reap_after_process_exit_completes)
{
	struct checker *c = self->c;

	aio_batch(c, 42, IOCB, 1, 1);
	ev_proc_exit(c, 42);
	aio_reap(c, 42, IOCB, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(1, LIBAIO(c)->completed);
	EXPECT_EQ(0, LIBAIO(c)->abandoned);
}

/* io_uring requests are never abandoned: ring teardown posts their CQEs. */
TEST_F(patched, io_uring_request_not_abandoned_by_exit)
{
	struct checker *c = self->c;

	uring_submit(c, 7, UREQ);
	ev_proc_exit(c, 7);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_QUIESCENCE);
	EXPECT_DETAIL(c, INV_QUIESCENCE, "still in flight");
}

TEST_F(patched, libaio_exit_before_submit_is_not_blamed)
{
	struct checker *c = self->c;

	/* an earlier process with the same tgid exited before this submit */
	ev_proc_exit(c, 42);
	aio_batch(c, 42, IOCB, 1, 1);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_QUIESCENCE);
	EXPECT_DETAIL(c, INV_QUIESCENCE, "still in flight");
}

TEST_F(stock, pending_batch_at_end_counts_as_in_flight)
{
	struct checker *c = self->c;

	aio_submit(c, 42, IOCB, 1, 0);		/* io_submit never returned */
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_QUIESCENCE);
}

/* ---------- trace_integrity ---------- */

/*
 * One io_uring request, and how its trace ends: cleanly, with records lost
 * in the ring buffer or missing from seq, without its TRACE_END, or cut
 * off where the decoder found a truncated record.
 */
FIXTURE_VARIANT(trace_ending) {
	uint64_t gap;			/* seqs skipped before the completion */
	uint64_t lost;			/* ring buffer losses the TRACE_END counts */
	bool cut;			/* no TRACE_END */
	const char *malformed;		/* what the decoder noted */
	enum verdict verdict;		/* of trace_integrity */
	const char *detail[2];
	uint64_t observations;
	uint64_t stats_lost;
};

CHECKER_FIXTURE(trace_ending, synth_cfg_all())

FIXTURE_VARIANT_ADD(trace_ending, clean) {
	.verdict = VERDICT_PASS,
	.observations = 3,
};

FIXTURE_VARIANT_ADD(trace_ending, lost_ringbuf_record) {
	.lost = 1,
	.verdict = VERDICT_ERROR,
	.detail = { "1 records lost (1 ring buffer" },
	.observations = 3,
	.stats_lost = 1,
};

/* two records never arrived */
FIXTURE_VARIANT_ADD(trace_ending, seq_gap) {
	.gap = 2,
	.verdict = VERDICT_ERROR,
	.detail = { "2 missing from seq" },
	.observations = 3,
	.stats_lost = 2,
};

FIXTURE_VARIANT_ADD(trace_ending, missing_trace_end) {
	.cut = true,
	.verdict = VERDICT_ERROR,
	.detail = { "no trace_end" },
	.observations = 2,
};

FIXTURE_VARIANT_ADD(trace_ending, truncated_record) {
	.cut = true,
	.malformed = "truncated record at offset 1000",
	.verdict = VERDICT_ERROR,
	.detail = { "truncated record at offset 1000", "no trace_end" },
	.observations = 2,
};

TEST_F(trace_ending, integrity)
{
	struct checker *c = self->c;

	uring_submit(c, 7, UREQ);
	synth_seq += variant->gap;
	uring_complete(c, 7, UREQ, 4096);
	if (variant->malformed)
		checker_note_malformed(c, variant->malformed);
	if (!variant->cut)
		trace_end(c, variant->lost);
	checker_finish(c);
	ASSERT_EQ(0, synth_rc);
	EXPECT_VERDICT(c, variant->verdict, INV_TRACE_INTEGRITY);
	EXPECT_DETAILS(c, INV_TRACE_INTEGRITY, variant->detail);
	EXPECT_EQ(variant->observations, INV(c, INV_TRACE_INTEGRITY)->observations);
	EXPECT_EQ(variant->stats_lost, checker_stats(c)->lost);
}

/*
 * Loss makes every per-request verdict inconclusive, pass or fail: the
 * lost record may be the completion quiescence misses or the one that
 * would have completed a request twice.  Each cause of loss, by name.
 */
FIXTURE_VARIANT(loss) {
	unsigned cause;
	uint64_t n;
	bool complete;			/* the request completes in the trace */
	const char *integrity;		/* trace_integrity detail */
	const char *quiescence;		/* quiescence detail */
};

CHECKER_FIXTURE(loss, synth_cfg_all())

FIXTURE_VARIANT_ADD(loss, ringbuf_hides_completion) {
	.cause = FSAIO_DROP_RINGBUF, .n = 3,
	.integrity = "3 records lost (3 ring buffer reserve failures, 0 missing from seq)",
	.quiescence = "inconclusive: 3 records lost (3 ring buffer reserve failures, "
		      "0 missing from seq); as traced: fail: 1 requests never completed",
};

FIXTURE_VARIANT_ADD(loss, user_read_after_pass) {
	.cause = FSAIO_DROP_USER_READ, .n = 5, .complete = true,
	.integrity = "5 unreadable user memory (iocb, io_event)",
	.quiescence = "inconclusive: 5 records lost (0 ring buffer reserve failures, "
		      "5 unreadable user memory (iocb, io_event), 0 missing from seq); as traced: pass",
};

FIXTURE_VARIANT_ADD(loss, batch_cut) {
	.cause = FSAIO_DROP_BATCH_CUT, .n = 1000,
	.integrity = "1000 beyond the per-call batch limit",
	.quiescence = "as traced: fail",
};

FIXTURE_VARIANT_ADD(loss, map_full) {
	.cause = FSAIO_DROP_MAP_FULL, .n = 1, .complete = true,
	.integrity = "1 state map full",
	.quiescence = "as traced: pass",
};

TEST_F(loss, per_request_checks_inconclusive)
{
	struct checker *c = self->c;
	int i;

	uring_submit(c, 7, UREQ);
	if (variant->complete)
		uring_complete(c, 7, UREQ, 4096);
	trace_end_drops(c, variant->cause, variant->n);
	checker_finish(c);
	ASSERT_EQ(0, synth_rc);
	EXPECT_EQ(variant->n, checker_stats(c)->lost);
	EXPECT_VERDICT(c, VERDICT_ERROR, INV_TRACE_INTEGRITY);
	EXPECT_TRUE(HAS(c, INV_TRACE_INTEGRITY, variant->integrity)) TH_LOG("%s", D(c, INV_TRACE_INTEGRITY));
	EXPECT_VERDICT(c, VERDICT_ERROR, INV_QUIESCENCE);
	EXPECT_TRUE(HAS(c, INV_QUIESCENCE, variant->quiescence)) TH_LOG("%s", D(c, INV_QUIESCENCE));
	/* nothing passes or fails on a lossy trace; what was not observable
	 * stays a SKIP (see_sleep: no io_uring sleeps, nothing to judge) */
	for (i = 0; i < INV__COUNT; i++)
		EXPECT_TRUE(INV(c, i)->verdict == VERDICT_ERROR ||
			    INV(c, i)->verdict == VERDICT_SKIP)
			TH_LOG("%s: %s", INV(c, i)->name, verdict_name(INV(c, i)->verdict));
	EXPECT_VERDICT(c, VERDICT_ERROR, INV_EXACTLY_ONCE);
}

TEST_F(patched, seq_reordering_is_not_loss)
{
	struct checker *c = self->c;
	struct fsaio_record a, b;

	uring_submit(c, 7, UREQ);
	a = synth_rec(FSAIO_EV_SLEEP, FSAIO_ENGINE_NONE, 8, 0);
	b = synth_rec(FSAIO_EV_SLEEP, FSAIO_ENGINE_NONE, 9, 0);
	synth_feed(c, &b);		/* two CPUs reserved in the other order */
	synth_feed(c, &a);
	uring_complete(c, 7, UREQ, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_TRACE_INTEGRITY);
	EXPECT_DETAIL(c, INV_TRACE_INTEGRITY, "1 delivered out of seq order");
}

TEST_F(patched, duplicate_seq_is_error)
{
	struct checker *c = self->c;
	struct fsaio_record r = synth_rec(FSAIO_EV_SLEEP, FSAIO_ENGINE_NONE, 8, 0);

	synth_feed(c, &r);
	synth_feed(c, &r);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_ERROR, INV_TRACE_INTEGRITY);
	EXPECT_DETAIL(c, INV_TRACE_INTEGRITY, "duplicate seq");
}

TEST_F(patched, malformed_records_are_rejected_and_error)
{
	struct checker *c = self->c;
	struct fsaio_record r;

	r = synth_rec(FSAIO_EV_SUBMIT, FSAIO_ENGINE_IO_URING, 7, UREQ);
	r.version = FSAIO_RECORD_VERSION + 1;
	EXPECT_EQ(-EINVAL, checker_feed(c, &r));
	r = synth_rec(FSAIO_EV__MAX, FSAIO_ENGINE_IO_URING, 7, UREQ);
	EXPECT_EQ(-EINVAL, checker_feed(c, &r));
	r = synth_rec(FSAIO_EV_SLEEP, FSAIO_ENGINE_NONE, 7, 0);
	r.site = FSAIO_SITE__COUNT;
	EXPECT_EQ(-EINVAL, checker_feed(c, &r));
	r = synth_rec(FSAIO_EV_SUBMIT, FSAIO_ENGINE_NONE, 7, UREQ);	/* no engine */
	EXPECT_EQ(-EINVAL, checker_feed(c, &r));
	r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 7, UREQ);
	r.seq = 0;						/* only TRACE_END may */
	EXPECT_EQ(-EINVAL, checker_feed(c, &r));
	FINISH(c);
	EXPECT_EQ(5, checker_stats(c)->malformed);
	EXPECT_EQ(1, checker_stats(c)->records);
	EXPECT_VERDICT(c, VERDICT_ERROR, INV_TRACE_INTEGRITY);
	EXPECT_DETAIL(c, INV_TRACE_INTEGRITY, "5 malformed records (first: record version ");
}

TEST_F(patched, results_before_finish_are_not_passes)
{
	struct checker *c = self->c;
	int i;

	for (i = 0; i < INV__COUNT; i++) {
		EXPECT_EQ(VERDICT_ERROR, V(c, i));
		EXPECT_NE(NULL, INV(c, i)->name);
	}
}

/* ---------- details and helpers ---------- */

TEST_F(patched, long_history_is_abbreviated)
{
	struct checker *c = self->c;
	int i;

	uring_submit(c, 7, UREQ);
	for (i = 0; i < 10; i++)
		uring_retry_cycle(c, UREQ);
	ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_IO_URING, 7, UREQ);
	uring_complete(c, 7, UREQ, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_RETRY_LIFECYCLE);
	EXPECT_DETAIL(c, INV_RETRY_LIFECYCLE, "...17 earlier,");
	EXPECT_DETAIL(c, INV_RETRY_LIFECYCLE, "resume(mm=1), retry(-529), complete(4096)");
}

TEST(verdict_worse_orders_verdicts)
{
	EXPECT_EQ(VERDICT_SKIP, verdict_worse(VERDICT_SKIP, VERDICT_SKIP));
	EXPECT_EQ(VERDICT_PASS, verdict_worse(VERDICT_SKIP, VERDICT_PASS));
	EXPECT_EQ(VERDICT_PASS, verdict_worse(VERDICT_PASS, VERDICT_SKIP));
	EXPECT_EQ(VERDICT_XFAIL, verdict_worse(VERDICT_PASS, VERDICT_XFAIL));
	EXPECT_EQ(VERDICT_FAIL, verdict_worse(VERDICT_XFAIL, VERDICT_FAIL));
	EXPECT_EQ(VERDICT_ERROR, verdict_worse(VERDICT_ERROR, VERDICT_FAIL));
	EXPECT_EQ(VERDICT_ERROR, verdict_worse(VERDICT_SKIP, VERDICT_ERROR));
}

TEST(names)
{
	EXPECT_STREQ("pass", verdict_name(VERDICT_PASS));
	EXPECT_STREQ("xfail", verdict_name(VERDICT_XFAIL));
	EXPECT_STREQ("error", verdict_name(VERDICT_ERROR));
	EXPECT_STREQ("libaio", engine_name(FSAIO_ENGINE_LIBAIO));
	EXPECT_STREQ("io_uring", engine_name(FSAIO_ENGINE_IO_URING));
	EXPECT_STREQ("folio_bit", wait_site_name(FSAIO_SITE_FOLIO_BIT));
	EXPECT_STREQ("wait_bit_action", wait_site_name(FSAIO_SITE_WAIT_BIT_ACTION));
	EXPECT_STREQ("other", wait_site_name(FSAIO_SITE_OTHER));
	EXPECT_STREQ("submit_libaio", context_name(FSAIO_CTX_SUBMIT_LIBAIO));
	EXPECT_STREQ("reap", context_name(FSAIO_CTX_REAP));
	EXPECT_STREQ("submit", event_type_name(FSAIO_EV_SUBMIT));
	EXPECT_STREQ("trace_end", event_type_name(FSAIO_EV_TRACE_END));
	EXPECT_STREQ("io_destroy", event_type_name(FSAIO_EV_IO_DESTROY));
	EXPECT_STREQ("?", event_type_name(FSAIO_EV__MAX));
	EXPECT_STREQ("?", wait_site_name(FSAIO_SITE__COUNT));
}

/* ---------- robustness ---------- */

/* Arbitrary valid records in arbitrary order: verdicts, never a crash. */
TEST_F(patched, random_streams_do_not_crash)
{
	struct checker *c = self->c;
	unsigned seed = 12345, i;
	int v;

	for (i = 0; i < 200000; i++) {
		struct fsaio_record r;

		seed = seed * 1103515245 + 12345;
		r = synth_rec(1 + (seed >> 8) % (FSAIO_EV__MAX - 1), 1 + (seed >> 4) % 2,
			      1 + (seed >> 12) % 3, UREQ + ((seed >> 16) % 37) * 64);
		r.pid = r.tgid + (seed >> 20) % 2;
		r.res = (int)((seed >> 3) % 7) - 2;
		r.arg1 = (seed >> 14) % 2;
		r.arg2 = (uint64_t)((seed >> 18) % 4) << 32 | ((seed >> 22) % 3);
		r.site = (seed >> 24) % FSAIO_SITE__COUNT;
		r.ctx = (seed >> 27) % FSAIO_CTX__COUNT;
		if (r.type == FSAIO_EV_TRACE_END)
			r.arg0 = 0;
		checker_feed(c, &r);
	}
	checker_finish(c);
	for (i = 0; i < INV__COUNT; i++) {
		v = V(c, i);
		EXPECT_TRUE(v >= VERDICT_PASS && v <= VERDICT_ERROR);
		EXPECT_NE(0, strlen(D(c, i)));
	}
}

/* ---------- scale ---------- */

/*
 * A million io_uring requests with distinct pointers and half a million
 * libaio ones in
 * batches of 64 with recycled iocbs, like fio.  No timing asserts; the test
 * timeout (30 s) catches anything quadratic.
 */
TEST_F(patched, million_requests_scale)
{
	struct checker *c = self->c;
	const unsigned n = 1000000, depth = 64;
	unsigned i, j;

	for (i = 0; i < n; i++) {
		uint64_t req = UREQ + (uint64_t)i * 256;

		uring_submit(c, 7, req);
		if (i % 8 == 0)
			uring_retry_cycle(c, req);
		uring_complete(c, 7, req, 4096);
	}
	for (i = 0; i < n / 2 / depth; i++) {
		for (j = 0; j < depth; j++)
			aio_submit(c, 42 + i % 4, IOCB + 64 * j, i + 1, j);
		aio_submit_done(c, 42 + i % 4, i + 1, depth, depth);
		for (j = 0; j < depth; j++) {
			aio_complete(c, IOCB + 64 * j, 4096);
			aio_reap(c, 42 + i % 4, IOCB + 64 * j, 4096);
		}
	}
	FINISH(c);
	for (i = 0; i < INV__COUNT; i++)
		EXPECT_NE(VERDICT_FAIL, V(c, i)) TH_LOG("%s: %s", INV(c, i)->name, INV(c, i)->detail);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_EQ(n + n / 2 / depth * depth, INV(c, INV_EXACTLY_ONCE)->observations);
	EXPECT_EQ(n, URING(c)->completed);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
}

TEST_HARNESS_MAIN
