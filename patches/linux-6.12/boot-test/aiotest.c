// Boot test for the fsaio patches: cold buffered libaio reads.
#define _GNU_SOURCE
#include <libaio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NR 64
#define STRIDE (1 << 20)		/* 1 MiB apart: no shared readahead */
#define FILESZ ((off_t)NR * STRIDE + 12345)

static int fails;
static int testno;

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%s %d - ", cond ? "ok" : "not ok", ++testno);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	if (!cond)
		fails++;
}

static uint64_t pat(off_t off) { return (uint64_t)off * 0x9E3779B97F4A7C15ull ^ 0xf5a10f5a10ull; }

static int check(const char *buf, off_t off, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		off_t o = off + i;
		uint64_t w = pat(o & ~7);
		if ((unsigned char)buf[i] != ((w >> ((o & 7) * 8)) & 0xff))
			return 0;
	}
	return 1;
}

static void make_file(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	char *b = malloc(1 << 20);
	if (fd < 0) { perror("open"); exit(2); }
	for (off_t off = 0; off < FILESZ; off += 1 << 20) {
		size_t n = FILESZ - off < (1 << 20) ? FILESZ - off : (1 << 20);
		for (size_t i = 0; i < n; i += 8) {
			uint64_t w = pat(off + i);
			memcpy(b + i, &w, n - i < 8 ? n - i : 8);
		}
		if (pwrite(fd, b, n, off) != (ssize_t)n) { perror("pwrite"); exit(2); }
	}
	fsync(fd);
	close(fd);
	free(b);
}

static void drop(const char *path)
{
	int fd = open(path, O_RDONLY);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	char pp[256];
	snprintf(pp, sizeof(pp), "%s/sys/vm/drop_caches", getenv("PROCDIR") ? getenv("PROCDIR") : "/proc");
	int d = open(pp, O_WRONLY);
	if (d >= 0) { if (write(d, "3", 1) < 0) {} close(d); }
}

static long nvcsw(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* n reads of len at i*STRIDE+skew; returns voluntary switches in io_submit */
static long batch(const char *path, int n, size_t len, off_t skew, int vectored,
		  const char *name)
{
	io_context_t ctx = 0;
	struct iocb cbs[NR], *cbp[NR];
	struct iovec iov[NR][3];
	struct io_event ev[NR];
	char *bufs[NR];
	int seen[NR] = { 0 };
	int fd = open(path, O_RDONLY);
	int good = 1, got = 0;

	if (io_setup(NR, &ctx)) { perror("io_setup"); exit(2); }
	for (int i = 0; i < n; i++) {
		off_t off = (off_t)i * STRIDE + skew;
		bufs[i] = aligned_alloc(4096, len + 4096);
		memset(bufs[i], 0xaa, len);
		if (vectored) {
			size_t a = len / 3, b = len / 3;
			iov[i][0] = (struct iovec){ bufs[i], a };
			iov[i][1] = (struct iovec){ bufs[i] + a, b };
			iov[i][2] = (struct iovec){ bufs[i] + a + b, len - a - b };
			io_prep_preadv(&cbs[i], fd, iov[i], 3, off);
		} else {
			io_prep_pread(&cbs[i], fd, bufs[i], len, off);
		}
		cbs[i].data = (void *)(uintptr_t)(i + 1000);
		cbp[i] = &cbs[i];
	}
	long before = nvcsw();
	double t0 = now();
	int r = io_submit(ctx, n, cbp);
	double t1 = now();
	long sw = nvcsw() - before;
	if (r != n) { printf("# io_submit returned %d\n", r); good = 0; }
	while (got < n) {
		int k = io_getevents(ctx, 1, NR, ev, NULL);
		if (k < 0) { printf("# getevents %d\n", k); good = 0; break; }
		for (int j = 0; j < k; j++) {
			int i = (struct iocb *)ev[j].obj - cbs;
			off_t off = (off_t)i * STRIDE + skew;
			long exp = off >= FILESZ ? 0 : (FILESZ - off < (off_t)len ? FILESZ - off : (long)len);
			if (i < 0 || i >= n || seen[i]++ || (uintptr_t)ev[j].data != (uintptr_t)(i + 1000)) {
				printf("# bad/duplicate event obj=%p\n", ev[j].obj); good = 0; continue;
			}
			if ((long)ev[j].res != exp) {
				printf("# req %d res %ld expected %ld\n", i, (long)ev[j].res, exp); good = 0;
			} else if (exp && !check(bufs[i], off, exp)) {
				printf("# req %d data mismatch\n", i); good = 0;
			}
		}
		got += k;
	}
	ok(good, "%s: %d reads of %zu bytes%s: data and results correct, each completed once (submit %.1f ms, %ld voluntary switches in io_submit)",
	   name, n, len, vectored ? " (preadv x3)" : "", (t1 - t0) * 1e3, sw);
	io_destroy(ctx);
	for (int i = 0; i < n; i++) free(bufs[i]);
	close(fd);
	return sw;
}

/* n O_SYNC/O_DSYNC writes of len at i*stride; verify with O_DIRECT */
static long wbatch(const char *path, int n, size_t len, off_t stride, int oflags,
		   int creat, const char *name)
{
	io_context_t ctx = 0;
	struct iocb cbs[NR], *cbp[NR];
	struct io_event ev[NR];
	char *bufs[NR];
	int seen[NR] = { 0 };
	int fd = open(path, O_RDWR | oflags | (creat ? O_CREAT | O_TRUNC : 0), 0644);
	int good = 1, got = 0;

	if (fd < 0) { perror("open w"); exit(2); }
	if (io_setup(NR, &ctx)) { perror("io_setup"); exit(2); }
	for (int i = 0; i < n; i++) {
		off_t off = (off_t)i * stride;
		bufs[i] = aligned_alloc(4096, len + 4096);
		for (size_t k = 0; k < len; k += 8) {
			uint64_t w = pat(off + k);
			memcpy(bufs[i] + k, &w, 8);
		}
		io_prep_pwrite(&cbs[i], fd, bufs[i], len, off);
		cbs[i].data = (void *)(uintptr_t)(i + 2000);
		cbp[i] = &cbs[i];
	}
	long before = nvcsw();
	double t0 = now();
	int r = io_submit(ctx, n, cbp);
	double t1 = now();
	long sw = nvcsw() - before;
	if (r != n) { printf("# io_submit returned %d\n", r); good = 0; }
	while (got < n) {
		int k = io_getevents(ctx, 1, NR, ev, NULL);
		if (k < 0) { good = 0; break; }
		for (int j = 0; j < k; j++) {
			int i = (struct iocb *)ev[j].obj - cbs;
			if (i < 0 || i >= n || seen[i]++) { good = 0; continue; }
			if ((long)ev[j].res != (long)len) {
				printf("# wreq %d res %ld\n", i, (long)ev[j].res); good = 0;
			}
		}
		got += k;
	}
	io_destroy(ctx);
	close(fd);
	/* read back bypassing the page cache */
	fd = open(path, O_RDONLY | O_DIRECT);
	char *rb = aligned_alloc(4096, len);
	for (int i = 0; i < n && good; i++) {
		off_t off = (off_t)i * stride;
		if (pread(fd, rb, len, off) != (ssize_t)len || !check(rb, off, len)) {
			printf("# wreq %d read-back mismatch\n", i); good = 0;
		}
	}
	free(rb);
	close(fd);
	ok(good, "%s: %d writes of %zu bytes: results and read-back correct, each completed once (submit %.1f ms, %ld voluntary switches in io_submit)",
	   name, n, len, (t1 - t0) * 1e3, sw);
	for (int i = 0; i < n; i++) free(bufs[i]);
	return sw;
}

static void trunc_test(const char *path)
{
	io_context_t ctx = 0;
	struct iocb cbs[NR], *cbp[NR];
	struct io_event ev[NR];
	static char bufs[NR][16384];
	int fd = open(path, O_RDWR), good = 1, got = 0, seen[NR] = { 0 };
	off_t half = FILESZ / 2;

	drop(path);
	io_setup(NR, &ctx);
	for (int i = 0; i < NR; i++) {
		io_prep_pread(&cbs[i], fd, bufs[i], sizeof(bufs[i]), (off_t)i * STRIDE);
		cbp[i] = &cbs[i];
	}
	int r = io_submit(ctx, NR, cbp);
	if (ftruncate(fd, half)) perror("ftruncate");
	while (got < r) {
		int k = io_getevents(ctx, 1, NR, ev, NULL);
		if (k < 0) { good = 0; break; }
		for (int j = 0; j < k; j++) {
			int i = (struct iocb *)ev[j].obj - cbs;
			long res = ev[j].res;
			if (i < 0 || i >= NR || seen[i]++) { good = 0; continue; }
			if (res < 0 || res > 16384 || (res && !check(bufs[i], (off_t)i * STRIDE, res))) {
				printf("# trunc req %d res %ld bad\n", i, res); good = 0;
			}
		}
		got += k;
	}
	io_destroy(ctx);
	close(fd);
	ok(good && r == NR, "truncate during %d cold reads: every request completed once with correct bytes", NR);
	make_file(path);
}

static void set_sysctl(const char *v)
{
	char pp[256];
	snprintf(pp, sizeof(pp), "%s/sys/fs/aio-buffered-async", getenv("PROCDIR") ? getenv("PROCDIR") : "/proc");
	int fd = open(pp, O_WRONLY);
	if (fd < 0) { printf("# no fs.aio-buffered-async\n"); return; }
	if (write(fd, v, 1) < 0) perror("sysctl");
	close(fd);
}

static void inflight_exit(const char *path, int destroy)
{
	drop(path);
	pid_t p = fork();
	if (!p) {
		io_context_t ctx = 0;
		struct iocb cbs[NR], *cbp[NR];
		int fd = open(path, O_RDONLY);
		static char buf[NR][16384];
		io_setup(NR, &ctx);
		for (int i = 0; i < NR; i++) {
			io_prep_pread(&cbs[i], fd, buf[i], sizeof(buf[i]), (off_t)i * STRIDE);
			cbp[i] = &cbs[i];
		}
		int r = io_submit(ctx, NR, cbp);
		if (destroy) {
			/* io_cancel of an in-flight buffered read: -EINVAL, not a UAF */
			struct io_event e;
			int c = io_cancel(ctx, &cbs[NR - 1], &e);
			printf("# child: io_submit %d, io_cancel %d, io_destroy...\n", r, c);
			io_destroy(ctx);
			printf("# child: io_destroy returned\n");
		}
		_exit(r == NR ? 0 : 1);
	}
	int st;
	waitpid(p, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s with %d reads in flight",
	   destroy ? "io_cancel + io_destroy" : "exit", NR);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/mnt/fsaio-test.dat";
	if (argc > 2 && !strcmp(argv[2], "ra0")) {
		/* readahead off: one folio per round, many retries per request */
		printf("TAP version 13\n1..2\n");
		drop(path);
		batch(path, 16, 65536, 0, 0, "ra0 cold 64 KiB");
		drop(path);
		batch(path, 16, 65536 + 300, 100, 1, "ra0 cold vectored");
		return fails ? 1 : 0;
	}
	make_file(path);
	printf("TAP version 13\n1..16\n");

	set_sysctl("0");
	drop(path);
	long sw0 = batch(path, NR, 4096, 0, 0, "stock (sysctl 0) cold");
	set_sysctl("1");
	drop(path);
	long sw1 = batch(path, NR, 4096, 0, 0, "async cold");
	ok(sw1 < NR / 4, "async: io_submit did not sleep per request (%ld switches; stock %ld)", sw1, sw0);
	batch(path, NR, 4096, 0, 0, "async cached");
	drop(path);
	batch(path, NR, 3 * 4096 + 100, 777, 1, "async cold vectored unaligned");
	drop(path);
	batch(path, 8, 1 << 20, 0, 0, "async cold 1 MiB");
	drop(path);
	/* last request crosses EOF: short read */
	batch(path, NR, 16384 + 1000, (off_t)STRIDE + 12345 - 1000, 0, "async cold crossing EOF");
	inflight_exit(path, 0);
	inflight_exit(path, 1);
	drop(path);
	set_sysctl("1");
	batch(path, NR, 4096, 0, 0, "async cold again after exits");
	trunc_test(path);
	char wpath[512];
	snprintf(wpath, sizeof(wpath), "%s.w", path);
	set_sysctl("0");
	long ws0 = wbatch(path, NR, 4096, STRIDE, O_DSYNC, 0, "stock O_DSYNC overwrite");
	set_sysctl("1");
	long ws1 = wbatch(path, NR, 4096, STRIDE, O_DSYNC, 0, "async O_DSYNC overwrite");
	ok(ws1 < NR / 4, "async O_DSYNC overwrite: io_submit did not sleep per request (%ld switches; stock %ld)", ws1, ws0);
	wbatch(wpath, NR, 16384, 65536, O_SYNC, 1, "async O_SYNC new file (allocating)");
	drop(path);
	batch(path, NR, 4096, 0, 0, "async cold read after O_DSYNC overwrites");
	printf("# %d failures\n", fails);
	return fails ? 1 : 0;
}
