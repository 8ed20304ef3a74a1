// SPDX-License-Identifier: GPL-2.0
/*
 * Process tracking: the children of traced processes are traced, and a
 * traced process's end (its last thread's exit) is a PROC_EXIT record.
 */
#include "common.bpf.h"
#include "fold.bpf.h"
#include "fold_aio.bpf.h"

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
	fold_aio_promote_all(tgid, 0, 0, 0);
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
