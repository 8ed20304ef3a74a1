// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the checker core as a whole: failure details, the verdict
 * ladder and the names, arbitrary streams that must not crash it, and scale.
 */
#include "checker_fixture.h"

CHECKER_FIXTURE(patched, synth_cfg_all())

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
