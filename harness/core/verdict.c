// SPDX-License-Identifier: GPL-2.0
/* How verdicts combine: of checks into a run, of runs into an invocation,
 * and into its exit status.  The invariants' own rules are rules.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/checker.h"
#include "core/verdict.h"
#include "exit_status.h"

void invariant_set(struct invariant_result *ir, const char *name,
		   enum verdict v, uint64_t observations, const char *fmt, ...)
{
	va_list ap;

	ir->name = name;
	ir->verdict = v;
	ir->observations = observations;
	va_start(ap, fmt);
	vsnprintf(ir->detail, sizeof(ir->detail), fmt, ap);
	va_end(ap);
}

void run_results_free(struct run_result *runs, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		checker_free(runs[i].checker);
	free(runs);
}

const char *verdict_name(enum verdict v)
{
	static const char *const n[] = { "pass", "fail", "xfail", "skip", "error" };

	return (unsigned)v < sizeof(n) / sizeof(n[0]) ? n[v] : "?";
}

/*
 * The one verdict ladder: an aggregate is its worst member by ERROR > FAIL >
 * XFAIL > PASS > SKIP, so it is SKIP only when nothing ran (PASS + SKIP =
 * PASS, as in kselftest_harness); harness/exit_status.h documents the
 * ladder and the exit status each verdict makes.
 */
static int severity(enum verdict v)
{
	switch (v) {
	case VERDICT_ERROR:	return 4;
	case VERDICT_FAIL:	return 3;
	case VERDICT_XFAIL:	return 2;
	case VERDICT_PASS:	return 1;
	default:		return 0;
	}
}

enum verdict verdict_worse(enum verdict a, enum verdict b)
{
	return severity(b) > severity(a) ? b : a;
}

/*
 * A program that skipped itself (its skip code: it found nothing to test
 * here) makes its run a SKIP: what the other checks passed on is a
 * program that did nothing, and a skip is never reported as a pass.  A
 * failure or an error among them still counts.
 */
enum verdict run_verdict(const struct run_result *r)
{
	bool skipped = r->skipped_itself;
	enum verdict v = VERDICT_SKIP, c;
	int i;

	for (i = 0; i < INV__COUNT + RUN_CHECK__COUNT; i++) {
		c = i < INV__COUNT ? checker_result(r->checker, i)->verdict :
				     r->run_checks[i - INV__COUNT].verdict;
		if (skipped && c != VERDICT_FAIL && c != VERDICT_ERROR)
			continue;
		v = verdict_worse(v, c);
	}
	return v;
}

int verdict_exit_code(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS:
	case VERDICT_XFAIL:
		return EXIT_PASS;
	case VERDICT_SKIP:
		return EXIT_SKIP;
	case VERDICT_ERROR:
		return EXIT_ERROR;
	default:
		return EXIT_FAIL;
	}
}
