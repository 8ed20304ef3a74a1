// SPDX-License-Identifier: GPL-2.0
/*
 * aio_read_large: multi-folio libaio buffered reads with readahead off, in
 * one io_submit: 16 reads of 64 KiB, 16 IOCB_CMD_PREADV reads of 64 KiB +
 * 300 bytes at odd offsets into three iovecs, and 4 reads of 1 MiB, cold;
 * then the same 36 again from the page cache.  Every byte is verified.
 *
 * With read_ahead_kb=0 each round trip reads one folio, so an async read
 * is re-armed many times and must keep its partial progress (the 64 KiB
 * reads: 16 retries each).  Readahead is switched off only when the file
 * is on a test device (loop or null_blk, wl_readahead_off) and restored at exit;
 * elsewhere a "# note:" says so and the reads go out request-sized
 * (POSIX_FADV_RANDOM).
 */
#include "lib/wl.h"

#define NR64		16
#define NRV		16
#define NR1M		4
#define NREQ		(NR64 + NRV + NR1M)
#define SLOT		((1u << 20) + 8192)
#define STRIDE		(1u << 20)	/* 1 MiB apart: no shared folio */
#define VLEN		(64u * 1024 + 300)

static const char help[] =
	"36 cold multi-folio reads (64k, 3-iovec 64k+300, 1m), readahead off, then cached.\n"
	"  (-n and -s are ignored: the file is 36 MiB + 12345 bytes)\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_read_large", .count = NREQ };
	struct wl_reads c = { .f.seed = 0x1a49e };
	struct wl_stats st = { 0 };
	struct iovec *iov;
	int fd;

	wl_getopt(argc, argv, &o, help, NULL, NULL);
	c.f.size = (uint64_t)NREQ * STRIDE + 12345;
	wl_reads_init(&c, NREQ, SLOT);
	iov = calloc(NRV * 3, sizeof(*iov));
	if (!iov)
		wl_die("calloc", ENOMEM);
	for (unsigned i = 0; i < NREQ; i++) {
		struct wl_rd *q = &c.rd[i];
		char *buf = c.bufs + (size_t)i * SLOT;

		q->off = (uint64_t)i * STRIDE;
		if (i < NR64) {
			q->len = 64 * 1024;
			q->buf = buf;
		} else if (i < NR64 + NRV) {
			struct iovec *v = iov + (i - NR64) * 3;

			q->off += 100 + i;	/* odd offsets */
			q->len = VLEN;
			v[0] = (struct iovec){ buf + 1, VLEN / 3 };
			v[1] = (struct iovec){ buf + 8 + VLEN / 3, VLEN / 3 };
			v[2] = (struct iovec){ buf + 16 + 2 * (VLEN / 3), VLEN - 2 * (VLEN / 3) };
			q->iov = v;
			q->niov = 3;
		} else {
			q->len = 1u << 20;
			q->buf = buf;
		}
	}
	if (wl_readahead_off(o.dir))
		printf("# note: readahead left on (not a test device, or not writable)\n");
	fd = wl_reads_file(&o, &c);	/* opened after read_ahead_kb=0 */
	wl_aio_reads(&c, fd, &st);

	/* Cached: the same requests complete at once, bytes still right. */
	memset(c.reap.seen, 0, NREQ);
	memset(c.bufs, 0xa5, (size_t)NREQ * SLOT);
	wl_aio_reads(&c, fd, &st);
	close(fd);
	return wl_finish(&o, "libaio", &st);
}
