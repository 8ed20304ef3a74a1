// SPDX-License-Identifier: GPL-2.0
/*
 * The patched kernel's fsaio:* tracepoints (optional):
 * include/trace/events/fsaio.h of patches/linux-6.12.  The event types are
 * not in the pinned (stock) vmlinux.h, so these are plain raw_tp programs
 * reading the TP_PROTO arguments as u64 from ctx->args[] (pointers are
 * opaque identifiers, never dereferenced).  Autoload is off unless
 * harness/live/tracer.c found the events (BTF typedef btf_trace_fsaio_* or
 * tracefs events/fsaio/).
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
 *                             arg2 = punt | (mm == NULL) << 1,
 *                             res = the submitter thread it names
 *   fsaio_punt     -> PUNT    res = ret, arg0 = pos, arg1 = done,
 *                             arg2 = in_worker
 *   fsaio_complete -> COMPLETE res = res, arg0 = retries
 * pid/comm stay those of the task the event ran in.  The aio worker's
 * final fsync (fentry vfs_fsync_range -> FSYNC) is here too: it is
 * reported for a request remembered by fsaio_submit only.
 */
#include "common.bpf.h"
#include "fold_aio.bpf.h"

/* enum fsaio_wait_kind of the patched kernel */
#define FSAIO_WAIT_PAGE_LOCK	1
#define FSAIO_WAIT_WRITEBACK	2
#define FSAIO_WAIT_BIT		3

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

/* The remembered request req (struct aio_kiocb *), or NULL. */
static __always_inline struct aio_req_info *fsaio_req_info(__u64 req)
{
	struct aio_req_info *info;

	if (!req)
		return NULL;
	info = bpf_map_lookup_elem(&aio_reqs, &req);
	return info ? info : bpf_map_lookup_elem(&aio_done, &req);
}

/* A record for a remembered request, in whatever context the event runs;
 * what the fold kept of it goes first. */
static __always_inline struct fsaio_record *
fsaio_req_reserve(__u16 type, __u64 req, struct aio_req_info **infop)
{
	struct aio_req_info *info = fsaio_req_info(req);
	struct fsaio_record *r;

	if (!info)
		return NULL;
	fold_aio_promote(info->tgid, info->iocb);
	r = rec_reserve(type, FSAIO_ENGINE_LIBAIO);
	if (!r)
		return NULL;
	r->req = info->iocb;
	r->user_data = info->data;
	r->tgid = info->tgid;
	if (info->stays_sync)
		r->flags |= FSAIO_F_STAYS_SYNC;
	if (infop)
		*infop = info;
	return r;
}

/* include/uapi/linux/aio_abi.h of the patched kernel (series patch 16) */
#define FSAIO_IOCB_FLAG_BUFFERED_ASYNC	(1u << 2)

/* With fs.aio-buffered-async=1 a request that did not ask stays
 * synchronous.  The kernel copied the iocb from this address just before
 * the event, so it is resident; an unreadable one is a lost record (its
 * request's checks are inconclusive), not a guess. */
static __always_inline __u32 fsaio_not_opted_in(__u64 uiocb)
{
	__u32 flags = 0;

	if (!libaio_opt_in)
		return 0;
	if (bpf_probe_read_user(&flags, sizeof(flags),
				(void *)(uiocb + __builtin_offsetof(struct iocb, aio_flags)))) {
		count_drops(FSAIO_DROP_USER_READ, 1);
		return 0;
	}
	return !(flags & FSAIO_IOCB_FLAG_BUFFERED_ASYNC);
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
	info.stays_sync = fsaio_write_stays_sync(req, (__u32)ctx->args[3]) ||
			  fsaio_not_opted_in(info.iocb);
	sys = bpf_map_lookup_elem(&sys_states, &info.pid);
	if (sys)
		sys->stays_sync = info.stays_sync;
	update_or_count(&aio_reqs, &req, &info, BPF_ANY);
	return 0;
}

/* fsaio_sync(req, iocb, err): a request that would have gone asynchronous
 * is done in place, in io_submit() (over RLIMIT_NPROC, or no memory for
 * its state): the sleeps that follow there are that synchronous
 * request's, by design, and a RETRY or PUNT of it is the failure
 * (checker.c, stays_sync_went_async) */
SEC("raw_tp/fsaio_sync")
int fsaio_tp_sync(struct bpf_raw_tracepoint_args *ctx)
{
	struct aio_req_info *info = fsaio_req_info(ctx->args[0]);
	__u32 tid = current_tid();
	struct sys_state *sys;

	if (!info)
		return 0;
	info->stays_sync = 1;
	sys = bpf_map_lookup_elem(&sys_states, &tid);
	if (sys)
		sys->stays_sync = 1;
	return 0;
}

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
static __always_inline void wake_event(struct bpf_raw_tracepoint_args *ctx)
{
	struct fsaio_record *r = fsaio_req_reserve(FSAIO_EV_WAKE, ctx->args[0], NULL);

	if (!r)
		return;
	r->site = fsaio_wait_site((__u32)ctx->args[2]);
	r->arg0 = (__u32)ctx->args[2];
	r->arg1 = (__u8)ctx->args[3];
	if (fsaio_wait_entry_queued(ctx->args[0]))
		r->flags |= FSAIO_F_STILL_QUEUED;
	rec_submit(r);
}

/* One wake: its request, the wait it ends and how */
static __always_inline __u64 wake_key(struct bpf_raw_tracepoint_args *ctx)
{
	return ctx->args[0] ^ (ctx->args[2] << 40) ^ (ctx->args[3] << 63);
}

/* a read's completion unlocks folios in interrupts, which can come while
 * this program runs for a wake in a task: its _nested catches those */
NESTED_PAIR("raw_tp/fsaio_wake", fsaio_tp_wake, NEST_FSAIO_WAKE,
	    struct bpf_raw_tracepoint_args *, wake_key, wake_event)


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
	r->res = (__s32)ctx->args[3];	/* the submitter thread it names */
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
static __always_inline void complete_event(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 req = ctx->args[0];
	struct aio_req_info *info = fsaio_req_info(req);
	struct fsaio_record *r = NULL;

	/* a plain lifecycle's completion: kept with its SUBMIT (fold_aio) */
	if (!info || !fold_aio_kcomplete(info->tgid, info->iocb, (__s32)ctx->args[3]))
		r = fsaio_req_reserve(FSAIO_EV_COMPLETE, req, &info);
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
}

/* an O_DIRECT request completes in an interrupt, which can come while
 * this program runs for a buffered one's completion in a task: its
 * _nested catches those */
static __always_inline __u64 complete_key(struct bpf_raw_tracepoint_args *ctx)
{
	return ctx->args[0];	/* the request: it completes once */
}

NESTED_PAIR("raw_tp/fsaio_complete", fsaio_tp_complete, NEST_FSAIO_COMPLETE,
	    struct bpf_raw_tracepoint_args *, complete_key, complete_event)
