// SPDX-License-Identifier: GPL-2.0
/*
 * Classify a symbolized kernel stack (innermost frame first) into the place
 * a task sleeps.  Pure: the caller symbolizes.
 *
 * Every frame is looked at and the most specific site wins, not the
 * innermost: a writeback wait sleeps in folio_wait_bit_common() too, and a
 * jbd2 commit wait sleeps in bit_wait_io(), so the outer, more meaningful
 * frame must outrank the generic inner one.  io_schedule() sits under
 * nearly every wait and therefore ranks lowest of the I/O sites.
 */
#include <stdbool.h>
#include <string.h>
#include "core/waitsite.h"

struct site_pattern {
	const char *name;
	bool prefix;		/* name is a prefix, not the whole symbol */
	enum fsaio_wait_site site;
};

static const struct site_pattern patterns[] = {
	/* jbd2: commit, checkpoint and handle waits (also its static helpers) */
	{ "jbd2_",			true,	FSAIO_SITE_JOURNAL },
	{ "__jbd2_",			true,	FSAIO_SITE_JOURNAL },
	{ "start_this_handle",		false,	FSAIO_SITE_JOURNAL },
	{ "wait_transaction_locked",	false,	FSAIO_SITE_JOURNAL },
	{ "wait_transaction_switching",	false,	FSAIO_SITE_JOURNAL },
	{ "add_transaction_credits",	false,	FSAIO_SITE_JOURNAL },

	/* writeback and stable-page waits, fsync/O_SYNC data waits */
	{ "folio_wait_writeback",	true,	FSAIO_SITE_WRITEBACK }, /* + _killable */
	{ "__folio_wait_writeback",	false,	FSAIO_SITE_WRITEBACK },
	{ "folio_wait_stable",		false,	FSAIO_SITE_WRITEBACK },
	{ "__filemap_fdatawait_range",	false,	FSAIO_SITE_WRITEBACK },
	{ "filemap_fdatawait",		true,	FSAIO_SITE_WRITEBACK },
	{ "file_fdatawait_range",	false,	FSAIO_SITE_WRITEBACK },
	{ "wait_on_page_writeback",	false,	FSAIO_SITE_WRITEBACK },
	{ "wait_for_stable_page",	false,	FSAIO_SITE_WRITEBACK },

	/* page cache folio bit waits (lock, uptodate); pre-folio names too */
	{ "folio_wait_bit_common",	false,	FSAIO_SITE_FOLIO_BIT },
	{ "folio_wait_bit",		false,	FSAIO_SITE_FOLIO_BIT },
	{ "folio_wait_bit_killable",	false,	FSAIO_SITE_FOLIO_BIT },
	{ "__folio_lock",		false,	FSAIO_SITE_FOLIO_BIT },
	{ "__folio_lock_killable",	false,	FSAIO_SITE_FOLIO_BIT },
	{ "__folio_lock_or_retry",	false,	FSAIO_SITE_FOLIO_BIT },
	{ "folio_put_wait_locked",	false,	FSAIO_SITE_FOLIO_BIT },
	{ "folio_wait_locked",		true,	FSAIO_SITE_FOLIO_BIT }, /* + _killable */
	{ "wait_on_page_bit",		true,	FSAIO_SITE_FOLIO_BIT }, /* + _common, _killable */
	{ "__lock_page",		true,	FSAIO_SITE_FOLIO_BIT }, /* + _killable, _or_retry */
	{ "put_and_wait_on_page_locked", false,	FSAIO_SITE_FOLIO_BIT },

	/* wait_bit actions: what the FSAIO seed patch changes */
	{ "bit_wait_io",		true,	FSAIO_SITE_WAIT_BIT_ACTION }, /* + _timeout */
	{ "bit_wait",			true,	FSAIO_SITE_WAIT_BIT_ACTION }, /* + _timeout */
	{ "__wait_on_bit",		true,	FSAIO_SITE_WAIT_BIT_ACTION }, /* + _lock */
	{ "out_of_line_wait_on_bit",	true,	FSAIO_SITE_WAIT_BIT_ACTION }, /* + _lock, _timeout */
	{ "__wait_on_buffer",		false,	FSAIO_SITE_WAIT_BIT_ACTION },
	{ "__lock_buffer",		false,	FSAIO_SITE_WAIT_BIT_ACTION },

	/* block layer: waiting for a request tag, QoS or throttling budget */
	{ "blk_mq_get_tag",		false,	FSAIO_SITE_BLOCK },
	{ "__blk_mq_alloc_requests",	false,	FSAIO_SITE_BLOCK },
	{ "blk_mq_alloc_request",	true,	FSAIO_SITE_BLOCK }, /* + _hctx */
	{ "rq_qos_wait",		false,	FSAIO_SITE_BLOCK },
	{ "wbt_wait",			false,	FSAIO_SITE_BLOCK },
	{ "blk_throtl",			true,	FSAIO_SITE_BLOCK },
	{ "__blk_throtl",		true,	FSAIO_SITE_BLOCK },
	{ "bio_queue_enter",		false,	FSAIO_SITE_BLOCK },
	{ "blk_queue_enter",		false,	FSAIO_SITE_BLOCK },

	/* other io_schedule() users: bio and dio waits */
	{ "io_schedule",		false,	FSAIO_SITE_IO_OTHER },
	{ "io_schedule_timeout",	false,	FSAIO_SITE_IO_OTHER },
	{ "submit_bio_wait",		false,	FSAIO_SITE_IO_OTHER },
	{ "wait_for_completion_io",	true,	FSAIO_SITE_IO_OTHER }, /* + _timeout */
};

/* Higher wins when several frames match. */
static int rank(enum fsaio_wait_site s)
{
	switch (s) {
	case FSAIO_SITE_JOURNAL:		return 7;
	case FSAIO_SITE_WRITEBACK:		return 6;
	case FSAIO_SITE_FOLIO_BIT:		return 5;
	case FSAIO_SITE_WAIT_BIT_ACTION:	return 4;
	case FSAIO_SITE_BLOCK:			return 3;	/* above its io_schedule */
	case FSAIO_SITE_IO_OTHER:		return 2;
	case FSAIO_SITE_OTHER:			return 1;
	default:				return 0;
	}
}

/*
 * Copy the bare symbol: compiler clones (".isra.0", ".constprop.0",
 * ".part.0", ".cold") and a symbolizer's "+0x1c/0x40" offset are cut.
 */
static void bare_name(const char *name, char *buf, size_t len)
{
	size_t n = strcspn(name, ".+ \t");

	if (n >= len)
		n = len - 1;
	memcpy(buf, name, n);
	buf[n] = '\0';
}

#define N_OF(a)	(sizeof(a) / sizeof((a)[0]))

/* The first pattern a bare symbol matches, or NULL. */
static const struct site_pattern *match(const char *bare, const struct site_pattern *p,
					size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i].prefix ? !strncmp(bare, p[i].name, strlen(p[i].name)) :
				  !strcmp(bare, p[i].name))
			return &p[i];
	return NULL;
}

/*
 * A buffered write's own path before its sync step: the copy into the page
 * cache and what it waits on (reading a partial folio in write_begin, a
 * journal handle, dirty throttling), block preallocation and the timestamp
 * and privilege updates ahead of it.  A sleep there is the write's copy,
 * not a wait for its I/O or commit -- unless the stack also shows the sync
 * step (generic_write_sync() -> vfs_fsync_range() and the ->fsync()s it
 * calls), which is where an O_SYNC write waits for its own I/O.  (.site
 * is not used in these two tables.)
 */
static const struct site_pattern write_path[] = {
	{ "generic_perform_write", false }, { "iomap_file_buffered_write", false },
	{ "btrfs_buffered_write", false }, { "ext4_buffered_write_iter", false },
	{ "f2fs_preallocate_blocks", false }, { "file_modified", true }, /* + _flags */
	{ "kiocb_modified", false }, { "file_update_time", false },
	{ "inode_update_time", false }, { "generic_update_time", false },
	{ "ext4_dirty_inode", false }, { "xfs_vn_update_time", false },
	{ "balance_dirty_pages", true }, /* + _ratelimited */
	{ "file_remove_privs", true }, /* + _flags */
	/* ->write_begin/->write_end: the copy, whoever called them */
	{ "ext4_da_write_begin", false }, { "ext4_write_begin", false },
	{ "ext4_da_write_end", false }, { "ext4_write_end", false },
	{ "iomap_write_begin", false }, { "iomap_write_end", false },
	{ "f2fs_write_begin", false }, { "f2fs_write_end", false },
};
static const struct site_pattern sync_step[] = {
	{ "vfs_fsync_range", false }, { "vfs_fsync", false },
	{ "file_write_and_wait_range", false }, { "filemap_write_and_wait_range", false },
	{ "ext4_sync_file", false }, { "xfs_file_fsync", false }, { "f2fs_sync_file", false },
	{ "btrfs_sync_file", false }, { "blkdev_fsync", false }, { "generic_file_fsync", false },
	{ "generic_buffers_fsync", true }, /* + _noflush */
};

/*
 * A read's access-time update (touch_atime -> ->dirty_inode -> the inode
 * table's buffer): metadata the request did not ask for, which no kernel
 * makes asynchronous (io_uring's IOCB_NOWAIT attempt waits there too when
 * another process holds that buffer: seen under an I/O load on the same
 * file system).  A page or buffer wait under it is an other sleep, not an
 * FSAIO wait: counted with its stack, never a blocked submit.
 */
static const struct site_pattern atime_update[] = {
	{ "touch_atime", false }, { "atime_needs_update", false },
};

/* "<fs>_file_write_iter": the ->write_iter() of ext4, xfs, f2fs, btrfs... */
static bool is_write_iter(const char *bare)
{
	static const char sfx[] = "_file_write_iter";
	size_t n = strlen(bare), k = sizeof(sfx) - 1;

	return n > k && !strcmp(bare + n - k, sfx);
}

bool stack_in_uring_submit(const char *const *names, int n)
{
	char bare[128];
	int i;

	for (i = 0; names && i < n; i++) {
		if (!names[i])
			continue;
		bare_name(names[i], bare, sizeof(bare));
		if (!strcmp(bare, "io_submit_sqes"))
			return true;
	}
	return false;
}

enum fsaio_wait_site classify_wait_site(const char *const *names, int n)
{
	enum fsaio_wait_site best = FSAIO_SITE_UNKNOWN;
	bool write = false, sync = false, atime = false;
	int i;

	for (i = 0; names && i < n; i++) {
		const struct site_pattern *p;
		enum fsaio_wait_site s;
		char bare[128];

		if (!names[i] || !names[i][0])
			continue;
		bare_name(names[i], bare, sizeof(bare));
		p = match(bare, patterns, N_OF(patterns));
		s = p ? p->site : FSAIO_SITE_OTHER;
		if (rank(s) > rank(best))
			best = s;
		write |= is_write_iter(bare) || match(bare, write_path, N_OF(write_path));
		sync |= match(bare, sync_step, N_OF(sync_step)) != NULL;
		atime |= match(bare, atime_update, N_OF(atime_update)) != NULL;
	}
	if (atime && fsaio_site_is_fsaio_wait(best))
		return FSAIO_SITE_OTHER;
	/* only waits that would otherwise count as FSAIO waits are moved */
	return write && !sync && fsaio_site_is_fsaio_wait(best) ? FSAIO_SITE_COPY : best;
}

int wait_stack_names(const struct fsaio_record *r,
		     const char *(*symbolize)(uint64_t addr, uint64_t *off, void *ctx),
		     void *ctx, const char **names)
{
	uint32_t i, n = r->nr_stack < FSAIO_STACK_DEPTH ? r->nr_stack : FSAIO_STACK_DEPTH;

	for (i = 0; i < n; i++)
		names[i] = symbolize(r->stack[i], NULL, ctx);
	return n;
}
