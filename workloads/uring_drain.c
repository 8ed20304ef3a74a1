// SPDX-License-Identifier: GPL-2.0
/*
 * uring_drain: IOSQE_IO_DRAIN between cold reads.  One io_uring_submit of
 * COUNT (default 8) cold 4 KiB reads, a NOP flagged IOSQE_IO_DRAIN, and
 * COUNT more reads.  The kernel defers the drained NOP until every request
 * submitted before it has completed, and everything after it until the
 * NOP has (io_uring_defer): the NOP's CQE comes after the first COUNT
 * reads' and before any of the last COUNT's.  Each read's data is
 * verified, and the order is checked.
 *
 * Exact counts (default COUNT 8): submitted 17 (io_uring_submit_req 17:
 * read 16, nop 1), completed 17, errors 0, bytes 16 * 4096, verified 17.
 */
#include "lib/wl.h"

#define STRIDE		(64u * 1024)
#define NOP_ID		100000u

static const char help[] =
	"COUNT (8) cold reads, a drained NOP, COUNT more reads, in one submit.\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_drain", .count = 8 };
	struct wl_file f = { .seed = 0xd7a1 };
	struct wl_stats st = { 0 };
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	unsigned char *seen;
	unsigned i, n, before_nop = 0, after_nop_early = 0;
	bool nop_done = false;
	char *bufs;
	int fd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	if (o.count > NOP_ID / 2) {
		fprintf(stderr, "-n: at most %u reads on each side\n", NOP_ID / 2);
		return EXIT_USAGE;
	}
	n = 2 * o.count + 1;
	wl_uring_setup(n, &ring);
	f.size = (uint64_t)2 * o.count * STRIDE;
	wl_create(&f, o.dir, o.name);
	fd = wl_open_cold(&f, O_RDONLY);
	bufs = wl_alloc((size_t)2 * o.count * WL_PAGE);
	seen = calloc(2 * o.count, 1);
	if (!seen)
		wl_die("calloc", ENOMEM);

	for (i = 0; i < 2 * o.count; i++) {
		if (i == o.count) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_nop(sqe);
			io_uring_sqe_set_flags(sqe, IOSQE_IO_DRAIN);
			io_uring_sqe_set_data64(sqe, NOP_ID);
		}
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, fd, bufs + (size_t)i * WL_PAGE, WL_PAGE,
				   (uint64_t)i * STRIDE);
		io_uring_sqe_set_data64(sqe, i);
	}
	st.submitted = wl_uring_submit_all(&ring, n);
	if (st.submitted != n)
		st.errors++;

	while (st.completed < st.submitted) {
		struct io_uring_cqe *cqe = wl_uring_wait(&ring);
		uint64_t id = cqe->user_data;
		int ret = cqe->res;
		bool ok;

		st.completed++;
		if (id == NOP_ID) {
			ok = ret == 0 && !nop_done && before_nop == o.count;
			nop_done = true;
		} else if (id < 2u * o.count && !seen[id]++) {
			ok = ret == WL_PAGE && !wl_verify(&f, bufs + id * WL_PAGE,
							 id * STRIDE, WL_PAGE);
			if (id < o.count)
				before_nop++;
			else if (!nop_done)
				after_nop_early++;	/* ran before the drain */
			if (ok)
				st.bytes += ret;
		} else {
			ok = false;
		}
		if (!ok || after_nop_early) {
			fprintf(stderr, "CQE user_data %" PRIu64 " res %d: unexpected%s\n", id, ret,
				after_nop_early ? " (a read after the drain completed before it)" : "");
			st.errors++;
			after_nop_early = 0;
		} else {
			st.verified++;
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	printf("# expect: io_uring sqes=%u submit_req=%u (read %u nop 1, drained) cqes=%u\n",
	       n, n, 2 * o.count, n);
	io_uring_queue_exit(&ring);
	free(seen);
	return wl_finish(&o, "io_uring", &st);
}
