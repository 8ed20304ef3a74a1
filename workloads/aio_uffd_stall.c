// SPDX-License-Identifier: GPL-2.0
/*
 * aio_uffd_stall: one process's reads into buffers that stall must not delay
 * another process's reads (one context).
 *
 * A child (the staller) submits COUNT (default 512) cold 4 KiB reads into
 * userfaultfd pages nobody serves yet, in one io_submit on one context;
 * on a patched kernel each resumed copy parks a worker in the fault.  The
 * parent's 64 cold reads of another file must complete within 10 s; then
 * it serves the faults and the staller's reads must complete with the
 * file's data (workloads/lib/stall.c).  With fs.aio-buffered-async on,
 * every one of the staller's reads must park a worker in its fault: a
 * context runs every request that needs a worker at once (up to 512), so
 * nothing of the context waits behind its parked reads.  Skips where
 * userfaultfd is unavailable.
 */
#include "lib/wl.h"

static const char help[] =
	"A child submits COUNT (512) cold reads into userfaultfd buffers nobody\n"
	"serves yet, on one context; the parent's 64 cold reads must still\n"
	"complete within 10 s; then the parent serves the faults and the child's\n"
	"reads must complete.  Needs userfaultfd (root).\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_uffd_stall", .count = 512 };

	return wl_stall_main(argc, argv, &o, 1, help);
}
