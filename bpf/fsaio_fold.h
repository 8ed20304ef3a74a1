/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-request state in the kernel for `fsaio check` (issue 13): folding the
 * io_uring lifecycles nothing happened to.
 *
 * A plain io_uring request (no failed init, no IOSQE_CQE_SKIP_SUCCESS) is
 * not sent as a SUBMIT record: its submit is kept in the fold_reqs hash,
 * keyed by req.  If its final CQE comes next (no F_MORE, no notification,
 * not -ECANCELED) with nothing else said about it in between, the
 * lifecycle is counted (fsaio_fold_counts) and no record is sent at all:
 * that is exactly the SUBMIT, COMPLETE pair the checker would have passed.
 * Anything else said about the request first (a retry, wake, resume, punt,
 * failed link, an overflowed CQE of its ring, its process's exit, a CQE
 * that is not a plain final one) promotes it: the kept SUBMIT is sent, with
 * its own time, and everything after flows as records.  A second completion
 * of a folded request sends the folded pair and then itself, so the checker
 * sees "completed twice" as without folding; the entry stays DONE until its
 * req is submitted again.  At the end of each run the harness sends the
 * pending entries (in flight) as SUBMIT records and clears the map: the
 * checker then judges exactly the stream it would have seen, minus the
 * plain pairs, whose counts it adds (checker_add_folded).  io_uring's
 * SUBMIT_DONE records, which the checker only counts, are counted here
 * too.
 *
 * The decisions below are shared by the BPF object and the unit tests,
 * which drive them and the checker with the same synthetic streams.
 * `--record` turns folding off: the event log keeps every record.
 */
#ifndef FSAIO_FOLD_H
#define FSAIO_FOLD_H

#include "fsaio.h"

#define FSAIO_FOLD_MAX_REQS	8192	/* fold_reqs entries; full: no folding */
#define FSAIO_FOLD_OPS		64	/* by-opcode counts (opcodes above: last) */
#define FSAIO_FOLD_ECANCELED	125

enum fsaio_fold_state {
	FSAIO_FOLD_PENDING = 1,	/* submit kept, not sent */
	FSAIO_FOLD_PROMOTED,	/* submit sent: records flow */
	FSAIO_FOLD_DONE,	/* folded: submit and final CQE counted */
};

/* A kept submit: what its SUBMIT record carries, and a folded CQE. */
struct fsaio_fold_req {
	__u64 state;		/* enum fsaio_fold_state (64-bit: BPF's cmpxchg) */
	__u64 ts_ns;
	__u64 user_data;
	__u64 ring;
	__u64 flags;		/* req->flags (SUBMIT arg1) */
	__u64 done_ts_ns;	/* DONE: the folded CQE's time and result */
	__s32 done_res;
	__u32 pid;
	__u32 tgid;
	__u16 cpu;
	__u8 opcode;
	__u8 pad;
	char comm[FSAIO_COMM_LEN];
};

/* Counted by the BPF side for folded lifecycles, per CPU. */
struct fsaio_fold_counts {
	__u64 lifecycles;	/* each one SUBMIT and one final COMPLETE */
	__u64 errors;		/* of those, res < 0 */
	__u64 by_opcode[FSAIO_FOLD_OPS];
	/* io_uring SUBMIT_DONE (io_uring_enter calls that submit), which
	 * the checker only counts: counted here instead of sent */
	__u64 submit_calls;
	__u64 submit_ns;
};

/* May a new request's submit be kept?  rflags: the SUBMIT record's flags
 * (FSAIO_F_FAILED_INIT); req_flags: req->flags. */
FSAIO_INLINE int fsaio_fold_submit_ok(__u8 rflags, __u64 req_flags)
{
	return !rflags && !(req_flags & FSAIO_URING_REQ_CQE_SKIP);
}

/* Does this CQE end a kept lifecycle with nothing for the checker to see?
 * A multishot or zero-copy CQE (F_MORE, F_NOTIF) and -ECANCELED (ring
 * teardown, cancelled links) are what the checker reads flags from. */
FSAIO_INLINE int fsaio_fold_cqe_ok(__s32 res, __u32 cflags)
{
	return !(cflags & ((1u << 1) | (1u << 3))) && res != -FSAIO_FOLD_ECANCELED;
}

/*
 * The state machine, shared by the BPF object and the unit tests; the
 * caller looks entries up and sends.  What to send for an entry, before
 * the record that promoted it: its SUBMIT, and for a DONE one also its
 * folded COMPLETE.  64-bit compare-and-swap: a promotion and a CQE may run
 * on two CPUs.
 */
#define FSAIO_FOLD_SEND_SUBMIT	1
#define FSAIO_FOLD_SEND_CQE	2

FSAIO_INLINE int fsaio_fold_promote(struct fsaio_fold_req *f)
{
	if (__sync_val_compare_and_swap(&f->state, FSAIO_FOLD_PENDING,
					FSAIO_FOLD_PROMOTED) == FSAIO_FOLD_PENDING)
		return FSAIO_FOLD_SEND_SUBMIT;
	if (__sync_val_compare_and_swap(&f->state, FSAIO_FOLD_DONE,
					FSAIO_FOLD_PROMOTED) == FSAIO_FOLD_DONE)
		return FSAIO_FOLD_SEND_SUBMIT | FSAIO_FOLD_SEND_CQE;
	return 0;
}

/* A CQE of a kept request: folded (-1: count it, send nothing), or what
 * to send before the CQE's own record. */
FSAIO_INLINE int fsaio_fold_on_cqe(struct fsaio_fold_req *f, __s32 res, __u32 cflags,
				   __u64 now_ns)
{
	if (f->state == FSAIO_FOLD_PENDING && fsaio_fold_cqe_ok(res, cflags)) {
		f->done_ts_ns = now_ns;
		f->done_res = res;
		if (__sync_val_compare_and_swap(&f->state, FSAIO_FOLD_PENDING,
						FSAIO_FOLD_DONE) == FSAIO_FOLD_PENDING)
			return -1;
	}
	return fsaio_fold_promote(f);
}

/* A new submit on a req that has an entry (old, or NULL): what to send for
 * the old one (a pending one ended without a CQE we saw: the checker gets
 * its SUBMIT as it would have, and then the new one's records, not kept,
 * so that it judges the pair). */
FSAIO_INLINE int fsaio_fold_on_resubmit(struct fsaio_fold_req *old)
{
	return old && old->state == FSAIO_FOLD_PENDING ? fsaio_fold_promote(old) : 0;
}

FSAIO_INLINE void fsaio_fold_count(struct fsaio_fold_counts *c, __u8 opcode, __s32 res)
{
	c->lifecycles++;
	if (res < 0)
		c->errors++;
	c->by_opcode[opcode < FSAIO_FOLD_OPS ? opcode : FSAIO_FOLD_OPS - 1]++;
}

/* A folded lifecycle sent after all (FSAIO_FOLD_SEND_CQE: completed
 * again) is the checker's to count now.  Per-CPU counts may go below
 * zero on one CPU; their sum is right. */
FSAIO_INLINE void fsaio_fold_uncount(struct fsaio_fold_counts *c, const struct fsaio_fold_req *f)
{
	c->lifecycles--;
	if (f->done_res < 0)
		c->errors--;
	c->by_opcode[f->opcode < FSAIO_FOLD_OPS ? f->opcode : FSAIO_FOLD_OPS - 1]--;
}

/* The SUBMIT record a kept submit stands for (seq, version left to the
 * sender). */
FSAIO_INLINE void fsaio_fold_submit_record(struct fsaio_record *r, __u64 req,
					   const struct fsaio_fold_req *f)
{
	int i;

	r->type = FSAIO_EV_SUBMIT;
	r->engine = FSAIO_ENGINE_IO_URING;
	r->cpu = f->cpu;
	r->ts_ns = f->ts_ns;
	r->pid = f->pid;
	r->tgid = f->tgid;
	r->req = req;
	r->user_data = f->user_data;
	r->arg0 = f->opcode;
	r->arg1 = f->flags;
	r->ring = f->ring;
	for (i = 0; i < FSAIO_COMM_LEN; i++)
		r->comm[i] = f->comm[i];
}

/* The COMPLETE record a folded CQE stands for (sent before a second one). */
FSAIO_INLINE void fsaio_fold_complete_record(struct fsaio_record *r, __u64 req,
					     const struct fsaio_fold_req *f)
{
	fsaio_fold_submit_record(r, req, f);
	r->type = FSAIO_EV_COMPLETE;
	r->ts_ns = f->done_ts_ns;
	r->res = f->done_res;
	r->arg0 = 0;		/* cflags: a plain final CQE */
	r->arg1 = 0;
	r->ring = 0;
}

#endif /* FSAIO_FOLD_H */
