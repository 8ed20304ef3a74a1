// SPDX-License-Identifier: GPL-2.0
/*
 * Scratch filesystem: sparse image -> loop device (direct I/O, autoclear)
 * -> mkfs -> mount on a private mkdtemp directory.
 *
 * Lifetime rules that keep teardown safe from a signal handler:
 *  - every live scratch sits in a fixed-size static registry together with
 *    the loop device fd we hold; teardown only uses async-signal-safe
 *    syscalls (umount2, ioctl, close, unlink, rmdir, nanosleep, write),
 *    no malloc and no stdio;
 *  - a registry slot is claimed with an atomic exchange, so a signal that
 *    arrives during scratch_teardown() cannot tear the same scratch twice;
 *  - the loop device carries LO_FLAGS_AUTOCLEAR and the image is unlinked
 *    as soon as the loop device holds it, so even a SIGKILL leaves at most
 *    a mount behind: unmounting it frees the loop device and the image.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "run/scratch.h"

#define SCRATCH_MAX	8
#define LOOP_MAJOR	7
#define GET_FREE_TRIES	8	/* another process may grab the device we got */
#define UMOUNT_TRIES	10

struct slot {
	struct scratch *s;	/* NULL: slot free */
	int loopfd;		/* -1 until attached; holding it defers autoclear */
};

static struct slot registry[SCRATCH_MAX] = {
	[0 ... SCRATCH_MAX - 1] = { .s = NULL, .loopfd = -1 },
};

static struct slot *registry_add(struct scratch *s)
{
	for (int i = 0; i < SCRATCH_MAX; i++) {
		struct scratch *expect = NULL;

		if (__atomic_compare_exchange_n(&registry[i].s, &expect, s, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			registry[i].loopfd = -1;
			return &registry[i];
		}
	}
	return NULL;
}

/* ---- async-signal-safe teardown ---------------------------------------- */

static void say(const char *a, const char *b)
{
	/* write(2) only: this runs from signal handlers too. */
	ssize_t r;

	r = write(STDERR_FILENO, a, strlen(a));
	r = write(STDERR_FILENO, b, strlen(b));
	r = write(STDERR_FILENO, "\n", 1);
	(void)r;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void do_umount(struct scratch *s)
{
	/*
	 * Try even when !mounted: a signal may have hit between mount(2)
	 * and setting the flag.  EINVAL means "not a mount point": done.
	 */
	__atomic_store_n(&s->mounted, false, __ATOMIC_SEQ_CST);
	if (!s->mountpoint[0])
		return;
	for (int i = 0; i < UMOUNT_TRIES; i++) {
		if (umount2(s->mountpoint, 0) == 0 || errno == EINVAL ||
		    errno == ENOENT)
			return;
		if (errno != EBUSY)
			break;
		nap_ms(100);	/* a workload child may still be exiting */
	}
	/* Last resort: detach now, the kernel finishes when users go away. */
	if (umount2(s->mountpoint, MNT_DETACH) != 0)
		say("fsaio: scratch: cannot unmount ", s->mountpoint);
	else
		say("fsaio: scratch: busy, lazily unmounted ", s->mountpoint);
}

static void do_detach(int loopfd)
{
	if (loopfd < 0)
		return;
	/*
	 * With AUTOCLEAR set and the fs still referencing the device (lazy
	 * unmount), LOOP_CLR_FD only marks it; the close below or the final
	 * unmount then frees it.  Errors here are not actionable.
	 */
	ioctl(loopfd, LOOP_CLR_FD, 0);
	close(loopfd);
}

static void teardown_slot(struct slot *sl, struct scratch *s)
{
	do_umount(s);
	do_detach(__atomic_exchange_n(&sl->loopfd, -1, __ATOMIC_SEQ_CST));
	if (s->image[0])
		unlink(s->image);	/* normally gone already */
	if (s->mountpoint[0])
		rmdir(s->mountpoint);
	s->image[0] = '\0';
	s->loopdev[0] = '\0';
	s->mountpoint[0] = '\0';
}

void scratch_teardown(struct scratch *s)
{
	if (!s)
		return;
	for (int i = 0; i < SCRATCH_MAX; i++) {
		struct scratch *expect = s;

		/* Claim the slot first: a signal can't then tear it again. */
		if (__atomic_compare_exchange_n(&registry[i].s, &expect, NULL,
						false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST)) {
			teardown_slot(&registry[i], s);
			return;
		}
	}
	/* Unregistered (zeroed, or torn down already): best effort by name. */
	do_umount(s);
	if (s->image[0])
		unlink(s->image);
	if (s->mountpoint[0])
		rmdir(s->mountpoint);
	s->image[0] = s->loopdev[0] = s->mountpoint[0] = '\0';
}

void scratch_teardown_all(void)
{
	for (int i = 0; i < SCRATCH_MAX; i++) {
		struct scratch *s = __atomic_exchange_n(&registry[i].s, NULL,
							__ATOMIC_SEQ_CST);
		if (s)
			teardown_slot(&registry[i], s);
	}
}

/* ---- setup ------------------------------------------------------------- */

/* fork/exec argv; stdout to /dev/null (mkfs chatter), stderr kept. */
static int run_cmd(char *const argv[])
{
	static const char *const dirs[] = { "/usr/sbin/", "/sbin/", "/usr/bin/",
					    "/bin/" };
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char path[PATH_MAX];
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		/* Root's PATH may lack sbin (e.g. su without -). */
		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			snprintf(path, sizeof(path), "%s%s", dirs[i], argv[0]);
			execv(path, argv);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

static bool have_prog(const char *name)
{
	static const char *const dirs[] = { "/usr/sbin/", "/sbin/", "/usr/bin/",
					    "/bin/" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", dirs[i], name);
		if (access(path, X_OK) == 0)
			return true;
	}
	return false;
}

static int open_loop_control(char *err, size_t errlen)
{
	int fd = open("/dev/loop-control", O_RDWR | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		char *argv[] = { "modprobe", "loop", NULL };

		run_cmd(argv);
		fd = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			/* Module present but no devtmpfs/udev node: misc 10:237. */
			mknod("/dev/loop-control", S_IFCHR | 0600, makedev(10, 237));
			fd = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
		}
	}
	if (fd < 0)
		snprintf(err, errlen,
			 "cannot open /dev/loop-control: %s: load the loop module (modprobe loop) and run as root",
			 strerror(errno));
	return fd;
}

static int open_loop_dev(int nr, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "/dev/loop%d", nr);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/* No udev (containers, minimal initramfs): make the node. */
		mknod(path, S_IFBLK | 0660, makedev(LOOP_MAJOR, nr));
		fd = open(path, O_RDWR | O_CLOEXEC);
	}
	return fd;
}

/* Old kernels (< 5.8) lack LOOP_CONFIGURE. */
static int loop_attach_legacy(int loopfd, int imgfd, bool dio)
{
	struct loop_info64 info = { .lo_flags = LO_FLAGS_AUTOCLEAR };

	if (ioctl(loopfd, LOOP_SET_FD, imgfd) < 0)
		return -errno;
	if (ioctl(loopfd, LOOP_SET_STATUS64, &info) < 0) {
		int e = -errno;

		ioctl(loopfd, LOOP_CLR_FD, 0);
		return e;
	}
	if (dio)
		ioctl(loopfd, LOOP_SET_DIRECT_IO, 1UL);	/* best effort */
	return 0;
}

static int loop_attach(int loopfd, int imgfd)
{
	struct loop_config cfg = {
		.fd = imgfd,
		.info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO,
	};

	if (ioctl(loopfd, LOOP_CONFIGURE, &cfg) == 0)
		return 0;
	if (errno == EINVAL) {
		/* Backing fs may refuse O_DIRECT: try buffered before legacy. */
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		if (ioctl(loopfd, LOOP_CONFIGURE, &cfg) == 0)
			return 0;
	}
	if (errno == EINVAL || errno == ENOTTY)
		return loop_attach_legacy(loopfd, imgfd, true);
	return -errno;
}

static bool loop_has_dio(int loopfd)
{
	struct loop_info64 info;

	return ioctl(loopfd, LOOP_GET_STATUS64, &info) == 0 &&
	       (info.lo_flags & LO_FLAGS_DIRECT_IO);
}

/*
 * Keep a read-only fd for teardown: a writer open on the device would make
 * mount(2) fail with EBUSY on kernels built without BLK_DEV_WRITE_MOUNTED.
 * Opened before closing the rw fd so autoclear cannot fire in between.
 */
static int hold_readonly(int rwfd, const char *path)
{
	int rofd = open(path, O_RDONLY | O_CLOEXEC);

	if (rofd < 0)
		return rwfd;
	close(rwfd);
	return rofd;
}

/* Returns the held loop fd, or -1 with err set. */
static int attach_free_loop(struct scratch *s, int imgfd, char *err,
			    size_t errlen)
{
	int ctl = open_loop_control(err, errlen);
	int ret = -ENODEV;

	if (ctl < 0)
		return -1;
	for (int tries = 0; tries < GET_FREE_TRIES; tries++) {
		int nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		int fd;

		if (nr < 0) {
			ret = -errno;
			break;
		}
		fd = open_loop_dev(nr, s->loopdev, sizeof(s->loopdev));
		if (fd < 0) {
			ret = -errno;
			continue;
		}
		ret = loop_attach(fd, imgfd);
		if (ret == 0) {
			close(ctl);
			return hold_readonly(fd, s->loopdev);
		}
		close(fd);
		if (ret != -EBUSY)	/* EBUSY: lost a race for it, retry */
			break;
	}
	close(ctl);
	s->loopdev[0] = '\0';
	snprintf(err, errlen,
		 "no free loop device (%s): load the loop module (modprobe loop) or free one (losetup -D)",
		 strerror(-ret));
	return -1;
}

static int make_fs(const struct scratch *s, const char *fstype, char *err,
		   size_t errlen)
{
	char dev[sizeof(s->loopdev)];
	int rc;

	snprintf(dev, sizeof(dev), "%s", s->loopdev);
	if (!strcmp(fstype, "ext4")) {
		/*
		 * No lazy init: ext4lazyinit would otherwise write inode
		 * tables in the background during the traced workload.
		 */
		char *argv[] = { "mkfs.ext4", "-q", "-F", "-E",
				 "lazy_itable_init=0,lazy_journal_init=0", dev,
				 NULL };

		if (!have_prog("mkfs.ext4")) {
			snprintf(err, errlen, "mkfs.ext4 not found: install e2fsprogs");
			return -1;
		}
		rc = run_cmd(argv);
	} else if (!strcmp(fstype, "xfs")) {
		char *argv[] = { "mkfs.xfs", "-q", "-f", dev, NULL };

		if (!have_prog("mkfs.xfs")) {
			snprintf(err, errlen,
				 "mkfs.xfs not found: install xfsprogs or use ext4");
			return -1;
		}
		rc = run_cmd(argv);
	} else {
		snprintf(err, errlen, "unknown fstype '%s': use ext4 or xfs",
			 fstype);
		return -1;
	}
	if (rc) {
		snprintf(err, errlen,
			 "mkfs.%s on %s failed (status %d): run it by hand to see why",
			 fstype, dev, rc);
		return -1;
	}
	return 0;
}

static const char *scratch_dir(void)
{
	const char *d = getenv("FSAIO_SCRATCH_DIR");

	/* Not /tmp: often tmpfs, which would keep the image in RAM. */
	return d && *d ? d : "/var/tmp";
}

static int make_image(struct scratch *s, unsigned size_mb, char *err,
		      size_t errlen)
{
	struct statvfs vfs;
	int fd;

	snprintf(s->image, sizeof(s->image), "%s/fsaio-img-%d-XXXXXX",
		 scratch_dir(), (int)getpid());
	fd = mkostemp(s->image, O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen,
			 "cannot create image in %s: %s: set FSAIO_SCRATCH_DIR to a writable disk directory",
			 scratch_dir(), strerror(errno));
		s->image[0] = '\0';
		return -1;
	}
	/* The image is sparse, but mkfs and the workloads fill it: a full
	 * disk would show up as a failed mkfs or a workload's EIO. */
	if (!fstatvfs(fd, &vfs) &&
	    (unsigned long long)vfs.f_bavail * vfs.f_frsize < (unsigned long long)size_mb << 20) {
		snprintf(err, errlen,
			 "only %llu MiB free in %s; the scratch image needs up to %u MiB: free space there or set FSAIO_SCRATCH_DIR",
			 (unsigned long long)vfs.f_bavail * vfs.f_frsize >> 20, scratch_dir(),
			 size_mb);
		close(fd);
		return -1;
	}
	if (ftruncate(fd, (off_t)size_mb << 20) < 0) {
		snprintf(err, errlen, "cannot size image %s to %u MiB: %s: free disk space",
			 s->image, size_mb, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int scratch_setup(struct scratch *s, unsigned size_mb, const char *fstype,
		  char *err, size_t errlen)
{
	struct slot *sl;
	int imgfd, loopfd;

	memset(s, 0, sizeof(*s));
	if (!fstype || !*fstype)
		fstype = "ext4";
	if (size_mb < 16) {
		snprintf(err, errlen, "scratch size %u MiB too small: use >= 16",
			 size_mb);
		return -EINVAL;
	}
	if (!strcmp(fstype, "xfs") && size_mb < 300) {
		/* mkfs.xfs (xfsprogs >= 5.19) refuses smaller filesystems. */
		snprintf(err, errlen, "xfs needs a scratch of >= 300 MiB (got %u)",
			 size_mb);
		return -EINVAL;
	}
	if (geteuid() != 0) {
		snprintf(err, errlen,
			 "scratch filesystem needs root (loop devices, mount): run as root");
		return -EPERM;
	}
	sl = registry_add(s);
	if (!sl) {
		snprintf(err, errlen, "too many scratch filesystems (max %d): tear one down",
			 SCRATCH_MAX);
		return -ENOSPC;
	}
	imgfd = make_image(s, size_mb, err, errlen);
	if (imgfd < 0)
		goto fail;
	loopfd = attach_free_loop(s, imgfd, err, errlen);
	close(imgfd);
	if (loopfd < 0)
		goto fail;
	__atomic_store_n(&sl->loopfd, loopfd, __ATOMIC_SEQ_CST);
	/* The loop device holds the file now; nothing left behind if killed. */
	unlink(s->image);
	s->image[0] = '\0';
	if (!loop_has_dio(loopfd))
		fprintf(stderr,
			"fsaio: scratch: %s without direct I/O; cold reads rely on drop_caches\n",
			s->loopdev);
	if (make_fs(s, fstype, err, errlen))
		goto fail;
	snprintf(s->mountpoint, sizeof(s->mountpoint), "%s/fsaio-mnt-%d-XXXXXX",
		 scratch_dir(), (int)getpid());
	if (!mkdtemp(s->mountpoint)) {
		snprintf(err, errlen, "mkdtemp in %s: %s: set FSAIO_SCRATCH_DIR",
			 scratch_dir(), strerror(errno));
		s->mountpoint[0] = '\0';
		goto fail;
	}
	if (mount(s->loopdev, s->mountpoint, fstype, 0, NULL) < 0) {
		snprintf(err, errlen, "mount %s on %s (%s): %s: check dmesg",
			 s->loopdev, s->mountpoint, fstype, strerror(errno));
		goto fail;
	}
	__atomic_store_n(&s->mounted, true, __ATOMIC_SEQ_CST);
	return 0;
fail:
	scratch_teardown(s);
	return -1;
}

int drop_caches(void)
{
	int fd, ret = 0;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "3", 1) != 1)
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

/* The pid in an fsaio-mnt-<pid>-* or fsaio-img-<pid>-* name, or 0. */
static int orphan_pid(const char *name)
{
	int pid;

	if (sscanf(name, "fsaio-mnt-%d-", &pid) != 1 &&
	    sscanf(name, "fsaio-img-%d-", &pid) != 1)
		return 0;
	return fsaio_pid_dead(pid) ? pid : 0;
}

int scratch_reap_orphans(void)
{
	const char *dir = scratch_dir();
	char line[2 * PATH_MAX], mp[PATH_MAX], path[PATH_MAX];
	size_t dlen = strlen(dir);
	struct dirent *de;
	int reaped = 0, pid;
	FILE *f;
	DIR *d;

	/* mounts first: the loop device (autoclear) goes with the last one */
	f = fopen("/proc/self/mountinfo", "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*d %*d %*s %*s %4095s", mp) != 1 ||
		    strncmp(mp, dir, dlen) || mp[dlen] != '/' ||
		    !(pid = orphan_pid(mp + dlen + 1)))
			continue;
		if (umount2(mp, 0) && umount2(mp, MNT_DETACH)) {
			fsaio_err("cannot unmount %s, left by fsaio %d: %s", mp, pid,
				  strerror(errno));
			continue;
		}
		fsaio_err("unmounted %s, left by fsaio %d which died before its teardown",
			   mp, pid);
		reaped++;
	}
	if (f)
		fclose(f);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		if (!(pid = orphan_pid(de->d_name)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!strncmp(de->d_name, "fsaio-mnt-", 10) ? rmdir(path) : unlink(path))
			continue;	/* still mounted (said above), or not ours to remove */
		reaped++;
	}
	if (d)
		closedir(d);
	return reaped;
}
