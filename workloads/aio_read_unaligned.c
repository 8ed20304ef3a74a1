// SPDX-License-Identifier: GPL-2.0
/*
 * aio_read_unaligned: libaio buffered reads at unaligned offsets
 * (4096*k+123) and lengths (3000..9000 bytes) into unaligned buffers, from
 * a cold file whose size ends mid-page (1 MiB + 555 by default).  The last
 * two requests check EOF handling: one crosses EOF and must return exactly
 * the bytes up to EOF, one starts beyond EOF and must return 0.  Every byte
 * is verified, and bytes past each result must be left untouched.
 *
 * A retry that resumes at the wrong position, or copies a whole page where
 * a partial one was asked for, shows up here.
 */
#include "lib/wl.h"

static const char help[] =
	"COUNT (32) unaligned cold buffered reads incl. two EOF cases, verified.\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_read_unaligned", .count = 32 };
	struct wl_reads c = { .f.seed = 0x0dd };

	return wl_reads_main(argc, argv, &o, &c, help, wl_unaligned_case, WL_LIBAIO);
}
