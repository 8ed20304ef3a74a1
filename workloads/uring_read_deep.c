// SPDX-License-Identifier: GPL-2.0
/*
 * uring_read_deep: 1024 cold 4 KiB buffered reads in one io_uring_enter,
 * deeper than the device queue (block-layer tag waits, not page waits).  It
 * is uring_read_batch at depth 1024 (-n COUNT), 64 KiB apart, readahead
 * off, one ring of COUNT entries, one io_uring_submit; CQEs checked exactly
 * once by user_data, every byte verified.
 *
 * What the kernel does: each read is tried nonblocking in the submit call;
 * a page-cache miss starts the device read and arms a wait_page_queue
 * (IOCB_WAITQ) instead of sleeping, so io_uring_enter does not sleep in a
 * page or bit wait.  At this depth the block layer runs out of request
 * tags (the device queue is shallower than 1024): the submitting task then
 * sleeps in blk_mq_get_tag (io_schedule, D state) inside io_uring_enter.
 * That is a block-layer wait, not the page wait FSAIO is about.
 *
 * Exact counts (default COUNT 1024): submitted 1024 in 1 io_uring_enter
 * (io_uring_submit_req 1024), completed 1024, bytes 4194304, verified
 * 1024; page/bit waits in io_uring_enter 0, block-layer waits N > 0
 * (depends on the device's queue depth).
 */
#include <getopt.h>

#include "lib/wl.h"

static const char help[] =
	"One io_uring_submit of COUNT (1024) cold 4 KiB buffered reads, verified.\n"
	"  -s FILESIZE  file size; requests are spread evenly (default COUNT*64k)\n";

int main(int argc, char **argv)
{
	struct wl_opts o = { .name = "uring_read_deep", .count = 1024 };
	struct wl_reads c = { .f.seed = 0xdee9 };
	struct wl_opts peek = o;

	/* The expectation first; wl_reads_main parses the flags again. */
	wl_getopt(argc, argv, &peek, help, NULL, NULL);
	optind = 0;	/* glibc: rescan from the start */
	printf("# expect: io_uring sqes=%u submit_req=%u cqes=%u submit_calls=1"
	       " page_bit_waits_in_submit=0 block_layer_waits_in_submit=any\n",
	       peek.count, peek.count, peek.count);
	return wl_reads_main(argc, argv, &o, &c, help, wl_batch_case, WL_IO_URING);
}
