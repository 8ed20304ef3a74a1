/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the traced kernel lets fsaio observe: one table.  Each feature has a
 * bit (recorded in event logs: keep bits stable), its JSON name
 * (kernel.features.<name>), what it gives, and what its absence costs.
 * The FEAT_* bits, the JSON object, `fsaio features` and `-v` are
 * generated from the table; what a feature changes in the checker is
 * decided in one function, checker_config_for().  A new feature is one line
 * here plus the probe or program that sets it (harness/live/tracer.c).
 */
#ifndef FSAIO_CORE_FEATURES_H
#define FSAIO_CORE_FEATURES_H

#include <stdint.h>
#include "core/checker.h"

/* X(ID, bit, json name, what it gives, what its absence costs) */
#define FSAIO_FEATURES(X)						\
	X(BTF, 0, "btf", "kernel BTF (/sys/kernel/btf/vmlinux, CO-RE)",	\
	  "nothing can be traced")					\
	X(RINGBUF, 1, "ringbuf", "BPF ring buffer",			\
	  "nothing can be traced")					\
	X(TP_BTF, 2, "tp_btf", "tp_btf sched_switch",			\
	  "raw_tp fallback: sleep state read from the task (may race with a wakeup)") \
	X(FENTRY, 3, "fentry", "fentry/fexit programs load",		\
	  "per-request retry/wake/resume of io_uring buffered reads not observable") \
	X(SYSCALL_TP, 4, "syscall_tracepoints",				\
	  "syscall tracepoints (io_submit, io_getevents, io_uring_enter)", \
	  "libaio submits and reaps not observable (CONFIG_FTRACE_SYSCALLS?), libaio checks SKIP") \
	X(IO_URING_TP, 5, "io_uring_tracepoints", "io_uring tracepoints", \
	  "io_uring requests not observable (no CONFIG_IO_URING?), io_uring checks SKIP") \
	X(WORKQUEUE_TP, 6, "workqueue_tracepoints",			\
	  "workqueue tracepoints (only watched work functions reported)", \
	  "workqueue resumptions not observable")			\
	X(FSAIO_TP, 7, "fsaio_tracepoints",				\
	  "fsaio tracepoints of the patched kernel (libaio submit/retry/wake/resume/punt/complete per request)", \
	  "stock kernel: libaio blocking in io_submit is the expected result") \
	X(STACK, 8, "sleep_stacks",					\
	  "sleep stacks (sched_switch D state + bpf_get_stack)",	\
	  "D-state sleeps not classified, non-blocking submit checks SKIP") \
	X(FEXIT_GET_PAGES, 9, "fexit_filemap_get_pages",		\
	  "fexit filemap_get_pages (retry armed, -EIOCBQUEUED)",	\
	  "armed io_uring retries not observable, retry_lifecycle SKIPs") \
	X(FENTRY_ASYNC_BUF, 10, "fentry_io_async_buf_func",		\
	  "fentry io_async_buf_func + io_read (wake, resume)",		\
	  "io_uring wakes and resumes not observable, retry_lifecycle SKIPs") \
	X(FENTRY_AIO_COMPLETE, 11, "fentry_aio_complete_rw",		\
	  "fentry aio_complete_rw (libaio kernel completions)",		\
	  "libaio completions seen only when reaped")			\
	X(FENTRY_FSYNC, 12, "fentry_vfs_fsync_range",			\
	  "fentry vfs_fsync_range (the aio worker's final fsync of an O_SYNC write)", \
	  "durability SKIPs: the final fsync of async O_SYNC writes not observable") \
	X(LIBAIO_OPT_IN, 13, "libaio_opt_in",				\
	  "fs.aio-buffered-async=1: only requests with IOCB_FLAG_BUFFERED_ASYNC may go asynchronous", \
	  "every eligible libaio request may go asynchronous (fs.aio-buffered-async=2), or none") \
	X(LIBAIO_ASYNC, 31, "libaio_async",				\
	  "fs.aio-buffered-async=1 or 2: the patched kernel's libaio must not block", \
	  "libaio buffered I/O may block in io_submit (stock, or switched off)")

enum {
#define X(id, bit, json, gives, costs) FEAT_##id = 1u << (bit),
	FSAIO_FEATURES(X)
#undef X
};

struct feature_desc {
	uint32_t bit;		/* FEAT_* */
	const char *json;
	const char *gives;
	const char *costs;
};

extern const struct feature_desc feature_table[];
extern const unsigned nr_features;

/* What the checker may expect from a kernel with these features. */
struct checker_config checker_config_for(uint32_t features);

#endif
