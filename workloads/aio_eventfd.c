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

#include "lib/wl.h"

static const char help[] =
	"COUNT (64) cold 4 KiB reads signalled through an eventfd, verified.\n"
	"  -s FILESIZE  file size; requests are spread evenly (default COUNT*64k)\n";

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
	struct wl_reads c = { .f.seed = 0xefd };
	struct wl_stats st = { 0 };
	uint64_t signalled = 0;
	struct iocb *cbs;
	io_context_t ctx;
	int fd, efd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	fd = wl_batch_case(&o, &c);
	efd = eventfd(0, EFD_CLOEXEC);
	if (efd < 0)
		wl_die("eventfd", errno);

	wl_aio_setup(o.count, &ctx);
	cbs = wl_aio_prep_reads(&c, fd);
	for (unsigned i = 0; i < o.count; i++)
		io_set_eventfd(&cbs[i], efd);
	wl_aio_submit_iocbs(ctx, cbs, o.count, &st);
	while (st.completed < st.submitted) {
		uint64_t cnt = wait_eventfd(efd);

		if (!cnt) {
			fprintf(stderr, "eventfd silent for %ds with %" PRIu64 " in flight\n",
				WL_TIMEOUT_S, st.submitted - st.completed);
			st.errors++;
			break;
		}
		signalled += cnt;
		if (reap_signalled(ctx, cnt, &st, &c.reap)) {
			st.errors++;
			break;
		}
	}
	wl_aio_expect_idle(ctx, &st, &c.reap);
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
