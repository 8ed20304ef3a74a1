/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Workloads: discovery (custom programs built from workloads/NAME.c, fio jobs
 * in workloads/fio/NAME.fio), spawning under tracing, and reading their own
 * results so they can be joined with the trace.
 */
#ifndef FSAIO_WORKLOAD_H
#define FSAIO_WORKLOAD_H

#include <stdint.h>
#include <sys/types.h>

enum workload_kind {
	WL_PROGRAM,	/* .output/workloads/NAME -d DIR */
	WL_FIO,		/* fio --output-format=json workloads/fio/NAME.fio */
	WL_COMMAND,	/* fsaio check -- CMD ARGS */
};

struct workload {
	char name[64];
	enum workload_kind kind;
	char path[4096];	/* program, or fio job file */
	char what[160];		/* first line of its header comment */
};

/* The project root: where the fsaio binary lives (workloads/ and
 * .output/workloads/ are found from there). */
const char *workload_root(void);

/* Everything in the suite, sorted by name.  Returns the count (0 when
 * nothing is built: "run make first"). */
int workload_discover(const char *root, struct workload *out, int max);

/* What a workload said about itself. */
struct workload_report {
	int valid;		/* a summary was found and parsed */
	char engine[64];	/* libaio, io_uring, psync, mixed */
	uint64_t submitted, completed, errors;
	uint64_t abandoned;	/* libaio requests left unreaped to io_destroy or
				 * process exit on purpose (0 when not given) */
	double slat_mean_ns;	/* fio only: mean submission latency */
	uint64_t slat_samples;
	int slat_has_fill;	/* fio only: a verify job writes, so slat also
				 * counts filling and checksumming buffers */
	char line[512];		/* the summary, for reports */
};

/* Parse the "fsaio-workload: ..." line (custom programs).  0 or -EINVAL. */
int workload_parse_summary(const char *line, struct workload_report *out);
/* Parse fio's JSON output file.  0 or -errno with a reason in err. */
int workload_parse_fio_json(const char *path, struct workload_report *out,
			    char *err, size_t errlen);

#endif
