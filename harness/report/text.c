// SPDX-License-Identifier: GPL-2.0
/* Human tables: engine counts, wait sites by context, log2 histograms. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "report/report.h"

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

struct stack_line {
	char text[512];
	enum fsaio_context ctx;
	uint64_t count, ns;
};

static int by_line_count(const void *a, const void *b)
{
	const struct stack_line *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* Stacks are counted by their addresses; printed without the tracer's and
 * the scheduler's frames, several become one line: merge them there. */
void report_text_top_stacks(FILE *f, const struct checker *c, int n)
{
	struct stack_count *all = malloc(STACKS_MAX * sizeof(*all));
	struct stack_line *lines = malloc(STACKS_MAX * sizeof(*lines));
	int site, i, j, m, nl;

	if (!all || !lines) {
		free(all);
		free(lines);
		return;
	}
	for (site = 0; site < FSAIO_SITE__COUNT; site++) {
		m = checker_top_stacks(c, site, all, STACKS_MAX);
		for (i = 0, nl = 0; i < m; i++) {
			char text[512];

			report_stack_text(&all[i].k, text, sizeof(text));
			for (j = 0; j < nl; j++)
				if (lines[j].ctx == all[i].k.ctx && !strcmp(lines[j].text, text))
					break;
			if (j == nl) {
				snprintf(lines[nl].text, sizeof(lines[nl].text), "%s", text);
				lines[nl].ctx = all[i].k.ctx;
				lines[nl].count = lines[nl].ns = 0;
				nl++;
			}
			lines[j].count += all[i].count;
			lines[j].ns += all[i].total_ns;
		}
		if (!nl)
			continue;
		qsort(lines, nl, sizeof(*lines), by_line_count);
		fprintf(f, "\ntop stacks, wait site %s:\n", wait_site_name(site));
		for (i = 0; i < nl && i < n; i++)
			fprintf(f, "  %8" PRIu64 " sleeps %10.2f ms  %-16s %s\n", lines[i].count,
				lines[i].ns / 1e6, context_name(lines[i].ctx), lines[i].text);
	}
	if (checker_stacks_untracked(c))
		fprintf(f, "(%" PRIu64 " sleeps of further stacks not counted: more than %d distinct)\n",
			checker_stacks_untracked(c), STACKS_MAX);
	free(all);
	free(lines);
}

void report_text_losses(FILE *f, const struct checker_stats *s)
{
	uint64_t gaps = s->lost;
	const char *sep = " (";
	int d;

	if (!s->lost && !s->oom)
		return;
	for (d = 0; d < FSAIO_DROP__COUNT; d++) {
		gaps -= s->drops[d];
		if (s->drops[d]) {
			fprintf(f, "%s%s %" PRIu64, sep, drop_name(d), s->drops[d]);
			sep = ", ";
		}
	}
	if (gaps) {
		fprintf(f, "%sseq_gap %" PRIu64, sep, gaps);
		sep = ", ";
	}
	if (s->oom) {
		fprintf(f, "%schecker_oom %" PRIu64, sep, s->oom);
		sep = ", ";
	}
	fputc(')', f);
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
	fprintf(f, "\nrecords %" PRIu64, s->records);
	if (s->aggregated)
		fprintf(f, " (and %" PRIu64 " counted in the kernel)", s->aggregated);
	fprintf(f, ", lost %" PRIu64, s->lost);
	report_text_losses(f, s);
	fprintf(f, ", malformed %" PRIu64 "\n", s->malformed);
}
