// SPDX-License-Identifier: GPL-2.0
/*
 * aio_read_batch: one io_submit() of COUNT (default 64) cold 4 KiB buffered
 * reads at distinct, page-aligned offsets (64 KiB apart, readahead off), then
 * io_getevents() until every one is reaped; every byte is verified.
 *
 * On a stock kernel io_submit sleeps once per request in
 * folio_wait_bit_common (aio_read is synchronous for buffered files); with
 * FSAIO it should return at once and complete each request via retry.
 */
#include "common.h"

#define RSIZE		4096u
#define STRIDE		(64u * 1024)

static const char help[] =
	"One io_submit of COUNT (64) cold 4 KiB buffered reads, all verified.\n"
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
	struct wl_opts o = { .name = "aio_read_batch", .count = 64 };
	struct ctx c = { .f.seed = 0xba7c4 };
	struct wl_stats st = { 0 };
	struct wl_reap r = { .check = check, .arg = &c };
	struct iocb *cbs, **ptrs;
	io_context_t ctx;
	int fd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	c.stride = o.size_set ? (o.size / o.count) & ~(uint64_t)(WL_PAGE - 1) : STRIDE;
	if (c.stride < RSIZE) {
		fprintf(stderr, "-s too small for %u distinct 4 KiB reads\n", o.count);
		return WL_USAGE;
	}
	c.f.size = o.size_set ? o.size : (uint64_t)o.count * STRIDE;
	wl_create(&c.f, o.dir, o.name);
	fd = wl_open_cold(&c.f, O_RDONLY);

	wl_aio_setup(o.count, &ctx);
	cbs = calloc(o.count, sizeof(*cbs));
	ptrs = calloc(o.count, sizeof(*ptrs));
	r.seen = calloc(o.count, 1);
	c.bufs = wl_alloc((size_t)o.count * RSIZE);
	if (!cbs || !ptrs || !r.seen)
		wl_die("calloc", ENOMEM);
	r.nreq = o.count;
	for (unsigned i = 0; i < o.count; i++) {
		io_prep_pread(&cbs[i], fd, c.bufs + (size_t)i * RSIZE, RSIZE,
			      i * c.stride);
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
