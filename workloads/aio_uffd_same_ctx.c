// SPDX-License-Identifier: GPL-2.0
/*
 * aio_uffd_same_ctx: a userfaultfd handler that fetches the contents of a
 * faulting page with an aio read on the context whose reads faulted.
 *
 * COUNT (default 128) cold 4 KiB reads land in userfaultfd pages.  A
 * second thread handles the faults as a user-space pager would: for each
 * one it reads the page's contents from a source file with one aio read
 * on the same context, waits for that read (10 s at most), and
 * UFFDIO_COPYs the contents in.  On a stock kernel each read faults in
 * io_submit() itself, in the main thread, and the handler's read runs
 * synchronously beside it.  With the series the COUNT reads are resumed
 * in aio workers, whose copies park in the faults; where a context runs
 * fewer work items at once than it has reads (64 in series v10), the
 * handler's read, gone asynchronous, waits behind the parked ones for
 * ever.  Each read of the main thread must end with the parked file's
 * data; the handler's, with the source's.  Skips without userfaultfd.
 */
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>

#include "lib/wl.h"

#define HANDLER_DEADLINE	10	/* s: one handler read */
#define HANDLER_ID		1000000	/* aio_data of the handler's reads */

static const char help[] =
	"COUNT (128) cold reads into userfaultfd pages whose faults a second thread\n"
	"serves with aio reads on the same context; every read must complete.\n"
	"Needs userfaultfd (root).\n";

struct pager {
	int uffd;
	io_context_t ctx;
	struct wl_file src;	/* the pages' contents, read cold */
	int src_fd;
	struct wl_reads *c;	/* the main thread's reads, reaped here */
	struct wl_stats st;	/* the main thread's and the handler's */
	unsigned served;
	uint64_t handler_submitted;	/* added to st once both threads are done */
	char *page;
};

/* One event of ctx: the main thread's reads are accounted, the handler's
 * own (HANDLER_ID) returned through *own. */
static int reap_one(struct pager *p, double deadline, struct io_event *own)
{
	struct io_event ev;
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	while (wl_now() < deadline) {
		int n = io_getevents(p->ctx, 1, 1, &ev, &ts);

		if (n < 0 && n != -EINTR)
			wl_die("io_getevents", -n);
		if (n <= 0)
			continue;
		if ((uintptr_t)ev.data >= HANDLER_ID) {
			*own = ev;
			return 0;
		}
		wl_aio_account(&p->st, &p->c->reap, &ev, 1);
	}
	return -1;
}

/* Serve one fault: fetch the page from the source with an aio read on the
 * same context, copy it in. */
static int serve(struct pager *p, uint64_t addr)
{
	uint64_t page = addr & ~(uint64_t)(WL_PAGE - 1);
	uint64_t idx = (page - (uintptr_t)p->c->rd[0].buf) / WL_PAGE;
	struct iocb cb, *cbp = &cb;
	struct io_event own = { 0 };
	struct uffdio_copy copy;

	io_prep_pread(&cb, p->src_fd, p->page, WL_PAGE, idx * WL_PAGE);
	cb.data = (void *)(uintptr_t)(HANDLER_ID + idx);
	if (io_submit(p->ctx, 1, &cbp) != 1)
		wl_die("io_submit (handler)", errno);
	p->handler_submitted++;
	if (reap_one(p, wl_now() + HANDLER_DEADLINE, &own)) {
		fprintf(stderr, "the handler's read of page %" PRIu64 " on the same context did "
			"not complete within %d s: it waits behind the reads whose faults it "
			"serves\n", idx, HANDLER_DEADLINE);
		return -1;
	}
	p->st.completed++;
	if (own.res != WL_PAGE || wl_verify(&p->src, p->page, idx * WL_PAGE, WL_PAGE)) {
		fprintf(stderr, "handler read of page %" PRIu64 ": res %lld\n", idx,
			(long long)own.res);
		p->st.errors++;
	} else {
		p->st.bytes += WL_PAGE;
		p->st.verified++;
	}
	copy = (struct uffdio_copy){ .dst = page, .src = (uintptr_t)p->page, .len = WL_PAGE };
	if (ioctl(p->uffd, UFFDIO_COPY, &copy) && errno != EEXIST)
		wl_die("UFFDIO_COPY", errno);
	p->served++;
	return 0;
}

/* The pager: serve faults until every main read is reaped. */
static void *pager_main(void *arg)
{
	struct pager *p = arg;
	double deadline = wl_now() + WL_TIMEOUT_S;

	while (p->st.completed - p->served < p->c->n && wl_now() < deadline) {
		struct pollfd pfd = { p->uffd, POLLIN, 0 };
		struct uffd_msg msg;
		struct io_event ev;
		struct timespec ts = { 0, 0 };
		int n;

		if (poll(&pfd, 1, 50) > 0 && read(p->uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		    msg.event == UFFD_EVENT_PAGEFAULT) {
			if (serve(p, msg.arg.pagefault.address)) {
				p->st.errors++;
				break;
			}
			continue;
		}
		n = io_getevents(p->ctx, 0, 1, &ev, &ts);
		if (n == 1 && (uintptr_t)ev.data < HANDLER_ID)
			wl_aio_account(&p->st, &p->c->reap, &ev, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_uffd_same_ctx", .count = 128 };
	struct wl_file parked = { .seed = 0x5a3e }, src = { .seed = 0x5a3f };
	struct wl_reads c = { 0 };
	struct pager p = { 0 };
	struct iocb *cbs, **ptrs;
	pthread_t t;
	unsigned accepted;
	char *buf;
	int fd;

	wl_getopt(argc, argv, &o, help, "", NULL);
	p.uffd = wl_uffd_region((size_t)o.count * WL_PAGE, &buf);
	if (p.uffd < 0)
		wl_skip("userfaultfd unavailable", -p.uffd);
	wl_aio_setup(2 * o.count, &p.ctx);
	parked.size = src.size = (uint64_t)o.count * WL_PAGE;
	wl_create(&parked, o.dir, "aio_uffd_same_ctx-parked");
	wl_create(&src, o.dir, "aio_uffd_same_ctx-source");
	c.f = parked;
	wl_strided_reads(&c, o.count, WL_PAGE, WL_PAGE);
	for (unsigned i = 0; i < o.count; i++)
		c.rd[i].buf = buf + (size_t)i * WL_PAGE;
	fd = wl_open_cold(&parked, O_RDONLY);
	cbs = wl_aio_prep_reads(&c, fd);
	ptrs = calloc(o.count, sizeof(*ptrs));
	p.page = wl_alloc(WL_PAGE);
	if (!ptrs)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < o.count; i++)
		ptrs[i] = &cbs[i];
	p.src = src;
	p.src_fd = wl_open_cold(&src, O_RDONLY);
	p.c = &c;
	if (pthread_create(&t, NULL, pager_main, &p))
		wl_die("pthread_create", errno);
	/* stock: each read faults here, served by the pager meanwhile */
	accepted = wl_aio_submit_all(p.ctx, ptrs, o.count);
	pthread_join(t, NULL);
	p.st.submitted += accepted + p.handler_submitted;
	printf("# %u faults served by aio reads on the same context\n", p.served);
	if (p.st.completed - p.served < o.count) {
		fprintf(stderr, "%" PRIu64 " of %u reads never completed\n",
			o.count - (p.st.completed - p.served), o.count);
		p.st.errors++;
		/* let the parked copies go: they fail, their reads complete */
		close(p.uffd);
		wl_aio_reap_n(p.ctx, &p.st, &c.reap, o.count - (p.st.completed - p.served));
	}
	io_destroy(p.ctx);
	close(fd);
	close(p.src_fd);
	return wl_finish(&o, "libaio", &p.st);
}
