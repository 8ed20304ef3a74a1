// SPDX-License-Identifier: GPL-2.0
/*
 * aio_read_batch: one io_submit() of COUNT (default 64) cold 4 KiB buffered
 * reads at distinct, page-aligned offsets (64 KiB apart, readahead off), then
 * io_getevents() until every one is reaped; every byte is verified.
 *
 * On a stock kernel io_submit sleeps once per request in
 * folio_wait_bit_common (aio_read is synchronous for buffered files); with
 * FSAIO it should return at once and complete each request via retry.
 */
#include "lib/wl.h"

static const char help[] =
	"One io_submit of COUNT (64) cold 4 KiB buffered reads, all verified.\n"
	"  -s FILESIZE  file size; requests are spread evenly (default COUNT*64k)\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "aio_read_batch", .count = 64 };
	struct wl_reads c = { .f.seed = 0xba7c4 };

	return wl_reads_main(argc, argv, &o, &c, help, wl_batch_case, WL_LIBAIO);
}
