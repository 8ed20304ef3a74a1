// SPDX-License-Identifier: GPL-2.0
/*
 * fsaio compare A.json B.json   two result sets side by side, B/A, noise
 *
 * Both files are read into figures by results/resultset.c (a benchmark
 * result or a check/trace/replay --json file, not one of each); the noise
 * of a figure is results/stats.h's.  The rule that marks a difference is
 * classify()'s, also in --help.
 */
#include <argp.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "cmd/commands.h"
#include "common.h"
#include "results/resultset.h"

/* Differences beyond NOISE_K * (noise_A + noise_B) are significant. */
#define NOISE_K			2.0

/* A figure as value±noise, its text, or (absent) if the set lacks it. */
static const char *fmt_val(const struct figure *f, char *buf, size_t len)
{
	char a[40], b[40];

	if (!f)
		snprintf(buf, len, "(absent)");
	else if (f->text)
		snprintf(buf, len, "%s", f->text);
	else if (!isnan(f->noise) && !isnan(f->value))
		snprintf(buf, len, "%s±%s", rs_fmt_num(f->value, a, sizeof(a)),
			 rs_fmt_num(f->noise, b, sizeof(b)));
	else
		snprintf(buf, len, "%s", rs_fmt_num(f->value, a, sizeof(a)));
	return buf;
}

static const struct figure *rs_find(const struct resultset *rs, const char *id,
				    bool is_ratio)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (rs->fig[i].is_ratio == is_ratio && !strcmp(rs->fig[i].id, id))
			return &rs->fig[i];
	return NULL;
}

enum mark { M_SAME, M_NOISE, M_SIGNIFICANT, M_UNKNOWN, M_TEXT, M_ABSENT, M_UNIT };

static const char *const mark_str[] = {
	[M_SAME] = "", [M_NOISE] = "~", [M_SIGNIFICANT] = "*", [M_UNKNOWN] = "?",
	[M_TEXT] = "!", [M_ABSENT] = "-", [M_UNIT] = "unit?",
};

/*
 * The rule (also in --help): with noise_X the recorded stddev of a figure
 * in set X (or the standard deviation of its samples), a difference is
 * significant when |B - A| > 2 * (noise_A + noise_B).  A noise figure
 * missing on one side counts as 0; missing on both sides, a difference is
 * marked "?" (a counter from a check result: exact, but no run-to-run
 * spread is known).
 */
static enum mark classify(const struct figure *a, const struct figure *b)
{
	double na, nb;

	if (!a || !b)
		return M_ABSENT;
	if (a->text || b->text)
		return a->text && b->text && !strcmp(a->text, b->text) ? M_SAME : M_TEXT;
	if (strcmp(a->unit, b->unit))
		return M_UNIT;
	if (isnan(a->value) || isnan(b->value))
		return isnan(a->value) && isnan(b->value) ? M_SAME : M_ABSENT;
	if (a->value == b->value)
		return M_SAME;
	na = a->noise;
	nb = b->noise;
	if (isnan(na) && isnan(nb))
		return M_UNKNOWN;
	if (isnan(na))
		na = 0;
	if (isnan(nb))
		nb = 0;
	return fabs(b->value - a->value) > NOISE_K * (na + nb) ? M_SIGNIFICANT : M_NOISE;
}

static bool zero_row(const struct figure *a, const struct figure *b)
{
	return (!a || (!a->text && a->value == 0)) && (!b || (!b->text && b->value == 0));
}

struct cmp_opts {
	bool changed_only;
	bool strict;
	bool all;
};

static void print_header(const struct resultset *rs, const char *label)
{
	printf("%s = %s (%s%s%s%s%s)\n", label, rs->path, rs->schema,
	       rs->kernel ? ", kernel " : "", rs->kernel ? rs->kernel : "",
	       rs->generated ? ", " : "", rs->generated ? rs->generated : "");
}

static void print_parts_status(const struct resultset *rs, const char *label)
{
	size_t i;

	if (!rs->parts)
		return;
	for (i = 0; i < json_object_array_length(rs->parts); i++) {
		json_object *p = json_object_array_get_idx(rs->parts, i);
		const char *st = jstr(p, "status");

		if (st && strcmp(st, "ok"))
			printf("  %s: part %s %s: %s\n", label,
			       jstr(p, "name") ? jstr(p, "name") : "?", st,
			       jstr(p, "reason") ? jstr(p, "reason") : "(no reason given)");
	}
}

/* One section (figures or ratios); returns the number of "*" and "!" rows. */
static int compare_section(const struct resultset *a, const struct resultset *b,
			   bool ratios, const struct cmp_opts *o, int w, int *shown)
{
	char va[64], vb[64], r[32];
	int flagged = 0, pass;
	size_t i;

	/* pass 0: ids of A in A's order; pass 1: ids only in B */
	for (pass = 0; pass < 2; pass++) {
		const struct resultset *s = pass ? b : a;

		for (i = 0; i < s->n; i++) {
			const struct figure *fa, *fb, *any;
			enum mark m;

			if (s->fig[i].is_ratio != ratios)
				continue;
			fa = pass ? rs_find(a, s->fig[i].id, ratios) : &s->fig[i];
			fb = pass ? &s->fig[i] : rs_find(b, s->fig[i].id, ratios);
			if (pass && fa)
				continue;	/* shown in pass 0 */
			m = classify(fa, fb);
			if (m == M_SIGNIFICANT || m == M_TEXT)
				flagged++;
			if (o->changed_only && m == M_SAME)
				continue;
			if (!o->all && a->kind == RS_CHECK && zero_row(fa, fb))
				continue;
			any = fa ? fa : fb;
			r[0] = 0;
			/* a ratio of signed differences (added ns) means nothing */
			if (fa && fb && !fa->text && !fb->text && fa->value > 0 &&
			    fb->value >= 0)
				snprintf(r, sizeof(r), "%.3f", fb->value / fa->value);
			if (!*shown)
				printf("%-*s %18s %18s %8s %-12s %s\n", w,
				       ratios ? "ratio" : "figure", "A", "B", "B/A", "unit", "");
			(*shown)++;
			printf("%-*s %18s %18s %8s %-12s %s\n", w, any->id,
			       fmt_val(fa, va, sizeof(va)), fmt_val(fb, vb, sizeof(vb)), r,
			       any->unit, mark_str[m]);
			if (ratios && fa && fb && (fa->goal || fb->goal))
				printf("%-*s   goal %s: A %s, B %s\n", w, "",
				       fb->goal ? fb->goal : fa->goal,
				       fa->met < 0 ? "-" : fa->met ? "met" : "MISSED",
				       fb->met < 0 ? "-" : fb->met ? "met" : "MISSED");
		}
	}
	return flagged;
}

static struct cmp_opts cmp_opts;
static const char *cmp_files[2];
static int cmp_nfiles;

static const struct argp_option compare_options[] = {
	{ "changed", 'c', NULL, 0, "show only figures that differ" },
	{ "all", 'a', NULL, 0, "check results: also show counters that are 0 in both" },
	{ "strict", 's', NULL, 0, "exit 1 when a difference is beyond noise (*) or a verdict changed (!)" },
	{},
};

static error_t compare_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'c':
		cmp_opts.changed_only = true;
		break;
	case 'a':
		cmp_opts.all = true;
		break;
	case 's':
		cmp_opts.strict = true;
		break;
	case ARGP_KEY_ARG:
		if (cmp_nfiles == 2)
			argp_error(state, "compare takes two files, not '%s'", arg);
		cmp_files[cmp_nfiles++] = arg;
		break;
	case ARGP_KEY_END:
		if (cmp_nfiles != 2)
			argp_error(state, "compare takes two result files: A.json B.json");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	static const struct argp argp = { compare_options, compare_parse, "A.json B.json",
		"Show two result sets side by side with the ratio B/A of every figure.\v"
		"A and B are both benchmark results (bench.json or a part of it, schema\n"
		"fsaio-bench/1, from `make bench`) or both `fsaio check`/`trace`/`replay`\n"
		"--json files (schema 1 or 2).  Figures are matched by id.\n\n"
		"Noise: a benchmark figure's noise is its recorded \"stddev\", else the\n"
		"standard deviation of its \"samples\".  A difference is significant when\n"
		"  |B - A| > 2 * (noise_A + noise_B)\n"
		"(a noise figure missing on one side counts as 0).  Marks:\n"
		"  *  beyond run-to-run noise       ~  within noise\n"
		"  ?  differs, no noise recorded (check results: exact counters and\n"
		"     timings without a spread)\n"
		"  !  a verdict or other text differs\n"
		"  -  the figure is in one set only, or was not measured in one\n"
		"  unit?  the units differ (no ratio)\n"
		"Values are shown as value±noise.  Counters that are 0 in both check\n"
		"results are left out unless --all.\n\n"
		"Exit status: 0 compared; 1 with --strict and a '*' or '!' row; 5 an\n"
		"internal error; 64 usage, a missing or unreadable file, a file that\n"
		"is not JSON or not an fsaio result, or two results of different kinds." };
	struct resultset a, b;
	char err[512];
	int ret, w, flagged, shown = 0;

	memset(&cmp_opts, 0, sizeof(cmp_opts));
	cmp_nfiles = 0;
	argp_err_exit_status = EXIT_USAGE;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return EXIT_USAGE;
	ret = rs_load(&a, cmp_files[0], err, sizeof(err));
	if (ret) {
		fsaio_err("%s", err);
		rs_free(&a);
		return ret;
	}
	ret = rs_load(&b, cmp_files[1], err, sizeof(err));
	if (ret) {
		fsaio_err("%s", err);
		rs_free(&a);
		rs_free(&b);
		return ret;
	}
	if (a.kind != b.kind) {
		fsaio_err("cannot compare %s (%s) with %s (%s): different kinds of result",
			  a.path, a.schema, b.path, b.schema);
		rs_free(&a);
		rs_free(&b);
		return EXIT_USAGE;
	}
	print_header(&a, "A");
	print_header(&b, "B");
	print_parts_status(&a, "A");
	print_parts_status(&b, "B");
	putchar('\n');
	w = rs_id_width(&a, &b);
	flagged = compare_section(&a, &b, false, &cmp_opts, w, &shown);
	if (a.kind == RS_BENCH) {
		int s2 = 0;

		putchar('\n');
		flagged += compare_section(&a, &b, true, &cmp_opts, w, &s2);
		shown += s2;
	}
	if (!shown)
		printf("(no figures to show)\n");
	printf("\n* beyond noise: |B-A| > 2*(noise_A+noise_B); ~ within noise; ? no noise "
	       "recorded; ! text differs; - in one set only\n");
	printf("%d difference%s beyond noise or in verdicts\n", flagged, flagged == 1 ? "" : "s");
	rs_free(&a);
	rs_free(&b);
	return cmp_opts.strict && flagged ? EXIT_FAIL : EXIT_PASS;
}
