// SPDX-License-Identifier: GPL-2.0
/*
 * SLEEP events: the wait-site cells of the statistics, the sleeps inside
 * a submit syscall that nonblocking_submit_* judges, and, with
 * cfg.keep_stacks, the distinct sleep stacks (checker_top_stacks).  A
 * record is one sleep; the sums the BPF side kept for one stack and
 * context (checker_add_sleeps) take the same path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bpf/fsaio_sleeps.h"
#include "core/checker_int.h"
#include "core/names.h"

_Static_assert(FSAIO_SLEEP_HIST == HIST_BUCKETS, "the kernel's sleep histogram is the checker's");
_Static_assert(FSAIO_SLEEP_EXAMPLES >= INV_MAX_STACKS,
	       "the first sleeps the checker prints of a key travel as records");

/* Sleeps alike (one SLEEP record, or the sums the BPF side kept for one
 * stack and context: bpf/fsaio_sleeps.h), as one path takes both. */
struct sleeps {
	uint64_t count;
	uint64_t total_ns;
	uint64_t max_ns;	/* of one sleep: its duration */
	const uint64_t *hist;	/* NULL: all in max_ns's bucket */
};

static void sleep_note(struct sleep_sum *s, const struct fsaio_record *r,
		       const struct sleeps *n)
{
	struct inv_stack *k;

	if (!s->count)
		snprintf(s->first, sizeof(s->first), "pid %u (%.16s) slept in %s for %.3f ms",
			 r->pid, r->comm, wait_site_name(r->site), n->max_ns / 1e6);
	s->count += n->count;
	s->ns += n->total_ns;
	s->by_site[r->site] += n->count;
	if (s->nr_stacks == INV_MAX_STACKS)
		return;
	k = &s->stacks[s->nr_stacks++];
	k->site = r->site;
	k->ctx = r->ctx;
	k->pid = r->pid;
	k->ns = n->max_ns;
	k->nr = r->nr_stack < FSAIO_STACK_DEPTH ? r->nr_stack : FSAIO_STACK_DEPTH;
	memcpy(k->pc, r->stack, k->nr * sizeof(k->pc[0]));
}

static uint64_t stack_hash(const struct fsaio_record *r, uint32_t nr)
{
	uint64_t h = r->site * 31 + r->ctx;
	uint32_t i;

	for (i = 0; i < nr; i++)
		h = hash64(h ^ r->stack[i]) * 0x9e3779b97f4a7c15ull + i;
	return h;
}

static void stack_note(struct checker *c, const struct fsaio_record *r,
		       const struct sleeps *n)
{
	uint32_t nr = r->nr_stack < FSAIO_STACK_DEPTH ? r->nr_stack : FSAIO_STACK_DEPTH;
	const uint32_t mask = 2 * STACKS_MAX - 1;
	struct stack_count *s;
	uint32_t h, v;

	if (!c->stack_slot) {
		c->stack_slot = calloc(mask + 1, sizeof(*c->stack_slot));
		c->stacks = calloc(STACKS_MAX, sizeof(*c->stacks));
		if (!c->stack_slot || !c->stacks) {
			free(c->stack_slot);
			free(c->stacks);
			c->stack_slot = NULL;
			c->stacks = NULL;
			c->stacks_untracked++;
			return;
		}
	}
	for (h = stack_hash(r, nr) & mask; (v = c->stack_slot[h]); h = (h + 1) & mask) {
		s = &c->stacks[v - 1];
		if (s->k.site == r->site && s->k.ctx == r->ctx && s->k.nr == nr &&
		    !memcmp(s->k.pc, r->stack, nr * sizeof(s->k.pc[0])))
			goto found;
	}
	if (c->nr_stacks == STACKS_MAX) {
		c->stacks_untracked++;
		return;
	}
	s = &c->stacks[c->nr_stacks++];
	c->stack_slot[h] = c->nr_stacks;
	s->k.site = r->site;
	s->k.ctx = r->ctx;
	s->k.pid = r->pid;
	s->k.ns = n->max_ns;
	s->k.nr = nr;
	memcpy(s->k.pc, r->stack, nr * sizeof(s->k.pc[0]));
found:
	s->count += n->count;
	s->total_ns += n->total_ns;
}

static int by_count(const void *a, const void *b)
{
	const struct stack_count *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

int checker_top_stacks(const struct checker *c, enum fsaio_wait_site site,
		       struct stack_count *out, int n)
{
	struct stack_count *all;
	uint32_t i, m = 0;

	if (!c->nr_stacks || n <= 0)
		return 0;
	all = malloc(c->nr_stacks * sizeof(*all));
	if (!all)
		return 0;
	for (i = 0; i < c->nr_stacks; i++)
		if (c->stacks[i].k.site == site)
			all[m++] = c->stacks[i];
	qsort(all, m, sizeof(*all), by_count);
	if ((int)m > n)
		m = n;
	memcpy(out, all, m * sizeof(*out));
	free(all);
	return m;
}

uint64_t checker_stacks_untracked(const struct checker *c)
{
	return c->stacks_untracked;
}

/*
 * Whether a sleep inside submit is one the design makes asynchronous.  The
 * copy of a buffered write stays in io_submit() on the patched kernel, as
 * on stock (in submission order, under the inode lock): libaio's copy
 * sleeps are other sleeps.  io_uring's inline attempt runs with
 * IOCB_NOWAIT, so for io_uring a sleep in the copy is a blocked submit.
 */
static bool blocks_submit(const struct fsaio_record *r, enum fsaio_engine e)
{
	unsigned site = r->site;

	/* a write that stays synchronous (S_SYNC inode, a file system
	 * without FOP_DSYNC_ASYNC) is synchronous by design (its own
	 * RETRY or PUNT is the failure: checker.c, on_retry/on_punt) */
	if (e == FSAIO_ENGINE_LIBAIO && (r->flags & FSAIO_F_STAYS_SYNC))
		return false;
	if (site == FSAIO_SITE_COPY)
		return e == FSAIO_ENGINE_IO_URING;
	return fsaio_site_is_fsaio_wait(site);
}

static void sleeps_account(struct checker *c, const struct fsaio_record *r,
			   const struct sleeps *n)
{
	struct wait_cell *w = &c->st.waits[r->site][r->ctx];
	enum fsaio_engine e;
	int i;

	w->count += n->count;
	w->total_ns += n->total_ns;
	if (n->max_ns > w->max_ns)
		w->max_ns = n->max_ns;
	if (n->hist)
		for (i = 0; i < HIST_BUCKETS; i++)
			w->hist[i] += n->hist[i];
	else
		w->hist[fsaio_sleep_bucket(n->max_ns)] += n->count;
	if (c->cfg.keep_stacks)
		stack_note(c, r, n);

	if (r->ctx == FSAIO_CTX_SUBMIT_LIBAIO)
		e = FSAIO_ENGINE_LIBAIO;
	else if (r->ctx == FSAIO_CTX_SUBMIT_IO_URING)
		e = FSAIO_ENGINE_IO_URING;
	else
		return;
	if (!blocks_submit(r, e)) {
		if (r->flags & FSAIO_F_STAYS_SYNC)
			c->st.engine[e].stays_sync_sleeps += n->count;
		c->st.engine[e].other_sleeps_in_submit += n->count;
		c->st.engine[e].other_sleep_ns += n->total_ns;
		sleep_note(&c->other[e], r, n);
		return;
	}
	c->st.engine[e].blocked_in_submit += n->count;
	c->st.engine[e].blocked_ns += n->total_ns;
	sleep_note(&c->blocked[e], r, n);
}

void on_sleep(struct checker *c, const struct fsaio_record *r)
{
	struct sleeps one = { 1, r->arg0, r->arg0, NULL };

	sleeps_account(c, r, &one);
}

void checker_add_sleeps(struct checker *c, const struct fsaio_record *like, uint64_t count,
			uint64_t total_ns, uint64_t max_ns, const uint64_t hist[HIST_BUCKETS])
{
	struct sleeps n = { count, total_ns, max_ns, hist };

	if (!count)
		return;
	if (like->type != FSAIO_EV_SLEEP || like->site >= FSAIO_SITE__COUNT ||
	    like->ctx >= FSAIO_CTX__COUNT) {
		checker_note_malformed(c, "sleeps counted in the kernel: not a sleep, or of an "
				       "unknown wait site or context");
		return;
	}
	c->st.aggregated += count;
	sleeps_account(c, like, &n);
}
