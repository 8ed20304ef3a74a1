// SPDX-License-Identifier: GPL-2.0
/*
 * aio_opt_in: the per-request opt-in of the series (IOCB_FLAG_BUFFERED_ASYNC
 * in aio_flags).  One io_submit() of COUNT (default 64) cold 4 KiB buffered
 * reads, then one of COUNT 4 KiB O_DSYNC writes; in each, the requests with
 * an even id set the flag and the odd ones do not.
 *
 * A request that may not go asynchronously is done by io_submit() itself,
 * so its completion is in the ring when io_submit() returns.  Checked here,
 * with exact counts, from what fs.aio-buffered-async says:
 *   absent (stock) or 0   every request complete at return: COUNT of COUNT;
 *   1 (the default)       every request without the flag: COUNT/2 of COUNT/2;
 *   2                     nothing at return (any request may go async).
 * Every read must return its file's data and every write must be read back.
 * What the trace adds (fsaio check): with 1, a request without the flag
 * must not be retried or punted (retry_lifecycle) and the sleeps of the
 * others must not be in io_submit (nonblocking_submit_libaio).
 */
#include "lib/wl.h"

#define WSIZE	4096u
#define STRIDE	(64u * 1024)

static const char help[] =
	"COUNT (64) cold reads, then COUNT O_DSYNC writes, every other one with\n"
	"IOCB_FLAG_BUFFERED_ASYNC; the ones that may not go async must be complete\n"
	"when io_submit returns.\n";

/* What io_submit() left in the ring by the time it returned. */
struct at_return {
	unsigned asked, not_asked;	/* completions at return, by flag */
};

static void ask_even(struct iocb *cbs, unsigned n)
{
	for (unsigned i = 0; i < n; i += 2)
		cbs[i].u.c.flags |= IOCB_FLAG_BUFFERED_ASYNC;
}

/* One io_submit of cbs; count what is complete at return, reap the rest. */
static struct at_return submit_batch(struct iocb *cbs, unsigned n,
				     struct wl_stats *st, struct wl_reap *r)
{
	struct timespec zero = { 0, 0 };
	struct at_return ar = { 0, 0 };
	struct io_event *ev = calloc(n, sizeof(*ev));
	unsigned submitted;
	io_context_t ctx;
	int got;

	if (!ev)
		wl_die("calloc", ENOMEM);
	wl_aio_setup(n, &ctx);
	submitted = wl_aio_submit_iocbs(ctx, cbs, n, st);
	got = io_getevents(ctx, 0, n, ev, &zero);
	if (got < 0)
		wl_die("io_getevents", -got);
	for (int i = 0; i < got; i++) {
		if ((uintptr_t)ev[i].data % 2)
			ar.not_asked++;
		else
			ar.asked++;
	}
	wl_aio_account(st, r, ev, got);
	wl_aio_reap_n(ctx, st, r, submitted - got);
	wl_aio_expect_idle(ctx, st, r);
	io_destroy(ctx);
	free(ev);
	return ar;
}

/* The exact counts the mode promises (see the top of the file). */
static void expect(const char *what, struct at_return ar, unsigned n, int mode,
		   struct wl_stats *st)
{
	unsigned asked = (n + 1) / 2, not_asked = n / 2;

	printf("# %s complete when io_submit returned: %u of %u without the flag, "
	       "%u of %u with it (fs.aio-buffered-async %d)\n",
	       what, ar.not_asked, not_asked, ar.asked, asked, mode);
	if (mode != 2 && ar.not_asked != not_asked) {
		fprintf(stderr, "%s: %u requests without IOCB_FLAG_BUFFERED_ASYNC were "
			"still in flight when io_submit returned\n", what,
			not_asked - ar.not_asked);
		st->errors++;
	}
	if (mode == 0 && ar.asked != asked) {
		fprintf(stderr, "%s: %u requests with the flag went asynchronous with "
			"fs.aio-buffered-async 0 (or no such setting)\n", what,
			asked - ar.asked);
		st->errors++;
	}
}

static int write_check(uint64_t id, long res, void *arg)
{
	if (res != WSIZE) {
		fprintf(stderr, "write %" PRIu64 ": res %ld, want %u\n", id, res, WSIZE);
		return -1;
	}
	return 0;
}

static void writes(const struct wl_opts *o, int mode, struct wl_stats *st)
{
	struct wl_file f = { .seed = 0x0b71 };
	struct wl_reap r = { .check = write_check, .nreq = o->count };
	struct wl_extent *ext = calloc(o->count, sizeof(*ext));
	struct iocb *cbs = calloc(o->count, sizeof(*cbs));
	char *bufs = wl_alloc((size_t)o->count * WSIZE), *back = wl_alloc(WSIZE);
	int fd;

	r.seen = calloc(o->count, 1);
	if (!ext || !cbs || !r.seen)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < o->count; i++)
		ext[i] = (struct wl_extent){ (uint64_t)i * STRIDE, WSIZE };
	f.size = (uint64_t)o->count * STRIDE;
	f.data = ext;
	wl_create(&f, o->dir, "aio_opt_in-w");	/* all hole ... */
	f.ndata = o->count;			/* ... then the writes */
	fd = open(f.path, O_RDWR | O_DSYNC | O_CLOEXEC);
	if (fd < 0)
		wl_die(f.path, errno);
	for (unsigned i = 0; i < o->count; i++) {
		char *b = bufs + (size_t)i * WSIZE;

		pattern_fill(f.seed, (uint64_t)i * STRIDE, b, WSIZE);
		io_prep_pwrite(&cbs[i], fd, b, WSIZE, (uint64_t)i * STRIDE);
		cbs[i].data = (void *)(uintptr_t)i;
	}
	ask_even(cbs, o->count);
	expect("O_DSYNC writes", submit_batch(cbs, o->count, st, &r), o->count, mode, st);
	for (unsigned i = 0; i < o->count; i++) {
		uint64_t off = (uint64_t)i * STRIDE;

		if (pread(fd, back, WSIZE, off) != WSIZE || wl_verify(&f, back, off, WSIZE)) {
			fprintf(stderr, "write %u: not read back\n", i);
			st->errors++;
		} else {
			st->verified++;
		}
	}
	close(fd);
	free(back);
	free(bufs);
	free(cbs);
	free(r.seen);
	free(ext);
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_opt_in", .count = 64 };
	struct wl_reads c = { .f.seed = 0x0b71 };
	struct wl_stats st = { 0 };
	struct iocb *cbs;
	int fd, mode;

	wl_getopt(argc, argv, &o, help, "", NULL);
	mode = wl_aio_async_mode();
	fd = wl_batch_case(&o, &c);
	cbs = wl_aio_prep_reads(&c, fd);
	ask_even(cbs, c.n);
	expect("cold reads", submit_batch(cbs, c.n, &st, &c.reap), c.n, mode, &st);
	free(cbs);
	close(fd);
	writes(&o, mode, &st);
	return wl_finish(&o, "libaio", &st);
}
