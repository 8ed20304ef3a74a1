// SPDX-License-Identifier: GPL-2.0
/*
 * uring_read_unaligned: the io_uring twin of aio_read_unaligned.  Buffered
 * IORING_OP_READs at offsets 4096*k+123, lengths 3000..9000, into unaligned
 * buffers, from a cold file ending mid-page; the last two requests cross EOF
 * (short read up to EOF) and start beyond EOF (res 0).  CQEs are checked
 * exactly once; bytes past each result must stay untouched.
 *
 * A read spanning several pages may be partially done when it arms the
 * page wait: the retry must continue from where it stopped.
 */
#include "common.h"

#define SLOT	(16u * 1024)

static const char help[] =
	"COUNT (32) unaligned cold io_uring reads incl. two EOF cases, verified.\n";

struct ctx {
	struct wl_file f;
	char *bufs;
	unsigned n;
};

static char *req_buf(struct ctx *c, unsigned i)
{
	return c->bufs + (size_t)i * SLOT + 1 + i % 61;
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
	struct wl_opts o = { .name = "uring_read_unaligned", .count = 32 };
	struct ctx c = { .f.seed = 0x0dd };
	struct wl_stats st = { 0 };
	struct wl_reap r = { .check = check, .arg = &c };
	struct io_uring ring;
	int fd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	c.f.size = o.size_set ? o.size : WL_UNALIGNED_SIZE;
	if (o.count < 3 || c.f.size < 16 * 1024) {
		fprintf(stderr, "need -n >= 3 and -s >= 16k\n");
		return WL_USAGE;
	}
	c.n = r.nreq = o.count;
	wl_uring_setup(o.count, &ring);
	wl_create(&c.f, o.dir, o.name);
	fd = wl_open_cold(&c.f, O_RDONLY);

	r.seen = calloc(o.count, 1);
	c.bufs = wl_alloc((size_t)o.count * SLOT);
	if (!r.seen)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < o.count; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		uint64_t off;
		size_t len;

		wl_unaligned_req(&c.f, i, c.n, &off, &len);
		io_uring_prep_read(sqe, fd, req_buf(&c, i), len, off);
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
