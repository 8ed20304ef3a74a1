// SPDX-License-Identifier: GPL-2.0
/*
 * uring_cq_overflow: more completions than the CQ holds, reaped late (CQ
 * overflow: CQEs delivered later from the overflow list).  A ring with 4 SQ
 * and 4 CQ entries (IORING_SETUP_CQSIZE) gets COUNT (default 64) NOPs, 4
 * per io_uring_submit, and nothing is reaped until all are submitted.
 *
 * What the kernel does: a NOP completes inside io_uring_enter.  The first
 * 4 CQEs fit the CQ (traced io_uring_complete); each later one does not:
 * io_uring_cqe_overflow puts it on the overflow list (IORING_SQ_CQ_OVERFLOW
 * set) and no io_uring_complete is traced for it.  Reaping flushes the
 * list into the CQ in order (io_uring_enter with GETEVENTS, done by
 * liburing).  A CQE is dropped only if the overflow entry cannot be
 * allocated; the kernel counts those in cq.koverflow, which must be 0.
 *
 * Exact counts (default COUNT 64): submitted 64 (io_uring_submit_req 64),
 * CQEs 64 = completed, in order 0..63; io_uring_complete 4,
 * io_uring_cqe_overflow 60 (overflowed, all delivered later), dropped 0.
 */
#include "lib/wl.h"

#define RING	4

static const char help[] =
	"COUNT (64) NOPs into a 4-entry CQ, 4 per submit, reaped at the end.\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_cq_overflow", .count = 64 };
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = RING };
	struct wl_stats st = { 0 };
	struct io_uring ring;
	unsigned overflowed = 0;
	int ret;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	ret = io_uring_queue_init_params(RING, &ring, &p);
	if (ret == -ENOSYS || ret == -EPERM)
		wl_skip("io_uring unavailable: io_uring_queue_init", -ret);
	if (ret < 0)
		wl_die("io_uring_queue_init", -ret);
	if (p.cq_entries != RING || !(p.features & IORING_FEAT_NODROP))
		wl_skip("no 4-entry CQ with IORING_FEAT_NODROP", EINVAL);

	while (st.submitted < o.count) {
		unsigned n = o.count - st.submitted < RING ? o.count - st.submitted : RING;

		for (unsigned i = 0; i < n; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_nop(sqe);
			io_uring_sqe_set_data64(sqe, st.submitted + i);
		}
		ret = wl_uring_submit_all(&ring, n);
		st.submitted += ret;
		if ((unsigned)ret != n)
			wl_die("io_uring_submit", EIO);
	}
	/* Everything has completed (NOPs complete in the submit call). */
	if (o.count > RING) {
		overflowed = o.count - RING;
		if (!(IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_CQ_OVERFLOW)) {
			fprintf(stderr, "IORING_SQ_CQ_OVERFLOW not set\n");
			st.errors++;
		}
	}
	printf("# overflow: %u CQEs in the CQ, the rest on the overflow list\n",
	       io_uring_cq_ready(&ring));

	/* Reap in order: overflowed CQEs are delivered after the first 4. */
	while (st.completed < st.submitted) {
		struct io_uring_cqe *cqe = wl_uring_wait(&ring);

		if (cqe->user_data != st.completed || cqe->res != 0) {
			fprintf(stderr, "CQE %" PRIu64 ": user_data %llu res %d\n",
				st.completed, (unsigned long long)cqe->user_data, cqe->res);
			st.errors++;
		} else {
			st.verified++;
		}
		st.completed++;
		io_uring_cqe_seen(&ring, cqe);
	}
	if (*ring.cq.koverflow) {
		fprintf(stderr, "kernel dropped %u CQEs\n", *ring.cq.koverflow);
		st.errors++;
	}
	printf("# expect: io_uring sqes=%u submit_req=%u cqes=%u complete_tp=%u"
	       " overflowed=%u dropped=0\n", o.count, o.count, o.count,
	       o.count - overflowed, overflowed);
	io_uring_queue_exit(&ring);
	return wl_finish(&o, "io_uring", &st);
}
