// SPDX-License-Identifier: GPL-2.0
/*
 * fsaio bench show [--all] FILE: one benchmark result (bench.json, schema
 * fsaio-bench/1) as the table `make bench` prints: its parts, every figure
 * with its spread and sample count, every ratio with its goal, then the
 * goals section (figure, was, now, goal, result) when the file has one.  The command
 * is dispatched by cmd_bench (bench.c); the file is read by
 * results/resultset.c, as fsaio compare reads it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "cmd/commands.h"
#include "common.h"
#include "results/resultset.h"

/* Text folded at spaces to lines of at most width columns, indented. */
static void print_wrapped(const char *s, int indent, int width)
{
	while (*s) {
		int len = strlen(s), cut = len;

		if (len > width - indent) {
			for (cut = width - indent; cut > 0 && s[cut] != ' '; cut--)
				;
			if (!cut)
				for (cut = width - indent; s[cut] && s[cut] != ' '; cut++)
					;
		}
		printf("%*s%.*s\n", indent, "", cut, s);
		s += cut;
		while (*s == ' ')
			s++;
	}
}

static void show_parts(const struct resultset *rs)
{
	size_t i;

	if (!rs->parts)
		return;
	printf("%-14s %-8s %s\n", "part", "status", "detail");
	for (i = 0; i < json_object_array_length(rs->parts); i++) {
		json_object *p = json_object_array_get_idx(rs->parts, i);
		const char *st = jstr(p, "status"), *reason = jstr(p, "reason");
		double secs;

		printf("%-14s %-8s", jstr(p, "name") ? jstr(p, "name") : "?",
		       st ? (strcmp(st, "ok") ? st : "ok") : "?");
		if (reason)
			printf(" %s", reason);
		if (jnum(p, "seconds", &secs))
			printf("%s%.0f s", reason ? "; " : " ", secs);
		putchar('\n');
	}
	putchar('\n');
}

/*
 * The goals bench.json carries (ci/bench/bench.jq "goals": computed from the
 * figures at merge time): each with what it was, what it is now, the goal
 * and whether it is met, missed by how much, or not measured.
 */
static int show_goals(json_object *root, int *met, int *missed)
{
	json_object *goals;
	size_t i, n;

	if (!json_object_object_get_ex(root, "goals", &goals) ||
	    !json_object_is_type(goals, json_type_array))
		return 0;
	n = json_object_array_length(goals);
	printf("\ngoals\n");
	for (i = 0; i < n; i++) {
		json_object *g = json_object_array_get_idx(goals, i), *m;
		const char *fig = jstr(g, "figure"), *res = jstr(g, "result");
		char line[1024];

		print_wrapped(fig ? fig : "?", 2, 96);
		snprintf(line, sizeof(line), "was %s; now %s; goal %s",
			 jstr(g, "was") ? jstr(g, "was") : "?", jstr(g, "now") ? jstr(g, "now") : "?",
			 jstr(g, "goal") ? jstr(g, "goal") : "?");
		print_wrapped(line, 6, 96);
		snprintf(line, sizeof(line), "=> %s", res ? res : "?");
		print_wrapped(line, 6, 96);
		if (json_object_object_get_ex(g, "met", &m) &&
		    json_object_is_type(m, json_type_boolean))
			(*(json_object_get_boolean(m) ? met : missed))++;
	}
	return (int)n;
}

/*
 * A percentile figure other than p50 and p99 (id ending in _p<N>): shown
 * only with --all; the CDF plots and bench.json have them all.
 */
static bool minor_percentile(const char *id)
{
	const char *u = strrchr(id, '_');

	if (!u || u[1] != 'p' || !u[2] || strspn(u + 2, "0123456789.") != strlen(u + 2))
		return false;
	return strcmp(u, "_p50") && strcmp(u, "_p99");
}

int bench_show(const char *path, bool all)
{
	struct resultset rs;
	char err[512], v[48], sd[48], n[16];
	int w, missed = 0, met = 0, hidden = 0, gmet = 0, gmissed = 0, ngoals;
	size_t i;
	int ret;

	ret = rs_load(&rs, path, err, sizeof(err));
	if (ret) {
		fsaio_err("%s", err);
		rs_free(&rs);
		return ret;
	}
	if (rs.kind != RS_BENCH) {
		fsaio_err("%s: %s is not a benchmark result; see 'fsaio compare'", path, rs.schema);
		rs_free(&rs);
		return EXIT_USAGE;
	}
	printf("fsaio bench: %s (%s%s%s%s%s)\n\n", path, rs.schema,
	       rs.kernel ? ", host kernel " : "", rs.kernel ? rs.kernel : "",
	       rs.generated ? ", " : "", rs.generated ? rs.generated : "");
	show_parts(&rs);
	w = rs_id_width(&rs, NULL);
	printf("%-*s %14s %12s %-12s %s\n", w, "figure", "value", "± stddev", "unit", "n");
	for (i = 0; i < rs.n; i++) {
		const struct figure *f = &rs.fig[i];

		if (f->is_ratio)
			continue;
		if (!all && minor_percentile(f->id)) {
			hidden++;
			continue;
		}
		printf("%-*s %14s %12s %-12s %s\n", w, f->id,
		       rs_fmt_num(f->value, v, sizeof(v)), isnan(f->noise) ? "" :
		       rs_fmt_num(f->noise, sd, sizeof(sd)), f->unit,
		       f->nsamples ? (snprintf(n, sizeof(n), "%d", f->nsamples), n) : "");
	}
	if (hidden)
		printf("(%d more percentile figures, other than p50 and p99: 'fsaio bench show --all')\n",
		       hidden);
	printf("\n%-*s %14s %12s %-10s %s\n", w, "ratio", "value", "± stddev", "goal", "result");
	for (i = 0; i < rs.n; i++) {
		const struct figure *f = &rs.fig[i];

		if (!f->is_ratio)
			continue;
		printf("%-*s %14s %12s %-10s %s\n", w, f->id,
		       isnan(f->value) ? "-" : (snprintf(v, sizeof(v), "%.4f", f->value), v),
		       isnan(f->noise) ? "" : (snprintf(sd, sizeof(sd), "%.4f", f->noise), sd),
		       f->goal ? f->goal : "",
		       f->met < 0 ? "" : f->met ? "met" : "MISSED");
		if (f->note)
			print_wrapped(f->note, 4, 96);
		if (f->met == 1)
			met++;
		else if (f->met == 0)
			missed++;
	}
	printf("\nratio goals: %d met, %d missed\n", met, missed);
	ngoals = show_goals(rs.root, &gmet, &gmissed);
	if (ngoals)
		printf("\ngoals: %d met, %d missed, %d not measured or open\n", gmet, gmissed,
		       ngoals - gmet - gmissed);
	rs_free(&rs);
	return EXIT_PASS;
}
