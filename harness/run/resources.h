/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run must give back: system-wide kernel resources that a workload
 * takes and that must return to their baseline once its processes are
 * gone (workload_resources).
 *
 * fs.aio-nr counts the aio contexts (kioctx) alive (the sum of their
 * io_setup() nr_events): a kernel that leaks the submitter's mm_users (a
 * worker that never drops its reference) never runs exit_aio(), and the
 * contexts stay.  The slab caches below count the objects a request or its
 * asynchronous state holds a reference to: a worker that takes a reference
 * (mmgrab, get_cred, get_task_struct, fget) and forgets to drop it leaves
 * one object per request.  Their /proc/slabinfo counts are exact only for
 * caches with SLUB debugging on (no per-CPU slabs): the VM boots with
 * slub_debug=FZP; elsewhere they are reported but not judged.  Kernel
 * threads come and go on their own (a workqueue starts workers while
 * others block, and reaps idle ones after five minutes), each with its
 * task_struct and its own cred: task_struct and cred are judged net of
 * the change in live threads.
 */
#ifndef FSAIO_RUN_RESOURCES_H
#define FSAIO_RUN_RESOURCES_H

#include <stdbool.h>
#include "core/verdict.h"

/* The slab caches judged: name, and what a leak of one object means. */
#define FSAIO_SLAB_CACHES(X)						\
	X(kioctx,	"an aio context")					\
	X(aio_kiocb,	"an aio request")					\
	X(io_kiocb,	"an io_uring request")					\
	X(mm_struct,	"an address space (mmgrab without mmdrop)")		\
	X(cred,		"a credentials struct (get_cred without put_cred)")	\
	X(task_struct,	"a task (get_task_struct without put_task_struct)")	\
	X(filp,		"an open file (fget without fput)")

enum {
#define X(name, what) SLAB_##name,
	FSAIO_SLAB_CACHES(X)
#undef X
	SLAB_NR
};

struct resources {
	long aio_nr;		/* /proc/sys/fs/aio-nr, -1 if unreadable */
	long slab[SLAB_NR];	/* active objects, -1 if the cache is absent */
	bool slab_exact[SLAB_NR]; /* the cache has SLUB debugging: counts exact */
	long tasks;		/* live threads, kernel threads included */
};

void resources_read(struct resources *r);

/*
 * How long workload_resources waits for the counts to come back, for one
 * `fsaio check` run.  Frees every kernel makes in time (RCU, deferred fput,
 * io_uring's exit work) come within settle_ms.  A count still up then gets
 * until late_ms: back by then, the objects were freed late, not leaked
 * (the check's own files once were, on 6.1: resources.c reads through
 * files opened once for that reason).  Once a count outlives late_ms in a
 * run (a leak: it will not come back), the run's later workloads are
 * judged at settle_ms, so a leaking kernel costs one long wait, not one
 * per workload.
 */
struct settle_policy {
	int settle_ms;
	int late_ms;
	bool leak_seen;
};

/*
 * workload_resources: after the run (its cgroup empty), wait as the policy
 * says, and at least three RCU grace periods where membarrier can wait for
 * them, for the counters to come back to before, then judge.  Only with
 * exclusive (fsaio alone on the machine: CI, the VM) does a counter that
 * stays up FAIL; elsewhere another process may have moved it: SKIP with
 * what was seen.
 */
void check_resources(struct invariant_result *ir, const struct resources *before,
		     bool exclusive, struct settle_policy *sp);

#endif
