// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of text event logs (core/textlog.h, SystemTap's output):
 * every record type round-trips through a line exactly; headers, unknown
 * fields, bad numbers, overlong stacks and records the binary decoder
 * refuses are rejected with their line; a libaio lifecycle read from text
 * gives the checker the same counts as the same records in binary.
 */
#include <string.h>
#include "kselftest_harness.h"
#include "synth.h"
#include "core/features.h"
#include "core/textlog.h"

#pragma GCC diagnostic ignored "-Wsign-compare"	/* EXPECT_EQ(int, size_t) */

/* A record with every field set to something its type allows. */
static struct fsaio_record full(int type)
{
	struct fsaio_record r = synth_rec(type, FSAIO_ENGINE_LIBAIO, 4242, 0x7ffd1000);
	int i;

	r.cpu = 1;
	r.ts_ns = 123456789012345ull;
	r.pid = 4243;
	r.user_data = 0xfeedfacecafebeefull;
	r.site = FSAIO_SITE_WRITEBACK;
	r.ctx = FSAIO_CTX_SUBMIT_LIBAIO;
	r.flags = FSAIO_F_STAYS_SYNC | FSAIO_F_ACCEPTED;
	r.res = -529;
	r.arg0 = 1ull << 63;
	r.arg1 = 4096;
	r.arg2 = 0x100000001ull;
	r.ring = 0x7f1234560000ull;
	strcpy(r.comm, "aio read 7");	/* spaces survive: comm ends the line */
	if (type == FSAIO_EV_SLEEP) {
		r.nr_stack = FSAIO_STACK_DEPTH;
		for (i = 0; i < FSAIO_STACK_DEPTH; i++)
			r.stack[i] = 0xffffffff81000000ull + i * 0x100;
	}
	if (type == FSAIO_EV_TRACE_END) {
		for (i = 0; i < FSAIO_DROP__COUNT; i++)
			r.stack[i] = i + 1;
		r.arg0 = FSAIO_DROP__COUNT * (FSAIO_DROP__COUNT + 1) / 2;
	}
	return r;
}

/* r written as a line and parsed back */
static int round_trip(const struct fsaio_record *r, struct fsaio_record *out, char *err,
		      size_t errlen)
{
	char line[1024];
	FILE *f = fmemopen(line, sizeof(line), "w");

	if (!f || fsaio_text_write(f, r))
		return -1;
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	return fsaio_text_parse_record(line, 7, out, err, errlen);
}

TEST(every_type_round_trips)
{
	struct fsaio_record in, out;
	char err[160] = "";
	int type;

	for (type = 1; type < FSAIO_EV__MAX; type++) {
		in = full(type);
		ASSERT_EQ(0, round_trip(&in, &out, err, sizeof(err))) TH_LOG("type %d: %s", type, err);
		EXPECT_EQ(0, memcmp(&in, &out, sizeof(in))) TH_LOG("type %d differs", type);
	}
}

TEST(trace_end_keeps_drops_per_cause)
{
	struct fsaio_record in = full(FSAIO_EV_TRACE_END), out;
	char err[160];

	ASSERT_EQ(0, round_trip(&in, &out, err, sizeof(err)));
	EXPECT_EQ(0, out.nr_stack);
	EXPECT_EQ(2, fsaio_end_drops(&out, FSAIO_DROP_USER_READ));
}

/* A whole line, fields in any order; a line cut anywhere before comm= is
 * refused (a truncated log is never read as zeros). */
#define LINE(type, engine, tail)						\
	"R ring=0 type=" type " cpu=0 ts=5 seq=9 pid=5 tgid=5 req=0 user_data=0 engine=" \
	engine " site=0 ctx=0 flags=0 res=256 arg0=0 arg1=0 arg2=0 nr_stack=0 stack=-" tail

TEST(whole_line_in_any_order)
{
	struct fsaio_record r;
	char err[160];

	ASSERT_EQ(0, fsaio_text_parse_record(LINE("13", "0", " comm=sh"), 1, &r,
					     err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(FSAIO_EV_PROC_EXIT, r.type);
	EXPECT_EQ(9, r.seq);
	EXPECT_EQ(256, r.res);
	EXPECT_EQ(FSAIO_RECORD_VERSION, r.version);
	EXPECT_STREQ("sh", r.comm);
}

TEST(line_cut_short_is_refused)
{
	const char *line = LINE("13", "0", " comm=sh");
	struct fsaio_record r;
	char buf[512], err[160];
	size_t cut;

	for (cut = 2; cut < strlen(line) - strlen(" comm=sh") + 1; cut++) {
		snprintf(buf, sizeof(buf), "%.*s", (int)cut, line);
		EXPECT_EQ(-EINVAL, fsaio_text_parse_record(buf, 3, &r, err, sizeof(err)))
			TH_LOG("cut at %zu accepted: %s", cut, buf);
	}
}

/* A bad line is refused with its line number and what is wrong. */
FIXTURE(bad_line) {};
FIXTURE_VARIANT(bad_line) {
	const char *line;
	const char *error;
};
FIXTURE_SETUP(bad_line) {}
FIXTURE_TEARDOWN(bad_line) {}

FIXTURE_VARIANT_ADD(bad_line, not_a_record) {
	.line = "X type=1", .error = "not a record",
};
FIXTURE_VARIANT_ADD(bad_line, unknown_field) {
	.line = "R type=1 seq=1 colour=3", .error = "unknown field 'colour'",
};
FIXTURE_VARIANT_ADD(bad_line, no_comm) {
	.line = LINE("1", "1", ""), .error = "no comm=",
};
FIXTURE_VARIANT_ADD(bad_line, bad_number) {
	.line = "R type=1 seq=12x", .error = "bad number seq=12x",
};
FIXTURE_VARIANT_ADD(bad_line, negative_unsigned) {
	.line = "R type=1 seq=-1", .error = "bad number seq=-1",
};
FIXTURE_VARIANT_ADD(bad_line, engine_too_wide) {
	.line = "R type=1 seq=1 engine=300", .error = "bad number engine=300",
};
FIXTURE_VARIANT_ADD(bad_line, res_too_wide) {
	.line = "R type=7 seq=1 res=-4294967296", .error = "bad number res=",
};
FIXTURE_VARIANT_ADD(bad_line, not_key_value) {
	.line = "R type=1 seq", .error = "not key=value",
};
FIXTURE_VARIANT_ADD(bad_line, unknown_type) {
	.line = LINE("99", "1", " comm=x"), .error = "unknown event type 99",
};
FIXTURE_VARIANT_ADD(bad_line, unknown_engine) {
	.line = LINE("1", "9", " comm=x"), .error = "unknown engine 9",
};
FIXTURE_VARIANT_ADD(bad_line, stack_too_deep) {
	.line = "R type=9 seq=1 stack=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
	.error = "bad stack",
};
FIXTURE_VARIANT_ADD(bad_line, stack_trailing_comma) {
	.line = "R type=9 seq=1 stack=0x1,", .error = "bad stack",
};
FIXTURE_VARIANT_ADD(bad_line, key_twice) {	/* "last wins" would let a line lie */
	.line = "R type=9 seq=1 seq=2", .error = "seq= twice",
};
FIXTURE_VARIANT_ADD(bad_line, stack_twice) {
	.line = "R type=9 seq=1 stack=0x1 stack=0x2", .error = "stack= twice",
};
FIXTURE_VARIANT_ADD(bad_line, signed_unsigned) {
	.line = "R type=9 seq=+1", .error = "bad number seq=+1",
};
FIXTURE_VARIANT_ADD(bad_line, nr_stack_mismatch) {
	.line = "R type=9 cpu=0 ts=5 seq=9 pid=5 tgid=5 req=0 user_data=0 engine=1 site=0 "
		"ctx=0 flags=0 res=0 arg0=0 arg1=0 arg2=0 ring=0 nr_stack=3 stack=0x1,0x2 comm=x",
	.error = "nr_stack=3 but 2",
};

TEST_F(bad_line, rejected)
{
	struct fsaio_record r;
	char err[160] = "";

	EXPECT_EQ(-EINVAL, fsaio_text_parse_record(variant->line, 42, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, variant->error)) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "line 42")) TH_LOG("%s", err);
}

/* Headers: features, release, a label with spaces; refused ones say why. */
FIXTURE(text_header) {};
FIXTURE_VARIANT(text_header) {
	const char *text;
	const char *error;	/* NULL: read */
};
FIXTURE_SETUP(text_header) {}
FIXTURE_TEARDOWN(text_header) {}

FIXTURE_VARIANT_ADD(text_header, good) {
	.text = "fsaio-text 1 features=0x800001f4 release=6.12.118 label=fio --name=x a.fio\n",
};
FIXTURE_VARIANT_ADD(text_header, version_3) {
	.text = "fsaio-text 3 release=6.12\n", .error = "text log version 3",
};
FIXTURE_VARIANT_ADD(text_header, version_2) {	/* with a closing record */
	.text = "fsaio-text 2 features=0x800001f4 release=6.12.118 label=fio --name=x a.fio\n",
};
FIXTURE_VARIANT_ADD(text_header, no_release) {
	.text = "fsaio-text 1 features=0x10\n", .error = "no release=",
};
FIXTURE_VARIANT_ADD(text_header, bad_features) {
	.text = "fsaio-text 1 features=lots release=6.12\n", .error = "bad features",
};
FIXTURE_VARIANT_ADD(text_header, unknown_field) {
	.text = "fsaio-text 1 release=6.12 host=a\n", .error = "unknown header field 'host=a'",
};
FIXTURE_VARIANT_ADD(text_header, bom_and_comments) {	/* before the header line */
	.text = "\xef\xbb\xbf# written by hand\n\nfsaio-text 1 features=0x800001f4 release=6.12.118 "
		"label=fio --name=x a.fio\n",
};
FIXTURE_VARIANT_ADD(text_header, binary_log) {
	.text = "FSAIOLOG\1\0\0\0", .error = "not an fsaio text log",
};

/* features= by name, as SystemTap's wrapper and replay --text write them:
 * the bits of harness/core/features.h; the header written reads back. */
TEST(header_features_by_name)
{
	static char text[] = "fsaio-text 1 features=syscall_tracepoints,sleep_stacks,"
			     "libaio_async release=6.12 label=x\n";
	struct fsaio_log_header h, back;
	char buf[512], err[160] = "";
	FILE *f = fmemopen(text, sizeof(text) - 1, "r");

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fsaio_text_read_header(f, &h, err, sizeof(err))) TH_LOG("%s", err);
	fclose(f);
	EXPECT_EQ(FEAT_SYSCALL_TP | FEAT_STACK | FEAT_LIBAIO_ASYNC, h.features);
	f = fmemopen(buf, sizeof(buf), "w+");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fsaio_text_write_header(f, &h));
	rewind(f);
	ASSERT_EQ(0, fsaio_text_read_header(f, &back, err, sizeof(err))) TH_LOG("%s", err);
	fclose(f);
	EXPECT_EQ(h.features, back.features);
	EXPECT_STREQ("x", back.label);
}

TEST_F(text_header, read)
{
	struct fsaio_log_header h;
	char err[160] = "";
	FILE *f = fmemopen((void *)variant->text, strlen(variant->text), "r");
	int ret;

	ASSERT_NE(NULL, f);
	/* anything but a binary log's magic is read as text */
	EXPECT_EQ(!!strncmp(variant->text, "FSAIOLOG", 8), fsaio_text_detect(f));
	ret = fsaio_text_read_header(f, &h, err, sizeof(err));
	fclose(f);
	if (variant->error) {
		EXPECT_EQ(-EINVAL, ret);
		EXPECT_NE(NULL, strstr(err, variant->error)) TH_LOG("%s", err);
		return;
	}
	ASSERT_EQ(0, ret) TH_LOG("%s", err);
	EXPECT_EQ(0x800001f4u, h.features);
	EXPECT_STREQ("6.12.118", h.release);
	EXPECT_STREQ("fio --name=x a.fio", h.label);
	EXPECT_EQ(sizeof(struct fsaio_record), h.record_size);
	EXPECT_EQ(FSAIO_RECORD_VERSION, h.record_version);
}

/* Comments and blank lines are skipped; the line number of a bad record
 * counts them (the header is line 1). */
TEST(read_skips_comments_and_counts_lines)
{
	static const char text[] =
		"fsaio-text 1 release=6.12\n"
		"# systemtap 4.8\n"
		"\n"
		LINE("13", "0", " comm=sh") "\n"
		"R type=13 seq=2 tgid=5 bogus=1\n";
	struct fsaio_log_header h;
	struct fsaio_record r;
	unsigned long lineno = 1;
	char err[160];
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fsaio_text_read_header(f, &h, err, sizeof(err)));
	EXPECT_EQ(1, fsaio_text_read(f, &lineno, &r, err, sizeof(err)));
	EXPECT_EQ(9, r.seq);
	EXPECT_EQ(4, lineno);
	EXPECT_EQ(-EINVAL, fsaio_text_read(f, &lineno, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "line 5")) TH_LOG("%s", err);
	EXPECT_EQ(0, fsaio_text_read(f, &lineno, &r, err, sizeof(err)));
	fclose(f);
}

/* Numbers are decimal or 0x-hex: a leading zero is not octal. */
TEST(leading_zero_is_decimal)
{
	struct fsaio_record r;
	char err[160] = "";
	const char *line = "R type=9 cpu=0 ts=5 seq=0105 pid=5 tgid=5 req=0 user_data=0 engine=0 "
			   "site=0 ctx=0 flags=0 res=0 arg0=010 arg1=0x10 arg2=0 ring=0 nr_stack=0 "
			   "stack=- comm=x";

	ASSERT_EQ(0, fsaio_text_parse_record(line, 1, &r, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(105, r.seq);
	EXPECT_EQ(10, r.arg0);
	EXPECT_EQ(16, r.arg1);
}

/* The longest line taken is FSAIO_TEXT_LINE_MAX bytes; a longer one and a
 * NUL byte are refused with the number of the line they are on, and the
 * reader goes on counting from there. */
TEST(line_limits_name_their_line)
{
	static char text[4 * FSAIO_TEXT_LINE_MAX];
	struct fsaio_record r;
	unsigned long lineno = 1;
	char err[160] = "";
	size_t n = 0;
	FILE *f;

	n += sprintf(text + n, "# %0*d\n", FSAIO_TEXT_LINE_MAX - 2, 0);	/* line 2: at the limit */
	n += sprintf(text + n, "# %0*d\n", FSAIO_TEXT_LINE_MAX - 1, 0);	/* line 3: one over */
	memcpy(text + n, "# a\0b\n", 6);				/* line 4: a NUL */
	n += 6;
	f = fmemopen(text, n, "r");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(-EINVAL, fsaio_text_read(f, &lineno, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "line 3: longer than 1023")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, fsaio_text_read(f, &lineno, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "line 4: holds a NUL")) TH_LOG("%s", err);
	EXPECT_EQ(0, fsaio_text_read(f, &lineno, &r, err, sizeof(err)));
	fclose(f);
}

/* The same libaio lifecycles, fed as records and as text lines, give the
 * checker the same counts and verdicts. */
static void capture(struct checker *c, const struct fsaio_record *r);
static FILE *capture_to;

static void capture(struct checker *c, const struct fsaio_record *r)
{
	synth_rc |= checker_feed(c, r);
	fsaio_text_write(capture_to, r);
}

TEST(text_replay_matches_binary)
{
	struct checker_config cfg = synth_cfg_all();
	struct checker *bin = checker_new(&cfg), *txt = checker_new(&cfg);
	const struct checker_stats *a, *b;
	char *buf = NULL, err[160] = "";
	size_t len = 0;
	struct fsaio_record r;
	unsigned long lineno = 0;
	int i, n = 0, ret;
	FILE *f;

	ASSERT_NE(NULL, bin);
	ASSERT_NE(NULL, txt);
	capture_to = open_memstream(&buf, &len);
	ASSERT_NE(NULL, capture_to);
	synth_hook = capture;
	aio_batch(bin, 42, 0x1000, 1, 8);
	for (i = 0; i < 8; i++) {
		aio_complete(bin, 0x1000 + i * 0x40, 4096);
		aio_reap(bin, 42, 0x1000 + i * 0x40, 4096);
	}
	ev_proc_exit(bin, 42);
	synth_hook = NULL;
	fclose(capture_to);
	checker_finish(bin);

	f = fmemopen(buf, len, "r");
	ASSERT_NE(NULL, f);
	while ((ret = fsaio_text_read(f, &lineno, &r, err, sizeof(err))) == 1) {
		EXPECT_EQ(0, checker_feed(txt, &r));
		n++;
	}
	EXPECT_EQ(0, ret) TH_LOG("%s", err);
	fclose(f);
	free(buf);
	checker_finish(txt);
	EXPECT_EQ(0, synth_rc);
	EXPECT_GT(n, 16);
	a = checker_stats(bin);
	b = checker_stats(txt);
	EXPECT_EQ(8, a->engine[FSAIO_ENGINE_LIBAIO].submitted);
	EXPECT_EQ(a->engine[FSAIO_ENGINE_LIBAIO].submitted, b->engine[FSAIO_ENGINE_LIBAIO].submitted);
	EXPECT_EQ(a->engine[FSAIO_ENGINE_LIBAIO].completed, b->engine[FSAIO_ENGINE_LIBAIO].completed);
	EXPECT_EQ(a->records, b->records);
	for (i = 0; i < INV__COUNT; i++)
		EXPECT_EQ(checker_result(bin, i)->verdict, checker_result(txt, i)->verdict)
			TH_LOG("invariant %d", i);
	checker_free(bin);
	checker_free(txt);
}

TEST_HARNESS_MAIN
