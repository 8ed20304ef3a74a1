// SPDX-License-Identifier: GPL-2.0
/* libwl: io_uring setup (with kselftest skips), submit, reap. */
#include "wl.h"

void wl_uring_setup(unsigned entries, struct io_uring *ring)
{
	int ret = io_uring_queue_init(entries, ring, 0);

	if (ret == -ENOSYS || ret == -EPERM)
		wl_skip("io_uring unavailable: io_uring_queue_init", -ret);
	if (ret < 0)
		wl_die("io_uring_queue_init", -ret);
}

unsigned wl_uring_submit_all(struct io_uring *ring, unsigned n)
{
	unsigned done = 0;

	while (done < n) {
		int ret = io_uring_submit(ring);

		if (ret == -EINTR || ret == -EAGAIN)
			continue;
		if (ret <= 0) {
			fprintf(stderr, "io_uring_submit: %s\n",
				strerror(ret ? -ret : EIO));
			break;
		}
		done += ret;
	}
	return done;
}

struct io_uring_cqe *wl_uring_wait(struct io_uring *ring)
{
	for (;;) {
		/* Kernels with IORING_FEAT_EXT_ARG: no extra timeout SQE. */
		struct __kernel_timespec ts = { WL_TIMEOUT_S, 0 };
		struct io_uring_cqe *cqe;
		int ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);

		if (ret == -EINTR)
			continue;
		if (ret < 0)
			wl_die("io_uring_wait_cqe", -ret);
		return cqe;
	}
}

void wl_uring_reap(struct io_uring *ring, struct wl_stats *st,
		   struct wl_reap *r)
{
	while (st->completed < st->submitted) {
		/* not wl_uring_wait(): a timeout here is a counted error */
		struct __kernel_timespec ts = { WL_TIMEOUT_S, 0 };
		struct io_uring_cqe *cqe;
		int ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);

		if (ret == -EINTR)
			continue;
		if (ret < 0) {
			fprintf(stderr, "io_uring_wait_cqe: %s with %" PRIu64 " in flight\n",
				strerror(-ret), st->submitted - st->completed);
			st->errors++;
			return;
		}
		wl_account(st, r, cqe->user_data, cqe->res);
		io_uring_cqe_seen(ring, cqe);
	}
}

void wl_uring_expect_idle(struct io_uring *ring, struct wl_stats *st,
			  struct wl_reap *r)
{
	struct io_uring_cqe *cqe;

	while (io_uring_peek_cqe(ring, &cqe) == 0) {
		fprintf(stderr, "unexpected extra CQE user_data=%llu res=%d\n",
			(unsigned long long)cqe->user_data, cqe->res);
		wl_account(st, r, cqe->user_data, cqe->res);
		io_uring_cqe_seen(ring, cqe);
	}
}

void wl_uring_reads(struct wl_reads *c, struct io_uring *ring, int fd,
		    struct wl_stats *st)
{
	unsigned done;

	for (unsigned i = 0; i < c->n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
		const struct wl_rd *q = &c->rd[i];

		if (q->niov)
			io_uring_prep_readv(sqe, fd, q->iov, q->niov, q->off);
		else
			io_uring_prep_read(sqe, fd, q->buf, q->len, q->off);
		io_uring_sqe_set_data64(sqe, i);
	}
	done = wl_uring_submit_all(ring, c->n);
	st->submitted += done;
	if (done < c->n)
		st->errors++;
	wl_uring_reap(ring, st, &c->reap);
	wl_uring_expect_idle(ring, st, &c->reap);
	io_uring_queue_exit(ring);
}
