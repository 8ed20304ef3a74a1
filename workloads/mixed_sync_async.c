// SPDX-License-Identifier: GPL-2.0
/*
 * mixed_sync_async: a thread reads pages synchronously with pread() while
 * the main thread submits libaio reads of the same pages, cold cache, both
 * starting together (barrier).  COUNT (default 64) 4 KiB pages 64 KiB apart;
 * the thread walks them in reverse so the two meet on pages the other one
 * has locked for I/O.  Every read, sync and async, is verified.
 *
 * A sync reader and an async retry waiting on the same folio lock: the
 * wake must reach both, and neither may see a partly filled page.
 * engine=mixed; submitted/completed/bytes count the libaio requests only;
 * verified counts libaio and pread requests (a "# sync:" line gives the
 * pread figures).
 */
#include <pthread.h>

#include "common.h"

#define RSIZE		4096u
#define STRIDE		(64u * 1024)

static const char help[] =
	"COUNT (64) cold pages read by libaio and by a pread() thread at once.\n"
	"  (-s is ignored: the file is COUNT*64k)\n";

struct ctx {
	struct wl_file f;
	char *bufs;		/* libaio buffers */
	int fd;
	unsigned n;
	pthread_barrier_t go;
	unsigned sync_ok, sync_bad;
};

static int check(uint64_t id, long res, void *arg)
{
	struct ctx *c = arg;

	if (res != RSIZE) {
		fprintf(stderr, "aio read %" PRIu64 ": res %ld, want %u\n", id, res, RSIZE);
		return -1;
	}
	return wl_verify(&c->f, c->bufs + id * RSIZE, id * STRIDE, RSIZE);
}

static void *sync_reader(void *arg)
{
	struct ctx *c = arg;
	char *buf = wl_alloc(RSIZE);

	pthread_barrier_wait(&c->go);
	for (unsigned i = c->n; i-- > 0;) {
		uint64_t off = (uint64_t)i * STRIDE;
		ssize_t r = pread(c->fd, buf, RSIZE, off);

		if (r == RSIZE && !wl_verify(&c->f, buf, off, RSIZE)) {
			c->sync_ok++;
		} else {
			if (r != RSIZE)
				fprintf(stderr, "pread at %" PRIu64 ": %zd\n", off, r);
			c->sync_bad++;
		}
	}
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "mixed_sync_async", .count = 64 };
	struct ctx c = { .f.seed = 0x5a5c };
	struct wl_stats st = { 0 };
	struct wl_reap r = { .check = check, .arg = &c };
	struct iocb *cbs, **ptrs;
	io_context_t ctx;
	pthread_t thr;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	c.n = r.nreq = o.count;
	c.f.size = (uint64_t)o.count * STRIDE;
	wl_create(&c.f, o.dir, o.name);
	c.fd = wl_open_cold(&c.f, O_RDONLY);

	wl_aio_setup(o.count, &ctx);
	cbs = calloc(o.count, sizeof(*cbs));
	ptrs = calloc(o.count, sizeof(*ptrs));
	r.seen = calloc(o.count, 1);
	c.bufs = wl_alloc((size_t)o.count * RSIZE);
	if (!cbs || !ptrs || !r.seen)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < o.count; i++) {
		io_prep_pread(&cbs[i], c.fd, c.bufs + (size_t)i * RSIZE, RSIZE,
			      (uint64_t)i * STRIDE);
		cbs[i].data = (void *)(uintptr_t)i;
		ptrs[i] = &cbs[i];
	}
	pthread_barrier_init(&c.go, NULL, 2);
	if (pthread_create(&thr, NULL, sync_reader, &c))
		wl_die("pthread_create", EAGAIN);

	pthread_barrier_wait(&c.go);
	st.submitted = wl_aio_submit_all(ctx, ptrs, o.count);
	if (st.submitted < o.count)
		st.errors++;
	wl_aio_reap(ctx, &st, &r);
	wl_aio_expect_idle(ctx, &st, &r);
	pthread_join(thr, NULL);

	printf("# sync: preads=%u verified=%u errors=%u\n", c.n, c.sync_ok,
	       c.sync_bad);
	st.verified += c.sync_ok;
	st.errors += c.sync_bad;
	io_destroy(ctx);
	close(c.fd);
	return wl_finish(&o, "mixed", &st);
}
