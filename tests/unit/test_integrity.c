// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the checker core, trace_integrity: how a trace ends
 * (cleanly, with records lost, seq gaps or duplicates, cut short,
 * malformed), and every other verdict turning ERROR "inconclusive" when
 * records were lost.
 */
#include "checker_fixture.h"

CHECKER_FIXTURE(patched, synth_cfg_all())

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

/* the kernel skipped a program (recursion): a libaio COMPLETE that an
 * interrupt brought while the same program ran, say */
FIXTURE_VARIANT_ADD(loss, prog_missed) {
	.cause = FSAIO_DROP_PROG_MISSED, .n = 1, .complete = true,
	.integrity = "1 program runs the kernel skipped (recursion)",
	.quiescence = "as traced: pass",
};

/* a fold promote that lost its slot twice: the event after it may be read
 * before the request's SUBMIT */
FIXTURE_VARIANT_ADD(loss, fold_race) {
	.cause = FSAIO_DROP_FOLD_RACE, .n = 1, .complete = true,
	.integrity = "1 fold promotes that kept losing their slot",
	.quiescence = "as traced: pass",
};

/* a hook's second program sent an event its first had sent too
 * (bpf/fsaio_nest.h): a COMPLETE twice would read as completed twice */
FIXTURE_VARIANT_ADD(loss, pair_twice) {
	.cause = FSAIO_DROP_PAIR_TWICE, .n = 1, .complete = true,
	.integrity = "1 events a program pair sent twice",
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

/* A copy of one record in place of a lost one: the count of seqs matches
 * their span, yet one record is missing and another doubled. */
TEST_F(patched, duplicate_filling_a_gap_is_error)
{
	struct checker *c = self->c;
	struct fsaio_record r = synth_rec(FSAIO_EV_SLEEP, FSAIO_ENGINE_NONE, 8, 0);

	r.seq = 100;
	checker_feed(c, &r);
	r.seq = 101;
	checker_feed(c, &r);
	checker_feed(c, &r);	/* 101 again, 102 never came */
	r.seq = 103;
	checker_feed(c, &r);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_ERROR, INV_TRACE_INTEGRITY);
	EXPECT_DETAIL(c, INV_TRACE_INTEGRITY, "1 duplicate seq");
	EXPECT_DETAIL(c, INV_TRACE_INTEGRITY, "1 records lost");
}

/* Seqs out of order and far apart are not duplicates. */
TEST_F(patched, reordered_seqs_are_not_duplicates)
{
	struct checker *c = self->c;
	struct fsaio_record r = synth_rec(FSAIO_EV_SLEEP, FSAIO_ENGINE_NONE, 8, 0);
	uint64_t seqs[] = { 50000, 50002, 50001, 40000 }, s;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		r.seq = seqs[i];
		checker_feed(c, &r);
	}
	for (s = 40001; s < 50000; s++) {
		r.seq = s;
		checker_feed(c, &r);
	}
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_TRACE_INTEGRITY);
}

/* Drop counts that add up past 2^64 are many losses, not none. */
TEST_F(patched, drop_counts_do_not_wrap)
{
	struct checker *c = self->c;
	struct fsaio_record r = synth_rec(FSAIO_EV_SLEEP, FSAIO_ENGINE_NONE, 8, 0);
	struct fsaio_record end = { .version = FSAIO_RECORD_VERSION,
				    .type = FSAIO_EV_TRACE_END };

	checker_feed(c, &r);
	end.stack[0] = UINT64_MAX;
	end.stack[1] = 1;
	end.arg0 = 0;
	checker_feed(c, &end);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_ERROR, INV_TRACE_INTEGRITY);
	EXPECT_NE(0, checker_stats(c)->lost);
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

TEST_HARNESS_MAIN
