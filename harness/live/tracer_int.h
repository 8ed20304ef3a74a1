/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live tracer's private parts, shared by tracer.c (load, attach,
 * deliver) and probe.c (what the kernel allows, why a feature is off).
 */
#ifndef FSAIO_LIVE_TRACER_INT_H
#define FSAIO_LIVE_TRACER_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "bpf/fsaio_nest.h"
#include "core/features.h"
#include "live/tracer.h"

struct fsaio_bpf;	/* the skeleton: tracer.c alone includes it */
struct ring_buffer;
struct bpf_link;

#define MAX_LINKS		48
/* a ring grown from 1 MiB to 1 GiB is ten rings */
#define MAX_RINGS		16

/* An optional program and what decides whether it is loaded. */
enum prog_kind {
	PK_REQUIRED,		/* raw_tp: loads wherever BPF tracing does */
	PK_TP,			/* tracepoint: needs tracefs events/<cat>/<name> */
	PK_SWITCH_BTF,		/* tp_btf/sched_switch */
	PK_SWITCH_RAW,		/* raw_tp/sched_switch fallback */
	PK_FENTRY,		/* fentry/fexit: needs the probe to load+attach */
	PK_FSAIO_TP,		/* raw_tp on a patched kernel's fsaio:* event;
				 * with no feat, optional: an older series
				 * lacks it */
	PK_RAW_TP,		/* raw_tp on a tracepoint whose prototype (kernel
				 * BTF) is one we know; its classic PK_TP twin
				 * (same name, later in progs[]) is then not used */
	PK_TP_OLD,		/* tracepoint: an older kernel's name for the
				 * PK_TP `alt` (used only where that is missing,
				 * and stands in for it) */
};

struct prog_desc {
	const char *prog;	/* program (function) name in the object */
	enum prog_kind kind;
	const char *cat, *name;	/* PK_TP: tracepoint; PK_FENTRY: name = function;
				 * PK_FSAIO_TP: name = fsaio event */
	uint32_t feat;		/* feature bit it contributes to */
	bool fexit;
	const char *alt;	/* PK_TP_OLD: the current name */
	int pair;		/* the first of a hook's two programs
				 * (bpf/fsaio_nest.h): its hook + 1 */
	int second_of;		/* the second of them: the same hook + 1 */
};

static const struct prog_desc progs[] = {	/* one table, read by both files */
	{ "fsaio_fork", PK_REQUIRED },
	{ "fsaio_exit", PK_REQUIRED },
	{ "fsaio_sched_switch_btf", PK_SWITCH_BTF, NULL, NULL, FEAT_STACK },
	{ "fsaio_sched_switch_raw", PK_SWITCH_RAW, NULL, NULL, FEAT_STACK },
	{ "fsaio_io_submit_enter", PK_TP, "syscalls", "sys_enter_io_submit", FEAT_SYSCALL_TP },
	{ "fsaio_io_submit_exit", PK_TP, "syscalls", "sys_exit_io_submit", FEAT_SYSCALL_TP },
	{ "fsaio_io_getevents_enter", PK_TP, "syscalls", "sys_enter_io_getevents", FEAT_SYSCALL_TP },
	{ "fsaio_io_getevents_exit", PK_TP, "syscalls", "sys_exit_io_getevents", FEAT_SYSCALL_TP },
	{ "fsaio_io_destroy_enter", PK_TP, "syscalls", "sys_enter_io_destroy", 0 },
	{ "fsaio_io_destroy_exit", PK_TP, "syscalls", "sys_exit_io_destroy", 0 },
	{ "fsaio_io_pgetevents_enter", PK_TP, "syscalls", "sys_enter_io_pgetevents", 0 },
	{ "fsaio_io_pgetevents_exit", PK_TP, "syscalls", "sys_exit_io_pgetevents", 0 },
	{ "fsaio_io_uring_enter_enter", PK_TP, "syscalls", "sys_enter_io_uring_enter", 0 },
	{ "fsaio_io_uring_enter_exit", PK_TP, "syscalls", "sys_exit_io_uring_enter", 0 },
	{ "fsaio_uring_create", PK_TP, "io_uring", "io_uring_create", 0 },
	{ "fsaio_uring_submit_req_raw", PK_RAW_TP, "io_uring", "io_uring_submit_req", FEAT_IO_URING_TP },
	{ "fsaio_uring_complete_raw", PK_RAW_TP, "io_uring", "io_uring_complete", FEAT_IO_URING_TP },
	{ "fsaio_uring_submit_req", PK_TP, "io_uring", "io_uring_submit_req", FEAT_IO_URING_TP },
	{ "fsaio_uring_submit_sqe", PK_TP_OLD, "io_uring", "io_uring_submit_sqe", FEAT_IO_URING_TP,
	  .alt = "io_uring_submit_req" },
	{ "fsaio_uring_req_failed", PK_TP, "io_uring", "io_uring_req_failed", 0 },
	{ "fsaio_uring_cqe_overflow", PK_TP, "io_uring", "io_uring_cqe_overflow", 0 },
	{ "fsaio_uring_fail_link", PK_TP, "io_uring", "io_uring_fail_link", 0 },
	{ "fsaio_uring_queue_async_work", PK_TP, "io_uring", "io_uring_queue_async_work", 0 },
	{ "fsaio_uring_complete", PK_TP, "io_uring", "io_uring_complete", FEAT_IO_URING_TP },
	{ "fsaio_work_end", PK_TP, "workqueue", "workqueue_execute_end", FEAT_WORKQUEUE_TP },
	/* patched kernel: before the fentry programs, which attach_all()
	 * tells whether these took over libaio retries and completions */
	{ "fsaio_tp_submit", PK_FSAIO_TP, "fsaio", "fsaio_submit", FEAT_FSAIO_TP },
	{ "fsaio_tp_retry", PK_FSAIO_TP, "fsaio", "fsaio_retry", FEAT_FSAIO_TP },
	/* no feature: a series without it (v10 and older) never falls back
	 * for a reason other than memory */
	{ "fsaio_tp_sync", PK_FSAIO_TP, "fsaio", "fsaio_sync", 0 },
	/* a pair on a raw tracepoint: the kernel calls its probes in the
	 * order they were attached, and the first must run first */
	{ "fsaio_tp_wake", PK_FSAIO_TP, "fsaio", "fsaio_wake", FEAT_FSAIO_TP,
	  .pair = NEST_FSAIO_WAKE + 1 },
	{ "fsaio_tp_wake_nested", PK_FSAIO_TP, "fsaio", "fsaio_wake", FEAT_FSAIO_TP,
	  .second_of = NEST_FSAIO_WAKE + 1 },
	{ "fsaio_tp_resume", PK_FSAIO_TP, "fsaio", "fsaio_resume", FEAT_FSAIO_TP },
	{ "fsaio_tp_punt", PK_FSAIO_TP, "fsaio", "fsaio_punt", FEAT_FSAIO_TP },
	{ "fsaio_tp_complete", PK_FSAIO_TP, "fsaio", "fsaio_complete", FEAT_FSAIO_TP,
	  .pair = NEST_FSAIO_COMPLETE + 1 },
	{ "fsaio_tp_complete_nested", PK_FSAIO_TP, "fsaio", "fsaio_complete", FEAT_FSAIO_TP,
	  .second_of = NEST_FSAIO_COMPLETE + 1 },
	{ "fsaio_fexit_get_pages", PK_FENTRY, NULL, "filemap_get_pages", FEAT_FEXIT_GET_PAGES, true },
	{ "fsaio_fentry_async_buf", PK_FENTRY, NULL, "io_async_buf_func", FEAT_FENTRY_ASYNC_BUF },
	/* the resume half of the wake/resume pair: FEAT_FENTRY_ASYNC_BUF needs both */
	{ "fsaio_fentry_io_read", PK_FENTRY, NULL, "io_read", FEAT_FENTRY_ASYNC_BUF },
	/* a pair on an fentry trampoline, which calls the newest link
	 * first: the second is attached first, so the first runs first */
	{ "fsaio_fentry_aio_complete_nested", PK_FENTRY, NULL, "aio_complete_rw",
	  FEAT_FENTRY_AIO_COMPLETE, .second_of = NEST_AIO_COMPLETE + 1 },
	{ "fsaio_fentry_aio_complete", PK_FENTRY, NULL, "aio_complete_rw", FEAT_FENTRY_AIO_COMPLETE,
	  .pair = NEST_AIO_COMPLETE + 1 },
	{ "fsaio_fentry_fsync", PK_FENTRY, NULL, "vfs_fsync_range", FEAT_FENTRY_FSYNC },
};
#define NR_PROGS (sizeof(progs) / sizeof(progs[0]))

struct tracer {
	struct tracer_opts opts;
	struct fsaio_bpf *skel;
	struct ring_buffer *rb;
	struct ksyms *ksyms;
	struct bpf_link *links[MAX_LINKS];
	int nr_links;
	uint32_t feat;
	size_t ringbuf_bytes;		/* the ring records go to now */
	size_t ringbuf_max;		/* ring_grow stops here */
	unsigned int ring_grows;
	/* the pairs of programs (bpf/fsaio_nest.h): their counts when last
	 * read, and what they added up to since attach (prog_misses()) */
	uint64_t pair_missed[NEST__COUNT], pair_caught[NEST__COUNT];
	uint64_t pair_lost, pair_twice;
	int ring_fds[MAX_RINGS];	/* the rings grown into, read to the end */
	int nr_rings;
	const char *tracefs;
	bool use[NR_PROGS];		/* autoload decision per program */
	bool attached[NR_PROGS];
	struct bpf_link *link[NR_PROGS];	/* the attached ones' (in links[]) */
	uint32_t feat_missing;		/* a contributing program failed */
	char why_tp_btf[96];
	char why_fentry[96];		/* first fentry/fexit probe failure */
	char why_prog[NR_PROGS][96];	/* per fentry target */
	char why_ksyms[128];
	bool fentry_load_fell_back;
	bool skel_uring_complete_cqe;	/* rodata uring_complete_cqe at load */
	bool fsaio_events_present;	/* some fsaio:* event exists */
	char why_fsaio[128];		/* why FEAT_FSAIO_TP is off although present */
	int ncpus;

	/* in-order delivery */
	struct fsaio_record *pend;	/* sorted by seq, [pend_head, pend_nr) */
	size_t pend_head, pend_nr, pend_cap;
	uint64_t next_seq;
	uint64_t gap_since;		/* CLOCK_MONOTONIC ns, 0: no gap */
	uint64_t bad_records;
	int oom;
};

/* -v: "fsaio: ..." on stderr */
void tracer_vlog(const struct tracer *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* probe.c */
int probe_features(struct tracer *t, char *err, size_t errlen);
const char *kernel_btf_path(void);
const char *errname(int err);
bool raw_twin_used(const struct tracer *t, const char *name, size_t upto);
const struct prog_desc *old_name_of(const struct prog_desc *d);

#endif
