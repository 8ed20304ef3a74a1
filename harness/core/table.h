/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checker's index tables: open addressing from a 64-bit key to an
 * index into an array the caller owns (its lifecycles, its threads).  The
 * caller probes t->slot itself, from hash64(key) & t->mask, so the key
 * comparison and the choice among equal keys stay with it.
 */
#ifndef FSAIO_CORE_TABLE_H
#define FSAIO_CORE_TABLE_H

#include <stdbool.h>
#include <stdint.h>

static inline uint32_t hash64(uint64_t x)
{
	/* splitmix64 finalizer: pointers differ only in a few middle bits */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (uint32_t)x;
}

/* Open addressing over uint32 slots holding index + 1 (0 = empty), linear
 * probing; grown at half load.  table_del() moves the rest of the cluster
 * back, so there are no tombstones. */
struct table {
	uint32_t *slot;
	uint32_t mask;		/* capacity - 1, capacity a power of two */
	uint32_t used;
};

int table_init(struct table *t, uint32_t cap);

/* One more entry would pass half load: grow before probing for its slot. */
static inline bool table_full(const struct table *t)
{
	return (t->used + 1) * 2 > t->mask + 1;
}

/* Rehash into twice the space; key_of(ctx, i) gives the key of index i. */
int table_grow(struct table *t, uint64_t (*key_of)(const void *ctx, uint32_t i),
	       const void *ctx);
/* Empty slot h; key_of as for table_grow, for the entries after it. */
void table_del(struct table *t, uint32_t h, uint64_t (*key_of)(const void *ctx, uint32_t i),
	       const void *ctx);

/*
 * Lists of the caller's indices that share a key, one table entry each:
 * the slot holds the list's head + 1.  A list is circular and doubly linked
 * through the caller's array of struct tlink (one per index), in ascending
 * index order, so its head is the lowest index: the oldest, which the
 * lookups prefer.  Adding the highest index is O(1); adding a lower one
 * walks back from the tail past the members above it.
 */
struct tlink {
	uint32_t next, prev;
	uint8_t in;		/* the caller's: 0 when i is in no list */
};

/* Add i to the list at slot h (an empty slot: a new list). */
void tlist_add(struct table *t, uint32_t h, struct tlink *lk, uint32_t i);
/* Take i out of the list at slot h; its last member empties the slot. */
void tlist_del(struct table *t, uint32_t h, struct tlink *lk, uint32_t i,
	       uint64_t (*key_of)(const void *ctx, uint32_t i), const void *ctx);

#endif
