// SPDX-License-Identifier: GPL-2.0
/*
 * aio_ctx_stall: one process's stalled reads spread over many contexts
 * must not delay another process's reads.
 *
 * aio_uffd_stall with the staller's COUNT (default 512) reads spread over
 * 32 contexts of 16 reads each (workloads/lib/stall.c): a bound on what
 * one context holds does not help when the workers are a pool all
 * contexts share, because 32 contexts x 16 parked reads fill a CPU's 256
 * slots of a per-cpu workqueue.  The parent's 64 cold reads must complete
 * within 10 s, then the staller's reads once the parent serves their
 * faults.  Skips where userfaultfd is unavailable.
 */
#include "lib/wl.h"

#define STALL_CONTEXTS	32u

static const char help[] =
	"A child submits COUNT (512) cold reads into userfaultfd buffers nobody\n"
	"serves yet, spread over 32 contexts; the parent's 64 cold reads must\n"
	"still complete within 10 s; then the parent serves the faults and the\n"
	"child's reads must complete.  Needs userfaultfd (root).\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_ctx_stall", .count = 512 };

	return wl_stall_main(argc, argv, &o, STALL_CONTEXTS, help);
}
