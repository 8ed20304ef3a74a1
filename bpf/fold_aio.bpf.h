/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folding libaio lifecycles in BPF (`fsaio check` without --record): the
 * glue between the programs and the state machine of fsaio_fold_aio.h,
 * which keeps a plain libaio lifecycle (SUBMIT, its batch's SUBMIT_DONE,
 * the kernel COMPLETE if traced, REAP) in fold_aio_slots instead of
 * sending its records.
 *
 * The batch of an io_submit call is open from its entry to its exit
 * (sys_state.fold_batch): a kept SUBMIT sent while it is open marks it
 * FOLD_BATCH_SENT, and its SUBMIT_DONE is then sent too; one sent after it
 * closed belongs to a batch whose SUBMIT_DONE was counted in full and
 * carries FSAIO_F_ACCEPTED.  The mark and the close are atomic swaps of
 * the one word, so a SUBMIT sent from another CPU (a process exit, an
 * eviction) while the submitter leaves io_submit is either before the
 * close (its SUBMIT_DONE goes) or after it (accepted).
 */
#ifndef FSAIO_FOLD_AIO_BPF_H
#define FSAIO_FOLD_AIO_BPF_H

#include "common.bpf.h"
#include "fold.bpf.h"	/* FOLD_ASK */
#include "fsaio_fold_aio.h"

/* fold_aio, behind the constant fold: the verifier drops the folding
 * paths where fold is off (aggregating, a record is not a ring buffer
 * reservation, --record) */
static __always_inline __u32 fold_aio_on(void)
{
	return fold ? fold_aio : 0;
}

static __always_inline struct fsaio_fold_aio *fold_aio_slot_of(__u32 tgid, __u64 req)
{
	return &fold_aio_slots[fsaio_fold_aio_slot(tgid, req) & (FSAIO_FOLD_AIO_SLOTS - 1)];
}

static __always_inline struct fsaio_fold_engine *fold_aio_counts(void)
{
	__u32 zero = 0;
	struct fsaio_fold_counts *c = bpf_map_lookup_elem(&fold_counts, &zero);

	return c ? &c->e[FSAIO_ENGINE_LIBAIO] : NULL;
}

/* A kept SUBMIT of (pid, batch) goes now: mark its batch if still open;
 * true if it was closed and accepted in full.  Not for a batch the kernel
 * took only part of: its SUBMIT_DONE went as a record, and a SUBMIT
 * another CPU promoted before that walk (numbered before it) is judged
 * against it, as rejected if it was. */
static __always_inline bool fold_aio_batch_closed(__u32 pid, __s32 batch)
{
	struct sys_state *s = bpf_map_lookup_elem(&sys_states, &pid);
	__u64 open = (__u32)batch, w;

	if (!s)
		return true;
	w = __sync_val_compare_and_swap(&s->fold_batch, open, open | FOLD_BATCH_SENT);
	return w != open && w != (open | FOLD_BATCH_SENT) && w != (open | FOLD_BATCH_PARTIAL);
}

static __always_inline void fold_aio_send_one(const struct fsaio_fold_aio *f, __u16 type,
					      bool accepted, __u64 seq)
{
	struct fsaio_record *r = ring_reserve_numbered(FSAIO_RECORD_SHORT);

	if (!r)
		return;
	__builtin_memset(r, 0, FSAIO_RECORD_SHORT);
	if (type == FSAIO_EV_SUBMIT)
		fsaio_fold_aio_submit_record(r, f, accepted);
	else
		fsaio_fold_aio_end_record(r, f, type == FSAIO_EV_COMPLETE);
	r->version = FSAIO_RECORD_VERSION;
	r->seq = seq;
	rec_submit(r);
}

/* What the state machine says to send (FSAIO_FOLD_SEND_*), from *snap,
 * numbered snap->seq + 1 on; a folded lifecycle sent after all is
 * uncounted. */
static __always_inline void fold_aio_send(int what, const struct fsaio_fold_aio *snap)
{
	struct fsaio_fold_engine *c;
	__u64 seq;

	if (what <= 0)
		return;	/* *snap was not written */
	seq = snap->seq;
	if (what & FSAIO_FOLD_SEND_VOID) {
		send_voids(seq, fsaio_fold_nrecords(what), snap->req);
		return;
	}
	if (what & FSAIO_FOLD_SEND_SUBMIT)
		fold_aio_send_one(snap, FSAIO_EV_SUBMIT,
				  fold_aio_batch_closed(snap->pid, snap->batch), ++seq);
	if (what & FSAIO_FOLD_SEND_KCQE)
		fold_aio_send_one(snap, FSAIO_EV_COMPLETE, false, ++seq);
	if (what & FSAIO_FOLD_SEND_REAP) {
		fold_aio_send_one(snap, FSAIO_EV_REAP, false, ++seq);
		c = fold_aio_counts();
		if (c)
			fsaio_fold_aio_uncount(c, snap);
	}
	fold_numbers_sent();
}

/* Something is said about (tgid, req) besides a plain lifecycle: what was
 * kept goes first, then everything flows as records. */
static __always_inline void fold_aio_promote(__u32 tgid, __u64 req)
{
	struct fsaio_fold_aio snap = {};
	int what;

	if (!fold_aio_on() || !req)
		return;
	FOLD_ASK(what, fsaio_fold_aio_promote(fold_aio_slot_of(tgid, req), tgid, req, &snap,
					      FOLD_NUMBERS), &snap);
	fold_aio_send(what, &snap);
}

/* Send the kept submits of a process (tgid), of one of its contexts
 * (tgid, ring: io_destroy), or of one io_submit batch (pid, batch: the
 * kernel did not take all of it): rare events, a walk of the table. */
struct fold_aio_walk {
	__u64 ring;
	__u32 tgid;
	__u32 pid;
	__s32 batch;
};

static long fold_aio_walk_one(__u32 i, struct fold_aio_walk *w)
{
	struct fsaio_fold_aio *f = &fold_aio_slots[i & (FSAIO_FOLD_AIO_SLOTS - 1)], snap = {};
	int what;

	if (!fsaio_fold_aio_kept(FSAIO_FOLD_ST(f->state)))
		return 0;
	if (w->pid ? f->pid == w->pid && f->batch == w->batch :
		     f->tgid == w->tgid && (!w->ring || f->ring == w->ring)) {
		FOLD_ASK(what, fsaio_fold_aio_promote(f, 0, 0, &snap, FOLD_NUMBERS), &snap);
		fold_aio_send(what, &snap);
	}
	return 0;
}

static __always_inline void fold_aio_promote_all(__u32 tgid, __u64 ring, __u32 pid, __s32 batch)
{
	struct fold_aio_walk w = { .ring = ring, .tgid = tgid, .pid = pid, .batch = batch };

	if (fold_aio_on())
		bpf_loop(FSAIO_FOLD_AIO_SLOTS, fold_aio_walk_one, &w, 0);
}

/* io_submit's entry: open the batch. */
static __always_inline void fold_aio_batch_open(struct sys_state *s)
{
	if (fold_aio_on())
		s->fold_batch = s->batch;
}

/* A libaio SUBMIT, as submit_one() reads it from the user's iocb. */
struct fold_aio_new {
	__u64 req;
	__u64 user_data;
	__u64 ring;
	__u64 offset;
	__u64 nbytes;
	__u64 arg2;
	__s32 batch;
};

/* A SUBMIT of the current thread's open batch: kept (true), or to be
 * sent as a record. */
static __always_inline bool fold_aio_submit(struct sys_state *s, const struct fold_aio_new *n)
{
	__u64 id = bpf_get_current_pid_tgid(), w;
	struct fsaio_fold_aio *f, snap;
	__u32 tgid = id >> 32;
	int send;

	if (!fold_aio_on() || !s->fold_batch)
		return false;
	f = fold_aio_slot_of(tgid, n->req);
	/* an eviction that lost the slot: its numbers go void, the new
	 * submit as a record */
	w = fsaio_fold_aio_take(f, tgid, n->req, &snap, &send, FOLD_NUMBERS);
	fold_aio_send(send, &snap);
	if (!w) {
		fsaio_fold_aio_forget(f, tgid, n->req);
		__sync_fetch_and_or(&s->fold_batch, FOLD_BATCH_SENT);
		return false;
	}
	f->req = n->req;
	f->ts_ns = bpf_ktime_get_ns();
	f->user_data = n->user_data;
	f->ring = n->ring;
	f->offset = n->offset;
	f->nbytes = n->nbytes;
	f->arg2 = n->arg2;
	f->batch = n->batch;
	f->kres = 0;
	f->ures = 0;
	f->pid = (__u32)id;
	f->tgid = tgid;
	f->cpu = bpf_get_smp_processor_id();
	f->kdone = 0;
	bpf_get_current_comm(f->comm, sizeof(f->comm));
	/* the harness's drain may have taken the slot back meanwhile */
	if (__sync_val_compare_and_swap(&f->state, w, FSAIO_FOLD_WORD(w, FSAIO_FOLD_PENDING)) != w) {
		__sync_fetch_and_or(&s->fold_batch, FOLD_BATCH_SENT);
		return false;
	}
	return true;
}

/* io_submit's exit: its SUBMIT_DONE counted (true) or to be sent, after
 * every kept SUBMIT of a batch the kernel did not take in full. */
static __always_inline bool fold_aio_batch_close(struct sys_state *s, __u32 pid, long ret,
						 __u64 ns)
{
	struct fsaio_fold_engine *c;
	__u64 open = s->fold_batch;

	if (!fold_aio_on() || !open)
		return false;
	if (ret != (long)s->nr) {
		fold_aio_promote_all(0, 0, pid, s->batch);
		s->fold_batch = (__u32)open | FOLD_BATCH_PARTIAL;
		return false;
	}
	if (__sync_lock_test_and_set(&s->fold_batch, 0) & FOLD_BATCH_SENT)
		return false;
	c = fold_aio_counts();
	if (!c)
		return false;
	c->submit_calls++;
	c->submit_ns += ns;
	return true;
}

/* The kernel's COMPLETE of (tgid, req): folded (true) or to be sent. */
static __always_inline bool fold_aio_kcomplete(__u32 tgid, __u64 req, __s32 res)
{
	struct fsaio_fold_aio snap;
	int what;

	if (fold_aio_on() != FOLD_AIO_KCOMPLETE || !req)
		return false;
	FOLD_ASK(what, fsaio_fold_aio_on_kcomplete(fold_aio_slot_of(tgid, req), tgid, req, res,
						   &snap, FOLD_NUMBERS), &snap);
	if (what < 0)
		return true;
	fold_aio_send(what, &snap);
	return false;
}

/* The user's REAP of (tgid, req): folded (true, counted) or to be sent. */
static __always_inline bool fold_aio_reap(__u32 tgid, __u64 req, __s32 res)
{
	struct fsaio_fold_engine *c;
	struct fsaio_fold_aio snap;
	int what;

	if (!fold_aio_on() || !req)
		return false;
	FOLD_ASK(what, fsaio_fold_aio_on_reap(fold_aio_slot_of(tgid, req), tgid, req, res,
					      fold_aio_on() == FOLD_AIO_KCOMPLETE, &snap,
					      FOLD_NUMBERS), &snap);
	if (what < 0) {
		c = fold_aio_counts();
		if (c)
			fsaio_fold_aio_count(c, &snap);
		return true;
	}
	fold_aio_send(what, &snap);
	return false;
}

#endif /* FSAIO_FOLD_AIO_BPF_H */
