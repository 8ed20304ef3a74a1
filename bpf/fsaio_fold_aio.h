/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-request state in the kernel for `fsaio check`: folding the libaio
 * lifecycles nothing happened to (the io_uring ones: fsaio_fold.h).
 *
 * A libaio request is an iocb of a process: (tgid, user iocb pointer), as
 * the checker keys it.  Its SUBMIT (one per iocb, in io_submit's entry) is
 * kept in a slot of fold_aio_slots instead of being sent.  A plain
 * lifecycle is SUBMIT, its batch's SUBMIT_DONE accepting the whole batch,
 * the kernel's COMPLETE where one is traced (the patched kernel's
 * fsaio_complete, fentry aio_complete_rw), and one REAP carrying the same
 * result: such a lifecycle is counted (fsaio_fold_counts) and sends
 * nothing.  Anything else said about the request first (a retry, wake,
 * resume, punt, fsync, a REAP with another result, a REAP without the
 * kernel COMPLETE the checker expects, its process's exit, an io_destroy
 * of its context) promotes it: what was kept is sent (its SUBMIT, and the
 * COMPLETE and REAP folded so far), then records flow.
 *
 * The batch: io_submit's SUBMIT_DONE says how many iocbs the kernel took.
 * The caller counts it instead of sending it when the whole batch was
 * taken and none of its SUBMITs was sent; otherwise it sends every kept
 * SUBMIT of the batch first, then the SUBMIT_DONE, and the checker judges
 * the batch as without folding.  A kept SUBMIT sent after its batch was
 * counted carries FSAIO_F_ACCEPTED: the checker must not wait for a
 * SUBMIT_DONE that will not come.
 *
 * The decisions are shared by the BPF object (fold_aio.bpf.h) and the unit
 * tests (tests/unit/test_fold.c), which drive them and the checker with
 * the same synthetic streams.  Concurrency as in fsaio_fold.h: every state
 * change is a compare-and-swap of the state word, what is sent is a
 * snapshot taken before it.
 */
#ifndef FSAIO_FOLD_AIO_H
#define FSAIO_FOLD_AIO_H

#include "fsaio_fold.h"

/* The BPF side's fold_aio: 0 off, or */
#define FOLD_AIO_BARE		1	/* no kernel COMPLETE traced */
#define FOLD_AIO_KCOMPLETE	2	/* the checker expects the kernel's
					 * COMPLETE before the REAP */

#define FSAIO_FOLD_AIO_SLOTS_LOG2	12
#define FSAIO_FOLD_AIO_SLOTS		(1u << FSAIO_FOLD_AIO_SLOTS_LOG2)

/* A kept libaio submit: its SUBMIT record's fields, and what was folded
 * after it.  State words as fsaio_fold.h's, with one more state: */
#define FSAIO_FOLD_KDONE	(FSAIO_FOLD_BUSY + 1)	/* the kernel COMPLETE folded */

struct fsaio_fold_aio {
	__u64 state;		/* FSAIO_FOLD_ST(), generation (64-bit: cmpxchg) */
	__u64 req;		/* the user iocb pointer */
	__u64 ts_ns;
	__u64 user_data;	/* aio_data */
	__u64 ring;		/* aio_context_t */
	__u64 offset;		/* SUBMIT arg0 */
	__u64 nbytes;		/* SUBMIT arg1 */
	__u64 arg2;		/* fsaio_submit_arg2(): opcode, fd, index */
	__s32 batch;		/* the thread's io_submit count (SUBMIT res) */
	__s32 kres;		/* KDONE, DONE: the kernel COMPLETE's result */
	__s32 ures;		/* DONE: the REAP's result */
	__u32 pid;
	__u32 tgid;
	__u16 cpu;
	__u8 kdone;		/* DONE: a kernel COMPLETE was folded too */
	__u8 pad;
	char comm[FSAIO_COMM_LEN];
	__u64 seq;		/* a promote's snapshot: its records are
				 * numbered seq + 1 on (fsaio_fold_promote) */
};

FSAIO_INLINE __u32 fsaio_fold_aio_slot(__u32 tgid, __u64 req)
{
	__u64 k = req ^ ((__u64)tgid << 44 | tgid);

	return (__u32)((k * 0x9E3779B97F4A7C15ull) >> (64 - FSAIO_FOLD_AIO_SLOTS_LOG2)) &
	       (FSAIO_FOLD_AIO_SLOTS - 1);
}

FSAIO_INLINE int fsaio_fold_aio_is(const struct fsaio_fold_aio *f, __u32 tgid, __u64 req)
{
	return f->req == req && f->tgid == tgid;
}

FSAIO_INLINE int fsaio_fold_aio_kept(__u32 st)
{
	return st == FSAIO_FOLD_PENDING || st == FSAIO_FOLD_KDONE;
}

/* A promote's first half (fsaio_fold_promote_read() of fsaio_fold.h):
 * what to send of f if it keeps (tgid, req) (req 0: whoever's it is):
 * FSAIO_FOLD_SEND_SUBMIT, _KCQE, _REAP of fsaio_fold.h. */
FSAIO_INLINE int fsaio_fold_aio_promote_read(struct fsaio_fold_aio *f, __u32 tgid, __u64 req,
					     struct fsaio_fold_aio *snap, __u64 *w)
{
	__u32 st;

	*w = f->state;
	st = FSAIO_FOLD_ST(*w);
	if (!fsaio_fold_aio_kept(st) && st != FSAIO_FOLD_DONE)
		return 0;
	*snap = *f;
	if (req && !fsaio_fold_aio_is(snap, tgid, req))
		return 0;
	if (snap->state != *w)
		return FSAIO_FOLD_SEND_VOID;
	if (st == FSAIO_FOLD_PENDING)
		return FSAIO_FOLD_SEND_SUBMIT;
	if (st == FSAIO_FOLD_KDONE)
		return FSAIO_FOLD_SEND_SUBMIT | FSAIO_FOLD_SEND_KCQE;
	return FSAIO_FOLD_SEND_SUBMIT | FSAIO_FOLD_SEND_REAP |
	       (snap->kdone ? FSAIO_FOLD_SEND_KCQE : 0);
}

/* Promote f if it is (tgid, req)'s (req 0: whoever's it is): what to
 * send from *snap, numbered from *seq before the slot became PROMOTED;
 * with FSAIO_FOLD_SEND_VOID, another CPU changed the slot first. */
FSAIO_INLINE int fsaio_fold_aio_promote(struct fsaio_fold_aio *f, __u32 tgid, __u64 req,
					struct fsaio_fold_aio *snap,
					const struct fsaio_fold_numbers *seq)
{
	__u64 w;
	int what = fsaio_fold_aio_promote_read(f, tgid, req, snap, &w);

	if (what <= 0 || what == FSAIO_FOLD_SEND_VOID)
		return what;
	return fsaio_fold_number_and_swap(&f->state, w, what, &snap->seq, seq);
}

/* Move a kept entry of (tgid, req) from state `from` to `to`, writing the
 * result the new state carries (kres for KDONE; ures, kdone for DONE)
 * before the swap: those fields are read only in those states, so a
 * write into a slot another CPU took meanwhile is overwritten before it
 * means anything.  1 if it moved; *snap the entry as moved. */
FSAIO_INLINE int fsaio_fold_aio_move(struct fsaio_fold_aio *f, __u32 tgid, __u64 req,
				     __u32 from, __u32 to, __s32 res,
				     struct fsaio_fold_aio *snap)
{
	__u64 w = f->state;

	if (FSAIO_FOLD_ST(w) != from || !fsaio_fold_aio_is(f, tgid, req))
		return 0;
	if (to == FSAIO_FOLD_KDONE) {
		f->kres = res;
	} else {
		f->kdone = from == FSAIO_FOLD_KDONE;
		f->ures = res;
	}
	*snap = *f;
	return fsaio_fold_aio_is(snap, tgid, req) && snap->state == w &&
	       __sync_val_compare_and_swap(&f->state, w, FSAIO_FOLD_WORD(w, to)) == w;
}

/* The kernel's COMPLETE of (tgid, req): folded (-1), or what to send from
 * *snap before the COMPLETE's own record. */
FSAIO_INLINE int fsaio_fold_aio_on_kcomplete(struct fsaio_fold_aio *f, __u32 tgid, __u64 req,
					     __s32 res, struct fsaio_fold_aio *snap,
					const struct fsaio_fold_numbers *seq)
{
	if (fsaio_fold_aio_move(f, tgid, req, FSAIO_FOLD_PENDING, FSAIO_FOLD_KDONE, res, snap))
		return -1;
	return fsaio_fold_aio_promote(f, tgid, req, snap, seq);
}

/* The user's REAP of (tgid, req) with result res; kcomplete: the checker
 * expects a kernel COMPLETE first (checker_config.see_libaio_kernel_complete).
 * Folded (-1: count the lifecycle from *snap), or what to send first. */
FSAIO_INLINE int fsaio_fold_aio_on_reap(struct fsaio_fold_aio *f, __u32 tgid, __u64 req,
					__s32 res, int kcomplete, struct fsaio_fold_aio *snap,
					const struct fsaio_fold_numbers *seq)
{
	if (!kcomplete &&
	    fsaio_fold_aio_move(f, tgid, req, FSAIO_FOLD_PENDING, FSAIO_FOLD_DONE, res, snap))
		return -1;
	if (FSAIO_FOLD_ST(f->state) == FSAIO_FOLD_KDONE && f->kres == res &&
	    fsaio_fold_aio_move(f, tgid, req, FSAIO_FOLD_KDONE, FSAIO_FOLD_DONE, res, snap))
		return -1;
	return fsaio_fold_aio_promote(f, tgid, req, snap, seq);
}

/*
 * Take f for a new submit of (tgid, req) (the caller fills it and
 * publishes it as PENDING with the returned word).  A kept entry there is
 * promoted first (*send, *snap): another request's (evicted), or this
 * same iocb's, submitted again before it was reaped: the checker judges
 * that pair, so the new submit goes as a record too (0 returned).  0 also
 * when another CPU is taking f or changed it during the eviction (*send
 * then says FSAIO_FOLD_SEND_VOID).  *seq: the sequence counter.
 */
FSAIO_INLINE __u64 fsaio_fold_aio_take(struct fsaio_fold_aio *f, __u32 tgid, __u64 req,
				       struct fsaio_fold_aio *snap, int *send,
				       const struct fsaio_fold_numbers *seq)
{
	__u64 w = f->state, busy;

	*send = 0;
	if (fsaio_fold_aio_kept(FSAIO_FOLD_ST(w))) {
		int again = fsaio_fold_aio_is(f, tgid, req);

		*send = fsaio_fold_aio_promote(f, 0, 0, snap, seq);
		if (again || (*send & FSAIO_FOLD_SEND_VOID))
			return 0;
		w = f->state;
	}
	if (fsaio_fold_aio_kept(FSAIO_FOLD_ST(w)) || !fsaio_fold_takeable(w))
		return 0;
	busy = FSAIO_FOLD_NEW_WORD(w, FSAIO_FOLD_BUSY);
	if (__sync_val_compare_and_swap(&f->state, w, busy) != w)
		return 0;
	return busy;
}

/* Forget a DONE entry of (tgid, req): its iocb is submitted again and
 * goes as a record. */
FSAIO_INLINE void fsaio_fold_aio_forget(struct fsaio_fold_aio *f, __u32 tgid, __u64 req)
{
	__u64 w = f->state;

	if (fsaio_fold_aio_is(f, tgid, req) && FSAIO_FOLD_ST(w) == FSAIO_FOLD_DONE)
		__sync_val_compare_and_swap(&f->state, w, FSAIO_FOLD_WORD(w, FSAIO_FOLD_FREE));
}

/* The records a kept entry stands for (seq and version left to the
 * sender).  accepted: its batch's SUBMIT_DONE was counted, not sent. */
FSAIO_INLINE void fsaio_fold_aio_submit_record(struct fsaio_record *r,
					       const struct fsaio_fold_aio *f, int accepted)
{
	FSAIO_FOLD_RECORD_FROM(r, f, FSAIO_EV_SUBMIT, FSAIO_ENGINE_LIBAIO);
	r->flags = accepted ? FSAIO_F_ACCEPTED : 0;
	r->res = f->batch;
	r->arg0 = f->offset;
	r->arg1 = f->nbytes;
	r->arg2 = f->arg2;
	r->ring = f->ring;
}

/* Its folded kernel COMPLETE (kcqe) or REAP, at the submit's time. */
FSAIO_INLINE void fsaio_fold_aio_end_record(struct fsaio_record *r,
					    const struct fsaio_fold_aio *f, int kcqe)
{
	fsaio_fold_aio_submit_record(r, f, 0);
	r->type = kcqe ? FSAIO_EV_COMPLETE : FSAIO_EV_REAP;
	r->res = kcqe ? f->kres : f->ures;
	r->arg0 = 0;
	r->arg1 = 0;
	r->arg2 = 0;
	r->ring = 0;
}

/* Per-engine counts of folded lifecycles (struct fsaio_fold_counts). */
FSAIO_INLINE void fsaio_fold_aio_count(struct fsaio_fold_engine *c, const struct fsaio_fold_aio *f)
{
	fsaio_fold_engine_count(c, fsaio_submit_opcode_of(f->arg2), f->ures);
}

FSAIO_INLINE void fsaio_fold_aio_uncount(struct fsaio_fold_engine *c,
					 const struct fsaio_fold_aio *f)
{
	fsaio_fold_engine_uncount(c, fsaio_submit_opcode_of(f->arg2), f->ures);
}

#endif /* FSAIO_FOLD_AIO_H */
