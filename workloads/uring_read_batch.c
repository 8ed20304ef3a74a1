// SPDX-License-Identifier: GPL-2.0
/*
 * uring_read_batch: the io_uring twin of aio_read_batch.  COUNT (default
 * 64) cold 4 KiB buffered IORING_OP_READs at distinct page-aligned offsets
 * (64 KiB apart, readahead off), queued and sent with one io_uring_submit;
 * CQEs are checked exactly once by user_data and every byte is verified.
 *
 * Expected on 5.9+: no page-wait sleep in the submitting task; reads arm a
 * wait_page_queue (IOCB_WAITQ) and complete via task_work, or are punted to
 * io-wq when they cannot be armed.
 */
#include "common.h"

#define RSIZE		4096u
#define STRIDE		(64u * 1024)

static const char help[] =
	"One io_uring_submit of COUNT (64) cold 4 KiB buffered reads, verified.\n"
	"  -s FILESIZE  file size; requests are spread evenly (default COUNT*64k)\n";

struct ctx {
	struct wl_file f;
	char *bufs;
	uint64_t stride;
};

static int check(uint64_t id, long res, void *arg)
{
	struct ctx *c = arg;
	uint64_t off = id * c->stride;

	if (res != RSIZE) {
		fprintf(stderr, "read %" PRIu64 " at %" PRIu64 ": res %ld, want %u\n",
			id, off, res, RSIZE);
		return -1;
	}
	return wl_verify(&c->f, c->bufs + id * RSIZE, off, RSIZE);
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_read_batch", .count = 64 };
	struct ctx c = { .f.seed = 0xba7c4 };
	struct wl_stats st = { 0 };
	struct wl_reap r = { .check = check, .arg = &c };
	struct io_uring ring;
	int fd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	c.stride = o.size_set ? (o.size / o.count) & ~(uint64_t)(WL_PAGE - 1) : STRIDE;
	if (c.stride < RSIZE) {
		fprintf(stderr, "-s too small for %u distinct 4 KiB reads\n", o.count);
		return WL_USAGE;
	}
	c.f.size = o.size_set ? o.size : (uint64_t)o.count * STRIDE;
	wl_uring_setup(o.count, &ring);	/* skip before creating files */
	wl_create(&c.f, o.dir, o.name);
	fd = wl_open_cold(&c.f, O_RDONLY);

	r.nreq = o.count;
	r.seen = calloc(o.count, 1);
	c.bufs = wl_alloc((size_t)o.count * RSIZE);
	if (!r.seen)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < o.count; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		io_uring_prep_read(sqe, fd, c.bufs + (size_t)i * RSIZE, RSIZE,
				   i * c.stride);
		io_uring_sqe_set_data64(sqe, i);
	}

	st.submitted = wl_uring_submit_all(&ring, o.count);
	if (st.submitted < o.count)
		st.errors++;
	wl_uring_reap(&ring, &st, &r);
	wl_uring_expect_idle(&ring, &st, &r);

	io_uring_queue_exit(&ring);
	close(fd);
	return wl_finish(&o, "io_uring", &st);
}
