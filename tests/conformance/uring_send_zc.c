// SPDX-License-Identifier: GPL-2.0
/*
 * uring_send_zc: zero-copy sends (IORING_OP_SEND_ZC) over a loopback TCP
 * connection, as liburing's send-zerocopy example and test do.  16 sends
 * one at a time (each waited for to the end), then 8 in one submit; every
 * 4 KiB sent is received and compared on the other end.
 *
 * What the kernel does: each send posts its own CQE with IORING_CQE_F_MORE
 * and its req struct is freed; then a notification CQE with the same
 * user_data and IORING_CQE_F_NOTIF (no F_MORE) is posted by a request the
 * kernel allocated itself at prep (io_alloc_notif), which never went
 * through io_uring_submit_req, from the same req cache: it often gets the
 * req struct of an earlier, finished send.  The program's send has ended
 * when its notification arrives.
 *
 * Exact counts: SQEs 24 (= submitted, all io_uring_submit_req), sends
 * ended 24 (= completed), CQEs 48 of which 24 with F_MORE (res 4096) and
 * 24 notifications (F_NOTIF), bytes 24 * 4096 received and verified.
 */
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "lib/wl.h"

#define ONE_BY_ONE	16
#define BATCH		8
#define LEN		4096

static const char help[] = "24 IORING_OP_SEND_ZC on loopback TCP: 48 CQEs.\n";

static unsigned cqes, notifs;

/* A connected loopback TCP pair: fd[0] receives, fd[1] sends. */
static void tcp_pair(int fd[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &len))
		wl_die("listen on 127.0.0.1", errno);
	fd[1] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd[1] < 0 || connect(fd[1], (struct sockaddr *)&a, sizeof(a)))
		wl_die("connect to 127.0.0.1", errno);
	fd[0] = accept(l, NULL, NULL);
	if (fd[0] < 0)
		wl_die("accept", errno);
	close(l);
}

/* Reap one CQE of the sends; returns 1 when it ended a send. */
static int reap_one(struct io_uring *ring, struct wl_stats *st, unsigned char *state,
		    unsigned n)
{
	struct io_uring_cqe *cqe = wl_uring_wait(ring);
	uint64_t i = cqe->user_data;
	int ended = 0;

	cqes++;
	if (i >= n) {
		st->errors++;
	} else if (cqe->flags & IORING_CQE_F_NOTIF) {
		notifs++;
		if (state[i] != 1)	/* the notification follows the send's CQE */
			st->errors++;
		state[i] = 2;
		ended = 1;
	} else if (cqe->res == -EINVAL || cqe->res == -EOPNOTSUPP) {
		wl_skip("IORING_OP_SEND_ZC", -cqe->res);
	} else if (cqe->res != LEN || !(cqe->flags & IORING_CQE_F_MORE) || state[i]) {
		fprintf(stderr, "send %" PRIu64 ": res %d flags %#x\n", i, cqe->res, cqe->flags);
		st->errors++;
		state[i] = 2;
		ended = !(cqe->flags & IORING_CQE_F_MORE);
	} else {
		state[i] = 1;
	}
	io_uring_cqe_seen(ring, cqe);
	return ended;
}

static void send_one(struct io_uring *ring, int fd, const char *buf, uint64_t i)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_send_zc(sqe, fd, buf, LEN, 0, 0);
	io_uring_sqe_set_data64(sqe, i);
}

/* Receive n * LEN bytes and compare them with what was sent. */
static void receive(int fd, const char *sent, unsigned n, struct wl_stats *st)
{
	static char got[BATCH * LEN];
	size_t want = (size_t)n * LEN, have = 0;

	while (have < want) {
		ssize_t r = recv(fd, got + have, want - have, 0);

		if (r <= 0)
			wl_die("recv", r ? errno : EPIPE);
		have += r;
	}
	if (memcmp(got, sent, want)) {
		st->errors++;
		return;
	}
	st->bytes += want;
	st->verified += n;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_send_zc", .count = ONE_BY_ONE + BATCH };
	const unsigned n = ONE_BY_ONE + BATCH;
	unsigned char state[ONE_BY_ONE + BATCH] = { 0 };
	struct wl_stats st = { 0 };
	struct io_uring ring;
	unsigned i, ended;
	char *bufs;
	int fd[2];

	wl_getopt(argc, argv, &o, help, NULL, NULL);	/* -n is ignored */
	wl_uring_setup(2 * BATCH, &ring);
	tcp_pair(fd);
	bufs = wl_alloc((size_t)n * LEN);
	for (i = 0; i < n * LEN; i++)
		bufs[i] = (char)(i * 7 + i / LEN);

	/* one at a time: the send's CQE, then its notification */
	for (i = 0; i < ONE_BY_ONE; i++) {
		send_one(&ring, fd[1], bufs + (size_t)i * LEN, i);
		st.submitted += wl_uring_submit_all(&ring, 1);
		ended = 0;
		while (!ended)
			ended = reap_one(&ring, &st, state, n);
		st.completed++;
		receive(fd[0], bufs + (size_t)i * LEN, 1, &st);
	}
	/* a batch: 8 sends in flight together */
	for (i = ONE_BY_ONE; i < n; i++)
		send_one(&ring, fd[1], bufs + (size_t)i * LEN, i);
	st.submitted += wl_uring_submit_all(&ring, BATCH);
	for (ended = 0; ended < BATCH; )
		ended += reap_one(&ring, &st, state, n);
	st.completed += ended;
	receive(fd[0], bufs + (size_t)ONE_BY_ONE * LEN, BATCH, &st);

	if (st.submitted != n || cqes != 2 * n || notifs != n)
		st.errors++;
	printf("# expect: io_uring sqes=%u submit_req=%u cqes=%u (want %u) f_more=%u"
	       " notif=%u\n", n, n, cqes, 2 * n, n, notifs);
	io_uring_queue_exit(&ring);
	close(fd[0]);
	close(fd[1]);
	return wl_finish(&o, "io_uring", &st);
}
