// SPDX-License-Identifier: GPL-2.0
/*
 * uring_early_fail: SQEs the kernel rejects, mixed with good cold reads
 * (failed at init: requests without a submit event).  Four rounds; each
 * queues COUNT (default 16) cold 4 KiB buffered reads and five bad SQEs
 * among them, submits until the kernel has consumed every SQE, reaps every
 * CQE and verifies the reads.
 *
 * What the kernel does with the bad ones (6.x):
 *  - opcode 255, sqe->flags bit 7, a READ into a kernel address: rejected
 *    in io_init_req ("early": io_uring_req_failed, no io_uring_submit_req),
 *    completed at once with -EINVAL, -EINVAL, -EFAULT.  Without
 *    IORING_SETUP_SUBMIT_ALL an early failure ends that io_uring_enter; the
 *    SQE counts as consumed and the rest is submitted by the next call.
 *  - a READ into a PROT_NONE page and a READ of fd -1: accepted (traced
 *    submit), fail at issue with -EFAULT and -EBADF.
 * Rounds 2-4 run on requests recycled from the ring's cache, so an early
 * failure may reuse the pointer of a read that completed in an earlier
 * round: a new request, not a second completion.
 *
 * Exact counts (default COUNT 16): SQEs 84 (= submitted, the sum of
 * io_uring_submit returns), io_uring_submit_req 72, early failures 12,
 * CQEs 84 (= completed), CQEs with res < 0: 20, bytes 262144, verified 64.
 */
#include <sys/mman.h>

#include "lib/wl.h"

#define ROUNDS		4
#define NBAD		5
#define STRIDE		(64u * 1024)

enum kind { GOOD, BAD_OPCODE, BAD_FLAGS, BAD_KADDR, BAD_PROT_NONE, BAD_FD };
static const int want_res[] = { WL_PAGE, -EINVAL, -EINVAL, -EFAULT, -EFAULT, -EBADF };
static const bool early[] = { false, true, true, true, false, false };

static const char help[] =
	"4 rounds of COUNT (16) cold 4 KiB reads mixed with 5 bad SQEs each.\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_early_fail", .count = 16 };
	struct wl_file f = { .seed = 0xea41 };
	struct wl_stats st = { 0 };
	uint64_t nearly = 0, nfailed = 0;
	struct io_uring ring;
	unsigned n, total;
	enum kind *kind;
	unsigned *gidx;		/* good read i: its index among the good ones */
	char *bufs, *none;
	int fd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	n = o.count + NBAD;
	total = ROUNDS * n;
	wl_uring_setup(n, &ring);
	none = mmap(NULL, WL_PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	kind = calloc(total, sizeof(*kind));
	gidx = calloc(total, sizeof(*gidx));
	if (none == MAP_FAILED || !kind || !gidx)
		wl_die("mmap/calloc", errno);
	f.size = (uint64_t)ROUNDS * o.count * STRIDE;
	wl_create(&f, o.dir, o.name);
	fd = wl_open_cold(&f, O_RDONLY);
	bufs = wl_alloc((size_t)ROUNDS * o.count * WL_PAGE);

	for (unsigned r = 0; r < ROUNDS; r++) {
		unsigned good = r * o.count, queued;
		unsigned char seen[n];

		memset(seen, 0, n);
		/* bad SQE k at position (k+1) * n / (NBAD+1): spread out */
		for (unsigned i = 0, k = 0; i < n; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			unsigned id = r * n + i;
			enum kind t = k < NBAD && i == (k + 1) * n / (NBAD + 1) ?
				      (enum kind)(++k) : GOOD;
			uint64_t off = (uint64_t)good * STRIDE;

			kind[id] = t;
			gidx[id] = good;
			switch (t) {
			case GOOD:
				io_uring_prep_read(sqe, fd, bufs + (size_t)good * WL_PAGE,
						   WL_PAGE, off);
				good++;
				break;
			case BAD_OPCODE:
				io_uring_prep_nop(sqe);
				sqe->opcode = 255;
				break;
			case BAD_FLAGS:
				io_uring_prep_nop(sqe);
				sqe->flags = 1u << 7;	/* no such IOSQE_ bit */
				break;
			case BAD_KADDR:
				io_uring_prep_read(sqe, fd, (void *)0xffff888000000000ul,
						   WL_PAGE, 0);
				break;
			case BAD_PROT_NONE:
				io_uring_prep_read(sqe, fd, none, WL_PAGE, 0);
				break;
			case BAD_FD:
				io_uring_prep_read(sqe, -1, bufs, WL_PAGE, 0);
				break;
			}
			io_uring_sqe_set_data64(sqe, id);
			nearly += early[t];
			nfailed += t != GOOD;
		}
		/* Each early failure ends an io_uring_enter: keep submitting. */
		queued = wl_uring_submit_all(&ring, n);
		st.submitted += queued;
		if (queued != n) {
			fprintf(stderr, "round %u: %u of %u SQEs consumed\n", r, queued, n);
			st.errors++;
			break;
		}
		for (unsigned done = 0; done < n; done++) {
			struct io_uring_cqe *cqe = wl_uring_wait(&ring);
			uint64_t id;

			id = cqe->user_data;
			st.completed++;
			if (id < r * n || id >= (r + 1) * n || seen[id - r * n]++) {
				fprintf(stderr, "unexpected CQE user_data=%" PRIu64 "\n", id);
				st.errors++;
			} else if (cqe->res != want_res[kind[id]]) {
				fprintf(stderr, "SQE %" PRIu64 " (kind %d): res %d, want %d\n",
					id, kind[id], cqe->res, want_res[kind[id]]);
				st.errors++;
			} else if (kind[id] == GOOD) {
				unsigned g = gidx[id];

				if (wl_verify(&f, bufs + (size_t)g * WL_PAGE,
					      (uint64_t)g * STRIDE, WL_PAGE))
					st.errors++;
				else
					st.verified++;
				st.bytes += cqe->res;
			}
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	printf("# expect: io_uring sqes=%u submit_req=%" PRIu64 " early_failed=%" PRIu64
	       " cqes=%u res_negative=%" PRIu64 "\n", total, total - nearly, nearly,
	       total, nfailed);
	io_uring_queue_exit(&ring);
	return wl_finish(&o, "io_uring", &st);
}
