// SPDX-License-Identifier: GPL-2.0
/*
 * The optional fentry/fexit tier: an io_uring buffered read's armed retry,
 * its wake and its resume (the armed map), and libaio's kernel-side
 * completion.  Autoload is off unless harness/live/tracer.c's probe loaded
 * and attached a trivial program of the same kind on the same function.
 * The host (6.18) refuses fentry/fexit with EPERM; the 6.12 guests allow
 * them on functions ftrace lists in available_filter_functions.
 */
#include "common.bpf.h"
#include "fold.bpf.h"
#include "fold_aio.bpf.h"

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
	else	/* in the submitter's io_submit */
		fold_aio_promote(bpf_get_current_pid_tgid() >> 32, req);
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
static __always_inline void aio_complete_event(struct kiocb *kiocb, long res)
{
	struct aio_kiocb *a = kiocb_to_aio(kiocb);
	struct fsaio_record *r;
	__u64 req, user_data;

	if (fsaio_tp_on)
		return;		/* fsaio_complete reports it */
	if (!trace_all && !ring_tracked(BPF_CORE_READ(a, ki_ctx, user_id)) &&
	    !trace_current())
		return;
	fsaio_aio_ids(a, &req, &user_data);
	r = rec_reserve(FSAIO_EV_COMPLETE, FSAIO_ENGINE_LIBAIO);
	if (!r)
		return;
	r->req = req;
	r->user_data = user_data;
	r->res = (__s32)res;
	rec_submit(r);
}

static __always_inline void aio_complete_ctx(unsigned long long *ctx)
{
	aio_complete_event((struct kiocb *)ctx[0], (long)ctx[1]);
}

/* The kiocb (it completes once), as a number: ctx[0] is a typed pointer
 * the verifier allows no arithmetic on. */
static __always_inline __u64 aio_complete_key(unsigned long long *ctx)
{
	__u64 kiocb = 0;

	bpf_get_func_arg(ctx, 0, &kiocb);
	return kiocb;
}

/* fsaio_fentry_aio_complete, and its _nested for an O_DIRECT request's
 * completion in an interrupt that came while the kernel counted it active
 * on this CPU (a buffered one's, completing inside io_submit) */
NESTED_PAIR("fentry/aio_complete_rw", fsaio_fentry_aio_complete, NEST_AIO_COMPLETE,
	    unsigned long long *, aio_complete_key, aio_complete_ctx)
