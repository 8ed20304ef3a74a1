/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version and architecture drift, in one place (libbpf-tools style).
 * Everything here is CO-RE: the object is built once against the pinned
 * bpf/vmlinux.h and loads on 6.12 (QEMU guests) as well as on newer hosts.
 */
#ifndef FSAIO_CORE_FIXES_BPF_H
#define FSAIO_CORE_FIXES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "kernel_consts.h"	/* the numbers vmlinux.h (BTF) does not carry */

/* ---- helper results ---------------------------------------------------------- */

/*
 * A map update's error, compared as the int the kernel's map code returns:
 * on 6.1, bpf_map_update_elem() from an fentry program returned -EEXIST
 * zero-extended (0x00000000ffffffef), which a 64-bit compare with -17 took
 * for a failure: every wake that beat its retry's report counted a
 * "state map full" drop and made the run inconclusive.
 */
#define FSAIO_ERR(err)		((int)(err))
#define FSAIO_EEXIST		17

/* ---- tracepoints of older kernels ------------------------------------------ */

/* io_uring_submit_sqe(req, force_nonblock), 5.5 .. 6.3: renamed
 * io_uring_submit_req (and trimmed) in 6.4; vmlinux.h, from a newer
 * kernel, lacks it.  Relocated by CO-RE against the running kernel's BTF;
 * the harness loads the program only where the tracepoint exists. */
struct trace_event_raw_io_uring_submit_sqe {
	struct trace_entry ent;
	void *ctx;
	void *req;
	unsigned long long user_data;
	u8 opcode;
	u32 flags;
	bool force_nonblock;
	bool sq_thread;
	u32 __data_loc_op_str;
	char __data[0];
} __attribute__((preserve_access_index));

/* ---- the syscall a task is in (numbers: kernel_consts.h) ---------------- */
#if defined(__TARGET_ARCH_x86)
/*
 * Syscall number a task sleeping in the kernel is in, or -1.  The user
 * entry frame's orig_ax holds the syscall number, but for exceptions (page
 * faults!) it holds the error code, which would read as read/write/writev.
 * entry_SYSCALL_64 pushes ax = -ENOSYS and the return value is stored only
 * on the way out, so ax == -ENOSYS tells a syscall in progress from a fault.
 * 32-bit compat syscalls (int $0x80) are not told apart: numbers differ.
 */
static __always_inline long fsaio_task_syscall_nr(struct task_struct *task)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	long orig_ax, ax;

	if (!regs)
		return -1;
	orig_ax = BPF_CORE_READ(regs, orig_ax);
	ax = BPF_CORE_READ(regs, ax);
	if (orig_ax < 0 || ax != -FSAIO_ENOSYS)
		return -1;
	return orig_ax;
}
#else
/* Other architectures need their entry convention here (arm64:
 * regs->syscallno, NO_SYSCALL for exceptions).  Until then sleeps get ctx
 * OTHER and syscall -1; libaio/io_uring events are unaffected. */
static __always_inline long fsaio_task_syscall_nr(struct task_struct *task)
{
	return -1;
}
#endif

/* ---- task->state: renamed to __state in 5.14 ----------------------------
 * commit 2f064a59a11f ("sched: Change task_struct::state").  sched_switch
 * passes prev_state as an argument since 5.18 (commit fa2c3254d7cf,
 * "sched/tracing: Don't re-read p->state when emitting sched_switch
 * event"); both target kernels (6.12, 6.18) have it, this is the fallback
 * for the raw_tp variant on kernels that don't. */
struct task_struct___o {
	volatile long int state;
} __attribute__((preserve_access_index));

static __always_inline __u32 fsaio_task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___o *)t, state);
}

/* ---- libaio request identity --------------------------------------------
 * The user iocb pointer lives in aio_kiocb->ki_res.obj since 5.1 (commit
 * "aio: keep io_event in aio_kiocb", Al Viro, 2019); before that in
 * aio_kiocb->ki_user_iocb / ki_user_data. */
struct aio_kiocb___o {
	struct iocb *ki_user_iocb;
	__u64 ki_user_data;
} __attribute__((preserve_access_index));

static __always_inline void fsaio_aio_ids(struct aio_kiocb *a, __u64 *req,
					  __u64 *user_data)
{
	if (bpf_core_field_exists(a->ki_res)) {
		*req = BPF_CORE_READ(a, ki_res.obj);
		*user_data = BPF_CORE_READ(a, ki_res.data);
	} else {
		struct aio_kiocb___o *o = (void *)a;

		*req = (__u64)BPF_CORE_READ(o, ki_user_iocb);
		*user_data = BPF_CORE_READ(o, ki_user_data);
	}
}

/* ---- the patched kernel's per-request async state -------------------------
 * fs/aio.c of the fsaio series: aio_kiocb->ki_async -> struct aio_rw_async,
 * whose wpq.wait.entry is on a folio wait queue while the request is armed
 * and is taken off (list_del_init) by the wake callback before the retry is
 * queued.  Kernels without the series have no ki_async: false. */
struct aio_rw_async___fsaio {
	struct wait_page_queue wpq;
} __attribute__((preserve_access_index));

struct aio_kiocb___fsaio {
	struct aio_rw_async___fsaio *ki_async;
} __attribute__((preserve_access_index));

static __always_inline bool fsaio_wait_entry_queued(__u64 req)
{
	struct aio_kiocb___fsaio *k = (void *)req;
	struct aio_rw_async___fsaio *st;
	void *next, *self;

	if (!bpf_core_field_exists(k->ki_async))
		return false;
	st = BPF_CORE_READ(k, ki_async);
	if (!st)
		return false;
	next = BPF_CORE_READ(st, wpq.wait.entry.next);
	self = __builtin_preserve_access_index(&st->wpq.wait.entry);
	return next && next != self;
}

/* ---- writes that stay synchronous -----------------------------------------
 * IS_SYNC(inode) of include/linux/fs.h: the inode's S_SYNC (chattr +S) or
 * its super block's SB_SYNCHRONOUS (-o sync).  ->write_iter() syncs every
 * write to such an inode, so an aio write to it stays synchronous.  So
 * does one to a file whose file system does not set FOP_DSYNC_ASYNC
 * (patches/linux-6.12: "fs: add FOP_DSYNC_ASYNC"; xfs, f2fs, btrfs, 9p, tmpfs). */
#define FSAIO_S_SYNC		(1u << 0)
#define FSAIO_SB_SYNCHRONOUS	(1ul << 4)
#define FSAIO_FOP_DSYNC_ASYNC	(1u << 6)
#define FSAIO_IOCB_CMD_PWRITE	1
#define FSAIO_IOCB_CMD_PWRITEV	8

static __always_inline __u32 fsaio_write_stays_sync(__u64 req, __u32 opcode)
{
	struct file *file;
	struct inode *inode;

	if (opcode != FSAIO_IOCB_CMD_PWRITE && opcode != FSAIO_IOCB_CMD_PWRITEV)
		return 0;
	file = BPF_CORE_READ((struct aio_kiocb *)req, ki_filp);
	inode = BPF_CORE_READ(file, f_inode);
	if (!inode)
		return 0;
	if (bpf_core_field_exists(file->f_op->fop_flags) &&
	    !(BPF_CORE_READ(file, f_op, fop_flags) & FSAIO_FOP_DSYNC_ASYNC))
		return 1;
	return (BPF_CORE_READ(inode, i_flags) & FSAIO_S_SYNC) ||
	       (BPF_CORE_READ(inode, i_sb, s_flags) & FSAIO_SB_SYNCHRONOUS);
}

/* ---- the CPU's context level (fsaio_nest.h) ------------------------------
 * x86's preempt_count is the per-CPU int __preempt_count up to 6.1 and
 * again since 6.15, a field of the per-CPU struct pcpu_hot from 6.2 to
 * 6.14.  Neither (another architecture): 0, every hit at one level. */
extern const int __preempt_count __ksym __weak;
struct pcpu_hot___fsaio {
	int preempt_count;
} __attribute__((preserve_access_index));
extern const struct pcpu_hot___fsaio pcpu_hot __ksym __weak;

static __always_inline __u32 fsaio_preempt_count(void)
{
	if (&__preempt_count)
		return *(const int *)bpf_this_cpu_ptr(&__preempt_count);
	if (&pcpu_hot)
		return ((const struct pcpu_hot___fsaio *)bpf_this_cpu_ptr(&pcpu_hot))->preempt_count;
	return 0;
}

/* ---- io_uring -----------------------------------------------------------
 * The kiocb of a read/write is the first member of the command area at
 * offset 0 of struct io_kiocb (io_kiocb_to_cmd(req, struct io_rw), and
 * struct io_rw starts with the kiocb), so a kiocb pointer of an io_uring
 * read equals the "req" of the io_uring tracepoints.  The async buffered
 * read wait entry (struct wait_page_queue, in struct io_async_rw since
 * 6.10, in io_async_rw.wpq) carries the request in wait.private, set by
 * io_rw_should_retry(); io_async_buf_func() reads it from there too. */

/* The submitting task's mm.  req->task up to 6.12; since 6.13 the task is
 * reached through req->tctx->task (io_uring: "move struct io_kiocb from
 * task_struct to io_uring_task", Jens Axboe, for 6.13). */
struct io_kiocb___o {
	struct task_struct *task;
} __attribute__((preserve_access_index));

struct io_uring_task___n {
	struct task_struct *task;
} __attribute__((preserve_access_index));

static __always_inline __u64 fsaio_req_mm(struct io_kiocb *req)
{
	struct io_kiocb___o *o = (void *)req;
	struct io_uring_task___n *tctx;

	if (bpf_core_field_exists(o->task))
		return (__u64)BPF_CORE_READ(o, task, mm);
	tctx = (void *)BPF_CORE_READ(req, tctx);
	if (bpf_core_field_exists(tctx->task))
		return (__u64)BPF_CORE_READ(tctx, task, mm);
	return 0;
}

#endif /* FSAIO_CORE_FIXES_BPF_H */
