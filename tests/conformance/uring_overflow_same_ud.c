// SPDX-License-Identifier: GPL-2.0
/*
 * uring_overflow_same_ud: CQ overflow while another request with the same
 * user_data is in flight.  liburing leaves user_data 0 unless told (its
 * test/cq-overflow.c reads do), and io_uring_cqe_overflow names no req.
 * An 8-entry SQ and CQ, every request with user_data 0, two phases:
 *   A: a pipe read stays pending; 8 NOPs in one submit fill the CQ, 8 more
 *      in one submit overflow it; once their 16 CQEs are reaped the pipe
 *      is written: the read completes, with its own CQE (and req);
 *   B: the same with the 16 NOPs one per io_uring_submit (the kernel
 *      recycles the req structs of the overflowed ones).
 * All 17 CQEs of a phase are reaped before the next.
 *
 * What the kernel does: the first 8 NOPs' CQEs go to the CQ
 * (io_uring_complete), the next 8 to the overflow list
 * (io_uring_cqe_overflow, with user_data 0 and no req) and are flushed
 * to the CQ as the program reaps; the read's CQE is posted when the
 * pipe has data.
 *
 * Exact counts: SQEs 34 (= submitted), CQEs 34 (= completed), of which
 * 16 overflowed, 0 dropped; res < 0 none; bytes 2 * 4 read and compared.
 */
#include "lib/wl.h"

#define NOPS	16
#define CQ	8

static const char help[] = "CQ overflow with user_data shared by an in-flight read.\n";

static void nop(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)
		wl_die("io_uring_get_sqe", EBUSY);
	io_uring_prep_nop(sqe);		/* user_data 0, as liburing leaves it */
}

static void phase(struct io_uring *ring, struct wl_stats *st, bool one_by_one)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	char buf[4] = { 0 };
	unsigned i, reads = 0;
	int p[2];

	if (pipe(p))
		wl_die("pipe", errno);
	io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
	st->submitted += wl_uring_submit_all(ring, 1);
	for (i = 0; i < NOPS; i++) {
		nop(ring);
		if (one_by_one)
			st->submitted += wl_uring_submit_all(ring, 1);
		else if (i % CQ == CQ - 1)
			st->submitted += wl_uring_submit_all(ring, CQ);
	}
	for (i = 0; i < NOPS + 1; i++) {
		struct io_uring_cqe *cqe;

		/* the NOPs' CQEs reaped, the read's comes with its req */
		if (i == NOPS && write(p[1], "abcd", 4) != 4)
			wl_die("write", errno);
		cqe = wl_uring_wait(ring);

		if (cqe->user_data != 0 || (cqe->res != 0 && cqe->res != 4)) {
			fprintf(stderr, "CQE user_data %llu res %d\n",
				(unsigned long long)cqe->user_data, cqe->res);
			st->errors++;
		}
		reads += cqe->res == 4;
		st->completed++;
		io_uring_cqe_seen(ring, cqe);
	}
	if (reads != 1 || memcmp(buf, "abcd", 4)) {
		st->errors++;
	} else {
		st->verified++;
		st->bytes += 4;
	}
	close(p[0]);
	close(p[1]);
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_overflow_same_ud", .count = 2 * (NOPS + 1) };
	struct io_uring_params params = { .flags = IORING_SETUP_CQSIZE, .cq_entries = CQ };
	struct wl_stats st = { 0 };
	struct io_uring ring;
	unsigned ovf;
	int ret;

	wl_getopt(argc, argv, &o, help, NULL, NULL);	/* -n is ignored */
	ret = io_uring_queue_init_params(CQ, &ring, &params);
	if (ret)
		wl_die("io_uring_queue_init_params", -ret);
	phase(&ring, &st, false);
	phase(&ring, &st, true);
	ovf = *ring.cq.koverflow;
	printf("# expect: io_uring sqes=34 submit_req=34 cqes=34 overflowed=16 dropped=%u\n", ovf);
	if (st.submitted != 2 * (NOPS + 1) || ovf)
		st.errors++;
	io_uring_queue_exit(&ring);
	return wl_finish(&o, "io_uring", &st);
}
