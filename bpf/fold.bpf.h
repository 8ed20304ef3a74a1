/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folding in BPF (`fsaio check` without --record): the glue between the
 * programs and the state machine of fsaio_fold.h, which keeps a plain
 * io_uring lifecycle (submit, one final CQE) in fold_slots instead of
 * sending its records.  Whatever else is said about a kept request
 * promotes it: its SUBMIT is sent first, then its records flow.
 */
#ifndef FSAIO_FOLD_BPF_H
#define FSAIO_FOLD_BPF_H

#include "common.bpf.h"
#include "fsaio_fold.h"

/* Where a promote takes its numbers (struct fsaio_fold_numbers) */
#define FOLD_NUMBERS \
	(&(const struct fsaio_fold_numbers){ .seq = &fsaio_seq, .unsent = fold_unsent_here() })

static __always_inline struct fsaio_fold_req *fold_slot_of(__u64 req)
{
	return &fold_slots[fsaio_fold_slot(req) & (FSAIO_FOLD_SLOTS - 1)];
}

/* Send a record built from a kept request, numbered seq: its SUBMIT, a
 * note (FSAIO_FOLD_SEND_PUNT, _LINK_FAIL), a folded CQE
 * (FSAIO_FOLD_SEND_CQE). */
static __always_inline void fold_send_one(const struct fsaio_fold_req *f, int what, __u64 seq)
{
	struct fsaio_record *r = ring_reserve_numbered(FSAIO_RECORD_SHORT);

	if (!r)
		return;
	__builtin_memset(r, 0, FSAIO_RECORD_SHORT);
	if (what == FSAIO_FOLD_SEND_CQE)
		fsaio_fold_complete_record(r, f);
	else if (what == FSAIO_FOLD_SEND_SUBMIT)
		fsaio_fold_submit_record(r, f);
	else
		fsaio_fold_note_record(r, f, what >> 4);
	r->version = FSAIO_RECORD_VERSION;
	r->seq = seq;
	rec_submit(r);
}

/* What the state machine says to send (FSAIO_FOLD_SEND_*), from its
 * snapshot, numbered snap->seq + 1 on; a folded lifecycle sent after all
 * is uncounted. */
static __always_inline void fold_send(int what, const struct fsaio_fold_req *snap)
{
	struct fsaio_fold_counts *c;
	__u64 seq;
	__u32 zero = 0;

	if (what <= 0)
		return;	/* *snap was not written */
	seq = snap->seq;
	if (what & FSAIO_FOLD_SEND_VOID) {
		send_voids(seq, fsaio_fold_nrecords(what), snap->req);
		return;
	}
	if (what & FSAIO_FOLD_SEND_SUBMIT)
		fold_send_one(snap, FSAIO_FOLD_SEND_SUBMIT, ++seq);
	if (what & FSAIO_FOLD_SEND_PUNT)
		fold_send_one(snap, FSAIO_FOLD_SEND_PUNT, ++seq);
	if (what & FSAIO_FOLD_SEND_LINK_FAIL)
		fold_send_one(snap, FSAIO_FOLD_SEND_LINK_FAIL, ++seq);
	if (what & FSAIO_FOLD_SEND_CQE) {
		fold_send_one(snap, FSAIO_FOLD_SEND_CQE, ++seq);
		c = bpf_map_lookup_elem(&fold_counts, &zero);
		if (c)
			fsaio_fold_uncount(c, snap);
	}
	fold_numbers_sent();
}

/*
 * Ask the state machine (an expression: fsaio_fold_promote() or one that
 * promotes on its way, answering into *snap); a lost race's numbers go as
 * VOID records, and it is asked once more.  Lost
 * again (the slot kept moving under it): the record that follows may come
 * before the request's SUBMIT, a loss.  Its last answer into `what`.
 */
#define FOLD_LOST(what)	((what) > 0 && ((what) & FSAIO_FOLD_SEND_VOID))
/* FOLD_ASK reads *snap only for a lost claim, but clang may move the loads
 * (or a store of a register it loaded them into) onto every path: the
 * callers zero snap, or the verifier rejects a read of an unset register
 * (it did in fexit/filemap_get_pages, 6.12). */
#define FOLD_ASK(what, ask, snap)					\
	do {								\
		(what) = (ask);						\
		if (FOLD_LOST(what)) {					\
			send_voids((snap)->seq, fsaio_fold_nrecords(what), (snap)->req); \
			(what) = (ask);					\
		}							\
		if (FOLD_LOST(what)) {					\
			send_voids((snap)->seq, fsaio_fold_nrecords(what), (snap)->req); \
			count_drops(FSAIO_DROP_FOLD_RACE, 1);		\
			(what) = 0;					\
		}							\
	} while (0)

/* Something is said about req besides its submit and a plain final CQE:
 * its kept SUBMIT goes first, then everything flows as records. */
static __always_inline void fold_promote(__u64 req)
{
	struct fsaio_fold_req snap = {};
	int what;

	if (!fold || !req)
		return;
	FOLD_ASK(what, fsaio_fold_promote(fold_slot_of(req), req, &snap, FOLD_NUMBERS), &snap);
	fold_send(what, &snap);
}

/* Promote the kept submits of a ring (an overflowed CQE names its request
 * by ring and user_data only) or of a process (its exit ends what it left
 * in flight): rare events, a walk of the table. */
struct fold_walk {
	__u64 ring;
	__u32 tgid;
};

static long fold_walk_one(__u32 i, struct fold_walk *w)
{
	struct fsaio_fold_req *f = &fold_slots[i & (FSAIO_FOLD_SLOTS - 1)], snap = {};
	int what;

	if (FSAIO_FOLD_ST(f->state) == FSAIO_FOLD_PENDING &&
	    ((w->ring && f->ring == w->ring) || (w->tgid && f->tgid == w->tgid))) {
		FOLD_ASK(what, fsaio_fold_promote(f, 0, &snap, FOLD_NUMBERS), &snap);
		fold_send(what, &snap);
	}
	return 0;
}

static __always_inline void fold_promote_all(__u64 ring, __u32 tgid)
{
	struct fold_walk w = { .ring = ring, .tgid = tgid };

	if (fold)
		bpf_loop(FSAIO_FOLD_SLOTS, fold_walk_one, &w, 0);
}

/* A new request's submit: kept (true), or to be sent as a record. */
static __always_inline bool fold_submit(__u64 ring, __u64 req, __u64 user_data,
					__u8 opcode, __u64 flags, __u8 rflags)
{
	struct fsaio_fold_req *f, snap;
	__u64 id, w;
	int send;

	if (!fold)
		return false;
	f = fold_slot_of(req);
	if (!fsaio_fold_submit_ok(rflags)) {
		/* its records flow: what the slot kept of this req goes first */
		if (FSAIO_FOLD_ST(f->state) == FSAIO_FOLD_PENDING) {
			FOLD_ASK(send, fsaio_fold_promote(f, req, &snap, FOLD_NUMBERS), &snap);
			fold_send(send, &snap);
		} else {
			fsaio_fold_forget(f, req);
		}
		return false;
	}
	/* an eviction that lost the slot: its numbers go void, the new
	 * submit as a record */
	w = fsaio_fold_take(f, req, &snap, &send, FOLD_NUMBERS);
	if (send == FSAIO_FOLD_ENDED_NO_CQE) {
		struct fsaio_fold_counts *c;
		__u32 zero = 0;

		c = bpf_map_lookup_elem(&fold_counts, &zero);
		if (c)
			fsaio_fold_count_no_cqe(c, &snap);
	} else {
		fold_send(send, &snap);
	}
	if (!w)
		return false;
	id = bpf_get_current_pid_tgid();
	f->req = req;
	f->ts_ns = bpf_ktime_get_ns();
	f->user_data = user_data;
	f->ring = ring;
	f->flags = flags;
	f->done_res = 0;
	f->pid = (__u32)id;
	f->tgid = id >> 32;
	f->cpu = bpf_get_smp_processor_id();
	f->opcode = opcode;
	bpf_get_current_comm(f->comm, sizeof(f->comm));
	/* the harness's drain may have taken the slot back meanwhile */
	return __sync_val_compare_and_swap(&f->state, w, fsaio_fold_pending_word(w, flags)) == w;
}

/* A CQE (rflags: its record's flags): folded or dropped (true), or to be
 * sent as a record after what the kept request says (its SUBMIT; for a
 * folded one completed again, its pair). */
static __always_inline bool fold_cqe(__u64 req, __s32 res, __u32 cflags, __u8 rflags)
{
	struct fsaio_fold_req snap;
	struct fsaio_fold_counts *c;
	__u32 zero = 0;
	int what;

	if (!fold)
		return false;
	if (!req) {	/* a multishot CQE posted without its req: only counted */
		if (!(cflags & FSAIO_CQE_F_MORE))
			return false;
		c = bpf_map_lookup_elem(&fold_counts, &zero);
		if (!c)
			return false;
		c->e[FSAIO_ENGINE_IO_URING].more_cqes++;
		return true;
	}
	FOLD_ASK(what, fsaio_fold_on_cqe(fold_slot_of(req), req, res, cflags, rflags, &snap,
					 FOLD_NUMBERS), &snap);
	if (what == FSAIO_FOLD_DROPPED)
		return true;
	if (what < 0) {
		c = bpf_map_lookup_elem(&fold_counts, &zero);
		if (c)
			fsaio_fold_count(c, &snap, res);
		return true;
	}
	fold_send(what, &snap);
	return false;
}

/* A punt to io-wq or a failed chain's cancellation of req (note
 * FSAIO_FOLD_F_*): noted in the kept request (true), or to be sent as a
 * record after what was kept. */
static __always_inline bool fold_note(__u64 req, __u64 note, __u8 arg)
{
	struct fsaio_fold_req snap;
	int what;

	if (!fold || !req)
		return false;
	FOLD_ASK(what, fsaio_fold_on_note(fold_slot_of(req), req, note, arg, &snap, FOLD_NUMBERS),
		 &snap);
	if (what < 0)
		return true;
	fold_send(what, &snap);
	return false;
}

#endif /* FSAIO_FOLD_BPF_H */
