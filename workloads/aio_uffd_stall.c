// SPDX-License-Identifier: GPL-2.0
/*
 * aio_uffd_stall: one process's reads into buffers that stall must not delay
 * another process's reads.
 *
 * Fairness of the shared workers: a resumed read copies to the user buffer
 * in a shared worker.  A child (the staller) registers its buffers with
 * userfaultfd, hands the userfaultfd to the parent and submits COUNT
 * (default 512) cold 4 KiB reads into them in one io_submit; nobody
 * answers the faults yet, so on a patched kernel each retry parks a
 * worker in handle_userfault().
 * Both processes are pinned to CPU 0, where their reads complete and are
 * queued.  Then the parent (the victim) submits 64 cold reads of another
 * file into ordinary buffers: all must complete within 10 s with their
 * data.  A per-cpu workqueue runs at most max_active (256) items at once,
 * so without a bound per context the staller's work items hold every slot
 * and the victim's wait behind them.  Then the parent serves the faults
 * (UFFDIO_ZEROPAGE) and the staller's reads must all complete with the
 * file's data.
 *
 * On a stock kernel the staller sleeps in io_submit() itself, in the first
 * fault, until the parent serves it.  Skips where userfaultfd is
 * unavailable.
 */
#include <linux/userfaultfd.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "lib/wl.h"

#define VICTIM_READS	64u
#define VICTIM_DEADLINE	10	/* s */
#define SERVE_DEADLINE	60	/* s */

static const char help[] =
	"A child submits COUNT (512) cold reads into userfaultfd buffers nobody\n"
	"serves yet; the parent's 64 cold reads must still complete within 10 s;\n"
	"then the parent serves the faults and the child's reads must complete.\n"
	"Needs userfaultfd (root).\n";

/* What the staller tells the parent: first its userfaultfd (or an errno),
 * then its counts. */
struct report {
	int err;
	uint64_t submitted, completed, errors, verified, bytes;
};

static void send_report(int sock, const struct report *r, int fd)
{
	if (wl_send_fd(sock, r, sizeof(*r), fd))
		_exit(1);
}

/* The staller: its reads wait on faults only the parent serves. */
static void staller(const struct wl_file *f, unsigned n, int sock)
{
	struct report rep = { 0 };
	struct wl_reads c = { 0 };
	struct wl_stats st = { 0 };
	struct iocb **ptrs;
	io_context_t ctx;
	int uffd;

	/* the reads land in the registered pages, checked as a read case */
	uffd = wl_uffd_reads(f, n, &c, &ctx, &ptrs);
	if (uffd == -ENOMEM)
		_exit(1);
	if (uffd < 0) {
		rep.err = -uffd;
		send_report(sock, &rep, -1);
		_exit(0);
	}
	send_report(sock, &rep, uffd);	/* ready; the parent serves faults */
	/* stock: sleeps here, in the first fault, until the parent serves it */
	wl_aio_reap_n(ctx, &st, &c.reap, wl_aio_submit(ctx, ptrs, n, &st));
	rep = (struct report){ 0, st.submitted, st.completed, st.errors, st.verified,
			       st.bytes };
	send_report(sock, &rep, -1);
	_exit(0);
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_uffd_stall", .count = 512 };
	struct wl_file sf = { .seed = 0x0ff }, vf = { .seed = 0x71c };
	struct wl_reads c = { 0 };
	struct wl_stats st = { 0 };
	struct io_event ev[VICTIM_READS];
	struct iocb *cbs, *ptrs[VICTIM_READS];
	struct report rep = { 0 };
	unsigned done = 0, served = 0;
	int sock, status, fd, uffd = -1;
	io_context_t ctx;
	cpu_set_t cpu0;
	double t0;
	pid_t child;

	wl_getopt(argc, argv, &o, help, "", NULL);
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0))
		wl_die("sched_setaffinity", errno);
	sf.size = (uint64_t)o.count * WL_PAGE;
	wl_create(&sf, o.dir, "aio_uffd_stall-staller");
	vf.size = (uint64_t)VICTIM_READS * WL_PAGE;
	wl_create(&vf, o.dir, "aio_uffd_stall-victim");
	child = wl_uffd_child(staller, &sf, o.count, &rep, sizeof(rep), &uffd, &sock);
	sleep(2);	/* the staller's reads reach the workers and park there */
	printf("# staller pid %d: %u reads into userfaultfd pages nobody serves yet\n",
	       child, o.count);

	/* the victim: 64 cold reads, reaped against a deadline */
	c.f = vf;
	fd = wl_open_cold(&vf, O_RDONLY);
	wl_strided_reads(&c, VICTIM_READS, WL_PAGE, WL_PAGE);
	cbs = wl_aio_prep_reads(&c, fd);
	for (unsigned i = 0; i < VICTIM_READS; i++)
		ptrs[i] = &cbs[i];
	wl_aio_setup(VICTIM_READS, &ctx);
	t0 = wl_now();
	done = wl_aio_submit(ctx, ptrs, VICTIM_READS, &st);
	while (st.completed < done && wl_now() - t0 < VICTIM_DEADLINE) {
		struct timespec ts = { 0, 200 * 1000 * 1000 };
		int n = io_getevents(ctx, 1, VICTIM_READS, ev, &ts);

		if (n > 0)
			wl_aio_account(&st, &c.reap, ev, n);
		else if (n < 0 && n != -EINTR)
			break;
	}
	printf("# victim: %" PRIu64 " of %u reads completed in %.2f s\n", st.completed,
	       done, wl_now() - t0);
	if (st.completed < done) {
		fprintf(stderr, "%" PRIu64 " of %u reads of another process still in flight "
			"after %d s: the staller's parked retries hold the aio workers\n",
			done - st.completed, done, VICTIM_DEADLINE);
		st.errors++;
	}

	/* serve the staller's faults until it reports (its reads all done) */
	t0 = wl_now();
	for (;;) {
		struct pollfd p[2] = { { uffd, POLLIN, 0 }, { sock, POLLIN, 0 } };
		struct uffd_msg msg;

		if (wl_now() - t0 > SERVE_DEADLINE) {
			fprintf(stderr, "staller not done %d s after its faults were served\n",
				SERVE_DEADLINE);
			st.errors++;
			kill(child, SIGKILL);
			break;
		}
		if (poll(p, 2, 1000) < 0 && errno != EINTR)
			wl_die("poll", errno);
		if (p[1].revents) {
			if (wl_recv_fd(sock, &rep, sizeof(rep), NULL))
				rep = (struct report){ .err = EIO };
			break;
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
	return wl_finish(&o, "libaio", &st);
}
