// SPDX-License-Identifier: GPL-2.0
/*
 * aio_cancel_inflight: io_cancel each of COUNT (default 64) cold 16 KiB
 * buffered libaio reads while in flight, reap half of them, then io_destroy
 * the context with the rest unreaped.  A second context with COUNT/4 reads
 * in flight across that io_destroy must complete normally, and the
 * abandoned iocbs are then submitted again in a third context.  Every
 * request reaped is verified.
 *
 * Stock kernels have no ki_cancel for reads: io_cancel returns -EINVAL.  A
 * kernel that cancels (-EINPROGRESS, or 0 before 4.19) must still deliver
 * one io_event, -ECANCELED or a correct (possibly short) read.  io_destroy
 * waits for every request of the context; afterwards the kernel must not
 * write to their buffers any more (checked twice, 20 ms apart), and what it
 * wrote before is correct data or untouched.  The unreaped requests are
 * reported as abandoned=N; the harness joins that with the trace.
 */
#include <sys/syscall.h>

#include "lib/wl.h"

#define RSIZE		(16u * 1024)
#define STRIDE		(64u * 1024)

static const char help[] =
	"COUNT (64) cold reads io_cancel'ed in flight, half reaped, then io_destroy.\n"
	"  -s FILESIZE  file size, >= (COUNT+COUNT/4)*64k (the default)\n";

static unsigned char *cancelled;	/* io_cancel accepted request i */

/* A cancelled read may end with -ECANCELED or with what it read so far. */
static int check(uint64_t id, long res, void *arg)
{
	const struct wl_reads *c = arg;
	const struct wl_rd *q = &c->rd[id];

	if (!cancelled[id])
		return wl_rd_check(id, res, arg);
	if (res == -ECANCELED)
		return 0;
	if (res < 0 || res > (long)q->len) {
		fprintf(stderr, "cancelled read %" PRIu64 ": res %ld\n", id, res);
		return -1;
	}
	return wl_verify(&c->f, q->buf, q->off, res) ||
	       wl_check_tail(q->buf, res, q->len);
}

/* io_cancel every iocb, last submitted first; counts by return value. */
static void cancel_all(io_context_t ctx, struct iocb *cbs, unsigned n,
		       struct wl_stats *st)
{
	unsigned einval = 0, accepted = 0, other = 0;

	for (unsigned i = n; i-- > 0;) {
		struct io_event ev;
		int ret = io_cancel(ctx, &cbs[i], &ev);	/* libaio: -errno */

		if (ret == -EINVAL || ret == -EAGAIN) {
			einval++;	/* not cancellable, or already done */
		} else if (ret == -EINPROGRESS || ret == 0) {
			cancelled[(uintptr_t)cbs[i].data] = 1;
			accepted++;
		} else {
			fprintf(stderr, "io_cancel of request %u: %s\n", i, strerror(-ret));
			other++;
		}
	}
	st->errors += other;
	printf("# cancel: %u io_cancel calls: %u -EINVAL/-EAGAIN (not cancellable), "
	       "%u accepted, %u unexpected\n", n, einval, accepted, other);
}

/* After io_destroy: the abandoned buffers hold correct bytes or 0xa5, and
 * stay as they are (nothing may write into them any more). */
static void check_abandoned(const struct wl_reads *c, unsigned n, struct wl_stats *st)
{
	const struct timespec pause = { 0, 20 * 1000 * 1000 };
	char *snap = malloc((size_t)n * RSIZE);
	unsigned bad = 0;

	if (!snap)
		wl_die("malloc", ENOMEM);
	memcpy(snap, c->bufs, (size_t)n * RSIZE);
	for (unsigned i = 0; i < n; i++) {
		const struct wl_rd *q = &c->rd[i];

		if (c->reap.seen[i])
			continue;
		for (size_t k = 0; k < q->len; k++)
			if ((uint8_t)q->buf[k] != 0xa5 &&
			    (uint8_t)q->buf[k] != wl_expected(&c->f, q->off + k)) {
				fprintf(stderr, "abandoned read %u: garbage at +%zu\n", i, k);
				bad++;
				break;
			}
	}
	nanosleep(&pause, NULL);
	if (memcmp(snap, c->bufs, (size_t)n * RSIZE)) {
		fprintf(stderr, "a buffer changed after io_destroy returned\n");
		bad++;
	}
	free(snap);
	st->errors += bad;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_cancel_inflight", .count = 64 };
	struct wl_reads c = { .f.seed = 0xca9c };
	struct wl_stats st = { 0 };
	struct timespec t0, t1;
	unsigned n, m, half, sub, left, k;
	io_context_t a, b, again;
	struct iocb *cbs, **ptrs;
	long ret;
	int fd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	n = o.count;
	m = n / 4 ? n / 4 : 1;
	c.f.size = o.size_set ? o.size : (uint64_t)(n + m) * STRIDE;
	if (n < 2 || c.f.size < (uint64_t)(n + m) * STRIDE) {
		fprintf(stderr, "need -n >= 2 and -s >= (COUNT+COUNT/4)*64k\n");
		return EXIT_USAGE;
	}
	/* requests 0..n-1 go to context a, n..n+m-1 to context b */
	wl_strided_reads(&c, n + m, STRIDE, RSIZE);
	c.reap.check = check;
	cancelled = calloc(n + m, 1);
	if (!cancelled)
		wl_die("calloc", ENOMEM);
	fd = wl_reads_file(&o, &c);
	cbs = wl_aio_prep_reads(&c, fd);
	ptrs = calloc(n, sizeof(*ptrs));
	if (!ptrs)
		wl_die("calloc", ENOMEM);
	wl_aio_setup(n, &a);
	wl_aio_setup(m, &b);

	sub = wl_aio_submit_iocbs(a, cbs, n, &st);
	cancel_all(a, cbs, sub, &st);
	wl_aio_submit_iocbs(b, cbs + n, m, &st);
	half = sub / 2;
	wl_aio_reap_n(a, &st, &c.reap, half);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = io_destroy(a);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret)
		wl_die("io_destroy", -ret);
	left = sub - half;
	st.abandoned += left;
	printf("# io_destroy with %u of %u requests unreaped: %.1f ms\n", left, sub,
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	/* The context is gone (raw syscall: libaio would read its ring). */
	ret = syscall(__NR_io_getevents, a, 0, 1, NULL, NULL);
	if (ret != -1 || errno != EINVAL) {
		fprintf(stderr, "io_getevents on a destroyed context: %ld (%s)\n", ret,
			strerror(errno));
		st.errors++;
	}
	check_abandoned(&c, n, &st);

	/* The other context did not notice. */
	wl_aio_reap(b, &st, &c.reap);
	wl_aio_expect_idle(b, &st, &c.reap);
	io_destroy(b);

	/* The abandoned requests again from the same iocbs (the tracer sees
	 * the same addresses), fresh buffers, cold, in a new context. */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	wl_aio_setup(n, &again);
	k = 0;
	for (unsigned i = 0; i < sub; i++) {
		if (c.reap.seen[i])
			continue;
		memset(c.rd[i].buf, 0xa5, RSIZE);
		cancelled[i] = 0;
		ptrs[k++] = &cbs[i];
	}
	k = wl_aio_submit(again, ptrs, left, &st);
	wl_aio_reap_n(again, &st, &c.reap, k);
	wl_aio_expect_idle(again, &st, &c.reap);
	io_destroy(again);

	close(fd);
	return wl_finish(&o, "libaio", &st);
}
