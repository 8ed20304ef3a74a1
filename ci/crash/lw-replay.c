// SPDX-License-Identifier: GPL-2.0
/*
 * lw-replay: read a dm-log-writes log and replay it onto a file (or block
 * device) the way a power cut would have left the disk at a mark.
 *
 *   lw-replay -l LOG --list
 *   lw-replay -l LOG -b BASE -c COPY -m MARK [--no-cache-model]
 *
 * The log format is the kernel's (drivers/md/dm-log-writes.c): a super
 * sector (magic, version 1, nr_entries, sectorsize), then per entry one
 * sector holding struct log_write_entry (and, for a mark, its name right
 * after it) followed by nr_sectors of data (none for a discard, a flush or
 * a mark).  xfstests' src/log-writes/ reads the same format; it is not
 * packaged in Debian, hence this reader.
 *
 * The power-cut model.  dm-log-writes logs a plain write only when a flush
 * that covers it completes (it is in the volatile cache until then), a FUA
 * write when it completes, and a mark when it is asked for.  What the disk
 * would hold at mark M is therefore: every entry up to and including the
 * last FLUSH entry F before M, plus the FUA writes between F and M.
 * Anything else between F and M (the kernel logs none today) is dropped,
 * and counted.
 *
 * Replaying from entry 0 for each mark would cost marks x log; instead
 * BASE holds entries [0, F] and is only ever advanced (the entry after the
 * last one applied is kept in BASE.pos), COPY is a fresh sparse copy of
 * BASE plus the FUA tail: the image to mount (journal recovery writes to
 * it) and throw away.  Marks must be asked for in log order.
 *
 * --no-cache-model replays every entry before M onto COPY (what
 * xfstests' replay-log --end-mark does).
 *
 * Output (stdout), one line:
 *   lw-replay: mark=M entry=I flush=F base=N fua_tail=N dropped=N
 * (I: the mark's entry, F: the last flush before it, -1 if none or with
 * --no-cache-model; N: entries in BASE, FUA writes added to COPY, writes
 * between F and M left out as still in the volatile cache)
 * Exit: 0 done, 5 bad log / mark not found / I/O error, 64 usage.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exit_status.h"	/* harness/ */

#define LOG_FLUSH_FLAG		(1 << 0)
#define LOG_FUA_FLAG		(1 << 1)
#define LOG_DISCARD_FLAG	(1 << 2)
#define LOG_MARK_FLAG		(1 << 3)
#define LOG_METADATA_FLAG	(1 << 4)
#define WRITE_LOG_VERSION	1ULL
#define WRITE_LOG_MAGIC		0x6a736677736872ULL

/* On disk, little endian (drivers/md/dm-log-writes.c). */
struct log_write_super {
	uint64_t magic, version, nr_entries;
	uint32_t sectorsize;
} __attribute__((packed));

struct log_write_entry {
	uint64_t sector, nr_sectors, flags, data_len;
};

/* One entry of the log, in memory. */
struct ent {
	uint64_t sector, nr, flags;
	uint64_t data;		/* byte offset of its data in the log */
	char *mark;		/* LOG_MARK_FLAG: the name */
};

struct lw_log {
	int fd;
	uint32_t ssize;
	uint64_t n;
	struct ent *e;
};

static const char *prog = "lw-replay";

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_ERROR);
}

static void read_at(int fd, void *buf, size_t len, uint64_t off, const char *what)
{
	ssize_t r = pread(fd, buf, len, off);

	if (r != (ssize_t)len)
		fail("%s at byte %" PRIu64 ": %s", what, off,
		     r < 0 ? strerror(errno) : "short read (log truncated?)");
}

/* The super and every entry header; data stays on disk. */
static void load_log(struct lw_log *lg, const char *path)
{
	struct log_write_super s;
	uint64_t pos;
	char *sec;

	lg->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (lg->fd < 0)
		fail("%s: %s", path, strerror(errno));
	read_at(lg->fd, &s, sizeof(s), 0, "log super");
	if (le64toh(s.magic) != WRITE_LOG_MAGIC)
		fail("%s: not a dm-log-writes log (magic %#" PRIx64 ")", path, le64toh(s.magic));
	if (le64toh(s.version) != WRITE_LOG_VERSION)
		fail("%s: log version %" PRIu64 ", this reader knows 1", path, le64toh(s.version));
	lg->ssize = le32toh(s.sectorsize);
	if (lg->ssize < 512 || lg->ssize > 65536 || (lg->ssize & (lg->ssize - 1)))
		fail("%s: bad sector size %u", path, lg->ssize);
	lg->n = le64toh(s.nr_entries);
	lg->e = calloc(lg->n ? lg->n : 1, sizeof(*lg->e));
	sec = malloc(lg->ssize);
	if (!lg->e || !sec)
		fail("out of memory for %" PRIu64 " entries", lg->n);
	pos = lg->ssize;
	for (uint64_t i = 0; i < lg->n; i++) {
		struct log_write_entry *le = (void *)sec;
		struct ent *e = &lg->e[i];
		uint64_t dlen;

		read_at(lg->fd, sec, lg->ssize, pos, "log entry");
		e->sector = le64toh(le->sector);
		e->nr = le64toh(le->nr_sectors);
		e->flags = le64toh(le->flags);
		dlen = le64toh(le->data_len);
		pos += lg->ssize;
		if (e->flags & LOG_MARK_FLAG) {
			if (dlen > lg->ssize - sizeof(*le))
				fail("entry %" PRIu64 ": mark of %" PRIu64 " bytes", i, dlen);
			e->mark = strndup(sec + sizeof(*le), dlen);
			continue;
		}
		if (dlen)
			fail("entry %" PRIu64 ": inline data (flags %#" PRIx64 "), not written by 6.12",
			     i, e->flags);
		e->data = pos;
		if (!(e->flags & LOG_DISCARD_FLAG))
			pos += e->nr * lg->ssize;
	}
	free(sec);
}

static void print_flags(uint64_t f)
{
	static const char *const name[] = { "FLUSH", "FUA", "DISCARD", "MARK", "METADATA" };
	const char *sep = "";

	for (unsigned b = 0; b < 5; b++)
		if (f & (1ULL << b)) {
			printf("%s%s", sep, name[b]);
			sep = "|";
		}
	if (!f)
		printf("WRITE");
}

static void list_log(const struct lw_log *lg)
{
	printf("# sectorsize %u, %" PRIu64 " entries\n", lg->ssize, lg->n);
	for (uint64_t i = 0; i < lg->n; i++) {
		const struct ent *e = &lg->e[i];

		printf("%" PRIu64 " ", i);
		print_flags(e->flags);
		if (e->mark)
			printf(" %s\n", e->mark);
		else
			printf(" sector %" PRIu64 " nr %" PRIu64 "\n", e->sector, e->nr);
	}
}

/* Zero a discarded range: a hole where the target can punch one. */
static void zero_range(int fd, uint64_t off, uint64_t len)
{
	static char zero[65536];

	if (!fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len))
		return;
	while (len) {
		size_t n = len < sizeof(zero) ? len : sizeof(zero);

		if (pwrite(fd, zero, n, off) != (ssize_t)n)
			fail("zeroing a discard: %s", strerror(errno));
		off += n;
		len -= n;
	}
}

/* Apply entry i of the log to the target fd (of size tsize). */
static void apply(const struct lw_log *lg, uint64_t i, int fd, uint64_t tsize)
{
	const struct ent *e = &lg->e[i];
	uint64_t off = e->sector * lg->ssize, len = e->nr * lg->ssize;
	static char buf[1 << 20];

	if (e->mark || !e->nr)
		return;			/* a mark or an empty flush */
	if (off + len > tsize)
		fail("entry %" PRIu64 " writes past the end of the replay target (%" PRIu64
		     " > %" PRIu64 "): size it as the logged device", i, off + len, tsize);
	if (e->flags & LOG_DISCARD_FLAG) {
		zero_range(fd, off, len);
		return;
	}
	for (uint64_t done = 0; done < len; ) {
		size_t n = len - done < sizeof(buf) ? len - done : sizeof(buf);

		read_at(lg->fd, buf, n, e->data + done, "entry data");
		if (pwrite(fd, buf, n, off + done) != (ssize_t)n)
			fail("replaying entry %" PRIu64 ": %s", i, strerror(errno));
		done += n;
	}
}

static int open_target(const char *path, uint64_t *size)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st))
		fail("%s: %s", path, strerror(errno));
	*size = st.st_size;
	if (S_ISBLK(st.st_mode)) {
		off_t end = lseek(fd, 0, SEEK_END);

		if (end < 0)
			fail("%s: %s", path, strerror(errno));
		*size = end;
	}
	return fd;
}

/* A sparse copy of src: only its data ranges are read and written. */
static void sparse_copy(const char *src, const char *dst)
{
	static char buf[1 << 20];
	int in = open(src, O_RDONLY | O_CLOEXEC), out;
	struct stat st;
	off_t data = 0, hole;

	if (in < 0 || fstat(in, &st))
		fail("%s: %s", src, strerror(errno));
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0 || ftruncate(out, st.st_size))
		fail("%s: %s", dst, strerror(errno));
	while ((data = lseek(in, data, SEEK_DATA)) >= 0) {
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			fail("%s: SEEK_HOLE: %s", src, strerror(errno));
		while (data < hole) {
			size_t n = hole - data < (off_t)sizeof(buf) ? (size_t)(hole - data) : sizeof(buf);

			read_at(in, buf, n, data, "base image");
			if (pwrite(out, buf, n, data) != (ssize_t)n)
				fail("%s: %s", dst, strerror(errno));
			data += n;
		}
	}
	if (errno != ENXIO)
		fail("%s: SEEK_DATA: %s", src, strerror(errno));
	if (fsync(out) || close(out))
		fail("%s: %s", dst, strerror(errno));
	close(in);
}

static uint64_t find_mark(const struct lw_log *lg, const char *mark)
{
	for (uint64_t i = 0; i < lg->n; i++)
		if (lg->e[i].mark && !strcmp(lg->e[i].mark, mark))
			return i;
	fail("no mark '%s' in the log (%" PRIu64 " entries)", mark, lg->n);
}

/* BASE.pos: the first entry not yet applied to BASE. */
static uint64_t load_pos(const char *base)
{
	char path[4096];
	uint64_t pos = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s.pos", base);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%" SCNu64, &pos) != 1)
			fail("%s: unreadable", path);
		fclose(f);
	}
	return pos;
}

static void save_pos(const char *base, uint64_t pos)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.pos", base);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%" PRIu64 "\n", pos) < 0 || fclose(f))
		fail("%s: %s", path, strerror(errno));
}

struct replay_opts {
	const char *base, *copy, *mark;
	bool cache_model;
};

static void replay_to_mark(const struct lw_log *lg, const struct replay_opts *o)
{
	uint64_t m = find_mark(lg, o->mark), pos = load_pos(o->base);
	uint64_t f = m, tail = 0, dropped = 0, bsize, csize;
	int fd;

	/* f: one past the last entry BASE gets */
	if (o->cache_model)
		while (f > 0 && !(lg->e[f - 1].flags & LOG_FLUSH_FLAG))
			f--;
	if (f < pos)
		fail("mark '%s' (entry %" PRIu64 ") lies before what %s already holds (entry %" PRIu64
		     "): ask for marks in log order", o->mark, m, o->base, pos);
	fd = open_target(o->base, &bsize);
	for (uint64_t i = pos; i < f; i++)
		apply(lg, i, fd, bsize);
	if (fsync(fd) || close(fd))
		fail("%s: %s", o->base, strerror(errno));
	save_pos(o->base, f);

	sparse_copy(o->base, o->copy);
	fd = open_target(o->copy, &csize);
	for (uint64_t i = f; i < m; i++) {
		if (lg->e[i].mark)
			continue;
		if (lg->e[i].flags & LOG_FUA_FLAG) {
			apply(lg, i, fd, csize);
			tail++;
		} else {
			dropped++;
		}
	}
	if (fsync(fd) || close(fd))
		fail("%s: %s", o->copy, strerror(errno));
	printf("lw-replay: mark=%s entry=%" PRIu64 " flush=%" PRId64 " base=%" PRIu64
	       " fua_tail=%" PRIu64 " dropped=%" PRIu64 "\n", o->mark, m,
	       o->cache_model ? (int64_t)f - 1 : -1, f, tail, dropped);
}

static void __attribute__((noreturn)) usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: %s -l LOG --list\n"
		"       %s -l LOG -b BASE -c COPY -m MARK [--no-cache-model]\n"
		"  BASE: replay target holding the log up to the last flush before MARK\n"
		"        (create it empty, the size of the logged device; BASE.pos keeps\n"
		"        its position); COPY: BASE + the FUA writes up to MARK, to mount\n",
		prog, prog);
	exit(status);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "log", required_argument, NULL, 'l' },
		{ "list", no_argument, NULL, 'L' },
		{ "base", required_argument, NULL, 'b' },
		{ "copy", required_argument, NULL, 'c' },
		{ "mark", required_argument, NULL, 'm' },
		{ "no-cache-model", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct replay_opts o = { .cache_model = true };
	const char *log = NULL;
	struct lw_log lg;
	bool list = false;
	int c;

	while ((c = getopt_long(argc, argv, "l:b:c:m:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'l': log = optarg; break;
		case 'L': list = true; break;
		case 'b': o.base = optarg; break;
		case 'c': o.copy = optarg; break;
		case 'm': o.mark = optarg; break;
		case 'N': o.cache_model = false; break;
		case 'h': usage(EXIT_PASS);
		default: usage(EXIT_USAGE);
		}
	}
	if (optind != argc || !log || (!list && (!o.base || !o.copy || !o.mark)))
		usage(EXIT_USAGE);
	load_log(&lg, log);
	if (list)
		list_log(&lg);
	else
		replay_to_mark(&lg, &o);
	return EXIT_PASS;
}
