// SPDX-License-Identifier: GPL-2.0
/*
 * The lifecycle table: what a lifecycle can take next, and finding,
 * creating and indexing lifecycles (exact key, requests in flight per
 * req, the first per req, io_uring requests per ring and user_data for
 * overflowed CQEs), each lookup constant-time however many lifecycles
 * share a req.  The event handlers that move lifecycles are checker.c's.
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

/* ---------- lifecycles ---------- */

uint64_t thr_key(const void *ctx, uint32_t i)
{
	return ((const struct checker *)ctx)->thrs[i].pid;
}

bool lc_inflight(const struct lc *l)
{
	return (l->flags & LC_ACTIVE) && !(l->flags & LC_DONE);
}

/* Is l a lifecycle that can take this event next?  Used to pick among
 * lifecycles that share a req (fork()ed processes with equal addresses). */
bool lc_wants(const struct lc *l, unsigned type)
{
	if (!lc_inflight(l))
		return false;
	switch (type) {
	case FSAIO_EV_COMPLETE:
		return !(l->flags & LC_KCOMPLETE);
	case FSAIO_EV_WAKE:
		return l->rstate == R_ARMED;
	case FSAIO_EV_RESUME:
		return l->rstate == R_WOKEN || (l->flags & LC_PUNTED);
	default:
		return true;
	}
}

/* io_uring_complete cflags, carried in COMPLETE.arg0 by the tracer */

/* A zero-copy send: its own CQE (F_MORE when a notification follows) is
 * the last of its req struct; the notification CQE (F_NOTIF) comes from a
 * request the kernel allocated itself (io_alloc_notif), never submitted,
 * on a req struct that may be any finished or recycled one. */
bool lc_zc_send(const struct lc *l)
{
	return l->engine == FSAIO_ENGINE_IO_URING && fsaio_uring_zc_send(l->opcode);
}

/* ---------- finding a lifecycle ---------- */

/*
 * Long traces hold many lifecycles of one req (forked workers submitting
 * the same iocb address, one program reusing its iocb) or of one ring and
 * user_data (liburing's default user_data is 0), so every event finds its
 * lifecycle through an index, never a walk over the others:
 *   exact_tab: (engine, tgid, req), for SUBMIT and REAP, and the first
 *     choice of the events that may run outside the submitter;
 *   LIST_LIVE: the lifecycles in flight of (engine, req), for those
 *     events when the exact one cannot take them (lc_find);
 *   first_tab: the first lifecycle of (engine, req), their last resort;
 *   LIST_OVF: the io_uring lifecycles of (ring, user_data) in flight,
 *     zero-copy sends apart (OVF_ZC), and those an overflowed CQE ended
 *     (OVF_ENDED), for overflowed CQEs, which name no req (on_overflow).
 * Lifecycles are never freed, so creation order is index order; the lists
 * keep it (table.h), and each lookup takes the first in that order that
 * fits, as a walk over all lifecycles in creation order would.  The lists
 * hold live requests only, and the ones ended by an overflowed CQE until
 * their req is submitted again or the CQE moves on (ovf_move).
 */


static uint64_t key_hash(struct key x)
{
	return x.a ^ ((x.b + 1) * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)x.k << 56);
}

static struct key exact_key(const struct checker *c, uint32_t i)
{
	const struct lc *l = &c->lcs[i];

	return (struct key){ l->req, l->tgid, l->engine };
}

static struct key req_key(const struct checker *c, uint32_t i)
{
	const struct lc *l = &c->lcs[i];

	return (struct key){ l->req, 0, l->engine };
}

static struct key ovf_key(const struct checker *c, uint32_t i)
{
	const struct lc *l = &c->lcs[i];

	return (struct key){ l->ring, l->user_data, c->link[LIST_OVF][i].in };
}

/* the keys hashed, for table_grow() and table_del() */
static uint64_t exact_hash(const void *c, uint32_t i)
{
	return key_hash(exact_key(c, i));
}

static uint64_t req_hash(const void *c, uint32_t i)
{
	return key_hash(req_key(c, i));
}

static uint64_t ovf_hash(const void *c, uint32_t i)
{
	return key_hash(ovf_key(c, i));
}

typedef struct key (*key_fn)(const struct checker *c, uint32_t i);
static const key_fn list_key[LIST__COUNT] = { req_key, ovf_key };
static uint64_t (*const list_hash[LIST__COUNT])(const void *, uint32_t) = {
	req_hash, ovf_hash,
};

/* The slot of t that holds key k, or the empty one where it would go. */
static uint32_t probe(const struct checker *c, const struct table *t, key_fn key_of,
		      struct key k)
{
	uint32_t h, v;

	for (h = hash64(key_hash(k)) & t->mask; (v = t->slot[h]); h = (h + 1) & t->mask) {
		struct key x = key_of(c, v - 1);

		if (x.a == k.a && x.b == k.b && x.k == k.k)
			break;
	}
	return h;
}

static struct lc *lookup(struct checker *c, const struct table *t, key_fn key_of,
			 struct key k)
{
	uint32_t v = t->slot[probe(c, t, key_of, k)];

	return v ? &c->lcs[v - 1] : NULL;
}

/* The member after l of the list that starts at head; NULL after its last. */
struct lc *list_next(struct checker *c, unsigned list, const struct lc *l,
			    const struct lc *head)
{
	struct lc *n = &c->lcs[c->link[list][l - c->lcs].next];

	return n == head ? NULL : n;
}

/* The first of the list with key k other than `not`, or NULL. */
struct lc *list_first(struct checker *c, unsigned list, struct key k,
			     const struct lc *not)
{
	struct lc *head = lookup(c, &c->list_tab[list], list_key[list], k);

	return head && head == not ? list_next(c, list, head, head) : head;
}

/* The older of two lifecycles, either may be NULL. */
struct lc *lc_older(struct lc *a, struct lc *b)
{
	return !a || (b && b < a) ? b : a;
}

/* Lifecycle i joins the list `list` under `in` (its OVF_* for LIST_OVF). */
static void list_join(struct checker *c, unsigned list, uint32_t i, uint8_t in)
{
	struct table *t = &c->list_tab[list];

	if (table_full(t) && table_grow(t, list_hash[list], c)) {
		c->oom++;
		return;
	}
	c->link[list][i].in = in;
	tlist_add(t, probe(c, t, list_key[list], list_key[list](c, i)), c->link[list], i);
}

static void list_leave(struct checker *c, unsigned list, uint32_t i)
{
	struct table *t = &c->list_tab[list];

	tlist_del(t, probe(c, t, list_key[list], list_key[list](c, i)), c->link[list], i,
		  list_hash[list], c);
	c->link[list][i].in = 0;
}

/* Which list of its ring and user_data an io_uring lifecycle is in. */
static uint8_t ovf_list(const struct lc *l)
{
	if (l->engine != FSAIO_ENGINE_IO_URING || !(l->flags & LC_ACTIVE))
		return OVF_NONE;
	if (lc_inflight(l))	/* never CQE_BY_OVERFLOW: that one is done */
		return lc_zc_send(l) ? OVF_ZC : OVF_INFLIGHT;
	if ((l->cqe & CQE_BY_OVERFLOW) && !(l->flags & LC_ABANDONED))
		return OVF_ENDED;
	return OVF_NONE;
}

/* Put l in the lists its state says: after every change of its flags or
 * its cqe, and once a SUBMIT has set its keys. */
void lc_relist(struct checker *c, struct lc *l)
{
	uint32_t i = l - c->lcs;
	uint8_t in[LIST__COUNT] = { lc_inflight(l), ovf_list(l) };
	unsigned list;

	for (list = 0; list < LIST__COUNT; list++) {
		if (c->link[list][i].in == in[list])
			continue;
		if (c->link[list][i].in)
			list_leave(c, list, i);
		if (in[list])
			list_join(c, list, i, in[list]);
	}
}

/* Take l out of every list: before a SUBMIT changes its keys. */
void lc_unlist(struct checker *c, struct lc *l)
{
	uint32_t i = l - c->lcs;
	unsigned list;

	for (list = 0; list < LIST__COUNT; list++)
		if (c->link[list][i].in)
			list_leave(c, list, i);
}

/*
 * Find the lifecycle of a record.  exact: (engine, tgid, req) must match.
 * Otherwise (events that may run outside the submitter) the order is: the
 * exact match if it can take the event, the first with the same req and
 * engine (any engine if the record has none) that can, the exact match
 * anyway, the first in flight, the first of all.  All that can take an
 * event are in flight.
 */
struct lc *lc_find(struct checker *c, const struct fsaio_record *r, bool exact)
{
	struct lc *match = NULL, *wants = NULL, *inflight = NULL, *any = NULL;
	unsigned e;

	if (r->engine != FSAIO_ENGINE_NONE) {
		match = lookup(c, &c->exact_tab, exact_key,
			       (struct key){ r->req, r->tgid, r->engine });
		if (exact || (match && lc_wants(match, r->type)))
			return match;
	}
	for (e = FSAIO_ENGINE_NONE + 1; e < FSAIO_ENGINE__COUNT; e++) {
		struct key k = { r->req, 0, e };
		struct lc *head, *l, *w = NULL, *f = NULL;

		if (r->engine != FSAIO_ENGINE_NONE && r->engine != e)
			continue;
		any = lc_older(any, lookup(c, &c->first_tab, req_key, k));
		head = lookup(c, &c->list_tab[LIST_LIVE], req_key, k);
		for (l = head; l; l = list_next(c, LIST_LIVE, l, head)) {
			if (l == match)
				continue;
			if (!f)
				f = l;
			if (lc_wants(l, r->type)) {
				w = l;
				break;
			}
		}
		wants = lc_older(wants, w);
		inflight = lc_older(inflight, f);
	}
	if (wants)
		return wants;
	if (match)
		return match;
	return inflight ? inflight : any;
}

struct lc *lc_create(struct checker *c, const struct fsaio_record *r)
{
	struct key k = { r->req, 0, r->engine };
	bool first = !lookup(c, &c->first_tab, req_key, k);
	struct lc *l;
	uint32_t i, list;

	if ((table_full(&c->exact_tab) && table_grow(&c->exact_tab, exact_hash, c)) ||
	    (first && table_full(&c->first_tab) && table_grow(&c->first_tab, req_hash, c))) {
		c->oom++;
		return NULL;
	}
	if (c->nr_lcs == c->cap_lcs) {
		uint32_t cap = c->cap_lcs ? c->cap_lcs * 2 : 1024;
		struct lc *n = realloc(c->lcs, (size_t)cap * sizeof(*n));

		if (n)
			c->lcs = n;
		for (list = 0; n && list < LIST__COUNT; list++) {
			struct tlink *lk = realloc(c->link[list], (size_t)cap * sizeof(*lk));

			if (!lk)
				n = NULL;
			else
				c->link[list] = lk;
		}
		if (!n) {
			c->oom++;
			return NULL;
		}
		c->cap_lcs = cap;
	}
	i = c->nr_lcs++;
	l = &c->lcs[i];
	memset(l, 0, sizeof(*l));
	l->req = r->req;
	l->tgid = r->tgid;
	l->engine = r->engine;
	for (list = 0; list < LIST__COUNT; list++)
		c->link[list][i].in = 0;
	c->exact_tab.slot[probe(c, &c->exact_tab, exact_key, exact_key(c, i))] = i + 1;
	c->exact_tab.used++;
	if (first) {
		c->first_tab.slot[probe(c, &c->first_tab, req_key, k)] = i + 1;
		c->first_tab.used++;
	}
	return l;
}

void lc_push(struct lc *l, unsigned type, int32_t val)
{
	l->ev[l->head] = type;
	l->val[l->head] = val;
	l->head = (l->head + 1) % HIST_LEN;
	if (l->nev < UINT16_MAX)
		l->nev++;
}

/* "req 0x1000 (libaio tgid 42): submit, reap(4096), reap(4096)" */
void lc_format(const struct lc *l, char *buf, size_t len)
{
	unsigned n = l->nev < HIST_LEN ? l->nev : HIST_LEN;
	unsigned i, at;
	size_t o;

	o = snprintf(buf, len, "req 0x%" PRIx64 " (%s tgid %u):", l->req,
		     engine_name(l->engine), l->tgid);
	if (l->nev > HIST_LEN && o < len)
		o += snprintf(buf + o, len - o, " ...%u earlier,", l->nev - HIST_LEN);
	at = (l->head + HIST_LEN - n) % HIST_LEN;
	for (i = 0; i < n && o < len; i++, at = (at + 1) % HIST_LEN) {
		unsigned t = l->ev[at];
		const char *sep = i ? ", " : " ";

		if (t == FSAIO_EV_COMPLETE || t == FSAIO_EV_REAP || t == FSAIO_EV_RETRY)
			o += snprintf(buf + o, len - o, "%s%s(%d)", sep,
				      event_type_name(t), l->val[at]);
		else if (t == FSAIO_EV_RESUME)
			o += snprintf(buf + o, len - o, "%s%s(mm=%d)", sep,
				      event_type_name(t), l->val[at]);
		else
			o += snprintf(buf + o, len - o, "%s%s", sep,
				      t == EV_REJECTED ? "rejected" : t == EV_NO_CQE ?
				      "ended without a CQE" : event_type_name(t));
	}
}

/* Count a violation; keep the words and the event sequence of the first. */
void fail_note(struct fail *f, const struct lc *l, const char *fmt, ...)
{
	va_list ap;
	size_t o;

	if (f->count++)
		return;
	va_start(ap, fmt);
	o = vsnprintf(f->first, sizeof(f->first), fmt, ap);
	va_end(ap);
	if (l && o + 2 < sizeof(f->first)) {
		memcpy(f->first + o, ": ", 3);
		lc_format(l, f->first + o + 2, sizeof(f->first) - o - 2);
	}
}

/* A fresh lifecycle in an existing or new slot. */
void lc_reset(struct checker *c, struct lc *l, const struct fsaio_record *r)
{
	uint64_t req = l->req;
	uint8_t engine = l->engine;

	memset(l, 0, sizeof(*l));
	l->req = req;
	l->engine = engine;
	l->tgid = r->tgid;
	l->pid = r->pid;
	l->born = c->st.records;
	l->flags = LC_ACTIVE;
}

