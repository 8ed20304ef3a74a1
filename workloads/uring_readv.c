// SPDX-License-Identifier: GPL-2.0
/*
 * uring_readv: the io_uring twin of aio_preadv.  COUNT (default 32) cold
 * buffered IORING_OP_READV requests, each scattering into five iovecs of
 * odd sizes at odd addresses from an unaligned offset; the last crosses EOF
 * and must come back short.  CQEs are checked exactly once by user_data.
 *
 * io_uring imports the iovec array into per-request async data, so a retry
 * or an io-wq punt must resume from that copy, advanced past what was
 * already read.
 */
#include "common.h"

static const char help[] =
	"COUNT (32) cold IORING_OP_READV reads, 5 odd-sized iovecs each, verified.\n"
	"  -s FILESIZE  file size (default 4m)\n";

struct ctx {
	struct wl_file f;
	struct iovec *iov;
	unsigned n;
};

static uint64_t req_off(const struct ctx *c, unsigned i, size_t total)
{
	if (i == c->n - 1)
		return c->f.size - total / 2;
	return WL_PAGE * wl_rand(c->f.seed, i, c->f.size / WL_PAGE - 3) +
	       (i * 37) % WL_PAGE;
}

static size_t iov_total(const struct iovec *iov)
{
	size_t t = 0;

	for (unsigned k = 0; k < WL_NIOV; k++)
		t += iov[k].iov_len;
	return t;
}

static int check(uint64_t id, long res, void *arg)
{
	struct ctx *c = arg;
	const struct iovec *iov = c->iov + id * WL_NIOV;
	size_t total = iov_total(iov);
	uint64_t off = req_off(c, id, total);
	size_t want = wl_expected_res(&c->f, off, total);

	if (res != (long)want) {
		fprintf(stderr, "readv %" PRIu64 " at %" PRIu64 "+%zu: res %ld, want %zu\n",
			id, off, total, res, want);
		return -1;
	}
	return wl_verify_iov(&c->f, iov, WL_NIOV, off, want);
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_readv", .count = 32 };
	struct ctx c = { .f.seed = 0x1f0 };
	struct wl_stats st = { 0 };
	struct wl_reap r = { .check = check, .arg = &c };
	struct io_uring ring;
	char *bufs;
	int fd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	c.f.size = o.size_set ? o.size : 4u << 20;
	if (o.count < 2 || c.f.size < 64 * 1024) {
		fprintf(stderr, "need -n >= 2 and -s >= 64k\n");
		return WL_USAGE;
	}
	c.n = r.nreq = o.count;
	wl_uring_setup(o.count, &ring);
	wl_create(&c.f, o.dir, o.name);
	fd = wl_open_cold(&c.f, O_RDONLY);

	c.iov = calloc((size_t)o.count * WL_NIOV, sizeof(*c.iov));
	r.seen = calloc(o.count, 1);
	bufs = wl_alloc((size_t)o.count * WL_IOV_SLOT);
	if (!c.iov || !r.seen)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < o.count; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct iovec *iov = c.iov + (size_t)i * WL_NIOV;
		size_t total = wl_iov_layout(bufs + (size_t)i * WL_IOV_SLOT, i, iov);

		io_uring_prep_readv(sqe, fd, iov, WL_NIOV, req_off(&c, i, total));
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
