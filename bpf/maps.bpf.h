/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every map and global variable of the BPF object, and the types of their
 * values, in one place.
 *
 * The programs live in one bpf/<source>.bpf.c per event source, each
 * compiled alone and linked into one object (bpftool gen object); the
 * harness opens that object through one skeleton (fsaio_bpf).  A global
 * must be one variable after the link: the harness sets the const volatile
 * ones before load and every program must see that value, and a map shared
 * by two objects must be one map.  So maps.bpf.c defines each of them
 * (FSAIO_DEFINE_MAPS) and every other object declares them extern; the
 * linker checks that the declarations match the definition.
 */
#ifndef FSAIO_MAPS_BPF_H
#define FSAIO_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "fsaio.h"
#include "fsaio_agg.h"
#include "fsaio_fold.h"
#include "fsaio_fold_aio.h"
#include "fsaio_nest.h"
#include "fsaio_sleeps.h"

#ifdef FSAIO_DEFINE_MAPS
#define FSAIO_GLOBAL
#define FSAIO_INIT(...)	= __VA_ARGS__
#else
#define FSAIO_GLOBAL	extern
#define FSAIO_INIT(...)
#endif

#define MAX_SUBMIT_BATCH	4096	/* io_submit iocbs / io_getevents events per call */
#define MAX_TRACKED_TGIDS	8192
#define MAX_THREADS		16384

/* ---- configuration: set by the harness before load ----------------------- */

FSAIO_GLOBAL const volatile bool trace_all FSAIO_INIT(false);
FSAIO_GLOBAL const volatile char targ_comm[FSAIO_COMM_LEN] FSAIO_INIT({});
/* Address of fs/aio.c aio_complete_rw (from /proc/kallsyms), 0 if unknown:
 * tells a libaio kiocb from an io_uring one in the retry probe. */
FSAIO_GLOBAL const volatile __u64 aio_complete_rw_addr FSAIO_INIT(0);
/* fsaio trace: count records in agg (fsaio_agg.h) and send only those
 * fsaio_agg_sends() names; a constant, so the verifier keeps one path. */
FSAIO_GLOBAL const volatile bool aggregate FSAIO_INIT(false);
/* The fentry/fexit retry tier (fentry.bpf.c) is loaded: only then does a
 * new io_uring request have an armed entry of a recycled req to drop. */
FSAIO_GLOBAL const volatile bool armed_tier FSAIO_INIT(false);
/* fsaio check without --record: keep plain io_uring lifecycles in
 * fold_slots and send only what the checker must see (fsaio_fold.h). */
FSAIO_GLOBAL const volatile bool fold FSAIO_INIT(false);
/* io_uring_complete's raw tracepoint passes (ctx, req, cqe), not the
 * fields one by one (io_uring.bpf.c, fsaio_uring_complete_raw). */
FSAIO_GLOBAL const volatile bool uring_complete_cqe FSAIO_INIT(false);

/* ---- state written at run time (.bss) ------------------------------------ */

/* Global record sequence; taken after a successful reserve, except by a
 * fold promote, which numbers its records before it claims its slot and
 * reserves them after (fsaio_fold_number_and_swap()): meanwhile its CPU's
 * fold_unsent counts it, so that the harness waits for those numbers
 * instead of reading the hole as lost (tracer.c deliver()). */
FSAIO_GLOBAL __u64 fsaio_seq FSAIO_INIT(0);
FSAIO_GLOBAL __u64 fold_unsent[FSAIO_FOLD_UNSENT] FSAIO_INIT({});
/* Set by the harness once every fsaio:* program (fsaio_tp.bpf.c) attached:
 * libaio retries and completions then come from those tracepoints and the
 * fentry/fexit programs leave libaio requests alone (no double RETRY or
 * COMPLETE). */
FSAIO_GLOBAL volatile __u32 fsaio_tp_on FSAIO_INIT(0);
/* Set by the harness when fs.aio-buffered-async is 1: only a request whose
 * iocb has IOCB_FLAG_BUFFERED_ASYNC may then go asynchronous, every other
 * stays synchronous (fsaio_tp.bpf.c fsaio_tp_submit). */
FSAIO_GLOBAL volatile __u32 libaio_opt_in FSAIO_INIT(0);
/* Folded lifecycles (fsaio_fold.h): kept submits in a direct-mapped table
 * (global data: read and cleared by the harness through the mmapped .bss). */
FSAIO_GLOBAL struct fsaio_fold_req fold_slots[FSAIO_FOLD_SLOTS] FSAIO_INIT({});
/* Folding libaio lifecycles: 0 or FOLD_AIO_* (fsaio_fold_aio.h), set by
 * the harness once the programs are attached (tracer.c fold_aio_mode). */
FSAIO_GLOBAL volatile __u32 fold_aio FSAIO_INIT(0);
FSAIO_GLOBAL struct fsaio_fold_aio fold_aio_slots[FSAIO_FOLD_AIO_SLOTS] FSAIO_INIT({});

/* ---- the record stream ---------------------------------------------------- */

FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);	/* resized by the harness */
} events SEC(".maps");

/*
 * The ring records go to: slot 0 holds `events` at first, and a larger
 * ring once the harness grew it (tracer.c ring_grow).  A ring buffer
 * cannot be resized, but an inner map can be replaced while programs run;
 * the consumer reads the old rings to the end and records carry seq, so
 * the switch loses and reorders nothing.
 */
struct fsaio_ring_def {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);	/* a template: the inner rings' sizes differ */
};
FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct fsaio_ring_def);
} event_rings SEC(".maps");

/* Set by the harness for the ring now in event_rings (.bss: it changes
 * when the ring grows).  wakeup_bytes: wake the consumer each time this
 * much more data waits (0: on every record).  grow_bytes: more than this
 * waiting sets ring_pressure, which asks the harness for a larger ring
 * (0: the ring's size is fixed). */
FSAIO_GLOBAL volatile __u64 wakeup_bytes FSAIO_INIT(0);
FSAIO_GLOBAL volatile __u64 grow_bytes FSAIO_INIT(0);
FSAIO_GLOBAL volatile __u32 ring_pressure FSAIO_INIT(0);

/* Events that never became a record, per CPU, by enum fsaio_drop cause. */
FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FSAIO_DROP__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* The marks of the hooks interrupts reach, per CPU (fsaio_nest.h), and
 * how many events each hook's second program sent because the kernel
 * skipped the first (harness/live/tracer.c prog_misses()). */
FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NEST__COUNT);
	__type(key, __u32);
	__type(value, struct fsaio_nest_marks);
} nest_marks SEC(".maps");
FSAIO_GLOBAL volatile __u64 nest_caught[NEST__COUNT] FSAIO_INIT({});

/* The counts of aggregate mode, per CPU (summed by the harness). */
FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fsaio_agg);
} agg SEC(".maps");

/* Aggregate mode builds records here.  A program can be interrupted by
 * another on the same CPU (a completion in irq context inside a syscall's
 * program), so one slot per nesting level. */
#define AGG_SLOTS 4
struct agg_scratch {
	__u32 depth;
	struct fsaio_record slot[AGG_SLOTS];
};
FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct agg_scratch);
} agg_scratch SEC(".maps");

/* What folding kept back and counted instead (fsaio_fold.h). */
FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fsaio_fold_counts);
} fold_counts SEC(".maps");

/* ---- what is traced --------------------------------------------------------- */

/* tgids traced when !trace_all: filled by the harness (tracer_track_pid),
 * by fork of a tracked process, and by a targ_comm match. */
FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_TRACKED_TGIDS);
	__type(key, __u32);
	__type(value, __u8);
} tracked_tgids SEC(".maps");

/* Rings of traced processes, for events that run in another task's or in
 * interrupt context (completions, wakes): the kernel struct io_ring_ctx
 * pointer (io_uring) or the user aio_context_t (libaio; user and kernel
 * addresses never collide).  Only used when !trace_all. */
FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u8);
} tracked_rings SEC(".maps");

/* ---- per-thread state -------------------------------------------------------- */

/* Per-thread syscall state.  Kept across calls (the libaio batch counter)
 * and deleted when the thread exits. */
struct sys_state {
	__u64 ts;		/* syscall entry, 0: not in a traced syscall */
	__u64 ptr;		/* io_getevents: user struct io_event array;
				 * io_destroy: the aio_context_t */
	__u64 nr;		/* io_submit nr / io_uring_enter to_submit */
	__u32 batch;		/* io_submit calls so far (the batch id) */
	__u32 stays_sync;	/* io_submit is issuing a request that stays
				 * synchronous (fsaio_submit: a write to an
				 * S_SYNC inode; fsaio_sync: done in place):
				 * its sleeps are the synchronous request's,
				 * by design */
	__u32 pad;
	/* fold_aio: the batch in io_submit (its id; 0: none), with
	 * FOLD_BATCH_SENT once one of its SUBMITs went as a record, when
	 * its SUBMIT_DONE must go too; after io_submit returned, with
	 * FOLD_BATCH_PARTIAL if the kernel did not take all of it
	 * (fold_aio.bpf.h) */
	__u64 fold_batch;
};
#define FOLD_BATCH_SENT		(1ull << 32)
#define FOLD_BATCH_PARTIAL	(1ull << 33)

FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_THREADS);
	__type(key, __u32);
	__type(value, struct sys_state);
} sys_states SEC(".maps");

/* A task in D state: what it looked like when it was switched out. */
struct sleep_state {
	__u64 ts;
	__s64 sysnr;
	__u32 pid;
	__u32 tgid;
	__u32 nr_stack;
	__u8 ctx;
	__u8 engine;
	__u8 flags;		/* FSAIO_F_STAYS_SYNC */
	__u8 pad;
	__u64 stack[FSAIO_STACK_DEPTH];
	char comm[FSAIO_COMM_LEN];
};

FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_THREADS);
	__type(key, __u32);
	__type(value, struct sleep_state);
} sleeping SEC(".maps");

FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sleep_state);
} sleep_scratch SEC(".maps");

/* Sleeps counted in the kernel under fold (fsaio_sleeps.h): the sums per
 * (stack, context), read and cleared by the harness after each run; sized
 * to one entry by the harness when fold is off. */
FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FSAIO_SLEEP_KEYS);
	__type(key, struct fsaio_sleep_key);
	__type(value, struct fsaio_sleep_agg);
} sleep_aggs SEC(".maps");

/* The generation of the keys sleeps add to now: flipped by the harness
 * before it drains the other one (.bss, mmapped). */
FSAIO_GLOBAL volatile __u32 sleep_gen FSAIO_INIT(0);

/* A new key's entry is built here (too big for the BPF stack). */
FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fsaio_sleep_agg);
} sleep_agg_new SEC(".maps");

/* The request an aio worker is running, by worker thread: set where the
 * worker announces it (fsaio_resume, fsaio_punt in the worker), so that
 * what the worker calls next (its final ->fsync()) is attributed; deleted
 * when the work item ends (worker_gave_back()). */
FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);	/* worker tid */
	__type(value, __u64);	/* struct aio_kiocb * */
} worker_req SEC(".maps");

/* ---- per-request state --------------------------------------------------------- */

/* io_uring requests with an armed async buffered-read wait (fentry tier):
 * RETRY seen, waiting for WAKE and RESUME.
 *
 * The wait is armed inside filemap_get_pages(), so the wake callback can run
 * on another CPU before or while fexit(filemap_get_pages) reports the RETRY.
 * Whoever inserts the entry first reports the RETRY, and a WAKE is reported
 * only once the RETRY has its sequence number: the fexit inserts ARMING,
 * reports the RETRY and then moves ARMING -> ARMED; a wake that finds ARMING
 * leaves WAKE_PENDING and the fexit reports the WAKE for it.  state is
 * 64-bit because BPF cmpxchg on 32 bits needs -mcpu=v3. */
enum { ARMED = 1, WOKEN = 2, ARMING = 3, WAKE_PENDING = 4 };

struct armed_state {
	__u64 mm;		/* submitter's mm, for RESUME arg1 */
	__u64 state;		/* changed with cmpxchg while ARMING */
};

/* A plain hash: an LRU map would evict an armed request before it is full
 * and its wake would vanish unnoticed; a full map is a counted drop. */
FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct armed_state);
} armed SEC(".maps");

/* A libaio request of the patched kernel, remembered at fsaio_submit. */
struct aio_req_info {
	__u64 iocb;		/* user struct iocb * */
	__u64 data;		/* aio_data */
	__u64 mm;		/* submitter's mm */
	__u32 tgid;		/* submitter */
	__u32 pid;
	/* the submitter's identity at submit: the worker must act as it */
	__u32 fsuid, fsgid;
	__u64 cap_effective;
	__u32 stays_sync;	/* a request that stays synchronous (core_fixes.bpf.h,
				 * fsaio_not_opted_in) */
	__u16 ioprio;		/* the request's I/O priority (ki_ioprio) */
	__u16 pad;
};

/*
 * Traced libaio requests of the patched kernel, by struct aio_kiocb *.
 * In flight: a plain hash, never evicted (an LRU map evicts before it is
 * full, and the evicted request's later events would vanish unnoticed);
 * in-flight requests are bounded by fs.aio-max-nr (65536 by default), and
 * a full map is a counted drop.  Completed: moved to an LRU map, so that
 * a second completion, or a retry, wake or resume after the completion,
 * is a record the checker judges; an entry evicted from there is a
 * request completed tens of thousands of completions ago.
 */
FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);	/* struct aio_kiocb * */
	__type(value, struct aio_req_info);
} aio_reqs SEC(".maps");

FSAIO_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);	/* struct aio_kiocb * */
	__type(value, struct aio_req_info);
} aio_done SEC(".maps");

#endif /* FSAIO_MAPS_BPF_H */
