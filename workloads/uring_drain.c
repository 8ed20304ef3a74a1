// SPDX-License-Identifier: GPL-2.0
/*
 * uring_drain: IOSQE_IO_DRAIN between cold reads.  One io_uring_submit of
 * COUNT (default 8) cold 4 KiB reads, a NOP flagged IOSQE_IO_DRAIN, and
 * COUNT more reads.  What every kernel from 6.1 to 6.18 does
 * (io_uring/io_uring.c): the drained NOP is not issued until every request
 * submitted before it has posted its CQE (io_drain_req() defers it while
 * req_need_defer() finds cached_cq_tail short of its sequence), and the
 * requests submitted after it queue behind it on defer_list
 * (io_drain_req(): the list is not empty), or, if it was not deferred,
 * are issued after those CQEs anyway.  So the first COUNT CQEs must be
 * the first COUNT reads: neither the NOP nor a later read may complete
 * before all of them.  That is what is checked, with each read's data.
 *
 * Not checked: the NOP's CQE before the later reads'.  Before 6.16 (as in
 * 6.1.y, 6.12.y) io_queue_deferred() releases the NOP and every non-drain
 * request behind it in one go (req_need_defer() is false without
 * REQ_F_IO_DRAIN), so they run alongside it; on 6.1 tctx_task_work()
 * even issues them newest first, ahead of the NOP, and a read whose folio
 * is cached, or whose device finishes it before io_read() looks again,
 * posts its CQE before the NOP's in the same flush.  io_uring_enter(2)
 * says later SQEs wait for the drained one to complete; the flag's own
 * commit (de0617e46717, 5.2) only "until the drain is started".  Upstream
 * fde04c7e2775 ("io_uring: fix spurious drain flushing", 6.16, in 6.15.y)
 * and 8fb7aee05591 (drain on allocated requests, 6.16) hold them until
 * the NOP is done.  The order is reported ("# drain:" line), not judged.
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
	unsigned i, n, before_nop = 0, after_nop = 0;
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
		const char *why = "";
		bool ok;

		st.completed++;
		if (id == NOP_ID) {
			ok = ret == 0 && !nop_done;
			nop_done = true;
		} else if (id < 2u * o.count && !seen[id]++) {
			ok = ret == WL_PAGE && !wl_verify(&f, bufs + id * WL_PAGE,
							 id * STRIDE, WL_PAGE);
			if (id < o.count)
				before_nop++;
			else if (nop_done)
				after_nop++;
			if (ok)
				st.bytes += ret;
		} else {
			ok = false;
		}
		/* the NOP and the later reads are issued only once every
		 * earlier read has posted its CQE (io_queue_deferred) */
		if (ok && (id == NOP_ID || id >= o.count) && before_nop < o.count) {
			ok = false;
			why = id == NOP_ID ? " (the drained NOP completed before the reads ahead of it)"
					   : " (a read after the drain completed before the reads ahead of it)";
		}
		if (!ok) {
			fprintf(stderr, "CQE user_data %" PRIu64 " res %d: unexpected%s\n",
				id, ret, why);
			st.errors++;
		} else {
			st.verified++;
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	/* not judged: before 6.16 io_queue_deferred() releases them with the NOP */
	printf("# drain: %u of %u later reads completed after the NOP\n",
	       after_nop, o.count);
	printf("# expect: io_uring sqes=%u submit_req=%u (read %u nop 1, drained) cqes=%u\n",
	       n, n, 2 * o.count, n);
	io_uring_queue_exit(&ring);
	free(seen);
	return wl_finish(&o, "io_uring", &st);
}
