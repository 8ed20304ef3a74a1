// SPDX-License-Identifier: GPL-2.0
/*
 * uring_read_batch: the io_uring twin of aio_read_batch.  COUNT (default
 * 64) cold 4 KiB buffered IORING_OP_READs at distinct page-aligned offsets
 * (64 KiB apart, readahead off), queued and sent with one io_uring_submit;
 * CQEs are checked exactly once by user_data and every byte is verified.
 *
 * Expected on 5.9+: no page-wait sleep in the submitting task; reads arm a
 * wait_page_queue (IOCB_WAITQ) and complete via task_work, or are punted to
 * io-wq when they cannot be armed.
 */
#include "lib/wl.h"

static const char help[] =
	"One io_uring_submit of COUNT (64) cold 4 KiB buffered reads, verified.\n"
	"  -s FILESIZE  file size; requests are spread evenly (default COUNT*64k)\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_read_batch", .count = 64 };
	struct wl_reads c = { .f.seed = 0xba7c4 };

	return wl_reads_main(argc, argv, &o, &c, help, wl_batch_case, WL_IO_URING);
}
