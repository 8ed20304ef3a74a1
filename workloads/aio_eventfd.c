// SPDX-License-Identifier: GPL-2.0
/*
 * aio_eventfd: COUNT (default 64) cold 4 KiB buffered libaio reads, each
 * with io_set_eventfd(), submitted in one io_submit.  The program sleeps in
 * poll() on the eventfd, reads the counter and reaps exactly that many
 * io_events, until all are in.  The eventfd total must equal the number of
 * completions; every byte is verified.
 *
 * This is how event-loop programs consume libaio: the completion path must
 * signal the eventfd once per request, also when completing from a retry
 * worker rather than from the submitter.
 */
#include <poll.h>
#include <sys/eventfd.h>

#include "common.h"

#define RSIZE		4096u
#define STRIDE		(64u * 1024)

static const char help[] =
	"COUNT (64) cold 4 KiB reads signalled through an eventfd, verified.\n"
	"  (-s is ignored: the file is COUNT*64k)\n";

struct ctx {
	struct wl_file f;
	char *bufs;
};

static int check(uint64_t id, long res, void *arg)
{
	struct ctx *c = arg;

	if (res != RSIZE) {
		fprintf(stderr, "read %" PRIu64 ": res %ld, want %u\n", id, res, RSIZE);
		return -1;
	}
	return wl_verify(&c->f, c->bufs + id * RSIZE, id * STRIDE, RSIZE);
}

/* Wait for the eventfd; returns its counter, 0 on timeout. */
static uint64_t wait_eventfd(int efd)
{
	struct pollfd pfd = { .fd = efd, .events = POLLIN };
	uint64_t cnt;
	int ret;

	do
		ret = poll(&pfd, 1, WL_TIMEOUT_S * 1000);
	while (ret < 0 && errno == EINTR);
	if (ret <= 0)
		return 0;
	if (read(efd, &cnt, sizeof(cnt)) != sizeof(cnt))
		wl_die("read eventfd", errno);
	return cnt;
}

/* Reap exactly cnt events: the eventfd said they are there. */
static int reap_signalled(io_context_t ctx, uint64_t cnt, struct wl_stats *st,
			  struct wl_reap *r)
{
	struct io_event ev[64];

	while (cnt) {
		struct timespec ts = { WL_TIMEOUT_S, 0 };
		long want = cnt < 64 ? cnt : 64;
		int n = io_getevents(ctx, want, want, ev, &ts);

		if (n == -EINTR)
			continue;
		if (n != want) {
			fprintf(stderr, "eventfd announced %ld events, io_getevents gave %d\n",
				want, n);
			return -1;
		}
		wl_aio_account(st, r, ev, n);
		cnt -= n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_eventfd", .count = 64 };
	struct ctx c = { .f.seed = 0xefd };
	struct wl_stats st = { 0 };
	struct wl_reap r = { .check = check, .arg = &c };
	struct iocb *cbs, **ptrs;
	uint64_t signalled = 0;
	io_context_t ctx;
	int fd, efd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	c.f.size = (uint64_t)o.count * STRIDE;
	r.nreq = o.count;
	wl_create(&c.f, o.dir, o.name);
	fd = wl_open_cold(&c.f, O_RDONLY);
	efd = eventfd(0, EFD_CLOEXEC);
	if (efd < 0)
		wl_die("eventfd", errno);

	wl_aio_setup(o.count, &ctx);
	cbs = calloc(o.count, sizeof(*cbs));
	ptrs = calloc(o.count, sizeof(*ptrs));
	r.seen = calloc(o.count, 1);
	c.bufs = wl_alloc((size_t)o.count * RSIZE);
	if (!cbs || !ptrs || !r.seen)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < o.count; i++) {
		io_prep_pread(&cbs[i], fd, c.bufs + (size_t)i * RSIZE, RSIZE,
			      (uint64_t)i * STRIDE);
		io_set_eventfd(&cbs[i], efd);
		cbs[i].data = (void *)(uintptr_t)i;
		ptrs[i] = &cbs[i];
	}

	st.submitted = wl_aio_submit_all(ctx, ptrs, o.count);
	if (st.submitted < o.count)
		st.errors++;
	while (st.completed < st.submitted) {
		uint64_t cnt = wait_eventfd(efd);

		if (!cnt) {
			fprintf(stderr, "eventfd silent for %ds with %" PRIu64 " in flight\n",
				WL_TIMEOUT_S, st.submitted - st.completed);
			st.errors++;
			break;
		}
		signalled += cnt;
		if (reap_signalled(ctx, cnt, &st, &r)) {
			st.errors++;
			break;
		}
	}
	wl_aio_expect_idle(ctx, &st, &r);
	if (signalled != st.completed) {
		fprintf(stderr, "eventfd counted %" PRIu64 ", reaped %" PRIu64 "\n",
			signalled, st.completed);
		st.errors++;
	}

	io_destroy(ctx);
	close(efd);
	close(fd);
	return wl_finish(&o, "libaio", &st);
}
