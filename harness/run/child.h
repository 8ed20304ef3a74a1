/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced child: a workload or command forked stopped, moved into a
 * cgroup of its own (run/cgroup.h) and handed to the tracer before it
 * execs (so its first syscall is seen), its stdout relayed as KTAP
 * diagnostics and its "fsaio-workload:" summary caught.
 *
 * Every process it starts ends with the run: on timeout or interrupt the
 * whole tree is killed; when the child exits, whatever it left running
 * gets LEFTOVER_GRACE_S seconds to finish and is then killed.  Without
 * cgroup v2 the same is done to its process group, which a setsid() or
 * setpgid() escapes; the relay stops at a deadline either way.
 */
#ifndef FSAIO_RUN_CHILD_H
#define FSAIO_RUN_CHILD_H

#include <stdbool.h>
#include <sys/types.h>
#include "run/cgroup.h"
#include "run/workload.h"

#define LEFTOVER_GRACE_S	2	/* after the child exits, for what it left */
#define END_DEADLINE_S		5	/* for a killed tree to go and its stdout to close */

struct child {
	pid_t pid;
	int out_fd;		/* its stdout, -1 once closed */
	char line[1024];	/* partial line */
	size_t len;
	struct workload_report report;
	bool timed_out;
	bool interrupted;
	int status;		/* wait status */
	struct run_cgroup cg;	/* path "" when its process group stands in */
	int killed;		/* processes killed: the tree on timeout or
				 * interrupt, else the leftovers */
	bool output_cut;	/* stdout still open at the deadline */
};

/* Fork argv stopped in its own cgroup and process group (FSAIO_DIR=dir
 * when dir is set), call track(pid, ctx), then let it exec.  Returns 0; EXIT_USAGE when
 * the command cannot be run; EXIT_ERROR when track() or the system failed
 * (the child is then killed).  The message is printed. */
int child_start(struct child *c, char *const argv[], const char *dir,
		int (*track)(pid_t pid, void *ctx), void *ctx);

/* Until the child and everything it started are gone: relay its output at
 * pipe speed, reap.  After timeout seconds, or on fsaio_interrupted, the
 * whole tree is killed; leftovers as above.  The cgroup is removed before
 * it returns.  Nothing else runs in this loop: the tracer's records are
 * consumed on a thread of their own (live/session.h). */
void child_wait(struct child *c, int timeout);

#endif
