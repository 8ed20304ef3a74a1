// SPDX-License-Identifier: GPL-2.0
/*
 * aio_shared_folios: many submitters on the same folios.  PROCS (default
 * 8) forked processes, released together, each submit COUNT (default 32)
 * small (512-byte) buffered libaio reads in one io_submit, all into the
 * same 16 cold pages of one file (readahead off), so that every folio has
 * several asynchronous waiters armed on its lock bit at once, next to the
 * synchronous waiters of the same folios.  The last process is SIGKILLed
 * as soon as its reads are in flight (exit_aio with armed requests).
 *
 * A folio unlock wakes the waiters of the folio's hashed queue; an async
 * wake callback that claims an exclusive wake-up without taking the lock
 * leaves the other waiters asleep: a lost wake, seen here as a process
 * that never gets its completions (a 60 s timeout, not a hang).  Every
 * byte read is verified; counts are exact: submitted = PROCS*COUNT,
 * completed = (PROCS-1)*COUNT, abandoned = COUNT (the killed process's).
 */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "lib/wl.h"

#define RSIZE		512u
#define NPAGES		16u

static const char help[] =
	"PROCS (-p, 8) processes x COUNT (32) 512-byte cold reads of the same 16 pages,\n"
	"released together; the last one is SIGKILLed with its reads in flight.\n"
	"  -p PROCS  submitting processes (2..64)\n";

static unsigned procs = 8;

static int extra(int c, const char *arg)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	(void)c;
	if (*end || v < 2 || v > 64)
		return -1;
	procs = v;
	return 0;
}

/* What a child tells the parent. */
struct report {
	int accepted;
	bool victim;
	struct wl_stats st;
};

/* Request i of process p: spread over the pages, never aligned alike. */
static void child_reads(struct wl_reads *c, unsigned p)
{
	for (unsigned i = 0; i < c->n; i++) {
		struct wl_rd *q = &c->rd[i];

		q->off = (uint64_t)((i * 7 + p * 3) % NPAGES) * WL_PAGE +
			 (i * 61 + p * 17) % (WL_PAGE - RSIZE);
		q->len = RSIZE;
		q->buf = c->bufs + (size_t)i * RSIZE;
	}
}

static void __attribute__((noreturn)) child(struct wl_reads *c, int fd, unsigned p,
					    int go, int out, bool victim)
{
	struct report rep = { .victim = victim };
	struct iocb *cbs, **ptrs;
	io_context_t ctx = 0;
	char b;

	child_reads(c, p);
	if (!victim) {
		if (read(go, &b, 1) != 1)	/* everyone at once */
			_exit(EXIT_ERROR);
		wl_aio_reads(c, fd, &rep.st);	/* one io_submit, reaped, verified */
		rep.accepted = rep.st.submitted;
	} else {
		cbs = wl_aio_prep_reads(c, fd);
		ptrs = calloc(c->n, sizeof(*ptrs));
		if (!ptrs || io_setup(c->n, &ctx))
			_exit(EXIT_ERROR);
		for (unsigned i = 0; i < c->n; i++)
			ptrs[i] = &cbs[i];
		if (read(go, &b, 1) != 1)
			_exit(EXIT_ERROR);
		rep.accepted = wl_aio_submit_all(ctx, ptrs, c->n);
	}
	if (write(out, &rep, sizeof(rep)) != sizeof(rep))
		_exit(EXIT_ERROR);
	if (victim)
		for (;;)
			pause();	/* killed with its reads in flight */
	_exit(EXIT_PASS);
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_shared_folios", .count = 32 };
	struct wl_reads c = { .f.seed = 0x5f01 };
	struct wl_stats st = { 0 };
	int go[2], out[2], fd, status;
	pid_t pid[64];
	io_context_t probe;

	wl_getopt(argc, argv, &o, help, "p:", extra);
	wl_aio_setup(o.count, &probe);		/* skip here, not in a child */
	io_destroy(probe);
	c.f.size = (uint64_t)NPAGES * WL_PAGE;
	wl_reads_init(&c, o.count, RSIZE);
	fd = wl_reads_file(&o, &c);		/* cold, readahead off */
	if (pipe(go) || pipe(out))
		wl_die("pipe", errno);
	fflush(stdout);
	for (unsigned p = 0; p < procs; p++) {
		pid[p] = fork();
		if (pid[p] < 0)
			wl_die("fork", errno);
		if (pid[p] == 0) {
			close(go[1]);
			close(out[0]);
			child(&c, fd, p, go[0], out[1], p == procs - 1);
		}
	}
	close(go[0]);
	close(out[1]);
	for (unsigned p = 0; p < procs; p++)
		if (write(go[1], "g", 1) != 1)
			wl_die("release", errno);
	close(go[1]);

	for (unsigned got = 0; got < procs; got++) {
		struct pollfd pfd = { .fd = out[0], .events = POLLIN };
		struct report rep;

		if (poll(&pfd, 1, WL_TIMEOUT_S * 1000) != 1 ||
		    read(out[0], &rep, sizeof(rep)) != sizeof(rep)) {
			fprintf(stderr, "%u of %u processes reported within %d s (lost wake?)\n",
				got, procs, WL_TIMEOUT_S);
			st.errors++;
			break;
		}
		st.submitted += rep.accepted;
		if ((unsigned)rep.accepted != o.count) {
			fprintf(stderr, "io_submit accepted %d of %u\n", rep.accepted, o.count);
			st.errors++;
		}
		if (rep.victim) {		/* in flight: kill it now */
			kill(pid[procs - 1], SIGKILL);
			st.abandoned += rep.accepted;
			continue;
		}
		st.completed += rep.st.completed;
		st.errors += rep.st.errors;
		st.bytes += rep.st.bytes;
		st.verified += rep.st.verified;
	}
	close(out[0]);
	for (unsigned p = 0; p < procs; p++) {
		if (p == procs - 1)
			kill(pid[p], SIGKILL);
		if (waitpid(pid[p], &status, 0) != pid[p])
			wl_die("waitpid", errno);
		if (p == procs - 1 ? !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) :
				     !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			fprintf(stderr, "process %u: wait status 0x%x\n", p, status);
			st.errors++;
		}
	}
	close(fd);
	return wl_finish(&o, "libaio", &st);
}
