// SPDX-License-Identifier: GPL-2.0
/*
 * aio_read_unaligned: libaio buffered reads at unaligned offsets
 * (4096*k+123) and lengths (3000..9000 bytes) into unaligned buffers, from
 * a cold file whose size ends mid-page (1 MiB + 555 by default).  The last
 * two requests check EOF handling: one crosses EOF and must return exactly
 * the bytes up to EOF, one starts beyond EOF and must return 0.  Every byte
 * is verified, and bytes past each result must be left untouched.
 *
 * A retry that resumes at the wrong position, or copies a whole page where
 * a partial one was asked for, shows up here.
 */
#include "common.h"

#define SLOT	(16u * 1024)	/* buffer space per request */

static const char help[] =
	"COUNT (32) unaligned cold buffered reads incl. two EOF cases, verified.\n";

struct ctx {
	struct wl_file f;
	char *bufs;
	unsigned n;
};

static char *req_buf(struct ctx *c, unsigned i)
{
	return c->bufs + (size_t)i * SLOT + 1 + i % 61;	/* unaligned */
}

static int check(uint64_t id, long res, void *arg)
{
	struct ctx *c = arg;
	uint64_t off;
	size_t len, want;

	wl_unaligned_req(&c->f, id, c->n, &off, &len);
	want = wl_expected_res(&c->f, off, len);
	if (res != (long)want) {
		fprintf(stderr, "read %" PRIu64 " at %" PRIu64 "+%zu: res %ld, want %zu\n",
			id, off, len, res, want);
		return -1;
	}
	return wl_verify(&c->f, req_buf(c, id), off, want) ||
	       wl_check_tail(req_buf(c, id), want, len);
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_read_unaligned", .count = 32 };
	struct ctx c = { .f.seed = 0x0dd };
	struct wl_stats st = { 0 };
	struct wl_reap r = { .check = check, .arg = &c };
	struct iocb *cbs, **ptrs;
	io_context_t ctx;
	int fd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	c.f.size = o.size_set ? o.size : WL_UNALIGNED_SIZE;
	if (o.count < 3 || c.f.size < 16 * 1024) {
		fprintf(stderr, "need -n >= 3 and -s >= 16k\n");
		return WL_USAGE;
	}
	c.n = r.nreq = o.count;
	wl_create(&c.f, o.dir, o.name);
	fd = wl_open_cold(&c.f, O_RDONLY);

	wl_aio_setup(o.count, &ctx);
	cbs = calloc(o.count, sizeof(*cbs));
	ptrs = calloc(o.count, sizeof(*ptrs));
	r.seen = calloc(o.count, 1);
	c.bufs = wl_alloc((size_t)o.count * SLOT);
	if (!cbs || !ptrs || !r.seen)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < o.count; i++) {
		uint64_t off;
		size_t len;

		wl_unaligned_req(&c.f, i, c.n, &off, &len);
		io_prep_pread(&cbs[i], fd, req_buf(&c, i), len, off);
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
