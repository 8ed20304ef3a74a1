// SPDX-License-Identifier: GPL-2.0
/* The --json summary (schema in docs/reporting.md). */
#include <errno.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "common.h"
#include "core/features.h"
#include "report/report.h"

static json_object *json_u64(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static json_object *json_invariant(const struct invariant_result *ir)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(ir->name));
	json_object_object_add(o, "verdict",
			       json_object_new_string(verdict_name(ir->verdict)));
	json_object_object_add(o, "observations", json_u64(ir->observations));
	json_object_object_add(o, "detail", json_object_new_string(ir->detail));
	if (ir->nr_stacks) {
		json_object *arr = json_object_new_array();
		char buf[1024];
		uint32_t i;

		for (i = 0; i < ir->nr_stacks; i++) {
			const struct inv_stack *k = &ir->stacks[i];
			json_object *s = json_object_new_object();

			json_object_object_add(s, "pid", json_object_new_int64(k->pid));
			json_object_object_add(s, "site",
					       json_object_new_string(wait_site_name(k->site)));
			json_object_object_add(s, "context",
					       json_object_new_string(context_name(k->ctx)));
			json_object_object_add(s, "ns", json_u64(k->ns));
			json_object_object_add(s, "stack", json_object_new_string(
				report_stack_text(k, buf, sizeof(buf))));
			json_object_array_add(arr, s);
		}
		json_object_object_add(o, "stacks", arr);
	}
	return o;
}

/* {"read": 64, "nop": 3}: accepted requests per opcode, zeros left out */
static json_object *json_opcodes(const struct checker_stats *s, int e)
{
	json_object *o = json_object_new_object();
	char unknown[16];
	int op;

	for (op = 0; op < FSAIO_MAX_OPCODE; op++) {
		const char *name = opcode_name(e, op);

		if (!s->by_opcode[e][op])
			continue;
		if (!name || op == FSAIO_MAX_OPCODE - 1) {
			snprintf(unknown, sizeof(unknown), "op%d%s", op,
				 op == FSAIO_MAX_OPCODE - 1 ? "+" : "");
			name = unknown;
		}
		json_object_object_add(o, name, json_u64(s->by_opcode[e][op]));
	}
	return o;
}

static json_object *json_engines(const struct checker_stats *s)
{
	json_object *engines = json_object_new_object();
	int e;

	for (e = FSAIO_ENGINE_LIBAIO; e < FSAIO_ENGINE__COUNT; e++) {
		const struct engine_stats *es = &s->engine[e];
		json_object *o = json_object_new_object();

#define X(field, what) json_object_object_add(o, #field, json_u64(es->field));
		FSAIO_ENGINE_STATS(X)
#undef X
		json_object_object_add(o, "by_opcode", json_opcodes(s, e));
		json_object_object_add(engines, engine_name(e), o);
	}
	return engines;
}

static json_object *json_wait_sites(const struct checker_stats *s)
{
	json_object *arr = json_object_new_array();
	int site, ctx, i;

	for (site = 0; site < FSAIO_SITE__COUNT; site++) {
		for (ctx = 0; ctx < FSAIO_CTX__COUNT; ctx++) {
			const struct wait_cell *c = &s->waits[site][ctx];
			json_object *o, *hist;

			if (!c->count)
				continue;
			o = json_object_new_object();
			hist = json_object_new_array();
			for (i = 0; i < HIST_BUCKETS; i++)
				json_object_array_add(hist, json_u64(c->hist[i]));
			json_object_object_add(o, "site",
					       json_object_new_string(wait_site_name(site)));
			json_object_object_add(o, "context",
					       json_object_new_string(context_name(ctx)));
			json_object_object_add(o, "count", json_u64(c->count));
			json_object_object_add(o, "total_ns", json_u64(c->total_ns));
			json_object_object_add(o, "max_ns", json_u64(c->max_ns));
			json_object_object_add(o, "hist_log2_ns", hist);
			json_object_array_add(arr, o);
		}
	}
	return arr;
}

/* In trace mode requests straddle the window: only trace integrity is a
 * meaningful verdict there. */
static bool shown(const char *mode, int inv)
{
	return strcmp(mode, "trace") || inv == RUN_CHECK__COUNT + INV_TRACE_INTEGRITY;
}

/* lost_events by cause: BPF drops, seq gaps, checker out of memory */
static json_object *json_losses(const struct checker_stats *s)
{
	json_object *o = json_object_new_object();
	uint64_t gaps = s->lost;
	int d;

	for (d = 0; d < FSAIO_DROP__COUNT; d++) {
		json_object_object_add(o, drop_name(d), json_u64(s->drops[d]));
		gaps -= s->drops[d];
	}
	json_object_object_add(o, "seq_gap", json_u64(gaps));
	json_object_object_add(o, "checker_oom", json_u64(s->oom));
	return o;
}

/* The ring buffer records went through: its size at the end, and how
 * many times it doubled because they arrived faster than they were read. */
static json_object *json_ring(const struct checker_stats *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "bytes", json_u64(s->ringbuf_bytes));
	json_object_object_add(o, "grown", json_u64(s->ringbuf_grows));
	return o;
}

static json_object *json_run(const struct run_result *r, const char *mode)
{
	const struct checker_stats *s = checker_stats(r->checker);
	json_object *o = json_object_new_object();
	json_object *inv = json_object_new_array();
	int i;

	json_object_object_add(o, "name", json_object_new_string(r->name));
	json_object_object_add(o, "command", json_object_new_string(r->command));
	json_object_object_add(o, "verdict",
			       json_object_new_string(verdict_name(run_verdict(r))));
	json_object_object_add(o, "exit_status", json_object_new_int(r->exit_status));
	json_object_object_add(o, "wall_seconds", json_object_new_double(r->wall_seconds));
	json_object_object_add(o, "workload_summary",
			       json_object_new_string(r->summary_line));
	for (i = 0; i < RUN_CHECK__COUNT; i++)
		if (shown(mode, i))
			json_object_array_add(inv, json_invariant(&r->run_checks[i]));
	for (i = 0; i < INV__COUNT; i++)
		if (shown(mode, RUN_CHECK__COUNT + i))
			json_object_array_add(inv, json_invariant(checker_result(r->checker, i)));
	json_object_object_add(o, "invariants", inv);
	json_object_object_add(o, "engines", json_engines(s));
	json_object_object_add(o, "wait_sites", json_wait_sites(s));
	json_object_object_add(o, "lost_events", json_u64(s->lost));
	json_object_object_add(o, "lost_by_cause", json_losses(s));
	json_object_object_add(o, "ring_buffer", json_ring(s));
	json_object_object_add(o, "records", json_u64(s->records));
	json_object_object_add(o, "records_counted_in_kernel", json_u64(s->aggregated));
	json_object_object_add(o, "void_records", json_u64(s->voids));
	return o;
}
/*
 * Write the document whole or not at all: into a temporary file beside it,
 * renamed over path once complete, so a full disk or RLIMIT_FSIZE leaves
 * no JSON cut short.  A path that is not a regular file (/dev/stdout, a
 * pipe) is written directly.  0 or -errno.
 */
static int write_whole(const char *path, struct json_object *root)
{
	const int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE;
	char tmp[PATH_MAX];
	struct stat st;
	int ret = 0;

	if ((!stat(path, &st) && !S_ISREG(st.st_mode)) ||
	    snprintf(tmp, sizeof(tmp), "%s.tmp-%d", path, (int)getpid()) >= (int)sizeof(tmp)) {
		if (json_object_to_file_ext(path, root, flags) < 0)
			return errno ? -errno : -EIO;
		return 0;
	}
	if (json_object_to_file_ext(tmp, root, flags) < 0)
		ret = errno ? -errno : -EIO;
	else if (rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}


int report_json_write(const char *path, const char *mode, const char *release,
		      uint32_t features, struct run_result *runs, int nr_runs,
		      char *err, size_t errlen)
{
	json_object *root = json_object_new_object();
	json_object *feat = json_object_new_object();
	json_object *kernel = json_object_new_object();
	json_object *arr = json_object_new_array();
	json_object *inv = json_object_new_array();
	struct checker_stats sum = { 0 };
	enum verdict all = VERDICT_SKIP;
	unsigned f;
	int i, j, ret = 0;

	for (f = 0; f < nr_features; f++)
		json_object_object_add(feat, feature_table[f].json,
				       json_object_new_boolean(features & feature_table[f].bit));
	json_object_object_add(kernel, "release", json_object_new_string(release));
	json_object_object_add(kernel, "features", feat);

	for (i = 0; i < nr_runs; i++) {
		json_object_array_add(arr, json_run(&runs[i], mode));
		checker_stats_add(&sum, checker_stats(runs[i].checker));
		all = verdict_worse(all, strcmp(mode, "trace") ? run_verdict(&runs[i]) :
				    checker_result(runs[i].checker, INV_TRACE_INTEGRITY)->verdict);
	}
	/* Top-level invariants: the worst verdict of each over all runs. */
	for (j = 0; j < INV__COUNT + RUN_CHECK__COUNT; j++) {
		struct invariant_result agg = { 0 };
		const struct invariant_result *ir;

		agg.verdict = VERDICT_SKIP;
		for (i = 0; i < nr_runs; i++) {
			ir = j < RUN_CHECK__COUNT ? &runs[i].run_checks[j] :
			     checker_result(runs[i].checker, j - RUN_CHECK__COUNT);
			agg.name = ir->name;
			agg.observations += ir->observations;
			if (verdict_worse(agg.verdict, ir->verdict) != agg.verdict ||
			    !agg.detail[0])
				snprintf(agg.detail, sizeof(agg.detail), "%s%s%s",
					 runs[i].name, ir->detail[0] ? ": " : "",
					 ir->detail);
			agg.verdict = verdict_worse(agg.verdict, ir->verdict);
		}
		if (agg.name && shown(mode, j))
			json_object_array_add(inv, json_invariant(&agg));
	}

	json_object_object_add(root, "fsaio_version", json_object_new_string(FSAIO_VERSION));
	json_object_object_add(root, "schema", json_object_new_int(REPORT_JSON_SCHEMA));
	json_object_object_add(root, "mode", json_object_new_string(mode));
	json_object_object_add(root, "kernel", kernel);
	json_object_object_add(root, "verdict",
			       json_object_new_string(nr_runs ? verdict_name(all) : "skip"));
	json_object_object_add(root, "invariants", inv);
	json_object_object_add(root, "engines", json_engines(&sum));
	json_object_object_add(root, "wait_sites", json_wait_sites(&sum));
	json_object_object_add(root, "lost_events", json_u64(sum.lost));
	json_object_object_add(root, "lost_by_cause", json_losses(&sum));
	json_object_object_add(root, "ring_buffer", json_ring(&sum));
	json_object_object_add(root, "runs", arr);

	ret = write_whole(path, root);
	if (ret)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-ret));
	json_object_put(root);
	return ret;
}

enum verdict report_json(const char *path, const char *mode, const char *release,
			 uint32_t features, struct run_result *runs, int nr_runs,
			 enum verdict v)
{
	char err[512];

	if (!path || !report_json_write(path, mode, release, features, runs, nr_runs,
					err, sizeof(err)))
		return v;
	fsaio_err("%s", err);
	return VERDICT_ERROR;
}
