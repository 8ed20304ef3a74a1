// SPDX-License-Identifier: GPL-2.0
/*
 * aio_preadv: IOCB_CMD_PREADV vectored buffered reads from a cold file.
 * Each of COUNT (default 32) requests scatters into 5 (even requests) or
 * 12 (odd ones: more than UIO_FASTIOV, so the kernel's iovec array is
 * kmalloc()ed and an async request takes it over) iovecs of odd sizes at
 * odd addresses, from an unaligned
 * file offset; the last request crosses EOF and must come back short.
 * Every segment is verified, and bytes past a short result stay untouched.
 *
 * A retried vectored read must resume in the middle of the right iovec.
 */
#include "lib/wl.h"

static const char help[] =
	"COUNT (32) cold IOCB_CMD_PREADV reads, 5 or 12 odd-sized iovecs each, verified.\n"
	"  -s FILESIZE  file size (default 4m)\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_preadv", .count = 32 };
	struct wl_reads c = { .f.seed = 0x1f0 };

	return wl_reads_main(argc, argv, &o, &c, help, wl_iov_case, WL_LIBAIO);
}
