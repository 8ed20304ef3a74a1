// SPDX-License-Identifier: GPL-2.0
/*
 * uring_exit_armed: requests still armed when their process exits, and when
 * their ring is closed (cancelled at ring teardown, never reaped).  Twice, a
 * ring gets a NOP (reaped), COUNT (default 4) reads of the read end of a
 * pipe nobody writes and a poll on it: first in a forked child that reports
 * its count through a pipe and _exit()s without io_uring_queue_exit, then
 * in the process itself, which closes the ring with io_uring_queue_exit.
 *
 * What the kernel does: the reads get -EAGAIN and are armed on the pipe's
 * wait queue (io_uring_poll_arm), the poll is armed too; nothing completes.
 * Closing the last reference to the ring (exit_files at process exit, or
 * close()) queues io_ring_exit_work, which cancels every armed request
 * with -ECANCELED (CQEs posted to a ring nobody reads; a dead task's
 * completions run from fallback work in a kworker) and frees them.  When
 * the last request is freed, the read end of the pipe has no reader left
 * and its write end polls POLLERR: the program waits (60 s at most) for
 * that, so every cancellation has happened before it exits.
 *
 * Exact counts (default COUNT 4): submitted 12 (io_uring_submit_req 12),
 * completed 2 (the NOPs), abandoned 10 (5 by process exit, 5 by ring
 * close; in the kernel: 10 CQEs with -ECANCELED after the teardown).
 */
#include <poll.h>
#include <sys/wait.h>

#include "lib/wl.h"

static const char help[] =
	"COUNT (4) pipe reads and a poll armed at _exit() and at ring close.\n";

/* Queue a NOP (id 0), COUNT reads and a poll on rfd; reap the NOP only.
 * Returns how many SQEs were accepted; *nop_ok says the NOP completed and
 * nothing else did. */
static unsigned arm(struct io_uring *ring, int rfd, unsigned count, bool *nop_ok)
{
	static char buf[64];
	struct __kernel_timespec ts = { WL_TIMEOUT_S, 0 };
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	unsigned accepted;

	io_uring_prep_nop(io_uring_get_sqe(ring));	/* user_data 0 */
	for (unsigned i = 0; i < count; i++) {
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_read(sqe, rfd, buf, sizeof(buf), 0);
		io_uring_sqe_set_data64(sqe, 1 + i);
	}
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_poll_add(sqe, rfd, POLLIN);
	io_uring_sqe_set_data64(sqe, 1 + count);
	accepted = wl_uring_submit_all(ring, count + 2);
	*nop_ok = io_uring_wait_cqe_timeout(ring, &cqe, &ts) == 0 &&
		  cqe->user_data == 0 && cqe->res == 0;
	if (*nop_ok) {
		io_uring_cqe_seen(ring, cqe);
		usleep(10000);	/* the rest must stay armed */
		*nop_ok = io_uring_peek_cqe(ring, &cqe) != 0;
	}
	return accepted;
}

/* Wait until the pipe's read end is gone: every request holding it freed. */
static bool readers_gone(int wfd, const char *how)
{
	struct pollfd pfd = { .fd = wfd, .events = POLLOUT };
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int ms = 0; ms < WL_TIMEOUT_S * 1000; ms++) {
		if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR)) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			printf("# %s: armed requests gone %.1f ms later\n", how,
			       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
			return true;
		}
		usleep(1000);
	}
	fprintf(stderr, "%s: the pipe still has a reader after %d s\n", how, WL_TIMEOUT_S);
	return false;
}

static void account(struct wl_stats *st, unsigned count, unsigned accepted,
		    bool nop_ok, const char *how)
{
	st->submitted += accepted;
	if (nop_ok)
		st->completed++;
	st->abandoned += accepted - nop_ok;
	if (accepted != count + 2 || !nop_ok) {
		fprintf(stderr, "%s: %u of %u SQEs accepted, NOP %s\n", how, accepted,
			count + 2, nop_ok ? "ok" : "wrong or others completed");
		st->errors++;
	}
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_exit_armed", .count = 4 };
	struct wl_stats st = { 0 };
	struct io_uring ring;
	unsigned accepted;
	int p[2], rep[2], status;
	bool nop_ok;
	pid_t pid;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	wl_uring_setup(8, &ring);	/* skip here, not in the child */
	io_uring_queue_exit(&ring);

	/* 1. A child arms them and exits without tearing the ring down. */
	if (pipe(p) || pipe(rep))
		wl_die("pipe", errno);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		wl_die("fork", errno);
	if (pid == 0) {
		unsigned r[2];

		close(p[1]);
		close(rep[0]);
		wl_uring_setup(o.count + 2, &ring);
		r[0] = arm(&ring, p[0], o.count, &nop_ok);
		r[1] = nop_ok;
		if (write(rep[1], r, sizeof(r)) != sizeof(r))
			_exit(EXIT_FAIL);
		_exit(EXIT_PASS);	/* no io_uring_queue_exit, no atexit */
	}
	close(p[0]);
	close(rep[1]);
	{
		unsigned r[2] = { 0, 0 };

		if (read(rep[0], r, sizeof(r)) != sizeof(r))
			fprintf(stderr, "child reported nothing\n");
		account(&st, o.count, r[0], r[1], "_exit");
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		st.errors++;
	if (!readers_gone(p[1], "_exit"))
		st.errors++;
	close(p[1]);
	close(rep[0]);

	/* 2. This process arms them and closes the ring. */
	if (pipe(p))
		wl_die("pipe", errno);
	wl_uring_setup(o.count + 2, &ring);
	accepted = arm(&ring, p[0], o.count, &nop_ok);
	account(&st, o.count, accepted, nop_ok, "ring close");
	io_uring_queue_exit(&ring);
	close(p[0]);
	if (!readers_gone(p[1], "ring close"))
		st.errors++;
	close(p[1]);

	printf("# expect: io_uring sqes=%u submit_req=%u cqes_reaped=2"
	       " cancelled_at_teardown=%u (task exit %u, ring close %u)\n",
	       2 * (o.count + 2), 2 * (o.count + 2), 2 * (o.count + 1),
	       o.count + 1, o.count + 1);
	return wl_finish(&o, "io_uring", &st);
}
