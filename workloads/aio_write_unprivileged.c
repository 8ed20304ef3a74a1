// SPDX-License-Identifier: GPL-2.0
/*
 * aio_write_unprivileged: O_DSYNC (O_SYNC with -S) libaio writes by user
 * nobody, checked for what the writer's identity decides, as xfstests'
 * generic/355 (suid/sgid cleared on write) and LTP's setrlimit tests do.
 *
 *  1. COUNT (default 8) 4 KiB writes in one io_submit to a file nobody
 *     owns with mode 06775: a write by a user without CAP_FSETID clears
 *     the set-user-ID and set-group-ID bits (file_remove_privs).  A write
 *     by root keeps them, so a kernel that finishes the write in a worker
 *     with the worker's (root) credentials leaves them set.  The first
 *     write cannot remove privileges without blocking (IOCB_NOWAIT gets
 *     -EAGAIN), so on a patched kernel it is the worker that does it.
 *  2. RLIMIT_FSIZE (SIGXFSZ blocked and collected): a write crossing the
 *     limit is cut short at it (half its bytes, no signal), and a write
 *     starting at the limit fails with -EFBIG and raises SIGXFSZ.  On a
 *     patched kernel both are asynchronous O_DSYNC writes whose copy ran
 *     in io_submit() against the submitter's limit.
 *  3. RLIMIT_FSIZE for appends, the file now ending at the limit: one
 *     write on an O_APPEND fd and one with RWF_APPEND (aio_rw_flags), both
 *     with aio_offset 0, which an append ignores (it lands at i_size).
 *     Each must fail with -EFBIG and raise SIGXFSZ, and the file must not
 *     grow.  A kernel that judges the limit by aio_offset and finishes the
 *     write in a worker (a kthread: no RLIMIT_FSIZE) writes past it.
 *
 * Every write is read back.  The files are made and removed as root; the
 * saved set-user-ID stays 0 for that.  Skips when not run as root.
 */
#include <grp.h>
#include <signal.h>
#include <sys/uio.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "lib/wl.h"

#define NOBODY		65534
#define WSIZE		4096u
#define PRIV_BITS	(S_ISUID | S_ISGID)

static const char help[] =
	"COUNT (8) O_DSYNC libaio writes as user nobody to a setuid/setgid file\n"
	"(the bits must go), then RLIMIT_FSIZE: a write at the limit gets -EFBIG,\n"
	"one across it is cut short, and appends (O_APPEND, RWF_APPEND) to the\n"
	"file at the limit get -EFBIG and SIGXFSZ.\n"
	"  -S  O_SYNC instead of O_DSYNC\n";

static bool osync;

static int extra(int c, const char *arg)
{
	(void)c;
	(void)arg;
	osync = true;
	return 0;
}

static void become_root(void)
{
	/* before the files are removed (atexit runs this first) */
	if (setresuid(0, 0, 0) || setresgid(0, 0, 0))
		fprintf(stderr, "aio_write_unprivileged: cannot regain root: %s\n",
			strerror(errno));
}

/* The result each request must get; the data is checked after. */
static int check(uint64_t id, long res, void *arg)
{
	const long *want = arg;

	if (res != want[id]) {
		fprintf(stderr, "write %" PRIu64 ": res %ld, want %ld\n", id, res, want[id]);
		return -1;
	}
	return 0;
}

/*
 * One io_submit of n writes of WSIZE from bufs at offs with RWF_* flags
 * rw_flags; results checked.
 */
static void run_writes(int fd, unsigned n, const uint64_t *offs, const long *want,
		       int rw_flags, char *bufs, uint64_t seed, struct wl_stats *st)
{
	struct wl_reap r = { .nreq = n, .check = check, .arg = (void *)want };
	struct iocb *cbs = calloc(n, sizeof(*cbs));
	io_context_t ctx;

	r.seen = calloc(n, 1);
	if (!cbs || !r.seen)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < n; i++) {
		char *b = bufs + (size_t)i * WSIZE;

		pattern_fill(seed, offs[i], b, WSIZE);
		io_prep_pwrite(&cbs[i], fd, b, WSIZE, offs[i]);
		cbs[i].aio_rw_flags = rw_flags;
		cbs[i].data = (void *)(uintptr_t)i;
	}
	wl_aio_setup(n, &ctx);
	wl_aio_run(ctx, cbs, n, st, &r);
	io_destroy(ctx);
	free(r.seen);
	free(cbs);
}

/* Was SIGXFSZ (blocked) sent to this process?  Collects it if so. */
static bool took_sigxfsz(void)
{
	static const struct timespec now = { 0, 0 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGXFSZ);
	return sigtimedwait(&set, NULL, &now) == SIGXFSZ;
}

/* The file must still end at the limit; one error per check that fails. */
static void check_size(int fd, uint64_t size, const char *what, struct wl_stats *st)
{
	struct stat sb;

	if (fstat(fd, &sb))
		wl_die("fstat", errno);
	if ((uint64_t)sb.st_size != size) {
		fprintf(stderr, "size %lld after %s limited to %" PRIu64 " bytes\n",
			(long long)sb.st_size, what, size);
		st->errors++;
	}
}

/* Read back [off, off+len): pattern data where written, else zero. */
static int read_back(int fd, uint64_t seed, uint64_t off, size_t len, bool data)
{
	char buf[WSIZE];

	if (pread(fd, buf, len, off) != (ssize_t)len)
		return -1;
	for (size_t k = 0; k < len; k++)
		if ((uint8_t)buf[k] != (data ? pattern_byte(seed, off + k) : 0))
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_write_unprivileged", .count = 8 };
	struct wl_file f = { .seed = 0x5e7 };
	struct wl_stats st = { 0 };
	uint64_t offs[WL_MAX_COUNT], lim_offs[1], app_off[1] = { 0 };
	long want[WL_MAX_COUNT], lim_want[1], app_want[1] = { -EFBIG };
	struct rlimit rl;
	struct stat sb;
	sigset_t xfsz;
	char *bufs;
	int fd, afd;

	wl_getopt(argc, argv, &o, help, "S", extra);
	if (geteuid() != 0)
		wl_skip("needs root to make a file nobody owns with mode 06775", EPERM);
	static struct wl_extent no_data;

	f.size = (uint64_t)o.count * 2 * WSIZE;
	f.data = &no_data;				/* all hole */
	wl_create(&f, o.dir, o.name);
	if (chown(f.path, NOBODY, NOBODY) || chmod(f.path, 06775))
		wl_die(f.path, errno);
	printf("# mode: %s, file %s 06775 owned by %d\n", osync ? "O_SYNC" : "O_DSYNC",
	       f.path, NOBODY);

	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, 0) ||
	    setresuid(NOBODY, NOBODY, 0))
		wl_die("dropping to user nobody", errno);
	atexit(become_root);

	fd = open(f.path, O_RDWR | O_CLOEXEC | (osync ? O_SYNC : O_DSYNC));
	if (fd < 0)
		wl_die(f.path, errno);
	afd = open(f.path, O_WRONLY | O_APPEND | O_CLOEXEC | (osync ? O_SYNC : O_DSYNC));
	if (afd < 0)
		wl_die(f.path, errno);
	bufs = wl_alloc((size_t)(o.count > 2 ? o.count : 2) * WSIZE);

	/* 1. privileges: every other 4 KiB block */
	for (unsigned i = 0; i < o.count; i++) {
		offs[i] = (uint64_t)i * 2 * WSIZE;
		want[i] = WSIZE;
	}
	run_writes(fd, o.count, offs, want, 0, bufs, f.seed, &st);
	if (fstat(fd, &sb))
		wl_die("fstat", errno);
	if (sb.st_mode & PRIV_BITS) {
		fprintf(stderr, "mode %04o after writes by uid %d: the set-user/group-ID bits "
			"survived (the write ran with credentials that have CAP_FSETID?)\n",
			sb.st_mode & 07777, NOBODY);
		st.errors++;
	}

	/* 2. RLIMIT_FSIZE at the file's size: a write at the limit.  SIGXFSZ is blocked
	 * (and ignored, should it be unblocked), so it stays pending for
	 * took_sigxfsz() instead of killing us. */
	signal(SIGXFSZ, SIG_IGN);
	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	if (sigprocmask(SIG_BLOCK, &xfsz, NULL))
		wl_die("sigprocmask", errno);
	rl = (struct rlimit){ .rlim_cur = f.size, .rlim_max = RLIM_INFINITY };
	if (setrlimit(RLIMIT_FSIZE, &rl))
		wl_die("setrlimit RLIMIT_FSIZE", errno);
	lim_offs[0] = f.size - WSIZE / 2;
	lim_want[0] = WSIZE / 2;
	run_writes(fd, 1, lim_offs, lim_want, 0, bufs, f.seed, &st);
	check_size(fd, f.size, "a write across the limit", &st);
	if (took_sigxfsz()) {
		fprintf(stderr, "SIGXFSZ for a write across the limit (it must be cut short)\n");
		st.errors++;
	}
	lim_offs[0] = f.size;
	lim_want[0] = -EFBIG;
	run_writes(fd, 1, lim_offs, lim_want, 0, bufs, f.seed, &st);
	check_size(fd, f.size, "writes", &st);
	if (!took_sigxfsz()) {
		fprintf(stderr, "no SIGXFSZ for the write at the limit\n");
		st.errors++;
	}

	/* 3. appends to the file at the limit, aio_offset 0: -EFBIG, SIGXFSZ,
	 * the file unchanged */
	run_writes(afd, 1, app_off, app_want, 0, bufs, f.seed, &st);
	check_size(fd, f.size, "a write on an O_APPEND fd", &st);
	if (!took_sigxfsz()) {
		fprintf(stderr, "no SIGXFSZ for the write on the O_APPEND fd at the limit\n");
		st.errors++;
	}
	run_writes(fd, 1, app_off, app_want, RWF_APPEND, bufs, f.seed, &st);
	check_size(fd, f.size, "an RWF_APPEND write", &st);
	if (!took_sigxfsz()) {
		fprintf(stderr, "no SIGXFSZ for the RWF_APPEND write at the limit\n");
		st.errors++;
	}
	close(afd);

	/* read back: the written blocks, and the holes between them */
	st.verified = 0;
	for (unsigned i = 0; i < o.count; i++) {
		/* the last hole ends with the half that the write across the limit wrote */
		size_t hole = i + 1 < o.count ? WSIZE : WSIZE / 2;

		if (read_back(fd, f.seed, offs[i], WSIZE, true) ||
		    read_back(fd, f.seed, offs[i] + WSIZE, hole, false))
			st.errors++;
		else
			st.verified++;
	}
	if (read_back(fd, f.seed, f.size - WSIZE / 2, WSIZE / 2, true))
		st.errors++;
	else
		st.verified++;
	close(fd);
	return wl_finish(&o, "libaio", &st);
}
