/* SPDX-License-Identifier: GPL-2.0 */
/* The run's own checks, joined with the finished checker of its trace. */
#ifndef FSAIO_RUN_AGREEMENT_H
#define FSAIO_RUN_AGREEMENT_H

#include "core/checker.h"
#include "run/child.h"
#include "run/workload.h"

/* What an arbitrary command's exit status says when it skipped itself:
 * 77, the convention of automake's test driver (and of liburing's test/). */
#define COMMAND_SKIP_CODE	77

/* workload_exit: its exit status (timeout and interruption are ERROR),
 * and how many processes were killed at its end.  Exit skip_code (0: none)
 * is a SKIP: the program found nothing to test here. */
void check_exit(struct run_result *r, const struct workload *w,
		const struct child *c, int timeout, int skip_code);
/* workload_agreement: its submitted/completed/abandoned counts (and fio's
 * submission latency) against the trace's. */
void check_agreement(struct run_result *r, const struct workload *w,
		     const struct child *c);

#endif
