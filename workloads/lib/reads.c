// SPDX-License-Identifier: GPL-2.0
/* libwl: the read cases, one request table for both engines. */
#include "wl.h"

#define WL_BATCH_STRIDE		(64u * 1024)
#define WL_UNALIGNED_SIZE	((1u << 20) + 555)	/* EOF mid-page */
/* iovec layout for the vectored cases: odd sizes, odd buffer addresses. */
#define WL_NIOV			12	/* segments of an odd request */
#define WL_NIOV_FAST		5	/* of an even one (<= UIO_FASTIOV) */
#define WL_IOV_SLOT		(16u * 1024)	/* per-request buffer space */

int wl_rd_check(uint64_t id, long res, void *arg)
{
	const struct wl_reads *c = arg;
	const struct wl_rd *q = &c->rd[id];
	size_t want = wl_expected_res(&c->f, q->off, q->len);

	if (res != (long)want) {
		fprintf(stderr, "read %" PRIu64 " at %" PRIu64 "+%zu: res %ld, want %zu\n",
			id, q->off, q->len, res, want);
		return -1;
	}
	if (q->niov)
		return wl_verify_iov(&c->f, q->iov, q->niov, q->off, want);
	return wl_verify(&c->f, q->buf, q->off, want) ||
	       wl_check_tail(q->buf, want, q->len);
}

void wl_reads_init(struct wl_reads *c, unsigned n, size_t slot)
{
	c->n = n;
	c->rd = calloc(n, sizeof(*c->rd));
	c->bufs = wl_alloc((size_t)n * slot);
	c->reap = (struct wl_reap){ .nreq = n, .seen = calloc(n, 1),
				    .check = wl_rd_check, .arg = c };
	if (!c->rd || !c->reap.seen)
		wl_die("calloc", ENOMEM);
}

void wl_reads_free(struct wl_reads *c)
{
	free(c->rd);
	free(c->bufs);
	free(c->reap.seen);
	c->rd = NULL;
	c->bufs = NULL;
	c->reap.seen = NULL;
}

void wl_strided_reads(struct wl_reads *c, unsigned n, uint64_t stride,
		      size_t len)
{
	wl_reads_init(c, n, len);
	for (unsigned i = 0; i < n; i++)
		c->rd[i] = (struct wl_rd){ .off = i * stride, .len = len,
					   .buf = c->bufs + (size_t)i * len };
}

int wl_reads_file(const struct wl_opts *o, struct wl_reads *c)
{
	wl_create(&c->f, o->dir, o->name);
	return wl_open_cold(&c->f, O_RDONLY);
}

int wl_batch_case(const struct wl_opts *o, struct wl_reads *c)
{
	uint64_t stride = o->size_set ?
		(o->size / o->count) & ~(uint64_t)(WL_PAGE - 1) : WL_BATCH_STRIDE;

	if (stride < WL_PAGE) {
		fprintf(stderr, "-s too small for %u distinct 4 KiB reads\n", o->count);
		exit(EXIT_USAGE);
	}
	c->f.size = o->size_set ? o->size : (uint64_t)o->count * WL_BATCH_STRIDE;
	wl_strided_reads(c, o->count, stride, WL_PAGE);
	return wl_reads_file(o, c);
}

/*
 * Request i of n for the *_read_unaligned cases: offset 4096*k+123 and
 * length 3000..9000, except the last two: one crossing EOF (short read of
 * 1000 bytes) and one wholly beyond EOF (res 0).  Needs size >= 16 KiB.
 */
static void wl_unaligned_req(const struct wl_file *f, unsigned i, unsigned n,
			     uint64_t *off, size_t *len)
{
	uint64_t pages = f->size / WL_PAGE;

	if (i == n - 2) {
		*off = f->size - 1000;
		*len = 4000;
	} else if (i == n - 1) {
		*off = f->size + 5000;
		*len = 4096;
	} else {
		*off = WL_PAGE * wl_rand(f->seed, i, pages - 3) + 123;
		*len = 3000 + wl_rand(~f->seed, i, 6001);
	}
}

int wl_unaligned_case(const struct wl_opts *o, struct wl_reads *c)
{
	const size_t slot = 16u * 1024;

	c->f.size = o->size_set ? o->size : WL_UNALIGNED_SIZE;
	if (o->count < 3 || c->f.size < 16 * 1024) {
		fprintf(stderr, "need -n >= 3 and -s >= 16k\n");
		exit(EXIT_USAGE);
	}
	wl_reads_init(c, o->count, slot);
	for (unsigned i = 0; i < c->n; i++) {
		struct wl_rd *q = &c->rd[i];

		wl_unaligned_req(&c->f, i, c->n, &q->off, &q->len);
		q->buf = c->bufs + (size_t)i * slot + 1 + i % 61;	/* unaligned */
	}
	return wl_reads_file(o, c);
}

/* Request i's iovecs in its slot; returns their total length. */
/*
 * Odd requests scatter into more segments than UIO_FASTIOV (8): the
 * kernel then imports the iovec array into kmalloc()ed memory, which an
 * asynchronous request takes over (and must free exactly once); even ones
 * use the on-stack array, which it must copy before io_submit() returns.
 */
static unsigned wl_iov_count(unsigned i)
{
	return i % 2 ? WL_NIOV : WL_NIOV_FAST;
}

static size_t wl_iov_layout(char *slot, unsigned i, struct iovec *iov)
{
	static const size_t sizes[WL_NIOV] = {
		1000, 3, 4096, 777, 2221, 512, 1, 300, 4096, 17, 900, 64
	};
	size_t total = 0, pos = 1 + i % 7;	/* start unaligned */
	unsigned n = wl_iov_count(i);

	for (unsigned k = 0; k < n; k++) {
		iov[k].iov_base = slot + pos;
		iov[k].iov_len = sizes[k] + (k == n - 1 ? i % 13 : 0);
		pos += iov[k].iov_len + 5;	/* gap: segments never touch */
		total += iov[k].iov_len;
	}
	return total;
}

int wl_iov_case(const struct wl_opts *o, struct wl_reads *c)
{
	struct iovec *iov;

	c->f.size = o->size_set ? o->size : 4u << 20;
	if (o->count < 2 || c->f.size < 64 * 1024) {
		fprintf(stderr, "need -n >= 2 and -s >= 64k\n");
		exit(EXIT_USAGE);
	}
	wl_reads_init(c, o->count, WL_IOV_SLOT);
	iov = calloc((size_t)c->n * WL_NIOV, sizeof(*iov));
	if (!iov)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < c->n; i++) {
		struct wl_rd *q = &c->rd[i];

		q->iov = iov + (size_t)i * WL_NIOV;
		q->niov = wl_iov_count(i);
		q->len = wl_iov_layout(c->bufs + (size_t)i * WL_IOV_SLOT, i, q->iov);
		q->off = i == c->n - 1 ? c->f.size - q->len / 2 :	/* crosses EOF */
			 WL_PAGE * wl_rand(c->f.seed, i, c->f.size / WL_PAGE - 3) +
			 (i * 37) % WL_PAGE;
	}
	return wl_reads_file(o, c);
}

int wl_reads_main(int argc, char **argv, struct wl_opts *o, struct wl_reads *c,
		  const char *help, wl_case_fn make, enum wl_engine engine)
{
	struct wl_stats st = { 0 };
	struct io_uring ring;
	int fd;

	wl_getopt(argc, argv, o, help, NULL, NULL);
	if (engine == WL_IO_URING)
		wl_uring_setup(o->count, &ring);	/* skip before creating files */
	fd = make(o, c);
	if (engine == WL_IO_URING)
		wl_uring_reads(c, &ring, fd, &st);
	else
		wl_aio_reads(c, fd, &st);
	close(fd);
	return wl_finish(o, engine == WL_IO_URING ? "io_uring" : "libaio", &st);
}
