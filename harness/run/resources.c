// SPDX-License-Identifier: GPL-2.0
/* The run's resources check (run/resources.h). */
#include <fcntl.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * The files the check reads are opened once and re-read in place.  Opening
 * them for every read (a directory per process for the thread count, the
 * slab files) made the check's own struct files part of what it measured:
 * before 6.7 each closed file waits for an RCU grace period, and polling
 * every 20 ms while grace periods crawl (a loaded QEMU guest on 6.1) kept
 * tens of the checker's own files in the filp count: "filp +50", freed
 * "late", always up to the same ceiling.
 */
struct probe_file {
	const char *path;
	int flags;
	int fd;		/* 0: not opened yet; -1: unavailable */
};

static int probe_fd(struct probe_file *pf)
{
	if (!pf->fd) {
		pf->fd = open(pf->path, pf->flags | O_CLOEXEC);
		if (pf->fd == 0) {	/* keep 0 meaning "not yet" */
			pf->fd = fcntl(0, F_DUPFD_CLOEXEC, 1);
			close(0);
		}
	}
	return pf->fd;
}

/* The whole file from offset 0 into buf (NUL-terminated); its length or -1. */
static ssize_t probe_read(struct probe_file *pf, char *buf, size_t size)
{
	int fd = probe_fd(pf);
	size_t n = 0;
	ssize_t got;

	if (fd < 0 || !size)
		return -1;
	while (n < size - 1 && (got = pread(fd, buf + n, size - 1 - n, n)) > 0)
		n += got;
	buf[n] = '\0';
	return n;
}

static long probe_long(struct probe_file *pf)
{
	char buf[64], *end;
	long v;

	if (probe_read(pf, buf, sizeof(buf)) <= 0)
		return -1;
	v = strtol(buf, &end, 10);
	return end == buf ? -1 : v;
}

static struct probe_file aio_nr_file = { "/proc/sys/fs/aio-nr", O_RDONLY, 0 };
static struct probe_file slabinfo_file = { "/proc/slabinfo", O_RDONLY, 0 };
static struct probe_file loadavg_file = { "/proc/loadavg", O_RDONLY, 0 };
static struct probe_file shrink_file[SLAB_NR];
static int sanity_checks[SLAB_NR];	/* 0 unknown, 1 on, -1 off or absent */

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
	static char paths[SLAB_NR][96];
	int i, fd;

	for (i = 0; i < SLAB_NR; i++) {
		if (!shrink_file[i].path) {
			snprintf(paths[i], sizeof(paths[i]), "/sys/kernel/slab/%s/shrink",
				 slab_name[i]);
			shrink_file[i] = (struct probe_file){ paths[i], O_WRONLY, 0 };
		}
		fd = probe_fd(&shrink_file[i]);
		if (fd >= 0 && pwrite(fd, "1", 1, 0) < 0) {
			/* not root, or no SLUB: the counts stay as they are */
		}
	}
}

/* /proc/slabinfo: "name active_objs num_objs objsize ...". */
static void read_slabinfo(struct resources *r)
{
	static char buf[1 << 18];
	char name[64], *line, *next;
	long active;
	int i;

	for (i = 0; i < SLAB_NR; i++)
		r->slab[i] = -1;
	flush_cpu_slabs();
	if (probe_read(&slabinfo_file, buf, sizeof(buf)) <= 0)
		return;
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%63s %ld", name, &active) != 2)
			continue;
		for (i = 0; i < SLAB_NR; i++)
			if (!strcmp(name, slab_name[i]))
				r->slab[i] = active;
	}
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

/* Threads alive, kernel threads included: /proc/loadavg's "running/total"
 * (nr_threads), one read of a file kept open. */
static long count_tasks(void)
{
	char buf[128], *slash;

	if (probe_read(&loadavg_file, buf, sizeof(buf)) <= 0)
		return -1;
	slash = strchr(buf, '/');
	return slash ? strtol(slash + 1, NULL, 10) : -1;
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

	r->aio_nr = probe_long(&aio_nr_file);
	read_slabinfo(r);
	/* SLUB debugging (sanity checks or poisoning) turns the per-CPU
	 * slabs off: only then is active_objs the number allocated.  A
	 * cache's setting does not change: read once (then closed). */
	for (i = 0; i < SLAB_NR; i++) {
		if (!sanity_checks[i]) {
			struct probe_file pf = { path, O_RDONLY, 0 };

			snprintf(path, sizeof(path), "/sys/kernel/slab/%s/sanity_checks",
				 slab_name[i]);
			sanity_checks[i] = probe_long(&pf) == 1 ? 1 : -1;
			if (pf.fd > 0)
				close(pf.fd);
		}
		r->slab_exact[i] = r->slab[i] >= 0 && sanity_checks[i] == 1;
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
