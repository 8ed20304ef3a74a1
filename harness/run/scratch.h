/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scratch filesystem for workloads: a sparse image file on a loop device,
 * formatted and mounted under a private temporary directory.  Teardown is
 * idempotent; scratch_teardown_all() runs at exit (atexit), so an error
 * path that forgets one leaves nothing mounted.  SIGINT/SIGTERM only set
 * fsaio_interrupted: the command then tears down on its normal way out.
 * (Teardown keeps to async-signal-safe calls all the same, see scratch.c.)
 */
#ifndef FSAIO_SCRATCH_H
#define FSAIO_SCRATCH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct scratch {
	char mountpoint[PATH_MAX];	/* where workloads put their files */
	char image[PATH_MAX];		/* backing file (deleted at teardown) */
	char loopdev[64];		/* /dev/loopN, "" if none */
	bool mounted;
};

/* Create a size_mb image, attach it to a free loop device (direct I/O on
 * the backing file so cold reads really wait on the device), mkfs
 * (fstype "ext4"), mount.  On failure everything done so far is undone
 * and err holds one line saying what to do. */
int scratch_setup(struct scratch *s, unsigned size_mb, const char *fstype,
		  char *err, size_t errlen);
/* Unmount, detach, delete.  Safe to call twice and on a zeroed struct. */
void scratch_teardown(struct scratch *s);
/* Tear down every scratch still set up; registered with atexit. */
void scratch_teardown_all(void);

/* Unmount and remove the scratch mounts (and any image not yet unlinked)
 * of an fsaio that died before its teardown (SIGKILL, the OOM killer):
 * fsaio-mnt-<pid>-* and fsaio-img-<pid>-* in the scratch directory whose
 * pid is no running fsaio.  Run after run_cgroup_reap_orphans(), which
 * ends the processes that kept files open there.  Returns how many. */
int scratch_reap_orphans(void);

/* sync + echo 3 > /proc/sys/vm/drop_caches.  Returns 0 or -errno. */
int drop_caches(void);

#endif
