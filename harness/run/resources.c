// SPDX-License-Identifier: GPL-2.0
/* The run's resources check (run/resources.h). */
#include <stdio.h>
#include <time.h>
#include "run/resources.h"

static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

void resources_read(struct resources *r)
{
	r->aio_nr = read_long("/proc/sys/fs/aio-nr");
}

void check_resources(struct invariant_result *ir, const struct resources *before,
		     bool exclusive, int settle_ms)
{
	const char *name = "workload_resources";
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	struct resources after;
	int waited = 0;

	if (before->aio_nr < 0) {
		invariant_set(ir, name, VERDICT_SKIP, 0, "/proc/sys/fs/aio-nr unreadable");
		return;
	}
	/* The last mm reference may go a little after the last process
	 * (mmput_async, RCU): give the counters settle_ms to come back. */
	for (;;) {
		resources_read(&after);
		if (after.aio_nr <= before->aio_nr || waited >= settle_ms)
			break;
		nanosleep(&nap, NULL);
		waited += 20;
	}
	if (after.aio_nr <= before->aio_nr) {
		invariant_set(ir, name, VERDICT_PASS, 1,
			      "fs.aio-nr back to %ld (every aio context freed)", before->aio_nr);
		return;
	}
	invariant_set(ir, name, exclusive ? VERDICT_FAIL : VERDICT_SKIP, 1,
		      "fs.aio-nr %ld before, %ld %d ms after the workload's processes were gone: "
		      "%ld aio events of contexts not freed%s", before->aio_nr, after.aio_nr, waited,
		      after.aio_nr - before->aio_nr,
		      exclusive ? " (a leaked mm keeps exit_aio() from running)" :
		      "; not judged: other processes may hold them (--exclusive where fsaio runs alone)");
}
