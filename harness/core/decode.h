/* SPDX-License-Identifier: GPL-2.0 */
/* Decoding raw records (ring buffer samples, log files) into fsaio_record. */
#ifndef FSAIO_DECODE_H
#define FSAIO_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "bpf/fsaio.h"

/* The decoders' refusal: the reason into err (if any room), -EINVAL. */
int fsaio_reject(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Validate and copy one raw record.  Returns 0, or -EINVAL with a one-line
 * reason in err (wrong size, unknown version, unknown type, bad enum). */
int fsaio_decode(const void *data, size_t len, struct fsaio_record *out,
		 char *err, size_t errlen);

/*
 * Event log ("--record FILE", "replay FILE"): a header followed by raw
 * records, FSAIO_EV_TRACE_END last.
 */
#define FSAIO_LOG_MAGIC "FSAIOLOG"
/*
 * Log versions, binary and text alike.  2: the log ends with a closing
 * TRACE_END (arg1 = FSAIO_END_LOG) written when the log was closed; a
 * version-2 log without it was cut short (a full disk, a killed fsaio, a
 * truncated copy), which replay reports as an ERROR even when the cut is
 * at a segment boundary.  1: no closing record (such a cut is not seen).
 */
#define FSAIO_LOG_VERSION	2
#define FSAIO_END_LOG		1	/* TRACE_END.arg1 of the closing record */

/*
 * The closing record seals the log: arg0 = the records before it, arg2 =
 * their fsaio_record_hash() chained from FSAIO_HASH_INIT, stack[0] =
 * FSAIO_END_SEALED.  A record changed, added (a forged TRACE_END splitting
 * a segment), dropped or reordered then fails the seal, and replay reports
 * the log as corrupt (ERROR) rather than judging what is left.  A closing
 * record without FSAIO_END_SEALED (SystemTap's logs) seals nothing.
 */
#define FSAIO_END_SEALED	1
#define FSAIO_HASH_INIT		0xcbf29ce484222325ull	/* FNV-1a 64 */

/* The closing record of a version-2 log (not a segment's end). */
static inline int fsaio_is_log_end(const struct fsaio_record *r)
{
	return r->type == FSAIO_EV_TRACE_END && r->arg1 == FSAIO_END_LOG;
}

/* Chain r into h: every field a log carries, in binary and text alike
 * (comm up to its NUL, the stack entries it has), not the padding. */
uint64_t fsaio_record_hash(uint64_t h, const struct fsaio_record *r);

struct fsaio_log_header {
	char magic[8];		/* FSAIO_LOG_MAGIC, not NUL-terminated */
	uint32_t log_version;	/* FSAIO_LOG_VERSION, or 1 */
	uint32_t record_size;	/* sizeof(struct fsaio_record) */
	uint32_t record_version;	/* FSAIO_RECORD_VERSION */
	uint32_t features;	/* FEAT_* bits of the tracer that wrote it */
	char release[128];	/* uname -r of the traced kernel */
	char label[128];	/* workload or command */
};

int fsaio_log_write_header(FILE *f, const struct fsaio_log_header *h);
/* Where the seal's hash starts: FSAIO_HASH_INIT chained with what the
 * header says that verdicts depend on (features, record version, release,
 * label), so a changed header breaks the seal too. */
uint64_t fsaio_header_hash(const struct fsaio_log_header *h);
int fsaio_log_write(FILE *f, const struct fsaio_record *rec);
/* Returns 0 and fills h, or -EINVAL with reason in err. */
int fsaio_log_read_header(FILE *f, struct fsaio_log_header *h,
			  char *err, size_t errlen);
/* Returns 1 with a record, 0 at clean EOF, -EINVAL on a truncated or
 * undecodable record (reason in err). */
int fsaio_log_read(FILE *f, struct fsaio_record *rec, char *err, size_t errlen);

#endif
