/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A result file read for `fsaio compare` and `fsaio bench show`.
 *
 * A result set is either a benchmark result (schema "fsaio-bench/1":
 * bench.json or one part of it, see ci/README.md) or an `fsaio check` /
 * `fsaio trace` / `fsaio replay` --json file (schema 1 to REPORT_JSON_SCHEMA).
 * Both are reduced to a list of named figures: a value, a unit and, where
 * the file records one, the run-to-run noise of that value (its stddev, or
 * the standard deviation of its samples: results/stats.h).  A check result
 * has counters and verdicts, no noise.
 */
#ifndef FSAIO_RESULTS_RESULTSET_H
#define FSAIO_RESULTS_RESULTSET_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

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

/* The string at key of object o; NULL if o or the key is missing or not a
 * string. */
static inline const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* The number at key of object o into *out; false if there is none. */
static inline bool jnum(json_object *o, const char *key, double *out)
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

/* Result files are a few MiB; anything larger, or not a regular file
 * (/dev/zero, a pipe, a directory), is refused before it is read. */
#define RS_MAX_BYTES	(256 << 20)
/* 0, or -errno with err saying why path is no result file to read. */
int rs_check_input(const char *path, char *err, size_t errlen);

/*
 * Load and reduce one result file.  Returns 0, or an EXIT_* code with the
 * reason in err: EXIT_USAGE for anything wrong with the input (missing,
 * not JSON, not an fsaio result, an unsupported schema version).  Call
 * rs_free() either way.
 */
int rs_load(struct resultset *rs, const char *path, char *err, size_t errlen);
void rs_free(struct resultset *rs);

/* A number in at most 4 significant digits below 1000, whole above; "-"
 * for NAN. */
const char *rs_fmt_num(double v, char *buf, size_t len);
/* The width of the id column: the longest id of a and b (b may be NULL). */
int rs_id_width(const struct resultset *a, const struct resultset *b);

#endif
