/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsaio: CO-RE tracer for asynchronous buffered file I/O.
 *
 * One ring buffer of struct fsaio_record (bpf/fsaio.h), fed by thin SEC()
 * programs around inline handlers, one file per event source; each file is
 * compiled alone and the objects are linked into one (bpftool gen object)
 * with one skeleton, fsaio_bpf:
 *   proc.bpf.c       process tracking (fork, exit)
 *   libaio.bpf.c     libaio syscalls (io_submit, io_getevents, io_pgetevents,
 *                    io_destroy)
 *   io_uring.bpf.c   io_uring tracepoints and io_uring_enter
 *   sleep.bpf.c      D-state sleeps (sched_switch + kernel stack)
 *   workqueue.bpf.c  workqueue (watched functions, what an aio worker kept)
 *   fentry.bpf.c     fentry/fexit: retry armed, wake, resume, libaio kernel
 *                    completion (optional)
 *   fsaio_tp.bpf.c   the patched kernel's fsaio:* tracepoints (optional)
 *   maps.bpf.c       the one definition of every map and global (maps.bpf.h)
 * Which programs load is decided in user space before load
 * (harness/live/tracer.c, bpf_program__set_autoload): every optional
 * program (io_uring tracepoints, fentry/fexit, tp_btf) is probed first, so
 * the object loads on kernels without io_uring, fentry or the patched
 * kernel's fsaio:* tracepoints.
 *
 * This header is what every program shares: reserving, filling and sending
 * a record, the drop counts, and the filter that decides which tasks are
 * traced.  Folding's glue is in fold.bpf.h.
 */
#ifndef FSAIO_COMMON_BPF_H
#define FSAIO_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "fsaio.h"
#include "fsaio_agg.h"
#include "core_fixes.bpf.h"
#include "maps.bpf.h"

static __always_inline void count_drops(__u32 cause, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&lost, &cause);

	if (c)
		*c += n;
}

/* The ring records go to now (maps.bpf.h event_rings); NULL only if the
 * harness never filled the slot. */
static __always_inline void *event_ring(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&event_rings, &zero);
}

/* More than grow_bytes waiting, or a reserve failed: ask the harness for a
 * larger ring.  Written once per ring, not per record: one cache line
 * bouncing between CPUs on every record would cost more than the check. */
static __always_inline void note_pressure(__u64 avail)
{
	if (grow_bytes && avail > grow_bytes && !ring_pressure)
		ring_pressure = 1;
}

/* A record of size bytes in the current ring.  A failure is a drop,
 * counted here, unless the record was numbered before it was written (a
 * fold promote's): the hole it leaves in seq counts it. */
static __always_inline void *ring_reserve_in(__u64 size, bool numbered)
{
	void *rb = event_ring();
	void *r = rb ? bpf_ringbuf_reserve(rb, size, 0) : NULL;

	if (!r) {
		if (!numbered)
			count_drops(FSAIO_DROP_RINGBUF, 1);
		note_pressure(~0ull);
	}
	return r;
}

#define ring_reserve(size)		ring_reserve_in((size), false)
#define ring_reserve_numbered(size)	ring_reserve_in((size), true)

/* Data waiting in the current ring, this record's included. */
static __always_inline __u64 ring_avail(void)
{
	void *rb = event_ring();

	return rb ? bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA) : 0;
}

/* A map update that must not fail silently: a full map is a drop. */
static __always_inline void update_or_count(void *map, const void *key,
					    const void *val, __u64 flags)
{
	long err = bpf_map_update_elem(map, key, val, flags);

	if (err && FSAIO_ERR(err) != -FSAIO_EEXIST)	/* BPF_NOEXIST and already there */
		count_drops(FSAIO_DROP_MAP_FULL, 1);
}


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
			r = ring_reserve(sizeof(*r));
		else
			r = ring_reserve(FSAIO_RECORD_SHORT);
		if (!r)
			return NULL;
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
 *
 * So wake it once per wakeup_bytes of pending data: when this record
 * (already counted in AVAIL_DATA since its reserve) crosses a multiple of
 * it.  Waking on every record above the mark cost an irq_work self-IPI per
 * record (8-10% of a traced io_uring reader's CPU); crossing each multiple,
 * not just the first, keeps a consumer that slept through one wakeup from
 * stalling.
 */
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
		void *rb = event_ring();
		__u64 avail = rb ? bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA) : 0;
		__u64 size = r->type == FSAIO_EV_SLEEP ? sizeof(*r) : FSAIO_RECORD_SHORT;

		r->seq = __sync_fetch_and_add(&fsaio_seq, 1) + 1;
		note_pressure(avail + size);
		if (!rb || bpf_ringbuf_output(rb, r, size, wakeup_flags(avail, avail + size))) {
			count_drops(FSAIO_DROP_RINGBUF, 1);
			note_pressure(~0ull);
		}
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
	__u64 avail = ring_avail();
	__u64 size = FSAIO_RECORD_SHORT;	/* about the threshold: close enough */

	note_pressure(avail);
	bpf_ringbuf_submit(r, wakeup_flags(avail > size ? avail - size : 0, avail));
}

/* This CPU's count of fold promotes numbered and not yet sent (maps.bpf.h
 * fold_unsent): taken by fsaio_fold_number_and_swap(), given back by the
 * sender once the numbered records are in the ring buffer. */
static __always_inline __u64 *fold_unsent_here(void)
{
	return &fold_unsent[bpf_get_smp_processor_id() & (FSAIO_FOLD_UNSENT - 1)];
}

static __always_inline void fold_numbers_sent(void)
{
	__sync_fetch_and_add(fold_unsent_here(), -1);
}

/* n numbers a fold promote took and lost its slot with (seq + 1 on): VOID
 * records, so that the checker finds no hole (bpf/fsaio_fold.h). */
static __always_inline void send_voids(__u64 seq, __u32 n, __u64 req)
{
	struct fsaio_record *r;
	__u32 i;

	/* bound 8, not FSAIO_FOLD_MAX_RECORDS: with 6 clang's code for the
	 * loop overflows the stack of io_submit's program (528 bytes) */
	_Static_assert(FSAIO_FOLD_MAX_RECORDS <= 8, "send_voids' bound");
	for (i = 0; i < n && i < 8; i++) {
		r = ring_reserve_numbered(FSAIO_RECORD_SHORT);
		if (!r)
			continue;
		__builtin_memset(r, 0, FSAIO_RECORD_SHORT);
		r->version = FSAIO_RECORD_VERSION;
		r->type = FSAIO_EV_VOID;
		r->cpu = bpf_get_smp_processor_id();
		r->ts_ns = bpf_ktime_get_ns();
		r->seq = seq + 1 + i;
		r->req = req;
		rec_submit(r);
	}
	if (n)
		fold_numbers_sent();
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

/* The thread's syscall state (libaio syscalls, io_uring_enter), created
 * on first use. */
static __always_inline struct sys_state *sys_state_get(__u32 tid)
{
	struct sys_state *s = bpf_map_lookup_elem(&sys_states, &tid);
	struct sys_state zero = {};

	if (s)
		return s;
	update_or_count(&sys_states, &tid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&sys_states, &tid);
}

/*
 * NESTED_PAIR(SEC, NAME, HOOK, CTX_T, KEY, EVENT): the two programs of a
 * hook interrupts reach (fsaio_nest.h).  NAME marks KEY(ctx) in its CPU's
 * nest_marks[HOOK], at the context level it runs at, and runs EVENT(ctx);
 * NAME_nested, which the kernel runs after it on each hit, runs EVENT(ctx)
 * only if it finds no mark: the kernel skipped NAME for this event.
 */
#define NESTED_PAIR(sec, name, hook, ctx_t, key, event)			\
SEC(sec)								\
int name(ctx_t ctx)							\
{									\
	__u32 k = (hook);						\
	struct fsaio_nest_marks *m = bpf_map_lookup_elem(&nest_marks, &k); \
									\
	if (m)								\
		fsaio_nest_mark(m, fsaio_nest_level(fsaio_preempt_count()), \
				key(ctx));					\
	event(ctx);							\
	return 0;							\
}									\
									\
SEC(sec)								\
int name##_nested(ctx_t ctx)						\
{									\
	__u32 k = (hook);						\
	struct fsaio_nest_marks *m = bpf_map_lookup_elem(&nest_marks, &k); \
									\
	if (!m || !fsaio_nest_skipped(m, fsaio_nest_level(fsaio_preempt_count()), \
					key(ctx)))				\
		return 0;						\
	__sync_fetch_and_add(&nest_caught[(hook)], 1);			\
	event(ctx);							\
	return 0;							\
}

#endif /* FSAIO_COMMON_BPF_H */
