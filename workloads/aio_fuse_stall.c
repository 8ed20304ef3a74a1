// SPDX-License-Identifier: GPL-2.0
/*
 * aio_fuse_stall: what an unprivileged user can park with a FUSE daemon
 * that does not answer, and that it stalls nobody else.
 *
 * A child becomes user nobody, mounts a FUSE file system of its own (the
 * daemon is a thread of the child; fusermount3 mounts it, as for any
 * user) whose reads are held unanswered, maps its one file MAP_SHARED
 * (MADV_RANDOM: one FUSE read per faulting page) and submits COUNT
 * (default 64) cold 4 KiB aio reads of an ext4 file into that mapping,
 * with RLIMIT_NPROC at the tasks the user has plus 6.  Each copy into
 * the mapping faults into the daemon and waits there: on a stock kernel
 * the child itself, in io_submit(), at the first read; on a kernel that
 * resumes reads in workers, one worker per asynchronous read.  The
 * daemon counts the reads it holds, so the test knows exactly how many
 * tasks wait: 1 on stock (or with fs.aio-buffered-async=0), and with the
 * series 6 workers (the requests RLIMIT_NPROC lets go asynchronous) plus
 * the child, whose 7th read is done in place and waits in io_submit().
 * A kernel whose workers count against no limit parks one per read.
 *
 * Meanwhile root's 64 cold reads of another file must complete within
 * 10 s, and a third process killed with 64 cold reads in flight must be
 * gone within 10 s.  Then the daemon answers, and every read of the
 * child must complete with the ext4 file's data.  A second round into
 * fresh pages of the mapping must park exactly as many again: a
 * completed request no longer counts against the limit.  Skips without root
 * (to become nobody), a /dev/fuse open to every user, or fusermount3.
 */
#define FUSE_USE_VERSION 34
#include <dirent.h>
#include <fuse_lowlevel.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "lib/wl.h"

#define NOBODY		65534
#define EXTRA_TASKS	6u	/* RLIMIT_NPROC: the user's tasks + this */
#define VICTIM_READS	64u
#define DEADLINE	10	/* s: the victims, the held reads settling */
#define CHILD_DEADLINE	60	/* s: the child, once its reads are answered */
#define FUSE_INO	2	/* the file's inode; 1 is the root */
#define ROUNDS		2

static const char help[] =
	"As user nobody, COUNT (64) cold reads into an mmap()ed file of a FUSE\n"
	"daemon that holds its reads: the tasks waiting there must stay within\n"
	"the user's RLIMIT_NPROC (its tasks + 6); root's 64 cold reads must\n"
	"complete and a killed reader must exit within 10 s meanwhile; then\n"
	"the daemon answers and every read must complete with its data; a\n"
	"second round must find the limit as the first did.\n"
	"Needs root, /dev/fuse and fusermount3.\n";

/* Shared between the parent and the child (MAP_SHARED | MAP_ANONYMOUS). */
struct shared {
	atomic_uint held;	/* FUSE reads the daemon holds now */
	atomic_uint held_max;
	atomic_int release;	/* the parent says: answer them */
	atomic_int go;		/* the parent says: submit round go - 1 */
	atomic_int done;	/* the child has reaped this many rounds */
};

/* What the child tells the parent: once ready (err: why it cannot), and
 * its counts at the end. */
struct report {
	int err;
	unsigned tasks;		/* the user's tasks when it submitted */
	uint64_t submitted, completed, errors, verified, bytes;
};

struct daemon {
	struct fuse_session *se;
	struct shared *sh;
	size_t size;		/* of the one file */
	fuse_req_t *held;	/* reads not answered yet */
	size_t *held_len;
	unsigned nr_held, cap;
};

/* ---- the FUSE daemon (a thread of the child) ------------------------------- */

static void fill_attr(struct daemon *d, fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = NOBODY;
	st->st_gid = NOBODY;
	if (ino == FUSE_ROOT_ID) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = d->size;
	}
}

static void fs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct daemon *d = fuse_req_userdata(req);
	struct fuse_entry_param e = { .ino = FUSE_INO, .attr_timeout = 3600,
				      .entry_timeout = 3600 };

	if (parent != FUSE_ROOT_ID || strcmp(name, "f")) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fill_attr(d, FUSE_INO, &e.attr);
	fuse_reply_entry(req, &e);
}

static void fs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct daemon *d = fuse_req_userdata(req);
	struct stat st;

	fill_attr(d, ino, &st);
	fuse_reply_attr(req, &st, 3600);
}

static void fs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_open(req, fi);
}

static void answer(fuse_req_t req, size_t len)
{
	static char zeros[128 * 1024];

	fuse_reply_buf(req, zeros, len < sizeof(zeros) ? len : sizeof(zeros));
}

/* Hold every read until the parent says otherwise. */
static void fs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct daemon *d = fuse_req_userdata(req);
	size_t len = off >= (off_t)d->size ? 0 : d->size - off;

	if (len > size)
		len = size;
	if (atomic_load(&d->sh->release) || d->nr_held == d->cap) {
		answer(req, len);
		return;
	}
	d->held[d->nr_held] = req;
	d->held_len[d->nr_held++] = len;
	atomic_store(&d->sh->held, d->nr_held);
	if (d->nr_held > atomic_load(&d->sh->held_max))
		atomic_store(&d->sh->held_max, d->nr_held);
}

/* The mapping's dirty pages, written back at close: taken and dropped. */
static void fs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
		     off_t off, struct fuse_file_info *fi)
{
	fuse_reply_write(req, size);
}

static const struct fuse_lowlevel_ops fs_ops = {
	.lookup = fs_lookup,
	.getattr = fs_getattr,
	.open = fs_open,
	.read = fs_read,
	.write = fs_write,
};

static void answer_held(struct daemon *d)
{
	for (unsigned i = 0; i < d->nr_held; i++)
		answer(d->held[i], d->held_len[i]);
	d->nr_held = 0;
	atomic_store(&d->sh->held, 0);
}

/* Serve requests until the file system is unmounted; answer the held
 * reads once the parent releases them. */
static void *daemon_main(void *arg)
{
	struct daemon *d = arg;
	struct fuse_buf buf = { 0 };

	while (!fuse_session_exited(d->se)) {
		struct pollfd p = { fuse_session_fd(d->se), POLLIN, 0 };
		int n;

		if (atomic_load(&d->sh->release) && d->nr_held)
			answer_held(d);
		n = poll(&p, 1, 20);
		if (n <= 0)
			continue;
		n = fuse_session_receive_buf(d->se, &buf);
		if (n == -EINTR || n == -EAGAIN)
			continue;
		if (n <= 0)
			break;		/* unmounted (or aborted) */
		fuse_session_process_buf(d->se, &buf);
	}
	answer_held(d);
	free(buf.mem);
	return NULL;
}

/* ---- the child: user nobody ------------------------------------------------ */

/* Tasks (threads) whose real user is uid: what RLIMIT_NPROC counts. */
static unsigned user_tasks(uid_t uid)
{
	DIR *proc = opendir("/proc");
	struct dirent *p;
	unsigned n = 0;

	if (!proc)
		return 0;
	while ((p = readdir(proc))) {
		char path[300];
		DIR *task;
		struct dirent *t;

		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		task = opendir(path);
		if (!task)
			continue;
		while ((t = readdir(task))) {
			char status[600], line[256];
			unsigned ruid;
			FILE *f;

			if (t->d_name[0] < '1' || t->d_name[0] > '9')
				continue;
			snprintf(status, sizeof(status), "%s/%s/status", path, t->d_name);
			f = fopen(status, "r");
			if (!f)
				continue;
			while (fgets(line, sizeof(line), f))
				if (sscanf(line, "Uid: %u", &ruid) == 1) {
					n += ruid == uid;
					break;
				}
			fclose(f);
		}
		closedir(task);
	}
	closedir(proc);
	return n;
}

static void send_report(int sock, const struct report *r)
{
	if (send(sock, r, sizeof(*r), 0) != sizeof(*r))
		_exit(1);
}

/* Mount the daemon's file system on mnt; a report's errno if not. */
static int mount_fs(struct daemon *d, const char *mnt, pthread_t *t)
{
	char *argv[] = { "fsaio-fuse", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(1, argv);

	d->se = fuse_session_new(&args, &fs_ops, sizeof(fs_ops), d);
	if (!d->se)
		return ENOMEM;
	if (fuse_session_mount(d->se, mnt)) {
		fuse_session_destroy(d->se);
		return EPERM;
	}
	if (pthread_create(t, NULL, daemon_main, d)) {
		fuse_session_unmount(d->se);
		fuse_session_destroy(d->se);
		return EAGAIN;
	}
	return 0;
}

/* One round: n cold reads of f into the mapping's pages [first, first + n). */
static void tenant_round(const struct wl_file *f, unsigned n, char *buf, unsigned first,
			 io_context_t ctx, struct iocb **ptrs, struct wl_stats *st)
{
	struct wl_reads c = { 0 };
	struct iocb *cbs;
	unsigned done;
	int fd;

	c.f = *f;
	wl_strided_reads(&c, n, WL_PAGE, WL_PAGE);
	for (unsigned i = 0; i < n; i++)
		c.rd[i].buf = buf + (size_t)(first + i) * WL_PAGE;
	fd = wl_open_cold(f, O_RDONLY);
	cbs = wl_aio_prep_reads(&c, fd);
	for (unsigned i = 0; i < n; i++)
		ptrs[i] = &cbs[i];
	/* stock: waits in the first read's fault, here, until released */
	done = wl_aio_submit(ctx, ptrs, n, st);
	wl_aio_reap_n(ctx, st, &c.reap, done);
	close(fd);
	free(cbs);
	wl_reads_free(&c);
}

static void tenant(const struct wl_file *f, unsigned n, const char *mnt,
		   struct shared *sh, int sock)
{
	struct daemon d = { .sh = sh, .size = (size_t)ROUNDS * n * WL_PAGE,
			    .cap = ROUNDS * n };
	struct report rep = { 0 };
	struct wl_stats st = { 0 };
	struct iocb **ptrs;
	io_context_t ctx = 0;
	struct rlimit lim;
	char path[PATH_MAX];
	pthread_t t;
	char *buf;
	int mfd;

	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		_exit(1);
	d.held = calloc(d.cap, sizeof(*d.held));
	d.held_len = calloc(d.cap, sizeof(*d.held_len));
	ptrs = calloc(n, sizeof(*ptrs));
	if (!d.held || !d.held_len || !ptrs || io_setup(n, &ctx))
		_exit(1);
	rep.err = mount_fs(&d, mnt, &t);
	if (rep.err) {
		send_report(sock, &rep);
		_exit(0);
	}
	snprintf(path, sizeof(path), "%s/f", mnt);
	mfd = open(path, O_RDWR | O_CLOEXEC);
	buf = mfd < 0 ? MAP_FAILED : mmap(NULL, d.size, PROT_READ | PROT_WRITE, MAP_SHARED,
					   mfd, 0);
	if (buf == MAP_FAILED || madvise(buf, d.size, MADV_RANDOM))
		_exit(1);
	/* the limit: what the user has (this thread, the daemon's) + 6 */
	rep.tasks = user_tasks(NOBODY);
	lim.rlim_cur = lim.rlim_max = rep.tasks + EXTRA_TASKS;
	if (setrlimit(RLIMIT_NPROC, &lim))
		_exit(1);
	send_report(sock, &rep);	/* ready */
	/* the second round finds the limit as the first did: a completed
	 * request no longer counts */
	for (int r = 0; r < ROUNDS; r++) {
		while (atomic_load(&sh->go) <= r)
			usleep(10 * 1000);
		tenant_round(f, n, buf, r * n, ctx, ptrs, &st);
		atomic_store(&sh->done, r + 1);
	}
	io_destroy(ctx);
	/* the mapping's dirty pages go to the daemon at close */
	munmap(buf, d.size);
	close(mfd);
	fuse_session_exit(d.se);
	fuse_session_unmount(d.se);
	pthread_join(t, NULL);
	fuse_session_destroy(d.se);
	rep = (struct report){ 0, rep.tasks, st.submitted, st.completed, st.errors,
			       st.verified, st.bytes };
	send_report(sock, &rep);
	_exit(0);
}

/* ---- the parent: root ------------------------------------------------------ */

static bool have_fusermount(void)
{
	const char *path = getenv("PATH") ?: "/usr/bin:/bin";
	char dir[PATH_MAX], *save, *p, *copy = strdup(path);
	bool found = false;

	for (p = strtok_r(copy, ":", &save); p && !found; p = strtok_r(NULL, ":", &save)) {
		snprintf(dir, sizeof(dir), "%s/fusermount3", p);
		found = !access(dir, X_OK);
	}
	free(copy);
	return found;
}

/* VICTIM_READS cold reads of vf on a context of their own; their stats. */
static void victim_reads(const struct wl_file *vf, struct wl_stats *st)
{
	struct wl_reads c = { 0 };
	struct iocb *ptrs[VICTIM_READS];
	io_context_t ctx = 0;
	int fd = wl_aio_cold_reads(vf, VICTIM_READS, &c, ptrs);
	uint64_t got;
	unsigned done;
	double t0;

	wl_aio_setup(VICTIM_READS, &ctx);
	t0 = wl_now();
	done = wl_aio_submit(ctx, ptrs, VICTIM_READS, st);
	got = wl_aio_reap_within(ctx, st, &c.reap, done, DEADLINE);
	printf("# root: %" PRIu64 " of %u reads completed in %.2f s\n", got,
	       done, wl_now() - t0);
	if (got < done) {
		fprintf(stderr, "%" PRIu64 " of root's %u reads still in flight after %d s: "
			"another user's reads held in FUSE hold them up\n",
			done - got, done, DEADLINE);
		st->errors++;
		wl_aio_reap_n(ctx, st, &c.reap, done - got);
	}
	io_destroy(ctx);
	close(fd);
}

/* A process killed with cold reads in flight must be gone within the
 * deadline. */
static void killed_reader(const struct wl_file *vf, struct wl_stats *st)
{
	unsigned submitted;
	int sock, status;
	double t0;
	pid_t p = wl_fork_socket(&sock);

	if (!p) {
		struct wl_reads c = { 0 };
		struct iocb *ptrs[VICTIM_READS];
		io_context_t ctx = 0;
		unsigned accepted;

		wl_aio_cold_reads(vf, VICTIM_READS, &c, ptrs);
		if (io_setup(VICTIM_READS, &ctx))
			_exit(1);
		accepted = wl_aio_submit_all(ctx, ptrs, VICTIM_READS);
		if (send(sock, &accepted, sizeof(accepted), 0) != sizeof(accepted))
			_exit(1);
		pause();
		_exit(1);
	}
	if (recv(sock, &submitted, sizeof(submitted), 0) != sizeof(submitted)) {
		fprintf(stderr, "the reader to be killed died before it submitted\n");
		st->errors++;
		submitted = 0;
	}
	/* submitted, never reaped: the kernel completes them at its exit */
	st->submitted += submitted;
	st->abandoned += submitted;
	close(sock);
	kill(p, SIGKILL);
	t0 = wl_now();
	while (waitpid(p, &status, WNOHANG) == 0) {
		if (wl_now() - t0 > DEADLINE) {
			fprintf(stderr, "a reader killed with %u cold reads in flight is still "
				"there after %d s\n", VICTIM_READS, DEADLINE);
			st->errors++;
			return;
		}
		usleep(10 * 1000);
	}
	printf("# a reader killed with %u reads in flight was gone in %.2f s\n",
	       VICTIM_READS, wl_now() - t0);
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_fuse_stall", .count = 64 };
	struct wl_file sf = { .seed = 0xf05e }, vf = { .seed = 0xf05f };
	char mnt[] = "/tmp/fsaio-fuse-XXXXXX", name[64];
	struct wl_stats st = { 0 };
	struct report rep = { 0 };
	unsigned want, held;
	bool stuck = false;
	struct shared *sh;
	int sv[2], status;
	struct stat dev;
	double t0;
	pid_t child;

	wl_getopt(argc, argv, &o, help, "", NULL);
	if (geteuid())
		wl_skip("needs root, to become user nobody", EPERM);
	if (stat("/dev/fuse", &dev))
		wl_skip("no /dev/fuse (CONFIG_FUSE_FS)", errno);
	if ((dev.st_mode & 0006) != 0006)
		wl_skip("/dev/fuse is not open to every user (udev makes it 0666)", EACCES);
	if (!have_fusermount())
		wl_skip("no fusermount3 in PATH (Debian's fuse3)", ENOENT);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		  -1, 0);
	if (sh == MAP_FAILED)
		wl_die("mmap", errno);
	sf.size = (uint64_t)o.count * WL_PAGE;
	snprintf(name, sizeof(name), "%s-held", o.name);
	wl_create(&sf, o.dir, name);
	vf.size = (uint64_t)VICTIM_READS * WL_PAGE;
	snprintf(name, sizeof(name), "%s-root", o.name);
	wl_create(&vf, o.dir, name);
	if (!mkdtemp(mnt))
		wl_die("mkdtemp", errno);
	if (chown(mnt, NOBODY, NOBODY))
		wl_die("chown", errno);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		wl_die("socketpair", errno);
	fflush(stdout);
	child = fork();
	if (child < 0)
		wl_die("fork", errno);
	if (!child) {
		close(sv[0]);
		tenant(&sf, o.count, mnt, sh, sv[1]);
	}
	close(sv[1]);
	if (recv(sv[0], &rep, sizeof(rep), 0) != sizeof(rep) || rep.err) {
		int err = rep.err;

		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		umount2(mnt, MNT_DETACH);
		rmdir(mnt);
		if (err)
			wl_skip("user nobody cannot mount a FUSE file system", err);
		wl_die("the child failed before it reported", EIO);
	}

	/* every read the limit lets go asynchronous parks a worker, and the
	 * first one it does not waits in the child's io_submit() */
	want = 1;
	if (wl_aio_buffered_async())
		want = o.count <= EXTRA_TASKS ? o.count : EXTRA_TASKS + 1;
	for (int r = 0; r < ROUNDS && !stuck; r++) {
		atomic_store(&sh->release, 0);
		atomic_store(&sh->go, r + 1);
		t0 = wl_now();
		while (atomic_load(&sh->held) < want && wl_now() - t0 < DEADLINE)
			usleep(50 * 1000);
		sleep(1);	/* and no more come */
		held = atomic_load(&sh->held);
		printf("# round %d: user nobody (%u tasks, RLIMIT_NPROC %u): %u reads into a "
		       "FUSE mapping; %u wait in the daemon (%u expected)\n", r + 1, rep.tasks,
		       rep.tasks + EXTRA_TASKS, o.count, held, want);
		if (held != want) {
			fprintf(stderr, "round %d: %u tasks wait in the FUSE daemon, %u expected: "
				"%s\n", r + 1, held, want, held > want ? "the workers a user parks "
				"must count against its RLIMIT_NPROC" : r ? "the first round's "
				"requests still count against the limit" : "fewer reads went "
				"asynchronous than the limit allows");
			st.errors++;
		}
		if (!r) {
			victim_reads(&vf, &st);
			killed_reader(&vf, &st);
		}
		atomic_store(&sh->release, 1);
		t0 = wl_now();
		while (atomic_load(&sh->done) <= r && !stuck) {
			if (wl_now() - t0 > CHILD_DEADLINE || waitpid(child, &status, WNOHANG)) {
				fprintf(stderr, "user nobody's round %d not done %d s after the "
					"daemon answered\n", r + 1, CHILD_DEADLINE);
				stuck = true;
			}
			usleep(50 * 1000);
		}
	}
	if (stuck)
		kill(child, SIGKILL);
	waitpid(child, &status, 0);
	if (recv(sv[0], &rep, sizeof(rep), MSG_DONTWAIT) != sizeof(rep) || rep.err ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "user nobody's process failed (status 0x%x)\n", status);
		st.errors++;
	}
	printf("# user nobody: %" PRIu64 " submitted, %" PRIu64 " completed, %" PRIu64
	       " verified; at most %u reads held at once\n", rep.submitted, rep.completed,
	       rep.verified, atomic_load(&sh->held_max));
	st.submitted += rep.submitted;
	st.completed += rep.completed;
	st.errors += rep.errors;
	st.verified += rep.verified;
	st.bytes += rep.bytes;
	umount2(mnt, MNT_DETACH);	/* a killed child leaves its mount */
	rmdir(mnt);
	return wl_finish(&o, "libaio", &st);
}
