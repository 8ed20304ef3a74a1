// SPDX-License-Identifier: GPL-2.0
/*
 * aio_read_invalidate: COUNT (default 32) cold 16 KiB buffered libaio reads
 * covering the file, in one io_submit, with readahead off (one folio per
 * round trip), while a second thread drops the file's clean page cache
 * (POSIX_FADV_DONTNEED) over and over: 0, 50, 200 and 1000 us apart in
 * four rounds, until every read has completed.
 *
 * A folio read for a waiting request can be invalidated between the wake
 * (its I/O done, the folio unlocked) and the resumed request's copy; the
 * resumed read then finds no folio, starts the read again and re-arms on
 * the new folio without having copied anything.  That is the path where a
 * wake left over from the previous arming must not count (the request
 * would be queued again while its entry is still on the new folio's wait
 * queue: retry_lifecycle sees a resumption whose wait entry is queued).
 * On a stock kernel the same race makes io_submit() read the folio again.
 *
 * Every read must complete once, full, with the file's bytes (invalidation
 * drops clean pages only).  The invalidating thread stops after 3 s even
 * if reads are still in flight, so a read that keeps losing the race still
 * ends; a "# round" line says how many invalidations each round made.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "lib/wl.h"

#define RSIZE		(16u * 1024)
#define ROUNDS		4
#define THRASH_MAX_S	3

static const char help[] =
	"COUNT (32) cold 16 KiB reads, readahead off, while a thread drops the\n"
	"file's page cache again and again (4 rounds, 0-1000 us apart).\n"
	"  -s is ignored: the file is COUNT*16k\n";

static const unsigned gap_us[ROUNDS] = { 0, 50, 200, 1000 };

struct thrash {
	const char *path;
	unsigned gap;
	atomic_bool stop;
	unsigned long drops;
	pthread_barrier_t go;
};

static void *invalidator(void *arg)
{
	struct thrash *t = arg;
	int fd = open(t->path, O_RDONLY | O_CLOEXEC);
	double t0;

	if (fd < 0)
		wl_die("open for fadvise", errno);
	pthread_barrier_wait(&t->go);
	t0 = wl_now();
	while (!atomic_load(&t->stop) && wl_now() - t0 < THRASH_MAX_S) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		t->drops++;
		if (t->gap)
			usleep(t->gap);
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_read_invalidate", .count = 32 };
	struct wl_reads r = { .f.seed = 0x1a7d };
	struct wl_stats st = { 0 };

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	if (o.count < 1 || o.count > 1024) {
		fprintf(stderr, "-n must be 1..1024\n");
		return EXIT_USAGE;
	}
	r.f.size = (uint64_t)o.count * RSIZE;
	wl_strided_reads(&r, o.count, RSIZE, RSIZE);
	if (wl_readahead_off(o.dir))
		printf("# note: readahead left on (not a test device): fewer round trips\n");

	for (unsigned round = 0; round < ROUNDS; round++) {
		struct thrash t = { .gap = gap_us[round] };
		io_context_t ctx;
		struct iocb *cbs;
		pthread_t thr;
		int fd;

		memset(r.reap.seen, 0, r.n);
		memset(r.bufs, 0xa5, (size_t)r.n * RSIZE);
		fd = wl_reads_file(&o, &r);	/* cold again */
		t.path = r.f.path;
		cbs = wl_aio_prep_reads(&r, fd);
		wl_aio_setup(r.n, &ctx);
		pthread_barrier_init(&t.go, NULL, 2);
		if (pthread_create(&thr, NULL, invalidator, &t))
			wl_die("pthread_create", EAGAIN);
		pthread_barrier_wait(&t.go);
		wl_aio_run(ctx, cbs, r.n, &st, &r.reap);
		atomic_store(&t.stop, true);
		pthread_join(thr, NULL);
		pthread_barrier_destroy(&t.go);
		printf("# round %u: invalidations %u us apart: %lu during the reads\n",
		       round, t.gap, t.drops);
		io_destroy(ctx);
		free(cbs);
		close(fd);
	}
	return wl_finish(&o, "libaio", &st);
}
