// SPDX-License-Identifier: GPL-2.0
/*
 * aio_leader_exit: a multi-threaded libaio program whose main thread exits
 * first (the process ends with its last thread, not its leader).  main sets
 * up one context and starts a worker thread; the worker submits COUNT
 * (default 16) cold 4 KiB reads, main then leaves with pthread_exit(), and
 * once main is a zombie (/proc/self/task/TID/stat) the worker reaps the
 * first batch, submits and reaps a second one, submits a third and calls
 * exit() with it in flight.
 *
 * What the kernel does: the leader's exit does not end the process (the
 * thread group lives while a thread does; the leader stays a zombie), its
 * sched_process_exit comes with group_dead false; io_submit/io_getevents
 * from the worker work as before.  The group dies with the worker's
 * exit_group: exit_aio (from the last mmput) waits for the third batch's
 * reads and throws their events away.  Stock kernels sleep in io_submit on
 * every cold read (nonblocking_submit_libaio XFAIL).
 *
 * Exact counts (default COUNT 16): submitted 48, completed 32 (batches 1
 * and 2, reaped by the worker; batch 1 after the leader's exit), abandoned
 * 16 (batch 3, to the exit of the last thread), bytes 131072, verified 32.
 */
#include <pthread.h>
#include <semaphore.h>
#include <sys/syscall.h>
#include <time.h>

#include "lib/wl.h"

static const char help[] =
	"main pthread_exit()s; a worker reaps, submits again, exits with COUNT (16) in flight.\n";

static struct wl_opts o = { .name = "aio_leader_exit", .count = 16 };
static struct wl_reads c = { .f.seed = 0x1ead };
static struct wl_stats st;
static io_context_t ctx;
static struct iocb *cbs;
static sem_t submitted_first;
static pid_t leader;

/* Wait until the leader thread is a zombie: its exit is complete. */
static bool leader_gone(void)
{
	char path[64], buf[256], *p;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)leader);
	for (int ms = 0; ms < WL_TIMEOUT_S * 1000; ms++, usleep(1000)) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		if (!f)
			return true;		/* reaped: gone too */
		buf[n] = '\0';
		p = strrchr(buf, ')');		/* "pid (comm) S ..." */
		if (p && (p[2] == 'Z' || p[2] == 'X'))
			return true;
	}
	return false;
}

static void *worker(void *arg)
{
	unsigned n = o.count;

	wl_aio_submit_iocbs(ctx, cbs, n, &st);			/* batch 1 */
	sem_post(&submitted_first);
	if (!leader_gone()) {
		fprintf(stderr, "main thread still alive after %d s\n", WL_TIMEOUT_S);
		st.errors++;
	} else {
		printf("# main thread exited; the worker carries on\n");
	}
	wl_aio_reap_n(ctx, &st, &c.reap, n);
	wl_aio_submit_iocbs(ctx, cbs + n, n, &st);		/* batch 2 */
	wl_aio_reap_n(ctx, &st, &c.reap, n);
	wl_aio_submit_iocbs(ctx, cbs + 2 * n, n, &st);		/* batch 3 */
	st.abandoned += n;
	printf("# expect: libaio submitted=%u completed=%u abandoned=%u"
	       " (by the exit of the last thread, the leader exited first)\n",
	       3 * n, 2 * n, n);
	exit(wl_finish(&o, "libaio", &st));	/* exit_group with batch 3 in flight */
}

int main(int argc, char **argv)
{
	pthread_t t;
	int fd, ret;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	if (o.count * 3 > WL_MAX_COUNT) {
		fprintf(stderr, "-n: at most %u (three batches)\n", WL_MAX_COUNT / 3);
		return EXIT_USAGE;
	}
	wl_aio_setup(3 * o.count, &ctx);
	c.f.size = 3ull * o.count * 64 * 1024;
	wl_strided_reads(&c, 3 * o.count, 64 * 1024, WL_PAGE);
	fd = wl_reads_file(&o, &c);
	cbs = wl_aio_prep_reads(&c, fd);
	leader = (pid_t)syscall(SYS_gettid);
	sem_init(&submitted_first, 0, 0);
	ret = pthread_create(&t, NULL, worker, NULL);
	if (ret)
		wl_die("pthread_create", ret);
	while (sem_wait(&submitted_first) && errno == EINTR)
		;
	pthread_exit(NULL);	/* the process lives on in the worker */
}
