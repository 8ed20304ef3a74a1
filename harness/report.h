/* SPDX-License-Identifier: GPL-2.0 */
/* Reports: KTAP lines, human text tables, and the --json summary. */
#ifndef FSAIO_REPORT_H
#define FSAIO_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "checker.h"

/* Checks that are about the workload rather than the trace. */
enum run_check_id {
	RUN_CHECK_EXIT,		/* "workload_exit": the workload's own verdict (data verified) */
	RUN_CHECK_AGREEMENT,	/* "workload_agreement": its counts == traced counts */
	RUN_CHECK__COUNT,
};

/* One traced run: a named workload or a command. */
struct run_result {
	char name[64];
	char command[1024];
	struct checker *checker;	/* finished; owned */
	struct invariant_result run_checks[RUN_CHECK__COUNT];
	int exit_status;		/* of the workload, -1 if it did not exit */
	double wall_seconds;
	char summary_line[512];	/* workload's "fsaio-workload:" line or fio totals */
};

/* Verdict of a whole run: the worst of its lines. */
enum verdict run_verdict(const struct run_result *r);

/* KTAP: "KTAP version 1" + plan, then one subtest per run. */
void report_ktap_header(FILE *f, int nr_runs);
void report_ktap_run(FILE *f, int index, const struct run_result *r);

/* Human tables: engine counts and the wait-site x context table with
 * log2 latency histograms. */
void report_text_stats(FILE *f, const struct checker_stats *s);

/* The --json summary (schema in README "JSON summary").  mode is "check",
 * "trace" or "replay".  Returns 0 or -errno with a reason in err. */
int report_json_write(const char *path, const char *mode, const char *release,
		      uint32_t features, struct run_result *runs, int nr_runs,
		      char *err, size_t errlen);

/* Map a verdict to a kselftest exit code. */
int verdict_exit_code(enum verdict v);

/* Feature bits (tracer.h FEAT_*) to names, for text and JSON. */
const char *feature_name(unsigned bit);

#endif
