// SPDX-License-Identifier: GPL-2.0
/*
 * syncpath: cost of one synchronous file operation, for ci/bench/bench-vm.sh.
 *
 * Meant for a guest booted with `ci/vm/vm-run.sh --icount` (QEMU
 * -icount shift=0,sleep=off): there the guest's clocks advance one
 * nanosecond per executed instruction, so a time delta IS an instruction
 * count.  Built on the host (gcc -O2 -static is not needed: the guest runs
 * the host's root filesystem).
 *
 *   syncpath [-d DIR] [-n N] [-r REPS] [-w WARMUP] [-c CPU] [-t TAG] [-H FILE] OP...
 *
 * OP is one of
 *   pread4k   pread() of 4 KiB at offset 0 of a cached file
 *   pread64k  pread() of 64 KiB at offset 0 of a cached file
 *   cold4k    pread() of 4 KiB after POSIX_FADV_DONTNEED of that range
 *             (the file is POSIX_FADV_RANDOM, so the miss reads one page)
 *   write4k   pwrite() of 4 KiB at offset 0 of a cached, allocated file
 *
 * For each OP: WARMUP untimed iterations, then REPS timed repetitions.  A
 * repetition is two loops of N iterations:
 *   1. plain: the N operations back to back, timed as a whole;
 *   2. instrumented: each operation timed alone (rdtsc around a cached op,
 *      clock_gettime(CLOCK_THREAD_CPUTIME_ID) around a cold read, whose
 *      wall time includes the device wait), for the per-op distribution.
 * One JSON object per repetition on stdout:
 *   mono_ns    loop 1: CLOCK_MONOTONIC delta / N (wall virtual time: includes
 *              timer ticks and any other interrupt, and for cold4k the
 *              device wait and idle warps)
 *   cpu_ns     loop 1: CLOCK_THREAD_CPUTIME_ID delta / N
 *   tsc        loop 1: rdtsc delta / N
 *   med, min, p10, p90, mean, tmean   loop 2: per-op cost, minus the cost
 *              of an empty timing pair (tsc_pair / cpu_pair); tmean is the
 *              mean of the middle 80%.  The median is the exact
 *              instruction count of the uninterrupted path
 * For cold4k the fadvise(DONTNEED) that makes the next
 * read miss is outside the timed region of loop 2 but inside
 * loop 1.
 * Under QEMU -icount shift=0,sleep=off the guest TSC runs at 1 GHz of
 * virtual time = 1 tick per instruction, so rdtsc deltas are instruction
 * counts; thread CPU time (sched_clock, from the TSC) likewise counts only
 * instructions executed while this thread was on the CPU.
 * The program binds itself to CPU -c (default 0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static const char *dir = ".";
static long iters = 100000, reps = 2, warm = -1;
static const char *tag = "";
static FILE *dump;		/* -H FILE: every per-op sample, unsorted */

static void die(const char *what)
{
	fprintf(stderr, "syncpath: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* posix_fadvise returns the error instead of setting errno. */
static void fadvise(int fd, off_t off, off_t len, int advice, const char *what)
{
	int e = posix_fadvise(fd, off, len, advice);

	if (e) {
		errno = e;
		die(what);
	}
}

static inline uint64_t ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* A file of `size` bytes of non-zero data, allocated on disk and cached. */
static int make_file(const char *name, size_t size)
{
	char path[4096];
	char *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(path);
	buf = malloc(size);
	if (!buf)
		die("malloc");
	memset(buf, 0x5a, size);
	if (pwrite(fd, buf, size, 0) != (ssize_t)size)
		die("pwrite (setup)");
	/*
	 * Timestamps that keep the atime check on one path: relatime compares
	 * mtime and ctime with atime, and timespec64_compare() takes a few more
	 * instructions when the seconds are equal, which for a file written a
	 * moment ago depends on where a second boundary fell.  With atime an
	 * hour ahead and mtime an hour back every comparison is decided by
	 * tv_sec, and no read updates atime.
	 */
	{
		struct timespec now, ts[2];

		clock_gettime(CLOCK_REALTIME, &now);
		ts[0] = now;
		ts[0].tv_sec += 3600;
		ts[1] = now;
		ts[1].tv_sec -= 3600;
		if (futimens(fd, ts))
			die("futimens");
	}
	if (fsync(fd))
		die("fsync");
	free(buf);
	return fd;
}

struct res {
	double mono, cpu, tsc;
	double med, min, p10, p90, mean, tmean;
};

static uint64_t *samples;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static inline void one(int fd, char *buf, size_t len, int wr)
{
	if ((wr ? pwrite(fd, buf, len, 0) : pread(fd, buf, len, 0)) != (ssize_t)len)
		die(wr ? "pwrite" : "pread");
}

static inline void drop(int fd, size_t len)
{
	fadvise(fd, 0, len, POSIX_FADV_DONTNEED, "fadvise DONTNEED");
}

static void run(int fd, size_t len, int cold, int wr, char *buf, long n,
		struct res *r, double tsc_pair, double cpu_pair)
{
	uint64_t m0, c0, t0;
	double sum = 0, pair = cold ? cpu_pair : tsc_pair;
	long i;

	/* 1. plain loop */
	m0 = ns(CLOCK_MONOTONIC);
	c0 = ns(CLOCK_THREAD_CPUTIME_ID);
	t0 = __rdtsc();
	for (i = 0; i < n; i++) {
		if (cold)
			drop(fd, len);
		one(fd, buf, len, wr);
	}
	r->tsc = (double)(__rdtsc() - t0) / n;
	r->cpu = (double)(ns(CLOCK_THREAD_CPUTIME_ID) - c0) / n;
	r->mono = (double)(ns(CLOCK_MONOTONIC) - m0) / n;

	/* 2. each op timed alone */
	for (i = 0; i < n; i++) {
		uint64_t a, b;

		if (cold) {
			drop(fd, len);
			a = ns(CLOCK_THREAD_CPUTIME_ID);
			one(fd, buf, len, wr);
			b = ns(CLOCK_THREAD_CPUTIME_ID);
		} else {
			a = __rdtsc();
			one(fd, buf, len, wr);
			b = __rdtsc();
		}
		samples[i] = b - a;
		sum += b - a;
	}
	if (dump) {
		for (i = 0; i < n; i++)
			fprintf(dump, "%s %ld %llu\n", tag, i, (unsigned long long)samples[i]);
		fflush(dump);
	}
	qsort(samples, n, sizeof(*samples), cmp_u64);
	r->med = (n & 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0) - pair;
	r->min = samples[0] - pair;
	r->p10 = samples[n / 10] - pair;
	r->p90 = samples[n * 9 / 10] - pair;
	r->mean = sum / n - pair;
	{
		long lo = n / 10, hi = n - n / 10, k;
		double t = 0;

		for (k = lo; k < hi; k++)
			t += samples[k];
		r->tmean = t / (hi - lo) - pair;
	}
}

/*
 * What an empty timing pair reads as b - a: the median over many, so a tick
 * landing in one does not count.
 */
static double pair_cost(int cpu_clock)
{
	long i, n = 20001;

	for (i = 0; i < n; i++) {
		uint64_t a, b;

		if (cpu_clock) {
			a = ns(CLOCK_THREAD_CPUTIME_ID);
			b = ns(CLOCK_THREAD_CPUTIME_ID);
		} else {
			a = __rdtsc();
			b = __rdtsc();
		}
		samples[i] = b - a;
	}
	qsort(samples, n, sizeof(*samples), cmp_u64);
	return samples[n / 2];
}

static void usage(void)
{
	fprintf(stderr, "usage: syncpath [-d DIR] [-n N] [-r REPS] [-w WARMUP] "
		"[-c CPU] [-t TAG] pread4k|pread64k|cold4k|write4k...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int cpu = 0, c, i;
	cpu_set_t set;
	char *buf;
	double tsc_pair, cpu_pair;

	while ((c = getopt(argc, argv, "d:n:r:w:c:t:H:")) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'n': iters = atol(optarg); break;
		case 'r': reps = atol(optarg); break;
		case 'w': warm = atol(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		case 't': tag = optarg; break;
		case 'H':
			dump = fopen(optarg, "a");
			if (!dump)
				die(optarg);
			break;
		default: usage();
		}
	}
	if (optind >= argc || iters <= 0 || reps <= 0)
		usage();
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	if (posix_memalign((void **)&buf, 4096, 1 << 20))
		die("posix_memalign");
	memset(buf, 0xa5, 1 << 20);
	samples = calloc(iters > 20001 ? iters : 20001, sizeof(*samples));
	if (!samples)
		die("calloc");
	tsc_pair = pair_cost(0);
	cpu_pair = pair_cost(1);

	for (i = optind; i < argc; i++) {
		const char *op = argv[i];
		size_t len = 4096, fsize = 1 << 20;
		int cold = 0, wr = 0, fd;
		long n = iters, w, r;
		struct res res;

		if (!strcmp(op, "pread4k"))
			;
		else if (!strcmp(op, "pread64k"))
			len = 65536;
		else if (!strcmp(op, "cold4k"))
			cold = 1;
		else if (!strcmp(op, "write4k"))
			wr = 1;
		else
			usage();
		fd = make_file(op, fsize);
		if (cold)
			fadvise(fd, 0, 0, POSIX_FADV_RANDOM, "fadvise RANDOM");
		/* Warm up: fault the buffer, cache the page, settle the slabs. */
		w = warm >= 0 ? warm : n / 4;
		if (w)
			run(fd, len, cold, wr, buf, w, &res, tsc_pair, cpu_pair);
		for (r = 1; r <= reps; r++) {
			run(fd, len, cold, wr, buf, n, &res, tsc_pair, cpu_pair);
			printf("{\"tag\":\"%s\",\"op\":\"%s\",\"rep\":%ld,\"n\":%ld,"
			       "\"mono_ns\":%.3f,\"cpu_ns\":%.3f,\"tsc\":%.3f,"
			       "\"per_op_clock\":\"%s\",\"med\":%.1f,\"min\":%.1f,"
			       "\"p10\":%.1f,\"p90\":%.1f,\"mean\":%.3f,\"tmean\":%.3f,\"pair\":%.1f}\n",
			       tag, op, r, n, res.mono, res.cpu, res.tsc,
			       cold ? "thread_cputime" : "rdtsc", res.med, res.min,
			       res.p10, res.p90, res.mean, res.tmean, cold ? cpu_pair : tsc_pair);
			fflush(stdout);
		}
		close(fd);
	}
	return 0;
}
