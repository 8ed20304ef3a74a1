/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verdicts: of one check, of one traced run (its checks and the checker's
 * invariants), and of many runs as an exit status.  How the checker decides
 * each invariant's verdict is core/rules.c; how verdicts combine, and what
 * exit status they make, is here (verdict.c).  The reports only print what
 * the core decided.
 */
#ifndef FSAIO_CORE_VERDICT_H
#define FSAIO_CORE_VERDICT_H

#include <stdint.h>
#include "bpf/fsaio.h"

enum verdict {
	VERDICT_PASS,
	VERDICT_FAIL,
	VERDICT_XFAIL,	/* known kernel limitation, measured (stock libaio blocking) */
	VERDICT_SKIP,	/* not observable here, or nothing to check */
	VERDICT_ERROR,	/* the trace itself cannot be trusted (lost records, malformed) */
};

/* A kernel stack behind a verdict (the offending sleeps), innermost first. */
struct inv_stack {
	uint8_t site;		/* enum fsaio_wait_site */
	uint8_t ctx;		/* enum fsaio_context */
	uint32_t pid;
	uint64_t ns;
	uint32_t nr;
	uint64_t pc[FSAIO_STACK_DEPTH];
};
#define INV_MAX_STACKS 3

/* One named check: an invariant of the checker or a check of the run. */
struct invariant_result {
	const char *name;	/* stable: "trace_integrity", "exactly_once", ... */
	enum verdict verdict;
	uint64_t observations;	/* how many things were checked */
	char detail[512];	/* one line: counts, or the offending request id
				 * and its event sequence on failure */
	uint32_t nr_stacks;	/* the first offending sleeps, with stacks */
	struct inv_stack stacks[INV_MAX_STACKS];
};

void invariant_set(struct invariant_result *ir, const char *name,
		   enum verdict v, uint64_t observations, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Checks that are about the workload rather than the trace. */
enum run_check_id {
	RUN_CHECK_EXIT,		/* "workload_exit": the workload's own verdict (data verified) */
	RUN_CHECK_AGREEMENT,	/* "workload_agreement": its counts == traced counts */
	RUN_CHECK_RESOURCES,	/* "workload_resources": kernel resources back to baseline */
	RUN_CHECK__COUNT,
};

struct checker;

/* One traced run: a named workload or a command. */
struct run_result {
	char name[64];
	char command[1024];
	struct checker *checker;	/* finished; owned */
	struct invariant_result run_checks[RUN_CHECK__COUNT];
	int exit_status;		/* of the workload, -1 if it did not exit */
	bool skipped_itself;		/* it exited with its skip code: the run is a SKIP */
	double wall_seconds;
	char summary_line[512];	/* workload's "fsaio-workload:" line or fio totals */
};

/* Free the checkers of nr runs and the array. */
void run_results_free(struct run_result *runs, int nr);

const char *verdict_name(enum verdict v);	/* "pass", "fail", ... */

/* Worst of two verdicts, the one ladder of every aggregate (verdict.c):
 * ERROR > FAIL > XFAIL > PASS > SKIP. */
enum verdict verdict_worse(enum verdict a, enum verdict b);

/* FAIL and ERROR print as "not ok" in KTAP. */
static inline int verdict_is_ok(enum verdict v)
{
	return v != VERDICT_FAIL && v != VERDICT_ERROR;
}

/* Verdict of a whole run: the worst of its checks and invariants. */
enum verdict run_verdict(const struct run_result *r);

/* The exit status (harness/exit_status.h) of an aggregate verdict. */
int verdict_exit_code(enum verdict v);

#endif
