// SPDX-License-Identifier: GPL-2.0
/* Names of the record enums; the order is that of bpf/fsaio.h, whose
 * FSAIO_EVENT_TYPES table gives the event types' names. */
#include <stddef.h>
#include "core/names.h"

#define NAME_OF(table, i, nr) ((unsigned)(i) < (nr) ? (table)[i] : "?")

const char *engine_name(enum fsaio_engine e)
{
	static const char *const n[FSAIO_ENGINE__COUNT] = { "none", "libaio", "io_uring" };

	return NAME_OF(n, e, FSAIO_ENGINE__COUNT);
}

const char *wait_site_name(enum fsaio_wait_site s)
{
	static const char *const n[FSAIO_SITE__COUNT] = { "unknown", "folio_bit",
		"wait_bit_action", "writeback", "journal", "io_other", "other", "block",
		"copy" };

	return NAME_OF(n, s, FSAIO_SITE__COUNT);
}

const char *context_name(enum fsaio_context x)
{
	static const char *const n[FSAIO_CTX__COUNT] = { "other", "submit_libaio",
		"submit_io_uring", "io_wq_worker", "kworker", "sync_read",
		"sync_write", "reap" };

	return NAME_OF(n, x, FSAIO_CTX__COUNT);
}

const char *drop_name(enum fsaio_drop d)
{
	static const char *const n[FSAIO_DROP__COUNT] = { "ringbuf", "user_read",
		"batch_cut", "map_full" };

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
#define EV_ONE(id, val, name, agg) + 1
_Static_assert(0 FSAIO_EVENT_TYPES(EV_ONE) == FSAIO_EV__MAX - 1,
	       "FSAIO_EVENT_TYPES: values must run from 1 without gaps");
#undef EV_ONE
static inline void event_types_distinct(unsigned t)
{
	switch (t) {
#define EV_CASE(id, val, name, agg) case val:
	FSAIO_EVENT_TYPES(EV_CASE)
#undef EV_CASE
		break;
	}
}

const char *event_type_name(enum fsaio_event_type t)
{
	static const char *const n[FSAIO_EV__MAX] = {
		[0] = "?",
#define EV_NAME(id, val, name, agg) [FSAIO_EV_##id] = name,
		FSAIO_EVENT_TYPES(EV_NAME)
#undef EV_NAME
	};

	return NAME_OF(n, t, FSAIO_EV__MAX);
}
