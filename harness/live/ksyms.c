// SPDX-License-Identifier: GPL-2.0
/* /proc/kallsyms, sorted by address, looked up by binary search. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "live/ksyms.h"

#define KSYM_MAX_FUNC	(1u << 20)

struct ksym {
	uint64_t addr;
	uint32_t name;		/* offset into ksyms.names */
};

struct ksyms {
	struct ksym *syms;
	size_t nr, cap;
	char *names;
	size_t names_len, names_cap;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int ksyms_add(struct ksyms *k, uint64_t addr, const char *name)
{
	size_t len = strlen(name) + 1;

	if (k->nr == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 65536;
		void *p = realloc(k->syms, cap * sizeof(*k->syms));

		if (!p)
			return -ENOMEM;
		k->syms = p;
		k->cap = cap;
	}
	if (k->names_len + len > k->names_cap) {
		size_t cap = k->names_cap ? k->names_cap * 2 : 1 << 21;
		void *p;

		while (cap < k->names_len + len)
			cap *= 2;
		p = realloc(k->names, cap);
		if (!p)
			return -ENOMEM;
		k->names = p;
		k->names_cap = cap;
	}
	memcpy(k->names + k->names_len, name, len);
	k->syms[k->nr].addr = addr;
	k->syms[k->nr].name = k->names_len;
	k->names_len += len;
	k->nr++;
	return 0;
}

struct ksyms *ksyms_load(char *err, size_t errlen)
{
	struct ksyms *k = calloc(1, sizeof(*k));
	char line[512], name[256], type;
	unsigned long long addr;
	size_t nonzero = 0;
	FILE *f;

	if (!k) {
		snprintf(err, errlen, "out of memory loading kernel symbols");
		return NULL;
	}
	f = fopen("/proc/kallsyms", "r");
	if (!f) {
		snprintf(err, errlen, "cannot read /proc/kallsyms: %s", strerror(errno));
		ksyms_free(k);
		return NULL;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		/* text symbols only: stacks hold return addresses */
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (addr)
			nonzero++;
		if (ksyms_add(k, addr, name)) {
			snprintf(err, errlen, "out of memory loading kernel symbols");
			fclose(f);
			ksyms_free(k);
			return NULL;
		}
	}
	fclose(f);
	if (!nonzero) {
		snprintf(err, errlen, "/proc/kallsyms shows no addresses (kptr_restrict; need root)");
		ksyms_free(k);
		return NULL;
	}
	qsort(k->syms, k->nr, sizeof(*k->syms), ksym_cmp);
	return k;
}

const char *ksyms_name(const struct ksyms *k, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi;

	if (!k || !k->nr || addr < k->syms[0].addr)
		return NULL;
	hi = k->nr;
	/* greatest index with syms[i].addr <= addr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* no sizes in kallsyms: past the end of text (BPF JIT images without
	 * bpf_jit_kallsyms, vmalloc'd trampolines) the nearest symbol below is
	 * a section marker far away; no function is this large */
	if (addr - k->syms[lo].addr > KSYM_MAX_FUNC)
		return NULL;
	if (off)
		*off = addr - k->syms[lo].addr;
	return k->names + k->syms[lo].name;
}

uint64_t ksyms_addr(const struct ksyms *k, const char *name)
{
	size_t i;

	if (!k)
		return 0;
	for (i = 0; i < k->nr; i++)
		if (!strcmp(k->names + k->syms[i].name, name))
			return k->syms[i].addr;
	return 0;
}

const char *ksyms_symbolize(uint64_t addr, uint64_t *off, void *ksyms)
{
	return ksyms ? ksyms_name(ksyms, addr, off) : NULL;
}

size_t ksyms_count(const struct ksyms *k)
{
	return k ? k->nr : 0;
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->names);
	free(k);
}
