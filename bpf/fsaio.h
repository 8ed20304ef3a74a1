/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records shared by the BPF programs and the harness.
 *
 * One fixed-size, versioned record per event goes through the BPF ring
 * buffer and, unchanged, into recorded event logs.  Only __u8/__u16/__u32/
 * __u64/__s32 here: this header is compiled both by clang -target bpf and by
 * the host compiler.  Bump FSAIO_RECORD_VERSION on any layout change; the
 * decoder rejects records of another version.
 */
#ifndef FSAIO_H
#define FSAIO_H

#ifndef __VMLINUX_H__	/* BPF programs get the types from vmlinux.h */
#include <linux/types.h>
#endif

#ifndef FSAIO_INLINE
#define FSAIO_INLINE static inline __attribute__((always_inline))
#endif

#define FSAIO_RECORD_VERSION	5	/* 2: ring field, IO_DESTROY; 3: FSYNC (wants metadata),
					 * LINK_FAIL; 4: sleep stacks start 3 frames in,
					 * WAKE FSAIO_F_STILL_QUEUED; 5: comm before the
					 * stack, short records without it */
/*
 * Frames kept per sleep.  The first frames of a sched_switch stack are
 * plumbing (the tracepoint's BPF glue, __schedule); FSAIO_STACK_SKIP of
 * them are not stored, so a journal wait deep inside a write's timestamp
 * update on a KASAN kernel still shows the frames that say it is the
 * write's copy (waitsite.c).  24 frames instead cost 64 bytes in every
 * record and lost records at SQPOLL rates.
 */
#define FSAIO_STACK_DEPTH	16
#define FSAIO_STACK_SKIP	3
#define FSAIO_COMM_LEN		16

enum fsaio_engine {
	FSAIO_ENGINE_NONE = 0,
	FSAIO_ENGINE_LIBAIO = 1,
	FSAIO_ENGINE_IO_URING = 2,
	FSAIO_ENGINE__COUNT,
};

/*
 * Event types, one row each: X(ID, value, name, sent when aggregating,
 * sent).
 * The table makes enum fsaio_event_type (FSAIO_EV_<ID> = value), the
 * names of reports and JSON (event_type_name(), harness/core/names.c),
 * fsaio_agg_sends() and the EV_<ID> constants of stap/fsaio.stp (generated
 * by bpf/gen-stap-consts.c).  Values are in recorded event logs: never
 * renumber; a new type takes the next value.  "sent when aggregating": the
 * record still goes to the ring buffer under `fsaio trace` (fsaio_agg.h).
 * "sent": a BPF program sends it, and then the checker must read it
 * (checker_reads(); tests/unit/test_records.c holds both sides to this
 * table): no record without a reader.  0: written by the harness, or
 * retired (nothing read it; logs recorded before may still hold it and
 * readers skip it).
 * A new type is a row here with the next value (FSAIO_RECORD_VERSION is
 * bumped when the layout or a field's meaning changes; an older reader
 * rejects a new type as unknown), the program
 * that emits it (bpf/<source>.bpf.c), its handler in the checker
 * (harness/core/checker.c) and a unit test (tests/unit/).
 *
 * "req" names the request for the whole lifecycle:
 *   libaio:   the user-space struct iocb pointer (== io_event.obj)
 *   io_uring: the kernel struct io_kiocb pointer (tracepoint "req")
 * Per-type use of the generic fields is listed above each row.
 */
#define FSAIO_EVENT_TYPES(X)						\
	/* request accepted by a submit syscall.			\
	 * libaio:   user_data = aio_data, arg0 = offset, arg1 = nbytes,	\
	 *           arg2 = opcode | fd << 16 | index_in_batch << 32,	\
	 *           res = batch id (per-thread io_submit call counter),	\
	 *           ring = the aio_context_t it was submitted to	\
	 * io_uring: user_data = sqe user_data, arg0 = opcode, arg1 = req flags, \
	 *           ring = the struct io_ring_ctx; FSAIO_F_FAILED_INIT: from \
	 *           io_uring_req_failed, res = the error */		\
	X(SUBMIT,	1,  "submit",		0, 1)			\
	/* submit syscall returned.  res = syscall return value,	\
	 * arg0 = nr asked, arg1 = duration of the syscall in ns,	\
	 * arg2 = batch id (libaio; matches SUBMIT.res) */		\
	X(SUBMIT_DONE,	2,  "submit_done",	0, 1)			\
	/* wait entry armed, "queued, will retry" (-EIOCBQUEUED/-EIOCBRETRY). \
	 * site = what it waits on, res = the code returned */		\
	X(RETRY,	3,  "retry",		0, 1)			\
	/* wake callback fired for an armed request */			\
	X(WAKE,		4,  "wake",		0, 1)			\
	/* a worker resumed the request.  arg0 = worker pid,		\
	 * arg1 = 1 if it runs with the submitter's mm, 0 if not,	\
	 * arg2 = FSAIO_RESUME_* flags (patched kernel), res = the	\
	 * submitter thread the kernel names (0: not said) */		\
	X(RESUME,	5,  "resume",		0, 1)			\
	/* request fell back to a blocking worker (io-wq punt, aio punt) */ \
	X(PUNT,		6,  "punt",		0, 1)			\
	/* kernel posted the completion.  res = result, io_uring: arg0 = cflags; \
	 * FSAIO_F_OVERFLOW (req 0, ring and user_data name the request) */ \
	X(COMPLETE,	7,  "complete",		0, 1)			\
	/* user space reaped the completion (io_getevents).  res = result */ \
	X(REAP,		8,  "reap",		0, 1)			\
	/* a D-state sleep ended.  arg0 = duration ns, arg1 = syscall nr the \
	 * task was in (-1: none), site/ctx classify it, stack = kernel stack \
	 * at the moment the task went to sleep.  Sent when aggregating: \
	 * its stack classifies the wait; a sleep inside a submit is the \
	 * finding */							\
	X(SLEEP,	9,  "sleep",		1, 1)			\
	/* retired: a wait_bit action of the patched kernel; the armed	\
	 * ones are RETRY, the sleeping ones SLEEP */			\
	X(WAIT_BIT,	10, "wait_bit",		0, 0)			\
	/* retired: an io_uring task_work batch ran (an idle SQPOLL thread \
	 * fires it a million times a second, with nothing to read) */	\
	X(TASK_WORK,	11, "task_work",	0, 0)			\
	/* retired: a watched workqueue function ran */		\
	X(WORKQUEUE,	12, "workqueue",	0, 0)			\
	/* a traced process exited: its last thread did (not just the	\
	 * leader).  res = wait status.  Sent when aggregating: the	\
	 * tracker's lifecycle */					\
	X(PROC_EXIT,	13, "proc_exit",	1, 1)			\
	/* written by the harness, never by BPF: end of trace.		\
	 * arg0 = records dropped in BPF during the segment (all causes), \
	 * stack[cause] = those of each enum fsaio_drop (fsaio_end_drops()), \
	 * arg2 = the ring buffer's bytes at the end, res = times it grew */ \
	X(TRACE_END,	14, "trace_end",	0, 0)			\
	/* io_destroy(2) returned: the kernel has waited for every request of \
	 * that context; unreaped ones are abandoned, never reaped.	\
	 * ring = the aio_context_t, res = return value, arg1 = duration ns. \
	 * Sent when aggregating: the tracker's lifecycle */		\
	X(IO_DESTROY,	15, "io_destroy",	1, 1)			\
	/* the aio worker running a request called vfs_fsync_range() (fentry; \
	 * patched kernel): the final ->fsync() of an O_SYNC/O_DSYNC write. \
	 * req as RESUME's, res = datasync, arg0/arg1 = range start/end, \
	 * arg2 = 1 if the request asked for O_SYNC (IOCB_SYNC: data and \
	 * metadata), 0 for O_DSYNC */					\
	X(FSYNC,	16, "fsync",		0, 1)			\
	/* io_uring: a linked request cancelled because an earlier request of \
	 * its chain failed (io_uring_fail_link).  req = the cancelled link, \
	 * user_data = the failed request's, ring = the io_ring_ctx.  Its \
	 * -ECANCELED CQE may be skipped: a failed IOSQE_CQE_SKIP_SUCCESS \
	 * request makes the kernel skip the CQEs of the rest of its chain \
	 * (REQ_F_SKIP_LINK_CQES), so the link may end with no COMPLETE. \
	 * Sent when aggregating: an anomaly */				\
	X(LINK_FAIL,	17, "link_fail",	1, 1)			\
	/* patched kernel: the workqueue worker that ran an aio request (one \
	 * that fired fsaio_resume or a worker fsaio_punt) finished its work \
	 * item still holding some of the submitter's context.  req = the \
	 * last request it ran, arg0 = FSAIO_KEPT_* flags, arg1 = the I/O \
	 * priority left (FSAIO_KEPT_IOPRIO).  Only emitted when something \
	 * was kept: the next, unrelated work item of that kworker would run \
	 * with it.  Sent when aggregating: an anomaly */		\
	X(WORKER_KEPT,	18, "worker_kept",	1, 1)				\
	/* a number and no event: a fold promote numbers its records before \
	 * it claims its slot, and one that lost the slot to another CPU \
	 * sends its numbers as VOID records (bpf/fsaio_fold.h).  req and \
	 * the submitter's fields: the kept request it was for.  The	\
	 * checker only counts it: it fills its seq */			\
	X(VOID,		19, "void",		0, 1)

enum fsaio_event_type {
#define FSAIO_EV_ENUM(id, val, name, agg, sent) FSAIO_EV_##id = val,
	FSAIO_EVENT_TYPES(FSAIO_EV_ENUM)
#undef FSAIO_EV_ENUM
	FSAIO_EV__MAX,		/* the last row's value + 1 */
};

/* A BPF program sends it (the "sent" column): the checker must read it. */
static inline int fsaio_ev_sent(unsigned int type)
{
	switch (type) {
#define FSAIO_EV_SENT(id, val, name, agg, sent) case val: return sent;
	FSAIO_EVENT_TYPES(FSAIO_EV_SENT)
#undef FSAIO_EV_SENT
	}
	return 0;
}

/*
 * Why an event never became a record (counted per CPU in BPF, per cause,
 * and carried to the checker in TRACE_END): any of them makes the
 * per-request checks inconclusive.  Keep in step with drop_name().
 */
enum fsaio_drop {
	FSAIO_DROP_RINGBUF = 0,		/* ring buffer full: reserve failed */
	FSAIO_DROP_USER_READ = 1,	/* iocb/io_event not readable from BPF
					 * (user page not resident): the rest of
					 * that io_submit/io_getevents not traced */
	FSAIO_DROP_BATCH_CUT = 2,	/* entries beyond MAX_SUBMIT_BATCH in one call */
	FSAIO_DROP_MAP_FULL = 3,	/* a state map was full (tracked processes,
					 * threads, sleepers, armed requests) */
	FSAIO_DROP_PROG_MISSED = 4,	/* a program the kernel did not run: it
					 * was already running on that CPU when
					 * an interrupt hit its hook (counted by
					 * the kernel: recursion_misses) */
	FSAIO_DROP_FOLD_RACE = 5,	/* a fold promote that lost its slot to
					 * other CPUs twice in a row: the
					 * record after it may precede the
					 * request's SUBMIT */
	FSAIO_DROP_PAIR_TWICE = 6,	/* events a hook's second program sent
					 * although the kernel ran the first
					 * for them (bpf/fsaio_nest.h): not lost,
					 * sent twice */
	FSAIO_DROP__COUNT,
};

/* Where a D-state sleep (or an armed retry) waits; set from the stack. */
enum fsaio_wait_site {
	FSAIO_SITE_UNKNOWN = 0,
	FSAIO_SITE_FOLIO_BIT = 1,	/* folio_wait_bit_common, __folio_lock, folio_put_wait_locked */
	FSAIO_SITE_WAIT_BIT_ACTION = 2,	/* bit_wait_io/bit_wait via __wait_on_bit* */
	FSAIO_SITE_WRITEBACK = 3,	/* folio_wait_writeback, fdatawait */
	FSAIO_SITE_JOURNAL = 4,		/* jbd2 commit / handle waits */
	FSAIO_SITE_IO_OTHER = 5,	/* other io_schedule() users (dio, bio waits) */
	FSAIO_SITE_OTHER = 6,		/* mutexes, rwsems, anything else */
	FSAIO_SITE_BLOCK = 7,		/* block layer: request tags, rq_qos, throttling */
	FSAIO_SITE_COPY = 8,		/* a buffered write's copy into the page cache
					 * (write_begin reads, its journal handle, dirty
					 * throttling): not its own I/O */
	FSAIO_SITE__COUNT,
};

/*
 * The FSAIO property: the waits the design makes asynchronous (page and
 * buffer bits, writeback, the journal commit of an O_SYNC write).  A
 * submit that sleeps in one of them blocked; its other sleeps (block layer
 * tags, other io_schedule users, locks) are counted and shown apart.
 */
FSAIO_INLINE int fsaio_site_is_fsaio_wait(unsigned site)
{
	return site == FSAIO_SITE_FOLIO_BIT || site == FSAIO_SITE_WAIT_BIT_ACTION ||
	       site == FSAIO_SITE_WRITEBACK || site == FSAIO_SITE_JOURNAL;
}

/* In which context a sleep happened; decided in BPF at switch-out. */
enum fsaio_context {
	FSAIO_CTX_OTHER = 0,
	FSAIO_CTX_SUBMIT_LIBAIO = 1,	/* inside io_submit */
	FSAIO_CTX_SUBMIT_IO_URING = 2,	/* inside io_uring_enter */
	FSAIO_CTX_IO_WQ_WORKER = 3,	/* io_uring io-wq worker (PF_IO_WORKER) */
	FSAIO_CTX_KWORKER = 4,		/* workqueue worker (PF_WQ_WORKER) */
	FSAIO_CTX_SYNC_READ = 5,	/* read/pread64/readv/preadv/preadv2 */
	FSAIO_CTX_SYNC_WRITE = 6,	/* write/pwrite64/writev/pwritev/pwritev2 */
	FSAIO_CTX_REAP = 7,		/* io_getevents / io_pgetevents */
	FSAIO_CTX__COUNT,
};

/* record.flags */
#define FSAIO_F_ACCEPTED	0x01	/* libaio SUBMIT sent by the fold after
					 * its batch's SUBMIT_DONE, which took the
					 * whole batch and was counted in the
					 * kernel (bpf/fsaio_fold_aio.h) */
#define FSAIO_F_INFERRED	0x02	/* derived by the harness, not traced */
#define FSAIO_F_FAILED_INIT	0x04	/* io_uring SUBMIT: the SQE failed at init
					 * (io_uring_req_failed): no submit_req
					 * event, res = the error it completes with */
#define FSAIO_F_OVERFLOW	0x08	/* io_uring COMPLETE: the CQ was full; the
					 * CQE went to the overflow list
					 * (io_uring_cqe_overflow, no req) */
#define FSAIO_F_DROPPED		0x10	/* with OVERFLOW: no memory for the
					 * overflow entry: the kernel dropped the CQE */
#define FSAIO_F_TEARDOWN	0x20	/* io_uring COMPLETE -ECANCELED posted by
					 * an exiting task or the ring's exit work:
					 * cancelled at ring teardown (process exit
					 * or ring close), nobody will reap it */
#define FSAIO_F_STILL_QUEUED	0x40	/* libaio WAKE (patched kernel): the
					 * request's wait entry was still on a
					 * wait queue when the retry was queued:
					 * a wake that did not happen (a stale
					 * WOKEN bit, a lost list_del_init) */
#define FSAIO_F_STAYS_SYNC	0x80	/* libaio write the patched kernel
					 * keeps synchronous by design: to an
					 * S_SYNC inode (chattr +S, a -o sync
					 * mount) or on a file system without
					 * FOP_DSYNC_ASYNC (xfs, btrfs): a SLEEP
					 * inside io_submit while it is issued,
					 * and every patched-kernel event of it
					 * (a RETRY or PUNT means it went async) */

struct fsaio_record {
	__u16 version;		/* FSAIO_RECORD_VERSION */
	__u16 type;		/* enum fsaio_event_type */
	__u32 cpu;
	__u64 ts_ns;		/* bpf_ktime_get_ns() */
	__u64 seq;		/* global sequence, from 1, no gaps unless lost */
	__u32 pid;		/* thread id */
	__u32 tgid;		/* process id */
	__u64 req;		/* request identity, see above; 0 if none */
	__u64 user_data;
	__u8 engine;		/* enum fsaio_engine */
	__u8 site;		/* enum fsaio_wait_site */
	__u8 ctx;		/* enum fsaio_context */
	__u8 flags;		/* FSAIO_F_* */
	__s32 res;
	__u64 arg0;
	__u64 arg1;
	__u64 arg2;
	__u64 ring;		/* libaio SUBMIT, IO_DESTROY: aio_context_t; else 0 */
	char comm[FSAIO_COMM_LEN];
	__u32 nr_stack;		/* valid entries in stack[] */
	__u32 pad;
	__u64 stack[FSAIO_STACK_DEPTH];
};

/*
 * The ring buffer carries a record sized to its content: only SLEEP records
 * take a stack, every other one ends before stack[] (FSAIO_RECORD_SHORT
 * bytes; the decoder zero-fills the rest).  Event logs keep whole records.
 */
#define FSAIO_RECORD_SHORT	__builtin_offsetof(struct fsaio_record, stack)
#define FSAIO_RECORD_SIZE_OF(type) \
	((type) == FSAIO_EV_SLEEP ? sizeof(struct fsaio_record) : FSAIO_RECORD_SHORT)

/* io_uring SUBMIT arg1 is req->flags, whose low bits mirror the SQE's
 * flags: IOSQE_CQE_SKIP_SUCCESS (REQ_F_CQE_SKIP) says the request posts
 * no CQE when it succeeds (a failure still posts one). */
#define FSAIO_URING_REQ_CQE_SKIP	(1u << 6)

/* io_uring CQE flags (COMPLETE arg0) and opcodes the checker reads */
#define FSAIO_CQE_F_MORE	(1u << 1)	/* IORING_CQE_F_MORE: multishot, more to come */
#define FSAIO_CQE_F_NOTIF	(1u << 3)	/* IORING_CQE_F_NOTIF: a zero-copy send's
						 * notification */
#define FSAIO_URING_OP_SEND_ZC		47	/* IORING_OP_SEND_ZC */
#define FSAIO_URING_OP_SENDMSG_ZC	48	/* IORING_OP_SENDMSG_ZC */

/* A zero-copy send, whose F_MORE CQE is its own last one (its
 * notification follows as the kernel's request). */
FSAIO_INLINE int fsaio_uring_zc_send(__u32 opcode)
{
	return opcode == FSAIO_URING_OP_SEND_ZC || opcode == FSAIO_URING_OP_SENDMSG_ZC;
}

/*
 * Typed views of the fields that some record types overload.  The BPF
 * programs write them and the checker reads them only through these, so
 * a packing is defined once.
 */

/* SUBMIT (libaio): arg2 = opcode | fd << 16 | index_in_batch << 32 */
FSAIO_INLINE __u64 fsaio_submit_arg2(__u32 opcode, __u32 fd, __u32 index)
{
	return (__u64)(opcode & 0xffff) | (__u64)(fd & 0xffff) << 16 | (__u64)index << 32;
}
FSAIO_INLINE __u16 fsaio_submit_opcode_of(__u64 arg2)
{
	return arg2 & 0xffff;
}
FSAIO_INLINE __u16 fsaio_submit_opcode(const struct fsaio_record *r)
{
	return fsaio_submit_opcode_of(r->arg2);
}
FSAIO_INLINE __u16 fsaio_submit_fd(const struct fsaio_record *r)
{
	return (r->arg2 >> 16) & 0xffff;
}
FSAIO_INLINE __u32 fsaio_submit_index(const struct fsaio_record *r)
{
	return r->arg2 >> 32;
}
/* SUBMIT (libaio): res = batch id; SUBMIT_DONE (libaio): arg2 = batch id */
FSAIO_INLINE __s32 fsaio_submit_batch(const struct fsaio_record *r)
{
	return r->res;
}
FSAIO_INLINE __s32 fsaio_submit_done_batch(const struct fsaio_record *r)
{
	return (__s32)r->arg2;
}

/* TRACE_END: records dropped for one cause (stack[] is free there).  A
 * log of an older tracer has no per-cause counts: its arg0 was all ring
 * buffer failures. */
FSAIO_INLINE __u64 fsaio_end_drops(const struct fsaio_record *r, unsigned cause)
{
	__u64 any = 0;	/* not a sum: counts that wrap past 2^64 are not none */
	unsigned i;

	for (i = 0; i < FSAIO_DROP__COUNT; i++)
		any |= r->stack[i];
	if (!any)
		return cause == FSAIO_DROP_RINGBUF ? r->arg0 : 0;
	return cause < FSAIO_DROP__COUNT ? r->stack[cause] : 0;
}

/* RESUME: arg1 = 1 with the submitter's mm; arg2 = FSAIO_RESUME_* flags */
#define FSAIO_RESUME_PUNT	0x1	/* the worker picks up a punted request */
#define FSAIO_RESUME_MM_GONE	0x2	/* the submitter's mm was already gone */
#define FSAIO_RESUME_OTHER_CREDS 0x4	/* the worker's fsuid, fsgid or effective
					 * capabilities differ from the submitter's
					 * at submit; ring = fsaio_resume_fsuids() */
#define FSAIO_RESUME_OTHER_IOPRIO 0x8	/* the worker would issue block I/O at
					 * another I/O priority than the request's
					 * (ki_ioprio): fsaio_resume_*_ioprio() */
FSAIO_INLINE int fsaio_resume_same_mm(const struct fsaio_record *r)
{
	return r->arg1 == 1;
}
FSAIO_INLINE __u64 fsaio_resume_flags(const struct fsaio_record *r)
{
	return (__u32)r->arg2;
}
/* WORKER_KEPT: what the kworker still had of the submitter's */
#define FSAIO_KEPT_CREDS	0x1	/* credentials (override_creds not reverted) */
#define FSAIO_KEPT_MM		0x2	/* address space (kthread_use_mm not undone) */
#define FSAIO_KEPT_IOPRIO	0x4	/* an I/O priority of its io_context */
#define FSAIO_KEPT_BLKCG	0x8	/* io cgroup (kthread_associate_blkcg) */

/* RESUME with FSAIO_RESUME_OTHER_IOPRIO: arg2's upper half = the request's
 * ioprio << 16 | the worker's (IOPRIO_PRIO_VALUE: class << 13 | level) */
FSAIO_INLINE __u64 fsaio_resume_ioprios_pack(__u16 request, __u16 worker)
{
	return ((__u64)request << 16 | worker) << 32;
}
FSAIO_INLINE __u16 fsaio_resume_request_ioprio(const struct fsaio_record *r)
{
	return r->arg2 >> 48;
}
FSAIO_INLINE __u16 fsaio_resume_worker_ioprio(const struct fsaio_record *r)
{
	return r->arg2 >> 32;
}
/* RESUME with FSAIO_RESUME_OTHER_CREDS: ring = submitter fsuid << 32 | worker's */
FSAIO_INLINE __u64 fsaio_resume_fsuids_pack(__u32 submitter, __u32 worker)
{
	return (__u64)submitter << 32 | worker;
}
FSAIO_INLINE __u32 fsaio_resume_submitter_fsuid(const struct fsaio_record *r)
{
	return r->ring >> 32;
}
FSAIO_INLINE __u32 fsaio_resume_worker_fsuid(const struct fsaio_record *r)
{
	return (__u32)r->ring;
}

/* FSYNC: an O_SYNC request (IOCB_SYNC) must be synced with datasync 0 */
FSAIO_INLINE int fsaio_fsync_datasync(const struct fsaio_record *r)
{
	return r->res != 0;
}
FSAIO_INLINE int fsaio_fsync_wants_metadata(const struct fsaio_record *r)
{
	return r->arg2 == 1;
}

#endif /* FSAIO_H */
