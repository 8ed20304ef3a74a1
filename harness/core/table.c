// SPDX-License-Identifier: GPL-2.0
/* The checker's index tables (table.h). */
#include <errno.h>
#include <stdlib.h>
#include "core/table.h"

int table_init(struct table *t, uint32_t cap)
{
	t->slot = calloc(cap, sizeof(*t->slot));
	t->mask = cap - 1;
	t->used = 0;
	return t->slot ? 0 : -ENOMEM;
}

int table_grow(struct table *t, uint64_t (*key_of)(const void *ctx, uint32_t i),
	       const void *ctx)
{
	struct table n;
	uint32_t i;

	if (table_init(&n, (t->mask + 1) * 2))
		return -ENOMEM;
	for (i = 0; i <= t->mask; i++) {
		uint32_t v = t->slot[i], h;

		if (!v)
			continue;
		for (h = hash64(key_of(ctx, v - 1)) & n.mask; n.slot[h]; h = (h + 1) & n.mask)
			;
		n.slot[h] = v;
	}
	n.used = t->used;
	free(t->slot);
	*t = n;
	return 0;
}

void table_del(struct table *t, uint32_t h, uint64_t (*key_of)(const void *ctx, uint32_t i),
	       const void *ctx)
{
	uint32_t j;

	/* Every entry of the cluster after the hole must stay reachable from
	 * its home: one whose home is not in (h, j] moves into the hole. */
	for (j = (h + 1) & t->mask; t->slot[j]; j = (j + 1) & t->mask) {
		uint32_t home = hash64(key_of(ctx, t->slot[j] - 1)) & t->mask;

		if (((j - home) & t->mask) < ((j - h) & t->mask))
			continue;
		t->slot[h] = t->slot[j];
		h = j;
	}
	t->slot[h] = 0;
	t->used--;
}

void tlist_add(struct table *t, uint32_t h, struct tlink *lk, uint32_t i)
{
	uint32_t head, p;

	if (!t->slot[h]) {
		lk[i].next = lk[i].prev = i;
		t->slot[h] = i + 1;
		t->used++;
		return;
	}
	head = t->slot[h] - 1;
	for (p = lk[head].prev; p > i && p != head; p = lk[p].prev)
		;
	if (p > i) {		/* below them all: the new head, after the tail */
		p = lk[head].prev;
		t->slot[h] = i + 1;
	}
	lk[i].prev = p;
	lk[i].next = lk[p].next;
	lk[lk[p].next].prev = i;
	lk[p].next = i;
}

void tlist_del(struct table *t, uint32_t h, struct tlink *lk, uint32_t i,
	       uint64_t (*key_of)(const void *ctx, uint32_t i), const void *ctx)
{
	if (lk[i].next == i) {
		table_del(t, h, key_of, ctx);
		return;
	}
	lk[lk[i].prev].next = lk[i].next;
	lk[lk[i].next].prev = lk[i].prev;
	if (t->slot[h] == i + 1)
		t->slot[h] = lk[i].next + 1;
}
