// SPDX-License-Identifier: GPL-2.0
/*
 * uring_read_multishot: one multishot read with provided buffers, until the
 * buffers run out (multishot: one request, many CQEs).  A buffer ring of
 * COUNT (default 8) 64-byte buffers (IORING_REGISTER_PBUF_RING, group 1)
 * and one IORING_OP_READ_MULTISHOT (6.7+; skipped where the probe lacks it)
 * on the read end of a pipe; the pipe gets COUNT distinct messages, each
 * awaited and checked in the buffer the CQE names, and then one more.
 *
 * What the kernel does: every message is read into the next provided
 * buffer and posted with IORING_CQE_F_BUFFER (buffer id in the upper 16
 * bits) and IORING_CQE_F_MORE; the message after the last buffer ends the
 * request: -ENOBUFS without F_MORE.  liburing 2.3 has no
 * io_uring_prep_read_multishot; the SQE is built by hand (opcode 49).
 *
 * Exact counts (default COUNT 8): submitted 1 (io_uring_submit_req 1),
 * completed 1, CQEs 9 of which 8 with F_MORE, 1 with res < 0 (-ENOBUFS),
 * bytes = the 8 messages' lengths, verified 8.
 */
#include "lib/wl.h"

#ifndef IORING_OP_READ_MULTISHOT
#define IORING_OP_READ_MULTISHOT	49
#endif
#define BGID		1
#define BUF_SIZE	64
#define READ_ID		7

static const char help[] =
	"One multishot read on a pipe into COUNT (8) provided buffers, then -ENOBUFS.\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_read_multishot", .count = 8 };
	struct io_uring_buf_reg reg = { .bgid = BGID };
	struct wl_stats st = { 0 };
	struct io_uring_probe *probe;
	struct io_uring_buf_ring *br;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	unsigned entries = 1, more = 0;
	char *bufs, msg[BUF_SIZE];
	int p[2], ret, len;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	wl_uring_setup(8, &ring);
	probe = io_uring_get_probe_ring(&ring);
	if (!probe || !io_uring_opcode_supported(probe, IORING_OP_READ_MULTISHOT))
		wl_skip("IORING_OP_READ_MULTISHOT not supported", EOPNOTSUPP);
	io_uring_free_probe(probe);
	while (entries < o.count)
		entries <<= 1;
	br = wl_alloc(entries * sizeof(struct io_uring_buf));
	bufs = wl_alloc((size_t)o.count * BUF_SIZE);
	reg.ring_addr = (uintptr_t)br;
	reg.ring_entries = entries;
	ret = io_uring_register_buf_ring(&ring, &reg, 0);
	if (ret == -EINVAL)
		wl_skip("provided buffer rings not supported", -ret);
	if (ret)
		wl_die("io_uring_register_buf_ring", -ret);
	io_uring_buf_ring_init(br);
	for (unsigned i = 0; i < o.count; i++)
		io_uring_buf_ring_add(br, bufs + (size_t)i * BUF_SIZE, BUF_SIZE, i,
				      io_uring_buf_ring_mask(entries), i);
	io_uring_buf_ring_advance(br, o.count);
	if (pipe(p))
		wl_die("pipe", errno);

	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_rw(IORING_OP_READ_MULTISHOT, sqe, p[0], NULL, 0, 0);
	sqe->buf_group = BGID;
	sqe->flags |= IOSQE_BUFFER_SELECT;
	io_uring_sqe_set_data64(sqe, READ_ID);
	st.submitted += wl_uring_submit_all(&ring, 1);

	for (unsigned i = 0; i <= o.count; i++) {
		len = snprintf(msg, sizeof(msg), "message %u of %u", i, o.count);
		if (write(p[1], msg, len) != len)
			wl_die("write pipe", errno);
		cqe = wl_uring_wait(&ring);
		if (i == o.count) {	/* no buffer left: the last CQE */
			if (cqe->user_data != READ_ID || cqe->res != -ENOBUFS ||
			    (cqe->flags & IORING_CQE_F_MORE)) {
				fprintf(stderr, "last CQE: res %d flags 0x%x, want -ENOBUFS\n",
					cqe->res, cqe->flags);
				st.errors++;
			}
			if (!(cqe->flags & IORING_CQE_F_MORE))
				st.completed++;
		} else if (cqe->user_data != READ_ID || cqe->res != len ||
			   !(cqe->flags & IORING_CQE_F_MORE) ||
			   !(cqe->flags & IORING_CQE_F_BUFFER)) {
			fprintf(stderr, "message %u: CQE res %d flags 0x%x\n", i,
				cqe->res, cqe->flags);
			st.errors++;
			if (!(cqe->flags & IORING_CQE_F_MORE)) {
				st.completed++;
				io_uring_cqe_seen(&ring, cqe);
				break;
			}
		} else {
			unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;

			more++;
			st.bytes += cqe->res;
			if (bid >= o.count || memcmp(bufs + (size_t)bid * BUF_SIZE, msg, len)) {
				fprintf(stderr, "message %u: buffer %u holds something else\n",
					i, bid);
				st.errors++;
			} else {
				st.verified++;
			}
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	if (io_uring_peek_cqe(&ring, &cqe) == 0) {
		fprintf(stderr, "extra CQE res %d flags 0x%x\n", cqe->res, cqe->flags);
		st.errors++;
	}
	if (more != o.count)
		st.errors++;
	printf("# expect: io_uring sqes=1 submit_req=1 cqes=%u f_more=%u res_negative=1\n",
	       o.count + 1, o.count);
	io_uring_queue_exit(&ring);
	return wl_finish(&o, "io_uring", &st);
}
