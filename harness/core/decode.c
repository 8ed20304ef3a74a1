// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding raw fsaio records and reading/writing event logs.  Pure: no
 * libbpf.  Every record that enters the checker, live or replayed, has been
 * through fsaio_decode(), so the checker can index tables by the enums.
 *
 * Logs are written in host byte order with the layout of struct
 * fsaio_record; the header records that size and version, and a log of
 * another layout is refused rather than guessed at.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include "core/decode.h"

int fsaio_reject(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int fsaio_decode(const void *data, size_t len, struct fsaio_record *out,
		 char *err, size_t errlen)
{
	struct fsaio_record r;

	if (!data || (len != sizeof(r) && len != FSAIO_RECORD_SHORT))
		return fsaio_reject(err, errlen, "record of %zu bytes, expected %zu or %zu",
			      len, sizeof(r), (size_t)FSAIO_RECORD_SHORT);
	/* Ring buffer samples are 8-byte aligned, log buffers may not be;
	 * a short record has no stack area (FSAIO_RECORD_SIZE_OF). */
	memset(&r, 0, sizeof(r));
	memcpy(&r, data, len);
	if (r.version != FSAIO_RECORD_VERSION)
		return fsaio_reject(err, errlen, "record version %u, expected %u (seq %llu)",
			      r.version, FSAIO_RECORD_VERSION,
			      (unsigned long long)r.seq);
	if (r.type == 0 || r.type >= FSAIO_EV__MAX)
		return fsaio_reject(err, errlen, "unknown event type %u (seq %llu)",
			      r.type, (unsigned long long)r.seq);
	if (r.engine >= FSAIO_ENGINE__COUNT)
		return fsaio_reject(err, errlen, "unknown engine %u (seq %llu)",
			      r.engine, (unsigned long long)r.seq);
	if (r.site >= FSAIO_SITE__COUNT)
		return fsaio_reject(err, errlen, "unknown wait site %u (seq %llu)",
			      r.site, (unsigned long long)r.seq);
	if (r.ctx >= FSAIO_CTX__COUNT)
		return fsaio_reject(err, errlen, "unknown context %u (seq %llu)",
			      r.ctx, (unsigned long long)r.seq);
	/* a sleep's stack cannot have been cut off (logs: whole records) */
	if (len < FSAIO_RECORD_SIZE_OF(r.type))
		return fsaio_reject(err, errlen, "sleep record of %zu bytes, expected %zu (seq %llu)",
			      len, sizeof(r), (unsigned long long)r.seq);
	if (r.nr_stack > FSAIO_STACK_DEPTH)
		return fsaio_reject(err, errlen, "nr_stack %u > %u (seq %llu)",
			      r.nr_stack, FSAIO_STACK_DEPTH,
			      (unsigned long long)r.seq);
	*out = r;
	return 0;
}

static int write_all(FILE *f, const void *p, size_t len)
{
	errno = 0;	/* stdio need not set it: never report a stale one */
	if (fwrite(p, 1, len, f) != len)
		return errno ? -errno : -EIO;
	return 0;
}

int fsaio_log_write_header(FILE *f, const struct fsaio_log_header *h)
{
	return write_all(f, h, sizeof(*h));
}

int fsaio_log_write(FILE *f, const struct fsaio_record *rec)
{
	return write_all(f, rec, sizeof(*rec));
}

int fsaio_log_read_header(FILE *f, struct fsaio_log_header *h,
			  char *err, size_t errlen)
{
	size_t n = fread(h, 1, sizeof(*h), f);

	if (n != sizeof(*h))
		return fsaio_reject(err, errlen, "truncated log header (%zu of %zu bytes)",
			      n, sizeof(*h));
	if (memcmp(h->magic, FSAIO_LOG_MAGIC, sizeof(h->magic)))
		return fsaio_reject(err, errlen, "not an fsaio event log (bad magic)");
	if (h->log_version != 1 && h->log_version != FSAIO_LOG_VERSION)
		return fsaio_reject(err, errlen, "log version %u, expected 1 or %u", h->log_version,
				    FSAIO_LOG_VERSION);
	if (h->record_size != sizeof(struct fsaio_record))
		return fsaio_reject(err, errlen, "log record size %u, expected %zu",
			      h->record_size, sizeof(struct fsaio_record));
	if (h->record_version != FSAIO_RECORD_VERSION)
		return fsaio_reject(err, errlen, "log record version %u, expected %u",
			      h->record_version, FSAIO_RECORD_VERSION);
	/* Labels come from files: never trust their termination. */
	h->release[sizeof(h->release) - 1] = '\0';
	h->label[sizeof(h->label) - 1] = '\0';
	return 0;
}

int fsaio_log_read(FILE *f, struct fsaio_record *rec, char *err, size_t errlen)
{
	unsigned char buf[sizeof(struct fsaio_record)];
	long off = ftell(f);
	size_t n;

	errno = 0;	/* stdio need not set it: never report a stale one */
	n = fread(buf, 1, sizeof(buf), f);
	if (n == 0 && feof(f))
		return 0;
	if (n != sizeof(buf)) {
		if (ferror(f))
			return fsaio_reject(err, errlen, "read error at offset %ld: %s",
				      off, errno ? strerror(errno) : "I/O error");
		return fsaio_reject(err, errlen,
			      "truncated record at offset %ld (%zu of %zu bytes)",
			      off, n, sizeof(buf));
	}
	if (fsaio_decode(buf, n, rec, err, errlen)) {
		size_t used = err ? strlen(err) : 0;

		/* Say where, so a corrupt log can be inspected. */
		if (err && used < errlen)
			snprintf(err + used, errlen - used, " at offset %ld", off);
		return -EINVAL;
	}
	return 1;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

uint64_t fsaio_record_hash(uint64_t h, const struct fsaio_record *r)
{
	uint64_t v[] = { r->type, r->cpu, r->ts_ns, r->seq, r->pid, r->tgid, r->req,
			 r->user_data, r->engine, r->site, r->ctx, r->flags,
			 (uint64_t)(int64_t)r->res, r->arg0, r->arg1, r->arg2, r->ring,
			 r->nr_stack };
	uint32_t n = r->type == FSAIO_EV_TRACE_END ? FSAIO_DROP__COUNT : r->nr_stack;

	h = fnv(h, v, sizeof(v));
	h = fnv(h, r->stack, (n < FSAIO_STACK_DEPTH ? n : FSAIO_STACK_DEPTH) * sizeof(r->stack[0]));
	return fnv(h, r->comm, strnlen(r->comm, sizeof(r->comm)));
}

uint64_t fsaio_header_hash(const struct fsaio_log_header *h)
{
	uint64_t v[] = { h->features, h->record_version };
	uint64_t x = fnv(FSAIO_HASH_INIT, v, sizeof(v));

	x = fnv(x, h->release, strnlen(h->release, sizeof(h->release)));
	return fnv(x, h->label, strnlen(h->label, sizeof(h->label)));
}
