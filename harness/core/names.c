// SPDX-License-Identifier: GPL-2.0
/* Names of the record enums of bpf/fsaio.h; the event types' are in its
 * FSAIO_EVENT_TYPES table. */
#include <stddef.h>
#include "core/names.h"

/* Tables indexed by the enum (designated initializers): a value without a
 * name reads as "?", never as NULL. */
#define NAME_OF(table, i, nr) ((unsigned)(i) < (nr) && (table)[i] ? (table)[i] : "?")

const char *engine_name(enum fsaio_engine e)
{
	static const char *const n[FSAIO_ENGINE__COUNT] = {
		[FSAIO_ENGINE_NONE] = "none",
		[FSAIO_ENGINE_LIBAIO] = "libaio",
		[FSAIO_ENGINE_IO_URING] = "io_uring",
	};

	return NAME_OF(n, e, FSAIO_ENGINE__COUNT);
}

const char *wait_site_name(enum fsaio_wait_site s)
{
	static const char *const n[FSAIO_SITE__COUNT] = {
		[FSAIO_SITE_UNKNOWN] = "unknown",
		[FSAIO_SITE_FOLIO_BIT] = "folio_bit",
		[FSAIO_SITE_WAIT_BIT_ACTION] = "wait_bit_action",
		[FSAIO_SITE_WRITEBACK] = "writeback",
		[FSAIO_SITE_JOURNAL] = "journal",
		[FSAIO_SITE_IO_OTHER] = "io_other",
		[FSAIO_SITE_OTHER] = "other",
		[FSAIO_SITE_BLOCK] = "block",
		[FSAIO_SITE_COPY] = "copy",
	};

	return NAME_OF(n, s, FSAIO_SITE__COUNT);
}

const char *context_name(enum fsaio_context x)
{
	static const char *const n[FSAIO_CTX__COUNT] = {
		[FSAIO_CTX_OTHER] = "other",
		[FSAIO_CTX_SUBMIT_LIBAIO] = "submit_libaio",
		[FSAIO_CTX_SUBMIT_IO_URING] = "submit_io_uring",
		[FSAIO_CTX_IO_WQ_WORKER] = "io_wq_worker",
		[FSAIO_CTX_KWORKER] = "kworker",
		[FSAIO_CTX_SYNC_READ] = "sync_read",
		[FSAIO_CTX_SYNC_WRITE] = "sync_write",
		[FSAIO_CTX_REAP] = "reap",
	};

	return NAME_OF(n, x, FSAIO_CTX__COUNT);
}

const char *drop_name(enum fsaio_drop d)
{
	static const char *const n[FSAIO_DROP__COUNT] = {
		[FSAIO_DROP_RINGBUF] = "ringbuf",
		[FSAIO_DROP_USER_READ] = "user_read",
		[FSAIO_DROP_BATCH_CUT] = "batch_cut",
		[FSAIO_DROP_MAP_FULL] = "map_full",
		[FSAIO_DROP_PROG_MISSED] = "prog_missed",
		[FSAIO_DROP_FOLD_RACE] = "fold_race",
		[FSAIO_DROP_PAIR_TWICE] = "pair_twice",
	};

	return NAME_OF(n, d, FSAIO_DROP__COUNT);
}

const char *opcode_name(enum fsaio_engine e, unsigned op)
{
	/* include/uapi/linux/io_uring.h, enum io_uring_op (6.12) */
	static const char *const uring[] = { "nop", "readv", "writev", "fsync",
		"read_fixed", "write_fixed", "poll_add", "poll_remove",
		"sync_file_range", "sendmsg", "recvmsg", "timeout", "timeout_remove",
		"accept", "async_cancel", "link_timeout", "connect", "fallocate",
		"openat", "close", "files_update", "statx", "read", "write", "fadvise",
		"madvise", "send", "recv", "openat2", "epoll_ctl", "splice",
		"provide_buffers", "remove_buffers", "tee", "shutdown", "renameat",
		"unlinkat", "mkdirat", "symlinkat", "linkat", "msg_ring", "fsetxattr",
		"setxattr", "fgetxattr", "getxattr", "socket", "uring_cmd", "send_zc",
		"sendmsg_zc", "read_multishot", "waitid", "futex_wait", "futex_wake",
		"futex_waitv", "fixed_fd_install", "ftruncate", "bind", "listen" };
	/* include/uapi/linux/aio_abi.h, IOCB_CMD_* */
	static const char *const aio[] = { "pread", "pwrite", "fsync", "fdsync",
		NULL, "poll", "noop", "preadv", "pwritev" };

	if (e == FSAIO_ENGINE_IO_URING)
		return op < sizeof(uring) / sizeof(uring[0]) ? uring[op] : NULL;
	if (e == FSAIO_ENGINE_LIBAIO)
		return op < sizeof(aio) / sizeof(aio[0]) ? aio[op] : NULL;
	return NULL;
}

/* Rows of FSAIO_EVENT_TYPES numbered 1..FSAIO_EV__MAX - 1, each once: a
 * duplicate value is a duplicate case label, a gap fails the count. */
#define EV_ONE(id, val, name, agg, sent) + 1
_Static_assert(0 FSAIO_EVENT_TYPES(EV_ONE) == FSAIO_EV__MAX - 1,
	       "FSAIO_EVENT_TYPES: values must run from 1 without gaps");
#undef EV_ONE
static inline __attribute__((unused)) void event_types_distinct(unsigned t)
{
	switch (t) {
#define EV_CASE(id, val, name, agg, sent) case val:
	FSAIO_EVENT_TYPES(EV_CASE)
#undef EV_CASE
		break;
	}
}

const char *event_type_name(enum fsaio_event_type t)
{
	static const char *const n[FSAIO_EV__MAX] = {
		[0] = "?",
#define EV_NAME(id, val, name, agg, sent) [FSAIO_EV_##id] = name,
		FSAIO_EVENT_TYPES(EV_NAME)
#undef EV_NAME
	};

	return NAME_OF(n, t, FSAIO_EV__MAX);
}
