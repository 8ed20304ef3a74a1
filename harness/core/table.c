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
