/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run must give back: system-wide kernel resources that a workload
 * takes and that must return to their baseline once its processes are
 * gone (workload_resources).  fs.aio-nr counts the aio contexts (kioctx)
 * alive (the sum of their io_setup() nr_events): a kernel that leaks the submitter's mm (a worker that never drops
 * its reference) never runs exit_aio(), and the contexts stay.
 */
#ifndef FSAIO_RUN_RESOURCES_H
#define FSAIO_RUN_RESOURCES_H

#include <stdbool.h>
#include "core/verdict.h"

struct resources {
	long aio_nr;		/* /proc/sys/fs/aio-nr, -1 if unreadable */
};

void resources_read(struct resources *r);

/*
 * workload_resources: after the run (its cgroup empty), wait up to
 * settle_ms for the counters to come back to before, then judge.  Only
 * with exclusive (fsaio alone on the machine: CI, the VM) does a counter
 * that stays up FAIL; elsewhere another process may have moved it: SKIP
 * with what was seen.
 */
void check_resources(struct invariant_result *ir, const struct resources *before,
		     bool exclusive, int settle_ms);

#endif
