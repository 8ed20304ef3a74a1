// SPDX-License-Identifier: GPL-2.0
/* KTAP: one subtest per run, one line per check (kselftest, kunit.py parse). */
#include <inttypes.h>
#include <stdio.h>
#include "report/report.h"

/*
 * What a command, a workload's output or a file name puts into a KTAP line
 * stays inside that line: control characters (a newline would start a
 * line of its own, "not ok 1 injected") are written as \xHH.  In a test
 * name '#' becomes '_' too: " # SKIP" there would be a directive.
 */
static const char *esc(const char *s, char *buf, size_t size, bool name)
{
	size_t n = 0;

	for (; *s && n + 5 < size; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c == 0x7f) {
			n += snprintf(buf + n, size - n, "\\x%02x", c);
			continue;
		}
		if (name && c == '#' && (!n || buf[n - 1] == ' '))
			c = '_';
		buf[n++] = c;
	}
	buf[n] = '\0';
	return buf;
}

static void ktap_line(FILE *f, const char *indent, int n,
		      const struct invariant_result *ir)
{
	const char *ok = "ok";
	const char *directive = "";

	switch (ir->verdict) {
	case VERDICT_PASS:
		break;
	case VERDICT_XFAIL:
		directive = " # XFAIL";
		break;
	case VERDICT_SKIP:
		directive = " # SKIP";
		break;
	case VERDICT_FAIL:
	case VERDICT_ERROR:
		ok = "not ok";
		break;
	}
	char detail[4 * sizeof(ir->detail)];

	esc(ir->detail, detail, sizeof(detail), false);
	/* Diagnostics first, so a parser sees them attached to the line. */
	if (ir->verdict == VERDICT_FAIL || ir->verdict == VERDICT_ERROR)
		fprintf(f, "%s# %s: %s%s\n", indent, ir->name,
			ir->verdict == VERDICT_ERROR ? "ERROR: " : "", detail);
	else if (ir->verdict == VERDICT_PASS && ir->detail[0])
		fprintf(f, "%s# %s: %s\n", indent, ir->name, detail);
	/* Where the sleeps behind the verdict waited (the offending ones, or
	 * the other sleeps a pass names): a reader can tell a page wait from
	 * a request tag without rerunning anything. */
	if (ir->verdict != VERDICT_SKIP) {
		char buf[1024], ebuf[4 * sizeof(buf)];
		uint32_t i;

		for (i = 0; i < ir->nr_stacks; i++)
			fprintf(f, "%s# stack: pid %u, %s, %.3f ms: %s\n", indent,
				ir->stacks[i].pid, wait_site_name(ir->stacks[i].site),
				ir->stacks[i].ns / 1e6,
				esc(report_stack_text(&ir->stacks[i], buf, sizeof(buf)),
				    ebuf, sizeof(ebuf), false));
	}
	fprintf(f, "%s%s %d %s%s%s%s\n", indent, ok, n, ir->name, directive,
		directive[0] && ir->detail[0] ? " " : "",
		directive[0] ? detail : "");
}

void report_ktap_header(FILE *f, int nr_runs)
{
	fprintf(f, "KTAP version 1\n1..%d\n", nr_runs);
}

void report_ktap_run(FILE *f, int index, const struct run_result *r)
{
	enum verdict v = run_verdict(r);
	char name[4 * sizeof(r->name)], cmd[4 * sizeof(r->command)];
	int n = 0, i;

	esc(r->name, name, sizeof(name), true);
	fprintf(f, "    KTAP version 1\n    # Subtest: %s\n", name);
	fprintf(f, "    # command: %s\n", esc(r->command, cmd, sizeof(cmd), false));
	fprintf(f, "    1..%d\n", INV__COUNT + RUN_CHECK__COUNT);
	for (i = 0; i < RUN_CHECK__COUNT; i++)
		ktap_line(f, "    ", ++n, &r->run_checks[i]);
	for (i = 0; i < INV__COUNT; i++)
		ktap_line(f, "    ", ++n, checker_result(r->checker, i));
	fprintf(f, "%s %d %s%s\n", !verdict_is_ok(v) ? "not ok" : "ok",
		index, name, v == VERDICT_SKIP ? " # SKIP" : "");
}
