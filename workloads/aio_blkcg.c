// SPDX-License-Identifier: GPL-2.0
/*
 * aio_blkcg: libaio buffered reads by a process in a cgroup whose io.max
 * limits reads of the scratch device must be charged to that cgroup and
 * throttled by it, as the same reads issued synchronously are.
 *
 * The process moves itself into a new cgroup (cgroup v2, io controller)
 * with io.max "MAJ:MIN rbps=RATE" on the whole disk holding DIR, then
 * submits COUNT (8) cold 1 MiB reads of one file in one io_submit, with
 * readahead off on the test device (wl_readahead_off): every
 * folio is read by the round trip that needs it, so on a kernel that
 * continues reads in a worker nearly all of the device reads are issued
 * by the worker.  Checks:
 *
 *  - charged: the cgroup's io.stat rbytes for the disk is at least 90%
 *    of the bytes read (the rest is slack for what a stock kernel may
 *    have read ahead of the test or satisfied from the cache); a worker
 *    that issues I/O in the root cgroup leaves about one folio per
 *    request here;
 *  - throttled: the reads take at least half of bytes / RATE (a lower
 *    bound only, so a slow machine never fails it);
 *  - memory: the page cache the reads fill is charged to the cgroup, its
 *    memory.stat "file" growing by at least 90% of the bytes read (the
 *    rest is slack for per-CPU stat batching, at most 64 pages a CPU); a
 *    worker that allocates folios outside the submitter's memory cgroup
 *    leaves about one folio per request there.  Not checked without the
 *    memory controller; blind to the worker where readahead stays on (the
 *    submitter's first attempt then allocates every folio), as it says.  /proc/self/io read_bytes is printed, not checked:
 *    the block reads a worker issues are the worker's (a known limit of
 *    the series);
 *  - every byte read is the file's;
 *  - released: once removed, the cgroup's io css stops dying within 10 s
 *    (nothing keeps a reference to it).  Not on a loop device, whose
 *    per-cgroup worker keeps one for 60 s after its last I/O.
 *
 * The process moves back to its own cgroup and the new one is removed at
 * exit, on failure too.  Skips without root, cgroup v2 with the io
 * controller, or a block device (with a queue) under DIR.
 */
#include <stdarg.h>
#include <sys/sysmacros.h>

#include "lib/wl.h"

#define RLEN		(1u << 20)
#define RATE		(4u << 20)	/* io.max rbps: 8 MiB take 2 s */
#define CG_ROOT		"/sys/fs/cgroup"

static const char help[] =
	"COUNT (8) cold 1 MiB libaio reads from a cgroup whose io.max holds reads of\n"
	"DIR's disk to 4 MiB/s: the cgroup's io.stat must count them and they must\n"
	"take as long as the limit says.  Needs root and cgroup v2 with io.\n";

/* The test cgroup, the one this process came from, and the controllers
 * switched on here in cgroups' subtree_control (undone in reverse at exit). */
static char cg[PATH_MAX], home[PATH_MAX];
static struct {
	char dir[PATH_MAX];
	const char *ctl;
} turned_on[16];
static int n_turned_on;
static bool memcg;	/* the memory controller is available */

static int write_file(const char *path, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int fd, n, ret = 0;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

/* A whole file (small, from cgroupfs or sysfs) into buf; 0 or -errno. */
static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return true;
	return false;
}

/*
 * Dying io css below home: nr_dying_subsys_io of its cgroup.stat (6.11+),
 * -1 if the kernel does not say.  Not nr_dying_descendants: a removed
 * cgroup's memory css lives on while page cache charged to it does.
 */
static long home_dying(void)
{
	static const char key[] = "nr_dying_subsys_io ";
	char path[PATH_MAX + 32], buf[1024], *p;

	snprintf(path, sizeof(path), "%s/cgroup.stat", home);
	if (read_file(path, buf, sizeof(buf)) || !(p = strstr(buf, key)))
		return -1;
	return strtol(p + strlen(key), NULL, 10);
}

static void cg_teardown(void)
{
	char path[PATH_MAX + 32];

	while (n_turned_on > 0) {
		n_turned_on--;
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control",
			 turned_on[n_turned_on].dir);
		write_file(path, "-%s\n", turned_on[n_turned_on].ctl);
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", home);
	if (cg[0] && write_file(path, "%d\n", (int)getpid()))
		fprintf(stderr, "# warning: cannot move back to %s\n", home);
	if (cg[0] && rmdir(cg) && errno != ENOENT)
		fprintf(stderr, "# warning: rmdir %s: %s\n", cg, strerror(errno));
	cg[0] = '\0';
}

/* The whole disk holding dir (io.max and io.stat take no partitions). */
static bool on_loop;

static void disk_of(const char *dir, unsigned *maj, unsigned *min)
{
	char path[128], buf[64];
	struct stat sb;

	if (stat(dir, &sb))
		wl_die(dir, errno);
	*maj = major(sb.st_dev);
	*min = minor(sb.st_dev);
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", *maj, *min);
	if (!access(path, F_OK)) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev", *maj, *min);
		if (read_file(path, buf, sizeof(buf)) || sscanf(buf, "%u:%u", maj, min) != 2)
			wl_die("parent disk of the partition", EINVAL);
	}
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue", *maj, *min);
	if (access(path, F_OK))
		wl_skip("DIR is not on a block device with a request queue", ENODEV);
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/loop", *maj, *min);
	on_loop = !access(path, F_OK);
}

/* Skip unless this process can make an io-controlled cgroup v2. */
static void cg_probe(void)
{
	char buf[4096], *p;

	if (geteuid())
		wl_skip("moving into a new cgroup needs root", EPERM);
	if (read_file(CG_ROOT "/cgroup.controllers", buf, sizeof(buf)))
		wl_skip("no cgroup v2 at " CG_ROOT, ENOENT);
	if (!has_word(buf, "io"))
		wl_skip("the io controller is not available (CONFIG_BLK_CGROUP)", ENOTSUP);
	memcg = has_word(buf, "memory");
	if (read_file("/proc/self/cgroup", buf, sizeof(buf)) || !(p = strstr(buf, "0::/")))
		wl_skip("this process is not in a cgroup v2 hierarchy", ENOENT);
	p[strcspn(p, "\n")] = '\0';
	snprintf(home, sizeof(home), CG_ROOT "%s", strcmp(p + 3, "/") ? p + 3 : "");
}

/* ctl on in the subtree_control of dir and of every ancestor below CG_ROOT. */
static int ctl_enable(const char *dir, const char *ctl)
{
	char path[PATH_MAX + 32], buf[512], parent[PATH_MAX];
	int err;

	if (strcmp(dir, CG_ROOT)) {
		snprintf(parent, sizeof(parent), "%s", dir);
		*strrchr(parent, '/') = '\0';
		err = ctl_enable(parent, ctl);
		if (err)
			return err;
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	if (read_file(path, buf, sizeof(buf)))
		return -errno;
	if (has_word(buf, ctl))
		return 0;
	if (n_turned_on == (int)(sizeof(turned_on) / sizeof(turned_on[0])))
		return -E2BIG;
	err = write_file(path, "+%s\n", ctl);
	if (!err) {
		snprintf(turned_on[n_turned_on].dir, PATH_MAX, "%s", dir);
		turned_on[n_turned_on++].ctl = ctl;
	}
	return err;
}

/*
 * Make cg inside this process's own cgroup (the harness's, so that its
 * cgroup.kill still reaches the workload), move in, switch io (and
 * memory, where available) on down to it (the no-internal-process rule
 * allows that once home is empty) and limit its reads of maj:min to RATE.
 */
static void cg_enter(unsigned maj, unsigned min)
{
	char path[PATH_MAX + 32];
	int err;

	atexit(cg_teardown);
	snprintf(cg, sizeof(cg), "%s/fsaio-blkcg.%d", home, (int)getpid());
	if (mkdir(cg, 0755))
		wl_die(cg, errno);
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	err = write_file(path, "%d\n", (int)getpid());
	if (err)
		wl_die("move into the test cgroup", -err);
	err = ctl_enable(home, "io");
	if (err == -EBUSY)
		wl_skip("other processes share this cgroup: io cannot be enabled below it", -err);
	if (err)
		wl_die("enable the io controller down to the test cgroup", -err);
	if (memcg && (err = ctl_enable(home, "memory"))) {
		printf("# note: the memory controller could not be enabled (%s): "
		       "memory.stat not checked\n", strerror(-err));
		memcg = false;
	}
	snprintf(path, sizeof(path), "%s/io.max", cg);
	err = write_file(path, "%u:%u rbps=%u\n", maj, min, RATE);
	if (err == -ENOENT || err == -EINVAL || err == -ENODEV)
		wl_skip("io.max cannot limit this disk (CONFIG_BLK_DEV_THROTTLING?)", -err);
	if (err)
		wl_die("write io.max", -err);
}

/* rbytes of maj:min in the test cgroup's io.stat (0 if not listed yet). */
static uint64_t cg_rbytes(unsigned maj, unsigned min)
{
	char path[PATH_MAX], buf[4096], key[32], *p;
	unsigned long long v;

	snprintf(path, sizeof(path), "%s/io.stat", cg);
	if (read_file(path, buf, sizeof(buf)))
		wl_die(path, errno);
	snprintf(key, sizeof(key), "%u:%u ", maj, min);
	p = strstr(buf, key);
	if (!p)
		return 0;
	p = strstr(p, "rbytes=");
	return p && sscanf(p, "rbytes=%llu", &v) == 1 ? v : 0;
}

/* A key's value in a "key value" (or "key: value") file; 0 or -errno. */
static int stat_value(const char *path, const char *key, uint64_t *v)
{
	char buf[8192], *p = buf;
	size_t n = strlen(key);
	int err = read_file(path, buf, sizeof(buf));

	if (err)
		return err;
	for (; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n) && (p[n] == ' ' || p[n] == ':')) {
			*v = strtoull(p + n + 1, NULL, 10);
			return 0;
		}
	return -ENOENT;
}

/* The "file" bytes of the test cgroup's memory.stat. */
static uint64_t cg_file_bytes(void)
{
	char path[PATH_MAX + 16];
	uint64_t v;
	int err;

	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	err = stat_value(path, "file", &v);
	if (err)
		wl_die(path, -err);
	return v;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_blkcg", .count = 8 };
	struct wl_reads c = { .f.seed = 0xb1c9 };
	struct wl_stats st = { 0 };
	uint64_t bytes, rbytes, file = 0, io_read = 0, io_after;
	bool task_io;
	unsigned maj, min;
	double t0, secs, want;
	long dying0, dying;
	int fd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	if (o.count < 1 || o.count > 64) {
		fprintf(stderr, "-n must be 1..64 (COUNT MiB read at 4 MiB/s)\n");
		return EXIT_USAGE;
	}
	cg_probe();
	disk_of(o.dir, &maj, &min);

	c.f.size = (uint64_t)o.count * RLEN;
	wl_strided_reads(&c, o.count, RLEN, RLEN);
	if (wl_readahead_off(o.dir))
		printf("# note: readahead left on (not a test device): fewer round trips, "
		       "and io_submit() allocates each request's folios, so the memory "
		       "check does not see where a worker charges its own\n");
	/* made and opened (after readahead off) outside the limited cgroup */
	fd = wl_reads_file(&o, &c);
	dying0 = home_dying();
	cg_enter(maj, min);

	bytes = c.f.size;
	rbytes = cg_rbytes(maj, min);
	if (memcg)
		file = cg_file_bytes();
	/* absent without CONFIG_TASK_IO_ACCOUNTING */
	task_io = !stat_value("/proc/self/io", "read_bytes", &io_read);
	t0 = wl_now();
	wl_aio_reads(&c, fd, &st);
	secs = wl_now() - t0;
	close(fd);
	rbytes = cg_rbytes(maj, min) - rbytes;
	want = (double)bytes / RATE / 2;
	printf("# cgroup io.stat %u:%u rbytes=%" PRIu64 " for %" PRIu64
	       " bytes read; %.2f s at rbps=%u (at least %.2f s)\n",
	       maj, min, rbytes, bytes, secs, RATE, want);
	if (rbytes < bytes / 10 * 9) {
		fprintf(stderr, "the cgroup was charged %" PRIu64 " of %" PRIu64
			" bytes read: I/O issued for its requests went to another cgroup\n",
			rbytes, bytes);
		st.errors++;
	}
	if (task_io && !stat_value("/proc/self/io", "read_bytes", &io_after))
		printf("# /proc/self/io read_bytes=%" PRIu64 " (a worker's block reads are "
		       "the worker's)\n", io_after - io_read);
	if (memcg) {
		file = cg_file_bytes() - file;
		printf("# cgroup memory.stat file grew by %" PRIu64 " for %" PRIu64
		       " bytes read\n", file, bytes);
		if (file < bytes / 10 * 9) {
			fprintf(stderr, "the cgroup was charged %" PRIu64 " bytes of page cache for "
				"%" PRIu64 " bytes read: its requests' folios were charged to "
				"another memory cgroup\n", file, bytes);
			st.errors++;
		}
	}
	if (secs < want) {
		fprintf(stderr, "%" PRIu64 " bytes read in %.2f s, faster than io.max allows"
			" (rbps=%u: at least %.2f s)\n", bytes, secs, RATE, want);
		st.errors++;
	}

	/*
	 * released: once removed, the test cgroup must stop dying when
	 * nothing holds it; a request that kept a reference to its io css
	 * (or a worker left associated with it) keeps it dying for good.
	 */
	cg_teardown();
	if (on_loop) {
		/* drivers/block/loop.c: a per-cgroup worker keeps its css
		 * until it has been idle for 60 s */
		printf("# note: %u:%u is a loop device, whose per-cgroup worker holds the cgroup"
		       " for 60 s after its last I/O: its release is not checked here\n",
		       maj, min);
		return wl_finish(&o, "libaio", &st);
	}
	if (dying0 < 0) {
		printf("# note: no nr_dying_subsys_io in cgroup.stat (before 6.11): release not checked\n");
		return wl_finish(&o, "libaio", &st);
	}
	t0 = wl_now();
	while ((dying = home_dying()) > dying0 && wl_now() - t0 < 10)
		usleep(50 * 1000);
	printf("# nr_dying_subsys_io of %s: %ld before, %ld after removal (%.2f s)\n",
	       home, dying0, dying, wl_now() - t0);
	if (dying > dying0) {
		fprintf(stderr, "the removed test cgroup's io css is still dying after 10 s:"
			" something holds a reference to it\n");
		st.errors++;
	}
	return wl_finish(&o, "libaio", &st);
}
