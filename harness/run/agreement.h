/* SPDX-License-Identifier: GPL-2.0 */
/* The run's own checks, joined with the finished checker of its trace. */
#ifndef FSAIO_RUN_AGREEMENT_H
#define FSAIO_RUN_AGREEMENT_H

#include "core/checker.h"
#include "run/child.h"
#include "run/workload.h"

/* workload_exit: its exit status (timeout and interruption are ERROR),
 * and how many processes were killed at its end. */
void check_exit(struct run_result *r, const struct workload *w,
		const struct child *c, int timeout);
/* workload_agreement: its submitted/completed/abandoned counts (and fio's
 * submission latency) against the trace's. */
void check_agreement(struct run_result *r, const struct workload *w,
		     const struct child *c);

#endif
