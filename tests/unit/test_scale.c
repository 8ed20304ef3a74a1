// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the checker core at scale: long streams that real soak runs
 * produce, where every event must find its lifecycle without a walk over
 * the others.  Programs reuse their iocb structs, forked workers share iocb
 * addresses, io_uring recycles req structs and liburing's default user_data
 * is 0, so many lifecycles share one req, or one ring and user_data.  The
 * tests assert verdicts and counts only, never a time: speed is for the
 * benchmarks.  A checker that walks the other lifecycles for each event
 * takes minutes here, where a lookup by index takes well under a second.
 */
#include "checker_fixture.h"

CHECKER_FIXTURE(patched, synth_cfg_all())

#ifndef SCALE_N
#define SCALE_N		100000u	/* requests in a stream */
#endif
#define AIO_WINDOW	16u	/* processes with the shared iocb in flight at once */
#define URING_WINDOW	32u	/* io_uring requests in flight at once */
#define URING_POOL	64u	/* req structs a ring recycles */

/* A distinct result per request in flight, so a completion that lands on
 * the wrong lifecycle shows as "kernel result != user result". */
static int32_t res_of(unsigned i, unsigned window)
{
	return 512 * (1 + (int32_t)(i % window));
}

/* The end of the window of requests that starts at base */
static unsigned window_end(unsigned base, unsigned window)
{
	return base + window < SCALE_N ? base + window : SCALE_N;
}

/* An io_uring SUBMIT with the user_data given (uring_submit derives it) */
static void uring_submit_ud(struct checker *c, uint64_t req, uint64_t user_data)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_SUBMIT, FSAIO_ENGINE_IO_URING, 7, req);

	r.user_data = user_data;
	r.ring = SYNTH_URING_RING;
	synth_feed(c, &r);
}

/*
 * Forked workers submitting one iocb address (the same buffer in each copy
 * of the address space): SCALE_N processes, AIO_WINDOW of them in flight at
 * once, each completion in interrupt context (tgid 0: it lands on the
 * oldest request of that iocb not yet completed), reaped newest first, and
 * each process exits.
 */
static void one_iocb_many_processes(struct checker *c)
{
	unsigned base, end, i;

	for (base = 0; base < SCALE_N; base = end) {
		end = window_end(base, AIO_WINDOW);
		for (i = base; i < end; i++) {
			aio_submit(c, 1000 + i, IOCB, 1, 0);
			aio_submit_done(c, 1000 + i, 1, 1, 1);
		}
		for (i = base; i < end; i++)
			aio_complete(c, IOCB, res_of(i, AIO_WINDOW));
		for (i = end; i-- > base;) {
			aio_reap(c, 1000 + i, IOCB, res_of(i, AIO_WINDOW));
			ev_proc_exit(c, 1000 + i);
		}
	}
}

TEST_F(patched, one_iocb_in_many_processes)
{
	struct checker *c = self->c;

	one_iocb_many_processes(c);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_TRACE_INTEGRITY);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_EQ(SCALE_N, INV(c, INV_EXACTLY_ONCE)->observations);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(SCALE_N, LIBAIO(c)->submitted);
	EXPECT_EQ(SCALE_N, LIBAIO(c)->completed);
	EXPECT_EQ(0, LIBAIO(c)->abandoned);
	EXPECT_EQ(SCALE_N, LIBAIO(c)->submit_calls);
}

/* ... and a stray completion of that iocb after them all, none in flight,
 * lands on the oldest of its lifecycles (the first process's): completed
 * twice. */
TEST_F(patched, one_iocb_in_many_processes_stray_completion)
{
	struct checker *c = self->c;

	one_iocb_many_processes(c);
	aio_complete(c, IOCB, 4096);
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_FAIL, INV_EXACTLY_ONCE);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "completed twice: req 0x7ffc0000a000 (libaio tgid 1000)");
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(SCALE_N, LIBAIO(c)->completed);
}

/* One process reusing one iocb for every request: submit, complete, reap. */
TEST_F(patched, one_iocb_reused_by_one_process)
{
	struct checker *c = self->c;
	unsigned i;

	for (i = 0; i < SCALE_N; i++) {
		aio_submit(c, 42, IOCB, (int32_t)i, 0);
		aio_submit_done(c, 42, (int32_t)i, 1, 1);
		aio_complete(c, IOCB, res_of(i, 7));
		aio_reap(c, 42, IOCB, res_of(i, 7));
	}
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_EQ(SCALE_N, INV(c, INV_EXACTLY_ONCE)->observations);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(SCALE_N, LIBAIO(c)->submitted);
	EXPECT_EQ(SCALE_N, LIBAIO(c)->completed);
}

/*
 * A CQ too small for its ring: every CQE overflows.  SCALE_N requests on
 * req structs never seen before, URING_WINDOW in flight, user_data shared
 * by several of them (i % 5): each overflowed CQE (no req) ends the
 * oldest in-flight request with its user_data.
 */
TEST_F(patched, every_cqe_overflows)
{
	struct checker *c = self->c;
	unsigned base, end, i;

	for (base = 0; base < SCALE_N; base = end) {
		end = window_end(base, URING_WINDOW);
		for (i = base; i < end; i++)
			uring_submit_ud(c, UREQ + 0x100ull * i, i % 5);
		uring_submit_done(c, 7, end - base);
		for (i = base; i < end; i++)
			uring_overflow(c, i % 5, 4096, false, 0);
	}
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_EQ(SCALE_N, INV(c, INV_EXACTLY_ONCE)->observations);
	EXPECT_EQ(SCALE_N, URING(c)->cq_overflow);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(SCALE_N, URING(c)->submitted);
	EXPECT_EQ(SCALE_N, URING(c)->completed);
	EXPECT_EQ(0, URING(c)->cq_dropped);
	EXPECT_DETAIL(c, INV_EXACTLY_ONCE, "CQEs overflowed the CQ");
}

/*
 * A ring recycling URING_POOL req structs, a fresh user_data for each
 * request (a counter), half the CQEs overflowed and half not: the user_data
 * index takes each request in and lets it go again.
 */
TEST_F(patched, recycled_reqs_half_the_cqes_overflow)
{
	struct checker *c = self->c;
	unsigned base, end, i;

	for (base = 0; base < SCALE_N; base = end) {
		end = window_end(base, URING_POOL);
		for (i = base; i < end; i++)
			uring_submit_ud(c, UREQ + 0x100ull * (i % URING_POOL), 1 + i);
		uring_submit_done(c, 7, end - base);
		for (i = base; i < end; i++) {
			if (i % 2)
				uring_complete(c, 7, UREQ + 0x100ull * (i % URING_POOL), 4096);
			else
				uring_overflow(c, 1 + i, 4096, false, 0);
		}
	}
	FINISH(c);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_EXACTLY_ONCE);
	EXPECT_EQ(SCALE_N, INV(c, INV_EXACTLY_ONCE)->observations);
	EXPECT_VERDICT(c, VERDICT_PASS, INV_QUIESCENCE);
	EXPECT_EQ(SCALE_N, URING(c)->submitted);
	EXPECT_EQ(SCALE_N, URING(c)->completed);
	EXPECT_EQ(SCALE_N / 2, URING(c)->cq_overflow);
}

TEST_HARNESS_MAIN
