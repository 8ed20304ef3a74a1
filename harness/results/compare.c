// SPDX-License-Identifier: GPL-2.0
/*
 * fsaio compare A.json B.json   two result sets side by side, B/A, noise
 *                               (noise: results/stats.h)
 * fsaio bench show FILE         one bench.json as the table `make bench` prints
 *                               (bench_show; the command itself is in bench.c)
 *
 * A result set is either a benchmark result (schema "fsaio-bench/1":
 * bench.json or one part of it, see ci/README.md) or an `fsaio check` /
 * `fsaio trace` / `fsaio replay` --json file (schema 1 or 2).  Both are reduced to
 * a list of named figures: a value, a unit and, where the file records one,
 * the run-to-run noise of that value (its stddev, or the standard deviation
 * of its samples).  A check result has counters and verdicts, no noise.
 */
#include <argp.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "cmd/commands.h"
#include "common.h"
#include "report/report.h"	/* REPORT_JSON_SCHEMA */
#include "results/stats.h"

#define BENCH_SCHEMA_PREFIX	"fsaio-bench/"
#define BENCH_SCHEMA_VERSION	1
/* Differences beyond NOISE_K * (noise_A + noise_B) are significant. */
#define NOISE_K			2.0

enum rs_kind { RS_BENCH, RS_CHECK };

struct figure {
	char *id;		/* owned */
	const char *unit;	/* borrowed from the JSON tree, "" if none */
	const char *text;	/* verdicts: a string instead of a number */
	const char *goal;	/* ratios */
	const char *note;
	double value;		/* NAN: not measured */
	double noise;		/* NAN: unknown */
	int nsamples;
	int met;		/* ratios: 1 met, 0 missed, -1 no goal */
	bool is_ratio;
};

struct resultset {
	const char *path;
	enum rs_kind kind;
	char schema[48];
	const char *kernel;
	const char *generated;
	json_object *root;
	json_object *parts;	/* bench: array, may be NULL */
	struct figure *fig;
	size_t n, cap;
};

/* ---------------------------------------------------------------- loading */

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool jnum(json_object *o, const char *key, double *out)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return false;
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return false;
	*out = json_object_get_double(v);
	return true;
}

static struct figure *rs_add(struct resultset *rs, const char *id)
{
	struct figure *f;

	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 64;
		struct figure *nf = realloc(rs->fig, cap * sizeof(*nf));

		if (!nf)
			return NULL;
		rs->fig = nf;
		rs->cap = cap;
	}
	f = &rs->fig[rs->n];
	memset(f, 0, sizeof(*f));
	f->id = strdup(id);
	if (!f->id)
		return NULL;
	f->unit = "";
	f->value = NAN;
	f->noise = NAN;
	f->met = -1;
	rs->n++;
	return f;
}

static void rs_free(struct resultset *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		free(rs->fig[i].id);
	free(rs->fig);
	if (rs->root)
		json_object_put(rs->root);
	memset(rs, 0, sizeof(*rs));
}

static int load_bench_list(struct resultset *rs, const char *key, bool ratios,
			   char *err, size_t errlen)
{
	json_object *arr;
	size_t i;

	if (!json_object_object_get_ex(rs->root, key, &arr)) {
		snprintf(err, errlen, "%s: no \"%s\" array (schema %s)", rs->path, key,
			 rs->schema);
		return -1;
	}
	if (!json_object_is_type(arr, json_type_array)) {
		snprintf(err, errlen, "%s: \"%s\" is not an array", rs->path, key);
		return -1;
	}
	for (i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i), *v;
		const char *id = jstr(o, "id");
		struct figure *f;

		if (!json_object_is_type(o, json_type_object) || !id || !*id) {
			snprintf(err, errlen, "%s: %s[%zu] has no \"id\" string", rs->path,
				 key, i);
			return -1;
		}
		f = rs_add(rs, id);
		if (!f) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		f->is_ratio = ratios;
		if (!jnum(o, "value", &f->value)) {
			/* null: not measured (an error or a skipped case) */
			if (json_object_object_get_ex(o, "value", &v) && v &&
			    !json_object_is_type(v, json_type_null)) {
				snprintf(err, errlen, "%s: %s \"%s\": value is not a number",
					 rs->path, key, id);
				return -1;
			}
		}
		if (jstr(o, "unit"))
			f->unit = jstr(o, "unit");
		f->goal = jstr(o, "goal");
		f->note = jstr(o, "note");
		if (json_object_object_get_ex(o, "met", &v) &&
		    json_object_is_type(v, json_type_boolean))
			f->met = json_object_get_boolean(v);
		if (json_object_object_get_ex(o, "samples", &v) &&
		    json_object_is_type(v, json_type_array)) {
			struct sample_stats st;

			if (!sample_stats_json(v, &st)) {
				f->noise = st.stddev;
				f->nsamples = st.n;
			}
		}
		/* An explicit spread wins over the one computed from samples. */
		jnum(o, "stddev", &f->noise);
	}
	return 0;
}

/* Flatten one "engines" object into <prefix>engines.<engine>.<counter>. */
static int flatten_engines(struct resultset *rs, json_object *engines, const char *prefix)
{
	char id[256];

	if (!engines || !json_object_is_type(engines, json_type_object))
		return 0;
	json_object_object_foreach(engines, ename, eobj) {
		if (!json_object_is_type(eobj, json_type_object))
			continue;
		json_object_object_foreach(eobj, cname, cval) {
			struct figure *f;

			if (!json_object_is_type(cval, json_type_int) &&
			    !json_object_is_type(cval, json_type_double))
				continue;
			snprintf(id, sizeof(id), "%sengines.%s.%s", prefix, ename, cname);
			f = rs_add(rs, id);
			if (!f)
				return -1;
			f->value = json_object_get_double(cval);
			f->unit = strstr(cname, "_ns") ? "ns" : "";
		}
	}
	return 0;
}

static int add_text(struct resultset *rs, const char *id, const char *text)
{
	struct figure *f;

	if (!text)
		return 0;
	f = rs_add(rs, id);
	if (!f)
		return -1;
	f->text = text;
	return 0;
}

static int add_num(struct resultset *rs, const char *id, json_object *o,
		   const char *key, const char *unit)
{
	struct figure *f;
	double v;

	if (!jnum(o, key, &v))
		return 0;
	f = rs_add(rs, id);
	if (!f)
		return -1;
	f->value = v;
	f->unit = unit;
	return 0;
}

static int flatten_invariants(struct resultset *rs, json_object *invs, const char *prefix)
{
	char id[256];
	size_t i;

	if (!invs || !json_object_is_type(invs, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(invs); i++) {
		json_object *o = json_object_array_get_idx(invs, i);
		const char *name = jstr(o, "name");

		if (!name)
			continue;
		snprintf(id, sizeof(id), "%sinvariants.%s", prefix, name);
		if (add_text(rs, id, jstr(o, "verdict")))
			return -1;
	}
	return 0;
}

static int flatten_wait_sites(struct resultset *rs, json_object *ws)
{
	static const char *const keys[] = { "count", "total_ns", "max_ns" };
	char id[256];
	size_t i, k;

	if (!ws || !json_object_is_type(ws, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(ws); i++) {
		json_object *o = json_object_array_get_idx(ws, i);
		const char *site = jstr(o, "site"), *ctx = jstr(o, "context");

		if (!site || !ctx)
			continue;
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			snprintf(id, sizeof(id), "wait_sites.%s.%s.%s", site, ctx, keys[k]);
			if (add_num(rs, id, o, keys[k], k ? "ns" : ""))
				return -1;
		}
	}
	return 0;
}

static int load_check(struct resultset *rs)
{
	json_object *runs;
	char prefix[200], id[256];
	size_t i;

	if (add_text(rs, "verdict", jstr(rs->root, "verdict")) ||
	    flatten_invariants(rs, json_object_object_get(rs->root, "invariants"), "") ||
	    add_num(rs, "lost_events", rs->root, "lost_events", "records") ||
	    flatten_engines(rs, json_object_object_get(rs->root, "engines"), "") ||
	    flatten_wait_sites(rs, json_object_object_get(rs->root, "wait_sites")))
		return -1;
	if (!json_object_object_get_ex(rs->root, "runs", &runs) ||
	    !json_object_is_type(runs, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(runs); i++) {
		json_object *r = json_object_array_get_idx(runs, i);
		const char *name = jstr(r, "name");

		if (!name)
			continue;
		snprintf(prefix, sizeof(prefix), "runs.%s.", name);
		snprintf(id, sizeof(id), "%sverdict", prefix);
		if (add_text(rs, id, jstr(r, "verdict")))
			return -1;
		snprintf(id, sizeof(id), "%srecords", prefix);
		if (add_num(rs, id, r, "records", "records"))
			return -1;
		snprintf(id, sizeof(id), "%slost_events", prefix);
		if (add_num(rs, id, r, "lost_events", "records"))
			return -1;
		snprintf(id, sizeof(id), "%swall_seconds", prefix);
		if (add_num(rs, id, r, "wall_seconds", "s"))
			return -1;
		if (flatten_engines(rs, json_object_object_get(r, "engines"), prefix) ||
		    flatten_invariants(rs, json_object_object_get(r, "invariants"), prefix))
			return -1;
	}
	return 0;
}

static char *read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	size_t cap = 1 << 16, n = 0, r;
	char *buf = malloc(cap), *nb;
	FILE *f = fopen(path, "r");

	if (!f || !buf) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			nb = realloc(buf, cap *= 2);
			if (!nb) {
				snprintf(err, errlen, "%s: out of memory", path);
				goto fail;
			}
			buf = nb;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		goto fail;
	}
	fclose(f);
	*len = n;
	return buf;
fail:
	fclose(f);
	free(buf);
	return NULL;
}

/*
 * Load and reduce one result file.  Returns 0, or an EXIT_* code with the
 * reason in err: EXIT_USAGE for anything wrong with the input (missing,
 * not JSON, not an fsaio result, an unsupported schema version).
 */
static int rs_load(struct resultset *rs, const char *path, char *err, size_t errlen)
{
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	json_object *sch;
	size_t len;
	char *buf;
	int ret;

	memset(rs, 0, sizeof(*rs));
	rs->path = path;
	buf = read_file(path, &len, err, errlen);
	if (!buf)
		return EXIT_USAGE;
	tok = json_tokener_new();
	if (!tok) {
		free(buf);
		snprintf(err, errlen, "out of memory");
		return EXIT_ERROR;
	}
	rs->root = json_tokener_parse_ex(tok, buf, len);
	jerr = json_tokener_get_error(tok);
	if (!rs->root || jerr != json_tokener_success) {
		snprintf(err, errlen, "%s: not valid JSON (%s at byte %zu)", path,
			 jerr == json_tokener_continue ? "unexpected end of file" :
			 json_tokener_error_desc(jerr), (size_t)json_tokener_get_parse_end(tok));
		json_tokener_free(tok);
		free(buf);
		return EXIT_USAGE;
	}
	json_tokener_free(tok);
	free(buf);
	if (!json_object_is_type(rs->root, json_type_object) ||
	    !json_object_object_get_ex(rs->root, "schema", &sch)) {
		snprintf(err, errlen, "%s: not an fsaio result (no \"schema\" field)", path);
		return EXIT_USAGE;
	}
	if (json_object_is_type(sch, json_type_string)) {
		const char *s = json_object_get_string(sch);
		char *end;
		long v;

		snprintf(rs->schema, sizeof(rs->schema), "%s", s);
		if (strncmp(s, BENCH_SCHEMA_PREFIX, strlen(BENCH_SCHEMA_PREFIX))) {
			snprintf(err, errlen, "%s: unknown schema \"%s\"", path, s);
			return EXIT_USAGE;
		}
		v = strtol(s + strlen(BENCH_SCHEMA_PREFIX), &end, 10);
		if (*end || v != BENCH_SCHEMA_VERSION) {
			snprintf(err, errlen, "%s: schema \"%s\" is not supported; this fsaio reads "
				 BENCH_SCHEMA_PREFIX "%d", path, s, BENCH_SCHEMA_VERSION);
			return EXIT_USAGE;
		}
		rs->kind = RS_BENCH;
		rs->generated = jstr(rs->root, "generated");
		rs->kernel = jstr(json_object_object_get(rs->root, "host"), "kernel");
		if (!rs->kernel)
			rs->kernel = jstr(rs->root, "kernel");
		if (json_object_object_get_ex(rs->root, "parts", &rs->parts) &&
		    !json_object_is_type(rs->parts, json_type_array))
			rs->parts = NULL;
		if (load_bench_list(rs, "figures", false, err, errlen) ||
		    load_bench_list(rs, "ratios", true, err, errlen))
			return EXIT_USAGE;
		return 0;
	}
	if (json_object_is_type(sch, json_type_int) && jstr(rs->root, "mode")) {
		int v = json_object_get_int(sch);

		snprintf(rs->schema, sizeof(rs->schema), "fsaio %s schema %d",
			 jstr(rs->root, "mode"), v);
		/* figures are flattened by name: every older schema reads too */
		if (v < 1 || v > REPORT_JSON_SCHEMA) {
			snprintf(err, errlen, "%s: %s is not supported; this fsaio reads schema 1 to %d",
				 path, rs->schema, REPORT_JSON_SCHEMA);
			return EXIT_USAGE;
		}
		rs->kind = RS_CHECK;
		rs->kernel = jstr(json_object_object_get(rs->root, "kernel"), "release");
		ret = load_check(rs);
		if (ret) {
			snprintf(err, errlen, "out of memory");
			return EXIT_ERROR;
		}
		return 0;
	}
	snprintf(err, errlen, "%s: not an fsaio result (\"schema\" is neither \""
		 BENCH_SCHEMA_PREFIX "N\" nor a check/trace result)", path);
	return EXIT_USAGE;
}

/* ------------------------------------------------------------- formatting */

/* A number in at most 4 significant digits below 1000, whole above. */
static const char *fmt_num(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1000 || v == (double)(long long)v)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

static const char *fmt_val(const struct figure *f, char *buf, size_t len)
{
	char a[40], b[40];

	if (!f)
		snprintf(buf, len, "(absent)");
	else if (f->text)
		snprintf(buf, len, "%s", f->text);
	else if (!isnan(f->noise) && !isnan(f->value))
		snprintf(buf, len, "%s±%s", fmt_num(f->value, a, sizeof(a)),
			 fmt_num(f->noise, b, sizeof(b)));
	else
		snprintf(buf, len, "%s", fmt_num(f->value, a, sizeof(a)));
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

static int id_width(const struct resultset *a, const struct resultset *b)
{
	int w = 6;
	size_t i;

	for (i = 0; i < a->n; i++)
		if ((int)strlen(a->fig[i].id) > w)
			w = strlen(a->fig[i].id);
	for (i = 0; b && i < b->n; i++)
		if ((int)strlen(b->fig[i].id) > w)
			w = strlen(b->fig[i].id);
	return w;
}

/* ---------------------------------------------------------------- compare */

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
	w = id_width(&a, &b);
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

/* ------------------------------------------------------------ bench show */

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

/* fsaio bench show [--all] FILE (called by cmd_bench in bench.c) */
int bench_show(const char *path, bool all)
{
	struct resultset rs;
	char err[512], v[48], sd[48], n[16];
	int w, missed = 0, met = 0, hidden = 0;
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
	w = id_width(&rs, NULL);
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
		       fmt_num(f->value, v, sizeof(v)), isnan(f->noise) ? "" :
		       fmt_num(f->noise, sd, sizeof(sd)), f->unit,
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
	printf("\ngoals: %d met, %d missed\n", met, missed);
	rs_free(&rs);
	return EXIT_PASS;
}
