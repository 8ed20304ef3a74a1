// SPDX-License-Identifier: GPL-2.0
/* Names of the record enums; the order is that of bpf/fsaio.h. */
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
		"wait_bit_action", "writeback", "journal", "io_other", "other", "block" };

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

const char *event_type_name(enum fsaio_event_type t)
{
	static const char *const n[FSAIO_EV__MAX] = { "?", "submit", "submit_done",
		"retry", "wake", "resume", "punt", "complete", "reap", "sleep",
		"wait_bit", "task_work", "workqueue", "proc_exit", "trace_end",
		"io_destroy" };

	return NAME_OF(n, t, FSAIO_EV__MAX);
}
