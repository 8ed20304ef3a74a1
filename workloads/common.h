/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Header-only helpers shared by the custom workloads (one program per case).
 *
 * Conventions every workload follows:
 *  - CLI: <prog> [-d DIR] [-n COUNT] [-s FILESIZE] [-h], plus case flags;
 *    files are created in DIR and removed at the end.
 *  - File content is pattern_byte(seed, offset) in data regions and zero in
 *    holes, so any byte read back can be checked without keeping a copy.
 *  - Test files are fsync'ed and dropped from the page cache before use, so
 *    buffered reads are cold and really wait on the device.
 *  - Last line on stdout, parsed by the harness (counts must be exact):
 *      fsaio-workload: name=N engine=E submitted=N completed=N errors=N
 *                      bytes=N verified=N [abandoned=N]
 *    submitted/completed: async requests accepted by io_submit/io_uring and
 *    reaped as io_event/CQE; errors: requests with a wrong result or wrong
 *    data; bytes: sum of positive results; verified: requests (async and,
 *    in mixed cases, sync) whose every byte matched; abandoned (only when
 *    not 0): requests left unreaped on purpose to io_destroy or to the exit
 *    of the process that submitted them.
 *  - Exit status (harness/exit_status.h, one table for all of fsaio):
 *    EXIT_PASS 0, EXIT_FAIL 1 (mismatch, unexpected result, or an error
 *    that stopped the case: wl_die), EXIT_SKIP 4 (wl_skip), EXIT_USAGE 64
 *    (bad flag or value, -d not a directory).
 */
#ifndef FSAIO_WORKLOADS_COMMON_H
#define FSAIO_WORKLOADS_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libaio.h>
#include <liburing.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "exit_status.h"	/* harness/: EXIT_PASS, EXIT_FAIL, EXIT_SKIP, EXIT_USAGE */

#define WL_PAGE		4096u
#define WL_MAX_COUNT	4096u	/* one io_setup / one ring holds them all */

/* ---- options ----------------------------------------------------------- */

struct wl_opts {
	const char *name;	/* workload name, for the final line */
	const char *dir;
	unsigned count;
	uint64_t size;
	bool size_set;		/* -s given: cases derive defaults otherwise */
};

/* Parse "123", "64k", "4m", "1g" (binary units). Returns 0 or -1. */
static inline int wl_parse_size(const char *s, uint64_t *out)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

/*
 * Parse the common flags.  extra_opts/extra let a case add its own
 * single-letter flags (extra returns 0, or -1 for a usage error).
 * Exits with EXIT_USAGE (or EXIT_PASS for -h) itself.
 */
static inline void wl_getopt(int argc, char **argv, struct wl_opts *o,
			     const char *help, const char *extra_opts,
			     int (*extra)(int c, const char *arg))
{
	char optstr[64];
	int c;

	snprintf(optstr, sizeof(optstr), "d:n:s:h%s", extra_opts ? extra_opts : "");
	if (!o->dir)
		o->dir = ".";
	while ((c = getopt(argc, argv, optstr)) != -1) {
		switch (c) {
		case 'd':
			o->dir = optarg;
			break;
		case 'n':
			o->count = strtoul(optarg, NULL, 0);
			if (!o->count || o->count > WL_MAX_COUNT)
				goto usage;
			break;
		case 's':
			if (wl_parse_size(optarg, &o->size) || !o->size)
				goto usage;
			o->size_set = true;
			break;
		case 'h':
			printf("usage: %s [-d DIR] [-n COUNT] [-s FILESIZE]%s\n%s",
			       o->name, extra_opts ? " [case flags]" : "", help);
			exit(EXIT_PASS);
		default:
			if (extra && strchr(extra_opts ? extra_opts : "", c) &&
			    extra(c, optarg) == 0)
				break;
			goto usage;
		}
	}
	if (optind == argc) {
		struct stat sb;

		if (stat(o->dir, &sb) == 0 && S_ISDIR(sb.st_mode))
			return;
		fprintf(stderr, "%s: -d %s: not a directory\n", o->name, o->dir);
		exit(EXIT_USAGE);
	}
usage:
	fprintf(stderr, "usage: %s [-d DIR] [-n COUNT(1..%u)] [-s FILESIZE] (-h for help)\n",
		o->name, WL_MAX_COUNT);
	exit(EXIT_USAGE);
}

/* ---- result accounting and the final line ----------------------------- */

struct wl_stats {
	uint64_t submitted, completed, errors, bytes, verified, abandoned;
};

static inline int wl_finish(const struct wl_opts *o, const char *engine,
			    const struct wl_stats *st)
{
	bool ok = !st->errors && st->submitted == st->completed + st->abandoned;
	char ab[40] = "";

	if (st->abandoned)
		snprintf(ab, sizeof(ab), " abandoned=%" PRIu64, st->abandoned);
	printf("fsaio-workload: name=%s engine=%s submitted=%" PRIu64
	       " completed=%" PRIu64 " errors=%" PRIu64 " bytes=%" PRIu64
	       " verified=%" PRIu64 "%s\n", o->name, engine, st->submitted,
	       st->completed, st->errors, st->bytes, st->verified, ab);
	fflush(stdout);
	return ok ? EXIT_PASS : EXIT_FAIL;
}

/* Print "# SKIP ..." and exit EXIT_SKIP (4), kselftest style. */
static inline void __attribute__((noreturn)) wl_skip(const char *what, int err)
{
	printf("# SKIP %s: %s\n", what, strerror(err));
	exit(EXIT_SKIP);
}

static inline void __attribute__((noreturn)) wl_die(const char *what, int err)
{
	fprintf(stderr, "error: %s: %s\n", what, strerror(err));
	exit(EXIT_FAIL);
}

/* ---- deterministic content --------------------------------------------- */

/* splitmix64 finaliser: cheap, and every bit depends on offset and seed. */
static inline uint64_t wl_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* The byte at offset of a file written with seed (8 bytes per hash). */
static inline uint8_t pattern_byte(uint64_t seed, uint64_t off)
{
	uint64_t h = wl_mix((off >> 3) ^ (seed * 0x9e3779b97f4a7c15ULL));

	return (uint8_t)(h >> ((off & 7) * 8));
}

static inline void pattern_fill(uint64_t seed, uint64_t off, void *buf,
				size_t len)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = pattern_byte(seed, off + i);
}

/* A byte range [off, off+len) holding pattern data; the rest is a hole. */
struct wl_extent {
	uint64_t off, len;
};

struct wl_file {
	char path[PATH_MAX];
	uint64_t size;
	uint64_t seed;
	const struct wl_extent *data;	/* NULL: the whole file is data */
	unsigned ndata;
};

static inline bool wl_in_data(const struct wl_file *f, uint64_t off)
{
	if (off >= f->size)
		return false;
	if (!f->data)
		return true;
	for (unsigned i = 0; i < f->ndata; i++)
		if (off >= f->data[i].off && off < f->data[i].off + f->data[i].len)
			return true;
	return false;
}

static inline uint8_t wl_expected(const struct wl_file *f, uint64_t off)
{
	return wl_in_data(f, off) ? pattern_byte(f->seed, off) : 0;
}

/*
 * Check buf against what the file holds at [off, off+len).  Prints the
 * first mismatch and returns -1; 0 if every byte matches.
 */
static inline int wl_verify(const struct wl_file *f, const void *buf,
			    uint64_t off, size_t len)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++) {
		uint8_t want = wl_expected(f, off + i);

		if (p[i] != want) {
			fprintf(stderr,
				"mismatch: %s offset %" PRIu64 " (request %" PRIu64
				"+%zu): got 0x%02x want 0x%02x\n", f->path,
				off + i, off, len, p[i], want);
			return -1;
		}
	}
	return 0;
}

/* Expected result of a read of len at off: stops at EOF. */
static inline size_t wl_expected_res(const struct wl_file *f, uint64_t off,
				     size_t len)
{
	if (off >= f->size)
		return 0;
	return f->size - off < len ? f->size - off : len;
}

/* Write all of buf at off (pwrite may be short on signals). */
static inline int wl_pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t r = pwrite(fd, p, len, off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += r;
		len -= r;
		off += r;
	}
	return 0;
}

/* Test files are removed at exit, on the error paths (wl_die) too. */
#define WL_MAX_FILES 8
static char wl_created[WL_MAX_FILES][PATH_MAX];

static inline void wl_remove_all(void)
{
	for (unsigned i = 0; i < WL_MAX_FILES; i++)
		if (wl_created[i][0])
			unlink(wl_created[i]);
}

static inline void wl_track(const char *path)
{
	static bool registered;

	if (!registered && !atexit(wl_remove_all))
		registered = true;
	for (unsigned i = 0; i < WL_MAX_FILES; i++)
		if (!strcmp(wl_created[i], path))
			return;		/* created again: already tracked */
	for (unsigned i = 0; i < WL_MAX_FILES; i++)
		if (!wl_created[i][0]) {
			snprintf(wl_created[i], PATH_MAX, "%s", path);
			return;
		}
}

/*
 * Create f->path in dir with f's size, seed and data extents (holes stay
 * unwritten), fsync it and drop it from the page cache so the next reads
 * are cold.  Dies on error: nothing to test without the file.
 */
static inline void wl_create(struct wl_file *f, const char *dir,
			     const char *name)
{
	static const struct wl_extent whole_file[1];
	const struct wl_extent *ext = f->data ? f->data : whole_file;
	unsigned n = f->data ? f->ndata : 1;
	char buf[64 * 1024];
	int fd;

	snprintf(f->path, sizeof(f->path), "%s/%s.%d", dir, name, (int)getpid());
	fd = open(f->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		wl_die(f->path, errno);
	wl_track(f->path);
	for (unsigned i = 0; i < n; i++) {
		uint64_t off = ext[i].off;
		uint64_t end = f->data ? ext[i].off + ext[i].len : f->size;

		for (; off < end; off += sizeof(buf)) {
			size_t len = end - off < sizeof(buf) ? end - off : sizeof(buf);

			pattern_fill(f->seed, off, buf, len);
			if (wl_pwrite_all(fd, buf, len, off))
				wl_die("write test file", errno);
		}
	}
	/* Extends with a hole (or cuts an extent listed past the size). */
	if (ftruncate(fd, f->size) || fsync(fd))
		wl_die("ftruncate/fsync test file", errno);
	/* Clean pages after fsync, so DONTNEED really drops them. */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
}

/* Open the test file for cold reads; no readahead so each request waits
 * on its own pages only (what the harness counts sleeps against). */
static inline int wl_open_cold(const struct wl_file *f, int flags)
{
	int fd = open(f->path, flags | O_CLOEXEC);

	if (fd < 0)
		wl_die(f->path, errno);
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return fd;
}

static inline void *wl_alloc(size_t len)
{
	void *p;

	/* Page-aligned so the same buffers also work for O_DIRECT. */
	if (posix_memalign(&p, WL_PAGE, len ? len : 1))
		wl_die("posix_memalign", ENOMEM);
	memset(p, 0xa5, len);	/* not zero: a missed copy must not pass a hole */
	return p;
}

/* Deterministic offsets/lengths without rand(): wl_mix of a counter. */
static inline uint64_t wl_rand(uint64_t seed, uint64_t i, uint64_t range)
{
	return range ? wl_mix(seed ^ (i * 0x2545f4914f6cdd1dULL)) % range : 0;
}

/* ---- exactly-once bookkeeping ------------------------------------------ */

/*
 * seen[i] counts completions of request i; a completion for an unknown id
 * or a second one for the same id is an error the harness must also see.
 */
static inline int wl_mark_done(unsigned char *seen, unsigned n, uint64_t id)
{
	if (id >= n) {
		fprintf(stderr, "completion for unknown request %" PRIu64 "\n", id);
		return -1;
	}
	if (seen[id]++) {
		fprintf(stderr, "request %" PRIu64 " completed twice\n", id);
		return -1;
	}
	return 0;
}

/* ---- engine setup with kselftest skips --------------------------------- */

static inline void wl_aio_setup(unsigned depth, io_context_t *ctx)
{
	int ret;

	*ctx = 0;
	ret = io_setup(depth, ctx);	/* libaio returns -errno */
	if (ret == -ENOSYS || ret == -EPERM)
		wl_skip("libaio unavailable: io_setup", -ret);
	if (ret == -EAGAIN)
		wl_die("io_setup (raise /proc/sys/fs/aio-max-nr)", -ret);
	if (ret < 0)
		wl_die("io_setup", -ret);
}

/* Submit all n iocbs, looping over partial submissions.  Returns how many
 * the kernel accepted (counted as submitted even if a later call fails). */
static inline unsigned wl_aio_submit_all(io_context_t ctx, struct iocb **iocbs,
					 unsigned n)
{
	unsigned done = 0;

	while (done < n) {
		int ret = io_submit(ctx, n - done, iocbs + done);

		if (ret == -EINTR || ret == -EAGAIN)
			continue;
		if (ret <= 0) {
			fprintf(stderr, "io_submit: %s\n", strerror(ret ? -ret : EIO));
			break;
		}
		done += ret;
	}
	return done;
}

static inline void wl_uring_setup(unsigned entries, struct io_uring *ring)
{
	int ret = io_uring_queue_init(entries, ring, 0);

	if (ret == -ENOSYS || ret == -EPERM)
		wl_skip("io_uring unavailable: io_uring_queue_init", -ret);
	if (ret < 0)
		wl_die("io_uring_queue_init", -ret);
}

/* ---- completion handling ----------------------------------------------- */

#define WL_TIMEOUT_S	60	/* a lost completion fails instead of hanging */

/* Per-case check of one completion: 0 if res and data are right. */
typedef int (*wl_check_fn)(uint64_t id, long res, void *arg);

struct wl_reap {
	unsigned nreq;		/* ids are 0..nreq-1 */
	unsigned char *seen;	/* nreq counters, zeroed */
	wl_check_fn check;
	void *arg;
};

static inline void wl_account(struct wl_stats *st, struct wl_reap *r,
			      uint64_t id, long res)
{
	st->completed++;
	if (res > 0)
		st->bytes += res;
	if (wl_mark_done(r->seen, r->nreq, id) || r->check(id, res, r->arg))
		st->errors++;
	else
		st->verified++;
}

static inline void wl_aio_account(struct wl_stats *st, struct wl_reap *r,
				  const struct io_event *ev, int n)
{
	for (int i = 0; i < n; i++)
		wl_account(st, r, (uintptr_t)ev[i].data, (long)ev[i].res);
}

/* io_getevents until nr more requests are reaped (or timeout); never
 * more than nr, so the rest stay in the ring. */
static inline void wl_aio_reap_n(io_context_t ctx, struct wl_stats *st,
				 struct wl_reap *r, uint64_t nr)
{
	struct io_event ev[64];

	while (nr) {
		struct timespec ts = { WL_TIMEOUT_S, 0 };
		int n = io_getevents(ctx, 1, nr < 64 ? nr : 64, ev, &ts);

		if (n == -EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "io_getevents: %s with %" PRIu64 " in flight\n",
				n ? strerror(-n) : "timed out", nr);
			st->errors++;
			return;
		}
		wl_aio_account(st, r, ev, n);
		nr -= n;
	}
}

/* io_getevents until every submitted request is reaped (or timeout). */
static inline void wl_aio_reap(io_context_t ctx, struct wl_stats *st,
			       struct wl_reap *r)
{
	wl_aio_reap_n(ctx, st, r, st->submitted - st->completed - st->abandoned);
}

/* After the last expected completion nothing more may arrive. */
static inline void wl_aio_expect_idle(io_context_t ctx, struct wl_stats *st,
				      struct wl_reap *r)
{
	struct timespec zero = { 0, 0 };
	struct io_event ev[8];
	int n = io_getevents(ctx, 0, 8, ev, &zero);

	if (n > 0) {
		fprintf(stderr, "%d unexpected extra io_events\n", n);
		wl_aio_account(st, r, ev, n);
	}
}

static inline void wl_uring_reap(struct io_uring *ring, struct wl_stats *st,
				 struct wl_reap *r)
{
	while (st->completed < st->submitted) {
		/* Kernels with IORING_FEAT_EXT_ARG: no extra timeout SQE. */
		struct __kernel_timespec ts = { WL_TIMEOUT_S, 0 };
		struct io_uring_cqe *cqe;
		int ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);

		if (ret == -EINTR)
			continue;
		if (ret < 0) {
			fprintf(stderr, "io_uring_wait_cqe: %s with %" PRIu64 " in flight\n",
				strerror(-ret), st->submitted - st->completed);
			st->errors++;
			return;
		}
		wl_account(st, r, cqe->user_data, cqe->res);
		io_uring_cqe_seen(ring, cqe);
	}
}

static inline void wl_uring_expect_idle(struct io_uring *ring,
					struct wl_stats *st, struct wl_reap *r)
{
	struct io_uring_cqe *cqe;

	while (io_uring_peek_cqe(ring, &cqe) == 0) {
		fprintf(stderr, "unexpected extra CQE user_data=%llu res=%d\n",
			(unsigned long long)cqe->user_data, cqe->res);
		wl_account(st, r, cqe->user_data, cqe->res);
		io_uring_cqe_seen(ring, cqe);
	}
}

/* Submit everything queued in the SQ; returns how many were accepted. */
static inline unsigned wl_uring_submit_all(struct io_uring *ring, unsigned n)
{
	unsigned done = 0;

	while (done < n) {
		int ret = io_uring_submit(ring);

		if (ret == -EINTR || ret == -EAGAIN)
			continue;
		if (ret <= 0) {
			fprintf(stderr, "io_uring_submit: %s\n",
				strerror(ret ? -ret : EIO));
			break;
		}
		done += ret;
	}
	return done;
}

/* ---- request tables shared by the libaio and io_uring twins ------------ */

#define WL_UNALIGNED_SIZE	((1u << 20) + 555)	/* EOF mid-page */

/*
 * Request i of n for the *_read_unaligned cases: offset 4096*k+123 and
 * length 3000..9000, except the last two: one crossing EOF (short read of
 * 1000 bytes) and one wholly beyond EOF (res 0).  Needs size >= 16 KiB.
 */
static inline void wl_unaligned_req(const struct wl_file *f, unsigned i,
				    unsigned n, uint64_t *off, size_t *len)
{
	uint64_t pages = f->size / WL_PAGE;

	if (i == n - 2) {
		*off = f->size - 1000;
		*len = 4000;
	} else if (i == n - 1) {
		*off = f->size + 5000;
		*len = 4096;
	} else {
		*off = WL_PAGE * wl_rand(f->seed, i, pages - 3) + 123;
		*len = 3000 + wl_rand(~f->seed, i, 6001);
	}
}

/* Bytes past the result must be untouched (buffers start as 0xa5). */
static inline int wl_check_tail(const void *buf, size_t res, size_t len)
{
	const uint8_t *p = buf;

	for (size_t i = res; i < len; i++)
		if (p[i] != 0xa5) {
			fprintf(stderr, "byte %zu past result %zu was written\n",
				i, res);
			return -1;
		}
	return 0;
}

/* iovec layout for the vectored cases: odd sizes, odd buffer addresses. */
#define WL_NIOV		5
#define WL_IOV_SLOT	(16u * 1024)	/* per-request buffer space */

static inline size_t wl_iov_layout(char *slot, unsigned i, struct iovec *iov)
{
	static const size_t sizes[WL_NIOV] = { 1000, 3, 4096, 777, 2221 };
	size_t total = 0, pos = 1 + i % 7;	/* start unaligned */

	for (unsigned k = 0; k < WL_NIOV; k++) {
		iov[k].iov_base = slot + pos;
		iov[k].iov_len = sizes[k] + (k == WL_NIOV - 1 ? i % 13 : 0);
		pos += iov[k].iov_len + 5;	/* gap: segments never touch */
		total += iov[k].iov_len;
	}
	return total;
}

/* Verify a vectored read that returned res bytes of total at off. */
static inline int wl_verify_iov(const struct wl_file *f, const struct iovec *iov,
				unsigned niov, uint64_t off, size_t res)
{
	for (unsigned k = 0; k < niov; k++) {
		size_t n = res < iov[k].iov_len ? res : iov[k].iov_len;

		if (wl_verify(f, iov[k].iov_base, off, n) ||
		    wl_check_tail(iov[k].iov_base, n, iov[k].iov_len))
			return -1;
		off += n;
		res -= n;
	}
	return 0;
}

/* ---- read cases: one request table, both engines ----------------------- */

/* Request i of a read case: where it reads, how much, into what. */
struct wl_rd {
	uint64_t off;
	size_t len;		/* bytes asked (the iovecs' sum if vectored) */
	char *buf;		/* plain read */
	struct iovec *iov;	/* vectored read, when niov > 0 */
	unsigned niov;
};

/* A read case: the file, its requests (id = index) and their bookkeeping. */
struct wl_reads {
	struct wl_file f;
	struct wl_rd *rd;
	unsigned n;
	char *bufs;		/* n slots, filled with 0xa5 */
	struct wl_reap reap;
};

/* The result of read id must be what the file holds there: exactly up to
 * EOF, every byte matching, nothing written past the result. */
static inline int wl_rd_check(uint64_t id, long res, void *arg)
{
	const struct wl_reads *c = arg;
	const struct wl_rd *q = &c->rd[id];
	size_t want = wl_expected_res(&c->f, q->off, q->len);

	if (res != (long)want) {
		fprintf(stderr, "read %" PRIu64 " at %" PRIu64 "+%zu: res %ld, want %zu\n",
			id, q->off, q->len, res, want);
		return -1;
	}
	if (q->niov)
		return wl_verify_iov(&c->f, q->iov, q->niov, q->off, want);
	return wl_verify(&c->f, q->buf, q->off, want) ||
	       wl_check_tail(q->buf, want, q->len);
}

/* n requests with slot bytes of buffer each; the caller fills c->rd[]. */
static inline void wl_reads_init(struct wl_reads *c, unsigned n, size_t slot)
{
	c->n = n;
	c->rd = calloc(n, sizeof(*c->rd));
	c->bufs = wl_alloc((size_t)n * slot);
	c->reap = (struct wl_reap){ .nreq = n, .seen = calloc(n, 1),
				    .check = wl_rd_check, .arg = c };
	if (!c->rd || !c->reap.seen)
		wl_die("calloc", ENOMEM);
}

/* n reads of len bytes at i * stride into consecutive len-byte slots. */
static inline void wl_strided_reads(struct wl_reads *c, unsigned n,
				    uint64_t stride, size_t len)
{
	wl_reads_init(c, n, len);
	for (unsigned i = 0; i < n; i++)
		c->rd[i] = (struct wl_rd){ .off = i * stride, .len = len,
					   .buf = c->bufs + (size_t)i * len };
}

/* Create c->f in o->dir, drop it from the cache; the fd for cold reads. */
static inline int wl_reads_file(const struct wl_opts *o, struct wl_reads *c)
{
	wl_create(&c->f, o->dir, o->name);
	return wl_open_cold(&c->f, O_RDONLY);
}

#define WL_BATCH_STRIDE	(64u * 1024)

/*
 * The *_read_batch case (also aio_eventfd, mixed_sync_async): COUNT 4 KiB
 * reads at distinct page-aligned offsets, 64 KiB apart or spread evenly
 * over -s FILESIZE.  Returns the cold fd.
 */
static inline int wl_batch_case(const struct wl_opts *o, struct wl_reads *c)
{
	uint64_t stride = o->size_set ?
		(o->size / o->count) & ~(uint64_t)(WL_PAGE - 1) : WL_BATCH_STRIDE;

	if (stride < WL_PAGE) {
		fprintf(stderr, "-s too small for %u distinct 4 KiB reads\n", o->count);
		exit(EXIT_USAGE);
	}
	c->f.size = o->size_set ? o->size : (uint64_t)o->count * WL_BATCH_STRIDE;
	wl_strided_reads(c, o->count, stride, WL_PAGE);
	return wl_reads_file(o, c);
}

/* The *_read_unaligned case: wl_unaligned_req() into unaligned buffers. */
static inline int wl_unaligned_case(const struct wl_opts *o, struct wl_reads *c)
{
	const size_t slot = 16u * 1024;

	c->f.size = o->size_set ? o->size : WL_UNALIGNED_SIZE;
	if (o->count < 3 || c->f.size < 16 * 1024) {
		fprintf(stderr, "need -n >= 3 and -s >= 16k\n");
		exit(EXIT_USAGE);
	}
	wl_reads_init(c, o->count, slot);
	for (unsigned i = 0; i < c->n; i++) {
		struct wl_rd *q = &c->rd[i];

		wl_unaligned_req(&c->f, i, c->n, &q->off, &q->len);
		q->buf = c->bufs + (size_t)i * slot + 1 + i % 61;	/* unaligned */
	}
	return wl_reads_file(o, c);
}

/* The vectored case (aio_preadv, uring_readv): wl_iov_layout() iovecs from
 * unaligned offsets; the last request crosses EOF. */
static inline int wl_iov_case(const struct wl_opts *o, struct wl_reads *c)
{
	struct iovec *iov;

	c->f.size = o->size_set ? o->size : 4u << 20;
	if (o->count < 2 || c->f.size < 64 * 1024) {
		fprintf(stderr, "need -n >= 2 and -s >= 64k\n");
		exit(EXIT_USAGE);
	}
	wl_reads_init(c, o->count, WL_IOV_SLOT);
	iov = calloc((size_t)c->n * WL_NIOV, sizeof(*iov));
	if (!iov)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < c->n; i++) {
		struct wl_rd *q = &c->rd[i];

		q->iov = iov + (size_t)i * WL_NIOV;
		q->niov = WL_NIOV;
		q->len = wl_iov_layout(c->bufs + (size_t)i * WL_IOV_SLOT, i, q->iov);
		q->off = i == c->n - 1 ? c->f.size - q->len / 2 :	/* crosses EOF */
			 WL_PAGE * wl_rand(c->f.seed, i, c->f.size / WL_PAGE - 3) +
			 (i * 37) % WL_PAGE;
	}
	return wl_reads_file(o, c);
}

/* libaio: one iocb per request of c (aio_data = id), not yet submitted. */
static inline struct iocb *wl_aio_prep_reads(const struct wl_reads *c, int fd)
{
	struct iocb *cbs = calloc(c->n, sizeof(*cbs));

	if (!cbs)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < c->n; i++) {
		const struct wl_rd *q = &c->rd[i];

		if (q->niov)
			io_prep_preadv(&cbs[i], fd, q->iov, q->niov, q->off);
		else
			io_prep_pread(&cbs[i], fd, q->buf, q->len, q->off);
		cbs[i].data = (void *)(uintptr_t)i;
	}
	return cbs;
}

/* Submit n iocbs (one io_submit, continued if partial) and count them;
 * fewer accepted than n is an error.  Returns how many were accepted. */
static inline unsigned wl_aio_submit_iocbs(io_context_t ctx, struct iocb *cbs,
					   unsigned n, struct wl_stats *st)
{
	struct iocb **ptrs = calloc(n, sizeof(*ptrs));
	unsigned done;

	if (!ptrs)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < n; i++)
		ptrs[i] = &cbs[i];
	done = wl_aio_submit_all(ctx, ptrs, n);
	free(ptrs);
	st->submitted += done;
	if (done < n)
		st->errors++;
	return done;
}

/* Submit, reap every completion, then make sure nothing else arrives. */
static inline void wl_aio_run(io_context_t ctx, struct iocb *cbs, unsigned n,
			      struct wl_stats *st, struct wl_reap *r)
{
	wl_aio_reap_n(ctx, st, r, wl_aio_submit_iocbs(ctx, cbs, n, st));
	wl_aio_expect_idle(ctx, st, r);
}

/* The whole libaio side of a read case: its own context, one io_submit. */
static inline void wl_aio_reads(struct wl_reads *c, int fd, struct wl_stats *st)
{
	struct iocb *cbs = wl_aio_prep_reads(c, fd);
	io_context_t ctx;

	wl_aio_setup(c->n, &ctx);
	wl_aio_run(ctx, cbs, c->n, st, &c->reap);
	io_destroy(ctx);
	free(cbs);
}

/* The whole io_uring side of a read case on ring (set up by the caller,
 * before creating files, so that a skip leaves nothing behind). */
static inline void wl_uring_reads(struct wl_reads *c, struct io_uring *ring,
				  int fd, struct wl_stats *st)
{
	unsigned done;

	for (unsigned i = 0; i < c->n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
		const struct wl_rd *q = &c->rd[i];

		if (q->niov)
			io_uring_prep_readv(sqe, fd, q->iov, q->niov, q->off);
		else
			io_uring_prep_read(sqe, fd, q->buf, q->len, q->off);
		io_uring_sqe_set_data64(sqe, i);
	}
	done = wl_uring_submit_all(ring, c->n);
	st->submitted += done;
	if (done < c->n)
		st->errors++;
	wl_uring_reap(ring, st, &c->reap);
	wl_uring_expect_idle(ring, st, &c->reap);
	io_uring_queue_exit(ring);
}

#endif
