// SPDX-License-Identifier: GPL-2.0
/*
 * fsaio trace counts requests in the kernel (bpf/fsaio_agg.h) instead of
 * sending their records; fsaio check counts them from the records.  The
 * two must agree: each test feeds one synthetic stream to both the
 * checker and fsaio_agg_account() (synth.h's synth_agg) and compares the
 * engine counters, then checks what aggregate mode would still send.
 */
#include <string.h>
#include "kselftest_harness.h"
#include "synth.h"

#pragma GCC diagnostic ignored "-Wsign-compare"

FIXTURE(agg) {
	struct checker *c;
	struct fsaio_agg a;
};

FIXTURE_SETUP(agg)
{
	struct checker_config cfg = synth_cfg_all();

	self->c = checker_new(&cfg);
	ASSERT_NE(NULL, self->c);
	memset(&self->a, 0, sizeof(self->a));
	synth_agg = &self->a;
	synth_rc = 0;
}

FIXTURE_TEARDOWN(agg)
{
	synth_agg = NULL;
	checker_free(self->c);
}

/* Every engine counter the kernel aggregates equals the checker's. */
static void expect_same_counts(struct __test_metadata *_metadata,
			       struct checker *c, const struct fsaio_agg *a)
{
	struct checker_stats k;
	const struct checker_stats *s;
	int e;

	synth_agg = NULL;	/* the end record is the harness's */
	synth_finish(c);
	ASSERT_EQ(0, synth_rc);
	s = checker_stats(c);
	memset(&k, 0, sizeof(k));
	checker_stats_add_aggregate(&k, a);
	for (e = FSAIO_ENGINE_LIBAIO; e < FSAIO_ENGINE__COUNT; e++) {
		const struct engine_stats *x = &s->engine[e], *y = &k.engine[e];

#define X(counter, field) EXPECT_EQ(x->field, y->field) TH_LOG("engine %d " #field, e);
		FSAIO_AGG_FIELDS(X)
#undef X
	}
}

/* libaio on the patched kernel: 8 reads in one io_submit, 3 of them
 * retried, woken and resumed, one failing; each completed by the kernel
 * and reaped.  Only the sleep is sent. */
TEST_F(agg, libaio_batch_with_retries)
{
	struct checker *c = self->c;
	unsigned i;

	aio_batch(c, 42, 0x1000, 1, 8);
	for (i = 0; i < 3; i++) {
		ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_LIBAIO, 42, 0x1000 + 64 * i);
		ev_req(c, FSAIO_EV_WAKE, FSAIO_ENGINE_LIBAIO, 0, 0x1000 + 64 * i);
		ev_resume(c, FSAIO_ENGINE_LIBAIO, 42, 0x1000 + 64 * i, 1);
	}
	ev_sleep(c, 42, FSAIO_CTX_REAP, FSAIO_SITE_OTHER, 5000);
	for (i = 0; i < 8; i++) {
		aio_complete(c, 0x1000 + 64 * i, i == 5 ? -5 : 4096);
		aio_reap(c, 42, 0x1000 + 64 * i, i == 5 ? -5 : 4096);
	}
	EXPECT_EQ(1, self->a.sent);
	EXPECT_EQ(8 + 1 + 9 + 16, self->a.counted);
	expect_same_counts(_metadata, c, &self->a);
	EXPECT_EQ(8, self->a.c[FSAIO_ENGINE_LIBAIO][FSAIO_AGG_SUBMITTED]);
	EXPECT_EQ(1, self->a.c[FSAIO_ENGINE_LIBAIO][FSAIO_AGG_ERRORS]);
}

/* io_submit() accepting 3 of 5 iocbs: the rejected two are not requests. */
TEST_F(agg, libaio_partial_submit)
{
	struct checker *c = self->c;
	unsigned i;

	for (i = 0; i < 5; i++)
		aio_submit(c, 42, 0x2000 + 64 * i, 1, i);
	aio_submit_done(c, 42, 1, 5, 3);
	for (i = 0; i < 3; i++)
		aio_reap(c, 42, 0x2000 + 64 * i, 4096);
	expect_same_counts(_metadata, c, &self->a);
	EXPECT_EQ(3, self->a.c[FSAIO_ENGINE_LIBAIO][FSAIO_AGG_SUBMITTED]);
}

/* io_uring: plain reads, an SQE failing at init, a CQE through the
 * overflow list, one dropped there, and a multishot request's three
 * CQEs (two with F_MORE) counting as one completion. */
TEST_F(agg, io_uring_overflow_failed_init_multishot)
{
	struct checker *c = self->c;
	struct fsaio_record r;
	unsigned i;

	for (i = 0; i < 4; i++)
		uring_submit(c, 42, 0x3000 + 64 * i);
	uring_failed_init(c, 42, 0x3400, -22);
	uring_submit_done(c, 42, 5);
	uring_complete(c, 42, 0x3000, 4096);
	uring_complete(c, 42, 0x3040, -11);
	uring_overflow(c, 0x3080 >> 4, 4096, false, 0);
	uring_overflow(c, 0x30c0 >> 4, 4096, true, 0);
	uring_complete(c, 42, 0x3400, -22);
	uring_submit(c, 42, 0x3500);
	for (i = 0; i < 3; i++) {
		r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 42, 0x3500);
		r.user_data = 0x3500 >> 4;
		r.ring = SYNTH_URING_RING;
		r.res = 64;
		r.arg0 = i < 2 ? FSAIO_CQE_F_MORE : 0;
		synth_feed(c, &r);
	}
	expect_same_counts(_metadata, c, &self->a);
	EXPECT_EQ(6, self->a.c[FSAIO_ENGINE_IO_URING][FSAIO_AGG_SUBMITTED]);
	EXPECT_EQ(6, self->a.c[FSAIO_ENGINE_IO_URING][FSAIO_AGG_COMPLETED]);
	EXPECT_EQ(0, self->a.sent);
}

/* Records a person must see one by one go to the ring; request events
 * never do. */
TEST(agg_sends_only_sleeps_lifecycle_and_anomalies)
{
	EXPECT_TRUE(fsaio_agg_sends(FSAIO_EV_SLEEP));
	EXPECT_TRUE(fsaio_agg_sends(FSAIO_EV_PROC_EXIT));
	EXPECT_TRUE(fsaio_agg_sends(FSAIO_EV_IO_DESTROY));
	EXPECT_TRUE(fsaio_agg_sends(FSAIO_EV_LINK_FAIL));
	EXPECT_TRUE(fsaio_agg_sends(FSAIO_EV_WORKER_KEPT));
	EXPECT_FALSE(fsaio_agg_sends(FSAIO_EV_SUBMIT));
	EXPECT_FALSE(fsaio_agg_sends(FSAIO_EV_SUBMIT_DONE));
	EXPECT_FALSE(fsaio_agg_sends(FSAIO_EV_COMPLETE));
	EXPECT_FALSE(fsaio_agg_sends(FSAIO_EV_REAP));
	EXPECT_FALSE(fsaio_agg_sends(FSAIO_EV_RETRY));
	EXPECT_FALSE(fsaio_agg_sends(FSAIO_EV_WAKE));
	EXPECT_FALSE(fsaio_agg_sends(FSAIO_EV_RESUME));
	EXPECT_FALSE(fsaio_agg_sends(FSAIO_EV_PUNT));
}

TEST_HARNESS_MAIN
