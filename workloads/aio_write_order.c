// SPDX-License-Identifier: GPL-2.0
/*
 * aio_write_order: O_DSYNC libaio writes keep the order, atomicity and
 * visibility of synchronous writes, in COUNT (default 8) rounds.
 *
 * A stock kernel copies each buffered write into the page cache inside
 * io_submit(), in submission order, in one ->write_iter() under the inode
 * lock; only O_SYNC/O_DSYNC's wait for the device comes after.  What an
 * asynchronous O_SYNC write path must keep, checked the way xfstests'
 * generic/ ordering tests do, with one byte value per write:
 *
 *  1. Visible when io_submit() returns: a write of 6 KiB at the start of
 *     cold, written pages (the second page partial, so the copy must read
 *     it first) is read back with pread() before its completion is reaped:
 *     every byte must be the write's.  A kernel that leaves (part of) the
 *     copy to a worker shows old data or, when a non-blocking copy stopped
 *     short at the cold page, a torn write (new first page, old second).
 *  2. Overlapping writes in one io_submit end with the last one's data:
 *     a 6 KiB write at 0 and a 4 KiB write at 4 KiB (in that order), then
 *     eight 4 KiB writes to one page.  Applied out of order, the earlier
 *     write's bytes survive.
 *  3. Appends in one io_submit (an O_APPEND fd, 3000 bytes each, so
 *     records share pages) land whole and in submission order.
 *
 * Everything is checked after the last completion too, through the page
 * cache and again with O_DIRECT (what reached the device).
 */
#include "lib/wl.h"

#define REGION		(32u * 1024)	/* one round's part of the file */
#define TORN_LEN	6144u		/* part 1 and the first write of part 2 */
#define NSAME		8u		/* part 2: writes to one page */
#define NAPPEND		16u		/* part 3: appends per round */
#define APPEND_LEN	3000u
#define OLD		0x6f		/* 'o': what the file held before */

static const char help[] =
	"COUNT (8) rounds of O_DSYNC libaio writes checked for order, atomicity\n"
	"and visibility: read-after-io_submit, overlapping writes in one\n"
	"io_submit (last wins), appends in one io_submit (whole, in order).\n";

struct wr {
	uint64_t off;
	size_t len;
	uint8_t val;
};

/* Expected byte at off of the main file: the last write covering it. */
static uint8_t expect_at(const struct wr *w, unsigned n, uint64_t off)
{
	uint8_t v = OLD;

	for (unsigned i = 0; i < n; i++)
		if (off >= w[i].off && off < w[i].off + w[i].len)
			v = w[i].val;
	return v;
}

static int check_len(uint64_t id, long res, void *arg)
{
	const struct wr *w = arg;

	if (res != (long)w[id].len) {
		fprintf(stderr, "write %" PRIu64 ": res %ld, want %zu\n", id, res, w[id].len);
		return -1;
	}
	return 0;
}

/* Submit w[first..first+n) in one io_submit; returns how many went in. */
static unsigned submit(io_context_t ctx, int fd, struct wr *w, unsigned first,
		       unsigned n, char *bufs, struct iocb *cbs, struct wl_stats *st)
{
	struct iocb *ptrs[64];

	for (unsigned i = 0; i < n; i++) {
		struct wr *x = &w[first + i];
		char *b = bufs + (size_t)(first + i) * 8192;

		memset(b, x->val, x->len);
		io_prep_pwrite(&cbs[first + i], fd, b, x->len, x->off);
		cbs[first + i].data = (void *)(uintptr_t)(first + i);
		ptrs[i] = &cbs[first + i];
	}
	return wl_aio_submit(ctx, ptrs, n, st);
}

/* Count bytes of buf[0..len) that are not v. */
static size_t mismatches(const char *buf, size_t len, uint8_t v)
{
	size_t bad = 0;

	for (size_t k = 0; k < len; k++)
		bad += (uint8_t)buf[k] != v;
	return bad;
}

/* Compare the whole main file (via fd) with what the writes leave. */
static unsigned check_main(int fd, const struct wr *w, unsigned n, uint64_t size,
			   const char *how, unsigned char *bad_write)
{
	char *buf = wl_alloc(size);
	unsigned errs = 0;

	if (pread(fd, buf, size, 0) != (ssize_t)size)
		wl_die("pread", errno);
	for (uint64_t off = 0; off < size; off++) {
		uint8_t want = expect_at(w, n, off);

		if ((uint8_t)buf[off] == want)
			continue;
		if (!errs++)
			fprintf(stderr, "%s: byte %" PRIu64 " is 0x%02x, want 0x%02x "
				"(the last write covering it)\n", how, off,
				(uint8_t)buf[off], want);
		for (unsigned i = 0; i < n; i++)
			if (w[i].val == want && off >= w[i].off && off < w[i].off + w[i].len)
				bad_write[i] = 1;
		off |= WL_PAGE - 1;	/* one report per page */
	}
	free(buf);
	return errs;
}

/* The append file must be the records in order, each whole. */
static unsigned check_appends(int fd, unsigned n, const char *how, unsigned char *bad)
{
	size_t size = (size_t)n * APPEND_LEN;
	/* whole pages, as O_DIRECT wants; a read stops at EOF either way */
	size_t len = ((size + WL_PAGE - 1) & ~(size_t)(WL_PAGE - 1)) + WL_PAGE;
	char *buf = wl_alloc(len);
	ssize_t got = pread(fd, buf, len, 0);
	unsigned errs = 0;

	if (got != (ssize_t)size) {
		fprintf(stderr, "%s: append file holds %zd bytes, want %zu\n", how, got, size);
		errs++;
	}
	for (unsigned i = 0; got > 0 && i < n && (size_t)got >= (i + 1) * APPEND_LEN; i++) {
		uint8_t want = 1 + i % 251;
		size_t m = mismatches(buf + (size_t)i * APPEND_LEN, APPEND_LEN, want);

		if (!m)
			continue;
		if (!errs++)
			fprintf(stderr, "%s: append %u (0x%02x) has %zu foreign bytes at "
				"%zu: appends interleaved or reordered\n", how, i, want, m,
				(size_t)i * APPEND_LEN);
		bad[i] = 1;
	}
	free(buf);
	return errs;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_write_order", .count = 8 };
	struct wl_stats st = { 0 };
	char path[PATH_MAX], apath[PATH_MAX];
	unsigned per = 2 + NSAME, nw, na, torn = 0, errs = 0;
	unsigned char *bad_w, *bad_a;
	struct wl_reap r = { .check = check_len };
	struct iocb *cbs, *acbs;
	struct wr *w, *aw;
	char *bufs, *abufs, *rd;
	uint64_t size;
	io_context_t ctx;
	int fd, afd, dfd;

	wl_getopt(argc, argv, &o, help, "", NULL);
	if (o.count > 64)
		o.count = 64;
	size = (uint64_t)o.count * REGION;
	nw = o.count * (1 + per);
	na = o.count * NAPPEND;
	w = calloc(nw, sizeof(*w));
	aw = calloc(na, sizeof(*aw));
	cbs = calloc(nw, sizeof(*cbs));
	acbs = calloc(na, sizeof(*acbs));
	bad_w = calloc(nw, 1);
	bad_a = calloc(na, 1);
	r.seen = calloc(nw + na, 1);
	if (!w || !aw || !cbs || !acbs || !bad_w || !bad_a || !r.seen)
		wl_die("calloc", ENOMEM);
	bufs = wl_alloc((size_t)nw * 8192);
	abufs = wl_alloc((size_t)na * 8192);
	rd = wl_alloc(TORN_LEN);

	/* The main file: OLD everywhere, on disk, not cached. */
	snprintf(path, sizeof(path), "%s/%s.%d", o.dir, o.name, getpid());
	snprintf(apath, sizeof(apath), "%s/%s-append.%d", o.dir, o.name, getpid());
	wl_track(path);
	wl_track(apath);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		wl_die(path, errno);
	memset(bufs, OLD, REGION);
	for (uint64_t off = 0; off < size; off += REGION)
		if (wl_pwrite_all(fd, bufs, REGION, off))
			wl_die("pwrite", errno);
	if (fsync(fd))
		wl_die("fsync", errno);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	fd = open(path, O_RDWR | O_DSYNC | O_CLOEXEC);
	afd = open(apath, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_DSYNC | O_CLOEXEC, 0644);
	if (fd < 0 || afd < 0)
		wl_die("open", errno);

	/* Request ids: main-file writes 0..nw-1, appends nw..nw+na-1. */
	for (unsigned rd_i = 0; rd_i < o.count; rd_i++) {
		uint64_t base = (uint64_t)rd_i * REGION;
		unsigned k = rd_i * (1 + per);

		/* part 1 at base, part 2 at base + 16 KiB */
		w[k] = (struct wr){ base, TORN_LEN, (uint8_t)(0x80 + rd_i) };
		w[k + 1] = (struct wr){ base + 16384, TORN_LEN, 0x10 };
		w[k + 2] = (struct wr){ base + 20480, WL_PAGE, 0x20 };
		for (unsigned j = 0; j < NSAME; j++)
			w[k + 3 + j] = (struct wr){ base + 28672, WL_PAGE, (uint8_t)(0x30 + j) };
	}
	for (unsigned i = 0; i < na; i++)
		aw[i] = (struct wr){ 0, APPEND_LEN, (uint8_t)(1 + i % 251) };

	wl_aio_setup(64, &ctx);
	r.nreq = nw;
	r.arg = w;
	for (unsigned rd_i = 0; rd_i < o.count; rd_i++) {
		unsigned k = rd_i * (1 + per);
		size_t m;

		/* 1. visible (and whole) once io_submit() has returned */
		if (submit(ctx, fd, w, k, 1, bufs, cbs, &st) != 1)
			break;
		{
			if (pread(fd, rd, TORN_LEN, w[k].off) != TORN_LEN)
				wl_die("pread", errno);
			m = mismatches(rd, TORN_LEN, w[k].val);
			if (m) {
				fprintf(stderr, "round %u: pread right after io_submit saw %zu of "
					"%u bytes not yet written (first page %s, second %s)\n",
					rd_i, m, TORN_LEN,
					mismatches(rd, WL_PAGE, w[k].val) ? "old" : "new",
					mismatches(rd + WL_PAGE, TORN_LEN - WL_PAGE, w[k].val) ?
					"old" : "new");
				torn++;
				bad_w[k] = 1;
			}
		}
		wl_aio_reap_n(ctx, &st, &r, 1);

		/* 2. overlapping writes in one io_submit */
		wl_aio_reap_n(ctx, &st, &r, submit(ctx, fd, w, k + 1, per, bufs, cbs, &st));
	}

	/* 3. appends: one io_submit per round */
	for (unsigned rd_i = 0; rd_i < o.count; rd_i++) {
		struct iocb *ptrs[NAPPEND];
		unsigned got;

		for (unsigned j = 0; j < NAPPEND; j++) {
			unsigned i = rd_i * NAPPEND + j;
			char *b = abufs + (size_t)i * 8192;

			memset(b, aw[i].val, APPEND_LEN);
			io_prep_pwrite(&acbs[i], afd, b, APPEND_LEN, 0);
			acbs[i].data = (void *)(uintptr_t)i;
			ptrs[j] = &acbs[i];
		}
		got = wl_aio_submit(ctx, ptrs, NAPPEND, &st);
		for (unsigned j = 0; j < got; j++) {
			struct io_event ev;
			struct timespec ts = { WL_TIMEOUT_S, 0 };

			if (io_getevents(ctx, 1, 1, &ev, &ts) != 1) {
				fprintf(stderr, "io_getevents: appends lost\n");
				st.errors++;
				break;
			}
			st.completed++;
			if ((long)ev.res != APPEND_LEN) {
				fprintf(stderr, "append %lu: res %ld, want %u\n",
					(unsigned long)(uintptr_t)ev.data, (long)ev.res,
					APPEND_LEN);
				bad_a[(uintptr_t)ev.data % na] = 1;
			} else {
				st.bytes += APPEND_LEN;
			}
		}
	}
	wl_aio_expect_idle(ctx, &st, &r);
	io_destroy(ctx);

	/* After every completion: the page cache, then the device. */
	errs += check_main(fd, w, nw, size, "page cache", bad_w);
	errs += check_appends(afd, na, "page cache (appends)", bad_a);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	dfd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (dfd < 0)
		wl_die("open O_DIRECT", errno);
	errs += check_main(dfd, w, nw, size, "O_DIRECT", bad_w);
	close(dfd);
	dfd = open(apath, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (dfd < 0)
		wl_die("open O_DIRECT", errno);
	errs += check_appends(dfd, na, "O_DIRECT (appends)", bad_a);
	close(dfd);

	st.verified = 0;
	for (unsigned i = 0; i < nw; i++)
		st.verified += !bad_w[i];
	for (unsigned i = 0; i < na; i++) {
		st.verified += !bad_a[i];
		st.errors += bad_a[i];
	}
	for (unsigned i = 0; i < nw; i++)
		st.errors += bad_w[i];
	printf("# %u rounds: %u writes, %u appends; read-after-submit not visible %u "
	       "times, %u mismatching pages or records\n", o.count, nw, na, torn, errs);
	close(fd);
	close(afd);
	return wl_finish(&o, "libaio", &st);
}
