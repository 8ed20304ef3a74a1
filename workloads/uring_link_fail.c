// SPDX-License-Identifier: GPL-2.0
/*
 * uring_link_fail: linked chains (IOSQE_IO_LINK) whose head or a member
 * fails (the rest of the chain cancelled).  Four chains of 4 cold 4 KiB
 * reads of one file, all in one io_uring_submit:
 *   A: every read good (baseline);
 *   B: the head reads fd -1: fails at issue with -EBADF;
 *   C: the head reads into a kernel address: rejected at init with -EFAULT
 *      (no io_uring_submit_req; the chain is still assembled, and failed);
 *   D: the second read crosses EOF: a short read breaks the chain too.
 *
 * What the kernel does: a failed (or short) link member fails the rest of
 * its chain, each with -ECANCELED, in order (io_uring_fail_link); an
 * early failure inside a chain does not stop the submission.
 *
 * Exact counts: SQEs 16 (= submitted), io_uring_submit_req 15, early
 * failure 1, CQEs 16 (= completed) of which 10 with res < 0 (-EBADF,
 * -EFAULT, 8 -ECANCELED), bytes 5 * 4096 + 1000, verified 6 (every read
 * that returned data, the short one included).
 */
#include "lib/wl.h"

#define CHAINS		4
#define LEN		4
#define STRIDE		(64u * 1024)
#define SHORT		1000	/* bytes chain D's second read gets before EOF */

static const char help[] = "Four linked chains of 4 cold reads; three of them break.\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_link_fail", .count = CHAINS * LEN };
	struct wl_file f = { .seed = 0x1111c };
	struct wl_stats st = { 0 };
	int want[CHAINS * LEN];
	uint64_t off[CHAINS * LEN];
	unsigned char seen[CHAINS * LEN] = { 0 };
	struct io_uring ring;
	unsigned n = CHAINS * LEN, neg = 0, early = 0;
	char *bufs;
	int fd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);	/* -n is ignored */
	wl_uring_setup(n, &ring);
	/* page i of the file for read i; chain D's second read crosses EOF */
	f.size = (uint64_t)(n - 3) * STRIDE + SHORT;
	wl_create(&f, o.dir, o.name);
	fd = wl_open_cold(&f, O_RDONLY);
	bufs = wl_alloc((size_t)n * WL_PAGE);

	for (unsigned i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		unsigned chain = i / LEN, pos = i % LEN;
		void *buf = bufs + (size_t)i * WL_PAGE;
		int rfd = fd;

		off[i] = (uint64_t)i * STRIDE;
		want[i] = WL_PAGE;
		if (chain == 1 && pos == 0) {
			rfd = -1;
			want[i] = -EBADF;
		} else if (chain == 2 && pos == 0) {
			buf = (void *)0xffff888000000000ul;
			want[i] = -EFAULT;
			early++;
		} else if (chain == 3 && pos == 1) {
			off[i] = f.size - SHORT;
			want[i] = SHORT;
		} else if ((chain == 1 || chain == 2) || (chain == 3 && pos > 1)) {
			want[i] = -ECANCELED;
		}
		io_uring_prep_read(sqe, rfd, buf, WL_PAGE, off[i]);
		if (pos < LEN - 1)
			sqe->flags |= IOSQE_IO_LINK;
		io_uring_sqe_set_data64(sqe, i);
		neg += want[i] < 0;
	}
	st.submitted = wl_uring_submit_all(&ring, n);
	if (st.submitted != n)
		st.errors++;
	while (st.completed < st.submitted) {
		struct io_uring_cqe *cqe = wl_uring_wait(&ring);
		uint64_t i;

		i = cqe->user_data;
		st.completed++;
		if (i >= n || seen[i]++ || cqe->res != want[i]) {
			fprintf(stderr, "CQE user_data %" PRIu64 " res %d, want %d\n", i,
				cqe->res, i < n ? want[i] : 0);
			st.errors++;
		} else if (cqe->res > 0) {
			/* a chain completes in order: its members after the head */
			if (i % LEN && !seen[i - 1]) {
				fprintf(stderr, "read %" PRIu64 " completed before %" PRIu64 "\n",
					i, i - 1);
				st.errors++;
			}
			if (wl_verify(&f, bufs + i * WL_PAGE, off[i], cqe->res))
				st.errors++;
			else
				st.verified++;
			st.bytes += cqe->res;
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	printf("# expect: io_uring sqes=%u submit_req=%u early_failed=%u cqes=%u"
	       " res_negative=%u ecanceled=%u\n", n, n - early, early, n, neg, neg - 2);
	io_uring_queue_exit(&ring);
	return wl_finish(&o, "io_uring", &st);
}
