// SPDX-License-Identifier: GPL-2.0
/*
 * aio_exit_inflight: a forked child submits COUNT (default 64) cold 16 KiB
 * buffered libaio reads and exits with _exit() without reaping them; a
 * second child does the same and is killed with SIGKILL.  The parent waits
 * for each (exit_aio must wait for the in-flight reads, neither hang nor
 * crash), then reads the same cold pages itself through a new context and
 * verifies every byte.
 *
 * The children tell the parent through a pipe how many reads io_submit
 * accepted, after it returned; the parent reports them as abandoned=N
 * (never reaped, by design) and the harness joins that with the trace.
 * A child that does not exit within 60 s is an error, not a hang.
 */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "lib/wl.h"

#define RSIZE		(16u * 1024)
#define STRIDE		(64u * 1024)

static const char help[] =
	"COUNT (64) cold reads in flight when a child _exit()s, and when one is killed.\n"
	"  -s FILESIZE  file size, >= COUNT*64k (the default)\n";

/* The child: submit everything, say how many went in, then go away. */
static void __attribute__((noreturn)) child(const struct wl_reads *c, int fd,
					    int out, bool wait_for_kill)
{
	struct iocb *cbs = wl_aio_prep_reads(c, fd);
	struct iocb **ptrs = calloc(c->n, sizeof(*ptrs));
	io_context_t ctx = 0;
	int accepted = 0;

	if (ptrs && io_setup(c->n, &ctx) == 0) {
		for (unsigned i = 0; i < c->n; i++)
			ptrs[i] = &cbs[i];
		accepted = wl_aio_submit_all(ctx, ptrs, c->n);
	}
	if (write(out, &accepted, sizeof(accepted)) != sizeof(accepted))
		_exit(EXIT_ERROR);
	if (wait_for_kill)
		for (;;)
			pause();
	_exit(EXIT_PASS);	/* no io_getevents, no io_destroy, no atexit */
}

/* Wait up to WL_TIMEOUT_S for pid; returns its status or -1. */
static int wait_child(pid_t pid)
{
	double end = wl_now() + WL_TIMEOUT_S;
	int status;

	while (wl_now() < end) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			wl_die("waitpid", errno);
		usleep(1000);
	}
	return -1;
}

/* One child with all reads in flight; it exits or is killed. */
static void run_child(const struct wl_reads *c, int fd, bool kill_it,
		      struct wl_stats *st)
{
	const char *how = kill_it ? "SIGKILL" : "_exit";
	struct pollfd pfd;
	int p[2], accepted = -1, status;
	double t0;
	pid_t pid;

	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);	/* cold again */
	if (pipe(p))
		wl_die("pipe", errno);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		wl_die("fork", errno);
	if (pid == 0) {
		close(p[0]);
		child(c, fd, p[1], kill_it);
	}
	close(p[1]);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	if (poll(&pfd, 1, WL_TIMEOUT_S * 1000) != 1 ||
	    read(p[0], &accepted, sizeof(accepted)) != sizeof(accepted))
		accepted = -1;
	close(p[0]);
	t0 = wl_now();
	if (kill_it)
		kill(pid, SIGKILL);
	status = wait_child(pid);
	if (status == -1) {
		fprintf(stderr, "%s child %d did not exit within %d s (exit_aio hung?)\n",
			how, (int)pid, WL_TIMEOUT_S);
		kill(pid, SIGKILL);
		st->errors++;
		return;
	}
	if (accepted < 0) {
		fprintf(stderr, "%s child %d reported nothing\n", how, (int)pid);
		st->errors++;
		return;
	}
	printf("# %s: child %d submitted %d reads, gone %.1f ms later\n", how,
	       (int)pid, accepted, (wl_now() - t0) * 1e3);
	st->submitted += accepted;
	st->abandoned += accepted;
	if ((unsigned)accepted < c->n) {
		fprintf(stderr, "%s child: io_submit accepted %d of %u\n", how,
			accepted, c->n);
		st->errors++;
	}
	if (kill_it ? !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) :
		      !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		fprintf(stderr, "%s child: unexpected wait status 0x%x\n", how, status);
		st->errors++;
	}
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_exit_inflight", .count = 64 };
	struct wl_reads c = { .f.seed = 0xe417 };
	struct wl_stats st = { 0 };
	io_context_t probe;
	int fd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	c.f.size = o.size_set ? o.size : (uint64_t)o.count * STRIDE;
	if (c.f.size < (uint64_t)o.count * STRIDE) {
		fprintf(stderr, "-s must be >= COUNT*64k\n");
		return EXIT_USAGE;
	}
	wl_aio_setup(o.count, &probe);	/* skip here, not in a child */
	io_destroy(probe);
	wl_strided_reads(&c, o.count, STRIDE, RSIZE);
	fd = wl_reads_file(&o, &c);

	run_child(&c, fd, false, &st);
	run_child(&c, fd, true, &st);

	/* The kernel still works: the same cold reads, reaped and verified. */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	wl_aio_reads(&c, fd, &st);
	close(fd);
	return wl_finish(&o, "libaio", &st);
}
