// SPDX-License-Identifier: GPL-2.0
/*
 * uring_cqe_skip: requests that end without a CQE (IOSQE_CQE_SKIP_SUCCESS),
 * as liburing's test/skip-cqe.c uses them.  Four parts, each waited for
 * before the next:
 *   A: a chain of 4 NOPs, the first 3 with IOSQE_CQE_SKIP_SUCCESS: one CQE
 *      (the last NOP's);
 *   B: a chain NOP(skip) -> WRITE from a NULL buffer to a pipe (skip) ->
 *      NOP(skip) -> NOP: the write fails at issue with -EFAULT and posts
 *      its CQE (a failure is never skipped); because it had the flag the
 *      kernel skips the CQEs of the rest of its chain (REQ_F_SKIP_LINK_
 *      CQES): the last two NOPs are cancelled (io_uring_fail_link)
 *      without a CQE, even the last one, which did not ask for it;
 *   C: 8 NOPs with the flag, one io_uring_submit each (the kernel
 *      recycles the req struct of the previous one), then a plain NOP;
 *   D: 4 chains of a cold 4 KiB read (skip) -> NOP: the NOP's CQE says
 *      the read is done; its data is verified.
 *
 * What the kernel does: a request with REQ_F_CQE_SKIP that succeeds is
 * freed without io_uring_complete firing; nothing traces its end.
 *
 * Exact counts: SQEs 25 (= submitted, all io_uring_submit_req), requests
 * that ended 25 (= completed), CQEs 7 (A 1, B 1, C 1, D 4), ended without
 * a CQE 18 (A 3, B 3, C 8, D 4), res < 0 3 (-EFAULT posted, 2 -ECANCELED
 * skipped), io_uring_fail_link 2, bytes 4 * 4096, verified 4.
 */
#include "lib/wl.h"

#define READS	4
#define STRIDE	(64u * 1024)

static const char help[] = "Requests with IOSQE_CQE_SKIP_SUCCESS: 25 requests, 7 CQEs.\n";

static unsigned cqes;

/* Wait for one CQE: user_data want, result res. */
static void expect_cqe(struct io_uring *ring, struct wl_stats *st, uint64_t want, int res)
{
	struct io_uring_cqe *cqe = wl_uring_wait(ring);

	cqes++;
	if (cqe->user_data != want || cqe->res != res) {
		fprintf(stderr, "CQE user_data %llu res %d, want %" PRIu64 " res %d\n",
			(unsigned long long)cqe->user_data, cqe->res, want, res);
		st->errors++;
	}
	io_uring_cqe_seen(ring, cqe);
}

static struct io_uring_sqe *sqe_of(struct io_uring *ring, uint64_t data, unsigned flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)
		wl_die("io_uring_get_sqe", EBUSY);
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data64(sqe, data);
	sqe->flags |= flags;
	return sqe;
}

static void submit(struct io_uring *ring, struct wl_stats *st, unsigned n)
{
	unsigned got = wl_uring_submit_all(ring, n);

	st->submitted += got;
	if (got != n)
		st->errors++;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_cqe_skip", .count = 25 };
	struct wl_file f = { .seed = 0xc5e1 };
	struct wl_stats st = { 0 };
	const unsigned skip = IOSQE_CQE_SKIP_SUCCESS, link = IOSQE_IO_LINK;
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	int pfd[2], fd;
	char *bufs;
	unsigned i;

	wl_getopt(argc, argv, &o, help, NULL, NULL);	/* -n is ignored */
	wl_uring_setup(16, &ring);
	if (!(ring.features & IORING_FEAT_CQE_SKIP))
		wl_skip("IOSQE_CQE_SKIP_SUCCESS", EOPNOTSUPP);
	if (pipe(pfd))
		wl_die("pipe", errno);
	f.size = (uint64_t)READS * STRIDE;
	wl_create(&f, o.dir, o.name);
	fd = wl_open_cold(&f, O_RDONLY);
	bufs = wl_alloc((size_t)READS * WL_PAGE);

	/* A: 4 linked NOPs, the first 3 silent on success */
	for (i = 0; i < 4; i++)
		sqe_of(&ring, 100 + i, i < 3 ? (skip | link) : 0);
	submit(&ring, &st, 4);
	expect_cqe(&ring, &st, 103, 0);

	/* B: the failed write posts its CQE; the rest of the chain none */
	sqe_of(&ring, 200, skip | link);
	sqe = sqe_of(&ring, 201, skip | link);
	io_uring_prep_write(sqe, pfd[1], NULL, 100, 0);
	io_uring_sqe_set_data64(sqe, 201);
	sqe->flags |= skip | link;
	sqe_of(&ring, 202, skip | link);
	sqe_of(&ring, 203, 0);
	submit(&ring, &st, 4);
	expect_cqe(&ring, &st, 201, -EFAULT);

	/* C: silent NOPs one by one (req structs recycled), then a plain one */
	for (i = 0; i < 8; i++) {
		sqe_of(&ring, 300 + i, skip);
		submit(&ring, &st, 1);
	}
	sqe_of(&ring, 308, 0);
	submit(&ring, &st, 1);
	expect_cqe(&ring, &st, 308, 0);

	/* D: a silent cold read, then a NOP that says it is done */
	for (i = 0; i < READS; i++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, fd, bufs + (size_t)i * WL_PAGE, WL_PAGE,
				   (uint64_t)i * STRIDE);
		io_uring_sqe_set_data64(sqe, 400 + i);
		sqe->flags |= skip | link;
		sqe_of(&ring, 500 + i, 0);
	}
	submit(&ring, &st, 2 * READS);
	for (i = 0; i < READS; i++) {
		struct io_uring_cqe *cqe = wl_uring_wait(&ring);
		uint64_t j = cqe->user_data - 500;

		cqes++;
		if (j >= READS || cqe->res != 0) {
			fprintf(stderr, "CQE user_data %llu res %d\n",
				(unsigned long long)cqe->user_data, cqe->res);
			st.errors++;
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	for (i = 0; i < READS; i++) {
		if (wl_verify(&f, bufs + (size_t)i * WL_PAGE, (uint64_t)i * STRIDE, WL_PAGE)) {
			st.errors++;
			continue;
		}
		st.verified++;
		st.bytes += WL_PAGE;
	}
	/* every request has ended: the ones with a CQE and the silent ones */
	if (io_uring_peek_cqe(&ring, &(struct io_uring_cqe *){ NULL }) == 0) {
		fprintf(stderr, "unexpected extra CQE\n");
		st.errors++;
	}
	st.completed = st.submitted;
	printf("# expect: io_uring sqes=25 submit_req=25 cqes=%u (want 7) no_cqe=18"
	       " res_negative=3 fail_link=2\n", cqes);
	if (cqes != 7)
		st.errors++;
	io_uring_queue_exit(&ring);
	close(pfd[0]);
	close(pfd[1]);
	return wl_finish(&o, "io_uring", &st);
}
