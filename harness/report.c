// SPDX-License-Identifier: GPL-2.0
/* KTAP, text and JSON reports over finished checkers. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <json-c/json.h>
#include "common.h"
#include "report.h"
#include "tracer.h"

static const char *const feature_names[] = {
	"btf", "ringbuf", "tp_btf", "fentry", "syscall_tracepoints",
	"io_uring_tracepoints", "workqueue_tracepoints", "fsaio_tracepoints",
	"sleep_stacks", "fexit_filemap_get_pages", "fentry_io_async_buf_func",
	"fentry_aio_complete_rw",
};
#define NR_FEATURES (sizeof(feature_names) / sizeof(feature_names[0]))

const char *feature_name(unsigned bit)
{
	return bit < NR_FEATURES ? feature_names[bit] : NULL;
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

enum verdict run_verdict(const struct run_result *r)
{
	enum verdict v = VERDICT_SKIP;
	int i;

	for (i = 0; i < INV__COUNT; i++)
		v = verdict_worse(v, checker_result(r->checker, i)->verdict);
	for (i = 0; i < RUN_CHECK__COUNT; i++)
		v = verdict_worse(v, r->run_checks[i].verdict);
	return v;
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
	/* Diagnostics first, so a parser sees them attached to the line. */
	if (ir->verdict == VERDICT_FAIL || ir->verdict == VERDICT_ERROR)
		fprintf(f, "%s# %s: %s%s\n", indent, ir->name,
			ir->verdict == VERDICT_ERROR ? "ERROR: " : "", ir->detail);
	else if (ir->verdict == VERDICT_PASS && ir->detail[0])
		fprintf(f, "%s# %s: %s\n", indent, ir->name, ir->detail);
	fprintf(f, "%s%s %d %s%s%s%s\n", indent, ok, n, ir->name, directive,
		directive[0] && ir->detail[0] ? " " : "",
		directive[0] ? ir->detail : "");
}

void report_ktap_header(FILE *f, int nr_runs)
{
	fprintf(f, "KTAP version 1\n1..%d\n", nr_runs);
}

void report_ktap_run(FILE *f, int index, const struct run_result *r)
{
	enum verdict v = run_verdict(r);
	int n = 0, i;

	fprintf(f, "    KTAP version 1\n    # Subtest: %s\n", r->name);
	fprintf(f, "    # command: %s\n", r->command);
	fprintf(f, "    1..%d\n", INV__COUNT + RUN_CHECK__COUNT);
	for (i = 0; i < RUN_CHECK__COUNT; i++)
		ktap_line(f, "    ", ++n, &r->run_checks[i]);
	for (i = 0; i < INV__COUNT; i++)
		ktap_line(f, "    ", ++n, checker_result(r->checker, i));
	fprintf(f, "%s %d %s%s\n", v == VERDICT_FAIL || v == VERDICT_ERROR ? "not ok" : "ok",
		index, r->name, v == VERDICT_SKIP ? " # SKIP" : "");
}

static void hist_text(FILE *f, const struct wait_cell *c)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	uint64_t peak = 0;
	int i, lo = HIST_BUCKETS, hi = -1;

	for (i = 0; i < HIST_BUCKETS; i++) {
		if (!c->hist[i])
			continue;
		lo = i < lo ? i : lo;
		hi = i;
		peak = c->hist[i] > peak ? c->hist[i] : peak;
	}
	for (i = lo; i <= hi; i++) {
		int bar = (int)(c->hist[i] * 30 / peak);
		uint64_t from = 1ull << i;
		int u = 0;

		while (from >= 1000 && u < 3) {
			from /= 1000;
			u++;
		}
		fprintf(f, "        %6" PRIu64 "%-2s+ %8" PRIu64 " |%-30.*s|\n",
			from, unit[u], c->hist[i], bar,
			"******************************");
	}
}

void report_text_stats(FILE *f, const struct checker_stats *s)
{
	int e, site, ctx;

	fprintf(f, "%-9s %9s %9s %9s %11s %8s %8s %8s %6s\n", "engine",
		"submitted", "completed", "blocked", "blocked_ms", "retries",
		"wakes", "resumes", "punts");
	for (e = FSAIO_ENGINE_LIBAIO; e < FSAIO_ENGINE__COUNT; e++) {
		const struct engine_stats *es = &s->engine[e];

		fprintf(f, "%-9s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %11.1f %8"
			PRIu64 " %8" PRIu64 " %8" PRIu64 " %6" PRIu64 "\n",
			engine_name(e), es->submitted, es->completed,
			es->blocked_in_submit, es->blocked_ns / 1e6, es->retries,
			es->wakes, es->resumes, es->punts);
	}
	fprintf(f, "\n%-18s %-16s %8s %10s %10s\n", "wait site", "context",
		"sleeps", "total_ms", "max_ms");
	for (site = 0; site < FSAIO_SITE__COUNT; site++) {
		for (ctx = 0; ctx < FSAIO_CTX__COUNT; ctx++) {
			const struct wait_cell *c = &s->waits[site][ctx];

			if (!c->count)
				continue;
			fprintf(f, "%-18s %-16s %8" PRIu64 " %10.2f %10.2f\n",
				wait_site_name(site), context_name(ctx), c->count,
				c->total_ns / 1e6, c->max_ns / 1e6);
			if (verbose || site != FSAIO_SITE_OTHER)
				hist_text(f, c);
		}
	}
	fprintf(f, "\nrecords %" PRIu64 ", lost %" PRIu64 ", malformed %" PRIu64 "\n",
		s->records, s->lost, s->malformed);
}

/* ---- JSON ---- */

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
	return o;
}

static json_object *json_engines(const struct checker_stats *s)
{
	json_object *engines = json_object_new_object();
	int e;

	for (e = FSAIO_ENGINE_LIBAIO; e < FSAIO_ENGINE__COUNT; e++) {
		const struct engine_stats *es = &s->engine[e];
		json_object *o = json_object_new_object();

#define ADD(field) json_object_object_add(o, #field, json_u64(es->field))
		ADD(submitted);
		ADD(completed);
		ADD(abandoned);
		ADD(blocked_in_submit);
		ADD(blocked_ns);
		ADD(retries);
		ADD(wakes);
		ADD(resumes);
		ADD(punts);
		ADD(submit_calls);
		ADD(submit_ns);
		ADD(errors);
#undef ADD
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

static void cell_add(struct wait_cell *d, const struct wait_cell *a)
{
	int i;

	d->count += a->count;
	d->total_ns += a->total_ns;
	d->max_ns = a->max_ns > d->max_ns ? a->max_ns : d->max_ns;
	for (i = 0; i < HIST_BUCKETS; i++)
		d->hist[i] += a->hist[i];
}

/* Sum the statistics of several runs, for the top-level summary. */
static void stats_add(struct checker_stats *sum, const struct checker_stats *s)
{
	int e, site, ctx;

	for (e = 0; e < FSAIO_ENGINE__COUNT; e++) {
		struct engine_stats *d = &sum->engine[e];
		const struct engine_stats *a = &s->engine[e];

		d->submitted += a->submitted;
		d->completed += a->completed;
		d->abandoned += a->abandoned;
		d->blocked_in_submit += a->blocked_in_submit;
		d->blocked_ns += a->blocked_ns;
		d->retries += a->retries;
		d->wakes += a->wakes;
		d->resumes += a->resumes;
		d->punts += a->punts;
		d->submit_calls += a->submit_calls;
		d->submit_ns += a->submit_ns;
		d->errors += a->errors;
	}
	for (site = 0; site < FSAIO_SITE__COUNT; site++)
		for (ctx = 0; ctx < FSAIO_CTX__COUNT; ctx++)
			cell_add(&sum->waits[site][ctx], &s->waits[site][ctx]);
	sum->records += s->records;
	sum->lost += s->lost;
	sum->malformed += s->malformed;
}

/* In trace mode requests straddle the window: only trace integrity is a
 * meaningful verdict there. */
static bool shown(const char *mode, int inv)
{
	return strcmp(mode, "trace") || inv == RUN_CHECK__COUNT + INV_TRACE_INTEGRITY;
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
	json_object_object_add(o, "records", json_u64(s->records));
	return o;
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
	unsigned bit;
	int i, j, ret = 0;

	for (bit = 0; bit < NR_FEATURES; bit++)
		json_object_object_add(feat, feature_names[bit],
				       json_object_new_boolean(features & (1u << bit)));
	json_object_object_add(kernel, "release", json_object_new_string(release));
	json_object_object_add(kernel, "features", feat);

	for (i = 0; i < nr_runs; i++) {
		json_object_array_add(arr, json_run(&runs[i], mode));
		stats_add(&sum, checker_stats(runs[i].checker));
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
	json_object_object_add(root, "schema", json_object_new_int(1));
	json_object_object_add(root, "mode", json_object_new_string(mode));
	json_object_object_add(root, "kernel", kernel);
	json_object_object_add(root, "verdict",
			       json_object_new_string(nr_runs ? verdict_name(all) : "skip"));
	json_object_object_add(root, "invariants", inv);
	json_object_object_add(root, "engines", json_engines(&sum));
	json_object_object_add(root, "wait_sites", json_wait_sites(&sum));
	json_object_object_add(root, "lost_events", json_u64(sum.lost));
	json_object_object_add(root, "runs", arr);

	if (json_object_to_file_ext(path, root, JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_NOSLASHESCAPE) < 0) {
		ret = -errno ? -errno : -EIO;
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-ret));
	}
	json_object_put(root);
	return ret;
}
