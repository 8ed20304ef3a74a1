// SPDX-License-Identifier: GPL-2.0
/* libwl: test files (created cold, removed at exit) and buffers. */
#include <sys/sysmacros.h>

#include "wl.h"

int wl_pwrite_all(int fd, const void *buf, size_t len, off_t off)
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

/* The files wl_track()ed, unlinked by wl_remove_all() at exit. */
#define WL_MAX_FILES 8
static char wl_created[WL_MAX_FILES][PATH_MAX];

void wl_remove_all(void)
{
	for (unsigned i = 0; i < WL_MAX_FILES; i++)
		if (wl_created[i][0])
			unlink(wl_created[i]);
}

void wl_track(const char *path)
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

void wl_create(struct wl_file *f, const char *dir, const char *name)
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

int wl_open_cold(const struct wl_file *f, int flags)
{
	int fd = open(f->path, flags | O_CLOEXEC);

	if (fd < 0)
		wl_die(f->path, errno);
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return fd;
}

void *wl_alloc(size_t len)
{
	void *p;

	/* Page-aligned so the same buffers also work for O_DIRECT. */
	if (posix_memalign(&p, WL_PAGE, len ? len : 1))
		wl_die("posix_memalign", ENOMEM);
	memset(p, 0xa5, len);	/* not zero: a missed copy must not pass a hole */
	return p;
}

static char ra_path[128], ra_old[32];

static void ra_restore(void)
{
	int fd;

	if (!ra_path[0] || (fd = open(ra_path, O_WRONLY)) < 0)
		return;
	if (write(fd, ra_old, strlen(ra_old)) < 0)
		perror(ra_path);
	close(fd);
}

int wl_readahead_off(const char *dir)
{
	struct stat sb;
	ssize_t n;
	int fd;
	char dev[64], real[PATH_MAX], *name;

	if (stat(dir, &sb))
		return -1;
	/* only the test devices: loop, null_blk (nullbN, or named fsaio-*) */
	snprintf(dev, sizeof(dev), "/sys/dev/block/%u:%u", major(sb.st_dev), minor(sb.st_dev));
	if (!realpath(dev, real))
		return -1;
	name = strrchr(real, '/') + 1;
	if (strncmp(name, "loop", 4) && strncmp(name, "nullb", 5) && strncmp(name, "fsaio-", 6))
		return -1;
	snprintf(ra_path, sizeof(ra_path), "%s/queue/read_ahead_kb", dev);
	fd = open(ra_path, O_RDWR);
	if (fd < 0)
		goto fail;
	n = read(fd, ra_old, sizeof(ra_old) - 1);
	if (n <= 0 || pwrite(fd, "0", 1, 0) != 1) {
		close(fd);
		goto fail;
	}
	ra_old[n] = '\0';
	close(fd);
	atexit(ra_restore);
	return 0;
fail:
	ra_path[0] = '\0';
	return -1;
}
