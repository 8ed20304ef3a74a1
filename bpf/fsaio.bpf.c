// SPDX-License-Identifier: GPL-2.0
/*
 * fsaio: CO-RE tracer for asynchronous buffered file I/O.
 *
 * Thin SEC() wrappers around inline handlers; one ring buffer of fixed-size
 * struct fsaio_record (bpf/fsaio.h).  Which programs load is decided in user
 * space before load (harness/tracer.c, bpf_program__set_autoload): every
 * optional program (io_uring tracepoints, fentry/fexit, tp_btf) is probed
 * first, so the object loads on kernels without io_uring, fentry or the
 * patched kernel's fsaio:* tracepoints.
 *
 * Sections:
 *   1. maps, configuration, record helpers, filtering
 *   2. process tracking (fork/exit)
 *   3. libaio syscalls (io_submit, io_getevents, io_pgetevents, io_destroy)
 *   4. io_uring tracepoints and io_uring_enter
 *   5. D-state sleeps (sched_switch + kernel stack)
 *   6. workqueue (watched functions only)
 *   7. fentry/fexit: retry armed, wake, resume, libaio kernel completion
 *   8. patched kernel fsaio:* tracepoints (raw_tp, optional)
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "fsaio.h"
#include "fsaio_agg.h"
#include "fsaio_fold.h"
#include "core_fixes.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* ===================== 1. maps, configuration, helpers ==================== */

#define MAX_SUBMIT_BATCH	4096	/* io_submit iocbs / io_getevents events per call */
#define MAX_TRACKED_TGIDS	8192
#define MAX_THREADS		16384

/* Set by the harness before load. */
const volatile bool trace_all = false;
const volatile char targ_comm[FSAIO_COMM_LEN] = {};
/* Address of fs/aio.c aio_complete_rw (from /proc/kallsyms), 0 if unknown:
 * tells a libaio kiocb from an io_uring one in the retry probe. */
const volatile __u64 aio_complete_rw_addr = 0;
/* Wake the ring buffer consumer when this much data is waiting (0: always). */
const volatile __u64 wakeup_bytes = 0;
/* fsaio trace: count records in agg (fsaio_agg.h) and send only those
 * fsaio_agg_sends() names; a constant, so the verifier keeps one path. */
const volatile bool aggregate = false;
/* The fentry/fexit retry tier (section 7) is loaded: only then does a new
 * io_uring request have an armed entry of a recycled req to drop. */
const volatile bool armed_tier = false;
/* fsaio check without --record: keep plain io_uring lifecycles in
 * fold_slots and send only what the checker must see (fsaio_fold.h). */
const volatile bool fold = false;

/* Global record sequence; taken after a successful reserve. */
__u64 fsaio_seq = 0;
/* Number of entries in watched_work_funcs: 0 keeps the workqueue hot path
 * to one load and a branch.  Written by the harness through the skeleton. */
volatile __u32 nr_watched_work_funcs = 0;
/* Set by the harness once every fsaio:* program (section 8) attached:
 * libaio retries and completions then come from those tracepoints and the
 * fentry/fexit programs leave libaio requests alone (no double RETRY or
 * COMPLETE). */
volatile __u32 fsaio_tp_on = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);	/* resized by the harness */
} events SEC(".maps");

/* Events that never became a record, per CPU, by enum fsaio_drop cause. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FSAIO_DROP__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* tgids traced when !trace_all: filled by the harness (tracer_track_pid),
 * by fork of a tracked process, and by a targ_comm match. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_TRACKED_TGIDS);
	__type(key, __u32);
	__type(value, __u8);
} tracked_tgids SEC(".maps");

/* Rings of traced processes, for events that run in another task's or in
 * interrupt context (completions, wakes): the kernel struct io_ring_ctx
 * pointer (io_uring) or the user aio_context_t (libaio; user and kernel
 * addresses never collide).  Only used when !trace_all. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u8);
} tracked_rings SEC(".maps");

/* Work functions whose workqueue_execute_start/end are reported. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u8);
} watched_work_funcs SEC(".maps");

/* Per-thread syscall state.  Kept across calls (the libaio batch counter)
 * and deleted when the thread exits. */
struct sys_state {
	__u64 ts;		/* syscall entry, 0: not in a traced syscall */
	__u64 ptr;		/* io_getevents: user struct io_event array;
				 * io_destroy: the aio_context_t */
	__u64 nr;		/* io_submit nr / io_uring_enter to_submit */
	__u32 batch;		/* io_submit calls so far (the batch id) */
	__u32 sync_write;	/* io_submit is issuing a write to an S_SYNC
				 * inode (fsaio_submit): its sleeps are the
				 * synchronous write's, by design */
};

struct {
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
	__u8 flags;		/* FSAIO_F_SYNC_INODE */
	__u8 pad;
	__u64 stack[FSAIO_STACK_DEPTH];
	char comm[FSAIO_COMM_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_THREADS);
	__type(key, __u32);
	__type(value, struct sleep_state);
} sleeping SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sleep_state);
} sleep_scratch SEC(".maps");

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
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct armed_state);
} armed SEC(".maps");

static __always_inline void count_drops(__u32 cause, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&lost, &cause);

	if (c)
		*c += n;
}

/* A map update that must not fail silently: a full map is a drop. */
static __always_inline void update_or_count(void *map, const void *key,
					    const void *val, __u64 flags)
{
	long err = bpf_map_update_elem(map, key, val, flags);

	if (err && FSAIO_ERR(err) != -FSAIO_EEXIST)	/* BPF_NOEXIST and already there */
		count_drops(FSAIO_DROP_MAP_FULL, 1);
}

/* The counts of aggregate mode, per CPU (summed by the harness). */
struct {
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
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct agg_scratch);
} agg_scratch SEC(".maps");

static __always_inline struct fsaio_record *scratch_reserve(void)
{
	__u32 zero = 0, d;
	struct agg_scratch *sc = bpf_map_lookup_elem(&agg_scratch, &zero);

	if (!sc)
		return NULL;
	d = sc->depth;
	if (d >= AGG_SLOTS) {
		count_drops(FSAIO_DROP_MAP_FULL, 1);
		return NULL;
	}
	sc->depth = d + 1;
	return &sc->slot[d];
}

/* Reserve and fully initialise a record for the current task. */
static __always_inline struct fsaio_record *rec_reserve(__u16 type, __u8 engine)
{
	struct fsaio_record *r;
	__u64 id;

	if (aggregate) {
		r = scratch_reserve();
		if (!r)
			return NULL;
		__builtin_memset(r, 0, sizeof(*r));
	} else {
		/* sized to its content: a stack area only for a sleep
		 * (type is a constant at every call: one branch stays) */
		if (type == FSAIO_EV_SLEEP)
			r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
		else
			r = bpf_ringbuf_reserve(&events, FSAIO_RECORD_SHORT, 0);
		if (!r) {
			count_drops(FSAIO_DROP_RINGBUF, 1);
			return NULL;
		}
		if (type == FSAIO_EV_SLEEP)
			__builtin_memset(r, 0, sizeof(*r));
		else
			__builtin_memset(r, 0, FSAIO_RECORD_SHORT);
	}
	id = bpf_get_current_pid_tgid();
	r->version = FSAIO_RECORD_VERSION;
	r->type = type;
	r->cpu = bpf_get_smp_processor_id();
	r->ts_ns = bpf_ktime_get_ns();
	/* aggregate mode numbers only what it sends: a gap is a loss */
	if (!aggregate)
		r->seq = __sync_fetch_and_add(&fsaio_seq, 1) + 1;
	r->pid = (__u32)id;
	r->tgid = id >> 32;
	r->engine = engine;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	return r;
}

/*
 * Wake the consumer only once a batch has accumulated: one wakeup per
 * record costs an irq_work and a context switch each, which at several
 * hundred thousand records a second slows the traced workload several
 * times.  The harness polls with a timeout and consumes on timeout, so
 * low-rate records are delivered within one poll period.
 */
/* Wake the consumer once per wakeup_bytes of pending data: when this record
 * (already counted in AVAIL_DATA since its reserve) crosses a multiple of it.
 * Waking on every record above the mark cost an irq_work self-IPI per record
 * (8-10% of a traced io_uring reader's CPU); crossing each multiple, not just
 * the first, keeps a consumer that slept through one wakeup from stalling. */
static __always_inline __u64 wakeup_flags(__u64 before, __u64 after)
{
	if (!wakeup_bytes || after / wakeup_bytes != before / wakeup_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/* Aggregate mode: count the record, send it on if it must be seen, free
 * its scratch slot (r is the innermost one: reserve and submit nest). */
static __always_inline void agg_submit(struct fsaio_record *r)
{
	__u32 zero = 0;
	struct fsaio_agg *a = bpf_map_lookup_elem(&agg, &zero);
	struct agg_scratch *sc = bpf_map_lookup_elem(&agg_scratch, &zero);

	if (a)
		fsaio_agg_account(a, r);
	if (fsaio_agg_sends(r->type)) {
		__u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);

		__u64 size = r->type == FSAIO_EV_SLEEP ? sizeof(*r) : FSAIO_RECORD_SHORT;

		r->seq = __sync_fetch_and_add(&fsaio_seq, 1) + 1;
		if (bpf_ringbuf_output(&events, r, size, wakeup_flags(avail, avail + size)))
			count_drops(FSAIO_DROP_RINGBUF, 1);
	}
	if (sc && sc->depth)
		sc->depth--;
}

/* Aggregate mode's hot paths: count an event without a record. */
static __always_inline void agg_event(__u16 type, __u8 engine, __u8 flags, __s32 res,
				      __u64 arg0, __u64 arg1)
{
	__u32 zero = 0;
	struct fsaio_agg *a = bpf_map_lookup_elem(&agg, &zero);
	struct fsaio_agg_event ev = {
		.type = type, .engine = engine, .flags = flags, .res = res,
		.arg0 = arg0, .arg1 = arg1,
	};

	if (a)
		fsaio_agg_count(a, &ev);
}

static __always_inline void rec_submit(struct fsaio_record *r)
{
	if (aggregate) {
		agg_submit(r);
		return;
	}
	/* this record is counted in AVAIL_DATA since its reserve */
	__u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	__u64 size = FSAIO_RECORD_SHORT;	/* about the threshold: close enough */

	bpf_ringbuf_submit(r, wakeup_flags(avail > size ? avail - size : 0, avail));
}

static __always_inline bool comm_is_target(const char *comm)
{
	int i;

#pragma unroll
	for (i = 0; i < FSAIO_COMM_LEN; i++) {
		if (comm[i] != targ_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

static __always_inline bool tgid_tracked(__u32 tgid)
{
	return bpf_map_lookup_elem(&tracked_tgids, &tgid) != NULL;
}

/* Is the current task traced?  A comm match tracks its whole tgid, so the
 * process's io-wq workers (iou-wrk-*) are traced as well. */
static __always_inline bool trace_current(void)
{
	__u32 tgid;
	char comm[FSAIO_COMM_LEN];
	__u8 one = 1;

	if (trace_all)
		return true;
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (tgid_tracked(tgid))
		return true;
	if (!targ_comm[0])
		return false;
	bpf_get_current_comm(comm, sizeof(comm));
	if (!comm_is_target(comm))
		return false;
	update_or_count(&tracked_tgids, &tgid, &one, BPF_ANY);
	return true;
}

static __always_inline void ring_track(__u64 key)
{
	__u8 one = 1;

	if (trace_all || !key)
		return;
	if (!bpf_map_lookup_elem(&tracked_rings, &key))
		bpf_map_update_elem(&tracked_rings, &key, &one, BPF_ANY);
}

static __always_inline bool ring_tracked(__u64 key)
{
	return key && bpf_map_lookup_elem(&tracked_rings, &key) != NULL;
}

static __always_inline __u32 current_tid(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

/* Folded lifecycles (fsaio_fold.h): kept submits in a direct-mapped table
 * (global data: read and cleared by the harness through the mmapped .bss). */
struct fsaio_fold_req fold_slots[FSAIO_FOLD_SLOTS] = {};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fsaio_fold_counts);
} fold_counts SEC(".maps");

static __always_inline struct fsaio_fold_req *fold_slot_of(__u64 req)
{
	return &fold_slots[fsaio_fold_slot(req) & (FSAIO_FOLD_SLOTS - 1)];
}

/* Send a record built from a kept request (its SUBMIT, or a folded CQE). */
static __always_inline void fold_send_one(const struct fsaio_fold_req *f, bool cqe)
{
	struct fsaio_record *r = bpf_ringbuf_reserve(&events, FSAIO_RECORD_SHORT, 0);

	if (!r) {
		count_drops(FSAIO_DROP_RINGBUF, 1);
		return;
	}
	__builtin_memset(r, 0, FSAIO_RECORD_SHORT);
	if (cqe)
		fsaio_fold_complete_record(r, f);
	else
		fsaio_fold_submit_record(r, f);
	r->version = FSAIO_RECORD_VERSION;
	r->seq = __sync_fetch_and_add(&fsaio_seq, 1) + 1;
	rec_submit(r);
}

/* What the state machine says to send (FSAIO_FOLD_SEND_*), from its
 * snapshot; a folded lifecycle sent after all is uncounted. */
static __always_inline void fold_send(int what, const struct fsaio_fold_req *snap)
{
	struct fsaio_fold_counts *c;
	__u32 zero = 0;

	if (what <= 0)
		return;
	if (what & FSAIO_FOLD_SEND_SUBMIT)
		fold_send_one(snap, false);
	if (what & FSAIO_FOLD_SEND_CQE) {
		fold_send_one(snap, true);
		c = bpf_map_lookup_elem(&fold_counts, &zero);
		if (c)
			fsaio_fold_uncount(c, snap);
	}
}

/* Something is said about req besides its submit and a plain final CQE:
 * its kept SUBMIT goes first, then everything flows as records. */
static __always_inline void fold_promote(__u64 req)
{
	struct fsaio_fold_req snap;

	if (!fold || !req)
		return;
	fold_send(fsaio_fold_promote(fold_slot_of(req), req, &snap), &snap);
}

/* Promote the kept submits of a ring (an overflowed CQE names its request
 * by ring and user_data only) or of a process (its exit ends what it left
 * in flight): rare events, a walk of the table. */
struct fold_walk {
	__u64 ring;
	__u32 tgid;
};

static long fold_walk_one(__u32 i, struct fold_walk *w)
{
	struct fsaio_fold_req *f = &fold_slots[i & (FSAIO_FOLD_SLOTS - 1)], snap;

	if (FSAIO_FOLD_ST(f->state) == FSAIO_FOLD_PENDING &&
	    ((w->ring && f->ring == w->ring) || (w->tgid && f->tgid == w->tgid)))
		fold_send(fsaio_fold_promote(f, 0, &snap), &snap);
	return 0;
}

static __always_inline void fold_promote_all(__u64 ring, __u32 tgid)
{
	struct fold_walk w = { .ring = ring, .tgid = tgid };

	if (fold)
		bpf_loop(FSAIO_FOLD_SLOTS, fold_walk_one, &w, 0);
}

/* A new request's submit: kept (true), or to be sent as a record. */
static __always_inline bool fold_submit(__u64 ring, __u64 req, __u64 user_data,
					__u8 opcode, __u64 flags, __u8 rflags)
{
	struct fsaio_fold_req *f, snap;
	__u64 id, w;
	int send;

	if (!fold)
		return false;
	f = fold_slot_of(req);
	if (!fsaio_fold_submit_ok(rflags, flags)) {
		/* its records flow: what the slot kept of this req goes first */
		if (FSAIO_FOLD_ST(f->state) == FSAIO_FOLD_PENDING)
			fold_send(fsaio_fold_promote(f, req, &snap), &snap);
		else
			fsaio_fold_forget(f, req);
		return false;
	}
	w = fsaio_fold_take(f, req, &snap, &send);
	fold_send(send, &snap);
	if (!w)
		return false;
	id = bpf_get_current_pid_tgid();
	f->req = req;
	f->ts_ns = bpf_ktime_get_ns();
	f->user_data = user_data;
	f->ring = ring;
	f->flags = flags;
	f->done_res = 0;
	f->pid = (__u32)id;
	f->tgid = id >> 32;
	f->cpu = bpf_get_smp_processor_id();
	f->opcode = opcode;
	bpf_get_current_comm(f->comm, sizeof(f->comm));
	__sync_val_compare_and_swap(&f->state, w, FSAIO_FOLD_WORD(w, FSAIO_FOLD_PENDING));
	return true;
}

/* A CQE: folded (true), or to be sent as a record after what the kept
 * request says (its SUBMIT; for a folded one completed again, its pair). */
static __always_inline bool fold_cqe(__u64 req, __s32 res, __u32 cflags)
{
	struct fsaio_fold_req snap;
	struct fsaio_fold_counts *c;
	__u32 zero = 0;
	int what;

	if (!fold || !req)
		return false;
	what = fsaio_fold_on_cqe(fold_slot_of(req), req, res, cflags, &snap);
	if (what < 0) {
		c = bpf_map_lookup_elem(&fold_counts, &zero);
		if (c)
			fsaio_fold_count(c, snap.opcode, res);
		return true;
	}
	fold_send(what, &snap);
	return false;
}

/* ========================= 2. process tracking ============================ */

/* raw_tp: (struct task_struct *parent, struct task_struct *child) */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(fsaio_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid, ctgid, cpid;
	__u8 one = 1;

	if (trace_all)
		return 0;
	ptgid = BPF_CORE_READ(parent, tgid);
	ctgid = BPF_CORE_READ(child, tgid);
	cpid = BPF_CORE_READ(child, pid);
	/* threads share the tgid already */
	if (cpid != ctgid || ptgid == ctgid || !tgid_tracked(ptgid))
		return 0;
	update_or_count(&tracked_tgids, &ctgid, &one, BPF_ANY);
	return 0;
}

/* raw_tp: (struct task_struct *p[, bool group_dead (6.16+)]); p == current,
 * p->exit_code already set by do_exit(). */
SEC("raw_tp/sched_process_exit")
int BPF_PROG(fsaio_exit, struct task_struct *p)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, tgid = id >> 32;
	struct fsaio_record *r;
	bool traced;
	int live;

	bpf_map_delete_elem(&sys_states, &tid);
	traced = trace_current();
	if (!traced)
		return 0;
	/* The process is gone when its last thread exits, not its leader: a
	 * main thread that returns through pthread_exit() leaves the others
	 * submitting and reaping.  signal->live was decremented before the
	 * tracepoint, so 0 here is the last thread. */
	live = BPF_CORE_READ(p, signal, live.counter);
	if (live)
		return 0;
	fold_promote_all(0, tgid);
	r = rec_reserve(FSAIO_EV_PROC_EXIT, FSAIO_ENGINE_NONE);
	if (r) {
		/* wait(2) status: exit code << 8 | signal (the group's, as
		 * exit_group() gives every thread its code) */
		r->res = BPF_CORE_READ(p, exit_code);
		rec_submit(r);
	}
	if (!trace_all)
		bpf_map_delete_elem(&tracked_tgids, &tgid);
	return 0;
}

/* ========================== 3. libaio syscalls ============================ */

struct submit_loop {
	__u64 iocbpp;		/* user struct iocb ** */
	__u64 ring;		/* aio_context_t */
	__u32 batch;
	__u32 nr;		/* entries looked at */
};

static long submit_one(__u32 i, void *data)
{
	struct submit_loop *l = data;
	struct fsaio_record *r;
	struct iocb cb;
	__u64 uptr = 0;

	/* BPF cannot fault user pages in: a page the kernel would read fine
	 * may be unreadable here.  The rest of the batch is then untraced,
	 * and said so (the kernel's own -EFAULT cases are counted too: the
	 * checker cannot tell them apart). */
	if (bpf_probe_read_user(&uptr, sizeof(uptr),
				(void *)(l->iocbpp + (__u64)i * sizeof(__u64))) ||
	    bpf_probe_read_user(&cb, sizeof(cb), (void *)uptr)) {
		count_drops(FSAIO_DROP_USER_READ, l->nr - i);
		return 1;
	}
	r = rec_reserve(FSAIO_EV_SUBMIT, FSAIO_ENGINE_LIBAIO);
	if (!r)
		return 0;
	r->req = uptr;
	r->user_data = cb.aio_data;
	r->arg0 = (__u64)cb.aio_offset;
	r->arg1 = cb.aio_nbytes;
	r->arg2 = fsaio_submit_arg2(cb.aio_lio_opcode, cb.aio_fildes, i);
	r->res = l->batch;
	r->ring = l->ring;
	rec_submit(r);
	return 0;
}

static __always_inline struct sys_state *sys_state_get(__u32 tid)
{
	struct sys_state *s = bpf_map_lookup_elem(&sys_states, &tid);
	struct sys_state zero = {};

	if (s)
		return s;
	update_or_count(&sys_states, &tid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&sys_states, &tid);
}

/* Syscall entry of a traced thread: remember ptr and the entry time. */
static __always_inline struct sys_state *sys_enter_state(__u64 ptr)
{
	struct sys_state *s;

	if (!trace_current())
		return NULL;
	s = sys_state_get(current_tid());
	if (!s)
		return NULL;
	s->ptr = ptr;
	s->ts = bpf_ktime_get_ns();
	return s;
}

/* Syscall exit: the thread's state if its entry was traced (the entry
 * time in *ts, cleared in the state), else NULL. */
static __always_inline struct sys_state *sys_exit_state(__u64 *ts)
{
	__u32 tid = current_tid();
	struct sys_state *s = bpf_map_lookup_elem(&sys_states, &tid);

	if (!s || !s->ts)
		return NULL;
	*ts = s->ts;
	s->ts = 0;
	return s;
}

/* The libaio record of a traced syscall's exit (res = return value,
 * arg1 = time in the call) and the thread's state in *sp, or NULL. */
static __always_inline struct fsaio_record *
sys_exit_record(struct trace_event_raw_sys_exit *ctx, __u16 type, struct sys_state **sp)
{
	struct fsaio_record *r;
	struct sys_state *s;
	__u64 ts;

	s = sys_exit_state(&ts);
	if (!s)
		return NULL;
	r = rec_reserve(type, FSAIO_ENGINE_LIBAIO);
	if (!r)
		return NULL;
	r->res = ctx->ret;
	r->arg1 = r->ts_ns - ts;
	*sp = s;
	return r;
}

/* io_submit(aio_context_t ctx_id, long nr, struct iocb **iocbpp) */
static __always_inline int handle_io_submit_enter(struct trace_event_raw_sys_enter *ctx)
{
	struct submit_loop l;
	struct sys_state *s;
	__u64 nr;

	if (!trace_current())
		return 0;
	s = sys_state_get(current_tid());
	if (!s)
		return 0;
	s->batch++;
	nr = ctx->args[1];
	s->nr = nr;
	s->ts = bpf_ktime_get_ns();
	ring_track(ctx->args[0]);
	l.iocbpp = ctx->args[2];
	l.ring = ctx->args[0];
	l.batch = s->batch;
	if ((long)nr <= 0)
		return 0;
	if (nr > MAX_SUBMIT_BATCH) {
		count_drops(FSAIO_DROP_BATCH_CUT, nr - MAX_SUBMIT_BATCH);
		nr = MAX_SUBMIT_BATCH;
	}
	l.nr = nr;
	bpf_loop(nr, submit_one, &l, 0);
	return 0;
}

static __always_inline int handle_io_submit_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u32 tid = current_tid();
	struct sys_state *s = bpf_map_lookup_elem(&sys_states, &tid);
	struct fsaio_record *r;

	if (s)
		s->sync_write = 0;
	r = sys_exit_record(ctx, FSAIO_EV_SUBMIT_DONE, &s);
	if (!r)
		return 0;
	r->arg0 = s->nr;
	r->arg2 = s->batch;
	rec_submit(r);
	return 0;
}

/* io_getevents(ctx_id, min_nr, nr, struct io_event *events, timeout) and
 * io_pgetevents(..., events, timeout, usig): events is args[3] in both. */
static __always_inline int handle_getevents_enter(struct trace_event_raw_sys_enter *ctx)
{
	sys_enter_state(ctx->args[3]);
	return 0;
}

struct reap_loop {
	__u64 events;		/* user struct io_event array */
	__u32 nr;		/* entries looked at */
};

static long reap_one(__u32 i, void *data)
{
	struct reap_loop *l = data;
	struct fsaio_record *r;
	struct io_event ev;

	if (bpf_probe_read_user(&ev, sizeof(ev),
				(void *)(l->events + (__u64)i * sizeof(ev)))) {
		count_drops(FSAIO_DROP_USER_READ, l->nr - i);
		return 1;
	}
	r = rec_reserve(FSAIO_EV_REAP, FSAIO_ENGINE_LIBAIO);
	if (!r)
		return 0;
	r->req = ev.obj;
	r->user_data = ev.data;
	r->res = (__s32)ev.res;
	r->arg0 = i;
	rec_submit(r);
	return 0;
}

static __always_inline int handle_getevents_exit(struct trace_event_raw_sys_exit *ctx)
{
	struct reap_loop l;
	struct sys_state *s;
	__u64 ts;
	long ret;

	s = sys_exit_state(&ts);
	if (!s)
		return 0;
	l.events = s->ptr;
	ret = ctx->ret;
	if (ret <= 0)
		return 0;
	if (ret > MAX_SUBMIT_BATCH) {
		count_drops(FSAIO_DROP_BATCH_CUT, ret - MAX_SUBMIT_BATCH);
		ret = MAX_SUBMIT_BATCH;
	}
	l.nr = ret;
	bpf_loop(ret, reap_one, &l, 0);
	return 0;
}

/* io_destroy(aio_context_t ctx_id): returns once every request of the
 * context has completed in the kernel; the unreaped ones are abandoned. */
static __always_inline int handle_io_destroy_enter(struct trace_event_raw_sys_enter *ctx)
{
	sys_enter_state(ctx->args[0]);
	return 0;
}

static __always_inline int handle_io_destroy_exit(struct trace_event_raw_sys_exit *ctx)
{
	struct sys_state *s;
	struct fsaio_record *r = sys_exit_record(ctx, FSAIO_EV_IO_DESTROY, &s);

	if (!r)
		return 0;
	r->ring = s->ptr;
	rec_submit(r);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_io_submit")
int fsaio_io_submit_enter(struct trace_event_raw_sys_enter *ctx)
{
	return handle_io_submit_enter(ctx);
}

SEC("tracepoint/syscalls/sys_exit_io_submit")
int fsaio_io_submit_exit(struct trace_event_raw_sys_exit *ctx)
{
	return handle_io_submit_exit(ctx);
}

SEC("tracepoint/syscalls/sys_enter_io_getevents")
int fsaio_io_getevents_enter(struct trace_event_raw_sys_enter *ctx)
{
	return handle_getevents_enter(ctx);
}

SEC("tracepoint/syscalls/sys_exit_io_getevents")
int fsaio_io_getevents_exit(struct trace_event_raw_sys_exit *ctx)
{
	return handle_getevents_exit(ctx);
}

SEC("tracepoint/syscalls/sys_enter_io_pgetevents")
int fsaio_io_pgetevents_enter(struct trace_event_raw_sys_enter *ctx)
{
	return handle_getevents_enter(ctx);
}

SEC("tracepoint/syscalls/sys_exit_io_pgetevents")
int fsaio_io_pgetevents_exit(struct trace_event_raw_sys_exit *ctx)
{
	return handle_getevents_exit(ctx);
}

SEC("tracepoint/syscalls/sys_enter_io_destroy")
int fsaio_io_destroy_enter(struct trace_event_raw_sys_enter *ctx)
{
	return handle_io_destroy_enter(ctx);
}

SEC("tracepoint/syscalls/sys_exit_io_destroy")
int fsaio_io_destroy_exit(struct trace_event_raw_sys_exit *ctx)
{
	return handle_io_destroy_exit(ctx);
}

/* =========================== 4. io_uring ================================== */

/* Events in the submitter's context (submit, punt, task_work) are filtered
 * by the current task; completions may run in interrupt or another task's
 * context and are filtered by the ring. */
static __always_inline bool trace_ring_event(__u64 ring)
{
	if (trace_all)
		return true;
	return ring_tracked(ring) || trace_current();
}

/* A new io_uring request of a traced task: its SUBMIT.  A new lifecycle
 * has no armed wait: drop one left by a recycled req. */
static __always_inline int uring_new_request(__u64 ring, __u64 req, __u64 user_data,
					     __u8 opcode, __u64 flags, __u8 rflags, __s32 res)
{
	struct fsaio_record *r;

	if (!trace_current())
		return 0;
	ring_track(ring);
	if (armed_tier)
		bpf_map_delete_elem(&armed, &req);
	if (aggregate) {
		agg_event(FSAIO_EV_SUBMIT, FSAIO_ENGINE_IO_URING, rflags, res, opcode, 0);
		return 0;
	}
	if (fold_submit(ring, req, user_data, opcode, flags, rflags))
		return 0;
	r = rec_reserve(FSAIO_EV_SUBMIT, FSAIO_ENGINE_IO_URING);
	if (!r)
		return 0;
	r->flags = rflags;
	r->req = req;
	r->user_data = user_data;
	r->res = res;
	r->arg0 = opcode;
	r->arg1 = flags;
	r->ring = ring;
	rec_submit(r);
	return 0;
}

/* A new ring: the address of a traced process's freed ring may come back
 * for someone else's, whose completions must not count; a traced creator's
 * ring is tracked from the start. */
SEC("tracepoint/io_uring/io_uring_create")
int fsaio_uring_create(struct trace_event_raw_io_uring_create *ctx)
{
	__u64 ring = (__u64)ctx->ctx;

	if (trace_all)
		return 0;
	if (trace_current())
		ring_track(ring);
	else
		bpf_map_delete_elem(&tracked_rings, &ring);
	return 0;
}

SEC("tracepoint/io_uring/io_uring_submit_req")
int fsaio_uring_submit_req(struct trace_event_raw_io_uring_submit_req *ctx)
{
	return uring_new_request((__u64)ctx->ctx, (__u64)ctx->req, ctx->user_data,
				 ctx->opcode, ctx->flags, 0, 0);
}

/* Kernels before 6.4 (6.1 LTS): the same event under its old name. */
SEC("tracepoint/io_uring/io_uring_submit_sqe")
int fsaio_uring_submit_sqe(struct trace_event_raw_io_uring_submit_sqe *ctx)
{
	return uring_new_request((__u64)ctx->ctx, (__u64)ctx->req, ctx->user_data,
				 ctx->opcode, ctx->flags, 0, 0);
}

/* An SQE that fails at init (bad opcode, flags, buffer, fd) never reaches
 * io_uring_submit_req but still completes with its error: it is a request
 * of its own (on a req struct that may just have been recycled). */
SEC("tracepoint/io_uring/io_uring_req_failed")
int fsaio_uring_req_failed(struct trace_event_raw_io_uring_req_failed *ctx)
{
	return uring_new_request((__u64)ctx->ctx, (__u64)ctx->req, ctx->user_data,
				 ctx->opcode, ctx->flags, FSAIO_F_FAILED_INIT, ctx->error);
}

/* -ECANCELED posted while the ring is being torn down: by a task in
 * do_exit() (io_uring_files_cancel), by a workqueue worker
 * (io_ring_exit_work, the fallback task_work of a dead task), or by
 * whoever closes the ring (its refs already killed).  The request was
 * cancelled, not completed for the program.  Link and async_cancel
 * cancellations on a live ring are not flagged. */
static __always_inline __u8 teardown_flag(void *ring, __s32 res)
{
	struct task_struct *task;
	__u64 refs;
	__u32 flags;

	if (res != -125 /* -ECANCELED */)
		return 0;
	task = (struct task_struct *)bpf_get_current_task();
	flags = BPF_CORE_READ(task, flags);
	if (flags & (FSAIO_PF_EXITING | FSAIO_PF_WQ_WORKER))
		return FSAIO_F_TEARDOWN;
	refs = BPF_CORE_READ((struct io_ring_ctx *)ring, refs.percpu_count_ptr);
	return refs & FSAIO_PERCPU_REF_DEAD ? FSAIO_F_TEARDOWN : 0;
}

/* A completion that did not fit the CQ: io_uring_complete does not fire
 * for it, this does, without the req (ring + user_data name it). */
SEC("tracepoint/io_uring/io_uring_cqe_overflow")
int fsaio_uring_cqe_overflow(struct trace_event_raw_io_uring_cqe_overflow *ctx)
{
	/* fields read once, up front: the verifier refuses a load through a
	 * ctx pointer the compiler offset (ctx + 24) */
	__s32 res = ctx->res;
	struct fsaio_record *r;

	barrier_var(res);
	if (!trace_ring_event((__u64)ctx->ctx))
		return 0;
	fold_promote_all((__u64)ctx->ctx, 0);
	r = rec_reserve(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING);
	if (!r)
		return 0;
	r->flags = FSAIO_F_OVERFLOW | (ctx->ocqe ? 0 : FSAIO_F_DROPPED) |
		   teardown_flag(ctx->ctx, res);
	r->user_data = ctx->user_data;
	r->res = res;
	r->arg0 = ctx->cflags;
	r->ring = (__u64)ctx->ctx;
	rec_submit(r);
	return 0;
}

/* A link of a failed chain, cancelled (io_uring_fail_link): whether its
 * -ECANCELED CQE is posted depends on REQ_F_SKIP_LINK_CQES of the failed
 * request, so the checker lets it end without one. */
SEC("tracepoint/io_uring/io_uring_fail_link")
int fsaio_uring_fail_link(struct trace_event_raw_io_uring_fail_link *ctx)
{
	__u64 ring = (__u64)ctx->ctx, link = (__u64)ctx->link, ud = ctx->user_data;
	struct fsaio_record *r;

	barrier_var(link);
	if (!trace_ring_event(ring))
		return 0;
	fold_promote(link);
	r = rec_reserve(FSAIO_EV_LINK_FAIL, FSAIO_ENGINE_IO_URING);
	if (!r)
		return 0;
	r->req = link;
	r->user_data = ud;
	r->ring = ring;
	rec_submit(r);
	return 0;
}

SEC("tracepoint/io_uring/io_uring_queue_async_work")
int fsaio_uring_queue_async_work(struct trace_event_raw_io_uring_queue_async_work *ctx)
{
	struct fsaio_record *r;

	if (!trace_ring_event((__u64)ctx->ctx))
		return 0;
	fold_promote((__u64)ctx->req);
	r = rec_reserve(FSAIO_EV_PUNT, FSAIO_ENGINE_IO_URING);
	if (!r)
		return 0;
	r->req = (__u64)ctx->req;
	r->user_data = ctx->user_data;
	r->arg0 = ctx->opcode;
	r->arg1 = ctx->flags;
	r->arg2 = ctx->rw;	/* 1: hashed (serialized) work */
	rec_submit(r);
	return 0;
}

/* A CQE posted (io_uring_complete), from either attachment below. */
static __always_inline int uring_cqe(__u64 ring, __u64 req, __u64 user_data, __s32 res,
				     __u32 cflags)
{
	struct fsaio_record *r;

	if (!trace_ring_event(ring))
		return 0;
	/* the lifecycle ends (multishot: only with its last CQE) */
	if (armed_tier && req && !(cflags & (1U << 1)))	/* IORING_CQE_F_MORE */
		bpf_map_delete_elem(&armed, &req);
	if (aggregate) {	/* teardown_flag() is for the checker's eyes only */
		agg_event(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 0, res, cflags, 0);
		return 0;
	}
	if (fold_cqe(req, res, cflags))
		return 0;
	r = rec_reserve(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING);
	if (!r)
		return 0;
	r->req = req;	/* may be 0 */
	r->user_data = user_data;
	r->res = res;
	r->arg0 = cflags;
	r->flags = teardown_flag((void *)ring, res);
	rec_submit(r);
	return 0;
}

SEC("tracepoint/io_uring/io_uring_complete")
int fsaio_uring_complete(struct trace_event_raw_io_uring_complete *ctx)
{
	/* fields read once, up front (see fsaio_uring_cqe_overflow) */
	__u64 ring = (__u64)ctx->ctx, req = (__u64)ctx->req, ud = ctx->user_data;
	__s32 res = ctx->res;
	__u32 cflags = ctx->cflags;

	barrier_var(res);
	barrier_var(cflags);
	return uring_cqe(ring, req, ud, res, cflags);
}

/*
 * The same events as raw tracepoints: no perf_trace buffer, no
 * trace_call_bpf (a classic tracepoint program cost about twice as much
 * per event in a traced io_uring reader's profile).  The harness loads
 * them when the kernel's BTF has the prototypes it knows (then not the
 * classic twins): io_uring_submit_req(req) since 5.19; io_uring_complete
 * (ctx, req, user_data, res, cflags, extra1, extra2) up to 6.x and
 * (ctx, req, cqe) on newer kernels (uring_complete_cqe).
 */
const volatile bool uring_complete_cqe = false;

SEC("raw_tp/io_uring_complete")
int fsaio_uring_complete_raw(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 ring = ctx->args[0], req = ctx->args[1], ud;
	__s32 res;
	__u32 cflags;

	if (uring_complete_cqe) {
		struct io_uring_cqe *cqe = (void *)ctx->args[2];

		ud = BPF_CORE_READ(cqe, user_data);
		res = BPF_CORE_READ(cqe, res);
		cflags = BPF_CORE_READ(cqe, flags);
	} else {
		ud = ctx->args[2];
		res = (__s32)ctx->args[3];
		cflags = (__u32)ctx->args[4];
	}
	return uring_cqe(ring, req, ud, res, cflags);
}

SEC("raw_tp/io_uring_submit_req")
int fsaio_uring_submit_req_raw(struct bpf_raw_tracepoint_args *ctx)
{
	struct io_kiocb *req = (void *)ctx->args[0];
	__u64 flags = 0;

	/* io_req_flags_t is 64-bit since 6.10, an int before */
	bpf_core_read(&flags, bpf_core_field_size(req->flags), &req->flags);
	return uring_new_request((__u64)BPF_CORE_READ(req, ctx), (__u64)req,
				 BPF_CORE_READ(req, cqe.user_data), BPF_CORE_READ(req, opcode),
				 flags, 0, 0);
}

SEC("tracepoint/io_uring/io_uring_task_work_run")
int fsaio_uring_task_work_run(struct trace_event_raw_io_uring_task_work_run *ctx)
{
	struct fsaio_record *r;

	if (!trace_current())
		return 0;
	r = rec_reserve(FSAIO_EV_TASK_WORK, FSAIO_ENGINE_IO_URING);
	if (!r)
		return 0;
	r->arg0 = ctx->count;
	rec_submit(r);
	return 0;
}

SEC("tracepoint/io_uring/io_uring_local_work_run")
int fsaio_uring_local_work_run(struct trace_event_raw_io_uring_local_work_run *ctx)
{
	struct fsaio_record *r;

	if (!trace_current())
		return 0;
	r = rec_reserve(FSAIO_EV_TASK_WORK, FSAIO_ENGINE_IO_URING);
	if (!r)
		return 0;
	r->arg0 = ctx->count;
	r->arg1 = 1;	/* DEFER_TASKRUN ring-local work */
	rec_submit(r);
	return 0;
}

/* io_uring_enter(fd, to_submit, min_complete, flags, argp, argsz).  Only
 * calls that submit (to_submit > 0) produce SUBMIT_DONE; pure waits don't. */
SEC("tracepoint/syscalls/sys_enter_io_uring_enter")
int fsaio_io_uring_enter_enter(struct trace_event_raw_sys_enter *ctx)
{
	struct sys_state *s;
	__u64 to_submit;

	to_submit = (__u32)ctx->args[1];
	if (!to_submit || !trace_current())
		return 0;
	s = sys_state_get(current_tid());
	if (!s)
		return 0;
	s->nr = to_submit;
	s->ts = bpf_ktime_get_ns();
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_io_uring_enter")
int fsaio_io_uring_enter_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u32 tid = current_tid();
	struct sys_state *s = bpf_map_lookup_elem(&sys_states, &tid);
	struct fsaio_record *r;
	__u64 ts;

	if (!s || !s->ts)
		return 0;
	ts = s->ts;
	s->ts = 0;
	if (aggregate) {
		agg_event(FSAIO_EV_SUBMIT_DONE, FSAIO_ENGINE_IO_URING, 0, ctx->ret, s->nr,
			  bpf_ktime_get_ns() - ts);
		return 0;
	}
	if (fold) {
		__u32 zero = 0;
		struct fsaio_fold_counts *c = bpf_map_lookup_elem(&fold_counts, &zero);

		if (c) {
			c->submit_calls++;
			c->submit_ns += bpf_ktime_get_ns() - ts;
			return 0;
		}
	}
	r = rec_reserve(FSAIO_EV_SUBMIT_DONE, FSAIO_ENGINE_IO_URING);
	if (!r)
		return 0;
	r->res = ctx->ret;
	r->arg0 = s->nr;
	r->arg1 = r->ts_ns - ts;
	rec_submit(r);
	return 0;
}

/* ============================ 5. D-state sleeps =========================== */

static __always_inline __u8 sleep_context(struct task_struct *task, long sysnr)
{
	__u32 flags = BPF_CORE_READ(task, flags);

	if (flags & FSAIO_PF_IO_WORKER)
		return FSAIO_CTX_IO_WQ_WORKER;
	if (flags & FSAIO_PF_WQ_WORKER)
		return FSAIO_CTX_KWORKER;
	switch (sysnr) {
	case FSAIO_NR_io_submit:
		return FSAIO_CTX_SUBMIT_LIBAIO;
	case FSAIO_NR_io_uring_enter:
		return FSAIO_CTX_SUBMIT_IO_URING;
	case FSAIO_NR_read:
	case FSAIO_NR_pread64:
	case FSAIO_NR_readv:
	case FSAIO_NR_preadv:
	case FSAIO_NR_preadv2:
		return FSAIO_CTX_SYNC_READ;
	case FSAIO_NR_write:
	case FSAIO_NR_pwrite64:
	case FSAIO_NR_writev:
	case FSAIO_NR_pwritev:
	case FSAIO_NR_pwritev2:
		return FSAIO_CTX_SYNC_WRITE;
	case FSAIO_NR_io_getevents:
	case FSAIO_NR_io_pgetevents:
		return FSAIO_CTX_REAP;
	}
	return FSAIO_CTX_OTHER;
}

static __always_inline __u8 context_engine(__u8 ctx)
{
	switch (ctx) {
	case FSAIO_CTX_SUBMIT_LIBAIO:
	case FSAIO_CTX_REAP:
		return FSAIO_ENGINE_LIBAIO;
	case FSAIO_CTX_SUBMIT_IO_URING:
	case FSAIO_CTX_IO_WQ_WORKER:
		return FSAIO_ENGINE_IO_URING;
	}
	return FSAIO_ENGINE_NONE;
}

/* next switched in: end of its sleep, if we saw it go to sleep. */
static __always_inline void sleep_end(__u32 pid)
{
	struct sleep_state *s;
	struct fsaio_record *r;

	if (!pid)
		return;
	s = bpf_map_lookup_elem(&sleeping, &pid);
	if (!s)
		return;
	r = rec_reserve(FSAIO_EV_SLEEP, s->engine);
	if (r) {
		/* the record describes the sleeper, not the task switching out */
		r->pid = s->pid;
		r->tgid = s->tgid;
		__builtin_memcpy(r->comm, s->comm, sizeof(r->comm));
		r->ctx = s->ctx;
		r->flags |= s->flags;
		r->site = FSAIO_SITE_UNKNOWN;	/* classified in user space */
		r->arg0 = r->ts_ns - s->ts;
		r->arg1 = (__u64)s->sysnr;
		r->nr_stack = s->nr_stack;
		__builtin_memcpy(r->stack, s->stack, sizeof(r->stack));
		rec_submit(r);
	}
	bpf_map_delete_elem(&sleeping, &pid);
}

/* prev (== current) goes to sleep. */
static __always_inline void sleep_begin(void *ctx, bool preempt, __u32 prev_state)
{
	struct task_struct *task;
	struct sleep_state *s;
	__u32 zero = 0;
	__u64 id;
	long n;

	if (preempt || !(prev_state & FSAIO_TASK_UNINTERRUPTIBLE) ||
	    (prev_state & FSAIO_TASK_NOLOAD))
		return;
	if (!trace_current())
		return;
	s = bpf_map_lookup_elem(&sleep_scratch, &zero);
	if (!s)
		return;
	task = bpf_get_current_task_btf();
	id = bpf_get_current_pid_tgid();
	s->ts = bpf_ktime_get_ns();
	s->pid = (__u32)id;
	s->tgid = id >> 32;
	s->sysnr = fsaio_task_syscall_nr(task);
	s->ctx = sleep_context(task, s->sysnr);
	s->engine = context_engine(s->ctx);
	s->flags = 0;
	if (s->ctx == FSAIO_CTX_SUBMIT_LIBAIO) {
		struct sys_state *sys = bpf_map_lookup_elem(&sys_states, &s->pid);

		if (sys && sys->sync_write)
			s->flags = FSAIO_F_SYNC_INODE;
	}
	bpf_get_current_comm(s->comm, sizeof(s->comm));
	/* bpf_trace_run*, __bpf_trace_sched_switch / __traceiter_*, __schedule:
	 * at least three frames of glue before schedule() on every kernel */
	n = bpf_get_stack(ctx, s->stack, sizeof(s->stack),
			  FSAIO_STACK_SKIP & BPF_F_SKIP_FIELD_MASK);
	s->nr_stack = FSAIO_ERR(n) > 0 ? FSAIO_ERR(n) / sizeof(__u64) : 0;
	update_or_count(&sleeping, &s->pid, s, BPF_ANY);
}

/* tp_btf (preferred): typed arguments, prev_state passed since 5.18. */
SEC("tp_btf/sched_switch")
int BPF_PROG(fsaio_sched_switch_btf, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	sleep_end(next->pid);
	sleep_begin(ctx, preempt, prev_state);
	return 0;
}

/* raw_tp fallback (kernels where tp_btf does not load): reads the state
 * from the task (see core_fixes.bpf.h). */
SEC("raw_tp/sched_switch")
int BPF_PROG(fsaio_sched_switch_raw, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u32 prev_state;

	sleep_end(BPF_CORE_READ(next, pid));
	/* The prev_state argument exists since 5.18, but a raw_tp program
	 * cannot safely read a 4th argument a kernel may not pass. */
	prev_state = fsaio_task_state(prev);
	sleep_begin(ctx, preempt, prev_state);
	return 0;
}

/* ============================ 6. workqueue ================================ */

/* The request an aio worker is running, by worker thread: set where the
 * worker announces it (fsaio_resume, fsaio_punt in the worker), so that
 * what the worker calls next (its final ->fsync()) is attributed; deleted
 * when the work item ends (worker_gave_back()). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);	/* worker tid */
	__type(value, __u64);	/* struct aio_kiocb * */
} worker_req SEC(".maps");

static __always_inline int handle_work(__u64 work, __u64 func, __u64 end)
{
	struct fsaio_record *r;

	if (!nr_watched_work_funcs)
		return 0;
	if (!bpf_map_lookup_elem(&watched_work_funcs, &func))
		return 0;
	r = rec_reserve(FSAIO_EV_WORKQUEUE, FSAIO_ENGINE_NONE);
	if (!r)
		return 0;
	r->req = work;
	r->arg0 = func;
	r->arg1 = end;
	rec_submit(r);
	return 0;
}

SEC("tracepoint/workqueue/workqueue_execute_start")
int fsaio_work_start(struct trace_event_raw_workqueue_execute_start *ctx)
{
	return handle_work((__u64)ctx->work,
			   (__u64)ctx->function, 0);
}

/* A kworker that ran an aio request (worker_req: it fired fsaio_resume or
 * a worker fsaio_punt) must end the work item as itself again: its own
 * credentials, no mm, no I/O priority or io cgroup of the submitter's.
 * Whatever it kept, the next unrelated work item of that kworker would
 * run with.  Costs one hash lookup per work item while a trace runs. */
static __always_inline void worker_gave_back(void)
{
	__u32 tid = current_tid(), kept = 0;
	__u64 *reqp = bpf_map_lookup_elem(&worker_req, &tid), req;
	struct task_struct *task;
	struct io_context *ioc;
	struct kthread *kt;
	struct fsaio_record *r;
	__u16 prio = 0;

	if (!reqp)
		return;
	req = *reqp;
	/* no later fsync of this kworker is the request's (fsaio_fentry_fsync) */
	bpf_map_delete_elem(&worker_req, &tid);
	task = (struct task_struct *)bpf_get_current_task();
	if (BPF_CORE_READ(task, cred) != BPF_CORE_READ(task, real_cred))
		kept |= FSAIO_KEPT_CREDS;
	if (BPF_CORE_READ(task, mm))
		kept |= FSAIO_KEPT_MM;
	ioc = BPF_CORE_READ(task, io_context);
	if (ioc) {
		prio = BPF_CORE_READ(ioc, ioprio);
		if ((prio >> 13 & 7) != IOPRIO_CLASS_NONE)
			kept |= FSAIO_KEPT_IOPRIO;
	}
	kt = (struct kthread *)BPF_CORE_READ(task, worker_private);
	if (kt && bpf_core_field_exists(kt->blkcg_css) && BPF_CORE_READ(kt, blkcg_css))
		kept |= FSAIO_KEPT_BLKCG;
	if (!kept)
		return;
	r = rec_reserve(FSAIO_EV_WORKER_KEPT, FSAIO_ENGINE_LIBAIO);
	if (!r)
		return;
	r->req = req;
	r->arg0 = kept;
	r->arg1 = prio;
	rec_submit(r);
}

SEC("tracepoint/workqueue/workqueue_execute_end")
int fsaio_work_end(struct trace_event_raw_workqueue_execute_end *ctx)
{
	worker_gave_back();
	return handle_work((__u64)ctx->work,
			   (__u64)ctx->function, 1);
}

/* ======================= 7. fentry/fexit (optional) =======================
 * Autoload is off unless tracer.c's probe loaded and attached a trivial
 * program of the same kind on the same function.  The host (6.18) refuses
 * fentry/fexit with EPERM; the 6.12 guests allow them on functions ftrace
 * lists in available_filter_functions.
 */

static __always_inline bool kiocb_is_aio(struct kiocb *iocb)
{
	__u64 complete = (__u64)BPF_CORE_READ(iocb, ki_complete);

	if (!complete)
		return false;
	if (aio_complete_rw_addr)
		return complete == aio_complete_rw_addr;
	/* symbol unknown: decide by the syscall the task is in */
	return fsaio_task_syscall_nr(bpf_get_current_task_btf()) == FSAIO_NR_io_submit;
}

static __always_inline struct aio_kiocb *kiocb_to_aio(struct kiocb *iocb)
{
	return (void *)iocb - bpf_core_field_offset(struct aio_kiocb, rw);
}

static __always_inline __u64 current_mm(void)
{
	return (__u64)BPF_CORE_READ(bpf_get_current_task_btf(), mm);
}

static __always_inline void emit_retry(__u8 engine, __u64 req, __u64 user_data,
				       int ret, __u8 flags)
{
	struct fsaio_record *r;

	if (engine == FSAIO_ENGINE_IO_URING)
		fold_promote(req);
	r = rec_reserve(FSAIO_EV_RETRY, engine);
	if (!r)
		return;
	r->req = req;
	r->user_data = user_data;
	r->site = FSAIO_SITE_FOLIO_BIT;	/* folio lock / uptodate wait */
	r->res = ret;
	r->flags = flags;
	rec_submit(r);
}

static __always_inline void emit_wake(__u64 req, __u64 user_data, __u64 bit_nr)
{
	struct fsaio_record *r;

	fold_promote(req);
	r = rec_reserve(FSAIO_EV_WAKE, FSAIO_ENGINE_IO_URING);
	if (!r)
		return;
	r->req = req;
	r->user_data = user_data;
	r->site = FSAIO_SITE_FOLIO_BIT;
	r->arg0 = bit_nr;
	rec_submit(r);
}

/* filemap_get_pages() returned -EIOCBQUEUED: __folio_lock_async() armed the
 * kiocb's wait_page_queue (IOCB_WAITQ); the read will be retried on wake. */
SEC("fexit/filemap_get_pages")
int BPF_PROG(fsaio_fexit_get_pages, struct kiocb *iocb)
{
	struct armed_state a = {}, *p;
	__u64 ret = 0, req, user_data;
	long err;
	__u8 engine;

	bpf_get_func_ret(ctx, &ret);
	if ((int)ret != -FSAIO_EIOCBQUEUED && (int)ret != -FSAIO_EIOCBRETRY)
		return 0;
	if (kiocb_is_aio(iocb)) {
		if (fsaio_tp_on)
			return 0;	/* fsaio_retry reports it */
		engine = FSAIO_ENGINE_LIBAIO;
		fsaio_aio_ids(kiocb_to_aio(iocb), &req, &user_data);
	} else {
		if (!BPF_CORE_READ(iocb, ki_complete))
			return 0;
		engine = FSAIO_ENGINE_IO_URING;
		req = (__u64)iocb;	/* kiocb at offset 0 of io_kiocb */
		user_data = BPF_CORE_READ((struct io_kiocb *)iocb, cqe.user_data);
	}
	if (!trace_current())
		return 0;
	a.mm = current_mm();
	a.state = ARMING;
	/* -EEXIST: a wake that beat us here already reported the retry */
	err = bpf_map_update_elem(&armed, &req, &a, BPF_NOEXIST);
	if (err) {
		if (FSAIO_ERR(err) != -FSAIO_EEXIST)
			count_drops(FSAIO_DROP_MAP_FULL, 1);
		return 0;
	}
	emit_retry(engine, req, user_data, (int)ret, 0);
	p = bpf_map_lookup_elem(&armed, &req);
	if (!p || __sync_val_compare_and_swap(&p->state, ARMING, ARMED) != WAKE_PENDING)
		return 0;
	/* woken while we reported the retry: report the wake for the waker
	 * (pid, cpu and time of this task) */
	p->state = WOKEN;
	emit_wake(req, user_data, BPF_CORE_READ(iocb, ki_waitq, bit_nr));
	return 0;
}

/* io_async_buf_func(wait, mode, sync, key): the wake callback of an armed
 * io_uring buffered read.  Reported only when wake_page_match() holds, i.e.
 * the callback will queue the retry; the entry is the wait member of a
 * struct wait_page_queue (io_async_rw.wpq) whose wait.private is the req. */
SEC("fentry/io_async_buf_func")
int BPF_PROG(fsaio_fentry_async_buf, struct wait_queue_entry *wait,
	     unsigned int mode, int sync, void *arg)
{
	struct wait_page_queue *wpq;
	struct wait_page_key *key = arg;
	struct armed_state *a, na = {};
	struct io_kiocb *req;
	__u64 reqp, user_data, old;
	long err;

	wpq = (void *)wait - bpf_core_field_offset(struct wait_page_queue, wait);
	if (BPF_CORE_READ(wpq, folio) != BPF_CORE_READ(key, folio) ||
	    BPF_CORE_READ(wpq, bit_nr) != BPF_CORE_READ(key, bit_nr))
		return 0;
	req = BPF_CORE_READ(wait, private);
	reqp = (__u64)req;
	user_data = BPF_CORE_READ(req, cqe.user_data);
	a = bpf_map_lookup_elem(&armed, &reqp);
	if (!a) {
		/* woken before fexit(filemap_get_pages) reported the arming
		 * (the I/O finished on another CPU): report the retry now */
		if (!trace_all && !ring_tracked((__u64)BPF_CORE_READ(req, ctx)))
			return 0;
		na.state = WOKEN;
		na.mm = fsaio_req_mm(req);
		err = bpf_map_update_elem(&armed, &reqp, &na, BPF_NOEXIST);
		if (!err) {
			emit_retry(FSAIO_ENGINE_IO_URING, reqp, user_data,
				   -FSAIO_EIOCBQUEUED, FSAIO_F_INFERRED);
			emit_wake(reqp, user_data, BPF_CORE_READ(wpq, bit_nr));
			return 0;
		}
		if (FSAIO_ERR(err) != -FSAIO_EEXIST) {
			count_drops(FSAIO_DROP_MAP_FULL, 1);
			return 0;
		}
		/* the fexit inserted its entry in the meantime */
		a = bpf_map_lookup_elem(&armed, &reqp);
		if (!a)
			return 0;
	}
	/* the fexit has not reported its retry yet: it reports this wake */
	old = __sync_val_compare_and_swap(&a->state, ARMING, WAKE_PENDING);
	if (old == ARMING)
		return 0;
	a->state = WOKEN;
	emit_wake(reqp, user_data, BPF_CORE_READ(wpq, bit_nr));
	return 0;
}

/* The woken request re-enters the read path (task_work ->
 * io_req_task_submit -> io_issue_sqe -> io_read). */
SEC("fentry/io_read")
int BPF_PROG(fsaio_fentry_io_read, struct io_kiocb *req)
{
	__u64 reqp = (__u64)req;
	struct armed_state *a = bpf_map_lookup_elem(&armed, &reqp);
	struct fsaio_record *r;
	__u64 mm;

	if (!a || a->state != WOKEN)
		return 0;
	mm = a->mm;
	bpf_map_delete_elem(&armed, &reqp);
	fold_promote(reqp);
	r = rec_reserve(FSAIO_EV_RESUME, FSAIO_ENGINE_IO_URING);
	if (!r)
		return 0;
	r->req = reqp;
	r->user_data = BPF_CORE_READ(req, cqe.user_data);
	r->arg0 = r->pid;
	r->arg1 = mm && mm == current_mm();
	rec_submit(r);
	return 0;
}

/* aio_complete_rw(kiocb, res): kernel-side completion of a libaio read or
 * write; may run in interrupt context (filtered by the aio context). */
SEC("fentry/aio_complete_rw")
int BPF_PROG(fsaio_fentry_aio_complete, struct kiocb *kiocb, long res)
{
	struct aio_kiocb *a = kiocb_to_aio(kiocb);
	struct fsaio_record *r;
	__u64 req, user_data;

	if (fsaio_tp_on)
		return 0;	/* fsaio_complete reports it */
	if (!trace_all && !ring_tracked(BPF_CORE_READ(a, ki_ctx, user_id)) &&
	    !trace_current())
		return 0;
	fsaio_aio_ids(a, &req, &user_data);
	r = rec_reserve(FSAIO_EV_COMPLETE, FSAIO_ENGINE_LIBAIO);
	if (!r)
		return 0;
	r->req = req;
	r->user_data = user_data;
	r->res = (__s32)res;
	rec_submit(r);
	return 0;
}

/* ============ 8. patched kernel: fsaio:* tracepoints (optional) ============
 * include/trace/events/fsaio.h of patches/linux-6.12.  The event types are
 * not in the pinned (stock) vmlinux.h, so these are plain raw_tp programs
 * reading the TP_PROTO arguments as u64 from ctx->args[] (pointers are
 * opaque identifiers, never dereferenced).  Autoload is off unless
 * tracer.c found the events (BTF typedef btf_trace_fsaio_* or tracefs
 * events/fsaio/).
 *
 * Mapping: a libaio request is record.req = the user iocb pointer and
 * record.tgid = the SUBMITTER's tgid, as the syscall-side SUBMIT/REAP
 * records have it.  SUBMIT and REAP still come from the syscall
 * tracepoints; fsaio_submit only remembers req (struct aio_kiocb *) ->
 * {iocb, data, submitter} for tracked submitters, and every other event
 * (which may run in interrupt, waker or kworker context) is reported only
 * for a remembered req, with the submitter's tgid.  The req is remembered
 * past its completion, until fsaio_submit reuses the struct (replaced for
 * a traced submitter, deleted for any other): events after a completion,
 * a second completion included, reach the checker.
 *
 *   fsaio_retry    -> RETRY   site from the wait kind, res = -EIOCBQUEUED,
 *                             arg0 = pos, arg1 = done, arg2 = retries
 *   fsaio_wake     -> WAKE    site from the wait kind, arg0 = wait kind,
 *                             arg1 = deferred
 *   fsaio_resume   -> RESUME  arg0 = worker pid (current), arg1 = same_mm,
 *                             arg2 = punt | (mm == NULL) << 1
 *   fsaio_punt     -> PUNT    res = ret, arg0 = pos, arg1 = done,
 *                             arg2 = in_worker
 *   fsaio_complete -> COMPLETE res = res, arg0 = retries
 *   fsaio_wait_bit -> WAIT_BIT flags FSAIO_F_ASYNC if async, res = ret,
 *                             arg0 = word, arg1 = bit, arg2 = action
 * pid/comm stay those of the task the event ran in.
 */

/* enum fsaio_wait_kind of the patched kernel */
#define FSAIO_WAIT_PAGE_LOCK	1
#define FSAIO_WAIT_WRITEBACK	2
#define FSAIO_WAIT_BIT		3


struct aio_req_info {
	__u64 iocb;		/* user struct iocb * */
	__u64 data;		/* aio_data */
	__u64 mm;		/* submitter's mm */
	__u32 tgid;		/* submitter */
	__u32 pid;
	/* the submitter's identity at submit: the worker must act as it */
	__u32 fsuid, fsgid;
	__u64 cap_effective;
	__u32 sync_inode;	/* a write to an S_SYNC inode */
	__u16 ioprio;		/* the request's I/O priority (ki_ioprio) */
	__u16 pad;
};

/* get_current_ioprio(): the priority bio_set_ioprio() gives the block I/O
 * the current task issues: its io_context's, else one from its policy and
 * nice value (task_nice_ioclass(), task_nice_ioprio()). */
static __always_inline __u16 current_ioprio(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct io_context *ioc = BPF_CORE_READ(task, io_context);
	__u16 prio = ioc ? BPF_CORE_READ(ioc, ioprio) : 0;
	__u32 policy, class, static_prio;

	if ((prio >> 13 & 7) != IOPRIO_CLASS_NONE)
		return prio;
	policy = BPF_CORE_READ(task, policy);
	if (policy == 5)			/* SCHED_IDLE */
		class = IOPRIO_CLASS_IDLE;
	else if (policy == 1 || policy == 2 || policy == 6) /* FIFO, RR, DEADLINE */
		class = IOPRIO_CLASS_RT;
	else
		class = IOPRIO_CLASS_BE;
	/* (nice + 20) / 5, nice = static_prio - 120; unsigned: BPF has no sdiv */
	static_prio = BPF_CORE_READ(task, static_prio);
	return class << 13 | (static_prio >= 100 ? (static_prio - 100) / 5 : 0);
}

struct task_ident {
	__u32 fsuid, fsgid;
	__u64 cap_effective;
};

/* current's subjective credentials (override_creds() changes these) */
static __always_inline void current_ident(struct task_ident *id)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	id->fsuid = BPF_CORE_READ(task, cred, fsuid.val);
	id->fsgid = BPF_CORE_READ(task, cred, fsgid.val);
	id->cap_effective = BPF_CORE_READ(task, cred, cap_effective.val);
}

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
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);	/* struct aio_kiocb * */
	__type(value, struct aio_req_info);
} aio_reqs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);	/* struct aio_kiocb * */
	__type(value, struct aio_req_info);
} aio_done SEC(".maps");

static __always_inline __u8 fsaio_wait_site(__u64 kind)
{
	switch (kind) {
	case FSAIO_WAIT_PAGE_LOCK:
		return FSAIO_SITE_FOLIO_BIT;
	case FSAIO_WAIT_WRITEBACK:
		return FSAIO_SITE_WRITEBACK;
	case FSAIO_WAIT_BIT:
		return FSAIO_SITE_WAIT_BIT_ACTION;
	}
	return FSAIO_SITE_UNKNOWN;
}

/* A record for a remembered request, in whatever context the event runs. */
static __always_inline struct fsaio_record *
fsaio_req_reserve(__u16 type, __u64 req, struct aio_req_info **infop)
{
	struct aio_req_info *info;
	struct fsaio_record *r;

	if (!req)
		return NULL;
	info = bpf_map_lookup_elem(&aio_reqs, &req);
	if (!info)
		info = bpf_map_lookup_elem(&aio_done, &req);
	if (!info)
		return NULL;
	r = rec_reserve(type, FSAIO_ENGINE_LIBAIO);
	if (!r)
		return NULL;
	r->req = info->iocb;
	r->user_data = info->data;
	r->tgid = info->tgid;
	if (info->sync_inode)
		r->flags |= FSAIO_F_SYNC_INODE;
	if (infop)
		*infop = info;
	return r;
}

/* fsaio_submit(req, iocb, data, opcode, pos, count, async, mm) */
SEC("raw_tp/fsaio_submit")
int fsaio_tp_submit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 req = ctx->args[0], id;
	struct aio_req_info info = {};
	struct sys_state *sys;

	if (!req)
		return 0;
	if (!trace_current()) {
		/* the struct may be a traced request's, freed and reused:
		 * its events must not be taken for that request's */
		bpf_map_delete_elem(&aio_reqs, &req);
		bpf_map_delete_elem(&aio_done, &req);
		return 0;
	}
	bpf_map_delete_elem(&aio_done, &req);
	id = bpf_get_current_pid_tgid();
	info.iocb = ctx->args[1];
	info.data = ctx->args[2];
	info.mm = ctx->args[7];
	info.tgid = id >> 32;
	info.pid = (__u32)id;
	{
		struct task_ident who;

		current_ident(&who);
		info.fsuid = who.fsuid;
		info.fsgid = who.fsgid;
		info.cap_effective = who.cap_effective;
	}
	info.ioprio = BPF_CORE_READ((struct aio_kiocb *)req, rw.ki_ioprio);
	/* the sleeps until the next fsaio_submit are this request's */
	info.sync_inode = fsaio_write_to_sync_inode(req, (__u32)ctx->args[3]);
	sys = bpf_map_lookup_elem(&sys_states, &info.pid);
	if (sys)
		sys->sync_write = info.sync_inode;
	update_or_count(&aio_reqs, &req, &info, BPF_ANY);
	return 0;
}

/* fsaio_wait_bit(req, iocb, word, bit, action, async, ret): synchronous
 * waits have no request and are reported for traced tasks. */
SEC("raw_tp/fsaio_wait_bit")
int fsaio_tp_wait_bit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 req = ctx->args[0];
	struct fsaio_record *r;

	if (req) {
		r = fsaio_req_reserve(FSAIO_EV_WAIT_BIT, req, NULL);
	} else {
		if (!trace_current())
			return 0;
		r = rec_reserve(FSAIO_EV_WAIT_BIT, FSAIO_ENGINE_NONE);
	}
	if (!r)
		return 0;
	r->site = FSAIO_SITE_WAIT_BIT_ACTION;
	r->flags = (__u8)ctx->args[5] ? FSAIO_F_ASYNC : 0;
	r->res = (__s32)ctx->args[6];
	r->arg0 = ctx->args[2];
	r->arg1 = (__u32)ctx->args[3];
	r->arg2 = ctx->args[4];
	rec_submit(r);
	return 0;
}

/* fsaio_retry(req, iocb, wait, pos, done, retries) */
SEC("raw_tp/fsaio_retry")
int fsaio_tp_retry(struct bpf_raw_tracepoint_args *ctx)
{
	struct fsaio_record *r = fsaio_req_reserve(FSAIO_EV_RETRY, ctx->args[0], NULL);

	if (!r)
		return 0;
	r->site = fsaio_wait_site((__u32)ctx->args[2]);
	r->res = -FSAIO_EIOCBQUEUED;
	r->arg0 = ctx->args[3];
	r->arg1 = ctx->args[4];
	r->arg2 = (__u32)ctx->args[5];
	rec_submit(r);
	return 0;
}

/* fsaio_wake(req, iocb, wait, deferred) */
SEC("raw_tp/fsaio_wake")
int fsaio_tp_wake(struct bpf_raw_tracepoint_args *ctx)
{
	struct fsaio_record *r = fsaio_req_reserve(FSAIO_EV_WAKE, ctx->args[0], NULL);

	if (!r)
		return 0;
	r->site = fsaio_wait_site((__u32)ctx->args[2]);
	r->arg0 = (__u32)ctx->args[2];
	r->arg1 = (__u8)ctx->args[3];
	if (fsaio_wait_entry_queued(ctx->args[0]))
		r->flags |= FSAIO_F_STILL_QUEUED;
	rec_submit(r);
	return 0;
}


static __always_inline void worker_runs(__u64 req)
{
	__u32 tid = current_tid();

	bpf_map_update_elem(&worker_req, &tid, &req, BPF_ANY);
}

/* fsaio_resume(req, iocb, mm, submitter, same_mm, punt); the worker is
 * current. */
SEC("raw_tp/fsaio_resume")
int fsaio_tp_resume(struct bpf_raw_tracepoint_args *ctx)
{
	struct aio_req_info *info = NULL;
	struct fsaio_record *r = fsaio_req_reserve(FSAIO_EV_RESUME, ctx->args[0], &info);
	struct task_ident who;

	if (!r)
		return 0;
	r->arg0 = r->pid;
	r->arg1 = (__u8)ctx->args[4] ? 1 : 0;
	r->arg2 = ((__u8)ctx->args[5] ? FSAIO_RESUME_PUNT : 0) |
		  (ctx->args[2] ? 0 : FSAIO_RESUME_MM_GONE);
	/* the tracepoint fires after override_creds(): the worker acts as
	 * the submitter, or it reads and writes with its own identity */
	current_ident(&who);
	worker_runs(ctx->args[0]);
	if (info && (who.fsuid != info->fsuid || who.fsgid != info->fsgid ||
		     who.cap_effective != info->cap_effective)) {
		r->arg2 |= FSAIO_RESUME_OTHER_CREDS;
		r->ring = fsaio_resume_fsuids_pack(info->fsuid, who.fsuid);
	}
	/* and the block I/O it starts (readahead, writeback) is the request's,
	 * at the request's priority */
	if (info) {
		__u16 prio = current_ioprio();

		if (prio != info->ioprio)
			r->arg2 |= FSAIO_RESUME_OTHER_IOPRIO |
				   fsaio_resume_ioprios_pack(info->ioprio, prio);
	}
	rec_submit(r);
	return 0;
}

/* fsaio_punt(req, iocb, pos, done, ret, in_worker) */
SEC("raw_tp/fsaio_punt")
int fsaio_tp_punt(struct bpf_raw_tracepoint_args *ctx)
{
	/* read once: the verifier refuses a second load through an offset ctx */
	__u64 req = ctx->args[0], in_worker = (__u8)ctx->args[5];
	struct fsaio_record *r;

	barrier_var(in_worker);
	r = fsaio_req_reserve(FSAIO_EV_PUNT, req, NULL);
	if (!r)
		return 0;
	if (in_worker)
		worker_runs(req);
	r->res = (__s32)ctx->args[4];
	r->arg0 = ctx->args[2];
	r->arg1 = ctx->args[3];
	r->arg2 = in_worker ? 1 : 0;
	rec_submit(r);
	return 0;
}

/* vfs_fsync_range(file, start, end, datasync) in an aio worker running a
 * traced request: the durability step of an O_SYNC/O_DSYNC write.  Other
 * callers (every fsync(2) of the system) cost one hash lookup. */
/* include/linux/fs.h: IOCB_SYNC is RWF_SYNC (O_SYNC files, RWF_SYNC writes) */
#define FSAIO_IOCB_SYNC		0x4

SEC("fentry/vfs_fsync_range")
int BPF_PROG(fsaio_fentry_fsync, struct file *file, loff_t start, loff_t end, int datasync)
{
	__u32 tid = current_tid();
	struct fsaio_record *r;
	__u64 *req = bpf_map_lookup_elem(&worker_req, &tid);

	if (!req)
		return 0;
	r = fsaio_req_reserve(FSAIO_EV_FSYNC, *req, NULL);
	if (!r)
		return 0;
	r->res = datasync;
	r->arg0 = start;
	r->arg1 = end;
	/* rw is the first member of struct aio_kiocb's union */
	r->arg2 = (BPF_CORE_READ((struct kiocb *)*req, ki_flags) & FSAIO_IOCB_SYNC) ? 1 : 0;
	rec_submit(r);
	return 0;
}

/* fsaio_complete(req, iocb, data, res, retries) */
SEC("raw_tp/fsaio_complete")
int fsaio_tp_complete(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 req = ctx->args[0];
	struct aio_req_info *info = NULL;
	struct fsaio_record *r = fsaio_req_reserve(FSAIO_EV_COMPLETE, req, &info);

	if (r) {
		r->user_data = ctx->args[2];
		r->res = (__s32)ctx->args[3];
		r->arg0 = (__u32)ctx->args[4];
		rec_submit(r);
	}
	/* Remembered as completed until the struct is submitted again
	 * (fsaio_submit replaces or deletes it): a second completion, or a
	 * retry, wake or resume after the completion, is a record the
	 * checker judges, never a silent drop here. */
	if (info && bpf_map_lookup_elem(&aio_reqs, &req)) {
		struct aio_req_info done = *info;

		bpf_map_update_elem(&aio_done, &req, &done, BPF_ANY);
		bpf_map_delete_elem(&aio_reqs, &req);
	}
	return 0;
}
