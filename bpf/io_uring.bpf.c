// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring: its tracepoints (submit, completion, punt to io-wq, task_work,
 * failed links) and io_uring_enter (SUBMIT_DONE: calls that submit).
 */
#include "common.bpf.h"
#include "fold.bpf.h"

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

	if (res != -FSAIO_ECANCELED)
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
	if (fold_note(link, FSAIO_FOLD_F_LINK_FAILED, 0))
		return 0;
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
	if (fold_note((__u64)ctx->req, FSAIO_FOLD_F_PUNTED, ctx->rw))
		return 0;
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
	__u8 flags;

	if (!trace_ring_event(ring))
		return 0;
	/* the lifecycle ends (multishot: only with its last CQE) */
	if (armed_tier && req && !(cflags & (1U << 1)))	/* IORING_CQE_F_MORE */
		bpf_map_delete_elem(&armed, &req);
	if (aggregate) {	/* teardown_flag() is for the checker's eyes only */
		agg_event(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 0, res, cflags, 0);
		return 0;
	}
	flags = teardown_flag((void *)ring, res);
	if (fold_cqe(req, res, cflags, flags))
		return 0;
	r = rec_reserve(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING);
	if (!r)
		return 0;
	r->req = req;	/* may be 0 */
	r->user_data = user_data;
	r->res = res;
	r->arg0 = cflags;
	r->flags = flags;
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
 * (ctx, req, cqe) on newer kernels (uring_complete_cqe, maps.bpf.h).
 */

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
			c->e[FSAIO_ENGINE_IO_URING].submit_calls++;
			c->e[FSAIO_ENGINE_IO_URING].submit_ns += bpf_ktime_get_ns() - ts;
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
