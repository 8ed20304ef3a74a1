/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reports over finished runs (core/verdict.h: struct run_result): KTAP
 * lines (ktap.c), human text tables (text.c) and the --json summary
 * (json.c).  They print what the core decided; no verdict is made here.
 */
#ifndef FSAIO_REPORT_H
#define FSAIO_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "core/checker.h"

/*
 * Kernel stacks in reports are symbolized by whoever knows the kernel (the
 * live tracer's kallsyms, or replay's when the log is from this boot):
 * fn(pc, ctx) gives the symbol containing pc and *off, or NULL; unset,
 * frames print as addresses.
 */
typedef const char *(*report_symbolize_fn)(uint64_t pc, uint64_t *off, void *ctx);
void report_set_symbolizer(report_symbolize_fn fn, void *ctx);
/* "folio_wait_bit_common+0x1c <- filemap_read+0x2f0 <- ...": the frames
 * of k, scheduler frames left out, into buf. */
const char *report_stack_text(const struct inv_stack *k, char *buf, size_t len);

/* KTAP: "KTAP version 1" + plan, then one subtest per run. */
void report_ktap_header(FILE *f, int nr_runs);
void report_ktap_run(FILE *f, int index, const struct run_result *r);

/* Human tables: engine counts and the wait-site x context table with
 * log2 latency histograms. */
void report_text_stats(FILE *f, const struct checker_stats *s);
/* Per wait site, the n most frequent sleep stacks (cfg.keep_stacks). */
void report_text_top_stacks(FILE *f, const struct checker *c, int n);

/* " (ringbuf N, seq_gap M, ...)": the causes of loss, nothing without. */
void report_text_losses(FILE *f, const struct checker_stats *s);

/* Version of the --json summary.  2: lost_by_cause, invariants' stacks[],
 * engines.*.other_sleeps_in_submit/other_sleep_ns/failed_init/cq_overflow/
 * cq_dropped, kernel.features.libaio_async (1 had none of them). */
#define REPORT_JSON_SCHEMA	2

/* The --json summary (schema in docs/reporting.md).  mode is "check",
 * "trace" or "replay".  Returns 0 or -errno with a reason in err. */
int report_json_write(const char *path, const char *mode, const char *release,
		      uint32_t features, struct run_result *runs, int nr_runs,
		      char *err, size_t errlen);

/* Write the JSON summary when path is set; returns the verdict, made ERROR
 * when the file cannot be written (the reason printed). */
enum verdict report_json(const char *path, const char *mode, const char *release,
			 uint32_t features, struct run_result *runs, int nr_runs,
			 enum verdict v);

#endif
