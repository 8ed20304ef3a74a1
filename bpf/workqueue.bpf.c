// SPDX-License-Identifier: GPL-2.0
/*
 * Workqueue: what a kworker that ran an aio request still holds of the
 * submitter's when the work item ends (WORKER_KEPT).
 */
#include "common.bpf.h"

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
	return 0;
}
