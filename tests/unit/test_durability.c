// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the checker core, durability: an O_SYNC/O_DSYNC write the
 * kernel made asynchronous completes only after the worker's final fsync,
 * over the range the write landed in.
 */
#include "checker_fixture.h"

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

TEST_HARNESS_MAIN
