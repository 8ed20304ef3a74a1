// SPDX-License-Identifier: GPL-2.0
/*
 * libaio syscalls: io_submit (a SUBMIT per iocb, then SUBMIT_DONE),
 * io_getevents and io_pgetevents (a REAP per io_event), io_destroy.
 */
#include "common.bpf.h"
#include "fold_aio.bpf.h"

struct submit_loop {
	struct sys_state *s;	/* the submitting thread's */
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
	if (fold_aio_on()) {
		struct fold_aio_new n = {
			.req = uptr,
			.user_data = cb.aio_data,
			.ring = l->ring,
			.offset = (__u64)cb.aio_offset,
			.nbytes = cb.aio_nbytes,
			.arg2 = fsaio_submit_arg2(cb.aio_lio_opcode, cb.aio_fildes, i),
			.batch = l->batch,
		};

		if (fold_aio_submit(l->s, &n))
			return 0;
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
	fold_aio_batch_open(s);
	l.s = s;
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

	if (!s)
		return 0;
	s->stays_sync = 0;
	if (s->ts && fold_aio_batch_close(s, tid, ctx->ret, bpf_ktime_get_ns() - s->ts)) {
		s->ts = 0;
		return 0;
	}
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
	if (fold_aio_reap(bpf_get_current_pid_tgid() >> 32, ev.obj, (__s32)ev.res))
		return 0;
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
	__u32 tid = current_tid();
	struct sys_state *s = bpf_map_lookup_elem(&sys_states, &tid);
	struct fsaio_record *r;

	/* what it abandoned was submitted before: sent first */
	if (s && s->ts)
		fold_aio_promote_all(bpf_get_current_pid_tgid() >> 32, s->ptr, 0, 0);
	r = sys_exit_record(ctx, FSAIO_EV_IO_DESTROY, &s);
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
