// SPDX-License-Identifier: GPL-2.0
/*
 * uring_poll_multishot: one multishot poll, many CQEs, then cancelled
 * (multishot: one request, many CQEs).  IORING_POLL_ADD_MULTI on the read
 * end of a pipe; the pipe is written COUNT (default 16) times, each time
 * the CQE is awaited and the byte read back out; then IORING_OP_POLL_REMOVE
 * cancels the poll.
 *
 * What the kernel does: every wakeup posts a CQE with POLLIN and
 * IORING_CQE_F_MORE (the request stays armed); the cancel completes the
 * poll with -ECANCELED and no F_MORE (its last CQE), and the POLL_REMOVE
 * request itself with 0.
 *
 * Exact counts (default COUNT 16): submitted 2 (io_uring_submit_req 2:
 * the poll and the remove), completed 2 (requests ended by a CQE without
 * F_MORE), CQEs 18 of which 16 with F_MORE, 1 with res < 0 (-ECANCELED).
 */
#include <poll.h>

#include "lib/wl.h"

#define POLL_ID		1
#define REMOVE_ID	2

static const char help[] =
	"A multishot poll on a pipe, COUNT (16) writes, then POLL_REMOVE.\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_poll_multishot", .count = 16 };
	struct wl_stats st = { 0 };
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	uint64_t cqes = 0, more = 0, negative = 0;
	bool poll_done = false, remove_done = false;
	int p[2];
	char c;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	wl_uring_setup(8, &ring);
	if (pipe(p))
		wl_die("pipe", errno);

	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_poll_multishot(sqe, p[0], POLLIN);
	io_uring_sqe_set_data64(sqe, POLL_ID);
	st.submitted += wl_uring_submit_all(&ring, 1);

	for (unsigned i = 0; i < o.count; i++) {
		c = 'a' + i % 26;
		if (write(p[1], &c, 1) != 1)
			wl_die("write pipe", errno);
		cqe = wl_uring_wait(&ring);
		cqes++;
		if (cqe->user_data != POLL_ID || !(cqe->res & POLLIN) ||
		    !(cqe->flags & IORING_CQE_F_MORE)) {
			fprintf(stderr, "write %u: CQE user_data %llu res %d flags 0x%x\n",
				i, (unsigned long long)cqe->user_data, cqe->res, cqe->flags);
			st.errors++;
		} else {
			more++;
			st.verified++;
		}
		io_uring_cqe_seen(&ring, cqe);
		if (read(p[0], &c, 1) != 1 || c != 'a' + (int)(i % 26)) {
			fprintf(stderr, "read back: wrong byte\n");
			st.errors++;
		}
	}

	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_poll_remove(sqe, POLL_ID);
	io_uring_sqe_set_data64(sqe, REMOVE_ID);
	st.submitted += wl_uring_submit_all(&ring, 1);
	while (!poll_done || !remove_done) {
		cqe = wl_uring_wait(&ring);
		cqes++;
		if (cqe->res < 0)
			negative++;
		if (cqe->user_data == POLL_ID && cqe->res == -ECANCELED &&
		    !(cqe->flags & IORING_CQE_F_MORE) && !poll_done) {
			poll_done = true;
			st.completed++;
		} else if (cqe->user_data == REMOVE_ID && cqe->res == 0 && !remove_done) {
			remove_done = true;
			st.completed++;
		} else {
			fprintf(stderr, "cancel: CQE user_data %llu res %d flags 0x%x\n",
				(unsigned long long)cqe->user_data, cqe->res, cqe->flags);
			st.errors++;
			if (cqe->flags & IORING_CQE_F_MORE)
				more++;
			else
				poll_done = remove_done = true;	/* do not hang */
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	if (io_uring_peek_cqe(&ring, &cqe) == 0) {
		fprintf(stderr, "extra CQE user_data %llu res %d\n",
			(unsigned long long)cqe->user_data, cqe->res);
		st.errors++;
	}
	if (cqes != o.count + 2 || more != o.count || negative != 1) {
		fprintf(stderr, "CQEs %" PRIu64 " (F_MORE %" PRIu64 ", res < 0 %" PRIu64
			"), want %u (%u, 1)\n", cqes, more, negative, o.count + 2, o.count);
		st.errors++;
	}
	printf("# expect: io_uring sqes=2 submit_req=2 cqes=%u f_more=%u res_negative=1\n",
	       o.count + 2, o.count);
	io_uring_queue_exit(&ring);
	return wl_finish(&o, "io_uring", &st);
}
