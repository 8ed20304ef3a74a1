// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a byte buffer read as an event log, binary or text,
 * the way `fsaio replay` reads one (harness/cmd/replay.c), through the
 * pure core only: fsaio_text_detect() picks the reader, the header and
 * every record go through the core's readers, and each trace segment
 * (TRACE_END closes one) is fed to a checker of its own and finished.
 *
 * The segment loop mirrors replay.c's rather than sharing it: replay's
 * loop is interleaved with the live side (kernel symbols for a text log's
 * sleeps, --text output, run reports), and a core function for it would
 * need callbacks for each.  Keep the two in step: the closing record
 * (fsaio_is_log_end) ends the log, a record after it ends the replay, a
 * record the reader refuses is noted as malformed in the open segment.
 *
 * Built with -fsanitize=fuzzer,address,undefined against the core built
 * with the same flags (make fuzz, tests/fuzz/README.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/checker.h"
#include "core/decode.h"
#include "core/features.h"
#include "core/textlog.h"
#include "core/verdict.h"

/* Every result and statistic of a finished checker, read: a verdict or
 * detail left unset would show as uninitialised memory under MSan and as
 * a wild pointer under ASan. */
static unsigned touch(const struct checker *c)
{
	const struct checker_stats *st = checker_stats(c);
	unsigned sum = 0;
	int i;

	for (i = 0; i < INV__COUNT; i++) {
		const struct invariant_result *ir = checker_result(c, i);

		sum += ir->verdict + (unsigned)strlen(ir->detail) + ir->nr_stacks;
		if (ir->nr_stacks > INV_MAX_STACKS || !ir->name)
			abort();
	}
	return sum + (unsigned)(st->records + st->lost + st->malformed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fsaio_log_header h;
	struct checker_config cfg;
	struct checker *cur = NULL;
	struct fsaio_record rec;
	unsigned long lineno = 0;
	char *text = NULL;
	size_t text_len = 0;
	FILE *f, *out;
	char err[512];
	bool is_text, closed = false;
	int ret, segments = 0;
	volatile unsigned sink = 0;

	if (!size)
		return 0;	/* fmemopen() refuses an empty buffer */
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	is_text = fsaio_text_detect(f);
	if (is_text ? fsaio_text_read_header_at(f, &h, &lineno, err, sizeof(err)) :
		      fsaio_log_read_header(f, &h, err, sizeof(err))) {
		fclose(f);
		return 0;
	}
	/* The writer too (replay --text): every record read is written. */
	out = open_memstream(&text, &text_len);
	if (out)
		fsaio_text_write_header(out, &h);
	cfg = checker_config_for(h.features);
	for (;;) {
		ret = is_text ? fsaio_text_read(f, &lineno, &rec, err, sizeof(err)) :
				fsaio_log_read(f, &rec, err, sizeof(err));
		if (ret == 0 || closed)
			break;	/* end of file, or a record after the closing one */
		if (ret > 0 && fsaio_is_log_end(&rec)) {
			closed = true;
			continue;
		}
		if (!cur) {
			cur = checker_new(&cfg);
			if (!cur)
				break;
			segments++;
		}
		if (ret < 0) {
			checker_note_malformed(cur, err);
			break;
		}
		if (out)
			fsaio_text_write(out, &rec);
		checker_feed(cur, &rec);
		if (rec.type == FSAIO_EV_TRACE_END) {
			checker_finish(cur);
			sink += touch(cur);
			checker_free(cur);
			cur = NULL;
		}
	}
	if (cur) {	/* cut short: no TRACE_END */
		checker_finish(cur);
		sink += touch(cur);
		checker_free(cur);
	}
	if (out)
		fclose(out);
	free(text);
	fclose(f);
	(void)sink;
	(void)segments;
	return 0;
}
