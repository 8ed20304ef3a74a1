// SPDX-License-Identifier: GPL-2.0
/* The run's resources check (run/resources.h). */
#include <dirent.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "run/resources.h"

static const char *const slab_name[SLAB_NR] = {
#define X(name, what) #name,
	FSAIO_SLAB_CACHES(X)
#undef X
};

static const char *const slab_what[SLAB_NR] = {
#define X(name, what) what,
	FSAIO_SLAB_CACHES(X)
#undef X
};

static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/*
 * Give each judged cache's per-CPU slabs back to its node lists first
 * (kmem_cache_shrink() flushes them on every CPU): slabinfo counts the
 * free objects of a per-CPU slab as active, and before 6.2 SLUB kept
 * per-CPU slabs even for debug caches.  On 6.1 a cache's count otherwise
 * stuck at its slabs' capacity (filp 204 after every busy workload)
 * and read as a leak.
 */
static void flush_cpu_slabs(void)
{
	char path[128];
	int i, fd;

	for (i = 0; i < SLAB_NR; i++) {
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", slab_name[i]);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (write(fd, "1", 1) < 0) {
			/* not root, or no SLUB: the counts stay as they are */
		}
		close(fd);
	}
}

/* /proc/slabinfo: "name active_objs num_objs objsize ...". */
static void read_slabinfo(struct resources *r)
{
	char line[512], name[64];
	long active;
	FILE *f;
	int i;

	for (i = 0; i < SLAB_NR; i++)
		r->slab[i] = -1;
	flush_cpu_slabs();
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld", name, &active) != 2)
			continue;
		for (i = 0; i < SLAB_NR; i++)
			if (!strcmp(name, slab_name[i]))
				r->slab[i] = active;
	}
	fclose(f);
}

/*
 * A CPU that ran a process and then went idle (or to a kernel thread)
 * keeps that process's mm as its lazy-TLB active_mm, with a reference:
 * the mm_struct of a process long gone stays allocated until the CPU next
 * runs a user task.  Running this thread on every CPU in turn drops them.
 */
static void flush_lazy_mms(void)
{
	cpu_set_t old, one;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (sched_getaffinity(0, sizeof(old), &old))
		return;
	for (long cpu = 0; cpu < n && cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &old))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (!sched_setaffinity(0, sizeof(one), &one))
			sched_yield();
	}
	sched_setaffinity(0, sizeof(old), &old);
}

/* Threads alive: the entries of /proc/PID/task for every PID. */
static long count_tasks(void)
{
	DIR *proc = opendir("/proc"), *task;
	struct dirent *d, *t;
	char path[64];
	long n = 0;

	if (!proc)
		return -1;
	while ((d = readdir(proc))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", d->d_name);
		task = opendir(path);
		if (!task)
			continue;	/* gone meanwhile */
		while ((t = readdir(task)))
			n += t->d_name[0] != '.';
		closedir(task);
	}
	closedir(proc);
	return n;
}

/* Objects one per live thread: their count follows the threads. */
static bool per_thread(int i)
{
	return i == SLAB_task_struct || i == SLAB_cred;
}

void resources_read(struct resources *r)
{
	char path[128];
	int i;

	flush_lazy_mms();
	r->tasks = count_tasks();

	r->aio_nr = read_long("/proc/sys/fs/aio-nr");
	read_slabinfo(r);
	/* SLUB debugging (sanity checks or poisoning) turns the per-CPU
	 * slabs off: only then is active_objs the number allocated. */
	for (i = 0; i < SLAB_NR; i++) {
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/sanity_checks", slab_name[i]);
		r->slab_exact[i] = r->slab[i] >= 0 && read_long(path) == 1;
	}
}

/* How many counters are still above before; details appended to buf. */
static int count_leaks(const struct resources *before, const struct resources *after,
		       char *buf, size_t size)
{
	size_t n = 0;
	int i, leaks = 0;

	if (buf && size)
		buf[0] = '\0';
	if (before->aio_nr >= 0 && after->aio_nr > before->aio_nr) {
		leaks++;
		if (buf)
			n += snprintf(buf + n, n < size ? size - n : 0,
				      "fs.aio-nr %ld -> %ld (+%ld aio events of contexts not freed)",
				      before->aio_nr, after->aio_nr, after->aio_nr - before->aio_nr);
	}
	for (i = 0; i < SLAB_NR; i++) {
		long threads = 0, extra;

		if (!before->slab_exact[i])
			continue;
		if (per_thread(i) && before->tasks >= 0 && after->tasks >= 0)
			threads = after->tasks - before->tasks;
		extra = after->slab[i] - before->slab[i] - threads;
		if (extra <= 0)
			continue;
		leaks++;
		if (buf)
			n += snprintf(buf + n, n < size ? size - n : 0,
				      "%sslab %s %ld -> %ld (+%ld%s: each %s)", n ? "; " : "",
				      slab_name[i], before->slab[i], after->slab[i], extra,
				      threads ? " beyond the change in live threads" : "",
				      slab_what[i]);
	}
	return leaks;
}

/* " after N ms": how long the last frees took (RCU, deferred fput) */
static const char *settled(int ms)
{
	static char s[48];

	snprintf(s, sizeof(s), " %d ms after the processes were gone", ms);
	return s;
}

/*
 * Wait for an RCU grace period: MEMBARRIER_CMD_GLOBAL is synchronize_rcu()
 * on a machine with more than one CPU.  Objects freed by call_rcu() (struct
 * file before 6.7, creds, tasks) are gone soon after one; under a starved
 * guest a grace period can take longer than the settle time, and a count
 * still above baseline then would be blamed on the kernel.  Returns false
 * where the call is refused (nohz_full, one CPU, no membarrier).
 */
static bool rcu_grace_period(void)
{
	return syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0 &&
	       sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

static int ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Grace periods to see pass before counts above baseline are judged. */
#define SETTLE_GRACE_PERIODS 3

void check_resources(struct invariant_result *ir, const struct resources *before,
		     bool exclusive, struct settle_policy *sp)
{
	int settle_ms = sp->settle_ms;
	int wait_ms = sp->leak_seen ? settle_ms : sp->late_ms > settle_ms ? sp->late_ms : settle_ms;
	const char *name = "workload_resources";
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	struct resources after;
	char detail[768], judged[256], late[512] = "";
	int i, waited = 0, nexact = 0, gps = 0;
	struct timespec t0;
	bool gp_ok = true;
	size_t n = 0;

	if (before->aio_nr < 0) {
		invariant_set(ir, name, VERDICT_SKIP, 0, "/proc/sys/fs/aio-nr unreadable");
		return;
	}
	/* The last references may go a little after the last process
	 * (mmput_async, RCU-freed creds and tasks, io_uring's exit work):
	 * give the counters settle_ms to come back, and at least
	 * SETTLE_GRACE_PERIODS RCU grace periods where they can be waited for. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		resources_read(&after);
		if (!count_leaks(before, &after, NULL, 0))
			break;
		if (waited >= wait_ms && (!gp_ok || gps >= SETTLE_GRACE_PERIODS))
			break;
		/* what was still up when --settle ran out: what came late */
		if (waited >= settle_ms && !late[0])
			count_leaks(before, &after, late, sizeof(late));
		if (gp_ok && gps < SETTLE_GRACE_PERIODS && (gp_ok = rcu_grace_period()))
			gps++;
		nanosleep(&nap, NULL);
		waited = ms_since(&t0);
	}
	judged[0] = '\0';
	for (i = 0; i < SLAB_NR; i++)
		if (before->slab_exact[i]) {
			n += snprintf(judged + n, n < sizeof(judged) ? sizeof(judged) - n : 0,
				      "%s%s", nexact++ ? " " : "", slab_name[i]);
		}
	if (!count_leaks(before, &after, detail, sizeof(detail))) {
		if (waited > settle_ms)
			invariant_set(ir, name, VERDICT_PASS, 1,
				      "fs.aio-nr and slab objects (%s) back to baseline only %d ms "
				      "after the processes were gone, later than --settle %d ms: "
				      "freed late, not leaked (at %d ms: %s)",
				      nexact ? judged : "none judged", waited, settle_ms, settle_ms,
				      late[0] ? late : "?");
		else if (nexact)
			invariant_set(ir, name, VERDICT_PASS, 1,
				      "fs.aio-nr back to %ld and slab objects back to baseline (%s)%s",
				      before->aio_nr, judged, waited ? settled(waited) : "");
		else
			invariant_set(ir, name, VERDICT_PASS, 1,
				      "fs.aio-nr back to %ld (every aio context freed); slab counts "
				      "not judged (inexact without slub_debug)", before->aio_nr);
		return;
	}
	sp->leak_seen = true;
	invariant_set(ir, name, exclusive ? VERDICT_FAIL : VERDICT_SKIP, 1,
		      "%d ms and %d RCU grace period(s) after the workload's processes were gone: %s%s",
		      waited, gps, detail,
		      exclusive ? "" :
		      "; not judged: other processes may hold them (--exclusive where fsaio runs alone)");
}
