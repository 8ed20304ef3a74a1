// SPDX-License-Identifier: GPL-2.0
/*
 * uring_enter_busy: io_uring_enter in a tight loop, as completion-polling
 * programs do (a busy enter loop: the highest record rate).  Two phases of
 * -c CALLS (default 1000000) io_uring_enter calls each, on one ring:
 *   1. IORING_ENTER_GETEVENTS with min_complete 0 and nothing in flight
 *      (a reaper polling an idle ring);
 *   2. one NOP per call, submitted and waited for in the same call
 *      (io_uring_submit_and_wait(ring, 1)), its CQE reaped at once.
 * Each phase stops early after -t SECONDS (default 10) so a slow machine
 * cannot hang; the counts printed are what was done.  The aim is at least
 * 1M calls per second untraced; the rates are printed.
 *
 * What the kernel does: phase 1 returns at once (no SQE, no CQE, no
 * io_uring tracepoint); phase 2 completes each NOP inline: one
 * io_uring_submit_req and one io_uring_complete per call.
 *
 * Exact counts (default, if neither phase hit the time limit): submitted
 * 1000000 NOPs (io_uring_submit_req 1000000), completed 1000000 (CQEs,
 * io_uring_complete 1000000), io_uring_enter calls 2000000 of which
 * 1000000 submit (to_submit 1); 0 records lost.  With -b 8: 8000000 NOPs
 * in 1000000 submitting calls (about 17 records per call: the tracer's
 * loss case).
 */
#include <time.h>

#include "lib/wl.h"

static uint64_t calls = 1000000;
static unsigned batch = 1;
static double seconds = 10;

static const char help[] =
	"Busy io_uring_enter: CALLS empty GETEVENTS, then CALLS NOP submit+reap.\n"
	"  -c CALLS    io_uring_enter calls per phase (default 1000000)\n"
	"  -b BATCH    NOPs per call in phase 2 (default 1, at most 8)\n"
	"  -t SECONDS  time limit per phase (default 10)\n";

static int extra(int c, const char *arg)
{
	char *end;

	if (c == 'c')
		calls = strtoull(arg, &end, 0);
	else if (c == 'b')
		batch = strtoul(arg, &end, 0);
	else
		seconds = strtod(arg, &end);
	return *end || !calls || !batch || batch > 8 || seconds <= 0 ? -1 : 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_enter_busy", .count = 1 };
	struct wl_stats st = { 0 };
	struct io_uring ring;
	uint64_t idle = 0, nops = 0, enters;
	double t0, t1, t2;

	wl_getopt(argc, argv, &o, help, "c:b:t:", extra);
	wl_uring_setup(8, &ring);

	/* 1. Empty reaps: check the time every 4096 calls only. */
	t0 = now();
	while (idle < calls) {
		int ret = io_uring_enter(ring.ring_fd, 0, 0, IORING_ENTER_GETEVENTS, NULL);

		if (ret < 0 && ret != -EINTR)
			wl_die("io_uring_enter", -ret);
		if (!(++idle & 4095) && now() - t0 > seconds)
			break;
	}
	t1 = now();

	/* 2. BATCH NOPs per call, reaped at once. */
	while (nops < calls) {
		struct io_uring_cqe *cqe;
		int ret;

		for (unsigned i = 0; i < batch; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_nop(sqe);
			io_uring_sqe_set_data64(sqe, st.submitted + i);
		}
		ret = io_uring_submit_and_wait(&ring, batch);
		if (ret != (int)batch)
			wl_die("io_uring_submit_and_wait", ret < 0 ? -ret : EIO);
		st.submitted += batch;
		for (unsigned i = 0; i < batch; i++) {
			if (io_uring_peek_cqe(&ring, &cqe))
				wl_die("no CQE after submit_and_wait", EIO);
			if (cqe->user_data != st.completed || cqe->res != 0)
				st.errors++;
			else
				st.verified++;
			st.completed++;
			io_uring_cqe_seen(&ring, cqe);
		}
		if (!(++nops & 4095) && now() - t1 > seconds)
			break;
	}
	t2 = now();
	enters = idle + nops;
	printf("# rate: %" PRIu64 " empty GETEVENTS in %.2f s (%.2fM/s), %" PRIu64
	       " submit+reap of %u NOP(s) in %.2f s (%.2fM/s)\n", idle, t1 - t0,
	       idle / (t1 - t0) / 1e6, nops, batch, t2 - t1, nops / (t2 - t1) / 1e6);
	if (idle < calls || nops < calls)
		printf("# note: time limit of %.0f s reached; counts are what was done\n",
		       seconds);
	printf("# expect: io_uring sqes=%" PRIu64 " submit_req=%" PRIu64 " cqes=%" PRIu64
	       " enter_calls=%" PRIu64 " submit_calls=%" PRIu64 " lost=0\n",
	       st.submitted, st.submitted, st.completed, enters, nops);
	io_uring_queue_exit(&ring);
	return wl_finish(&o, "io_uring", &st);
}
