// SPDX-License-Identifier: GPL-2.0
/*
 * aio_eio: libaio reads of blocks the device fails, and O_DSYNC writes whose
 * block allocation fails, must end with the error synchronous I/O gets.
 *
 * An xfstests-style error test on a throwaway ext4 made here (a loop
 * device over an image file in DIR, under device-mapper): after the file
 * system is set up and unmounted, the table is reloaded so that the data
 * blocks of one file and the block bitmap return -EIO (dm "error" segments
 * in a linear table), and the file system is mounted again without bitmap
 * prefetch:
 *
 *  1. COUNT (default 16) cold 4 KiB reads of the failing file, one
 *     io_submit, readahead off: each must complete with -EIO (a folio not
 *     uptodate after its read; never data, never -EAGAIN).
 *  2. 4 x COUNT 4 KiB O_DSYNC writes into holes of an empty file, one
 *     io_submit: the copy into the page cache succeeds, then delayed
 *     allocation at writeback cannot read the block bitmap.  ext4 gives
 *     up on those folios (invalidated, the error not recorded in the
 *     mapping), so only the return of the writeback start carries it:
 *     each write must fail (-EIO, or -ENOSPC once the group is marked
 *     corrupt), as generic_write_sync() reports on a stock kernel.  A
 *     kernel that drops that return acknowledges data that is gone.
 *  3. COUNT pairs of 4 KiB O_DSYNC overwrites of allocated blocks the
 *     device fails, both writes of a pair at the same offset, one
 *     io_submit: the first write's writeback carries the second's data
 *     and fails, the error lands in the mapping once, and the first
 *     ->fsync() of the file description consumes it.  Each write must
 *     still fail with -EIO, as each does on a stock kernel (there every
 *     write is synced before the next is copied).  A kernel that trusts
 *     ->fsync() alone, without the mapping errors recorded since its
 *     copy, acknowledges the second write's lost data.
 *  4. COUNT 4 KiB O_DSYNC overwrites of COUNT allocated blocks, one
 *     io_submit, only the middle block on a failing segment: exactly that
 *     write must fail with -EIO and every other one return its 4 KiB, as
 *     on a stock kernel, where each write's sync sees only its own
 *     writeback.  A kernel that gives every write synced together the
 *     mapping's error (one error sequence, one file cursor) fails the
 *     writes that reached the disk.
 *
 * Everything is torn down at exit, on failure too.  Skips without root,
 * dmsetup, losetup or mkfs.ext4.
 */
#include <stdarg.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "lib/wl.h"

#define IMG_SIZE	(64ull << 20)
#define RSIZE		(256u * 1024)
#define RSTRIDE		(RSIZE / 16)
#define WSIZE		4096u
#define MAX_SEGS	64

static const char help[] =
	"COUNT (16) cold libaio reads of blocks that fail with -EIO, then 4 x COUNT\n"
	"O_DSYNC writes whose delayed allocation fails, then COUNT pairs of O_DSYNC\n"
	"overwrites (two per block) whose writeback fails, then COUNT O_DSYNC\n"
	"overwrites of which one block fails, on an ext4 made on a loop device\n"
	"under device-mapper in DIR: every request must end as a synchronous one\n"
	"does.  Needs root, dmsetup, losetup, mkfs.ext4.\n";

static char img[PATH_MAX], mnt[PATH_MAX], loopdev[64], dmname[64], dmdev[96];
static bool mounted, dm_made;

/* Run a shell command; its exit status (-1 if it could not run). */
static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

/* First line of a command's stdout, or "" */
static void sh_read(char *out, size_t len, const char *cmd)
{
	FILE *p = popen(cmd, "r");

	out[0] = '\0';
	if (!p)
		return;
	if (!fgets(out, len, p))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

static void teardown(void)
{
	if (mounted && umount(mnt) && umount2(mnt, MNT_DETACH))
		fprintf(stderr, "aio_eio: umount %s: %s\n", mnt, strerror(errno));
	mounted = false;
	if (dm_made && sh("dmsetup remove --retry %s", dmname))
		fprintf(stderr, "aio_eio: dmsetup remove %s failed\n", dmname);
	dm_made = false;
	if (loopdev[0] && sh("losetup -d %s", loopdev))
		fprintf(stderr, "aio_eio: losetup -d %s failed\n", loopdev);
	loopdev[0] = '\0';
	if (img[0])
		unlink(img);
	if (mnt[0])
		rmdir(mnt);
}

static void do_mount(const char *opts)
{
	if (mount(dmdev, mnt, "ext4", 0, opts))
		wl_die("mount ext4 on the dm device", errno);
	mounted = true;
}

/* A table segment [start, start+len) in 512-byte sectors. */
struct seg {
	uint64_t start, len;
};

static int seg_cmp(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* A file's extent map (its first 32 extents), its data synced first. */
struct extents {
	struct fiemap fm;
	struct fiemap_extent ext[32];
};

static void file_extents(const char *path, struct extents *m)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*m = (struct extents){ .fm = { .fm_length = ~0ull, .fm_flags = FIEMAP_FLAG_SYNC,
				       .fm_extent_count = 32 } };
	if (fd < 0 || ioctl(fd, FS_IOC_FIEMAP, &m->fm))
		wl_die("FIEMAP", errno);
	close(fd);
}

/* Physical extents of a file (bytes -> sectors), appended to segs. */
static unsigned file_segs(const char *path, struct seg *segs, unsigned n)
{
	struct extents m;

	file_extents(path, &m);
	for (unsigned i = 0; i < m.fm.fm_mapped_extents && n < MAX_SEGS - 1; i++)
		segs[n++] = (struct seg){ m.ext[i].fe_physical >> 9, m.ext[i].fe_length >> 9 };
	return n;
}

/* The physical block (in sectors) under byte off of a file. */
static struct seg block_seg(const char *path, uint64_t off)
{
	struct extents m;

	file_extents(path, &m);
	for (unsigned i = 0; i < m.fm.fm_mapped_extents; i++) {
		const struct fiemap_extent *x = &m.ext[i];

		if (off >= x->fe_logical && off < x->fe_logical + x->fe_length)
			return (struct seg){ (x->fe_physical + off - x->fe_logical) >> 9, WSIZE >> 9 };
	}
	wl_die("FIEMAP: the block is not allocated", EINVAL);
}

/* Reload the dm table: linear over the loop device, error at segs. */
static void load_error_table(struct seg *segs, unsigned n)
{
	uint64_t total = IMG_SIZE >> 9, pos = 0;
	char cmd[256];
	FILE *p;

	qsort(segs, n, sizeof(*segs), seg_cmp);
	snprintf(cmd, sizeof(cmd), "dmsetup load %s", dmname);
	if (sh("dmsetup suspend %s", dmname))
		wl_die("dmsetup suspend", EIO);
	p = popen(cmd, "w");
	if (!p)
		wl_die("dmsetup load", errno);
	for (unsigned i = 0; i < n; i++) {
		if (segs[i].start < pos)
			continue;	/* overlapping: already an error */
		if (segs[i].start > pos)
			fprintf(p, "%" PRIu64 " %" PRIu64 " linear %s %" PRIu64 "\n",
				pos, segs[i].start - pos, loopdev, pos);
		fprintf(p, "%" PRIu64 " %" PRIu64 " error\n", segs[i].start, segs[i].len);
		pos = segs[i].start + segs[i].len;
	}
	if (pos < total)
		fprintf(p, "%" PRIu64 " %" PRIu64 " linear %s %" PRIu64 "\n",
			pos, total - pos, loopdev, pos);
	if (pclose(p))
		wl_die("dmsetup load (error table)", EIO);
	if (sh("dmsetup resume %s", dmname))
		wl_die("dmsetup resume", EIO);
	sh("dmsetup mknodes %s >/dev/null 2>&1", dmname);
}

struct expect {
	const char *what;
	bool enospc_ok;		/* -ENOSPC allowed besides -EIO */
	bool one_fails;		/* only request fail_id fails, the rest succeed */
	uint64_t fail_id;
	unsigned eio, enospc;	/* what came */
};

static int check(uint64_t id, long res, void *arg)
{
	struct expect *e = arg;

	e->eio += res == -EIO;
	e->enospc += res == -ENOSPC;
	if (e->one_fails && id != e->fail_id) {
		if (res == WSIZE)
			return 0;
		fprintf(stderr, "%s %" PRIu64 ": res %ld (%s), want %u: its block did not fail\n",
			e->what, id, res, res < 0 ? strerror(-res) : "short", WSIZE);
		return -1;
	}
	if (res == -EIO || (e->enospc_ok && res == -ENOSPC))
		return 0;
	fprintf(stderr, "%s %" PRIu64 ": res %ld (%s), want -EIO%s\n", e->what, id, res,
		res < 0 ? strerror(-res) : "success", e->enospc_ok ? " or -ENOSPC" : "");
	return -1;
}

/*
 * One io_submit of n requests, each checked to fail as e says; request i
 * goes to offset (i / per) * stride, so runs of per requests share one.
 */
static void run(int fd, bool write, unsigned n, unsigned per, uint64_t stride,
		struct expect *e, struct wl_stats *st)
{
	struct wl_reap r = { .nreq = n, .check = check, .arg = (void *)e };
	struct iocb *cbs = calloc(n, sizeof(*cbs));
	char *bufs = wl_alloc((size_t)n * WSIZE);
	io_context_t ctx;

	r.seen = calloc(n, 1);
	if (!cbs || !r.seen)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < n; i++) {
		uint64_t off = (uint64_t)(i / per) * stride;

		if (write)
			io_prep_pwrite(&cbs[i], fd, bufs + (size_t)i * WSIZE, WSIZE, off);
		else
			io_prep_pread(&cbs[i], fd, bufs + (size_t)i * WSIZE, WSIZE, off);
		cbs[i].data = (void *)(uintptr_t)i;
	}
	wl_aio_setup(n, &ctx);
	wl_aio_run(ctx, cbs, n, st, &r);
	io_destroy(ctx);
	printf("# %u %ss: %u -EIO, %u -ENOSPC\n", n, e->what, e->eio, e->enospc);
	free(r.seen);
	free(cbs);
	free(bufs);
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_eio", .count = 16 };
	struct expect rd = { "read", false }, wr = { "O_DSYNC write", true };
	struct expect ow = { "O_DSYNC overwrite", false };
	struct expect mx = { "O_DSYNC batch overwrite", .one_fails = true };
	struct wl_stats st = { 0 };
	struct seg segs[MAX_SEGS];
	char rpath[PATH_MAX], wpath[PATH_MAX], opath[PATH_MAX], mpath[PATH_MAX];
	char line[256], *buf;
	unsigned nseg, bitmap;
	int fd;

	wl_getopt(argc, argv, &o, help, "", NULL);
	if (o.count > RSIZE / RSTRIDE)
		o.count = RSIZE / RSTRIDE;
	if (geteuid() != 0)
		wl_skip("needs root for loop and device-mapper devices", EPERM);
	if (sh("command -v dmsetup losetup mkfs.ext4 dumpe2fs >/dev/null 2>&1"))
		wl_skip("needs dmsetup, losetup, mkfs.ext4 and dumpe2fs", ENOENT);
	atexit(teardown);

	snprintf(img, sizeof(img), "%s/aio_eio.%d.img", o.dir, getpid());
	snprintf(mnt, sizeof(mnt), "%s/aio_eio.%d.mnt", o.dir, getpid());
	snprintf(dmname, sizeof(dmname), "fsaio-eio-%d", getpid());
	snprintf(dmdev, sizeof(dmdev), "/dev/mapper/%s", dmname);
	fd = open(img, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, IMG_SIZE))
		wl_die(img, errno);
	close(fd);
	if (mkdir(mnt, 0700))
		wl_die(mnt, errno);
	snprintf(line, sizeof(line), "losetup -f --show %s", img);
	sh_read(loopdev, sizeof(loopdev), line);
	if (strncmp(loopdev, "/dev/loop", 9))
		wl_skip("no loop device (losetup -f failed)", ENODEV);
	if (sh("dmsetup create %s --table '0 %llu linear %s 0'", dmname, IMG_SIZE >> 9, loopdev))
		wl_skip("device-mapper unavailable (dmsetup create failed)", ENODEV);
	dm_made = true;
	sh("dmsetup mknodes %s >/dev/null 2>&1", dmname);	/* no udev in a bare guest */
	if (sh("mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 %s", dmdev))
		wl_die("mkfs.ext4", EIO);

	/*
	 * The file to read and the one to overwrite (written, synced: blocks
	 * allocated), and the empty file to write.
	 */
	do_mount("errors=continue");
	snprintf(rpath, sizeof(rpath), "%s/read", mnt);
	snprintf(wpath, sizeof(wpath), "%s/write", mnt);
	snprintf(opath, sizeof(opath), "%s/overwrite", mnt);
	snprintf(mpath, sizeof(mpath), "%s/mixed", mnt);
	buf = wl_alloc(RSIZE);
	pattern_fill(0xe10, 0, buf, RSIZE);
	fd = open(rpath, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || wl_pwrite_all(fd, buf, RSIZE, 0) || fsync(fd))
		wl_die(rpath, errno);
	close(fd);
	fd = open(opath, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || wl_pwrite_all(fd, buf, (size_t)o.count * WSIZE, 0) || fsync(fd))
		wl_die(opath, errno);
	close(fd);
	fd = open(mpath, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || wl_pwrite_all(fd, buf, (size_t)o.count * WSIZE, 0) || fsync(fd))
		wl_die(mpath, errno);
	close(fd);
	fd = open(wpath, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || fsync(fd))
		wl_die(wpath, errno);
	close(fd);
	nseg = file_segs(rpath, segs, 0);
	nseg = file_segs(opath, segs, nseg);
	mx.fail_id = o.count / 2;
	segs[nseg++] = block_seg(mpath, mx.fail_id * WSIZE);
	if (umount(mnt))
		wl_die("umount", errno);
	mounted = false;

	/* The block bitmap of group 0 (the only one in 64 MiB of 4 KiB blocks). */
	snprintf(line, sizeof(line),
		 "dumpe2fs %s 2>/dev/null | sed -n 's/.*Block bitmap at \\([0-9]*\\).*/\\1/p' | head -1",
		 dmdev);
	sh_read(line, sizeof(line), line);
	if (sscanf(line, "%u", &bitmap) != 1)
		wl_die("dumpe2fs: no block bitmap location", EINVAL);
	segs[nseg++] = (struct seg){ (uint64_t)bitmap * 8, 8 };
	printf("# error segments: %u extent(s) of the read and overwrite files, block %" PRIu64
	       " of the mixed file, block bitmap at block %u\n", nseg - 2, mx.fail_id, bitmap);
	load_error_table(segs, nseg);
	do_mount("errors=continue,no_prefetch_block_bitmaps");

	/* 1. reads of failing blocks */
	fd = open(rpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		wl_die(rpath, errno);
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	run(fd, false, o.count, 1, RSTRIDE, &rd, &st);
	close(fd);

	/* 2. O_DSYNC writes whose allocation fails at writeback */
	fd = open(wpath, O_WRONLY | O_DSYNC | O_CLOEXEC);
	if (fd < 0)
		wl_die(wpath, errno);
	run(fd, true, 4 * o.count, 1, 4 * WSIZE, &wr, &st);
	close(fd);

	/* 3. O_DSYNC overwrites in pairs whose writeback fails */
	fd = open(opath, O_WRONLY | O_DSYNC | O_CLOEXEC);
	if (fd < 0)
		wl_die(opath, errno);
	run(fd, true, 2 * o.count, 2, WSIZE, &ow, &st);
	close(fd);

	/* 4. O_DSYNC overwrites of which one block fails */
	fd = open(mpath, O_WRONLY | O_DSYNC | O_CLOEXEC);
	if (fd < 0)
		wl_die(mpath, errno);
	run(fd, true, o.count, 1, WSIZE, &mx, &st);
	close(fd);

	/* every request "verified" = ended as it must */
	return wl_finish(&o, "libaio", &st);
}
