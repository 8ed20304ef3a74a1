// SPDX-License-Identifier: GPL-2.0
/*
 * The checker: per-request state machines over a stream of decoded fsaio
 * records.  Pure core, no libbpf: live tracing (fsaio check, fsaio trace),
 * replay of binary and text event logs, and the unit tests all drive this
 * same code.  This file turns events into lifecycles and counts; rules.c
 * turns what they left into verdicts, sleeps.c takes the SLEEP events.
 *
 * Decisions (the invariants of README "How results are reported", made
 * exact; the reports rely on them):
 *
 * Identity.  A lifecycle is keyed by (engine, tgid, req).  Events that run
 * outside the submitter (libaio kernel completion in IRQ context, wake
 * callbacks, kworker resumes) must still find their request: such events
 * (COMPLETE, RETRY, WAKE, RESUME, PUNT) may match any lifecycle with the
 * same req (and the same engine, unless the record's engine is NONE),
 * preferring the exact key if it can take the event, then the oldest
 * that can (a COMPLETE goes to one not yet completed, a WAKE to an armed
 * one), the exact key next, then the oldest in flight (lc_find; "Finding
 * a lifecycle" says how each is found without a scan).  fork()ed workers
 * with equal iocb addresses thus stay apart as long as the tracer's tgid
 * is right for SUBMIT and REAP.  SUBMIT and REAP run in the submitting process and must
 * match exactly.  A SUBMIT of a key whose lifecycle is finished starts a new
 * lifecycle (pointers are recycled); a SUBMIT of a key still in flight is
 * an exactly_once violation (the previous lifecycle never completed).
 *
 * libaio batches.  SUBMITs carry a batch id and their index in it
 * (fsaio_submit_batch/_index in bpf/fsaio.h); the SUBMIT_DONE of that
 * thread with that batch id says how many were accepted.  Entries at index >= accepted are dropped (not
 * counted as submitted, never expected to complete).  A new batch from the
 * same thread before the SUBMIT_DONE of the previous one means that
 * SUBMIT_DONE was not traced; the previous batch is then taken as accepted.
 *
 * Completion.  io_uring: COMPLETE ends the lifecycle.  libaio: REAP ends it
 * (the user saw the io_event); a kernel COMPLETE is also required when
 * cfg.see_libaio_kernel_complete, and both must carry the same result.  A
 * second COMPLETE or a second REAP is a double completion.  A libaio
 * COMPLETE/REAP of a request never seen submitted fails exactly_once; an
 * io_uring COMPLETE of an unknown request (or of req 0) is only counted
 * (requests that fail in io_init_req complete without an
 * io_uring_submit_req event; aux CQEs have no request) and shown in the
 * detail.  An io_uring COMPLETE whose arg0 (cflags) has IORING_CQE_F_MORE
 * is an intermediate multishot CQE and does not end the lifecycle.  "completed" counts each lifecycle once.
 *
 * Zero-copy sends (IORING_OP_SEND_ZC, SENDMSG_ZC).  The request's own CQE
 * ends it even with F_MORE: the kernel frees the req struct there.  The
 * notification CQE that follows (IORING_CQE_F_NOTIF) is posted by a
 * request the kernel allocates itself (io_alloc_notif), never submitted,
 * on whatever req struct the cache hands out, often one of a finished
 * request: it is counted (zc_notifs) and matched to no lifecycle.
 *
 * Overflowed CQEs.  io_uring_cqe_overflow names no req: an overflowed CQE
 * ends the first in-flight lifecycle of its ring with its user_data, but
 * several may share one (liburing's default user_data is 0).  If the one
 * it ended turns out to be alive (its own COMPLETE comes, with its req) or
 * another one turns out to be over (its req struct is submitted again),
 * the overflowed CQE was that other one's: it moves there, and the first
 * is open again.  Counts are unchanged by the move; no "completed twice"
 * or "submitted again" is reported for it.
 *
 * Completion without a CQE.  An io_uring request submitted with
 * IOSQE_CQE_SKIP_SUCCESS (SUBMIT arg1 & FSAIO_URING_REQ_CQE_SKIP) posts no
 * CQE, and so no COMPLETE, when it succeeds; and a link cancelled because
 * its chain failed (LINK_FAIL, io_uring_fail_link) posts none either when
 * the failed request had that flag (REQ_F_SKIP_LINK_CQES).  No tracepoint
 * marks their end, so such a lifecycle ends when its req struct is
 * submitted again (the kernel freed it: it completed) or, still open, at
 * the end of the trace: counted in completed and in cqe_skipped, never a
 * "submitted again before it completed" or a quiescence failure.  A COMPLETE
 * that does come (a failure, or a CQE not skipped) ends it as usual.  A request
 * never completed is quiescence's business, not exactly_once's.
 *
 * Retry lifecycle (only judged when cfg.see_retry; the events are counted
 * regardless): RETRY arms, WAKE must follow an armed RETRY, RESUME must
 * follow a WAKE; a new RETRY or the completion needs the previous retry
 * resumed.  PUNT is a resumption path: it disarms whatever is armed, and a
 * RESUME right after a PUNT (the worker picking the request up) is allowed.
 * RETRY/WAKE/RESUME/PUNT with req == 0 are counted but cannot be
 * attributed; with an unknown req != 0 they are violations.
 *
 * Sequence numbers.  seq starts anywhere and increases by one; records
 * without seq (0) are allowed only for harness-written records
 * (TRACE_END, or FSAIO_F_INFERRED).  Lost records are computed as
 * (max - min + 1) - distinct seen, so the small reordering that per-CPU
 * reservation can cause is not mistaken for loss (it is counted and shown
 * in the trace_integrity detail); repeated seqs are an ERROR of their own.
 *
 * Abandoned.  io_destroy(2) and process exit (exit_aio) wait until every
 * request of the context has completed in the kernel and then throw the
 * unreaped io_events away: user space can never reap them.  A libaio
 * lifecycle still open when its context was destroyed (IO_DESTROY with
 * res 0 of the same tgid and ring after its SUBMIT) or its process exited
 * (PROC_EXIT after the SUBMIT) is therefore "abandoned": it ends without
 * being counted in completed (engine_stats.abandoned instead).  This is
 * decided lazily, when the same iocb is submitted again and at the end, so
 * kernel events that arrive late still find the lifecycle, and a REAP
 * that still comes (another thread) simply completes it.  When kernel
 * completions are observable, an abandoned request without one, or with a
 * wait entry still armed, fails quiescence (the kernel's destroy/exit wait
 * let it go).  Requests of a live context that never complete are not
 * abandoned: quiescence fails them as before.  A process exit alone does
 * not abandon an io_uring request: ring teardown cancels it with a CQE,
 * which is traced (COMPLETE with FSAIO_F_TEARDOWN) and abandons it then:
 * the kernel finished it and nobody will reap it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/checker_int.h"
#include "core/decode.h"
#include "core/names.h"

/* ---------- libaio batches ---------- */

static struct thr *thr_get(struct checker *c, uint32_t pid, bool create)
{
	struct table *t = &c->thr_tab;
	struct thr *th;
	uint32_t h, v;

	for (h = hash64(pid) & t->mask; (v = t->slot[h]); h = (h + 1) & t->mask)
		if (c->thrs[v - 1].pid == pid)
			return &c->thrs[v - 1];
	if (!create)
		return NULL;
	if ((t->used + 1) * 2 > t->mask + 1) {
		if (table_grow(t, thr_key, c)) {
			c->oom++;
			return NULL;
		}
		for (h = hash64(pid) & t->mask; t->slot[h]; h = (h + 1) & t->mask)
			;
	}
	if (c->nr_thrs == c->cap_thrs) {
		uint32_t cap = c->cap_thrs ? c->cap_thrs * 2 : 64;
		struct thr *n = realloc(c->thrs, (size_t)cap * sizeof(*n));

		if (!n) {
			c->oom++;
			return NULL;
		}
		c->thrs = n;
		c->cap_thrs = cap;
	}
	th = &c->thrs[c->nr_thrs++];
	memset(th, 0, sizeof(*th));
	th->pid = pid;
	t->slot[h] = c->nr_thrs;
	t->used++;
	return th;
}

/* Pending batch entries still pointing at the lifecycle they were added for. */
static struct lc *batch_entry(struct checker *c, const struct thr *th, uint32_t i)
{
	struct lc *l = &c->lcs[th->lcs[i]];

	if ((l->flags & LC_PENDING) && l->pid == th->pid && l->batch == th->batch)
		return l;
	return NULL;
}

/* The previous batch's SUBMIT_DONE was never traced: take it as accepted. */
static void batch_close(struct checker *c, struct thr *th)
{
	uint32_t i;

	for (i = 0; i < th->n; i++) {
		struct lc *l = batch_entry(c, th, i);

		if (l)
			l->flags &= ~LC_PENDING;
	}
	th->n = 0;
}

static void batch_add(struct checker *c, struct lc *l, const struct fsaio_record *r)
{
	struct thr *th = thr_get(c, r->pid, true);

	l->flags |= LC_PENDING;
	l->batch = fsaio_submit_batch(r);
	l->index = fsaio_submit_index(r);
	if (!th)
		return;		/* out of memory: the entry just stays accepted */
	if (th->n && th->batch != fsaio_submit_batch(r))
		batch_close(c, th);
	th->batch = fsaio_submit_batch(r);
	if (th->n == th->cap) {
		uint32_t cap = th->cap ? th->cap * 2 : 64;
		uint32_t *n = realloc(th->lcs, cap * sizeof(*n));

		if (!n) {
			c->oom++;	/* the entry just stays accepted */
			return;
		}
		th->lcs = n;
		th->cap = cap;
	}
	th->lcs[th->n++] = l - c->lcs;
}

static void batch_done(struct checker *c, const struct fsaio_record *r)
{
	struct thr *th = thr_get(c, r->pid, false);
	int64_t accepted = r->res < 0 ? 0 : r->res;
	uint32_t i;

	if (!th || !th->n || th->batch != fsaio_submit_done_batch(r))
		return;
	for (i = 0; i < th->n; i++) {
		struct lc *l = batch_entry(c, th, i);

		if (!l)
			continue;
		l->flags &= ~LC_PENDING;
		if (l->index < accepted)
			continue;
		lc_push(l, EV_REJECTED, 0);
		if (l->flags & (LC_KCOMPLETE | LC_REAPED)) {
			fail_note(&c->eonce, l, "completed although io_submit rejected it (returned %d)",
				  r->res);
			continue;
		}
		l->flags = LC_REJECTED;
		lc_relist(c, l);
		c->st.engine[l->engine].submitted--;
		c->st.by_opcode[l->engine][l->opcode]--;
		c->lifecycles--;
		c->rejected++;
	}
	th->n = 0;
}

/* ---------- abandonment: io_destroy and process exit ---------- */

static uint32_t mark_hash(uint32_t tgid, uint64_t ring)
{
	return hash64(ring ^ (uint64_t)tgid * 0x9e3779b97f4a7c15ull);
}

static struct mark *mark_slot(struct mark *tab, uint32_t mask, uint32_t tgid,
			      uint64_t ring)
{
	uint32_t h;

	for (h = mark_hash(tgid, ring) & mask; tab[h].at; h = (h + 1) & mask)
		if (tab[h].tgid == tgid && tab[h].ring == ring)
			break;
	return &tab[h];
}

/* Remember that (tgid, ring) was destroyed, or tgid exited (ring 0), now. */
static void mark_set(struct checker *c, uint32_t tgid, uint64_t ring)
{
	struct mark *m;

	if ((c->nr_marks + 1) * 2 > c->marks_mask + 1) {
		uint32_t cap = (c->marks_mask + 1) * 2, i;
		struct mark *n = calloc(cap, sizeof(*n));

		if (!n) {
			c->oom++;
			return;
		}
		for (i = 0; i <= c->marks_mask; i++)
			if (c->marks[i].at)
				*mark_slot(n, cap - 1, c->marks[i].tgid, c->marks[i].ring) =
					c->marks[i];
		free(c->marks);
		c->marks = n;
		c->marks_mask = cap - 1;
	}
	m = mark_slot(c->marks, c->marks_mask, tgid, ring);
	if (!m->at)
		c->nr_marks++;
	m->tgid = tgid;
	m->ring = ring;
	m->at = c->st.records;	/* >= 1: this record is counted */
}

uint64_t mark_at(const struct checker *c, uint32_t tgid, uint64_t ring)
{
	return mark_slot(c->marks, c->marks_mask, tgid, ring)->at;
}

/* Was this open libaio lifecycle's context destroyed, or its process gone,
 * after it was submitted?  AB_NONE if neither. */
static unsigned abandon_reason(const struct checker *c, const struct lc *l)
{
	if (l->engine != FSAIO_ENGINE_LIBAIO || !lc_inflight(l))
		return AB_NONE;
	if (l->ring && mark_at(c, l->tgid, l->ring) > l->born)
		return AB_DESTROY;
	if (mark_at(c, l->tgid, 0) > l->born)
		return AB_EXIT;
	return AB_NONE;
}

static const char *abandon_name(unsigned why)
{
	return why == AB_DESTROY ? "io_destroy" : why == AB_EXIT ? "process exit" :
	       "ring teardown";
}

uint64_t abandoned_all(const struct checker *c)
{
	return c->abandoned[AB_DESTROY] + c->abandoned[AB_EXIT] + c->abandoned[AB_TEARDOWN];
}

/* End an open lifecycle as abandoned: never reaped, not completed. */
static void lc_abandon(struct checker *c, struct lc *l, unsigned why)
{
	l->flags |= LC_DONE | LC_ABANDONED;
	l->flags &= ~LC_PENDING;
	l->why = why;
	lc_relist(c, l);
	c->st.engine[l->engine].abandoned++;
	c->abandoned[why]++;
	/* The kernel waited for it: it must have completed, and without a
	 * wait entry left armed (judged at the COMPLETE if there was one). */
	if (l->flags & LC_KCOMPLETE)
		return;
	if (c->cfg.see_libaio_kernel_complete)
		fail_note(&c->aband, l, "abandoned by %s but never completed in the kernel",
			  abandon_name(why));
	else if (l->rstate != R_IDLE)
		fail_note(&c->aband, l, "abandoned by %s with a wait entry still armed",
			  abandon_name(why));
}

static void on_io_destroy(struct checker *c, const struct fsaio_record *r)
{
	if (r->res != 0 || !r->ring)
		return;		/* -EINVAL: no such context, nothing abandoned */
	mark_set(c, r->tgid, r->ring);
}

/* ---------- events ---------- */

static void lc_mark_done(struct checker *c, struct lc *l, int32_t res);

/* An io_uring request that may post no CQE has ended without one: its
 * req struct was reused, or the trace ended (see "Completion without a
 * CQE").  A cancelled link ends with -ECANCELED. */
static void lc_end_without_cqe(struct checker *c, struct lc *l)
{
	int32_t res = (l->cqe & CQE_LINK_FAILED) ? -125 /* -ECANCELED */ : 0;

	lc_push(l, EV_NO_CQE, res);
	l->flags |= LC_KCOMPLETE;
	l->kres = res;
	c->st.engine[l->engine].cqe_skipped++;
	lc_mark_done(c, l, res);
}

static bool lc_may_skip_cqe(const struct lc *l)
{
	return l->engine == FSAIO_ENGINE_IO_URING && l->cqe && lc_inflight(l) &&
	       l->rstate == R_IDLE;
}

static struct lc *ovf_sibling(struct checker *c, const struct lc *l, bool done);
static void ovf_move(struct checker *c, struct lc *from, struct lc *to);

static void on_submit(struct checker *c, const struct fsaio_record *r)
{
	struct lc *l = lc_find(c, r, true), *d;

	if (l && lc_inflight(l)) {
		unsigned why = abandon_reason(c, l);

		if (why)
			lc_abandon(c, l, why);	/* iocb reused after io_destroy */
		else if (lc_may_skip_cqe(l))
			lc_end_without_cqe(c, l);	/* the kernel freed it */
		else if ((d = ovf_sibling(c, l, true)))
			ovf_move(c, d, l);	/* the overflowed CQE was this one's */
		else
			fail_note(&c->eonce, l, "submitted again before it completed");
	}
	if (l)
		lc_unlist(c, l);	/* its ring and user_data change */
	else
		l = lc_create(c, r);
	if (!l)
		return;
	lc_reset(c, l, r);
	l->ring = r->ring;
	l->user_data = r->user_data;
	if (r->flags & FSAIO_F_FAILED_INIT)
		c->st.engine[l->engine].failed_init++;
	else if (l->engine == FSAIO_ENGINE_IO_URING && (r->arg1 & FSAIO_URING_REQ_CQE_SKIP))
		l->cqe |= CQE_MAY_SKIP;
	lc_push(l, FSAIO_EV_SUBMIT, 0);
	c->st.engine[l->engine].submitted++;
	{
		unsigned op = l->engine == FSAIO_ENGINE_LIBAIO ? fsaio_submit_opcode(r) :
			      (unsigned)r->arg0;

		l->opcode = op < FSAIO_MAX_OPCODE ? op : FSAIO_MAX_OPCODE - 1;
		c->st.by_opcode[l->engine][l->opcode]++;
	}
	lc_relist(c, l);
	c->lifecycles++;
	if (l->engine != FSAIO_ENGINE_LIBAIO)
		return;
	if (r->flags & FSAIO_F_ACCEPTED) {	/* its SUBMIT_DONE was folded */
		l->batch = fsaio_submit_batch(r);
		l->index = fsaio_submit_index(r);
	} else {
		batch_add(c, l, r);
	}
}

static void on_submit_done(struct checker *c, const struct fsaio_record *r)
{
	struct engine_stats *es = &c->st.engine[r->engine];

	es->submit_calls++;
	es->submit_ns += r->arg1;
	if (r->engine == FSAIO_ENGINE_LIBAIO)
		batch_done(c, r);
}

/* Retry state at the end of a lifecycle: only a resumed retry may complete. */
static void check_armed_at_completion(struct checker *c, struct lc *l)
{
	if (l->rstate == R_ARMED)
		fail_note(&c->retry, l, "completed while armed (retry never woken)");
	else if (l->rstate == R_WOKEN)
		fail_note(&c->retry, l, "completed after wake without resume");
}

static void lc_mark_done(struct checker *c, struct lc *l, int32_t res)
{
	l->flags |= LC_DONE;
	lc_relist(c, l);
	c->st.engine[l->engine].completed++;
	if (res < 0)
		c->st.engine[l->engine].errors++;
	check_armed_at_completion(c, l);
}

/* A completion for no open lifecycle: unknown, rejected or already ended.
 * Notes it (a failure or a count) and returns true; false if l is open. */
static bool completion_orphan(struct checker *c, struct lc *l,
			      const struct fsaio_record *r)
{
	char what[64];

	if (l && (l->flags & LC_ACTIVE))
		return false;
	snprintf(what, sizeof(what), "%s(%d)", event_type_name(r->type), r->res);
	if (l) {
		lc_push(l, r->type, r->res);
		fail_note(&c->eonce, l, "%s of a request io_submit rejected", what);
	} else if (r->engine == FSAIO_ENGINE_IO_URING && !r->req &&
		   (r->arg0 & CQE_F_MORE)) {
		c->more_cqes++;		/* a multishot CQE posted without its req */
	} else if (r->engine == FSAIO_ENGINE_IO_URING) {
		c->unmatched_uring++;
	} else if (c->cfg.libaio_submit_unseen) {
		c->unmatched_libaio++;
	} else {
		struct fail *f = &c->eonce;

		if (!f->count++)
			snprintf(f->first, sizeof(f->first),
				 "%s of a request never seen submitted: req 0x%" PRIx64
				 " (%s tgid %u)", what, (uint64_t)r->req, engine_name(r->engine),
				 r->tgid);
	}
	return true;
}


static void complete_lc(struct checker *c, struct lc *l, const struct fsaio_record *r);

/* A lifecycle of l's ring and user_data other than l: one an overflowed
 * CQE ended (done), or one still in flight not ended by one (!done). */
static struct lc *ovf_sibling(struct checker *c, const struct lc *l, bool done)
{
	struct key k = { l->ring, l->user_data, OVF_ENDED };
	struct lc *d;

	if (l->engine != FSAIO_ENGINE_IO_URING)
		return NULL;
	if (done)
		return list_first(c, LIST_OVF, k, l);
	k.k = OVF_INFLIGHT;
	d = list_first(c, LIST_OVF, k, l);
	k.k = OVF_ZC;
	return lc_older(d, list_first(c, LIST_OVF, k, l));
}

/* The overflowed CQE that ended `from` was `to`'s: `to` ends, `from` is
 * in flight again; completed and errors stay as they are. */
static void ovf_move(struct checker *c, struct lc *from, struct lc *to)
{
	to->flags |= LC_DONE | LC_KCOMPLETE;
	to->kres = from->kres;
	to->cqe |= CQE_BY_OVERFLOW;
	to->rstate = R_IDLE;
	lc_push(to, FSAIO_EV_COMPLETE, from->kres);
	from->flags &= ~(LC_DONE | LC_KCOMPLETE);
	from->cqe &= ~CQE_BY_OVERFLOW;
	lc_relist(c, to);
	lc_relist(c, from);
	c->ovf_moved++;
}

/*
 * A CQE that did not fit the CQ: traced without its req, named by ring and
 * user_data.  It ends the first in-flight request of both (LIST_OVF);
 * equal user_data in flight on one ring are interchangeable for the
 * counts.
 */
static void on_overflow(struct checker *c, const struct fsaio_record *r)
{
	struct engine_stats *es = &c->st.engine[FSAIO_ENGINE_IO_URING];
	struct key k = { r->ring, r->user_data, OVF_ZC };
	struct lc *l;

	es->cq_overflow++;
	if (r->flags & FSAIO_F_DROPPED)
		es->cq_dropped++;
	if (r->arg0 & CQE_F_NOTIF) {
		es->zc_notifs++;	/* not a request of the program's */
		return;
	}
	/* F_MORE: a multishot request's intermediate CQE, or a zero-copy
	 * send's own (last) one */
	l = list_first(c, LIST_OVF, k, NULL);
	if (!(r->arg0 & CQE_F_MORE)) {
		k.k = OVF_INFLIGHT;
		l = lc_older(l, list_first(c, LIST_OVF, k, NULL));
	}
	if (l) {
		complete_lc(c, l, r);
		if ((l->flags & LC_DONE) && !(l->flags & LC_ABANDONED)) {
			l->cqe |= CQE_BY_OVERFLOW;
			lc_relist(c, l);
		}
		return;
	}
	if (!(r->arg0 & CQE_F_MORE))
		c->unmatched_uring++;
}

static void on_complete(struct checker *c, const struct fsaio_record *r)
{
	struct lc *l;

	if (r->flags & FSAIO_F_OVERFLOW) {
		on_overflow(c, r);
		return;
	}
	if (r->engine == FSAIO_ENGINE_IO_URING && (r->arg0 & CQE_F_NOTIF)) {
		c->st.engine[FSAIO_ENGINE_IO_URING].zc_notifs++;
		return;		/* the kernel's notification request, see lc_zc_send() */
	}
	l = lc_find(c, r, false);
	if (completion_orphan(c, l, r))
		return;
	complete_lc(c, l, r);
}

static void complete_lc(struct checker *c, struct lc *l, const struct fsaio_record *r)
{
	/* Its own CQE, but an overflowed CQE ended it: that one was another's */
	if ((l->cqe & CQE_BY_OVERFLOW) && (l->flags & LC_DONE) && !(l->flags & LC_ABANDONED) &&
	    !(r->flags & FSAIO_F_OVERFLOW)) {
		struct lc *s = ovf_sibling(c, l, false);

		if (s)
			ovf_move(c, l, s);
	}
	lc_push(l, FSAIO_EV_COMPLETE, r->res);
	/* Cancelled at ring teardown: the kernel finished it, nobody reaps it. */
	if (l->engine == FSAIO_ENGINE_IO_URING && (r->flags & FSAIO_F_TEARDOWN) &&
	    !(l->flags & LC_DONE)) {
		l->flags |= LC_KCOMPLETE;
		l->kres = r->res;
		lc_abandon(c, l, AB_TEARDOWN);
		return;
	}
	/* A multishot request's intermediate CQEs do not end it; a zero-copy
	 * send's F_MORE CQE is its own last one (the notification follows). */
	if (l->engine == FSAIO_ENGINE_IO_URING && (r->arg0 & CQE_F_MORE) &&
	    !(l->flags & LC_DONE) && !lc_zc_send(l))
		return;
	if (l->flags & LC_KCOMPLETE) {
		fail_note(&c->eonce, l, "completed twice");
		return;
	}
	if (l->sync & SYNC_PUNTED) {
		c->sync_writes++;
		if (r->res >= 0 && !(l->sync & SYNC_FSYNCED))
			fail_note(&c->durab, l, l->sync & SYNC_WEAK ?
				  "O_SYNC write completed after an fdatasync only (datasync=1): "
				  "its metadata was not committed" :
				  "O_SYNC/O_DSYNC write completed without its final fsync in the worker");
	}
	l->flags |= LC_KCOMPLETE;
	l->kres = r->res;
	if ((l->flags & LC_REAPED) && l->ures != l->kres)
		fail_note(&c->eonce, l, "kernel result %d != user result %d",
			  l->kres, l->ures);
	/* io_uring ends here; libaio ends when the user reaps. */
	if (l->engine != FSAIO_ENGINE_LIBAIO)
		lc_mark_done(c, l, r->res);
	else
		check_armed_at_completion(c, l);
}

static void on_reap(struct checker *c, const struct fsaio_record *r)
{
	struct lc *l = lc_find(c, r, true);
	bool libaio = r->engine == FSAIO_ENGINE_LIBAIO;

	if (completion_orphan(c, l, r))
		return;
	lc_push(l, FSAIO_EV_REAP, r->res);
	if (l->flags & LC_REAPED) {
		fail_note(&c->eonce, l, "reaped twice");
		return;
	}
	l->flags |= LC_REAPED;
	l->ures = r->res;
	if (l->flags & LC_KCOMPLETE) {
		if (l->kres != l->ures)
			fail_note(&c->eonce, l, "kernel result %d != user result %d",
				  l->kres, l->ures);
	} else if (libaio && c->cfg.see_libaio_kernel_complete) {
		fail_note(&c->eonce, l, "reaped without a kernel completion");
	}
	if (libaio) {
		/* The armed check already ran at a kernel COMPLETE. */
		if (l->flags & LC_KCOMPLETE)
			l->rstate = R_IDLE;
		lc_mark_done(c, l, r->res);
	}
}

/*
 * RETRY/WAKE/RESUME/PUNT: the lifecycle whose retry state the event moves,
 * or NULL after noting why there is none.  *seen is the lifecycle the event
 * belongs to even if it has ended, for stats and details.
 */
static struct lc *retry_target(struct checker *c, const struct fsaio_record *r,
			       struct lc **seen)
{
	struct lc *l;

	*seen = NULL;
	if (!r->req) {
		c->unattributed++;
		return NULL;
	}
	l = lc_find(c, r, false);
	if ((!l || !(l->flags & LC_ACTIVE)) && r->engine == FSAIO_ENGINE_LIBAIO &&
	    c->cfg.libaio_submit_unseen) {
		c->unmatched_libaio++;
		return NULL;
	}
	if (!l || !(l->flags & LC_ACTIVE)) {
		struct fail *f = &c->retry;

		if (!f->count++)
			snprintf(f->first, sizeof(f->first),
				 "%s for a request never seen submitted: req 0x%" PRIx64
				 " (%s tgid %u)", event_type_name(r->type), (uint64_t)r->req,
				 engine_name(r->engine), r->tgid);
		return NULL;
	}
	*seen = l;
	lc_push(l, r->type, r->type == FSAIO_EV_RESUME ? fsaio_resume_same_mm(r) : r->res);
	if (l->flags & (LC_DONE | LC_KCOMPLETE)) {
		fail_note(&c->retry, l, "%s after completion", event_type_name(r->type));
		return NULL;
	}
	return l;
}

static struct engine_stats *retry_stats(struct checker *c, const struct lc *l,
					const struct fsaio_record *r)
{
	return &c->st.engine[l ? l->engine : r->engine];
}

/* Writes to an S_SYNC inode (chattr +S, -o sync) stay synchronous: the
 * copy's own ->write_iter() syncs them in io_submit().  So do writes on a
 * file system without FOP_DSYNC_ASYNC (xfs, f2fs, btrfs), requests the
 * kernel said it does in place (fsaio_sync: over RLIMIT_NPROC, or no
 * memory) and, with fs.aio-buffered-async=1, requests that did not ask
 * (IOCB_FLAG_BUFFERED_ASYNC): the kernel must not finish them in a worker. */
static void stays_sync_went_async(struct checker *c, struct lc *l,
				  const struct fsaio_record *r)
{
	if (l && (r->flags & FSAIO_F_STAYS_SYNC))
		fail_note(&c->retry, l, "a request the kernel must keep synchronous (an S_SYNC "
			  "inode, a -o sync mount, a file system without FOP_DSYNC_ASYNC, "
			  "one it said it does in place%s) was made asynchronous (%s)",
			  c->cfg.libaio_opt_in ? ", or one without IOCB_FLAG_BUFFERED_ASYNC "
			  "with fs.aio-buffered-async=1" : "", event_type_name(r->type));
}

/* fs.aio-buffered-async=0 is the administrator's off switch: with it the
 * patched kernel must run every libaio request synchronously, as stock
 * does; a RETRY or PUNT (the asynchronous path taken) breaks it. */
static void switched_off_went_async(struct checker *c, struct lc *l,
				    const struct fsaio_record *r)
{
	if (l && l->engine == FSAIO_ENGINE_LIBAIO && c->cfg.libaio_async_off)
		fail_note(&c->retry, l, "went asynchronous (%s) with fs.aio-buffered-async=0: "
			  "the switch must keep every request synchronous",
			  event_type_name(r->type));
}

static void on_retry(struct checker *c, const struct fsaio_record *r)
{
	struct lc *seen, *l = retry_target(c, r, &seen);

	retry_stats(c, seen, r)->retries++;
	if (!l)
		return;
	stays_sync_went_async(c, l, r);
	switched_off_went_async(c, l, r);
	if (l->rstate == R_ARMED)
		fail_note(&c->retry, l, "retry while already armed (no wake)");
	else if (l->rstate == R_WOKEN)
		fail_note(&c->retry, l, "retry after wake without resume");
	l->rstate = R_ARMED;
	l->flags &= ~LC_PUNTED;
}

static void on_wake(struct checker *c, const struct fsaio_record *r)
{
	struct lc *seen, *l = retry_target(c, r, &seen);

	retry_stats(c, seen, r)->wakes++;
	if (!l)
		return;
	if (l->rstate == R_WOKEN)
		fail_note(&c->retry, l, "woken twice");
	else if (l->rstate != R_ARMED)
		fail_note(&c->retry, l, "wake without an armed retry");
	else if (r->flags & FSAIO_F_STILL_QUEUED)
		/* the callback takes the entry off the queue before any wake */
		fail_note(&c->retry, l, "retry queued while its wait entry was still "
			  "on a wait queue (a wake that did not happen: stale WOKEN bit?)");
	l->rstate = R_WOKEN;
}

/* IOPRIO_PRIO_VALUE(class, level) as ionice(1) names it: "idle", "be/4" */
static void ioprio_name(unsigned int prio, char *buf, size_t len)
{
	static const char *const class[] = { "none", "rt", "be", "idle" };
	unsigned int cls = prio >> 13 & 7;

	if (cls == 3)
		snprintf(buf, len, "idle");
	else if (cls < 3)
		snprintf(buf, len, "%s/%u", class[cls], prio & 7);
	else
		snprintf(buf, len, "0x%x", prio);
}

static void on_resume(struct checker *c, const struct fsaio_record *r)
{
	struct lc *seen, *l = retry_target(c, r, &seen);

	retry_stats(c, seen, r)->resumes++;
	/* resume_context is judged per event, attributed or not.  The worker
	 * must act as the submitter: its credentials decide what the I/O may
	 * touch (permissions, quota, setuid bits). */
	if (fsaio_resume_flags(r) & FSAIO_RESUME_OTHER_CREDS) {
		struct fail *f = &c->resume;

		if (seen)
			fail_note(f, seen, "resumed with other credentials than the submitter's "
				  "(fsuid %u, the submitter's %u, or other fsgid/capabilities)",
				  fsaio_resume_worker_fsuid(r), fsaio_resume_submitter_fsuid(r));
		else if (!f->count++)
			snprintf(f->first, sizeof(f->first), "req 0x%" PRIx64 " resumed with other "
				 "credentials than the submitter's (fsuid %u, the submitter's %u)",
				 (uint64_t)r->req, fsaio_resume_worker_fsuid(r),
				 fsaio_resume_submitter_fsuid(r));
	}
	/* ... and at the request's I/O priority: readahead and writeback it
	 * starts take the issuing task's (an ionice -c3 reader stays idle) */
	if (fsaio_resume_flags(r) & FSAIO_RESUME_OTHER_IOPRIO) {
		struct fail *f = &c->resume;
		char want[24], got[24];

		ioprio_name(fsaio_resume_request_ioprio(r), want, sizeof(want));
		ioprio_name(fsaio_resume_worker_ioprio(r), got, sizeof(got));
		if (seen)
			fail_note(f, seen, "resumed at I/O priority %s, the request's is %s",
				  got, want);
		else if (!f->count++)
			snprintf(f->first, sizeof(f->first), "req 0x%" PRIx64 " resumed at I/O "
				 "priority %s, the request's is %s", (uint64_t)r->req, got, want);
	}
	/* ... and the tracepoint names the thread that submitted the request
	 * (res; 0 where the tracer does not say: older logs, SystemTap): a
	 * worker acting for another thread of the process is charged,
	 * accounted and reported as that thread */
	if (seen && r->res && (uint32_t)r->res != seen->pid && seen->engine == FSAIO_ENGINE_LIBAIO)
		fail_note(&c->resume, seen, "resumed for submitter thread %d, the request was "
			  "submitted by thread %u", r->res, seen->pid);
	/* A worker that finds the submitter's address space gone
	 * (FSAIO_RESUME_MM_GONE: mm NULL) must not touch user memory at all:
	 * that is the right resumption if the submitter exited after the
	 * SUBMIT, which only the end can tell (rules.c, finish_resume). */
	if (!fsaio_resume_same_mm(r) && (fsaio_resume_flags(r) & FSAIO_RESUME_MM_GONE) && seen) {
		if (c->nr_mm_gone == c->cap_mm_gone) {
			size_t cap = c->cap_mm_gone ? 2 * c->cap_mm_gone : 64;
			struct mm_gone *n = realloc(c->mm_gone, cap * sizeof(*n));

			if (!n) {
				c->oom++;
				goto retry_state;
			}
			c->mm_gone = n;
			c->cap_mm_gone = cap;
		}
		c->mm_gone[c->nr_mm_gone++] = (struct mm_gone){ seen->tgid, seen->born, r->req };
	} else if (!fsaio_resume_same_mm(r)) {
		struct fail *f = &c->resume;

		if (seen)
			fail_note(f, seen, "resumed by pid %" PRIu64 " without the submitter's mm",
				  (uint64_t)r->arg0);
		else if (!f->count++)
			snprintf(f->first, sizeof(f->first),
				 "resumed by pid %" PRIu64 " without the submitter's mm: req 0x%"
				 PRIx64, (uint64_t)r->arg0, (uint64_t)r->req);
	}
retry_state:
	if (!l)
		return;
	if (l->rstate == R_WOKEN || (l->rstate == R_IDLE && (l->flags & LC_PUNTED))) {
		l->rstate = R_IDLE;
		l->flags &= ~LC_PUNTED;
		return;
	}
	fail_note(&c->retry, l, l->rstate == R_ARMED ? "resume without wake" :
		  "resume without an armed retry");
	l->rstate = R_IDLE;
}

static void on_punt(struct checker *c, const struct fsaio_record *r)
{
	struct lc *seen, *l = retry_target(c, r, &seen);

	retry_stats(c, seen, r)->punts++;
	if (!l)
		return;
	stays_sync_went_async(c, l, r);
	switched_off_went_async(c, l, r);
	/* A blocking worker takes over: whatever was armed is moot. */
	l->rstate = R_IDLE;
	l->flags |= LC_PUNTED;
	/* the patched kernel punts exactly the writes it makes durable in
	 * the worker (O_SYNC/O_DSYNC) */
	if (l->engine == FSAIO_ENGINE_LIBAIO &&
	    (l->opcode == 1 /* IOCB_CMD_PWRITE */ || l->opcode == 8 /* PWRITEV */)) {
		l->sync |= SYNC_PUNTED;
		/* the submitter's hand-off (in_worker 0, ret 0): pos is where
		 * the copy landed (an append: at i_size), arg1 its length */
		if (!r->arg2 && !r->res && r->arg1) {
			l->sync |= SYNC_LANDED;
			l->land_pos = (int64_t)r->arg0;
			l->land_len = r->arg1;
		}
	}
}

/* A number a fold promote took and lost its slot with: it fills its seq,
 * nothing happened. */
static void on_void(struct checker *c, const struct fsaio_record *r)
{
	(void)r;
	c->st.voids++;
}

/* The kworker that ran a request ended its work item with some of the
 * submitter's context still on: the next, unrelated work item of that
 * kworker runs as the submitter (credentials), in its address space, at its
 * I/O priority or charged to its io cgroup.  resume_context, per event. */
static void on_worker_kept(struct checker *c, const struct fsaio_record *r)
{
	struct fail *f = &c->resume;
	char what[160] = "", prio[24];
	uint64_t kept = r->arg0;

	if (kept & FSAIO_KEPT_CREDS)
		strcat(what, ", credentials");
	if (kept & FSAIO_KEPT_MM)
		strcat(what, ", mm");
	if (kept & FSAIO_KEPT_IOPRIO) {
		ioprio_name((unsigned int)r->arg1, prio, sizeof(prio));
		snprintf(what + strlen(what), sizeof(what) - strlen(what),
			 ", I/O priority %s", prio);
	}
	if (kept & FSAIO_KEPT_BLKCG)
		strcat(what, ", io cgroup");
	if (!what[0])
		return;
	if (!f->count++)
		snprintf(f->first, sizeof(f->first), "the aio worker (pid %u) ended its work "
			 "item for req 0x%" PRIx64 " still holding the submitter's %s",
			 r->pid, (uint64_t)r->req, what + 2);
}

/* A link cancelled with its failed chain: its CQE may be skipped. */
static void on_link_fail(struct checker *c, const struct fsaio_record *r)
{
	struct lc *l = r->req ? lc_find(c, r, false) : NULL;

	if (!l || !lc_inflight(l) || l->engine != FSAIO_ENGINE_IO_URING)
		return;
	lc_push(l, FSAIO_EV_LINK_FAIL, 0);
	l->cqe |= CQE_LINK_FAILED;
}

static void on_fsync(struct checker *c, const struct fsaio_record *r)
{
	struct lc *l = lc_find(c, r, false);

	if (!l || !(l->flags & LC_ACTIVE))
		return;
	lc_push(l, FSAIO_EV_FSYNC, r->res);
	/* the range made stable must hold what the write put there */
	if ((l->sync & SYNC_LANDED) &&
	    ((int64_t)r->arg0 > l->land_pos ||
	     (int64_t)r->arg1 < l->land_pos + (int64_t)l->land_len - 1))
		fail_note(&c->durab, l, "the final fsync covered [%lld, %lld] but the write "
			  "landed at [%lld, %lld]", (long long)(int64_t)r->arg0,
			  (long long)(int64_t)r->arg1, (long long)l->land_pos,
			  (long long)(l->land_pos + (int64_t)l->land_len - 1));
	/* O_SYNC promises the metadata too: fdatasync does not commit it */
	if (fsaio_fsync_wants_metadata(r) && fsaio_fsync_datasync(r))
		l->sync |= SYNC_WEAK;
	else
		l->sync |= SYNC_FSYNCED;
}
/* ---------- feeding ---------- */

static void malformed(struct checker *c, const char *why)
{
	if (!c->st.malformed++)
		snprintf(c->malformed_first, sizeof(c->malformed_first), "%s", why);
}

/* Mark seq in the seen-set; 1 if it was there already, -1 without memory
 * (the checker's out-of-memory count says so). */
/* The seen-set's bound: a billion seqs in 128 MiB, beyond any trace's
 * span (a corrupt seq far off is counted as out of memory, an ERROR,
 * instead of growing the set: at 1 << 27 words one bad record cost a GiB
 * and seconds of zeroing). */
#define SEQ_WORDS_MAX	(1ull << 24)

static int seq_mark(struct checker *c, uint64_t seq)
{
	uint64_t word, bit, *nb, shift;

	if (!c->seq_bits || seq < c->seq_base) {
		/* first seq, or one below the window: re-base 4096 seqs lower */
		uint64_t base = seq > 4096 ? (seq - 4096) & ~63ull : 0;

		shift = c->seq_bits ? (c->seq_base - base) / 64 : 0;
		if (c->seq_words + shift > SEQ_WORDS_MAX)
			return -1;	/* a corrupt seq far below the rest */
		nb = calloc(c->seq_words + shift + 64, sizeof(*nb));
		if (!nb)
			return -1;
		if (c->seq_bits)
			memcpy(nb + shift, c->seq_bits, c->seq_words * sizeof(*nb));
		free(c->seq_bits);
		c->seq_bits = nb;
		c->seq_words += shift + 64;
		c->seq_base = base;
	}
	word = (seq - c->seq_base) / 64;
	bit = 1ull << ((seq - c->seq_base) % 64);
	if (word >= c->seq_words) {
		uint64_t words = word + 1 > 2 * c->seq_words ? word + 1 : 2 * c->seq_words;

		/* a seq far ahead of the rest (a corrupt record) would make
		 * the set huge: count it as out of memory instead */
		if (words > SEQ_WORDS_MAX)
			return -1;
		nb = realloc(c->seq_bits, words * sizeof(*nb));
		if (!nb)
			return -1;
		memset(nb + c->seq_words, 0, (words - c->seq_words) * sizeof(*nb));
		c->seq_bits = nb;
		c->seq_words = words;
	}
	if (c->seq_bits[word] & bit)
		return 1;
	c->seq_bits[word] |= bit;
	return 0;
}

static void seq_account(struct checker *c, uint64_t seq)
{
	int m = seq_mark(c, seq);

	if (m < 0)
		c->oom++;
	if (m > 0) {
		c->seq_dups++;	/* not counted as seen: it fills no gap */
		return;
	}
	if (!c->seq_seen) {
		c->seq_min = c->seq_max = seq;
	} else {
		if (seq < c->seq_min)
			c->seq_min = seq;
		if (seq > c->seq_max)
			c->seq_max = seq;
		if (seq <= c->seq_last)
			c->reordered++;
	}
	c->seq_last = seq;
	c->seq_seen++;
}

/* a + b, or UINT64_MAX where it would wrap: drop counts of a corrupt
 * TRACE_END that add up past 2^64 must not read as 0 lost. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Lost records so far: ring buffer failures plus holes in seq. */
static uint64_t lost_now(const struct checker *c)
{
	uint64_t span = c->seq_seen ? c->seq_max - c->seq_min + 1 : 0;
	uint64_t lost = span > c->seq_seen ? span - c->seq_seen : 0;
	unsigned i;

	for (i = 0; i < FSAIO_DROP__COUNT; i++)
		lost = add_sat(lost, c->end_drops[i]);
	return lost;
}

static void on_proc_exit(struct checker *c, const struct fsaio_record *r)
{
	mark_set(c, r->tgid, 0);
}

static void on_trace_end(struct checker *c, const struct fsaio_record *r)
{
	unsigned int i;

	for (i = 0; i < FSAIO_DROP__COUNT; i++)
		c->end_drops[i] = add_sat(c->end_drops[i], fsaio_end_drops(r, i));
	if (r->arg2 > c->st.ringbuf_bytes)
		c->st.ringbuf_bytes = r->arg2;
	if (r->res > 0)
		c->st.ringbuf_grows += r->res;
	c->trace_ends++;
}

/*
 * The reader of each record type.  A type without one is retired: no BPF
 * program sends it (the "sent" column of FSAIO_EVENT_TYPES) and logs that
 * hold it are read past.  tests/unit/test_records.c holds the two to each
 * other: every type a program sends has a reader here.
 */
typedef void (*record_handler)(struct checker *c, const struct fsaio_record *r);
static const record_handler handlers[FSAIO_EV__MAX] = {
	[FSAIO_EV_SUBMIT]	= on_submit,
	[FSAIO_EV_SUBMIT_DONE]	= on_submit_done,
	[FSAIO_EV_RETRY]	= on_retry,
	[FSAIO_EV_WAKE]		= on_wake,
	[FSAIO_EV_RESUME]	= on_resume,
	[FSAIO_EV_PUNT]		= on_punt,
	[FSAIO_EV_COMPLETE]	= on_complete,
	[FSAIO_EV_REAP]		= on_reap,
	[FSAIO_EV_SLEEP]	= on_sleep,
	[FSAIO_EV_PROC_EXIT]	= on_proc_exit,
	[FSAIO_EV_TRACE_END]	= on_trace_end,
	[FSAIO_EV_IO_DESTROY]	= on_io_destroy,
	[FSAIO_EV_FSYNC]	= on_fsync,
	[FSAIO_EV_LINK_FAIL]	= on_link_fail,
	[FSAIO_EV_WORKER_KEPT]	= on_worker_kept,
	[FSAIO_EV_VOID]		= on_void,
};

bool checker_reads(unsigned int type)
{
	return type < FSAIO_EV__MAX && handlers[type];
}

int checker_feed(struct checker *c, const struct fsaio_record *rec)
{
	struct fsaio_record r;
	char err[160];

	if (fsaio_decode(rec, sizeof(*rec), &r, err, sizeof(err))) {
		malformed(c, err);
		return -EINVAL;
	}
	if (!r.seq && r.type != FSAIO_EV_TRACE_END && !(r.flags & FSAIO_F_INFERRED)) {
		snprintf(err, sizeof(err), "%s record without seq", event_type_name(r.type));
		malformed(c, err);
		return -EINVAL;
	}
	if ((r.type == FSAIO_EV_SUBMIT || r.type == FSAIO_EV_SUBMIT_DONE ||
	     r.type == FSAIO_EV_COMPLETE || r.type == FSAIO_EV_REAP) &&
	    r.engine == FSAIO_ENGINE_NONE) {
		snprintf(err, sizeof(err), "%s record without engine (seq %llu)",
			 event_type_name(r.type), (unsigned long long)r.seq);
		malformed(c, err);
		return -EINVAL;
	}
	c->st.records++;
	if (r.seq)
		seq_account(c, r.seq);

	if (checker_reads(r.type))
		handlers[r.type](c, &r);
	c->st.lost = lost_now(c);
	return 0;
}

void checker_note_malformed(struct checker *c, const char *why)
{
	malformed(c, why && why[0] ? why : "malformed record");
}

/* Open libaio lifecycles whose context or process is gone: abandoned;
 * open io_uring ones that may post no CQE: ended without one. */
static void settle_abandoned(struct checker *c)
{
	uint32_t i;

	for (i = 0; i < c->nr_lcs; i++) {
		struct lc *l = &c->lcs[i];
		unsigned why = abandon_reason(c, l);

		if (why)
			lc_abandon(c, l, why);
		else if (lc_may_skip_cqe(l))
			lc_end_without_cqe(c, l);
	}
}

void checker_finish(struct checker *c)
{
	if (c->finished)
		return;
	c->finished = true;
	c->st.lost = lost_now(c);
	memcpy(c->st.drops, c->end_drops, sizeof(c->st.drops));
	c->st.oom = c->oom;
	settle_abandoned(c);
	rules_judge(c);
}

/* ---------- lifetime ---------- */

struct checker *checker_new(const struct checker_config *cfg)
{
	struct checker *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (cfg)
		c->cfg = *cfg;
	if (table_init(&c->exact_tab, 1024) || table_init(&c->first_tab, 1024) ||
	    table_init(&c->list_tab[LIST_LIVE], 256) || table_init(&c->list_tab[LIST_OVF], 256) ||
	    table_init(&c->thr_tab, 64))
		goto err;
	c->marks_mask = 15;
	c->marks = calloc(16, sizeof(*c->marks));
	if (!c->marks)
		goto err;
	rules_init(c);
	return c;
err:
	checker_free(c);
	return NULL;
}

void checker_free(struct checker *c)
{
	uint32_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_thrs; i++)
		free(c->thrs[i].lcs);
	free(c->thrs);
	free(c->thr_tab.slot);
	free(c->seq_bits);
	free(c->lcs);
	free(c->exact_tab.slot);
	free(c->first_tab.slot);
	for (i = 0; i < LIST__COUNT; i++) {
		free(c->list_tab[i].slot);
		free(c->link[i]);
	}
	free(c->marks);
	free(c->mm_gone);
	free(c->stacks);
	free(c->stack_slot);
	free(c);
}

const struct invariant_result *checker_result(const struct checker *c,
					      enum invariant_id id)
{
	static const struct invariant_result bad = {
		.name = "invalid", .verdict = VERDICT_ERROR, .detail = "no such invariant",
	};

	return (unsigned)id < INV__COUNT ? &c->res[id] : &bad;
}

const struct checker_stats *checker_stats(const struct checker *c)
{
	return &c->st;
}
