/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live tracer: probes kernel features, loads and attaches the BPF
 * programs, delivers decoded and enriched records (wait site from the
 * symbolized stack) to a callback.  The only part that knows libbpf.
 */
#ifndef FSAIO_TRACER_H
#define FSAIO_TRACER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "../bpf/fsaio.h"

/* Feature bits, probed at start (tracer_probe). */
enum {
	FEAT_BTF	= 1 << 0,	/* /sys/kernel/btf/vmlinux */
	FEAT_RINGBUF	= 1 << 1,
	FEAT_TP_BTF	= 1 << 2,	/* tp_btf sched_switch loads */
	FEAT_FENTRY	= 1 << 3,	/* fentry/fexit programs load */
	FEAT_SYSCALL_TP	= 1 << 4,	/* syscalls:sys_enter_io_submit etc. */
	FEAT_IO_URING_TP = 1 << 5,	/* io_uring:* tracepoints */
	FEAT_WORKQUEUE_TP = 1 << 6,
	FEAT_FSAIO_TP	= 1 << 7,	/* patched kernel's fsaio:* tracepoints */
	FEAT_STACK	= 1 << 8,	/* bpf_get_stack in sched_switch */
	FEAT_FEXIT_GET_PAGES = 1 << 9,	/* fexit filemap_get_pages attached */
	FEAT_FENTRY_ASYNC_BUF = 1 << 10, /* fentry io_async_buf_func attached */
	FEAT_FENTRY_AIO_COMPLETE = 1 << 11, /* fentry aio_complete_rw attached */
};

struct tracer_opts {
	bool verbose;		/* print feature probes and fallbacks to stderr */
	bool all_tasks;		/* trace every task (fsaio trace without -p/-c) */
	bool no_fentry;		/* don't try fentry/fexit even if they load */
	const char *comm;	/* trace only tasks with this comm, if set */
	size_t ringbuf_bytes;	/* 0: default (8 MiB) */
};

struct tracer;

typedef void (*tracer_record_fn)(const struct fsaio_record *rec, void *ctx);

/* Probe, load, attach.  On failure returns a negative errno and writes a
 * one-line reason (what to do) into err. */
int tracer_open(struct tracer **out, const struct tracer_opts *opts,
		char *err, size_t errlen);
uint32_t tracer_features(const struct tracer *t);
/* Human-readable feature report: one line per feature, what is missing
 * and what that costs.  Written to f. */
void tracer_print_features(const struct tracer *t, FILE *f);

/* Trace this process and (via fork) its descendants. */
int tracer_track_pid(struct tracer *t, pid_t tgid);

/* Poll the ring buffer up to timeout_ms; calls fn per record in seq
 * order.  Returns records delivered or negative errno (-EINTR passes). */
int tracer_poll(struct tracer *t, int timeout_ms, tracer_record_fn fn, void *ctx);

/* Ring buffer reserve failures so far (sum over CPUs). */
uint64_t tracer_lost(struct tracer *t);

/* Detach and free everything.  Safe on NULL and after partial open. */
void tracer_close(struct tracer *t);

#endif
