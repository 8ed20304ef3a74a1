// SPDX-License-Identifier: GPL-2.0
/*
 * Reading result files (results/resultset.h): a benchmark result or a
 * check/trace/replay --json file reduced to named figures, and the
 * formatting compare and bench show print them with.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include "common.h"
#include "report/report.h"	/* REPORT_JSON_SCHEMA */
#include "results/resultset.h"
#include "results/stats.h"

#define BENCH_SCHEMA_PREFIX	"fsaio-bench/"
#define BENCH_SCHEMA_VERSION	1

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

void rs_free(struct resultset *rs)
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

int rs_check_input(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st)) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is not a regular file: give a bench.json or a --json result",
			 path);
		return -EINVAL;
	}
	if (st.st_size > RS_MAX_BYTES) {
		snprintf(err, errlen, "%s is %lld MiB, more than any result (%d MiB): not a result file",
			 path, (long long)st.st_size >> 20, RS_MAX_BYTES >> 20);
		return -EFBIG;
	}
	return 0;
}

static char *read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	size_t cap = 1 << 16, n = 0, r;
	char *buf, *nb;
	FILE *f;

	if (rs_check_input(path, err, errlen))
		return NULL;
	buf = malloc(cap);
	f = fopen(path, "r");
	if (!f || !buf) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n > RS_MAX_BYTES) {	/* grew while read */
			snprintf(err, errlen, "%s: more than %d MiB: not a result file", path,
				 RS_MAX_BYTES >> 20);
			goto fail;
		}
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

int rs_load(struct resultset *rs, const char *path, char *err, size_t errlen)
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

const char *rs_fmt_num(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1000 || v == (double)(long long)v)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

int rs_id_width(const struct resultset *a, const struct resultset *b)
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
