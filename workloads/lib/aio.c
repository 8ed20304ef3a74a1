// SPDX-License-Identifier: GPL-2.0
/* libwl: libaio setup (with kselftest skips), submit, reap. */
#include "wl.h"

void wl_aio_setup(unsigned depth, io_context_t *ctx)
{
	int ret;

	*ctx = 0;
	ret = io_setup(depth, ctx);	/* libaio returns -errno */
	if (ret == -ENOSYS || ret == -EPERM)
		wl_skip("libaio unavailable: io_setup", -ret);
	if (ret == -EAGAIN)
		wl_die("io_setup (raise /proc/sys/fs/aio-max-nr)", -ret);
	if (ret < 0)
		wl_die("io_setup", -ret);
}

unsigned wl_aio_submit_all(io_context_t ctx, struct iocb **iocbs, unsigned n)
{
	unsigned done = 0;

	while (done < n) {
		int ret = io_submit(ctx, n - done, iocbs + done);

		if (ret == -EINTR || ret == -EAGAIN)
			continue;
		if (ret <= 0) {
			fprintf(stderr, "io_submit: %s\n", strerror(ret ? -ret : EIO));
			break;
		}
		done += ret;
	}
	return done;
}

unsigned wl_aio_submit(io_context_t ctx, struct iocb **iocbs, unsigned n,
		       struct wl_stats *st)
{
	unsigned done = wl_aio_submit_all(ctx, iocbs, n);

	st->submitted += done;
	if (done < n)
		st->errors++;
	return done;
}

unsigned wl_aio_submit_iocbs(io_context_t ctx, struct iocb *cbs, unsigned n,
			     struct wl_stats *st)
{
	struct iocb **ptrs = calloc(n, sizeof(*ptrs));
	unsigned done;

	if (!ptrs)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < n; i++)
		ptrs[i] = &cbs[i];
	done = wl_aio_submit(ctx, ptrs, n, st);
	free(ptrs);
	return done;
}

void wl_aio_account(struct wl_stats *st, struct wl_reap *r,
		    const struct io_event *ev, int n)
{
	for (int i = 0; i < n; i++)
		wl_account(st, r, (uintptr_t)ev[i].data, (long)ev[i].res);
}

void wl_aio_reap_n(io_context_t ctx, struct wl_stats *st, struct wl_reap *r,
		   uint64_t nr)
{
	struct io_event ev[64];

	while (nr) {
		struct timespec ts = { WL_TIMEOUT_S, 0 };
		int n = io_getevents(ctx, 1, nr < 64 ? nr : 64, ev, &ts);

		if (n == -EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "io_getevents: %s with %" PRIu64 " in flight\n",
				n ? strerror(-n) : "timed out", nr);
			st->errors++;
			return;
		}
		wl_aio_account(st, r, ev, n);
		nr -= n;
	}
}

uint64_t wl_aio_reap_within(io_context_t ctx, struct wl_stats *st,
			    struct wl_reap *r, uint64_t nr, int deadline_s)
{
	struct io_event ev[64];
	uint64_t got = 0;
	double t0 = wl_now();

	while (got < nr && wl_now() - t0 < deadline_s) {
		struct timespec ts = { 0, 200 * 1000 * 1000 };
		int n = io_getevents(ctx, 1, nr - got < 64 ? nr - got : 64, ev, &ts);

		if (n > 0) {
			wl_aio_account(st, r, ev, n);
			got += n;
		} else if (n < 0 && n != -EINTR) {
			break;
		}
	}
	return got;
}

void wl_aio_reap(io_context_t ctx, struct wl_stats *st, struct wl_reap *r)
{
	wl_aio_reap_n(ctx, st, r, st->submitted - st->completed - st->abandoned);
}

void wl_aio_expect_idle(io_context_t ctx, struct wl_stats *st,
			struct wl_reap *r)
{
	struct timespec zero = { 0, 0 };
	struct io_event ev[8];
	int n = io_getevents(ctx, 0, 8, ev, &zero);

	if (n > 0) {
		fprintf(stderr, "%d unexpected extra io_events\n", n);
		wl_aio_account(st, r, ev, n);
	}
}

void wl_aio_run(io_context_t ctx, struct iocb *cbs, unsigned n,
		struct wl_stats *st, struct wl_reap *r)
{
	wl_aio_reap_n(ctx, st, r, wl_aio_submit_iocbs(ctx, cbs, n, st));
	wl_aio_expect_idle(ctx, st, r);
}

struct iocb *wl_aio_prep_reads(const struct wl_reads *c, int fd)
{
	struct iocb *cbs = calloc(c->n, sizeof(*cbs));

	if (!cbs)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < c->n; i++) {
		const struct wl_rd *q = &c->rd[i];

		if (q->niov)
			io_prep_preadv(&cbs[i], fd, q->iov, q->niov, q->off);
		else
			io_prep_pread(&cbs[i], fd, q->buf, q->len, q->off);
		cbs[i].data = (void *)(uintptr_t)i;
	}
	return cbs;
}

int wl_aio_cold_reads(const struct wl_file *f, unsigned n, struct wl_reads *c,
		      struct iocb **ptrs)
{
	struct iocb *cbs;
	int fd;

	c->f = *f;
	fd = wl_open_cold(f, O_RDONLY);
	wl_strided_reads(c, n, WL_PAGE, WL_PAGE);
	cbs = wl_aio_prep_reads(c, fd);
	for (unsigned i = 0; i < n; i++)
		ptrs[i] = &cbs[i];
	return fd;
}

void wl_aio_reads(struct wl_reads *c, int fd, struct wl_stats *st)
{
	struct iocb *cbs = wl_aio_prep_reads(c, fd);
	io_context_t ctx;

	wl_aio_setup(c->n, &ctx);
	wl_aio_run(ctx, cbs, c->n, st, &c->reap);
	io_destroy(ctx);
	free(cbs);
}

int wl_aio_async_mode(void)
{
	char v[8] = "";
	int fd = open("/proc/sys/fs/aio-buffered-async", O_RDONLY);

	if (fd < 0)
		return 0;
	if (read(fd, v, sizeof(v) - 1) < 0)
		v[0] = 0;
	close(fd);
	return v[0] >= '0' && v[0] <= '2' ? v[0] - '0' : 0;
}

bool wl_aio_buffered_async(void)
{
	return wl_aio_async_mode() == 2;
}
