// SPDX-License-Identifier: GPL-2.0
/* Symbolized kernel stacks for the reports (report.h). */
#include <inttypes.h>
#include <string.h>
#include "report/report.h"

static report_symbolize_fn symbolize;
static void *symbolize_ctx;

void report_set_symbolizer(report_symbolize_fn fn, void *ctx)
{
	symbolize = fn;
	symbolize_ctx = ctx;
}

/* The frames every sleep has (the tracer's own, the scheduler's): what
 * it waited on comes after the last of them. */
static bool plumbing_frame(const char *name)
{
	static const char *const sched[] = { "__schedule", "__sched_text_start", "schedule",
		"schedule_timeout", "io_schedule", "io_schedule_timeout",
		"schedule_preempt_disabled", "preempt_schedule_common" };
	size_t i;

	if (!strncmp(name, "bpf_", 4) || !strncmp(name, "__traceiter_", 12) ||
	    !strncmp(name, "__bpf_trace_", 12))
		return true;
	for (i = 0; i < sizeof(sched) / sizeof(sched[0]); i++)
		if (!strcmp(name, sched[i]))
			return true;
	return false;
}

const char *report_stack_text(const struct inv_stack *k, char *buf, size_t len)
{
	const char *names[FSAIO_STACK_DEPTH] = { 0 };
	uint64_t offs[FSAIO_STACK_DEPTH] = { 0 };
	uint32_t i, from = 0, nr = k->nr < FSAIO_STACK_DEPTH ? k->nr : FSAIO_STACK_DEPTH;
	size_t o = 0;

	for (i = 0; i < nr && symbolize; i++) {
		names[i] = symbolize(k->pc[i], &offs[i], symbolize_ctx);
		if (names[i] && plumbing_frame(names[i]) && i + 1 < nr)
			from = i + 1;
	}
	buf[0] = '\0';
	for (i = from; i < nr && o < len; i++) {
		if (names[i])
			o += snprintf(buf + o, len - o, "%s%s+0x%" PRIx64, o ? " <- " : "",
				      names[i], offs[i]);
		else
			o += snprintf(buf + o, len - o, "%s0x%" PRIx64, o ? " <- " : "",
				      k->pc[i]);
	}
	return buf;
}
