/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced child: a workload or command forked stopped, handed to the
 * tracer before it execs (so its first syscall is seen), its stdout relayed
 * as KTAP diagnostics and its "fsaio-workload:" summary caught.
 */
#ifndef FSAIO_RUN_CHILD_H
#define FSAIO_RUN_CHILD_H

#include <stdbool.h>
#include <sys/types.h>
#include "run/workload.h"

struct child {
	pid_t pid;
	int out_fd;		/* its stdout, -1 once closed */
	char line[1024];	/* partial line */
	size_t len;
	struct workload_report report;
	bool timed_out;
	bool interrupted;
	int status;		/* wait status */
};

/* Fork argv stopped in its own process group (FSAIO_DIR=dir when dir is
 * set), call track(pid, ctx), then let it exec.  Returns 0; EXIT_USAGE when
 * the command cannot be run; EXIT_ERROR when track() or the system failed
 * (the child is then killed).  The message is printed. */
int child_start(struct child *c, char *const argv[], const char *dir,
		int (*track)(pid_t pid, void *ctx), void *ctx);

/* Until the child exits and its stdout closes: call tick(ctx) (which may
 * wait up to 20 ms), relay output, reap.  After timeout seconds, or on
 * fsaio_interrupted, the whole process group is killed. */
void child_wait(struct child *c, int timeout, void (*tick)(void *ctx), void *ctx);

#endif
