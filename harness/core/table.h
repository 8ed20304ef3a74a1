/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checker's index tables: open addressing from a 64-bit key to an
 * index into an array the caller owns (its lifecycles, its threads).  The
 * caller probes t->slot itself, from hash64(key) & t->mask, so the key
 * comparison and the choice among equal keys stay with it.
 */
#ifndef FSAIO_CORE_TABLE_H
#define FSAIO_CORE_TABLE_H

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

/* Open addressing over uint32 slots holding index + 1 (0 = empty).  Never
 * deleted from, so no tombstones; grown at half load. */
struct table {
	uint32_t *slot;
	uint32_t mask;		/* capacity - 1, capacity a power of two */
	uint32_t used;
};

int table_init(struct table *t, uint32_t cap);
/* Rehash into twice the space; key_of(ctx, i) gives the key of index i. */
int table_grow(struct table *t, uint64_t (*key_of)(const void *ctx, uint32_t i),
	       const void *ctx);

#endif
