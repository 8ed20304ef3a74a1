/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cgroup v2 of its own for each traced command: whatever session or
 * process group its processes move to, they stay in it, so cgroup.kill
 * ends all of them and cgroup.events says when they are gone.  It is
 * created under the cgroup fsaio runs in, or at the root of the unified
 * hierarchy when that one cannot take it.  No cgroup v2 (not mounted, no
 * permission): the caller falls back to the process group.
 */
#ifndef FSAIO_RUN_CGROUP_H
#define FSAIO_RUN_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct run_cgroup {
	char path[PATH_MAX];	/* .../fsaio-<pid>-<n>, "" when none */
};

/* Create fsaio-<pid>-<n> and move pid (stopped before its exec) into it.
 * Returns 0, or -errno with why saying what was tried; nothing is left
 * behind then. */
int run_cgroup_enter(struct run_cgroup *cg, pid_t pid, char *why, size_t len);

/* Processes in it, its child cgroups included; -errno if unreadable. */
int run_cgroup_count(const struct run_cgroup *cg);

/* cgroup.events says "populated 1" (true as well when unreadable). */
bool run_cgroup_populated(const struct run_cgroup *cg);

/* SIGKILL every process in it: cgroup.kill (Linux 5.14+), else each pid
 * of cgroup.procs.  Returns how many it held. */
int run_cgroup_kill(const struct run_cgroup *cg);

/* Kill what is left, wait up to timeout seconds for it to empty, remove
 * it.  Safe to call twice and on a zeroed struct.  Returns 0, or -EBUSY
 * when processes survived (the directory is then left, and said so). */
int run_cgroup_destroy(struct run_cgroup *cg, double timeout);

/* Kill and remove the fsaio-<pid>-<n> cgroups whose fsaio died without
 * its teardown (SIGKILL, the OOM killer), with what still ran in them;
 * each is named on stderr.  Returns how many. */
int run_cgroup_reap_orphans(void);

/* Destroy every cgroup still there; at exit, so an error path that
 * forgets one leaves no process and no directory. */
void run_cgroup_destroy_all(void);

#endif
