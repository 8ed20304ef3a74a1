// SPDX-License-Identifier: GPL-2.0
/*
 * aio_osync_write: COUNT (default 64) 4 KiB libaio buffered writes
 * (IOCB_CMD_PWRITE) of patterned data, 64 KiB apart, on an O_SYNC fd
 * (O_DSYNC with -D), in one io_submit.  By default the file is sparse, so
 * each write allocates blocks (journal commit); -o overwrites blocks that
 * were written and synced before (data-only writeback for O_DSYNC).
 *
 * After the last completion: cachestat(2) must show no page of the file
 * dirty or under writeback (the write only counts as done once on stable
 * storage), then every write is re-read with O_DIRECT, bypassing the page
 * cache, and the whole file is scanned so stray writes show up too.
 *
 * On a stock kernel io_submit sleeps in writeback and jbd2 waits; with
 * FSAIO it should return early and complete each write from a retry.
 */
#include <sys/syscall.h>

#include "lib/wl.h"

#define WSIZE		4096u
#define STRIDE		(64u * 1024)

#ifndef __NR_cachestat
#define __NR_cachestat	451	/* Linux 6.5; not in Debian 12 headers */
#endif
struct wl_cachestat_range { uint64_t off, len; };
struct wl_cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
		 nr_recently_evicted;
};

static const char help[] =
	"COUNT (64) libaio O_SYNC 4 KiB writes, checked clean and re-read O_DIRECT.\n"
	"  -D  O_DSYNC instead of O_SYNC\n"
	"  -o  overwrite allocated blocks instead of filling holes\n";

static bool dsync, overwrite;

static int extra(int c, const char *arg)
{
	if (c == 'D')
		dsync = true;
	else
		overwrite = true;
	return 0;
}

/* A write completed with its result; the data is checked later. */
static int check(uint64_t id, long res, void *arg)
{
	if (res != WSIZE) {
		fprintf(stderr, "write %" PRIu64 ": res %ld, want %u\n", id, res, WSIZE);
		return -1;
	}
	return 0;
}

/* Returns dirty+writeback pages of the file, or -1 if cachestat is absent. */
static long unstable_pages(int fd)
{
	struct wl_cachestat_range range = { 0, 0 };	/* whole file */
	struct wl_cachestat cs;

	if (syscall(__NR_cachestat, fd, &range, &cs, 0))
		return -1;
	return cs.nr_dirty + cs.nr_writeback;
}

/* Pre-write zeros so -o overwrites allocated, clean blocks. */
static void zero_fill(const struct wl_file *f)
{
	char *zero = calloc(1, 1 << 20);
	int fd = open(f->path, O_WRONLY | O_CLOEXEC);

	if (!zero || fd < 0)
		wl_die("zero fill", errno);
	for (uint64_t off = 0; off < f->size; off += 1 << 20) {
		size_t len = f->size - off < (1u << 20) ? f->size - off : 1u << 20;

		if (wl_pwrite_all(fd, zero, len, off))
			wl_die("zero fill", errno);
	}
	if (fsync(fd))
		wl_die("fsync", errno);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	free(zero);
}

/* O_DIRECT re-read: per write (counted) and the whole file (stray data). */
static void verify_direct(const struct wl_file *f, unsigned n,
			  const unsigned char *ok, struct wl_stats *st)
{
	size_t chunk = 1 << 20;
	char *buf = wl_alloc(chunk);
	int fd = open(f->path, O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd < 0)
		wl_die("open O_DIRECT", errno);
	st->verified = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t off = (uint64_t)i * STRIDE;

		if (!ok[i])
			continue;
		if (pread(fd, buf, WSIZE, off) != WSIZE ||
		    wl_verify(f, buf, off, WSIZE))
			st->errors++;
		else
			st->verified++;
	}
	for (uint64_t off = 0; off < f->size; off += chunk) {
		size_t len = f->size - off < chunk ? f->size - off : chunk;

		if (pread(fd, buf, len, off) != (ssize_t)len ||
		    wl_verify(f, buf, off, len)) {
			st->errors++;
			break;
		}
	}
	close(fd);
	free(buf);
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_osync_write", .count = 64 };
	struct wl_file f = { .seed = 0x05c };
	struct wl_stats st = { 0 };
	struct wl_reap r = { .check = check };
	struct wl_extent *ext;
	struct iocb *cbs;
	io_context_t ctx;
	char *bufs;
	long dirty;
	int fd;

	wl_getopt(argc, argv, &o, help, "Do", extra);
	/* f describes the final content: the writes as data, zeros elsewhere. */
	ext = calloc(o.count, sizeof(*ext));
	if (!ext)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < o.count; i++)
		ext[i] = (struct wl_extent){ (uint64_t)i * STRIDE, WSIZE };
	f.size = (uint64_t)o.count * STRIDE;
	f.data = ext;
	f.ndata = 0;			/* create it all hole ... */
	wl_create(&f, o.dir, o.name);
	f.ndata = o.count;		/* ... and expect the writes */
	if (overwrite)
		zero_fill(&f);
	printf("# mode: %s, %s\n", dsync ? "O_DSYNC" : "O_SYNC",
	       overwrite ? "overwrite" : "fill holes");

	fd = open(f.path, O_WRONLY | O_CLOEXEC | (dsync ? O_DSYNC : O_SYNC));
	if (fd < 0)
		wl_die(f.path, errno);
	wl_aio_setup(o.count, &ctx);
	cbs = calloc(o.count, sizeof(*cbs));
	r.seen = calloc(o.count, 1);
	bufs = wl_alloc((size_t)o.count * WSIZE);
	if (!cbs || !r.seen)
		wl_die("calloc", ENOMEM);
	r.nreq = o.count;
	for (unsigned i = 0; i < o.count; i++) {
		char *b = bufs + (size_t)i * WSIZE;

		pattern_fill(f.seed, (uint64_t)i * STRIDE, b, WSIZE);
		io_prep_pwrite(&cbs[i], fd, b, WSIZE, (uint64_t)i * STRIDE);
		cbs[i].data = (void *)(uintptr_t)i;
	}
	wl_aio_run(ctx, cbs, o.count, &st, &r);

	/* Before anything else touches the file: nothing may be unstable. */
	dirty = unstable_pages(fd);
	if (dirty < 0)
		printf("# note: cachestat unavailable (%s), stability not checked\n",
		       strerror(errno));
	else if (dirty > 0) {
		fprintf(stderr, "%ld pages dirty or under writeback after O_%sSYNC completion\n",
			dirty, dsync ? "D" : "");
		st.errors++;
	}
	verify_direct(&f, o.count, r.seen, &st);

	io_destroy(ctx);
	close(fd);
	return wl_finish(&o, "libaio", &st);
}
