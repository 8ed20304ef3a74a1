// SPDX-License-Identifier: GPL-2.0
/*
 * aio_preadv: IOCB_CMD_PREADV vectored buffered reads from a cold file.
 * Each of COUNT (default 32) requests scatters into five iovecs of odd
 * sizes (1000, 3, 4096, 777, 2221+) at odd addresses, from an unaligned
 * file offset; the last request crosses EOF and must come back short.
 * Every segment is verified, and bytes past a short result stay untouched.
 *
 * A retried vectored read must resume in the middle of the right iovec.
 */
#include "common.h"

static const char help[] =
	"COUNT (32) cold IOCB_CMD_PREADV reads, 5 odd-sized iovecs each, verified.\n"
	"  -s FILESIZE  file size (default 4m)\n";

struct ctx {
	struct wl_file f;
	struct iovec *iov;	/* WL_NIOV per request */
	unsigned n;
};

static uint64_t req_off(const struct ctx *c, unsigned i, size_t total)
{
	if (i == c->n - 1)
		return c->f.size - total / 2;	/* crosses EOF */
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
		fprintf(stderr, "preadv %" PRIu64 " at %" PRIu64 "+%zu: res %ld, want %zu\n",
			id, off, total, res, want);
		return -1;
	}
	return wl_verify_iov(&c->f, iov, WL_NIOV, off, want);
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_preadv", .count = 32 };
	struct ctx c = { .f.seed = 0x1f0 };
	struct wl_stats st = { 0 };
	struct wl_reap r = { .check = check, .arg = &c };
	struct iocb *cbs, **ptrs;
	io_context_t ctx;
	char *bufs;
	int fd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	c.f.size = o.size_set ? o.size : 4u << 20;
	if (o.count < 2 || c.f.size < 64 * 1024) {
		fprintf(stderr, "need -n >= 2 and -s >= 64k\n");
		return WL_USAGE;
	}
	c.n = r.nreq = o.count;
	wl_create(&c.f, o.dir, o.name);
	fd = wl_open_cold(&c.f, O_RDONLY);

	wl_aio_setup(o.count, &ctx);
	cbs = calloc(o.count, sizeof(*cbs));
	ptrs = calloc(o.count, sizeof(*ptrs));
	c.iov = calloc((size_t)o.count * WL_NIOV, sizeof(*c.iov));
	r.seen = calloc(o.count, 1);
	bufs = wl_alloc((size_t)o.count * WL_IOV_SLOT);
	if (!cbs || !ptrs || !c.iov || !r.seen)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < o.count; i++) {
		struct iovec *iov = c.iov + (size_t)i * WL_NIOV;
		size_t total = wl_iov_layout(bufs + (size_t)i * WL_IOV_SLOT, i, iov);

		io_prep_preadv(&cbs[i], fd, iov, WL_NIOV, req_off(&c, i, total));
		cbs[i].data = (void *)(uintptr_t)i;
		ptrs[i] = &cbs[i];
	}

	st.submitted = wl_aio_submit_all(ctx, ptrs, o.count);
	if (st.submitted < o.count)
		st.errors++;
	wl_aio_reap(ctx, &st, &r);
	wl_aio_expect_idle(ctx, &st, &r);

	io_destroy(ctx);
	close(fd);
	return wl_finish(&o, "libaio", &st);
}
