// SPDX-License-Identifier: GPL-2.0
/*
 * uring_readv: the io_uring twin of aio_preadv.  COUNT (default 32) cold
 * buffered IORING_OP_READV requests, each scattering into 5 or 12 iovecs of
 * odd sizes at odd addresses from an unaligned offset; the last crosses EOF
 * and must come back short.  CQEs are checked exactly once by user_data.
 *
 * io_uring imports the iovec array into per-request async data, so a retry
 * or an io-wq punt must resume from that copy, advanced past what was
 * already read.
 */
#include "lib/wl.h"

static const char help[] =
	"COUNT (32) cold IORING_OP_READV reads, 5 or 12 odd-sized iovecs each, verified.\n"
	"  -s FILESIZE  file size (default 4m)\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_readv", .count = 32 };
	struct wl_reads c = { .f.seed = 0x1f0 };

	return wl_reads_main(argc, argv, &o, &c, help, wl_iov_case, WL_IO_URING);
}
