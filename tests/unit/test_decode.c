// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of record decoding and event logs: valid records and logs
 * round-trip; wrong sizes, versions, enums, truncated and foreign logs are
 * rejected with a reason; a truncated log replayed through the checker is
 * an ERROR, never a PASS.
 */
#include <string.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "synth.h"
#include "core/decode.h"

#pragma GCC diagnostic ignored "-Wsign-compare"	/* EXPECT_EQ(int, size_t) */

static struct fsaio_record good(void)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_SLEEP, FSAIO_ENGINE_NONE, 5, 0);

	r.site = FSAIO_SITE_FOLIO_BIT;
	r.ctx = FSAIO_CTX_SUBMIT_LIBAIO;
	r.nr_stack = FSAIO_STACK_DEPTH;
	return r;
}

static struct fsaio_log_header header(void)
{
	struct fsaio_log_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, FSAIO_LOG_MAGIC, sizeof(h.magic));
	h.log_version = 1;
	h.record_size = sizeof(struct fsaio_record);
	h.record_version = FSAIO_RECORD_VERSION;
	h.features = 0x1ff;
	strcpy(h.release, "6.12.118-fsaio");
	strcpy(h.label, "aio_read_batch");
	return h;
}

TEST(decode_valid_record)
{
	struct fsaio_record in = good(), out;
	char err[128] = "";

	ASSERT_EQ(0, fsaio_decode(&in, sizeof(in), &out, err, sizeof(err)));
	EXPECT_EQ(0, memcmp(&in, &out, sizeof(in)));
	EXPECT_STREQ("", err);
}

TEST(decode_unaligned_buffer)
{
	struct fsaio_record in = good(), out;
	char buf[sizeof(in) + 1];
	char err[128];

	memcpy(buf + 1, &in, sizeof(in));
	ASSERT_EQ(0, fsaio_decode(buf + 1, sizeof(in), &out, err, sizeof(err)));
	EXPECT_EQ(in.seq, out.seq);
}

TEST(decode_rejects_wrong_size)
{
	struct fsaio_record in = good(), out;
	char err[128];

	EXPECT_EQ(-EINVAL, fsaio_decode(&in, sizeof(in) - 8, &out, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "expected")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, fsaio_decode(&in, sizeof(in) + 8, &out, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, fsaio_decode(NULL, 0, &out, err, sizeof(err)));
}

/* The ring buffer sends records sized to their content: no stack area
 * unless a sleep's stack was taken. */
TEST(decode_short_record_without_stack)
{
	struct fsaio_record in = good(), out;
	char err[128] = "";

	in.type = FSAIO_EV_COMPLETE;
	in.nr_stack = 0;
	memset(in.stack, 0xa5, sizeof(in.stack));	/* beyond the short size */
	ASSERT_EQ(0, fsaio_decode(&in, FSAIO_RECORD_SHORT, &out, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(in.seq, out.seq);
	EXPECT_STREQ(in.comm, out.comm);
	EXPECT_EQ(0, out.stack[0]);			/* zero-filled, not copied */
	EXPECT_EQ(0, out.stack[FSAIO_STACK_DEPTH - 1]);
	EXPECT_GT(sizeof(in), FSAIO_RECORD_SHORT + 100);	/* the stack area is most of it */
}

TEST(decode_rejects_short_sleep_record)
{
	struct fsaio_record in = good(), out;
	char err[128];

	in.type = FSAIO_EV_SLEEP;
	EXPECT_EQ(-EINVAL, fsaio_decode(&in, FSAIO_RECORD_SHORT, &out, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "sleep record")) TH_LOG("%s", err);
	EXPECT_EQ(0, fsaio_decode(&in, sizeof(in), &out, err, sizeof(err))) TH_LOG("%s", err);
}

TEST(decode_rejects_unknown_version)
{
	struct fsaio_record in = good(), out;
	char err[128], want[64];

	in.version = FSAIO_RECORD_VERSION + 1;
	EXPECT_EQ(-EINVAL, fsaio_decode(&in, sizeof(in), &out, err, sizeof(err)));
	snprintf(want, sizeof(want), "record version %d, expected %d",
		 FSAIO_RECORD_VERSION + 1, FSAIO_RECORD_VERSION);
	EXPECT_NE(NULL, strstr(err, want)) TH_LOG("%s", err);
}

TEST(decode_rejects_bad_enums)
{
	struct fsaio_record in, out;
	char err[128];

	in = good();
	in.type = 0;
	EXPECT_EQ(-EINVAL, fsaio_decode(&in, sizeof(in), &out, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "unknown event type 0"));
	in.type = FSAIO_EV__MAX;
	EXPECT_EQ(-EINVAL, fsaio_decode(&in, sizeof(in), &out, err, sizeof(err)));
	in = good();
	in.engine = FSAIO_ENGINE__COUNT;
	EXPECT_EQ(-EINVAL, fsaio_decode(&in, sizeof(in), &out, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "engine"));
	in = good();
	in.site = FSAIO_SITE__COUNT;
	EXPECT_EQ(-EINVAL, fsaio_decode(&in, sizeof(in), &out, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "wait site"));
	in = good();
	in.ctx = FSAIO_CTX__COUNT;
	EXPECT_EQ(-EINVAL, fsaio_decode(&in, sizeof(in), &out, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "context"));
	in = good();
	in.nr_stack = FSAIO_STACK_DEPTH + 1;
	EXPECT_EQ(-EINVAL, fsaio_decode(&in, sizeof(in), &out, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "nr_stack 17"));
	/* err may be omitted */
	EXPECT_EQ(-EINVAL, fsaio_decode(&in, sizeof(in), &out, NULL, 0));
}

/* A log of n good records, optionally with the TRACE_END. */
static FILE *write_log(int n, bool end)
{
	struct fsaio_log_header h = header();
	FILE *f = tmpfile();
	int i;

	if (!f)
		return NULL;
	if (fsaio_log_write_header(f, &h))
		return NULL;
	for (i = 0; i < n; i++) {
		struct fsaio_record r = good();

		if (fsaio_log_write(f, &r))
			return NULL;
	}
	if (end) {
		struct fsaio_record r = synth_rec(FSAIO_EV_TRACE_END, 0, 0, 0);

		r.seq = 0;
		synth_seq--;
		if (fsaio_log_write(f, &r))
			return NULL;
	}
	fflush(f);
	rewind(f);
	return f;
}

/*
 * The log cut behind stdio's back: a fresh stream on the same file, since
 * glibc may serve a rewind() from the old stream's buffer.
 */
static FILE *cut_log(FILE *f, long size)
{
	int fd;

	fflush(f);
	if (ftruncate(fileno(f), size))
		return NULL;
	fd = dup(fileno(f));
	fclose(f);
	if (fd < 0 || lseek(fd, 0, SEEK_SET))
		return NULL;
	return fdopen(fd, "rb");
}

TEST(log_round_trip)
{
	struct fsaio_log_header h;
	struct fsaio_record r;
	FILE *f = write_log(3, true);
	char err[160];
	int i;

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fsaio_log_read_header(f, &h, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("6.12.118-fsaio", h.release);
	EXPECT_STREQ("aio_read_batch", h.label);
	EXPECT_EQ(0x1ff, h.features);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, fsaio_log_read(f, &r, err, sizeof(err))) TH_LOG("%s", err);
		EXPECT_EQ(FSAIO_EV_SLEEP, r.type);
		EXPECT_EQ(i + 1, r.seq);
	}
	ASSERT_EQ(1, fsaio_log_read(f, &r, err, sizeof(err)));
	EXPECT_EQ(FSAIO_EV_TRACE_END, r.type);
	EXPECT_EQ(0, fsaio_log_read(f, &r, err, sizeof(err)));
	fclose(f);
}

TEST(log_truncated_record_rejected)
{
	struct fsaio_log_header h;
	struct fsaio_record r;
	FILE *f = write_log(3, true);
	long size;
	char err[160], want[64];

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fseek(f, 0, SEEK_END));
	size = ftell(f);
	f = cut_log(f, size - sizeof(r) - 10);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fsaio_log_read_header(f, &h, err, sizeof(err)));
	ASSERT_EQ(1, fsaio_log_read(f, &r, err, sizeof(err)));
	ASSERT_EQ(1, fsaio_log_read(f, &r, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, fsaio_log_read(f, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "truncated record")) TH_LOG("%s", err);
	snprintf(want, sizeof(want), "(%zu of %zu bytes)", sizeof(r) - 10, sizeof(r));
	EXPECT_NE(NULL, strstr(err, want)) TH_LOG("%s", err);
	fclose(f);
}

TEST(log_corrupt_record_rejected_with_offset)
{
	struct fsaio_log_header h;
	struct fsaio_record r;
	FILE *f = write_log(2, true);
	unsigned short bad = 7;
	char err[160], want[64];

	ASSERT_NE(NULL, f);
	/* the second record's version field */
	ASSERT_EQ(0, fseek(f, sizeof(h) + sizeof(r), SEEK_SET));
	ASSERT_EQ(1, fwrite(&bad, sizeof(bad), 1, f));
	fflush(f);
	ASSERT_EQ(0, fseek(f, 0, SEEK_END));
	f = cut_log(f, ftell(f));
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fsaio_log_read_header(f, &h, err, sizeof(err)));
	ASSERT_EQ(1, fsaio_log_read(f, &r, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, fsaio_log_read(f, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "record version 7")) TH_LOG("%s", err);
	snprintf(want, sizeof(want), "at offset %zu", sizeof(h) + sizeof(r));
	EXPECT_NE(NULL, strstr(err, want)) TH_LOG("%s", err);
	fclose(f);
}

static int read_header_of(struct fsaio_log_header *h, char *err, size_t errlen)
{
	struct fsaio_log_header out;
	FILE *f = tmpfile();
	int ret;

	if (!f)
		return -1;
	fsaio_log_write_header(f, h);
	rewind(f);
	ret = fsaio_log_read_header(f, &out, err, errlen);
	fclose(f);
	return ret;
}

/* A header with one field wrong is rejected with a reason; a good one is read. */
FIXTURE(log_header) {};

FIXTURE_VARIANT(log_header) {
	const char *magic;		/* else FSAIO_LOG_MAGIC */
	uint32_t log_version;		/* else 1 */
	int record_size_delta;
	uint32_t record_version;	/* else FSAIO_RECORD_VERSION */
	const char *error;		/* NULL: the header is read */
};

FIXTURE_SETUP(log_header) {}
FIXTURE_TEARDOWN(log_header) {}

FIXTURE_VARIANT_ADD(log_header, bad_magic) {
	.magic = "NOTALOG!",
	.error = "bad magic",
};

FIXTURE_VARIANT_ADD(log_header, log_version_3) {
	.log_version = 3,
	.error = "log version 3",
};

/* version 2 ends with a closing record (replay checks it is there) */
FIXTURE_VARIANT_ADD(log_header, log_version_2) {
	.log_version = 2,
	.error = NULL,
};

FIXTURE_VARIANT_ADD(log_header, short_record_size) {
	.record_size_delta = -8,
	.error = "record size",
};

FIXTURE_VARIANT_ADD(log_header, record_version_9) {
	.record_version = 9,
	.error = "record version 9",
};

FIXTURE_VARIANT_ADD(log_header, good) {
	.error = NULL,
};

TEST_F(log_header, read)
{
	struct fsaio_log_header h = header();
	char err[160];

	if (variant->magic)
		memcpy(h.magic, variant->magic, sizeof(h.magic));
	if (variant->log_version)
		h.log_version = variant->log_version;
	h.record_size += variant->record_size_delta;
	if (variant->record_version)
		h.record_version = variant->record_version;
	EXPECT_EQ(variant->error ? -EINVAL : 0, read_header_of(&h, err, sizeof(err)));
	if (variant->error) {
		EXPECT_NE(NULL, strstr(err, variant->error)) TH_LOG("%s", err);
	}
}

TEST(log_truncated_header_rejected)
{
	struct fsaio_log_header h = header(), out;
	FILE *f = tmpfile();
	char err[160];

	ASSERT_NE(NULL, f);
	fwrite(&h, 1, 20, f);
	rewind(f);
	EXPECT_EQ(-EINVAL, fsaio_log_read_header(f, &out, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "truncated log header")) TH_LOG("%s", err);
	fclose(f);
}

TEST(log_unterminated_strings_are_cut)
{
	struct fsaio_log_header h = header(), out;
	FILE *f = tmpfile();
	char err[160];

	ASSERT_NE(NULL, f);
	memset(h.release, 'x', sizeof(h.release));
	memset(h.label, 'y', sizeof(h.label));
	fsaio_log_write_header(f, &h);
	rewind(f);
	ASSERT_EQ(0, fsaio_log_read_header(f, &out, err, sizeof(err)));
	EXPECT_EQ(sizeof(out.release) - 1, strlen(out.release));
	EXPECT_EQ(sizeof(out.label) - 1, strlen(out.label));
	fclose(f);
}

/* What `fsaio replay` does: a log cut before its TRACE_END is an ERROR. */
static enum verdict replay(FILE *f, bool *saw_bad)
{
	struct checker_config cfg = synth_cfg_all();
	struct checker *c = checker_new(&cfg);
	struct fsaio_log_header h;
	struct fsaio_record r;
	enum verdict v;
	char err[160];
	int ret;

	*saw_bad = false;
	if (fsaio_log_read_header(f, &h, err, sizeof(err)))
		return VERDICT_ERROR;
	while ((ret = fsaio_log_read(f, &r, err, sizeof(err))) == 1)
		checker_feed(c, &r);
	if (ret < 0) {
		checker_note_malformed(c, err);
		*saw_bad = true;
	}
	checker_finish(c);
	v = checker_result(c, INV_TRACE_INTEGRITY)->verdict;
	checker_free(c);
	return v;
}

/*
 * A log of four records replayed: complete, it passes trace_integrity;
 * cut mid-record (the decoder says so) or at a record boundary before its
 * TRACE_END, it is an ERROR.
 */
FIXTURE(log_replay) {
	FILE *f;
};

FIXTURE_VARIANT(log_replay) {
	bool trace_end;			/* the log ends with its TRACE_END */
	long cut_at;			/* then is cut to this size (0: not) */
	enum verdict verdict;		/* of trace_integrity */
	bool malformed;			/* the decoder found a bad record */
};

FIXTURE_SETUP(log_replay)
{
	self->f = write_log(4, variant->trace_end);
	ASSERT_NE(NULL, self->f);
	if (variant->cut_at) {
		self->f = cut_log(self->f, variant->cut_at);
		ASSERT_NE(NULL, self->f);
	}
}

FIXTURE_TEARDOWN(log_replay)
{
	if (self->f)
		fclose(self->f);
}

FIXTURE_VARIANT_ADD(log_replay, complete) {
	.trace_end = true,
	.verdict = VERDICT_PASS,
};

FIXTURE_VARIANT_ADD(log_replay, cut_mid_record) {
	.trace_end = true,
	.cut_at = sizeof(struct fsaio_log_header) + 2 * sizeof(struct fsaio_record) + 100,
	.verdict = VERDICT_ERROR,
	.malformed = true,
};

FIXTURE_VARIANT_ADD(log_replay, no_trace_end) {
	.verdict = VERDICT_ERROR,
};

TEST_F(log_replay, trace_integrity)
{
	bool bad;

	EXPECT_EQ(variant->verdict, replay(self->f, &bad));
	EXPECT_EQ(variant->malformed, bad);
}

TEST_HARNESS_MAIN
