/* SPDX-License-Identifier: GPL-2.0 */
/*
 * D-state sleeps counted in the kernel for `fsaio check` (without --record
 * or -E): a libaio read on a stock kernel sleeps in every io_submit, and a
 * SLEEP record each made sleeps most of what a busy ring buffer lost.
 *
 * A sleep's key is its kernel stack (a hash of its frames, and how many),
 * its context, engine and flags: everything the checker decides a sleep
 * by (harness/core/sleeps.c), the wait site being a function of the stack
 * (classified in user space).  The first FSAIO_SLEEP_EXAMPLES sleeps of
 * each key still go as SLEEP records, so the checker has the first sleeps
 * it quotes and prints (their pid, duration, stack) exactly as without
 * counting; every later one only adds to its key's sums (count, total,
 * max, log2 histogram: the checker's wait cell).  The key's entry keeps
 * the stack and its first sleeper, from which user space rebuilds the
 * SLEEP record the sums stand for at the end of each run, classifies it
 * as it does a record and hands it to the checker with the sums
 * (checker_add_sleeps), then clears the map.  Keys carry a generation
 * that user space flips before it drains the old one, so a sleep that
 * ends during the drain (a traced process still running) is counted in
 * the next run, as its record would be, not lost with a deleted entry.
 *
 * A sleep is never lost to counting: with the map full, or another stack
 * under the same hash (the entry holds its frames, compared on every
 * sleep), the sleep goes as a record; an example whose record finds the
 * ring buffer full is counted instead.
 *
 * Shared by the BPF object (bpf/sleep.bpf.c) and the unit tests, which
 * drive these functions and the checker with the same synthetic streams.
 */
#ifndef FSAIO_SLEEPS_H
#define FSAIO_SLEEPS_H

#include "fsaio.h"

#define FSAIO_SLEEP_KEYS	4096	/* distinct keys per run: then records */
#define FSAIO_SLEEP_EXAMPLES	3	/* records per key (>= INV_MAX_STACKS) */
#define FSAIO_SLEEP_HIST	32	/* log2 buckets (the checker's HIST_BUCKETS) */

struct fsaio_sleep_key {
	__u64 hash;		/* fsaio_sleep_hash() of the frames */
	__u32 nr_stack;
	__u8 ctx;		/* enum fsaio_context */
	__u8 engine;
	__u8 flags;		/* FSAIO_F_STAYS_SYNC */
	__u8 gen;		/* the run's generation (sleep_gen) */
};

struct fsaio_sleep_agg {
	__u64 examples;		/* sleeps that took an example's place */
	/* the sleeps counted here instead of sent */
	__u64 count;
	__u64 total_ns;
	__u64 max_ns;
	__u64 hist[FSAIO_SLEEP_HIST];	/* hist[i]: [2^i, 2^(i+1)) ns */
	/* the key's first sleeper and its stack: the record the sums stand for */
	__s64 sysnr;
	__u32 pid;
	__u32 tgid;
	char comm[FSAIO_COMM_LEN];
	__u64 stack[FSAIO_STACK_DEPTH];
};

/* What the end of a sleep does (fsaio_sleep_end()). */
#define FSAIO_SLEEP_RECORD	0	/* not the entry's stack: a record, as
					 * without counting */
#define FSAIO_SLEEP_EXAMPLE	1	/* one of the key's first: a record, or
					 * counted if the ring buffer is full */
#define FSAIO_SLEEP_COUNTED	2	/* added to its key's sums */

/* The histogram bucket of a duration: floor(log2(ns)), 0 for 0, the last
 * bucket for anything longer (no clz: the BPF backend has none). */
FSAIO_INLINE __u32 fsaio_sleep_bucket(__u64 ns)
{
	__u32 r, s;

	r = (ns > 0xffffffffull) << 5;
	ns >>= r;
	s = (ns > 0xffff) << 4;
	ns >>= s;
	r |= s;
	s = (ns > 0xff) << 3;
	ns >>= s;
	r |= s;
	s = (ns > 0xf) << 2;
	ns >>= s;
	r |= s;
	s = (ns > 0x3) << 1;
	ns >>= s;
	r |= s;
	r |= (__u32)(ns >> 1);
	return r < FSAIO_SLEEP_HIST ? r : FSAIO_SLEEP_HIST - 1;
}

FSAIO_INLINE __u64 fsaio_sleep_hash(const __u64 *stack, __u32 nr)
{
	__u64 h = 0x9e3779b97f4a7c15ull ^ nr;
	__u32 i;

	for (i = 0; i < FSAIO_STACK_DEPTH; i++) {
		if (i >= nr)
			break;
		h = (h ^ stack[i]) * 0xff51afd7ed558ccdull;
		h ^= h >> 33;
	}
	return h;
}

FSAIO_INLINE void fsaio_sleep_key_of(struct fsaio_sleep_key *k, const __u64 *stack, __u32 nr,
				     __u8 ctx, __u8 engine, __u8 flags, __u8 gen)
{
	if (nr > FSAIO_STACK_DEPTH)
		nr = FSAIO_STACK_DEPTH;
	k->hash = fsaio_sleep_hash(stack, nr);
	k->nr_stack = nr;
	k->ctx = ctx;
	k->engine = engine;
	k->flags = flags;
	k->gen = gen;
}

/* A new key's entry, from its first sleep. */
FSAIO_INLINE void fsaio_sleep_agg_init(struct fsaio_sleep_agg *a, const __u64 *stack, __u32 nr,
				       __u32 pid, __u32 tgid, const char *comm, __s64 sysnr)
{
	__u32 i;

	a->examples = 0;
	a->count = 0;
	a->total_ns = 0;
	a->max_ns = 0;
	for (i = 0; i < FSAIO_SLEEP_HIST; i++)
		a->hist[i] = 0;
	a->sysnr = sysnr;
	a->pid = pid;
	a->tgid = tgid;
	for (i = 0; i < FSAIO_COMM_LEN; i++)
		a->comm[i] = comm[i];
	for (i = 0; i < FSAIO_STACK_DEPTH; i++)
		a->stack[i] = i < nr ? stack[i] : 0;
}

/* Add one sleep to the sums.  Other CPUs add to the same entry: atomic
 * adds, and a compare-and-swap for the maximum (a failed one means
 * another CPU raised it; a few tries settle it). */
FSAIO_INLINE void fsaio_sleep_add(struct fsaio_sleep_agg *a, __u64 ns)
{
	__u64 cur, b = fsaio_sleep_bucket(ns);
	int i;

	/*
	 * Hide what the compiler knows of b, so that it keeps the mask: it
	 * drops it otherwise (b < FSAIO_SLEEP_HIST already), and 6.1's
	 * verifier, which loses the bound through the 32-bit return,
	 * rejects the unmasked index as an unbounded map access.
	 */
	asm volatile("" : "+r"(b));
	__sync_fetch_and_add(&a->count, 1);
	__sync_fetch_and_add(&a->total_ns, ns);
	__sync_fetch_and_add(&a->hist[b & (FSAIO_SLEEP_HIST - 1)], 1);
	for (i = 0; i < 4; i++) {
		cur = a->max_ns;
		if (ns <= cur || __sync_val_compare_and_swap(&a->max_ns, cur, ns) == cur)
			break;
	}
}

/* A sleep of a's key ended after ns: FSAIO_SLEEP_RECORD, _EXAMPLE or
 * _COUNTED.  A stack other than the entry's (same hash) is never counted. */
FSAIO_INLINE int fsaio_sleep_end(struct fsaio_sleep_agg *a, const __u64 *stack, __u32 nr,
				 __u64 ns)
{
	__u32 i;

	for (i = 0; i < FSAIO_STACK_DEPTH; i++) {
		if (i >= nr)
			break;
		if (a->stack[i] != stack[i])
			return FSAIO_SLEEP_RECORD;
	}
	if (__sync_fetch_and_add(&a->examples, 1) < FSAIO_SLEEP_EXAMPLES)
		return FSAIO_SLEEP_EXAMPLE;
	fsaio_sleep_add(a, ns);
	return FSAIO_SLEEP_COUNTED;
}

/* The SLEEP record a key's sums stand for (no seq: it is not one of the
 * stream's; site left to the classifier; arg0 the longest sleep). */
FSAIO_INLINE void fsaio_sleep_record(struct fsaio_record *r, const struct fsaio_sleep_key *k,
				     const struct fsaio_sleep_agg *a)
{
	__u32 i;

	r->version = FSAIO_RECORD_VERSION;
	r->type = FSAIO_EV_SLEEP;
	r->engine = k->engine;
	r->ctx = k->ctx;
	r->flags = k->flags;
	r->site = FSAIO_SITE_UNKNOWN;
	r->pid = a->pid;
	r->tgid = a->tgid;
	for (i = 0; i < FSAIO_COMM_LEN; i++)
		r->comm[i] = a->comm[i];
	r->arg0 = a->max_ns;
	r->arg1 = (__u64)a->sysnr;
	r->nr_stack = k->nr_stack < FSAIO_STACK_DEPTH ? k->nr_stack : FSAIO_STACK_DEPTH;
	for (i = 0; i < FSAIO_STACK_DEPTH; i++)
		r->stack[i] = i < r->nr_stack ? a->stack[i] : 0;
}

#endif /* FSAIO_SLEEPS_H */
