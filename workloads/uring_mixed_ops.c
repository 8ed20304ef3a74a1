// SPDX-License-Identifier: GPL-2.0
/*
 * uring_mixed_ops: reads mixed with poll, timeout, splice, statx and nop in
 * one submit (mixed opcodes, counted per opcode).  One io_uring_submit of
 * COUNT (default 8) cold 4 KiB reads of a test file and: a POLL_ADD
 * (POLLIN) on an empty pipe, a 20 ms TIMEOUT, a SPLICE of 4 KiB from the
 * file into a second pipe, a STATX of the file and a NOP.  Once submitted,
 * the first pipe is written, which fires the poll.  Every result is checked:
 * read data, POLLIN, -ETIME, the spliced bytes, stx_size, 0.
 *
 * What the kernel does: the NOP completes inline; the reads arm page waits
 * and complete by task_work; statx and splice (of a regular file) cannot
 * be done nonblocking and are punted to io-wq (io_uring_queue_async_work;
 * how many punts is the kernel's choice, not asserted); the poll and the
 * timeout are armed and complete later.
 *
 * Exact counts (default COUNT 8): submitted 13 (io_uring_submit_req 13:
 * read 8, poll 1, timeout 1, splice 1, statx 1, nop 1), completed 13, of
 * which 1 with res < 0 (the timeout's -ETIME); bytes 8 * 4096 + 4096 (the
 * reads and the splice), verified 13.
 */
#include <poll.h>
#include <sys/stat.h>

#include "lib/wl.h"

#define STRIDE		(64u * 1024)

enum { POLL_ID = 1000, TIMEOUT_ID, SPLICE_ID, STATX_ID, NOP_ID };

static const char help[] =
	"COUNT (8) cold reads + poll, timeout, splice, statx and nop in one submit.\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_mixed_ops", .count = 8 };
	struct __kernel_timespec tmo = { 0, 20 * 1000 * 1000 };
	struct wl_file f = { .seed = 0x313d };
	struct wl_stats st = { 0 };
	struct statx stx;
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	unsigned char seen[NOP_ID + 1] = { 0 };
	unsigned n;
	uint64_t splice_off;
	char *bufs, sbuf[WL_PAGE];
	int fd, pp[2], sp[2];

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	if (o.count > POLL_ID) {
		fprintf(stderr, "-n: at most %d reads\n", POLL_ID);
		return EXIT_USAGE;
	}
	n = o.count + 5;
	wl_uring_setup(n, &ring);
	if (pipe(pp) || pipe(sp))
		wl_die("pipe", errno);
	f.size = (uint64_t)(o.count + 1) * STRIDE;
	wl_create(&f, o.dir, o.name);
	fd = wl_open_cold(&f, O_RDONLY);
	bufs = wl_alloc((size_t)o.count * WL_PAGE);
	splice_off = (uint64_t)o.count * STRIDE;

	for (unsigned i = 0; i < o.count; i++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, fd, bufs + (size_t)i * WL_PAGE, WL_PAGE,
				   (uint64_t)i * STRIDE);
		io_uring_sqe_set_data64(sqe, i);
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_poll_add(sqe, pp[0], POLLIN);
	io_uring_sqe_set_data64(sqe, POLL_ID);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_timeout(sqe, &tmo, 0, 0);
	io_uring_sqe_set_data64(sqe, TIMEOUT_ID);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_splice(sqe, fd, splice_off, sp[1], -1, WL_PAGE, 0);
	io_uring_sqe_set_data64(sqe, SPLICE_ID);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_statx(sqe, AT_FDCWD, f.path, 0, STATX_SIZE, &stx);
	io_uring_sqe_set_data64(sqe, STATX_ID);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data64(sqe, NOP_ID);

	st.submitted = wl_uring_submit_all(&ring, n);
	if (st.submitted != n)
		st.errors++;
	if (write(pp[1], "x", 1) != 1)	/* fires the poll */
		wl_die("write pipe", errno);

	while (st.completed < st.submitted) {
		struct io_uring_cqe *cqe = wl_uring_wait(&ring);
		uint64_t id = cqe->user_data;
		int ret = cqe->res;
		bool ok;

		st.completed++;
		if (id > NOP_ID || (id >= o.count && id < POLL_ID) || seen[id]++) {
			ok = false;
		} else if (id < o.count) {
			ok = ret == WL_PAGE && !wl_verify(&f, bufs + id * WL_PAGE,
							 id * STRIDE, WL_PAGE);
		} else if (id == POLL_ID) {
			ok = ret > 0 && (ret & POLLIN);
		} else if (id == TIMEOUT_ID) {
			ok = ret == -ETIME;
		} else if (id == SPLICE_ID) {
			ok = ret == WL_PAGE &&
			     read(sp[0], sbuf, sizeof(sbuf)) == WL_PAGE &&
			     !wl_verify(&f, sbuf, splice_off, WL_PAGE);
		} else if (id == STATX_ID) {
			ok = ret == 0 && (stx.stx_mask & STATX_SIZE) &&
			     stx.stx_size == f.size;
		} else {
			ok = ret == 0;
		}
		if (!ok) {
			fprintf(stderr, "CQE user_data %" PRIu64 " res %d: unexpected\n", id, ret);
			st.errors++;
		} else {
			st.verified++;
			if ((id < o.count || id == SPLICE_ID) && ret > 0)
				st.bytes += ret;
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	printf("# expect: io_uring sqes=%u submit_req=%u (read %u poll 1 timeout 1 splice 1"
	       " statx 1 nop 1) cqes=%u res_negative=1\n", n, n, o.count, n);
	io_uring_queue_exit(&ring);
	return wl_finish(&o, "io_uring", &st);
}
