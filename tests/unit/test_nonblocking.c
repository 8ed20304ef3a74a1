// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the checker core, nonblocking_submit_libaio and _io_uring:
 * an FSAIO wait inside a submit syscall fails (XFAIL for libaio on a stock
 * kernel), other sleeps are counted and named; writes to S_SYNC inodes stay
 * synchronous; with keep_stacks (trace --stacks) sleeps are counted per
 * distinct stack.
 */
#include "checker_fixture.h"
#include "core/features.h"

CHECKER_FIXTURE(patched, synth_cfg_all())

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

/* ---------- writes to S_SYNC inodes ---------- */

/*
 * Writes to an S_SYNC inode (chattr +S, -o sync) stay synchronous: their
 * sleeps inside io_submit (FSAIO_F_STAYS_SYNC, set in BPF from the inode at
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
	r.flags = FSAIO_F_STAYS_SYNC;
	synth_feed(c, &r);
	if (went_async) {
		r = synth_rec(FSAIO_EV_PUNT, FSAIO_ENGINE_LIBAIO, 42, IOCB);
		r.flags = FSAIO_F_STAYS_SYNC;
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
	EXPECT_DETAIL(self->c, INV_NONBLOCKING_SUBMIT_LIBAIO, "1 in requests that stay synchronous by design");
	EXPECT_EQ(1, LIBAIO(self->c)->stays_sync_sleeps);
	EXPECT_EQ(0, LIBAIO(self->c)->blocked_in_submit);
}

TEST_F(patched, sync_inode_write_made_async_fails)
{
	sync_inode_write(self->c, true);
	FINISH(self->c);
	EXPECT_VERDICT(self->c, VERDICT_FAIL, INV_RETRY_LIFECYCLE);
	EXPECT_DETAIL(self->c, INV_RETRY_LIFECYCLE, "a request the kernel must keep synchronous");
}

/*
 * fs.aio-buffered-async=1, the series' default: a request without
 * IOCB_FLAG_BUFFERED_ASYNC stays synchronous (the BPF side marks it
 * FSAIO_F_STAYS_SYNC at fsaio_submit); made asynchronous, the failure names
 * the opt-in, and the kernel is still expected not to block the others.
 */
static inline struct checker_config cfg_opt_in(void)
{
	struct checker_config cfg = synth_cfg_all();
	struct checker_config opt = checker_config_for(FEAT_FSAIO_TP | FEAT_LIBAIO_ASYNC |
						       FEAT_LIBAIO_OPT_IN);

	cfg.libaio_async_expected = opt.libaio_async_expected;
	cfg.libaio_async_off = opt.libaio_async_off;
	cfg.libaio_opt_in = opt.libaio_opt_in;
	return cfg;
}
CHECKER_FIXTURE(opt_in, cfg_opt_in())

TEST_F(opt_in, request_that_did_not_ask_made_async_fails)
{
	sync_inode_write(self->c, true);
	FINISH(self->c);
	EXPECT_VERDICT(self->c, VERDICT_FAIL, INV_RETRY_LIFECYCLE);
	EXPECT_DETAIL(self->c, INV_RETRY_LIFECYCLE, "or one without IOCB_FLAG_BUFFERED_ASYNC "
		      "with fs.aio-buffered-async=1) was made asynchronous (punt)");
}

TEST_F(opt_in, request_that_did_not_ask_sleeping_in_submit_passes)
{
	sync_inode_write(self->c, false);
	FINISH(self->c);
	EXPECT_VERDICT(self->c, VERDICT_PASS, INV_NONBLOCKING_SUBMIT_LIBAIO);
	EXPECT_EQ(1, LIBAIO(self->c)->stays_sync_sleeps);
}

/* The opt-in is on with the switch at 1 only, and async is then expected. */
TEST(opt_in_only_with_the_switch_at_1)
{
	struct checker_config on = checker_config_for(FEAT_FSAIO_TP | FEAT_LIBAIO_ASYNC |
						      FEAT_LIBAIO_OPT_IN);

	EXPECT_TRUE(on.libaio_opt_in);
	EXPECT_TRUE(on.libaio_async_expected);
	EXPECT_FALSE(on.libaio_async_off);
	EXPECT_FALSE(checker_config_for(FEAT_FSAIO_TP | FEAT_LIBAIO_ASYNC).libaio_opt_in);
	EXPECT_FALSE(checker_config_for(FEAT_FSAIO_TP | FEAT_LIBAIO_OPT_IN).libaio_opt_in);
	EXPECT_FALSE(checker_config_for(FEAT_LIBAIO_ASYNC | FEAT_LIBAIO_OPT_IN).libaio_opt_in);
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

TEST_HARNESS_MAIN
