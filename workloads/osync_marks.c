// SPDX-License-Identifier: GPL-2.0
/*
 * osync_marks: COUNT (default 64) synchronous-data 4 KiB writes through
 * libaio (io_uring with -u), DEPTH (16) in flight, each acknowledgement
 * followed at once by a dm-log-writes mark naming the write.
 *
 * The crash-replay tier (ci/crash/crash-replay.sh) runs it on a file system
 * over a dm-log-writes device (-m NAME) and keeps the manifest (-M FILE):
 * one line per acknowledgement, in the order they were reaped, with the
 * mark placed right after it.  Replaying the log up to a mark must give a
 * file system in which every write acknowledged before that mark reads
 * back (-V MANIFEST -k MARK checks that on the mounted replay).  A write
 * acknowledged before its data and the journal were flushed is logged by
 * dm-log-writes only at the next flush, after the mark: the replay misses
 * it.
 *
 * Each block carries a header (magic, per-run seed, index, offset) and then
 * pattern_byte(seed, offset) data, so a block from another write or another
 * run (stale) and a partly written one (torn) are told apart from a lost one
 * (missing: a hole, zeros or past EOF).
 *
 * -C is the tier's control: the same writes with the bug on purpose
 * (buffered, writeback started or waited, never flushed): the replay must
 * find some of them missing, or the tier is blind.
 *
 * Without -m (the suite's run) it checks after the last completion that no
 * page is dirty or under writeback (cachestat) and re-reads every block
 * with O_DIRECT.
 */
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>
#include <libgen.h>
#include <time.h>

#include "lib/wl.h"

#define BSIZE		4096u
#define STRIDE		(64u * 1024)	/* holes between writes: no merging */
#define BLK_MAGIC	0x4253435341495346ULL	/* "FSAIOCSB" little-endian */
#define MAX_DEPTH	64u

#ifndef __NR_cachestat
#define __NR_cachestat	451	/* Linux 6.5; not in Debian 12 headers */
#endif

static const char help[] =
	"COUNT (64) O_SYNC 4 KiB writes, DEPTH in flight, a dm-log-writes mark\n"
	"after each acknowledgement; or verify a replayed file system.\n"
	"  -u        io_uring instead of libaio\n"
	"  -D        data sync (O_DSYNC / RWF_DSYNC) instead of O_SYNC / RWF_SYNC\n"
	"  -R        per-write RWF_SYNC/RWF_DSYNC on a plain fd, not open flags\n"
	"  -q DEPTH  writes in flight (1..64, default 16)\n"
	"  -m NAME   dm-log-writes device (dmsetup name) to mark after each ack\n"
	"  -M FILE   write the manifest (acknowledgements, marks) to FILE\n"
	"  -P NAME   mark names NAME0000, NAME0001, ... (default ack; unique per log)\n"
	"  -V FILE   verify mode: check the file the manifest FILE names in DIR\n"
	"  -k MARK   with -V: writes acknowledged up to MARK (default: all)\n"
	"  -K        keep the file (default: removed at exit)\n"
	"  -C MODE   control, a bug on purpose: plain buffered writes, and after\n"
	"            each completion sync_file_range() of the write: start (start\n"
	"            writeback, do not wait) or wait (wait for it; no flush, no\n"
	"            journal commit) before the mark; a replay must miss some\n";

/* One block's header; the rest of the block is pattern data. */
struct blk_hdr {
	uint64_t magic, seed, index, offset;
};

static struct {
	bool uring, dsync, rwf, keep;
	unsigned depth;
	unsigned control;	/* sync_file_range() flags; 0: a real sync write */
	const char *dm_name, *manifest, *verify, *upto, *prefix;
} opt = { .depth = 16, .prefix = "ack" };

static int extra(int c, const char *arg)
{
	switch (c) {
	case 'u': opt.uring = true; break;
	case 'D': opt.dsync = true; break;
	case 'R': opt.rwf = true; break;
	case 'K': opt.keep = true; break;
	case 'q':
		opt.depth = strtoul(arg, NULL, 0);
		return opt.depth && opt.depth <= MAX_DEPTH ? 0 : -1;
	case 'm': opt.dm_name = arg; break;
	case 'M': opt.manifest = arg; break;
	case 'P':
		opt.prefix = arg;
		return strlen(arg) < 24 && !strpbrk(arg, " \t\n") ? 0 : -1;
	case 'V': opt.verify = arg; break;
	case 'k': opt.upto = arg; break;
	case 'C':
		if (!strcmp(arg, "start"))
			opt.control = SYNC_FILE_RANGE_WRITE;
		else if (!strcmp(arg, "wait"))
			opt.control = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				      SYNC_FILE_RANGE_WAIT_AFTER;
		else
			return -1;
		break;
	}
	return 0;
}

static void fill_block(void *buf, uint64_t seed, uint64_t index)
{
	struct blk_hdr h = { BLK_MAGIC, seed, index, index * STRIDE };

	pattern_fill(seed, h.offset, buf, BSIZE);
	memcpy(buf, &h, sizeof(h));
}

enum blk_state { BLK_OK, BLK_MISSING, BLK_STALE, BLK_TORN };
static const char *const state_name[] = { "ok", "missing", "stale", "torn" };

/* What a block read back (got bytes of it) is, against write index. */
static enum blk_state classify(const void *buf, ssize_t got, uint64_t seed,
			       uint64_t index, char *why, size_t whylen)
{
	static char want[BSIZE];
	const unsigned char *b = buf;
	struct blk_hdr h;
	size_t nz = 0;

	if (got < (ssize_t)BSIZE) {
		snprintf(why, whylen, "read %zd of %u bytes (file too short)", got, BSIZE);
		return BLK_MISSING;
	}
	for (size_t i = 0; i < BSIZE; i++)
		nz += b[i] != 0;
	if (!nz) {
		snprintf(why, whylen, "all zeros (a hole: data or allocation lost)");
		return BLK_MISSING;
	}
	fill_block(want, seed, index);
	if (!memcmp(buf, want, BSIZE))
		return BLK_OK;
	memcpy(&h, buf, sizeof(h));
	if (h.magic == BLK_MAGIC && (h.seed != seed || h.index != index)) {
		snprintf(why, whylen, "holds write %" PRIu64 " of seed %#" PRIx64,
			 h.index, h.seed);
		return BLK_STALE;
	}
	for (size_t i = 0; i < BSIZE; i++)
		if (b[i] != (unsigned char)want[i]) {
			snprintf(why, whylen, "first wrong byte at +%zu (%#x, want %#x), %zu nonzero bytes",
				 i, b[i], (unsigned char)want[i], nz);
			break;
		}
	return BLK_TORN;
}

/* ---- dm-log-writes marks -------------------------------------------------- */

/*
 * "mark NAME" to the log-writes target through DM_TARGET_MSG, what
 * `dmsetup message NAME 0 mark M` does, without a fork and exec between
 * the acknowledgement and the mark.
 */
static int dm_mark(int ctl, const char *dev, const char *mark)
{
	union {
		struct dm_ioctl io;
		char raw[sizeof(struct dm_ioctl) + sizeof(struct dm_target_msg) + 128];
	} u;
	struct dm_target_msg *msg = (void *)(u.raw + sizeof(struct dm_ioctl));

	memset(&u, 0, sizeof(u));
	u.io.version[0] = DM_VERSION_MAJOR;
	u.io.data_size = sizeof(u);
	u.io.data_start = sizeof(struct dm_ioctl);
	snprintf(u.io.name, sizeof(u.io.name), "%s", dev);
	msg->sector = 0;
	snprintf(msg->message, sizeof(u.raw) - sizeof(struct dm_ioctl) - sizeof(*msg),
		 "mark %s", mark);
	return ioctl(ctl, DM_TARGET_MSG, &u) ? -errno : 0;
}

/* The tier cannot record marks: no verdict on the kernel (EXIT_ERROR). */
static void __attribute__((noreturn)) die_setup(const char *what, int err)
{
	fprintf(stderr, "error: %s: %s\n", what, strerror(err));
	exit(EXIT_ERROR);
}

struct run {
	int fd, ctl;
	uint64_t seed;
	unsigned n, acked;
	char *bufs;
	FILE *manifest;
	struct wl_stats st;
	struct wl_reap reap;
};

static int check_res(uint64_t id, long res, void *arg)
{
	if (res != BSIZE) {
		fprintf(stderr, "write %" PRIu64 ": res %ld, want %u\n", id, res, BSIZE);
		return -1;
	}
	return 0;
}

/* An acknowledgement was reaped: count it, mark it, write it down. */
static void acked(struct run *r, uint64_t id, long res)
{
	char mark[40];
	int ret;

	wl_account(&r->st, &r->reap, id, res);
	/* the control's "acknowledgement": what a buggy kernel would do */
	if (opt.control && sync_file_range(r->fd, id * STRIDE, BSIZE, opt.control))
		wl_die("sync_file_range", errno);
	snprintf(mark, sizeof(mark), "%s%04u", opt.prefix, r->acked);
	if (r->ctl >= 0) {
		ret = dm_mark(r->ctl, opt.dm_name, mark);
		if (ret)
			die_setup("DM_TARGET_MSG mark", -ret);
	}
	if (r->manifest && res == BSIZE)
		fprintf(r->manifest, "ack %u %" PRIu64 " %" PRIu64 " %s\n",
			r->acked, id, id * STRIDE, mark);
	r->acked++;
}

static int sync_open_flags(void)
{
	if (opt.rwf || opt.control)
		return 0;
	return opt.dsync ? O_DSYNC : O_SYNC;
}

static int rwf_flags(void)
{
	if (!opt.rwf || opt.control)
		return 0;
	return opt.dsync ? RWF_DSYNC : RWF_SYNC;
}

/* ---- libaio ---------------------------------------------------------------- */

static void run_libaio(struct run *r)
{
	struct iocb *cbs = calloc(r->n, sizeof(*cbs));
	struct io_event ev[MAX_DEPTH];
	unsigned next = 0, inflight = 0;
	io_context_t ctx;

	if (!cbs)
		wl_die("calloc", ENOMEM);
	wl_aio_setup(opt.depth, &ctx);
	while (r->st.completed < r->n) {
		struct iocb *batch[MAX_DEPTH];
		unsigned nb = 0;
		int got;

		for (; inflight + nb < opt.depth && next < r->n; next++) {
			struct iocb *cb = &cbs[next];

			io_prep_pwrite(cb, r->fd, r->bufs + (size_t)next * BSIZE,
				       BSIZE, (long long)next * STRIDE);
			cb->aio_rw_flags = rwf_flags();
			cb->data = (void *)(uintptr_t)next;
			batch[nb++] = cb;
		}
		if (nb && wl_aio_submit(ctx, batch, nb, &r->st) < nb)
			break;
		inflight += nb;
		do {
			struct timespec ts = { WL_TIMEOUT_S, 0 };

			got = io_getevents(ctx, 1, inflight, ev, &ts);
		} while (got == -EINTR);
		if (got <= 0) {
			fprintf(stderr, "io_getevents: %s with %u in flight\n",
				got ? strerror(-got) : "timeout", inflight);
			r->st.errors++;
			break;
		}
		for (int i = 0; i < got; i++)
			acked(r, (uintptr_t)ev[i].data, (long)ev[i].res);
		inflight -= got;
	}
	if (!r->st.errors)
		wl_aio_expect_idle(ctx, &r->st, &r->reap);
	io_destroy(ctx);
	free(cbs);
}

/* ---- io_uring --------------------------------------------------------------- */

static void run_uring(struct run *r)
{
	unsigned next = 0, inflight = 0;
	struct io_uring ring;

	wl_uring_setup(opt.depth, &ring);
	while (r->st.completed < r->n) {
		struct io_uring_cqe *cqe;
		unsigned nb = 0;

		for (; inflight + nb < opt.depth && next < r->n; next++, nb++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_write(sqe, r->fd, r->bufs + (size_t)next * BSIZE,
					    BSIZE, (uint64_t)next * STRIDE);
			sqe->rw_flags = rwf_flags();
			sqe->user_data = next;
		}
		if (nb) {
			unsigned done = wl_uring_submit_all(&ring, nb);

			r->st.submitted += done;
			if (done < nb) {
				r->st.errors++;
				break;
			}
		}
		inflight += nb;
		/* the first one waited for, the rest already there */
		cqe = wl_uring_wait(&ring);
		do {
			acked(r, cqe->user_data, cqe->res);
			io_uring_cqe_seen(&ring, cqe);
			inflight--;
		} while (inflight && io_uring_peek_cqe(&ring, &cqe) == 0);
	}
	if (!r->st.errors)
		wl_uring_expect_idle(&ring, &r->st, &r->reap);
	io_uring_queue_exit(&ring);
}

/* ---- checks ----------------------------------------------------------------- */

/* dirty + writeback pages of the file, or -1 if cachestat is missing. */
static long unstable_pages(int fd)
{
	uint64_t range[2] = { 0, 0 };	/* the whole file */
	uint64_t cs[5];

	if (syscall(__NR_cachestat, fd, range, cs, 0))
		return -1;
	return cs[1] + cs[2];
}

/* Read write index back through fd; 0 if intact, else print why. */
static int check_block(int fd, uint64_t seed, uint64_t index, const char *ctx,
		       enum blk_state *state)
{
	static char *buf;
	char why[160];
	ssize_t got;

	if (!buf)
		buf = wl_alloc(BSIZE);
	memset(buf, 0, BSIZE);
	got = pread(fd, buf, BSIZE, index * STRIDE);
	*state = classify(buf, got, seed, index, why, sizeof(why));
	if (*state == BLK_OK)
		return 0;
	printf("# %s: write %" PRIu64 " (offset %" PRIu64 ") %s: %s\n", ctx,
	       index, index * STRIDE, state_name[*state], why);
	return -1;
}

/* The suite's check: nothing left unstable, every block reads back. */
static void check_after(struct run *r, const char *path)
{
	enum blk_state s;
	long unstable = unstable_pages(r->fd);
	int fd;

	if (unstable > 0) {
		printf("# %ld pages dirty or under writeback after every write was acknowledged\n",
		       unstable);
		r->st.errors++;
	} else if (unstable < 0) {
		printf("# note: no cachestat(2) (Linux 6.5+): stability unchecked\n");
	}
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		wl_die("open O_DIRECT", errno);
	r->st.verified = 0;
	for (unsigned i = 0; i < r->n; i++) {
		if (check_block(fd, r->seed, i, "re-read", &s))
			r->st.errors++;
		else
			r->st.verified++;
	}
	close(fd);
}

/* ---- write mode ------------------------------------------------------------- */

/* Create the file (sparse, full size) and make its existence durable. */
static void create_file(const struct wl_opts *o, char *path, size_t len,
			uint64_t size)
{
	int fd, dfd;

	snprintf(path, len, "%s/%s.%d", o->dir, o->name, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		wl_die(path, errno);
	if (!opt.keep)
		wl_track(path);
	dfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ftruncate(fd, size) || fsync(fd) || dfd < 0 || fsync(dfd))
		wl_die("ftruncate/fsync the test file and its directory", errno);
	close(dfd);
	close(fd);
}

static void write_manifest_head(FILE *m, const char *path, const struct run *r)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	fprintf(m, "# osync_marks manifest: ack SEQ WRITE OFFSET MARK\n");
	fprintf(m, "file %s\nseed %#" PRIx64 "\ncount %u\nbsize %u\nstride %u\n",
		basename(tmp), r->seed, r->n, BSIZE, STRIDE);
	fprintf(m, "mode %s %s %s depth %u%s\n", opt.uring ? "io_uring" : "libaio",
		opt.rwf ? "rwf" : "open", opt.dsync ? "dsync" : "sync", opt.depth,
		opt.control ? " control" : "");
	fflush(m);
}

static int write_main(struct wl_opts *o)
{
	struct run r = { .ctl = -1 };
	char path[PATH_MAX];
	int ret;

	r.n = o->count;
	r.seed = wl_rand((uint64_t)getpid() << 32 ^ (uint64_t)time(NULL), 1, UINT64_MAX);
	r.reap = (struct wl_reap){ .nreq = r.n, .seen = calloc(r.n, 1), .check = check_res };
	r.bufs = wl_alloc((size_t)r.n * BSIZE);
	if (!r.reap.seen)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < r.n; i++)
		fill_block(r.bufs + (size_t)i * BSIZE, r.seed, i);
	if (opt.dm_name) {
		r.ctl = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
		if (r.ctl < 0)
			die_setup("/dev/mapper/control", errno);
		ret = dm_mark(r.ctl, opt.dm_name, opt.prefix);
		if (ret)	/* before any write: a setup failure, not a finding */
			die_setup("DM_TARGET_MSG mark (is -m a log-writes device?)", -ret);
	}
	create_file(o, path, sizeof(path), (uint64_t)r.n * STRIDE);
	if (opt.manifest) {
		r.manifest = fopen(opt.manifest, "w");
		if (!r.manifest)
			wl_die(opt.manifest, errno);
		write_manifest_head(r.manifest, path, &r);
	}
	r.fd = open(path, O_WRONLY | O_CLOEXEC | sync_open_flags());
	if (r.fd < 0)
		wl_die(path, errno);
	printf("# mode: %s, %s %s, %u writes of %u bytes, %u in flight%s%s\n",
	       opt.uring ? "io_uring" : "libaio", opt.control ? "control:" :
	       opt.rwf ? "per-write" : "open flag",
	       opt.control ? (opt.control == SYNC_FILE_RANGE_WRITE ?
			      "buffered + writeback started" : "buffered + writeback waited") :
	       opt.dsync ? (opt.rwf ? "RWF_DSYNC" : "O_DSYNC") : (opt.rwf ? "RWF_SYNC" : "O_SYNC"),
	       r.n, BSIZE, opt.depth, opt.dm_name ? ", marks on " : "",
	       opt.dm_name ? opt.dm_name : "");
	if (opt.uring)
		run_uring(&r);
	else
		run_libaio(&r);
	if (r.manifest && fclose(r.manifest))
		wl_die(opt.manifest, errno);
	if (!opt.dm_name)
		check_after(&r, path);
	close(r.fd);
	if (r.ctl >= 0)
		close(r.ctl);
	return wl_finish(o, opt.uring ? "io_uring" : "libaio", &r.st);
}

/* ---- verify mode ------------------------------------------------------------ */

struct ack {
	unsigned seq;
	uint64_t index;
	char mark[40];
};

/* Read the manifest: file name, seed and the acknowledgements up to -k. */
static unsigned read_manifest(FILE *m, char *file, size_t flen, uint64_t *seed,
			      struct ack *acks, unsigned max, bool *found)
{
	char line[256], name[256];
	bool done = false;
	unsigned n = 0;
	struct ack a;
	uint64_t off;

	file[0] = '\0';
	while (fgets(line, sizeof(line), m)) {
		if (sscanf(line, "file %255s", name) == 1) {
			snprintf(file, flen, "%s", name);
		} else if (sscanf(line, "seed %" SCNx64, seed) == 1) {
			continue;
		} else if (sscanf(line, "ack %u %" SCNu64 " %" SCNu64 " %39s",
				  &a.seq, &a.index, &off, a.mark) == 4 && !done) {
			if (n < max)
				acks[n++] = a;
			done = opt.upto && !strcmp(a.mark, opt.upto);
		}
	}
	*found = !opt.upto || done;
	return n;
}

/*
 * Every write acknowledged up to mark -k must read back intact.  Prints
 * one line: "osync_marks-verify: mark=M acked=N ok=N missing=N stale=N
 * torn=N"; exits EXIT_PASS, EXIT_FAIL, or EXIT_USAGE for a bad manifest.
 */
static int verify_main(const struct wl_opts *o)
{
	unsigned count[4] = { 0 }, n;
	struct ack *acks = calloc(WL_MAX_COUNT, sizeof(*acks));
	char file[256], path[PATH_MAX], ctx[64];
	uint64_t seed = 0;
	bool found;
	FILE *m = fopen(opt.verify, "r");
	int fd;

	if (!m || !acks) {
		fprintf(stderr, "%s: %s: %s\n", o->name, opt.verify, strerror(errno));
		return EXIT_USAGE;
	}
	n = read_manifest(m, file, sizeof(file), &seed, acks, WL_MAX_COUNT, &found);
	fclose(m);
	if (!file[0] || !seed || !found) {
		fprintf(stderr, "%s: %s: %s\n", o->name, opt.verify,
			!found ? "no such mark in the manifest" : "no file or seed line");
		return EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "%s/%s", o->dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	for (unsigned i = 0; i < n; i++) {
		enum blk_state s = BLK_MISSING;

		snprintf(ctx, sizeof(ctx), "mark %s", opt.upto ? opt.upto : "(end)");
		if (fd < 0)
			printf("# %s: write %" PRIu64 " missing: %s: %s\n", ctx,
			       acks[i].index, file, strerror(errno));
		else
			check_block(fd, seed, acks[i].index, ctx, &s);
		count[s]++;
	}
	if (fd >= 0)
		close(fd);
	printf("osync_marks-verify: mark=%s acked=%u ok=%u missing=%u stale=%u torn=%u\n",
	       opt.upto ? opt.upto : "(end)", n, count[BLK_OK], count[BLK_MISSING],
	       count[BLK_STALE], count[BLK_TORN]);
	free(acks);
	return count[BLK_OK] == n ? EXIT_PASS : EXIT_FAIL;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "osync_marks", .count = 64 };

	wl_getopt(argc, argv, &o, help, "uDRKq:m:M:P:V:k:C:", extra);
	if (opt.verify)
		return verify_main(&o);
	if (opt.upto) {
		fprintf(stderr, "%s: -k needs -V\n", o.name);
		return EXIT_USAGE;
	}
	return write_main(&o);
}
