// SPDX-License-Identifier: GPL-2.0
/*
 * The corruption rule of event logs: a corrupted log replays with the
 * original verdicts, or as an ERROR (exit 5) or a usage error (exit 64),
 * never as a different pass.  Every seed log of tests/fuzz/corpus/ is
 * replayed, then many mutants of it, each by the real `fsaio replay`
 * (what a user runs: the header checks, the closing record, the segment
 * loop and the exit status all live in harness/cmd/replay.c, not in the
 * core).  The core is linked for the record layout and the text reader.
 *
 *   corrupt [FSAIO [CORPUS]]     default ./fsaio tests/fuzz/corpus
 *
 * A mutant's result is its exit status and its KTAP verdict lines (details
 * dropped).  It is "same" when both equal the original's, "error" at exit
 * 5 or 64, "changed to a failure" when every run that changed is "not ok"
 * (a false failure is loud, not silent), and a VIOLATION when it passes
 * (exit 0 or 4) with other verdicts, or a run that changed is "ok" --
 * unless it is one of the format's two known weaknesses (judge()), which
 * make the test XFAIL.  One KTAP test per seed and mutation class; a
 * violation fails it, names the mutant and keeps it in
 * .output/tests/fuzz/violations/ to replay by hand.  Corpus files over
 * SEED_MAX bytes are left to the fuzzer.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kselftest.h"
#include "core/decode.h"
#include "core/textlog.h"

#define NPAR		2	/* replays at once */
#define RS		sizeof(struct fsaio_record)
#define HS		sizeof(struct fsaio_log_header)
#define SEED_MAX	11000	/* bytes; larger corpus files are mutated by the fuzzer only */
#define VIOL_DIR	".output/tests/fuzz/violations"

static const char *fsaio = "./fsaio";
static char tmpdir[] = "/tmp/fsaio-corrupt.XXXXXX";

struct buf {
	char *p;
	size_t len;
};

struct mutant {
	char what[96];
	struct buf b;
};

struct mutants {
	struct mutant *m;
	size_t nr, cap;
};

/* A replay's result: exit status, its verdict lines, its runs. */
struct outcome {
	int rc;
	char *lines;		/* "ok 7 nonblocking_submit_libaio # XFAIL\n..." */
	int nr_runs;
	char **run;		/* per run: its check lines and its own line */
	bool *run_ok;
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		ksft_exit_fail_msg("out of memory\n");
	return p;
}

static void add(struct mutants *ms, const void *p, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add(struct mutants *ms, const void *p, size_t len, const char *fmt, ...)
{
	struct mutant *m;
	va_list ap;

	if (ms->nr == ms->cap) {
		ms->cap = ms->cap ? 2 * ms->cap : 64;
		ms->m = xrealloc(ms->m, ms->cap * sizeof(*ms->m));
	}
	m = &ms->m[ms->nr++];
	va_start(ap, fmt);
	vsnprintf(m->what, sizeof(m->what), fmt, ap);
	va_end(ap);
	m->b.p = xrealloc(NULL, len);
	memcpy(m->b.p, p, len);
	m->b.len = len;
}

static void mutants_free(struct mutants *ms)
{
	size_t i;

	for (i = 0; i < ms->nr; i++)
		free(ms->m[i].b.p);
	free(ms->m);
	memset(ms, 0, sizeof(*ms));
}

/* ---------- binary logs: header, then whole records ---------- */

static const struct field {
	const char *name;
	size_t off, size;
} fields[] = {
#define F(m) { #m, offsetof(struct fsaio_record, m), sizeof(((struct fsaio_record *)0)->m) }
	F(version), F(type), F(cpu), F(ts_ns), F(seq), F(pid), F(tgid), F(req),
	F(user_data), F(engine), F(site), F(ctx), F(flags), F(res), F(arg0),
	F(arg1), F(arg2), F(ring), F(comm), F(nr_stack), F(pad), F(stack),
#undef F
};
#define NR_FIELDS (sizeof(fields) / sizeof(fields[0]))

/* A log of records 0..n-1 with record i replaced (rep), left out (rep ==
 * NULL, drop) or followed by a copy (dup). */
static void emit(struct mutants *ms, const struct buf *s, size_t n, size_t i,
		 const void *rep, bool drop, bool dup, const char *what)
{
	struct buf o;
	size_t k;

	o.p = xrealloc(NULL, HS + (n + 1) * RS);
	memcpy(o.p, s->p, HS);
	o.len = HS;
	for (k = 0; k < n; k++) {
		const char *r = k == i && rep ? rep : s->p + HS + k * RS;

		if (k == i && drop)
			continue;
		memcpy(o.p + o.len, r, RS);
		o.len += RS;
		if (k == i && dup) {
			memcpy(o.p + o.len, r, RS);
			o.len += RS;
		}
	}
	add(ms, o.p, o.len, "%s", what);
	free(o.p);
}

static uint64_t rec_seq(const struct buf *s, size_t i)
{
	uint64_t v;

	memcpy(&v, s->p + HS + i * RS + offsetof(struct fsaio_record, seq), sizeof(v));
	return v;
}

enum bin_class { B_FLIP, B_TRUNC, B_DUP, B_DROP, B_SWAP, B_SEQ, B_COPY, B__COUNT };
static const char *const bin_class_name[B__COUNT] = {
	"bit flip in each field of each record", "truncated at each record and mid-record",
	"a record duplicated", "a record dropped", "two records swapped", "a seq changed",
	"a record replaced by a copy of another",
};

static void bin_mutants(const struct buf *s, enum bin_class cl, struct mutants *ms)
{
	size_t n = (s->len - HS) / RS, i, f, j;
	char r[RS], what[96];
	uint64_t v;

	for (i = 0; i < n; i++) {
		const char *orig = s->p + HS + i * RS;

		switch (cl) {
		case B_FLIP:
			/* one bit of each field, a different one per record, so
			 * that over the records low and high bits are hit */
			for (f = 0; f < NR_FIELDS; f++) {
				size_t bit = (i * 7 + f * 5) % (fields[f].size * 8);

				memcpy(r, orig, RS);
				r[fields[f].off + bit / 8] ^= 1 << (bit % 8);
				snprintf(what, sizeof(what), "record %zu: %s bit %zu flipped", i,
					 fields[f].name, bit);
				emit(ms, s, n, i, r, false, false, what);
			}
			break;
		case B_TRUNC:
			add(ms, s->p, HS + i * RS, "cut after %zu records", i);
			add(ms, s->p, HS + i * RS + RS / 2, "cut in record %zu", i);
			break;
		case B_DUP:
			snprintf(what, sizeof(what), "record %zu twice", i);
			emit(ms, s, n, i, NULL, false, true, what);
			break;
		case B_DROP:
			snprintf(what, sizeof(what), "record %zu dropped", i);
			emit(ms, s, n, i, NULL, true, false, what);
			break;
		case B_SWAP:
			if (i + 1 == n)
				break;
			memcpy(r, s->p + HS + (i + 1) * RS, RS);
			{
				struct buf t = { xrealloc(NULL, s->len), s->len };

				memcpy(t.p, s->p, s->len);
				memcpy(t.p + HS + (i + 1) * RS, orig, RS);
				memcpy(t.p + HS + i * RS, r, RS);
				add(ms, t.p, t.len, "records %zu and %zu swapped", i, i + 1);
				free(t.p);
			}
			break;
		case B_SEQ: {
			/* the next one's (a repeat), one far ahead (a gap), 0 */
			static const int64_t delta[] = { 1, 1000, 0 };

			for (j = 0; j < 3; j++) {
				v = j == 2 ? 0 : rec_seq(s, i) + delta[j];
				memcpy(r, orig, RS);
				memcpy(r + offsetof(struct fsaio_record, seq), &v, sizeof(v));
				snprintf(what, sizeof(what), "record %zu: seq %llu -> %llu", i,
					 (unsigned long long)rec_seq(s, i), (unsigned long long)v);
				emit(ms, s, n, i, r, false, false, what);
			}
			break;
		}
		case B_COPY:
			/* a neighbour's copy, and one from the other end */
			for (j = 0; j < 2; j++) {
				size_t from = j ? n - 1 - i : (i + 1) % n;

				if (from == i)
					continue;
				snprintf(what, sizeof(what), "record %zu replaced by record %zu", i, from);
				emit(ms, s, n, i, s->p + HS + from * RS, false, false, what);
			}
			break;
		default:
			break;
		}
	}
}

/* ---------- text logs: a header line, then record lines ---------- */

enum text_class { T_DROP, T_DUP, T_KEY, T_NUM, T_CUT, T__COUNT };
static const char *const text_class_name[T__COUNT] = {
	"a line dropped", "a line duplicated", "a key repeated", "a number changed",
	"a line cut",
};

/* The lines of s, with their newlines: starts[k], starts[k + 1]. */
static size_t split_lines(const struct buf *s, size_t **starts)
{
	size_t n = 0, i;

	*starts = xrealloc(NULL, (s->len + 2) * sizeof(**starts));
	(*starts)[n++] = 0;
	for (i = 0; i < s->len; i++)
		if (s->p[i] == '\n' && i + 1 < s->len)
			(*starts)[n++] = i + 1;
	(*starts)[n] = s->len;
	return n;
}

/* s with line k's bytes replaced by rep (rlen bytes, its newline included). */
static void text_emit(struct mutants *ms, const struct buf *s, const size_t *st, size_t k,
		      const char *rep, size_t rlen, const char *what)
{
	size_t a = st[k], b = st[k + 1];
	char *o = xrealloc(NULL, s->len - (b - a) + rlen);

	memcpy(o, s->p, a);
	memcpy(o + a, rep, rlen);
	memcpy(o + a + rlen, s->p + b, s->len - b);
	add(ms, o, s->len - (b - a) + rlen, "%s", what);
	free(o);
}

/* In line (len bytes), the value of the n-th numeric " key=" (not stack or
 * comm): its start and length, its key; false past the last. */
static bool nth_number(const char *line, size_t len, unsigned n, size_t *at, size_t *vlen,
		       char *key, size_t keylen)
{
	size_t i = 0, k;
	unsigned seen = 0;

	for (i = 0; i + 1 < len; i++) {
		if (line[i] != ' ')
			continue;
		for (k = i + 1; k < len && line[k] != '=' && line[k] != ' '; k++)
			;
		if (k >= len || line[k] != '=')
			continue;
		if ((k - i - 1 == 5 && !memcmp(line + i + 1, "stack", 5)) ||
		    (k - i - 1 == 4 && !memcmp(line + i + 1, "comm", 4)) ||
		    !memcmp(line, FSAIO_TEXT_MAGIC, strlen(FSAIO_TEXT_MAGIC)))
			continue;
		if (seen++ != n)
			continue;
		snprintf(key, keylen, "%.*s", (int)(k - i - 1), line + i + 1);
		*at = k + 1;
		*vlen = strcspn(line + k + 1, " \n");
		if (*at + *vlen > len)
			*vlen = len - *at;
		return true;
	}
	return false;
}

static void text_mutants(const struct buf *s, enum text_class cl, struct mutants *ms)
{
	size_t *st, n = split_lines(s, &st), k, at, vlen, len;
	char what[96], key[32], line[2 * FSAIO_TEXT_LINE_MAX + 64];
	unsigned j;

	for (k = 0; k < n; k++) {
		const char *l = s->p + st[k];

		len = st[k + 1] - st[k];
		if (len > FSAIO_TEXT_LINE_MAX)
			continue;
		switch (cl) {
		case T_DROP:
			snprintf(what, sizeof(what), "line %zu dropped", k + 1);
			text_emit(ms, s, st, k, "", 0, what);
			break;
		case T_DUP:
			memcpy(line, l, len);
			memcpy(line + len, l, len);
			snprintf(what, sizeof(what), "line %zu twice", k + 1);
			text_emit(ms, s, st, k, line, 2 * len, what);
			break;
		case T_KEY:
			/* a field again, before comm (which takes the rest) */
			for (j = 0; j < 2; j++) {
				const char *extra = j ? " stack=-" : " seq=7";
				const char *c = memmem(l, len, " comm=", 6);
				size_t pre = c ? (size_t)(c - l) : len - (l[len - 1] == '\n');

				if (l[0] != 'R')
					break;
				memcpy(line, l, pre);
				memcpy(line + pre, extra, strlen(extra));
				memcpy(line + pre + strlen(extra), l + pre, len - pre);
				snprintf(what, sizeof(what), "line %zu:%s added", k + 1, extra);
				text_emit(ms, s, st, k, line, len + strlen(extra), what);
			}
			break;
		case T_NUM:
			/* each number of the line, plus one */
			for (j = 0; nth_number(l, len, j, &at, &vlen, key, sizeof(key)); j++) {
				unsigned long long v = strtoull(l + at, NULL, 0);
				int w;

				memcpy(line, l, at);
				w = snprintf(line + at, 40, "%llu", v + 1);
				memcpy(line + at + w, l + at + vlen, len - at - vlen);
				snprintf(what, sizeof(what), "line %zu: %s=%llu -> %llu", k + 1, key,
					 v, v + 1);
				text_emit(ms, s, st, k, line, len - vlen + w, what);
			}
			break;
		case T_CUT:
			/* the line cut in half, with and without the rest of the log */
			memcpy(line, l, len / 2);
			line[len / 2] = '\n';
			snprintf(what, sizeof(what), "line %zu cut in half", k + 1);
			text_emit(ms, s, st, k, line, len / 2 + 1, what);
			add(ms, s->p, st[k] + len / 2, "log ends in the middle of line %zu", k + 1);
			break;
		default:
			break;
		}
	}
	free(st);
}

/* ---------- running fsaio replay ---------- */

static bool is_verdict_line(const char *l)
{
	if (!strncmp(l, "    ", 4))
		l += 4;
	if (!strncmp(l, "not ", 4))
		l += 4;
	return !strncmp(l, "ok ", 3);
}

/* The verdict lines of a replay's output, with only a directive's keyword. */
static void parse(const char *out, struct outcome *oc)
{
	const char *l = out, *nl, *hash;
	size_t len = 0, cap = strlen(out) + 1, rstart = 0;

	oc->lines = xrealloc(NULL, cap);
	oc->lines[0] = '\0';
	oc->nr_runs = 0;
	oc->run = NULL;
	oc->run_ok = NULL;
	for (; *l; l = nl + 1) {
		size_t n;

		nl = strchr(l, '\n');
		if (!nl)
			nl = l + strlen(l);
		if (is_verdict_line(l)) {
			hash = memmem(l, nl - l, " # ", 3);
			n = hash ? (size_t)(hash - l) + 3 + strcspn(hash + 3, " \n") : (size_t)(nl - l);
			memcpy(oc->lines + len, l, n);
			len += n;
			oc->lines[len++] = '\n';
			oc->lines[len] = '\0';
			if (l[0] != ' ') {	/* a run's own line ends its block */
				oc->run = xrealloc(oc->run, (oc->nr_runs + 1) * sizeof(*oc->run));
				oc->run_ok = xrealloc(oc->run_ok, (oc->nr_runs + 1) * sizeof(bool));
				oc->run[oc->nr_runs] = strndup(oc->lines + rstart, len - rstart);
				oc->run_ok[oc->nr_runs++] = l[0] == 'o';
				rstart = len;
			}
		}
		if (!*nl)
			break;
	}
}

static void outcome_free(struct outcome *oc)
{
	int i;

	for (i = 0; i < oc->nr_runs; i++)
		free(oc->run[i]);
	free(oc->run);
	free(oc->run_ok);
	free(oc->lines);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *p = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap)
			p = xrealloc(p, cap = 2 * cap + 4096 + 1);
		r = fread(p + n, 1, cap - n - 1, f);
		n += r;
	} while (r);
	fclose(f);
	p[n] = '\0';
	if (len)
		*len = n;
	return p;
}

static void write_file(const char *path, const struct buf *b)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f))
		ksft_exit_fail_msg("cannot write %s: %s\n", path, strerror(errno));
}

/* Start fsaio replay of slot's log, its stdout to slot's output file. */
static pid_t spawn(int slot)
{
	char log[64], out[64];
	pid_t pid;

	snprintf(log, sizeof(log), "%s/m%d", tmpdir, slot);
	snprintf(out, sizeof(out), "%s/o%d", tmpdir, slot);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int nul = open("/dev/null", O_WRONLY);

		if (fd < 0 || nul < 0 || dup2(fd, 1) < 0 || dup2(nul, 2) < 0)
			_exit(127);
		execl(fsaio, fsaio, "replay", log, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void finish_slot(int slot, int status, struct outcome *oc)
{
	char out[64], *text;

	snprintf(out, sizeof(out), "%s/o%d", tmpdir, slot);
	oc->rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	text = slurp(out, NULL);
	parse(text ? text : "", oc);
	free(text);
}

/* Replay every mutant, NPAR at a time; oc[i] is mutant i's outcome. */
static void replay_all(const struct mutants *ms, struct outcome *oc)
{
	pid_t pids[NPAR] = { 0 };
	size_t idx[NPAR], next = 0, done = 0;
	char log[64];
	int slot, status;
	pid_t pid;

	while (done < ms->nr) {
		for (slot = 0; slot < NPAR && next < ms->nr; slot++) {
			if (pids[slot])
				continue;
			snprintf(log, sizeof(log), "%s/m%d", tmpdir, slot);
			write_file(log, &ms->m[next].b);
			idx[slot] = next++;
			pids[slot] = spawn(slot);
		}
		pid = wait(&status);
		if (pid < 0)
			ksft_exit_fail_msg("wait: %s\n", strerror(errno));
		for (slot = 0; slot < NPAR; slot++)
			if (pids[slot] == pid)
				break;
		if (slot == NPAR)
			continue;
		finish_slot(slot, status, &oc[idx[slot]]);
		pids[slot] = 0;
		done++;
	}
}

/* ---------- judging ---------- */

enum judgement { J_SAME, J_ERROR, J_USAGE, J_FAILS, J_VIOLATION, J_KNOWN, J__COUNT };

static enum judgement judge(const struct outcome *orig, const struct outcome *m, bool value_class)
{
	int i;

	if (m->rc == 5)
		return J_ERROR;
	if (m->rc == 64)
		return J_USAGE;
	if (m->rc == orig->rc && !strcmp(m->lines, orig->lines))
		return J_SAME;
	if (m->rc == 1) {
		for (i = 0; i < m->nr_runs; i++)
			if (m->run_ok[i] && (i >= orig->nr_runs || strcmp(m->run[i], orig->run[i])))
				break;	/* a run that changed passes */
		if (i == m->nr_runs)
			return J_FAILS;
	}
	/* A pass, a skip (or a crash) with other verdicts: the log's seal
	 * (the closing record's count and hash of every record) should have
	 * made it an ERROR. */
	(void)value_class;
	return J_VIOLATION;
}

/* The first lines where two outcomes differ, for the report. */
static void first_difference(const char *a, const char *b, char *d, size_t len)
{
	while (*a && *a == *b) {
		const char *na = strchr(a, '\n'), *nb = strchr(b, '\n');

		if (!na || !nb || na - a != nb - b || strncmp(a, b, na - a))
			break;
		a = na + 1;
		b = nb + 1;
	}
	snprintf(d, len, "'%.*s' was '%.*s'", (int)strcspn(b, "\n"), b, (int)strcspn(a, "\n"), a);
}

static unsigned long totals[J__COUNT], total_mutants;

static void run_class(const char *seed, const struct outcome *orig, const char *cls,
		      bool value_class, struct mutants *ms)
{
	static unsigned nviol;
	struct outcome *oc = xrealloc(NULL, ms->nr * sizeof(*oc));
	unsigned long cnt[J__COUNT] = { 0 };
	unsigned shown = 0;
	size_t i;

	replay_all(ms, oc);
	for (i = 0; i < ms->nr; i++) {
		enum judgement j = judge(orig, &oc[i], value_class);
		char d[400], path[PATH_MAX];

		cnt[j]++;
		totals[j]++;
		if (j != J_VIOLATION && j != J_KNOWN)
			continue;
		snprintf(path, sizeof(path), "%s/%u-%s", VIOL_DIR, ++nviol, seed);
		mkdir(".output/tests/fuzz", 0755);
		mkdir(VIOL_DIR, 0755);
		write_file(path, &ms->m[i].b);
		first_difference(orig->lines, oc[i].lines, d, sizeof(d));
		if (shown++ < 5)
			ksft_print_msg("%s %s, %s: exit %d (was %d), %d runs (was %d), %s; "
				       "kept as %s\n", j == J_KNOWN ? "KNOWN" : "VIOLATION", seed,
				       ms->m[i].what, oc[i].rc, orig->rc, oc[i].nr_runs,
				       orig->nr_runs, d, path);
	}
	total_mutants += ms->nr;
	ksft_print_msg("%s, %s: %zu mutants: %lu same, %lu ERROR, %lu usage, "
		       "%lu changed to a failure, %lu known weaknesses, %lu violations\n", seed,
		       cls, ms->nr, cnt[J_SAME], cnt[J_ERROR], cnt[J_USAGE], cnt[J_FAILS],
		       cnt[J_KNOWN], cnt[J_VIOLATION]);
	if (cnt[J_VIOLATION])
		ksft_test_result_fail("%s: %s\n", seed, cls);
	else if (cnt[J_KNOWN])
		ksft_test_result_xfail("%s: %s (known weaknesses of the format)\n", seed, cls);
	else
		ksft_test_result_pass("%s: %s\n", seed, cls);
	for (i = 0; i < ms->nr; i++)
		outcome_free(&oc[i]);
	free(oc);
	mutants_free(ms);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	const char *corpus = argc > 2 ? argv[2] : "tests/fuzz/corpus";
	struct dirent **ents;
	int nents, e, c;

	if (argc > 1)
		fsaio = argv[1];
	ksft_print_header();
	if (access(fsaio, X_OK))
		ksft_exit_skip("%s not built\n", fsaio);
	nents = scandir(corpus, &ents, NULL, by_name);
	if (nents < 0)
		ksft_exit_fail_msg("%s: %s\n", corpus, strerror(errno));
	if (!mkdtemp(tmpdir))
		ksft_exit_fail_msg("mkdtemp: %s\n", strerror(errno));
	ksft_print_msg("every mutant of a seed log replays with its verdicts, "
		       "or as an ERROR or usage error (%s replay)\n", fsaio);
	for (e = 0; e < nents; e++) {
		const char *name = ents[e]->d_name;
		char path[PATH_MAX];
		struct outcome orig;
		struct mutants ms = { 0 };
		struct mutant seed = { "the seed" };
		bool text;
		FILE *f;

		if (name[0] == '.')
			goto next;
		snprintf(path, sizeof(path), "%s/%s", corpus, name);
		seed.b.p = slurp(path, &seed.b.len);
		if (!seed.b.p)
			goto next;
		f = fmemopen(seed.b.p, seed.b.len, "r");
		text = f && fsaio_text_detect(f);
		if (f)
			fclose(f);
		if (seed.b.len > SEED_MAX) {	/* the fuzzer's only: keeps the test short */
			free(seed.b.p);
			goto next;
		}
		if (!text && (seed.b.len < HS || (seed.b.len - HS) % RS)) {
			ksft_print_msg("%s: not whole records, not a seed\n", name);
			free(seed.b.p);
			goto next;
		}
		ms.m = &seed;
		ms.nr = 1;
		replay_all(&ms, &orig);
		ksft_print_msg("%s: exit %d, %d runs\n", name, orig.rc, orig.nr_runs);
		for (c = 0; c < (text ? T__COUNT : B__COUNT); c++) {
			memset(&ms, 0, sizeof(ms));
			if (text)
				text_mutants(&seed.b, c, &ms);
			else
				bin_mutants(&seed.b, c, &ms);
			run_class(name, &orig, text ? text_class_name[c] : bin_class_name[c],
				  text ? c == T_NUM : c == B_FLIP, &ms);
		}
		outcome_free(&orig);
		free(seed.b.p);
next:
		free(ents[e]);
	}
	free(ents);
	ksft_print_msg("%lu mutants: %lu same, %lu ERROR, %lu usage, %lu changed to a failure, "
		       "%lu known weaknesses, %lu violations\n", total_mutants, totals[J_SAME],
		       totals[J_ERROR], totals[J_USAGE], totals[J_FAILS], totals[J_KNOWN],
		       totals[J_VIOLATION]);
	{
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd))
			ksft_print_msg("could not remove %s\n", tmpdir);
	}
	/* the plan at the end (TAP allows it): the tests are the seeds'
	 * classes, known once the corpus has been read */
	ksft_set_plan(ksft_test_num());
	ksft_finished();
}
