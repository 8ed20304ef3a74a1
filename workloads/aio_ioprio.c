// SPDX-License-Identifier: GPL-2.0
/*
 * aio_ioprio: cold 64 KiB buffered libaio reads, readahead off (so a
 * resumed read issues the next folio's read itself), at two I/O
 * priorities other than the default:
 *
 *  round 0: the thread set to the idle class (ionice -c3,
 *           ioprio_set(IOPRIO_WHO_PROCESS)): each request's ki_ioprio is
 *           the thread's;
 *  round 1: the thread back to no priority, each request carrying its
 *           own (IOCB_FLAG_IOPRIO, aio_reqprio = best-effort level 7).
 *
 * A buffered read's block I/O takes the issuing task's priority
 * (bio_set_ioprio()), so on a kernel whose worker resumes these reads
 * (patches/linux-6.12) the worker must run at the request's priority,
 * as io_submit() would have: the tracer reads the priority the worker's
 * bios would get (its io_context, else its policy and nice value) at
 * fsaio_resume and resume_context fails on a difference ("resumed at I/O
 * priority be/4, the request's is idle").  On a stock kernel the reads
 * run in io_submit() and there is nothing to compare.
 *
 * Every read must complete once, full, with the file's bytes.  -n COUNT
 * (default 16, 1..256) reads per round.
 */
#include <sys/syscall.h>

#include "lib/wl.h"

#define RSIZE		(64u * 1024)
#define IOPRIO_CLASS_SHIFT	13
#define IOPRIO_VALUE(class, level)	((class) << IOPRIO_CLASS_SHIFT | (level))
#define IOPRIO_CLASS_NONE	0
#define IOPRIO_CLASS_BE		2
#define IOPRIO_CLASS_IDLE	3
#define IOPRIO_WHO_PROCESS	1
#ifndef IOCB_FLAG_IOPRIO
#define IOCB_FLAG_IOPRIO	(1 << 1)
#endif

static const char help[] =
	"COUNT (16) cold 64 KiB reads, readahead off, twice: the thread in the\n"
	"idle I/O class, then each request with its own priority (be/7).\n"
	"  -s is ignored: the file is COUNT*64k\n";

/* the calling thread's I/O priority (glibc has no wrapper) */
static int set_thread_ioprio(int prio)
{
	return syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, prio);
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_ioprio", .count = 16 };
	struct wl_reads r = { .f.seed = 0x10b7 };
	struct wl_stats st = { 0 };

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	if (o.count < 1 || o.count > 256) {
		fprintf(stderr, "-n must be 1..256\n");
		return EXIT_USAGE;
	}
	r.f.size = (uint64_t)o.count * RSIZE;
	wl_strided_reads(&r, o.count, RSIZE, RSIZE);
	if (wl_readahead_off(o.dir))
		printf("# note: readahead left on (not a test device): fewer resumed reads\n");

	for (unsigned round = 0; round < 2; round++) {
		int thread_prio = round ? IOPRIO_VALUE(IOPRIO_CLASS_NONE, 0) :
					  IOPRIO_VALUE(IOPRIO_CLASS_IDLE, 7);
		io_context_t ctx;
		struct iocb *cbs;
		int fd;

		memset(r.reap.seen, 0, r.n);
		memset(r.bufs, 0xa5, (size_t)r.n * RSIZE);
		fd = wl_reads_file(&o, &r);	/* cold again */
		cbs = wl_aio_prep_reads(&r, fd);
		if (round)
			for (unsigned i = 0; i < r.n; i++) {
				cbs[i].u.c.flags |= IOCB_FLAG_IOPRIO;
				cbs[i].aio_reqprio = IOPRIO_VALUE(IOPRIO_CLASS_BE, 7);
			}
		if (set_thread_ioprio(thread_prio))
			wl_die("ioprio_set", errno);
		wl_aio_setup(r.n, &ctx);
		wl_aio_run(ctx, cbs, r.n, &st, &r.reap);
		printf("# round %u: %s\n", round, round ?
		       "thread without a priority, each request be/7 (IOCB_FLAG_IOPRIO)" :
		       "thread in the idle class");
		io_destroy(ctx);
		free(cbs);
		close(fd);
	}
	set_thread_ioprio(IOPRIO_VALUE(IOPRIO_CLASS_NONE, 0));
	return wl_finish(&o, "libaio", &st);
}
