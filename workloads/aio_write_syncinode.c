// SPDX-License-Identifier: GPL-2.0
/*
 * aio_write_syncinode: libaio writes to a file with the S_SYNC attribute
 * (chattr +S, FS_SYNC_FL) stay synchronous: COUNT (16) O_DSYNC writes and
 * COUNT plain ones, 4 KiB each into holes, in one io_submit; every one
 * must have completed when io_submit returns (io_getevents with a zero
 * timeout returns all of them), as on a kernel without asynchronous
 * writes, and every byte reads back.
 *
 * ->write_iter() syncs every write to an S_SYNC inode whatever the
 * request's flags say (iocb_is_dsync()), so a kernel that hands such an
 * O_DSYNC write to a worker syncs it twice, once inside io_submit; the
 * patched kernel keeps them synchronous (fsaio traces each such write,
 * FSAIO_F_STAYS_SYNC: its sleeps inside io_submit are by design, a RETRY
 * or PUNT of it fails retry_lifecycle).  Skips where the file system has
 * no FS_SYNC_FL (tmpfs, 9p).
 */
#include <linux/fs.h>
#include <sys/ioctl.h>

#include "lib/wl.h"

#define WSIZE		4096u
#define STRIDE		(64u * 1024)

static const char help[] =
	"COUNT (16) O_DSYNC + COUNT plain libaio 4 KiB writes to a chattr +S file:\n"
	"all complete inside io_submit, bytes read back.\n";

static int check(uint64_t id, long res, void *arg)
{
	(void)arg;
	if (res != WSIZE) {
		fprintf(stderr, "write %" PRIu64 ": res %ld, want %u\n", id, res, WSIZE);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_write_syncinode", .count = 16 };
	struct wl_file f = { .seed = 0x5c1 };
	struct wl_stats st = { 0 };
	struct wl_reap r = { .check = check };
	struct timespec zero = { 0, 0 };
	struct wl_extent *ext;
	struct io_event *ev;
	struct iocb *cbs, **cbp;
	unsigned n, early = 0;
	io_context_t ctx;
	int fd, dfd, flags;
	char *bufs, *rb;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	if (o.count < 1 || o.count > WL_MAX_COUNT / 2) {
		fprintf(stderr, "-n must be 1..%u\n", WL_MAX_COUNT / 2);
		return EXIT_USAGE;
	}
	n = 2 * o.count;
	ext = calloc(n, sizeof(*ext));
	if (!ext)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < n; i++)
		ext[i] = (struct wl_extent){ (uint64_t)i * STRIDE, WSIZE };
	f.size = (uint64_t)n * STRIDE;
	f.data = ext;
	f.ndata = 0;			/* made all hole ... */
	wl_create(&f, o.dir, o.name);
	f.ndata = n;			/* ... the writes expected */

	fd = open(f.path, O_WRONLY | O_CLOEXEC);
	dfd = open(f.path, O_WRONLY | O_DSYNC | O_CLOEXEC);
	if (fd < 0 || dfd < 0)
		wl_die(f.path, errno);
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
		wl_skip("FS_IOC_GETFLAGS (no inode attributes here)", errno);
	flags |= FS_SYNC_FL;
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags))
		wl_skip("chattr +S (FS_SYNC_FL) on this file system", errno);

	wl_aio_setup(n, &ctx);
	cbs = calloc(n, sizeof(*cbs));
	cbp = calloc(n, sizeof(*cbp));
	ev = calloc(n, sizeof(*ev));
	r.seen = calloc(n, 1);
	if (!cbs || !cbp || !ev || !r.seen)
		wl_die("calloc", ENOMEM);
	r.nreq = n;
	bufs = wl_alloc((size_t)n * WSIZE);
	for (unsigned i = 0; i < n; i++) {
		char *b = bufs + (size_t)i * WSIZE;

		pattern_fill(f.seed, (uint64_t)i * STRIDE, b, WSIZE);
		/* alternate: O_DSYNC, plain, O_DSYNC, ... */
		io_prep_pwrite(&cbs[i], i % 2 ? fd : dfd, b, WSIZE, (uint64_t)i * STRIDE);
		cbs[i].data = (void *)(uintptr_t)i;
		cbp[i] = &cbs[i];
	}
	if (wl_aio_submit(ctx, cbp, n, &st) == n) {
		/* synchronous: every completion is there when io_submit returns */
		int got = io_getevents(ctx, 0, n, ev, &zero);

		if (got > 0) {
			early = got;
			wl_aio_account(&st, &r, ev, got);
		}
		if (early != n) {
			fprintf(stderr, "%u of %u writes to the S_SYNC file had not completed when "
				"io_submit returned: made asynchronous\n", n - early, n);
			st.errors++;
		}
	}
	wl_aio_reap(ctx, &st, &r);
	printf("# %u of %u writes complete when io_submit returned\n", early, n);

	rb = wl_alloc(WSIZE);
	st.verified = 0;
	{
		int rfd = open(f.path, O_RDONLY | O_CLOEXEC);

		if (rfd < 0)
			wl_die(f.path, errno);
		for (unsigned i = 0; i < n; i++) {
			uint64_t off = (uint64_t)i * STRIDE;

			if (r.seen[i] && pread(rfd, rb, WSIZE, off) == WSIZE &&
			    !wl_verify(&f, rb, off, WSIZE))
				st.verified++;
			else
				st.errors++;
		}
		close(rfd);
	}
	/* clear the attribute again: the file is removed at exit */
	flags &= ~FS_SYNC_FL;
	ioctl(fd, FS_IOC_SETFLAGS, &flags);
	io_destroy(ctx);
	close(fd);
	close(dfd);
	return wl_finish(&o, "libaio", &st);
}
