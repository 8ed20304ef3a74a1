// SPDX-License-Identifier: GPL-2.0
/*
 * uring_read_unaligned: the io_uring twin of aio_read_unaligned.  Buffered
 * IORING_OP_READs at offsets 4096*k+123, lengths 3000..9000, into unaligned
 * buffers, from a cold file ending mid-page; the last two requests cross EOF
 * (short read up to EOF) and start beyond EOF (res 0).  CQEs are checked
 * exactly once; bytes past each result must stay untouched.
 *
 * A read spanning several pages may be partially done when it arms the
 * page wait: the retry must continue from where it stopped.
 */
#include "lib/wl.h"

static const char help[] =
	"COUNT (32) unaligned cold io_uring reads incl. two EOF cases, verified.\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_read_unaligned", .count = 32 };
	struct wl_reads c = { .f.seed = 0x0dd };

	return wl_reads_main(argc, argv, &o, &c, help, wl_unaligned_case, WL_IO_URING);
}
