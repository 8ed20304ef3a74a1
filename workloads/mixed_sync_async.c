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

#include "lib/wl.h"

static const char help[] =
	"COUNT (64) cold pages read by libaio and by a pread() thread at once.\n"
	"  -s FILESIZE  file size; pages are spread evenly (default COUNT*64k)\n";

struct ctx {
	struct wl_reads r;
	int fd;
	pthread_barrier_t go;
	unsigned sync_ok, sync_bad;
};

static void *sync_reader(void *arg)
{
	struct ctx *c = arg;
	char *buf = wl_alloc(WL_PAGE);

	pthread_barrier_wait(&c->go);
	for (unsigned i = c->r.n; i-- > 0;) {
		uint64_t off = c->r.rd[i].off;
		ssize_t r = pread(c->fd, buf, WL_PAGE, off);

		if (r == WL_PAGE && !wl_verify(&c->r.f, buf, off, WL_PAGE)) {
			c->sync_ok++;
		} else {
			if (r != WL_PAGE)
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
	struct ctx c = { .r.f.seed = 0x5a5c };
	struct wl_stats st = { 0 };
	struct iocb *cbs;
	io_context_t ctx;
	pthread_t thr;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	c.fd = wl_batch_case(&o, &c.r);
	wl_aio_setup(o.count, &ctx);
	cbs = wl_aio_prep_reads(&c.r, c.fd);
	pthread_barrier_init(&c.go, NULL, 2);
	if (pthread_create(&thr, NULL, sync_reader, &c))
		wl_die("pthread_create", EAGAIN);

	pthread_barrier_wait(&c.go);
	wl_aio_run(ctx, cbs, o.count, &st, &c.r.reap);
	pthread_join(thr, NULL);

	printf("# sync: preads=%u verified=%u errors=%u\n", c.r.n, c.sync_ok,
	       c.sync_bad);
	st.verified += c.sync_ok;
	st.errors += c.sync_bad;
	io_destroy(ctx);
	close(c.fd);
	return wl_finish(&o, "mixed", &st);
}
