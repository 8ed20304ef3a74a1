// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of wait-site classification: every recognized function on its
 * own, compiler-clone suffixes, and real stacks seen on 6.x kernels where
 * the outer, more specific frame must win over the generic inner one.
 */
#include "kselftest_harness.h"
#include "core/waitsite.h"
#include "core/checker.h"

#pragma GCC diagnostic ignored "-Wsign-compare"	/* EXPECT_EQ(enum, enum) */

#define N(a)	((int)(sizeof(a) / sizeof((a)[0])))

static enum fsaio_wait_site one(const char *name)
{
	const char *names[] = { "__schedule", "schedule", name, "do_syscall_64" };

	return classify_wait_site(names, N(names));
}

struct expect {
	const char *name;
	enum fsaio_wait_site site;
};

static const struct expect singles[] = {
	{ "jbd2_log_wait_commit",		FSAIO_SITE_JOURNAL },
	{ "jbd2_journal_stop",			FSAIO_SITE_JOURNAL },
	{ "jbd2__journal_start",		FSAIO_SITE_JOURNAL },
	{ "__jbd2_log_wait_for_space",		FSAIO_SITE_JOURNAL },
	{ "start_this_handle",			FSAIO_SITE_JOURNAL },
	{ "folio_wait_writeback",		FSAIO_SITE_WRITEBACK },
	{ "__folio_wait_writeback",		FSAIO_SITE_WRITEBACK },
	{ "folio_wait_stable",			FSAIO_SITE_WRITEBACK },
	{ "__filemap_fdatawait_range",		FSAIO_SITE_WRITEBACK },
	{ "filemap_fdatawait_range",		FSAIO_SITE_WRITEBACK },
	{ "filemap_fdatawait_keep_errors",	FSAIO_SITE_WRITEBACK },
	{ "wait_on_page_writeback",		FSAIO_SITE_WRITEBACK },
	{ "folio_wait_bit_common",		FSAIO_SITE_FOLIO_BIT },
	{ "folio_wait_bit",			FSAIO_SITE_FOLIO_BIT },
	{ "folio_wait_bit_killable",		FSAIO_SITE_FOLIO_BIT },
	{ "__folio_lock",			FSAIO_SITE_FOLIO_BIT },
	{ "__folio_lock_killable",		FSAIO_SITE_FOLIO_BIT },
	{ "folio_put_wait_locked",		FSAIO_SITE_FOLIO_BIT },
	{ "__folio_lock_or_retry",		FSAIO_SITE_FOLIO_BIT },
	{ "folio_wait_locked",			FSAIO_SITE_FOLIO_BIT },
	{ "wait_on_page_bit_common",		FSAIO_SITE_FOLIO_BIT },
	{ "__lock_page",			FSAIO_SITE_FOLIO_BIT },
	{ "bit_wait_io",			FSAIO_SITE_WAIT_BIT_ACTION },
	{ "bit_wait",				FSAIO_SITE_WAIT_BIT_ACTION },
	{ "__wait_on_bit",			FSAIO_SITE_WAIT_BIT_ACTION },
	{ "__wait_on_bit_lock",			FSAIO_SITE_WAIT_BIT_ACTION },
	{ "out_of_line_wait_on_bit",		FSAIO_SITE_WAIT_BIT_ACTION },
	{ "out_of_line_wait_on_bit_lock",	FSAIO_SITE_WAIT_BIT_ACTION },
	{ "out_of_line_wait_on_bit_timeout",	FSAIO_SITE_WAIT_BIT_ACTION },
	{ "__wait_on_buffer",			FSAIO_SITE_WAIT_BIT_ACTION },
	{ "io_schedule",			FSAIO_SITE_IO_OTHER },
	{ "io_schedule_timeout",		FSAIO_SITE_IO_OTHER },
	{ "blk_mq_get_tag",			FSAIO_SITE_BLOCK },
	{ "rq_qos_wait",			FSAIO_SITE_BLOCK },
	{ "wbt_wait",				FSAIO_SITE_BLOCK },
	{ "blk_throtl_bio",			FSAIO_SITE_BLOCK },
	{ "mutex_lock",				FSAIO_SITE_OTHER },
	{ "rwsem_down_read_slowpath",		FSAIO_SITE_OTHER },
	/* near misses must not match */
	{ "folio_wait_bit_commonx",		FSAIO_SITE_OTHER },
	{ "my_io_schedule",			FSAIO_SITE_OTHER },
	{ "xjbd2_thing",			FSAIO_SITE_OTHER },
};

TEST(each_function_alone)
{
	int i, bad = 0;

	for (i = 0; i < N(singles); i++) {
		enum fsaio_wait_site got = one(singles[i].name);

		if (got == singles[i].site)
			continue;
		bad++;
		fprintf(stderr, "# %s -> %s, expected %s\n", singles[i].name,
			wait_site_name(got), wait_site_name(singles[i].site));
	}
	EXPECT_EQ(0, bad);
}

TEST(clone_suffixes_are_stripped)
{
	EXPECT_EQ(FSAIO_SITE_FOLIO_BIT, one("folio_wait_bit_common.isra.0"));
	EXPECT_EQ(FSAIO_SITE_WAIT_BIT_ACTION, one("__wait_on_bit.constprop.0"));
	EXPECT_EQ(FSAIO_SITE_JOURNAL, one("jbd2_log_wait_commit.part.0"));
	EXPECT_EQ(FSAIO_SITE_WRITEBACK, one("__filemap_fdatawait_range.constprop.0.isra.0"));
	EXPECT_EQ(FSAIO_SITE_IO_OTHER, one("io_schedule+0x46/0x70"));
	EXPECT_EQ(FSAIO_SITE_FOLIO_BIT, one("__folio_lock.cold"));
}

TEST(empty_and_unknown_frames)
{
	const char *none[] = { NULL, NULL, "" };
	const char *holes[] = { NULL, "folio_wait_bit_common", NULL, "filemap_read" };

	EXPECT_EQ(FSAIO_SITE_UNKNOWN, classify_wait_site(NULL, 0));
	EXPECT_EQ(FSAIO_SITE_UNKNOWN, classify_wait_site(none, N(none)));
	EXPECT_EQ(FSAIO_SITE_FOLIO_BIT, classify_wait_site(holes, N(holes)));
}

/*
 * Real stacks seen on 6.x kernels, innermost frame first, and the site
 * each is: where a specific frame (journal, writeback) stands outside a
 * generic one (folio bit, bit wait, io_schedule), the specific one wins.
 */
FIXTURE(stack) {};

FIXTURE_VARIANT(stack) {
	const char *frames[16];		/* up to a NULL */
	enum fsaio_wait_site site;
};

FIXTURE_SETUP(stack) {}
FIXTURE_TEARDOWN(stack) {}

/* 64 cold reads in one io_submit on a stock 6.x kernel (measured with a sched_switch stack probe) */
FIXTURE_VARIANT_ADD(stack, stock_libaio_buffered_read) {
	.frames = {
		"__schedule", "schedule", "io_schedule", "folio_wait_bit_common",
		"filemap_get_pages", "filemap_read", "aio_read", "io_submit_one",
		"__x64_sys_io_submit", "do_syscall_64", "entry_SYSCALL_64_after_hwframe",
	},
	.site = FSAIO_SITE_FOLIO_BIT,
};

FIXTURE_VARIANT_ADD(stack, writeback_wait_outranks_folio_bit) {
	.frames = {
		"__schedule", "schedule", "io_schedule", "folio_wait_bit_common",
		"folio_wait_writeback", "__filemap_fdatawait_range",
		"file_write_and_wait_range", "ext4_sync_file", "ext4_buffered_write_iter",
		"aio_write", "io_submit_one", "__x64_sys_io_submit",
	},
	.site = FSAIO_SITE_WRITEBACK,
};

FIXTURE_VARIANT_ADD(stack, ext4_metadata_read_is_wait_bit_action) {
	.frames = {
		"__schedule", "schedule", "io_schedule", "bit_wait_io", "__wait_on_bit",
		"out_of_line_wait_on_bit", "__wait_on_buffer", "ext4_read_bh",
		"ext4_read_inode_bitmap", "__ext4_new_inode", "ext4_create",
	},
	.site = FSAIO_SITE_WAIT_BIT_ACTION,
};

FIXTURE_VARIANT_ADD(stack, journal_commit) {
	.frames = {
		"__schedule", "schedule", "jbd2_log_wait_commit",
		"ext4_sync_file", "vfs_fsync_range", "ext4_buffered_write_iter",
	},
	.site = FSAIO_SITE_JOURNAL,
};

FIXTURE_VARIANT_ADD(stack, journal_access_outranks_buffer_wait) {
	.frames = {
		"__schedule", "schedule", "io_schedule", "bit_wait_io",
		"__wait_on_bit_lock", "out_of_line_wait_on_bit_lock",
		"do_get_write_access", "jbd2_journal_get_write_access",
		"__ext4_journal_get_write_access", "ext4_reserve_inode_write",
	},
	.site = FSAIO_SITE_JOURNAL,
};

FIXTURE_VARIANT_ADD(stack, block_layer_tag) {
	.frames = {
		"__schedule", "schedule", "io_schedule", "blk_mq_get_tag",
		"__blk_mq_alloc_requests", "blk_mq_submit_bio", "submit_bio_noacct",
	},
	.site = FSAIO_SITE_BLOCK,
};

FIXTURE_VARIANT_ADD(stack, plain_io_schedule) {
	.frames = {
		"__schedule", "schedule", "io_schedule", "__iomap_dio_rw", "iomap_dio_rw",
	},
	.site = FSAIO_SITE_IO_OTHER,
};

/* measured on the host (6.18): a 6 KiB O_DSYNC aio write whose second page is
 * partial and cold reads it in ext4_da_write_begin, inside the copy */
FIXTURE_VARIANT_ADD(stack, ext4_write_begin_read_is_copy) {
	.frames = {
		"__schedule", "schedule", "io_schedule", "bit_wait_io", "__wait_on_bit",
		"out_of_line_wait_on_bit", "ext4_block_write_begin", "ext4_da_write_begin",
		"generic_perform_write", "ext4_buffered_write_iter", "aio_write",
		"io_submit_one", "__x64_sys_io_submit",
	},
	.site = FSAIO_SITE_COPY,
};

/* not an FSAIO wait in the first place: left as it is */
FIXTURE_VARIANT_ADD(stack, xfs_write_begin_read_stays_io_other) {
	.frames = {
		"__schedule", "schedule", "io_schedule", "submit_bio_wait",
		"iomap_read_folio_sync", "__iomap_write_begin", "iomap_write_begin",
		"iomap_write_iter", "iomap_file_buffered_write", "xfs_file_buffered_write",
		"aio_write", "io_submit_one",
	},
	.site = FSAIO_SITE_IO_OTHER,
};

FIXTURE_VARIANT_ADD(stack, journal_handle_in_write_end_is_copy) {
	.frames = {
		"__schedule", "schedule", "wait_transaction_locked", "add_transaction_credits",
		"start_this_handle", "jbd2__journal_start", "__ext4_journal_start_sb",
		"ext4_da_do_write_end", "generic_perform_write", "ext4_buffered_write_iter",
	},
	.site = FSAIO_SITE_COPY,
};

FIXTURE_VARIANT_ADD(stack, time_update_journal_is_copy) {
	.frames = {
		"__schedule", "schedule", "wait_transaction_locked", "add_transaction_credits",
		"start_this_handle", "jbd2__journal_start", "__ext4_journal_start_sb",
		"ext4_dirty_inode", "__mark_inode_dirty", "generic_update_time",
		"inode_update_time", "file_modified_flags", "file_modified",
		"ext4_buffered_write_iter", "aio_write",
	},
	.site = FSAIO_SITE_COPY,
};

/* f2fs preallocates blocks in ->write_iter before the copy (measured, 6.12) */
FIXTURE_VARIANT_ADD(stack, f2fs_preallocation_is_copy) {
	.frames = {
		"__schedule", "schedule", "io_schedule", "folio_wait_bit_common",
		"__filemap_get_folio", "pagecache_get_page", "__get_node_page.part.0",
		"f2fs_get_dnode_of_data", "f2fs_map_blocks", "f2fs_file_write_iter",
		"aio_write", "io_submit_one.constprop.0",
	},
	.site = FSAIO_SITE_COPY,
};

/* measured on 6.12: the stack ends (16 frames) before file_modified */
FIXTURE_VARIANT_ADD(stack, truncated_time_update_is_copy) {
	.frames = {
		"__schedule", "schedule", "io_schedule", "bit_wait_io", "__wait_on_bit",
		"out_of_line_wait_on_bit", "do_get_write_access",
		"jbd2_journal_get_write_access", "__ext4_journal_get_write_access",
		"ext4_reserve_inode_write", "__ext4_mark_inode_dirty", "ext4_dirty_inode",
		"__mark_inode_dirty", "generic_update_time",
	},
	.site = FSAIO_SITE_COPY,
};

/* measured on the KASAN kernel (aio_eio): a failed write_begin truncates
 * what it allocated; the frames above generic_perform_write were cut */
FIXTURE_VARIANT_ADD(stack, write_begin_truncate_is_copy) {
	.frames = {
		"bit_wait_io", "__wait_on_bit", "out_of_line_wait_on_bit",
		"do_get_write_access", "jbd2_journal_get_write_access",
		"__ext4_journal_get_write_access", "ext4_reserve_inode_write",
		"__ext4_mark_inode_dirty", "ext4_ext_truncate", "ext4_truncate",
		"ext4_write_begin",
	},
	.site = FSAIO_SITE_COPY,
};

/* measured on the KASAN kernel: a journal handle waiting for a checkpoint
 * (its flush) while the copy dirtied the inode */
FIXTURE_VARIANT_ADD(stack, checkpoint_under_dirty_inode_is_copy) {
	.frames = {
		"__sched_text_start", "__wait_for_common", "submit_bio_wait",
		"blkdev_issue_flush", "jbd2_cleanup_journal_tail", "jbd2_log_do_checkpoint",
		"__jbd2_log_wait_for_space", "add_transaction_credits", "start_this_handle",
		"jbd2__journal_start", "__ext4_journal_start_sb", "ext4_dirty_inode",
	},
	.site = FSAIO_SITE_COPY,
};

/* the sync step after the copy (stock O_SYNC) stays a writeback wait */
FIXTURE_VARIANT_ADD(stack, osync_sync_step_is_not_copy) {
	.frames = {
		"__schedule", "schedule", "io_schedule", "folio_wait_bit_common",
		"folio_wait_writeback", "__filemap_fdatawait_range",
		"file_write_and_wait_range", "xfs_file_fsync", "xfs_file_buffered_write",
		"xfs_file_write_iter", "aio_write", "io_submit_one",
	},
	.site = FSAIO_SITE_WRITEBACK,
};

FIXTURE_VARIANT_ADD(stack, stock_journal_commit_in_write_is_journal) {
	.frames = {
		"__schedule", "schedule", "jbd2_log_wait_commit", "jbd2_complete_transaction",
		"ext4_fsync_journal", "ext4_sync_file", "ext4_buffered_write_iter",
		"ext4_file_write_iter", "aio_write", "io_submit_one",
	},
	.site = FSAIO_SITE_JOURNAL,
};

/* io_uring's inline read (IOCB_NOWAIT) updating atime while another
 * process holds the inode table's buffer (measured on 6.18 under an I/O
 * load on the same ext4): metadata, an other sleep, not a blocked submit */
FIXTURE_VARIANT_ADD(stack, read_atime_update_is_other) {
	.frames = {
		"__schedule", "schedule", "io_schedule", "__folio_lock",
		"find_get_block_common", "bdev_getblk", "__ext4_get_inode_loc",
		"ext4_get_inode_loc", "ext4_reserve_inode_write", "__ext4_mark_inode_dirty",
		"ext4_dirty_inode", "__mark_inode_dirty", "generic_update_time",
		"touch_atime", "ext4_file_read_iter", "__io_read",
	},
	.site = FSAIO_SITE_OTHER,
};

FIXTURE_VARIANT_ADD(stack, lock_wait_is_other) {
	.frames = {
		"__schedule", "schedule", "schedule_preempt_disabled",
		"__mutex_lock.constprop.0", "ext4_buffered_write_iter", "aio_write",
	},
	.site = FSAIO_SITE_OTHER,
};

TEST_F(stack, classified)
{
	enum fsaio_wait_site got;
	int n = 0;

	while (n < N(variant->frames) && variant->frames[n])
		n++;
	got = classify_wait_site(variant->frames, n);
	EXPECT_EQ(variant->site, got) TH_LOG("%s, expected %s", wait_site_name(got),
					     wait_site_name(variant->site));
}

/* fsaio trace's io_uring submit context: a sleep under io_submit_sqes()
 * (clone suffixes stripped), not one waiting for completions. */
TEST(uring_submit_context_from_the_stack)
{
	const char *submit[] = { "__schedule", "folio_wait_bit_common", "filemap_read",
				 "io_read", "io_issue_sqe", "io_submit_sqes.constprop.0",
				 "__do_sys_io_uring_enter" };
	const char *wait[] = { "__schedule", "schedule_hrtimeout", "io_cqring_wait",
			       "__do_sys_io_uring_enter" };

	EXPECT_TRUE(stack_in_uring_submit(submit, N(submit)));
	EXPECT_FALSE(stack_in_uring_submit(wait, N(wait)));
	EXPECT_FALSE(stack_in_uring_submit(submit, 5));
	EXPECT_FALSE(stack_in_uring_submit(NULL, 0));
}

TEST(n_bounds_the_frames_read)
{
	const char *stack[] = { "__schedule", "schedule", "folio_wait_bit_common" };

	EXPECT_EQ(FSAIO_SITE_OTHER, classify_wait_site(stack, 2));
	EXPECT_EQ(FSAIO_SITE_FOLIO_BIT, classify_wait_site(stack, 3));
	EXPECT_EQ(FSAIO_SITE_UNKNOWN, classify_wait_site(stack, 0));
}

TEST_HARNESS_MAIN
