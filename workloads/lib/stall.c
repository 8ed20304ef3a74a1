// SPDX-License-Identifier: GPL-2.0
/*
 * One process's reads that stall must not delay another process's reads:
 * the body of aio_uffd_stall (one context) and aio_ctx_stall (many).
 *
 * A child (the staller) registers its buffers with userfaultfd, hands the
 * userfaultfd to the parent and submits its cold 4 KiB reads into them,
 * spread over its contexts, before it reaps any; nobody answers the faults
 * yet, so on a kernel that resumes reads in workers each resumed copy
 * parks a worker in handle_userfault(); with fs.aio-buffered-async on,
 * every one must park (a context runs all its requests' work items at
 * once, up to 512), or the test proves nothing.  Both processes are pinned to CPU 0, so that where the
 * workers are per-cpu both processes' reads complete and are queued on
 * the same CPU.  Then the parent (the
 * victim) submits 64 cold reads of another file into ordinary buffers:
 * all must complete within 10 s with their data.  Then the parent serves
 * the faults (UFFDIO_ZEROPAGE) and the staller's reads must all complete
 * with the file's data.
 *
 * On a stock kernel the staller sleeps in io_submit() itself, in the first
 * fault, until the parent serves it.
 */
#include <linux/userfaultfd.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>

#include "wl.h"

#define VICTIM_READS	64u
#define VICTIM_DEADLINE	10	/* s */
#define SERVE_DEADLINE	60	/* s */
#define PARK_DEADLINE	10	/* s */
/* fs.rst: a context runs every request that needs a worker at once, up
 * to 512 (the workqueue's WQ_MAX_ACTIVE) */
#define WORKERS_PER_CONTEXT	512u

/* What the staller tells the parent: first its userfaultfd (or an errno),
 * then its counts. */
struct report {
	int err;
	uint64_t submitted, completed, errors, verified, bytes;
};

/* how many contexts the staller spreads its reads over (set before fork) */
static unsigned staller_contexts;

static void send_report(int sock, const struct report *r, int fd)
{
	if (wl_send_fd(sock, r, sizeof(*r), fd))
		_exit(1);
}

/* The staller: its reads wait on faults only the parent serves. */
static void staller(const struct wl_file *f, unsigned n, int sock)
{
	unsigned k = staller_contexts, per = n / k;
	struct report rep = { 0 };
	struct wl_reads c = { 0 };
	struct wl_stats st = { 0 };
	unsigned done[k];
	io_context_t ctx[k];
	struct iocb **ptrs;
	int uffd;

	/* the reads land in the registered pages, checked as a read case;
	 * the first context is wl_uffd_reads()'s, the others are made here */
	uffd = wl_uffd_reads(f, n, WL_PAGE, &c, &ctx[0], &ptrs);
	if (uffd == -ENOMEM)
		_exit(1);
	if (uffd < 0) {
		rep.err = -uffd;
		send_report(sock, &rep, -1);
		_exit(0);
	}
	for (unsigned i = 1; i < k; i++) {
		ctx[i] = 0;
		if (io_setup(per, &ctx[i]))
			_exit(1);
	}
	send_report(sock, &rep, uffd);	/* ready; the parent serves faults */
	/* stock: sleeps here, in the first fault, until the parent serves it */
	for (unsigned i = 0; i < k; i++)
		done[i] = wl_aio_submit(ctx[i], ptrs + i * per, per, &st);
	for (unsigned i = 0; i < k; i++)
		wl_aio_reap_n(ctx[i], &st, &c.reap, done[i]);
	rep = (struct report){ 0, st.submitted, st.completed, st.errors, st.verified,
			       st.bytes };
	send_report(sock, &rep, -1);
	_exit(0);
}

/* The victim's 64 cold reads of vf, reaped against the deadline. */
static unsigned victim(const struct wl_file *vf, struct wl_reads *c,
		       struct wl_stats *st, io_context_t *ctx, int *fd)
{
	struct iocb *ptrs[VICTIM_READS];
	uint64_t got;
	unsigned done;
	double t0;

	*fd = wl_aio_cold_reads(vf, VICTIM_READS, c, ptrs);
	wl_aio_setup(VICTIM_READS, ctx);
	t0 = wl_now();
	done = wl_aio_submit(*ctx, ptrs, VICTIM_READS, st);
	got = wl_aio_reap_within(*ctx, st, &c->reap, done, VICTIM_DEADLINE);
	printf("# victim: %" PRIu64 " of %u reads completed in %.2f s\n", got,
	       done, wl_now() - t0);
	if (got < done) {
		fprintf(stderr, "%" PRIu64 " of %u reads of another process still in flight "
			"after %d s: the staller's parked retries hold the aio workers\n",
			done - got, done, VICTIM_DEADLINE);
		st->errors++;
	}
	return done;
}

/* Serve the staller's faults until it reports (its reads all done); the
 * number of faults served. */
static unsigned serve(int uffd, int sock, pid_t child, struct report *rep,
		      struct wl_stats *st)
{
	unsigned served = 0;
	double t0 = wl_now();

	for (;;) {
		struct pollfd p[2] = { { uffd, POLLIN, 0 }, { sock, POLLIN, 0 } };
		struct uffd_msg msg;

		if (wl_now() - t0 > SERVE_DEADLINE) {
			fprintf(stderr, "staller not done %d s after its faults were served\n",
				SERVE_DEADLINE);
			st->errors++;
			kill(child, SIGKILL);
			close(uffd);	/* the killed child's parked faults fail */
			return served;
		}
		if (poll(p, 2, 1000) < 0 && errno != EINTR)
			wl_die("poll", errno);
		if (p[1].revents) {
			if (wl_recv_fd(sock, rep, sizeof(*rep), NULL))
				*rep = (struct report){ .err = EIO };
			return served;
		}
		while (read(uffd, &msg, sizeof(msg)) == sizeof(msg)) {
			struct uffdio_zeropage zp = {
				.range = { msg.arg.pagefault.address & ~(uint64_t)(WL_PAGE - 1),
					   WL_PAGE },
			};

			if (msg.event == UFFD_EVENT_PAGEFAULT &&
			    ioctl(uffd, UFFDIO_ZEROPAGE, &zp) && errno != EEXIST)
				wl_die("UFFDIO_ZEROPAGE", errno);
			served++;
		}
	}
}

int wl_stall_main(int argc, char **argv, struct wl_opts *o, unsigned contexts,
		  const char *help)
{
	struct wl_file sf = { .seed = 0x0ff }, vf = { .seed = 0x71c };
	struct wl_reads c = { 0 };
	struct wl_stats st = { 0 };
	struct report rep = { 0 };
	char name[64];
	unsigned done, served, parked, per, want;
	int sock, status, fd, uffd = -1;
	io_context_t ctx;
	cpu_set_t cpu0;
	double t0;
	pid_t child;

	wl_getopt(argc, argv, o, help, "", NULL);
	if (o->count < contexts || o->count % contexts) {
		fprintf(stderr, "%s: -n %u: a multiple of the %u contexts is needed\n",
			o->name, o->count, contexts);
		return EXIT_USAGE;
	}
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0))
		wl_die("sched_setaffinity", errno);
	sf.size = (uint64_t)o->count * WL_PAGE;
	snprintf(name, sizeof(name), "%s-staller", o->name);
	wl_create(&sf, o->dir, name);
	vf.size = (uint64_t)VICTIM_READS * WL_PAGE;
	snprintf(name, sizeof(name), "%s-victim", o->name);
	wl_create(&vf, o->dir, name);
	staller_contexts = contexts;
	child = wl_uffd_child(staller, &sf, o->count, &rep, sizeof(rep), &uffd, &sock);
	/* the staller's reads reach the workers and park there */
	per = o->count / contexts;
	want = wl_aio_buffered_async() ?
	       contexts * (per < WORKERS_PER_CONTEXT ? per : WORKERS_PER_CONTEXT) : 0;
	t0 = wl_now();
	do {
		sleep(1);
		parked = wl_uffd_waiters(uffd);
	} while (parked < want && wl_now() - t0 < PARK_DEADLINE);
	sleep(1);	/* and no more come */
	parked = wl_uffd_waiters(uffd);
	printf("# staller pid %d: %u reads on %u context%s into userfaultfd pages "
	       "nobody serves yet; %u tasks wait in the faults (%u expected)\n", child,
	       o->count, contexts, contexts > 1 ? "s" : "", parked, want);
	if (parked < want) {
		fprintf(stderr, "only %u of %u reads parked in workers within %d s: a "
			"context runs fewer of its requests' work items than it holds, or "
			"the victim's reads below prove nothing\n", parked, want,
			PARK_DEADLINE);
		st.errors++;
	}

	done = victim(&vf, &c, &st, &ctx, &fd);

	t0 = wl_now();
	served = serve(uffd, sock, child, &rep, &st);
	waitpid(child, &status, 0);
	printf("# staller: %" PRIu64 " submitted, %" PRIu64 " completed, %" PRIu64
	       " verified, %u faults served in %.2f s\n", rep.submitted, rep.completed,
	       rep.verified, served, wl_now() - t0);
	if (rep.err || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "staller failed (report error %d, status 0x%x)\n", rep.err, status);
		st.errors++;
	}
	st.submitted += rep.submitted;
	st.completed += rep.completed;
	st.errors += rep.errors;
	st.verified += rep.verified;
	st.bytes += rep.bytes;

	if (st.completed < st.submitted)
		wl_aio_reap_n(ctx, &st, &c.reap, done - (st.completed - rep.completed));
	io_destroy(ctx);
	close(fd);
	return wl_finish(o, "libaio", &st);
}
