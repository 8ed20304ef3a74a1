/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-request state in the kernel for `fsaio check`: folding the io_uring
 * lifecycles nothing happened to.
 *
 * A plain io_uring request (no failed init, no IOSQE_CQE_SKIP_SUCCESS) is
 * not sent as a SUBMIT record: its submit is kept in a slot of fold_slots,
 * a direct-mapped table indexed by a hash of req (a global array: no map
 * helper, no lock on the hot path).  If its final CQE comes next (not a
 * notification, not a cancellation at ring teardown; a multishot
 * request's intermediate F_MORE CQEs before it are dropped, as the
 * checker only adds them to the history) with nothing else said about it
 * in between, the lifecycle is counted (fsaio_fold_counts) and no record
 * is sent at all: that is exactly the SUBMIT, COMPLETE pair the checker
 * would have passed.  Anything else said about the request first (a retry,
 * wake, resume, punt, failed link, an overflowed CQE of its ring, its
 * process's exit, a CQE that is not a plain one) promotes it: the
 * kept SUBMIT is sent, with its own time, and everything after flows as
 * records.  A second completion of a folded request sends the folded pair
 * and then itself, so the checker sees "completed twice" as without
 * folding; the entry stays DONE until its slot is taken by another
 * request.  A request whose slot is taken while it is pending is promoted
 * first (its SUBMIT sent): eviction costs records, never a verdict.  The
 * one thing eviction can hide is a second completion of a request folded
 * before its slot was reused: that CQE then arrives as one of an unknown
 * request, as a CQE of a request submitted before tracing began does.  At
 * the end of each run the harness sends the pending entries (in flight) as
 * SUBMIT records and clears the map: the checker then judges exactly the
 * stream it would have seen, minus the plain pairs, whose counts it adds
 * (checker_add_folded).  io_uring's SUBMIT_DONE records, which the checker
 * only counts, are counted here too.  libaio's lifecycles fold the same
 * way in fsaio_fold_aio.h.
 *
 * The decisions below are shared by the BPF object and the unit tests,
 * which drive them and the checker with the same synthetic streams.
 * `--record` turns folding off: the event log keeps every record.
 */
#ifndef FSAIO_FOLD_H
#define FSAIO_FOLD_H

#include "fsaio.h"

#define FSAIO_FOLD_SLOTS_LOG2	12
#define FSAIO_FOLD_SLOTS	(1u << FSAIO_FOLD_SLOTS_LOG2)
#define FSAIO_FOLD_OPS		64	/* by-opcode counts (opcodes above: last) */

/* A slot's state word: the state in the low nibble, notes of what the
 * kept request went through above it (FSAIO_FOLD_F_*), a generation above
 * the low byte (bumped each time the slot is taken, so a compare-and-swap
 * that read the word before a takeover fails after it). */
enum fsaio_fold_state {
	FSAIO_FOLD_FREE = 0,
	FSAIO_FOLD_PENDING,	/* submit kept, not sent */
	FSAIO_FOLD_PROMOTED,	/* submit sent: records flow */
	FSAIO_FOLD_DONE,	/* folded: submit and final CQE counted */
	FSAIO_FOLD_BUSY,	/* being written by a takeover */
};
/* Per-CPU counters of promotes whose numbered records are not out yet
 * (struct fsaio_fold_numbers), indexed by CPU modulo this. */
#define FSAIO_FOLD_UNSENT	256
#define FSAIO_FOLD_ST(w)	((__u32)((w) & 0x0f))
#define FSAIO_FOLD_WORD(w, st)	(((w) & ~0x0full) | (st))	/* notes kept */
/* Notes of a kept io_uring request, which the checker reads only as
 * history and counts: sent as records if the request is sent after all. */
#define FSAIO_FOLD_F_PUNTED	0x10	/* handed to io-wq (io_uring_queue_async_work) */
#define FSAIO_FOLD_F_LINK_FAILED 0x20	/* a link of a failed chain (io_uring_fail_link) */
#define FSAIO_FOLD_F_CQE_SKIP	0x40	/* submitted with IOSQE_CQE_SKIP_SUCCESS */
#define FSAIO_FOLD_NEW_WORD(w, st)	((((w) + 0x100) & ~0xffull) | (st))	/* a new owner */

/* A kept submit: what its SUBMIT record carries, and a folded CQE. */
struct fsaio_fold_req {
	__u64 state;		/* FSAIO_FOLD_ST(), generation (64-bit: cmpxchg) */
	__u64 req;
	__u64 ts_ns;
	__u64 user_data;
	__u64 ring;
	__u64 flags;		/* req->flags (SUBMIT arg1) */
	__s32 done_res;		/* DONE: the folded CQE's result */
	__u32 pid;
	__u32 tgid;
	__u16 cpu;
	__u8 opcode;
	__u8 punt_hashed;	/* FSAIO_FOLD_F_PUNTED: the PUNT's arg2 */
	char comm[FSAIO_COMM_LEN];
	__u64 seq;		/* a promote's snapshot: its records are
				 * numbered seq + 1 on (fsaio_fold_promote) */
};

FSAIO_INLINE __u32 fsaio_fold_slot(__u64 req)
{
	return (__u32)((req * 0x9E3779B97F4A7C15ull) >> (64 - FSAIO_FOLD_SLOTS_LOG2)) &
	       (FSAIO_FOLD_SLOTS - 1);
}

/* Counted by the BPF side for folded lifecycles, per CPU and engine.
 * Only __u64 fields: user space sums them over CPUs and subtracts a base
 * word by word (harness/live/tracer.h). */
struct fsaio_fold_engine {
	__u64 lifecycles;	/* each one SUBMIT and its end (io_uring: the
				 * final COMPLETE; libaio: the REAP, and the
				 * kernel COMPLETE where one is traced) */
	__u64 errors;		/* of those, res < 0 */
	__u64 by_opcode[FSAIO_FOLD_OPS];
	/* SUBMIT_DONE (io_uring_enter calls that submit, io_submit calls
	 * that took their whole batch), which the checker only counts:
	 * counted here instead of sent */
	__u64 submit_calls;
	__u64 submit_ns;
	/* of the lifecycles, io_uring ones punted to io-wq and links of a
	 * failed chain (their PUNT and LINK_FAIL records not sent) */
	__u64 punts;
	__u64 link_fails;
	/* io_uring multishot CQEs posted without their req (the checker
	 * only counts them: checker more_cqes) */
	__u64 more_cqes;
	/* of the lifecycles, io_uring ones that ended without a CQE (a
	 * CQE_SKIP request that succeeded, a failed chain's link whose CQE
	 * was skipped): ended when their req was submitted again */
	__u64 cqe_skipped;
};

struct fsaio_fold_counts {
	struct fsaio_fold_engine e[FSAIO_ENGINE__COUNT];
};

/* May a new request's submit be kept?  rflags: the SUBMIT record's flags
 * (FSAIO_F_FAILED_INIT: a request of its own that the checker counts). */
FSAIO_INLINE int fsaio_fold_submit_ok(__u8 rflags)
{
	return !rflags;
}

/* The state word a kept submit is published with: PENDING, noted
 * FSAIO_FOLD_F_CQE_SKIP if it posts no CQE when it succeeds (req_flags:
 * req->flags). */
FSAIO_INLINE __u64 fsaio_fold_pending_word(__u64 busy, __u64 req_flags)
{
	return FSAIO_FOLD_WORD(busy, FSAIO_FOLD_PENDING) |
	       (req_flags & FSAIO_URING_REQ_CQE_SKIP ? FSAIO_FOLD_F_CQE_SKIP : 0);
}

/* Does this CQE end a kept lifecycle with nothing for the checker to see?
 * rflags: the COMPLETE record's flags.  Not a zero-copy notification
 * (F_NOTIF), not a cancellation at ring teardown (FSAIO_F_TEARDOWN: the
 * request is abandoned, not completed); F_MORE is a multishot request's
 * intermediate CQE (fsaio_fold_cqe_more()), or a zero-copy send's last. */
FSAIO_INLINE int fsaio_fold_cqe_ok(__u32 cflags, __u8 rflags)
{
	return !(cflags & (FSAIO_CQE_F_MORE | FSAIO_CQE_F_NOTIF)) && !(rflags & FSAIO_F_TEARDOWN);
}

/* An intermediate CQE of a kept multishot request: the checker only adds
 * it to the request's history (it does not end it), so it is dropped and
 * the request stays kept.  A zero-copy send's F_MORE CQE ends it. */
FSAIO_INLINE int fsaio_fold_cqe_more(__u32 cflags, __u8 rflags, __u8 opcode)
{
	return (cflags & FSAIO_CQE_F_MORE) && !(cflags & FSAIO_CQE_F_NOTIF) &&
	       !(rflags & FSAIO_F_TEARDOWN) && !fsaio_uring_zc_send(opcode);
}

/*
 * The state machine, shared by the BPF object and the unit tests; the
 * caller finds the slot and sends.  Two CPUs may touch a slot at once (a
 * takeover by another request while this one's CQE runs), so every
 * change is a compare-and-swap of the state word, and what is sent is a
 * snapshot taken before it: a swap that succeeded proves the snapshot was
 * not torn by a takeover.
 *
 * What to send for an entry, before the record that promoted it: its
 * SUBMIT, and for a DONE one also its folded COMPLETE.
 */
#define FSAIO_FOLD_SEND_SUBMIT	1
#define FSAIO_FOLD_SEND_CQE	2
/* and, from the notes of the state word (io_uring), in this order: */
#define FSAIO_FOLD_SEND_PUNT	(FSAIO_FOLD_F_PUNTED << 4)
#define FSAIO_FOLD_SEND_LINK_FAIL (FSAIO_FOLD_F_LINK_FAILED << 4)
/* The promote lost its slot to another CPU: the numbers it took go as
 * VOID records, and the caller asks once more. */
#define FSAIO_FOLD_SEND_VOID	0x2000
/* and libaio's (fsaio_fold_aio.h): */
#define FSAIO_FOLD_SEND_KCQE	4	/* its folded kernel COMPLETE */
#define FSAIO_FOLD_SEND_REAP	8	/* its folded REAP (a DONE lifecycle) */

/* How many records a promote's answer stands for (VOID ones included):
 * at most one per FSAIO_FOLD_SEND_* bit. */
#define FSAIO_FOLD_MAX_RECORDS	6

FSAIO_INLINE __u32 fsaio_fold_nrecords(int what)
{
	return !!(what & FSAIO_FOLD_SEND_SUBMIT) + !!(what & FSAIO_FOLD_SEND_CQE) +
	       !!(what & FSAIO_FOLD_SEND_KCQE) + !!(what & FSAIO_FOLD_SEND_REAP) +
	       !!(what & FSAIO_FOLD_SEND_PUNT) + !!(what & FSAIO_FOLD_SEND_LINK_FAIL);
}

/* Where a promote takes its numbers: the record sequence, and its CPU's
 * count of promotes numbered and not yet sent (the sender takes 1 off once
 * its records, or VOIDs, are in the ring buffer). */
struct fsaio_fold_numbers {
	__u64 *seq;
	__u64 *unsent;
};

/*
 * A promote's second half, for both tables: number the records of `what`
 * (snap->seq + 1 on, from n->seq), then make the slot PROMOTED if it
 * still holds the word w the snapshot was taken with.
 *
 * The numbers come before the swap: anything said about the request on
 * any CPU after it finds the slot PROMOTED (or taken by another request)
 * is numbered later, so the checker reads it after the SUBMIT, even when
 * this CPU is interrupted, or its vCPU descheduled, before the records are
 * written.  A lost swap (another CPU moved, promoted or took the slot
 * first) leaves the numbers taken: they go as VOID records.  Until they
 * are in the ring buffer, n->unsent says that numbers are coming.
 */
FSAIO_INLINE int fsaio_fold_number_and_swap(__u64 *state, __u64 w, int what, __u64 *snap_seq,
					    const struct fsaio_fold_numbers *n)
{
	__sync_fetch_and_add(n->unsent, 1);
	*snap_seq = __sync_fetch_and_add(n->seq, fsaio_fold_nrecords(what));
	if (__sync_val_compare_and_swap(state, w, FSAIO_FOLD_WORD(w, FSAIO_FOLD_PROMOTED)) != w)
		return what | FSAIO_FOLD_SEND_VOID;
	return what;
}

/* A promote's first half: what to send of f if it keeps req (req 0:
 * whoever's it is), read into *snap with the word it had (*w); 0 if
 * nothing, FSAIO_FOLD_SEND_VOID (no records) if f changed while read. */
FSAIO_INLINE int fsaio_fold_promote_read(struct fsaio_fold_req *f, __u64 req,
					 struct fsaio_fold_req *snap, __u64 *w)
{
	__u32 st;

	*w = f->state;
	st = FSAIO_FOLD_ST(*w);
	if (st != FSAIO_FOLD_PENDING && st != FSAIO_FOLD_DONE)
		return 0;
	*snap = *f;
	if (req && snap->req != req)
		return 0;
	if (snap->state != *w)
		return FSAIO_FOLD_SEND_VOID;
	return FSAIO_FOLD_SEND_SUBMIT | (st == FSAIO_FOLD_DONE ? FSAIO_FOLD_SEND_CQE : 0) |
	       (__u32)((*w & (FSAIO_FOLD_F_PUNTED | FSAIO_FOLD_F_LINK_FAILED)) << 4);
}

/* Promote f if it is req's (req 0: whoever's it is): what to send from
 * *snap, its records numbered from *seq before the slot became PROMOTED;
 * with FSAIO_FOLD_SEND_VOID, another CPU changed the slot first. */
FSAIO_INLINE int fsaio_fold_promote(struct fsaio_fold_req *f, __u64 req,
				    struct fsaio_fold_req *snap,
				    const struct fsaio_fold_numbers *seq)
{
	__u64 w;
	int what = fsaio_fold_promote_read(f, req, snap, &w);

	if (what <= 0 || what == FSAIO_FOLD_SEND_VOID)
		return what;
	return fsaio_fold_number_and_swap(&f->state, w, what, &snap->seq, seq);
}

/* A punt to io-wq (note FSAIO_FOLD_F_PUNTED, arg: hashed) or a failed
 * chain's cancellation (FSAIO_FOLD_F_LINK_FAILED) of req: noted in the
 * kept request (-1, nothing sent), or what to send from *snap before the
 * event's own record (a second note of the same kind is sent). */
FSAIO_INLINE int fsaio_fold_on_note(struct fsaio_fold_req *f, __u64 req, __u64 note,
				    __u8 arg, struct fsaio_fold_req *snap,
				    const struct fsaio_fold_numbers *seq)
{
	__u64 w = f->state;

	if (f->req != req)
		return 0;
	if (FSAIO_FOLD_ST(w) == FSAIO_FOLD_PENDING && !(w & note)) {
		if (note == FSAIO_FOLD_F_PUNTED)
			f->punt_hashed = arg;	/* read only once the note is set */
		if (f->req == req && __sync_val_compare_and_swap(&f->state, w, w | note) == w)
			return -1;
	}
	return fsaio_fold_promote(f, req, snap, seq);
}

/* A CQE of req (rflags: its record's flags): folded (-1: count it, send
 * nothing; *snap the lifecycle), dropped (-2: a kept multishot request's
 * intermediate CQE), or what to send from *snap before the CQE's own
 * record. */
#define FSAIO_FOLD_DROPPED	(-2)
FSAIO_INLINE int fsaio_fold_on_cqe(struct fsaio_fold_req *f, __u64 req, __s32 res,
				   __u32 cflags, __u8 rflags, struct fsaio_fold_req *snap,
				   const struct fsaio_fold_numbers *seq)
{
	__u64 w = f->state;

	if (f->req != req)
		return 0;
	if (FSAIO_FOLD_ST(w) == FSAIO_FOLD_PENDING &&
	    fsaio_fold_cqe_more(cflags, rflags, f->opcode) && f->state == w && f->req == req)
		return FSAIO_FOLD_DROPPED;
	if (FSAIO_FOLD_ST(w) == FSAIO_FOLD_PENDING && fsaio_fold_cqe_ok(cflags, rflags)) {
		/* read only in DONE: written before the swap that makes it so,
		 * or a second CQE's promote on another CPU could send 0 */
		f->done_res = res;
		*snap = *f;
		if (snap->req == req && snap->state == w &&
		    __sync_val_compare_and_swap(&f->state, w,
						FSAIO_FOLD_WORD(w, FSAIO_FOLD_DONE)) == w)
			return -1;
	}
	return fsaio_fold_promote(f, req, snap, seq);
}

/* A slot a new submit may take: not kept, not being taken. */
FSAIO_INLINE int fsaio_fold_takeable(__u64 w)
{
	__u32 st = FSAIO_FOLD_ST(w);

	return st != FSAIO_FOLD_PENDING && st != FSAIO_FOLD_BUSY;
}

/*
 * Take f for a new submit (the caller then fills it and publishes it with
 * fsaio_fold_pending_word()).  What f held is sent first (*send, *snap)
 * if it was pending: the checker gets its SUBMIT as it would have.  The
 * same req pending again is judged by the checker (the new submit goes as
 * a record too, 0 returned), unless the kept one may end without a CQE
 * (CQE_SKIP, or a failed chain's link): then it ended when its req was
 * reused, as the checker ends it, and *send says FSAIO_FOLD_ENDED_NO_CQE
 * (count it from *snap).  Returns the word to publish with, or 0 if the
 * new request must go as records (also when another CPU is taking f, or
 * changed it while its old request was promoted: *send then says
 * FSAIO_FOLD_SEND_VOID).  *seq: the sequence counter (fsaio_fold_promote).
 */
#define FSAIO_FOLD_ENDED_NO_CQE	0x1000
FSAIO_INLINE __u64 fsaio_fold_take(struct fsaio_fold_req *f, __u64 req,
				   struct fsaio_fold_req *snap, int *send,
				   const struct fsaio_fold_numbers *seq)
{
	__u64 w = f->state, busy;

	*send = 0;
	if (FSAIO_FOLD_ST(w) == FSAIO_FOLD_PENDING && f->req == req &&
	    (w & (FSAIO_FOLD_F_CQE_SKIP | FSAIO_FOLD_F_LINK_FAILED))) {
		*snap = *f;
		if (snap->req != req || snap->state != w ||
		    __sync_val_compare_and_swap(&f->state, w,
						FSAIO_FOLD_WORD(w, FSAIO_FOLD_DONE)) != w)
			return 0;
		*send = FSAIO_FOLD_ENDED_NO_CQE;
		w = FSAIO_FOLD_WORD(w, FSAIO_FOLD_DONE);
	} else if (FSAIO_FOLD_ST(w) == FSAIO_FOLD_PENDING) {
		int again = f->req == req;

		*send = fsaio_fold_promote(f, 0, snap, seq);
		if (again || (*send & FSAIO_FOLD_SEND_VOID))
			return 0;
		w = f->state;
	}
	if (!fsaio_fold_takeable(w))
		return 0;
	busy = FSAIO_FOLD_NEW_WORD(w, FSAIO_FOLD_BUSY);
	if (__sync_val_compare_and_swap(&f->state, w, busy) != w)
		return 0;
	return busy;
}

/* Forget what f holds for req (a resubmit that is not kept). */
FSAIO_INLINE void fsaio_fold_forget(struct fsaio_fold_req *f, __u64 req)
{
	__u64 w = f->state;

	if (f->req == req && FSAIO_FOLD_ST(w) == FSAIO_FOLD_DONE)
		__sync_val_compare_and_swap(&f->state, w, FSAIO_FOLD_WORD(w, FSAIO_FOLD_FREE));
}

FSAIO_INLINE void fsaio_fold_engine_count(struct fsaio_fold_engine *c, __u32 opcode, __s32 res)
{
	c->lifecycles++;
	if (res < 0)
		c->errors++;
	c->by_opcode[opcode < FSAIO_FOLD_OPS ? opcode : FSAIO_FOLD_OPS - 1]++;
}

/* A folded lifecycle sent after all (completed again) is the checker's
 * to count now.  Per-CPU counts may go below zero on one CPU; their sum
 * is right. */
FSAIO_INLINE void fsaio_fold_engine_uncount(struct fsaio_fold_engine *c, __u32 opcode,
					    __s32 res)
{
	c->lifecycles--;
	if (res < 0)
		c->errors--;
	c->by_opcode[opcode < FSAIO_FOLD_OPS ? opcode : FSAIO_FOLD_OPS - 1]--;
}

/* An io_uring lifecycle folded: f the kept request (its state word's
 * notes), res its CQE's result. */
FSAIO_INLINE void fsaio_fold_count(struct fsaio_fold_counts *c, const struct fsaio_fold_req *f,
				   __s32 res)
{
	struct fsaio_fold_engine *e = &c->e[FSAIO_ENGINE_IO_URING];

	fsaio_fold_engine_count(e, f->opcode, res);
	e->punts += !!(f->state & FSAIO_FOLD_F_PUNTED);
	e->link_fails += !!(f->state & FSAIO_FOLD_F_LINK_FAILED);
}

FSAIO_INLINE void fsaio_fold_uncount(struct fsaio_fold_counts *c, const struct fsaio_fold_req *f)
{
	struct fsaio_fold_engine *e = &c->e[FSAIO_ENGINE_IO_URING];

	fsaio_fold_engine_uncount(e, f->opcode, f->done_res);
	e->punts -= !!(f->state & FSAIO_FOLD_F_PUNTED);
	e->link_fails -= !!(f->state & FSAIO_FOLD_F_LINK_FAILED);
}

/* A kept request ended without a CQE (FSAIO_FOLD_ENDED_NO_CQE): a failed
 * chain's link as cancelled, anything else as succeeded (the checker's
 * lc_end_without_cqe()). */
FSAIO_INLINE void fsaio_fold_count_no_cqe(struct fsaio_fold_counts *c,
					  const struct fsaio_fold_req *f)
{
	fsaio_fold_count(c, f, f->state & FSAIO_FOLD_F_LINK_FAILED ? -125 /* -ECANCELED */ : 0);
	c->e[FSAIO_ENGINE_IO_URING].cqe_skipped++;
}

/* What every record a kept request f stands for carries: its submitter,
 * at the submit's time (a macro: the io_uring and libaio tables keep
 * these fields under the same names in structs of their own). */
#define FSAIO_FOLD_RECORD_FROM(r, f, rtype, rengine) do {			\
	int i_;								\
									\
	(r)->type = (rtype);						\
	(r)->engine = (rengine);					\
	(r)->cpu = (f)->cpu;						\
	(r)->ts_ns = (f)->ts_ns;					\
	(r)->pid = (f)->pid;						\
	(r)->tgid = (f)->tgid;						\
	(r)->req = (f)->req;						\
	(r)->user_data = (f)->user_data;				\
	for (i_ = 0; i_ < FSAIO_COMM_LEN; i_++)				\
		(r)->comm[i_] = (f)->comm[i_];				\
} while (0)

/* The PUNT or LINK_FAIL record a note stands for (sent after its SUBMIT). */
FSAIO_INLINE void fsaio_fold_note_record(struct fsaio_record *r, const struct fsaio_fold_req *f,
					 __u64 note)
{
	FSAIO_FOLD_RECORD_FROM(r, f, note == FSAIO_FOLD_F_PUNTED ? FSAIO_EV_PUNT :
			       FSAIO_EV_LINK_FAIL, FSAIO_ENGINE_IO_URING);
	if (note == FSAIO_FOLD_F_PUNTED) {
		r->arg0 = f->opcode;
		r->arg1 = f->flags;
		r->arg2 = f->punt_hashed;
	} else {
		r->ring = f->ring;
	}
}

/* The SUBMIT record a kept submit stands for (seq, version left to the
 * sender). */
FSAIO_INLINE void fsaio_fold_submit_record(struct fsaio_record *r,
					   const struct fsaio_fold_req *f)
{
	FSAIO_FOLD_RECORD_FROM(r, f, FSAIO_EV_SUBMIT, FSAIO_ENGINE_IO_URING);
	r->arg0 = f->opcode;
	r->arg1 = f->flags;
	r->ring = f->ring;
}

/* The COMPLETE record a folded CQE stands for (sent before a second one). */
FSAIO_INLINE void fsaio_fold_complete_record(struct fsaio_record *r,
					     const struct fsaio_fold_req *f)
{
	fsaio_fold_submit_record(r, f);
	r->type = FSAIO_EV_COMPLETE;	/* at the submit's time: not kept */
	r->res = f->done_res;
	r->arg0 = 0;		/* cflags: a plain final CQE */
	r->arg1 = 0;
	r->ring = 0;
}

#endif /* FSAIO_FOLD_H */
