// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the checker core, quiescence: at the end nothing is in
 * flight and no wait entry is armed; libaio requests abandoned by io_destroy
 * or process exit end unreaped, and the kernel must have finished them.
 */
#include "checker_fixture.h"

CHECKER_FIXTURE(patched, synth_cfg_all())
CHECKER_FIXTURE(stock, synth_cfg_stock())

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

/* A process exit alone does not abandon an io_uring request: ring teardown
 * cancels it with a CQE of its own (io_uring_teardown_cancellation_is_abandoned
 * in test_exactly_once.c); without that CQE it is still in flight. */
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

TEST_HARNESS_MAIN
