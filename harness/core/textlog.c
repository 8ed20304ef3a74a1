// SPDX-License-Identifier: GPL-2.0
/* Text event logs (textlog.h): parse and write record lines.  Pure. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "core/features.h"
#include "core/textlog.h"

/* A whole token as an unsigned number (decimal or 0x-hex) or, with
 * allow_neg, a negative decimal.  "0105" is decimal 105, not octal: the
 * format has no octal. */
static int number(const char *s, size_t len, int allow_neg, uint64_t *v)
{
	char buf[32], *end;
	int base = 10;

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	if (buf[0] == '-') {
		long long n;

		if (!allow_neg || !isdigit((unsigned char)buf[1]))
			return -1;
		n = strtoll(buf, &end, 10);
		*v = (uint64_t)n;
	} else {
		if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
			base = 16;
		if (!isdigit((unsigned char)buf[0]) ||
		    (base == 16 && !isxdigit((unsigned char)buf[2])))
			return -1;	/* no sign, blank or empty hex */
		*v = strtoull(buf, &end, base);
	}
	return errno || *end ? -1 : 0;
}

/* stack=0x1,0x2 or "-" into st[], *n entries */
static int parse_stack(const char *s, size_t len, uint64_t *st, uint32_t *n)
{
	size_t i = 0, start;

	*n = 0;
	if (len == 1 && s[0] == '-')
		return 0;
	if (s[len - 1] == ',')
		return -1;
	while (i < len) {
		start = i;
		while (i < len && s[i] != ',')
			i++;
		if (*n >= FSAIO_STACK_DEPTH || number(s + start, i - start, 0, &st[*n]))
			return -1;
		(*n)++;
		i++;	/* the comma */
	}
	return 0;
}

/* The numeric fields of a record line, in the order they are written:
 * name, where, how wide, signed (res) or written in hex (addresses). */
enum { DEC, HEX, SIGNED };
static const struct text_field {
	const char *name;
	size_t off, size;
	int form;
} text_fields[] = {
#define F(key, member, form) \
	{ #key, offsetof(struct fsaio_record, member), \
	  sizeof(((struct fsaio_record *)0)->member), form }
	F(type, type, DEC), F(cpu, cpu, DEC), F(ts, ts_ns, DEC), F(seq, seq, DEC),
	F(pid, pid, DEC), F(tgid, tgid, DEC), F(req, req, HEX),
	F(user_data, user_data, HEX), F(engine, engine, DEC), F(site, site, DEC),
	F(ctx, ctx, DEC), F(flags, flags, DEC), F(res, res, SIGNED),
	F(arg0, arg0, HEX), F(arg1, arg1, HEX), F(arg2, arg2, HEX),
	F(ring, ring, HEX), F(nr_stack, nr_stack, DEC),
#undef F
};
#define NR_TEXT_FIELDS (sizeof(text_fields) / sizeof(text_fields[0]))

/* A field's value, widened (res sign-extended). */
static uint64_t load(const struct fsaio_record *r, const struct text_field *tf)
{
	const char *at = (const char *)r + tf->off;

	switch (tf->size) {
	case 1: return *(const uint8_t *)at;
	case 2: return *(const uint16_t *)at;
	case 4: return tf->form == SIGNED ? (uint64_t)(int64_t)*(const int32_t *)at :
					    *(const uint32_t *)at;
	default: return *(const uint64_t *)at;
	}
}

/* Store v in a field of its width; false if it does not fit. */
static bool store(struct fsaio_record *r, const struct text_field *tf, uint64_t v)
{
	char *at = (char *)r + tf->off;
	int64_t sv = (int64_t)v;

	switch (tf->size) {
	case 1: if (v > UINT8_MAX) return false; *(uint8_t *)at = v; return true;
	case 2: if (v > UINT16_MAX) return false; *(uint16_t *)at = v; return true;
	case 4:
		if (tf->form == SIGNED ? sv < INT32_MIN || sv > INT32_MAX : v > UINT32_MAX)
			return false;
		*(uint32_t *)at = (uint32_t)v;
		return true;
	default: *(uint64_t *)at = v; return true;
	}
}

int fsaio_text_parse_record(const char *line, unsigned long lineno, struct fsaio_record *out,
			    char *err, size_t errlen)
{
	struct fsaio_record r;
	const char *p = line, *key, *val;
	uint32_t nr_stack = 0, nr_listed = 0, seen = 0;
	bool have_stack = false, have_comm = false;
	uint64_t stack[FSAIO_STACK_DEPTH] = { 0 };
	char derr[160];
	size_t i;

	memset(&r, 0, sizeof(r));
	if (strncmp(p, "R ", 2))
		return fsaio_reject(err, errlen, "line %lu: not a record (\"R key=value ...\")", lineno);
	p += 2;
	for (;;) {
		size_t klen, vlen;
		uint64_t v;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		key = p;
		val = strchr(p, '=');
		if (!val || memchr(key, ' ', val - key))
			return fsaio_reject(err, errlen, "line %lu: '%.20s' is not key=value", lineno, key);
		klen = val - key;
		val++;
		if (klen == 4 && !memcmp(key, "comm", 4)) {
			/* comm ends the line: it cannot come twice */
			/* the rest of the line: a command name may hold spaces */
			snprintf(r.comm, sizeof(r.comm), "%s", val);
			have_comm = true;
			break;
		}
		vlen = strcspn(val, " ");
		p = val + vlen;
		if (klen == 5 && !memcmp(key, "stack", 5)) {
			if (have_stack)
				return fsaio_reject(err, errlen, "line %lu: stack= twice", lineno);
			if (!vlen || parse_stack(val, vlen, stack, &nr_listed))
				return fsaio_reject(err, errlen, "line %lu: bad stack '%.*s' (at most %d "
					      "comma-separated numbers, or -)", lineno,
					      (int)(vlen > 40 ? 40 : vlen), val, FSAIO_STACK_DEPTH);
			have_stack = true;
			continue;
		}
		for (i = 0; i < NR_TEXT_FIELDS; i++)
			if (strlen(text_fields[i].name) == klen &&
			    !memcmp(key, text_fields[i].name, klen))
				break;
		if (i == NR_TEXT_FIELDS)
			return fsaio_reject(err, errlen, "line %lu: unknown field '%.*s'", lineno,
				      (int)(klen > 20 ? 20 : klen), key);
		if (seen & 1u << i)	/* "last wins" would let a line lie */
			return fsaio_reject(err, errlen, "line %lu: %s= twice", lineno,
					    text_fields[i].name);
		if (number(val, vlen, text_fields[i].form == SIGNED, &v) ||
		    !store(&r, &text_fields[i], v))
			return fsaio_reject(err, errlen, "line %lu: bad number %.*s=%.*s", lineno,
				      (int)klen, key, (int)(vlen > 24 ? 24 : vlen), val);
		seen |= 1u << i;
		if (!strcmp(text_fields[i].name, "nr_stack"))
			nr_stack = r.nr_stack;
	}
	/* every field, comm last: a line cut short (a truncated log) is
	 * refused, not read as zeros */
	for (i = 0; i < NR_TEXT_FIELDS; i++)
		if (!(seen & 1u << i))
			return fsaio_reject(err, errlen, "line %lu: no %s= (cut short?)", lineno,
				      text_fields[i].name);
	if (!have_stack || !have_comm)
		return fsaio_reject(err, errlen, "line %lu: no %s= (cut short?)", lineno,
			      have_stack ? "comm" : "stack");
	memcpy(r.stack, stack, sizeof(stack));
	/* TRACE_END carries drop counts per cause in stack[], not frames */
	r.nr_stack = r.type == FSAIO_EV_TRACE_END ? 0 : nr_listed;
	if (r.type != FSAIO_EV_TRACE_END && nr_stack != nr_listed)
		return fsaio_reject(err, errlen, "line %lu: nr_stack=%u but %u stack entries",
			      lineno, nr_stack, nr_listed);
	r.version = FSAIO_RECORD_VERSION;
	if (fsaio_decode(&r, sizeof(r), out, derr, sizeof(derr)))
		return fsaio_reject(err, errlen, "line %lu: %s", lineno, derr);
	return 0;
}

/* A binary log starts with FSAIO_LOG_MAGIC; anything else that is text (a
 * UTF-8 byte order mark, comment or blank lines before the header line,
 * which the header reader skips) is read as a text log, so its own
 * header error is what the user sees, not "bad magic". */
int fsaio_text_detect(FILE *f)
{
	char buf[sizeof(FSAIO_LOG_MAGIC) - 1];
	size_t n = fread(buf, 1, sizeof(buf), f);

	rewind(f);
	return !(n == sizeof(buf) && !memcmp(buf, FSAIO_LOG_MAGIC, sizeof(buf))) &&
	       (n == 0 || buf[0] == 'f' || buf[0] == '#' || buf[0] == '\n' ||
		(unsigned char)buf[0] == 0xef);
}

/* features=: the names of harness/core/features.h (comma-separated, "-"
 * for none), or a number of FEAT_* bits. */
static int parse_features(char *list, uint32_t *out, char *err, size_t errlen)
{
	char *name, *save = NULL;
	uint64_t v;
	unsigned i;

	*out = 0;
	if (!strcmp(list, "-"))
		return 0;
	if (list[0] >= '0' && list[0] <= '9') {
		if (number(list, strlen(list), 0, &v) || v > UINT32_MAX)
			return fsaio_reject(err, errlen, "bad features '%s' in the header", list);
		*out = v;
		return 0;
	}
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < nr_features; i++)
			if (!strcmp(name, feature_table[i].json))
				break;
		if (i == nr_features)
			return fsaio_reject(err, errlen, "bad features: unknown '%s' in the "
					    "header (harness/core/features.h names them)", name);
		*out |= feature_table[i].bit;
	}
	return 0;
}

int fsaio_text_write_header(FILE *f, const struct fsaio_log_header *h)
{
	const char *sep = "";
	unsigned i;

	fprintf(f, "%s %u features=", FSAIO_TEXT_MAGIC,
		h->log_version == 1 ? 1 : FSAIO_LOG_VERSION);
	for (i = 0; i < nr_features; i++)
		if (h->features & feature_table[i].bit) {
			fprintf(f, "%s%s", sep, feature_table[i].json);
			sep = ",";
		}
	if (fprintf(f, "%s release=%s label=%s\n", *sep ? "" : "-", h->release, h->label) < 0)
		return -EIO;
	return 0;
}

/*
 * One line without its newline into buf (len bytes, so at most len - 1
 * of text); *lineno counts it.  1 with a line, 0 at EOF, -EINVAL with err
 * naming the line when it is longer than that or holds a NUL byte (the
 * rest of a long line is consumed: the next call reads the next line).
 */
static int get_line(FILE *f, char *buf, size_t len, unsigned long *lineno,
		    char *err, size_t errlen)
{
	size_t n = 0;
	int c, nul = 0;

	for (;;) {
		c = getc(f);
		if (c == EOF) {
			if (!n)
				return 0;
			break;
		}
		if (c == '\n')
			break;
		if (!c)
			nul = 1;
		if (n < len - 1)
			buf[n] = (char)c;
		n++;
	}
	(*lineno)++;
	if (n > len - 1)
		return fsaio_reject(err, errlen, "line %lu: longer than %zu bytes", *lineno,
				    len - 1);
	if (nul)
		return fsaio_reject(err, errlen, "line %lu: holds a NUL byte", *lineno);
	buf[n] = '\0';
	return 1;
}

int fsaio_text_read_header(FILE *f, struct fsaio_log_header *h, char *err, size_t errlen)
{
	unsigned long lineno;

	return fsaio_text_read_header_at(f, h, &lineno, err, errlen);
}

int fsaio_text_read_header_at(FILE *f, struct fsaio_log_header *h, unsigned long *linep,
			      char *err, size_t errlen)
{
	char line[FSAIO_TEXT_LINE_MAX + 1], *p, *next, *start;
	unsigned long lineno = 0;
	unsigned version;
	int n;

	memset(h, 0, sizeof(*h));
	do {
		n = get_line(f, line, sizeof(line), &lineno, err, errlen);
		if (n < 0)
			return n;
		start = line;
		if (lineno == 1 && !memcmp(start, "\xef\xbb\xbf", 3))
			start += 3;	/* a UTF-8 byte order mark */
	} while (n > 0 && (start[0] == '#' || !start[0]));
	if (n <= 0 || sscanf(start, FSAIO_TEXT_MAGIC " %u%n", &version, &n) != 1)
		return fsaio_reject(err, errlen, "not an fsaio text log (its first line is not"
				    " \"%s N ...\")", FSAIO_TEXT_MAGIC);
	if (version != 1 && version != FSAIO_LOG_VERSION)
		return fsaio_reject(err, errlen, "text log version %u, expected 1 or %u", version,
				    FSAIO_LOG_VERSION);
	memcpy(h->magic, FSAIO_LOG_MAGIC, sizeof(h->magic));
	h->log_version = version;
	h->record_size = sizeof(struct fsaio_record);
	h->record_version = FSAIO_RECORD_VERSION;
	for (p = start + n; *p; p = next) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (!strncmp(p, "label=", 6)) {	/* the rest of the line */
			snprintf(h->label, sizeof(h->label), "%s", p + 6);
			break;
		}
		next = p + strcspn(p, " ");
		if (*next)
			*next++ = '\0';
		if (!strncmp(p, "features=", 9)) {
			if (parse_features(p + 9, &h->features, err, errlen))
				return -EINVAL;
		} else if (!strncmp(p, "release=", 8)) {
			snprintf(h->release, sizeof(h->release), "%s", p + 8);
		} else {
			return fsaio_reject(err, errlen, "unknown header field '%.20s'", p);
		}
	}
	if (!h->release[0])
		return fsaio_reject(err, errlen, "the header names no release= (uname -r of the traced kernel)");
	*linep = lineno;
	return 0;
}

int fsaio_text_read(FILE *f, unsigned long *lineno, struct fsaio_record *rec,
		    char *err, size_t errlen)
{
	char line[FSAIO_TEXT_LINE_MAX + 1];
	int ret;

	for (;;) {
		ret = get_line(f, line, sizeof(line), lineno, err, errlen);
		if (ret == 0)
			return ferror(f) ? fsaio_reject(err, errlen, "read error after line %lu",
						  *lineno) : 0;
		if (ret < 0)
			return ret;
		if (line[0] == '#' || !line[0])
			continue;
		return fsaio_text_parse_record(line, *lineno, rec, err, errlen) ? -EINVAL : 1;
	}
}

int fsaio_text_write(FILE *f, const struct fsaio_record *r)
{
	uint32_t i, n;

	fputc('R', f);
	for (i = 0; i < NR_TEXT_FIELDS; i++) {
		const struct text_field *tf = &text_fields[i];
		uint64_t v = load(r, tf);

		if (tf->form == SIGNED)
			fprintf(f, " %s=%" PRId64, tf->name, (int64_t)v);
		else
			fprintf(f, tf->form == HEX ? " %s=%#" PRIx64 : " %s=%" PRIu64, tf->name, v);
	}
	fputs(" stack=", f);
	/* TRACE_END: the drop counts per cause (fsaio_end_drops()) */
	n = r->type == FSAIO_EV_TRACE_END ? FSAIO_DROP__COUNT : r->nr_stack;
	if (n > FSAIO_STACK_DEPTH)
		n = FSAIO_STACK_DEPTH;
	for (i = 0; i < n; i++)
		fprintf(f, "%s%#" PRIx64, i ? "," : "", (uint64_t)r->stack[i]);
	if (fprintf(f, "%s comm=%.*s\n", n ? "" : "-", FSAIO_COMM_LEN, r->comm) < 0)
		return -EIO;
	return 0;
}
