/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runs the kernel skips on hooks that interrupts reach.
 *
 * The kernel does not run a tracing program on a CPU where that program is
 * active: it counts a recursion miss instead.  "Active" spans more than
 * the program: __bpf_trace_run (raw tracepoints) and the fentry
 * trampoline's __bpf_prog_enter_recur raise prog->active before the
 * program's first instruction and lower it after its last, with
 * interrupts on.  An interrupt anywhere in that span whose handler reaches
 * the same hook (an O_DIRECT aio completion while a buffered one completes
 * inside io_submit) loses its event.
 *
 * So such a hook has two programs, which the kernel runs one after the
 * other on every hit (NESTED_PAIR in common.bpf.h):
 *   - the first marks the event's key here, in its CPU's table, before it
 *     sends the event;
 *   - the second takes the mark: found, the first ran for this event;
 *     not found, the kernel skipped the first for it (it was active in
 *     this CPU's interrupted context), and the second sends the event.
 * That covers the whole span, provided that on each hit the first runs
 * before the second: raw tracepoints call their probes in the order they
 * were registered, fentry trampolines call the newest link first, and the
 * harness attaches them accordingly (harness/live/tracer_int.h).  Were
 * the order ever reversed, every event would go twice and the second
 * would send more than the kernel skipped: the harness compares the two
 * counts, and the excess makes the checks ERROR (cause pair_twice).
 *
 * Each context level of the CPU (task, softirq, hardirq, NMI) marks in a
 * table of its own.  On one hit the first and the second run at the same
 * level, and hits of one level do not nest (an interrupt is another
 * level), so the one mark in use at a level is that of the hit in hand:
 * a burst of interrupt hits cannot push out the mark of the task-level
 * hit they interrupted.  Only a task preempted between the two programs
 * (a preemptible kernel's fentry trampoline) leaves a second mark in use
 * at its level, hence a few slots per level.
 *
 * A mark outlives its event only when the kernel skips the second (an
 * interrupt while the second is active: the first runs for it and marks,
 * and nobody takes the mark).  Such a stale mark costs nothing unless the
 * kernel later skips the first for an event with the same key at that
 * level: that event is not sent, and counted lost (a miss no second
 * program caught).  A full table drops its oldest mark.
 *
 * Shared by the BPF object and tests/unit/test_nest.c, which plays the
 * kernel's skips at every point of both programs' spans.
 */
#ifndef FSAIO_NEST_H
#define FSAIO_NEST_H

#include "fsaio.h"

/* The hooks with a pair of programs (maps.bpf.h nest_marks, nest_caught) */
enum fsaio_nest_hook {
	NEST_AIO_COMPLETE,	/* fentry aio_complete_rw: a direct or
				 * block-completed aio read or write */
	NEST_FSAIO_COMPLETE,	/* the patched kernel's fsaio_complete */
	NEST_FSAIO_WAKE,	/* ... and fsaio_wake (a folio unlocked by
				 * a read's completion) */
	NEST__COUNT,
};

#define FSAIO_NEST_LEVELS	4	/* task, softirq, hardirq, NMI */
#define FSAIO_NEST_SLOTS	4

struct fsaio_nest_marks {
	__u64 key[FSAIO_NEST_LEVELS][FSAIO_NEST_SLOTS];	/* 0: free */
	__u64 stamp[FSAIO_NEST_LEVELS][FSAIO_NEST_SLOTS]; /* clock at marking */
	__u64 clock;
};

/* Keys are pointers (a kiocb, a request): never 0 once the low bit is set */
FSAIO_INLINE __u64 fsaio_nest_key(__u64 key)
{
	return key | 1;
}

/* The context level of a preempt_count (include/linux/preempt.h masks) */
FSAIO_INLINE __u32 fsaio_nest_level(__u32 preempt_count)
{
	if (preempt_count & 0x00f00000)		/* NMI_MASK */
		return 3;
	if (preempt_count & 0x000f0000)		/* HARDIRQ_MASK */
		return 2;
	if (preempt_count & 0x00000100)		/* SOFTIRQ_OFFSET: serving */
		return 1;
	return 0;
}

/* The first program, before it sends: this event is handled. */
FSAIO_INLINE void fsaio_nest_mark(struct fsaio_nest_marks *m, __u32 level, __u64 key)
{
	__u64 oldest = ~0ull, *keys, *stamps;
	__u32 i, at = 0, free = FSAIO_NEST_SLOTS;

	level &= FSAIO_NEST_LEVELS - 1;
	keys = m->key[level];
	stamps = m->stamp[level];
	key = fsaio_nest_key(key);
	for (i = 0; i < FSAIO_NEST_SLOTS; i++) {
		if (keys[i] == key) {
			free = i;
			break;
		}
		if (!keys[i] && free == FSAIO_NEST_SLOTS)
			free = i;
		if (stamps[i] < oldest) {
			oldest = stamps[i];
			at = i;
		}
	}
	if (free < FSAIO_NEST_SLOTS)
		at = free;
	keys[at & (FSAIO_NEST_SLOTS - 1)] = key;
	stamps[at & (FSAIO_NEST_SLOTS - 1)] = ++m->clock;
}

/* The second program: did the first skip this event?  (Takes its mark.) */
FSAIO_INLINE int fsaio_nest_skipped(struct fsaio_nest_marks *m, __u32 level, __u64 key)
{
	__u64 *keys = m->key[level & (FSAIO_NEST_LEVELS - 1)];
	__u32 i;

	key = fsaio_nest_key(key);
	for (i = 0; i < FSAIO_NEST_SLOTS; i++) {
		if (keys[i] == key) {
			keys[i] = 0;
			return 0;
		}
	}
	return 1;
}

#endif /* FSAIO_NEST_H */
