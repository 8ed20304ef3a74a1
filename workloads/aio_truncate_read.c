// SPDX-License-Identifier: GPL-2.0
/*
 * aio_truncate_read: COUNT (default 64) cold 16 KiB buffered libaio reads,
 * 64 KiB apart, from the end of the file backwards, in one io_submit, while
 * a second thread ftruncate()s the file to about half its size (mid-page,
 * inside one of the reads).  Four rounds, the truncate 0, 2, 6 and 15 ms
 * after the submit starts, each on a freshly written cold file: on a stock
 * kernel, where io_submit reads one request after the other, the later
 * rounds find more of the reads past the new size already done.
 *
 * Each completion must be the full original read, or a short read that
 * ends at or beyond the new EOF (0 for a read wholly past it); a read
 * wholly below the new size must be full.  Bytes below the new size must
 * be the original data; bytes at or past it the original data or zeros (a
 * read racing the truncate may see the partial page already zeroed);
 * nothing is written past the result.  A "# round" line counts full,
 * short and zero results, i.e. how often the race was hit.
 */
#include <pthread.h>
#include <time.h>

#include "lib/wl.h"

#define RSIZE		(16u * 1024)
#define STRIDE		(64u * 1024)
#define ROUNDS		4

static const char help[] =
	"COUNT (64) cold reads racing an ftruncate to half the size, 4 rounds.\n"
	"  -s is ignored: the file is COUNT*64k\n";

static const unsigned delay_us[ROUNDS] = { 0, 2000, 6000, 15000 };

struct ctx {
	struct wl_reads r;
	uint64_t new_size;
	unsigned delay;		/* us after the barrier */
	pthread_barrier_t go;
	unsigned full, part, zero;
};

static int check(uint64_t id, long res, void *arg)
{
	struct ctx *c = arg;
	const struct wl_rd *q = &c->r.rd[id];
	uint64_t ns = c->new_size;
	const uint8_t *p = (const uint8_t *)q->buf;

	if (res < 0 || res > (long)q->len ||
	    (res < (long)q->len && q->off + res < ns)) {
		fprintf(stderr, "read %" PRIu64 " at %" PRIu64 "+%zu: res %ld, new size %"
			PRIu64 "\n", id, q->off, q->len, res, ns);
		return -1;
	}
	for (long k = 0; k < res; k++) {
		uint64_t off = q->off + k;

		if (p[k] != pattern_byte(c->r.f.seed, off) && (off < ns || p[k])) {
			fprintf(stderr, "read %" PRIu64 ": garbage 0x%02x at offset %" PRIu64
				" (new size %" PRIu64 ")\n", id, p[k], off, ns);
			return -1;
		}
	}
	if (wl_check_tail(q->buf, res, q->len))
		return -1;
	if (res == (long)q->len)
		c->full++;
	else if (res)
		c->part++;
	else
		c->zero++;
	return 0;
}

static void *truncator(void *arg)
{
	struct ctx *c = arg;
	int fd = open(c->r.f.path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		wl_die("open for truncate", errno);
	pthread_barrier_wait(&c->go);
	if (c->delay)
		usleep(c->delay);
	if (ftruncate(fd, c->new_size))
		wl_die("ftruncate", errno);
	close(fd);
	return NULL;
}

static void round_(struct ctx *c, const struct wl_opts *o, unsigned round,
		   struct wl_stats *st)
{
	struct wl_reads *r = &c->r;
	io_context_t ctx;
	struct iocb *cbs;
	struct stat sb;
	pthread_t thr;
	int fd;

	c->delay = delay_us[round];
	c->full = c->part = c->zero = 0;
	memset(r->reap.seen, 0, r->n);
	memset(r->bufs, 0xa5, (size_t)r->n * RSIZE);
	fd = wl_reads_file(o, r);	/* full size again, cold */
	cbs = wl_aio_prep_reads(r, fd);
	wl_aio_setup(r->n, &ctx);
	pthread_barrier_init(&c->go, NULL, 2);
	if (pthread_create(&thr, NULL, truncator, c))
		wl_die("pthread_create", EAGAIN);

	pthread_barrier_wait(&c->go);
	wl_aio_run(ctx, cbs, r->n, st, &r->reap);
	pthread_join(thr, NULL);
	pthread_barrier_destroy(&c->go);
	if (fstat(fd, &sb) || (uint64_t)sb.st_size != c->new_size) {
		fprintf(stderr, "size after truncate: %lld\n", (long long)sb.st_size);
		st->errors++;
	}
	printf("# round %u: truncate to %" PRIu64 " after %u us: %u full, %u short, %u zero\n",
	       round, c->new_size, c->delay, c->full, c->part, c->zero);
	io_destroy(ctx);
	free(cbs);
	close(fd);
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_truncate_read", .count = 64 };
	struct ctx c = { .r.f.seed = 0x7a7e };
	struct wl_stats st = { 0 };

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	if (o.count < 2) {
		fprintf(stderr, "need -n >= 2\n");
		return EXIT_USAGE;
	}
	c.r.f.size = (uint64_t)o.count * STRIDE;
	c.new_size = (uint64_t)(o.count / 2) * STRIDE + 5000;
	wl_strided_reads(&c.r, o.count, STRIDE, RSIZE);
	for (unsigned i = 0; i < o.count; i++)	/* last offset first */
		c.r.rd[i].off = (uint64_t)(o.count - 1 - i) * STRIDE;
	c.r.reap.check = check;
	c.r.reap.arg = &c;
	for (unsigned i = 0; i < ROUNDS; i++)
		round_(&c, &o, i, &st);
	return wl_finish(&o, "libaio", &st);
}
