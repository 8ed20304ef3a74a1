/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text event logs: what stap/fsaio.stp writes, read by `fsaio replay` like
 * a --record log.  Pure (no libbpf, no live system).  Format, a line each
 * (stap/README.md):
 *
 *   fsaio-text 1 features=NAME,... release=6.12.118 label=CMD ARGS header
 *   R type=1 cpu=0 ts=... seq=1 pid=.. tgid=.. ... comm=fio        record
 *   # anything                                                     comment
 *
 * A record line names struct fsaio_record's fields (bpf/fsaio.h): type cpu
 * ts seq pid tgid req user_data engine site ctx flags res arg0 arg1 arg2
 * ring nr_stack, stack (comma-separated addresses, "-" for none) and comm,
 * which takes the rest of the line.  Numbers are decimal or 0x-hex.  A
 * record without every field (a line cut short), with an unknown field, a
 * bad number or an event fsaio_decode() refuses is rejected with its line
 * number.
 */
#ifndef FSAIO_CORE_TEXTLOG_H
#define FSAIO_CORE_TEXTLOG_H

#include <stdio.h>
#include "core/decode.h"

#define FSAIO_TEXT_MAGIC "fsaio-text"
/* The longest line a reader takes, newline excluded: a record line with
 * every field at its widest and 16 stack frames is about 700 bytes; the
 * header's label (127) and release (127) fit too. */
#define FSAIO_TEXT_LINE_MAX	1023

/* Does this log start like a text log? (f is rewound) */
int fsaio_text_detect(FILE *f);

/* The header line into h (magic/record size/version filled as a binary
 * log's).  Returns 0, or -EINVAL with the reason in err. */
int fsaio_text_read_header(FILE *f, struct fsaio_log_header *h, char *err, size_t errlen);
/* The same, and *lineno = the lines read (comments and blank lines before
 * the header included), where fsaio_text_read() counts on from. */
int fsaio_text_read_header_at(FILE *f, struct fsaio_log_header *h, unsigned long *lineno,
			      char *err, size_t errlen);

/* One record line (without its newline) into out.  lineno only names the
 * line in err.  Returns 0 or -EINVAL. */
int fsaio_text_parse_record(const char *line, unsigned long lineno, struct fsaio_record *out,
			    char *err, size_t errlen);

/* The next record: 1 with one, 0 at end of file, -EINVAL as above.
 * *lineno counts the lines read. */
int fsaio_text_read(FILE *f, unsigned long *lineno, struct fsaio_record *rec,
		    char *err, size_t errlen);

/* Write h as the header line: features by their names (features.h).
 * Returns 0 or -errno. */
int fsaio_text_write_header(FILE *f, const struct fsaio_log_header *h);

/* Write r as a record line (with its newline).  Returns 0 or -errno. */
int fsaio_text_write(FILE *f, const struct fsaio_record *r);

#endif
