// SPDX-License-Identifier: GPL-2.0
/*
 * D-state sleeps of traced tasks: sched_switch notes the task, its context
 * and its kernel stack when it goes to sleep; the SLEEP record is sent when
 * it runs again.  The wait site is classified in user space from the stack.
 * Under fold (fsaio check), only the first sleeps of each stack and
 * context go as records; the rest are counted per key (fsaio_sleeps.h).
 */
#include "common.bpf.h"

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

/* fold: the entry of s's key (fsaio_sleeps.h), created by its first
 * sleep; NULL when the map is full (the sleep then goes as a record). */
static __always_inline struct fsaio_sleep_agg *sleep_agg_of(const struct sleep_state *s,
							    __u32 nr)
{
	struct fsaio_sleep_key k = {};
	struct fsaio_sleep_agg *a = NULL;
	__u32 zero = 0;
	long err;

	fsaio_sleep_key_of(&k, s->stack, nr, s->ctx, s->engine, s->flags, sleep_gen & 1);
	a = bpf_map_lookup_elem(&sleep_aggs, &k);
	if (a)
		return a;
	a = bpf_map_lookup_elem(&sleep_agg_new, &zero);
	if (!a)
		return NULL;
	fsaio_sleep_agg_init(a, s->stack, nr, s->pid, s->tgid, s->comm, s->sysnr);
	err = bpf_map_update_elem(&sleep_aggs, &k, a, BPF_NOEXIST);
	if (err && FSAIO_ERR(err) != -FSAIO_EEXIST)	/* full */
		return NULL;
	return bpf_map_lookup_elem(&sleep_aggs, &k);
}

/* next switched in: end of its sleep, if we saw it go to sleep. */
static __always_inline void sleep_end(__u32 pid)
{
	int what = FSAIO_SLEEP_RECORD;
	struct fsaio_sleep_agg *a = NULL;
	struct sleep_state *s;
	struct fsaio_record *r;
	__u64 now, ns;
	__u32 nr;

	if (!pid)
		return;
	s = bpf_map_lookup_elem(&sleeping, &pid);
	if (!s)
		return;
	now = bpf_ktime_get_ns();
	ns = now - s->ts;
	nr = s->nr_stack < FSAIO_STACK_DEPTH ? s->nr_stack : FSAIO_STACK_DEPTH;
	if (fold) {
		/* the first sleeps of a key go as records, the rest are counted */
		a = sleep_agg_of(s, nr);
		if (a)
			what = fsaio_sleep_end(a, s->stack, nr, ns);
		if (what == FSAIO_SLEEP_COUNTED)
			goto out;
	}
	if (what == FSAIO_SLEEP_EXAMPLE && a) {
		/* an example: if the ring buffer is full, its key counts it */
		void *rb = event_ring();

		r = rb ? bpf_ringbuf_reserve(rb, sizeof(*r), 0) : NULL;
		if (!r) {
			note_pressure(~0ull);
			fsaio_sleep_add(a, ns);
			goto out;
		}
		__builtin_memset(r, 0, sizeof(*r));
		r->version = FSAIO_RECORD_VERSION;
		r->type = FSAIO_EV_SLEEP;
		r->cpu = bpf_get_smp_processor_id();
		r->ts_ns = now;
		r->seq = __sync_fetch_and_add(&fsaio_seq, 1) + 1;
		r->engine = s->engine;
	} else {
		r = rec_reserve(FSAIO_EV_SLEEP, s->engine);
		if (!r)
			goto out;
		ns = r->ts_ns - s->ts;
	}
	/* the record describes the sleeper, not the task switching out */
	r->pid = s->pid;
	r->tgid = s->tgid;
	__builtin_memcpy(r->comm, s->comm, sizeof(r->comm));
	r->ctx = s->ctx;
	r->flags |= s->flags;
	r->site = FSAIO_SITE_UNKNOWN;	/* classified in user space */
	r->arg0 = ns;
	r->arg1 = (__u64)s->sysnr;
	r->nr_stack = s->nr_stack;
	__builtin_memcpy(r->stack, s->stack, sizeof(r->stack));
	rec_submit(r);
out:
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

		if (sys && sys->stays_sync)
			s->flags = FSAIO_F_STAYS_SYNC;
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
