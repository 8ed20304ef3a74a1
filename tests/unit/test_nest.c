// SPDX-License-Identifier: GPL-2.0
/*
 * A hook interrupts reach has two programs (bpf/fsaio_nest.h): the first
 * marks each event and sends it, the second sends only what it finds
 * unmarked.  These tests play the kernel's side on one CPU: each program
 * is counted active from before its first instruction to after its last
 * (prog->active), a program active on the CPU is skipped (a recursion
 * miss), and an interrupt's hit of the same hook can come at any point of
 * the two spans, or inside another interrupt.  Every event must be sent
 * exactly once, or be one the harness counts lost (the first's misses the
 * second did not catch); never twice.
 */
#include <string.h>
#include "kselftest_harness.h"
#include "bpf/fsaio_nest.h"
#include "live/tracer_int.h"

#pragma GCC diagnostic ignored "-Wsign-compare"

/* Where in a hit an interrupt can come */
enum point {
	FIRST_PRE,	/* the first counted active, not yet running */
	FIRST_MID,	/* the first marked, not yet sent */
	FIRST_POST,	/* the first ran, still counted active */
	BETWEEN,	/* neither active */
	SECOND_PRE,
	SECOND_MID,	/* the second found no mark, not yet sent */
	SECOND_POST,
	POINTS,
};

/* An interrupt: at a point of the hit it interrupts, the hook's hits for
 * its own events (keys key, key + 1, ... : n of them, at least one), each
 * perhaps interrupted in turn; it runs one context level up. */
struct irq {
	enum point at;
	__u64 key;
	const struct irq *inner;
	int n;
};

#define KEYS 32
#define PTR(key)	((key) << 6)	/* an event's struct, as the kernel's */

static struct cpu {
	int active[2];		/* prog->active of the first and the second */
	__u64 misses[2];	/* their recursion_misses */
	__u64 caught;		/* nest_caught */
	struct fsaio_nest_marks marks;
	int hits[KEYS];		/* by key: the hook was reached */
	int sent[KEYS];		/* ... and the event sent */
	int reversed;		/* the kernel runs the second first */
} cpu;

static void hit_at(__u64 key, const struct irq *irq, __u32 level);

static void at(enum point p, const struct irq *irq, __u32 level)
{
	int i;

	if (irq && irq->at == p)
		for (i = 0; i < (irq->n ? irq->n : 1); i++)
			hit_at(irq->key + i, irq->inner, level + 1);
}

static void run(int second, __u64 key, const struct irq *irq, __u32 level)
{
	if (cpu.active[second]) {
		cpu.misses[second]++;
		return;
	}
	cpu.active[second] = 1;
	at(second ? SECOND_PRE : FIRST_PRE, irq, level);
	if (!second) {
		fsaio_nest_mark(&cpu.marks, level, PTR(key));
		at(FIRST_MID, irq, level);
		cpu.sent[key]++;
	} else if (fsaio_nest_skipped(&cpu.marks, level, PTR(key))) {
		cpu.caught++;
		at(SECOND_MID, irq, level);
		cpu.sent[key]++;
	}
	at(second ? SECOND_POST : FIRST_POST, irq, level);
	cpu.active[second] = 0;
}

static void hit_at(__u64 key, const struct irq *irq, __u32 level)
{
	cpu.hits[key]++;
	run(cpu.reversed, key, irq, level);
	at(BETWEEN, irq, level);
	run(!cpu.reversed, key, irq, level);
}

/* A hit in a task */
static void hit(__u64 key, const struct irq *irq)
{
	hit_at(key, irq, 0);
}

/* What the harness counts lost for the pair (tracer.c prog_misses()) */
static __u64 counted_lost(void)
{
	return cpu.caught > cpu.misses[0] ? cpu.caught - cpu.misses[0]
					  : cpu.misses[0] - cpu.caught;
}

static void fresh(void)
{
	memset(&cpu, 0, sizeof(cpu));
}

TEST(an_event_alone_is_sent_once_by_the_first)
{
	fresh();
	hit(1, NULL);
	EXPECT_EQ(1, cpu.sent[1]);
	EXPECT_EQ(0, cpu.caught);
	EXPECT_EQ(0, counted_lost());
}

/* The window the old flag left open: the kernel counts the first active
 * before and after its body, and the hit that comes then is skipped. */
TEST(an_interrupt_anywhere_in_either_span_is_sent_once)
{
	enum point p;

	for (p = 0; p < POINTS; p++) {
		struct irq irq = { p, 2, NULL };

		if (p == SECOND_MID)
			continue;	/* not reached: the first sent it */
		fresh();
		hit(1, &irq);
		EXPECT_EQ(1, cpu.hits[2]) TH_LOG("interrupt at point %d", p);
		EXPECT_EQ(1, cpu.sent[1]) TH_LOG("interrupt at point %d", p);
		EXPECT_EQ(1, cpu.sent[2]) TH_LOG("interrupt at point %d", p);
		EXPECT_EQ(0, counted_lost()) TH_LOG("interrupt at point %d", p);
	}
}

/* An interrupt inside an interrupt can find both programs active: its
 * event is lost, and counted; no event is ever sent twice. */
TEST(nested_interrupts_send_once_or_count_the_loss)
{
	enum point p, q;
	int both_active = 0;

	for (p = 0; p < POINTS; p++)
		for (q = 0; q < POINTS; q++) {
			struct irq inner = { q, 3, NULL }, outer = { p, 2, &inner };
			int k, unsent = 0;

			fresh();
			hit(1, &outer);
			for (k = 1; k <= 3; k++) {
				EXPECT_GE(1, cpu.sent[k]) TH_LOG("points %d/%d key %d", p, q, k);
				unsent += cpu.hits[k] && !cpu.sent[k];
			}
			EXPECT_EQ(unsent, counted_lost()) TH_LOG("points %d/%d", p, q);
			both_active += unsent;
		}
	/* lost only where both are active: the task's first span (3 points)
	 * times the interrupt's second span, which sends (3), and the task's
	 * second span, which does not (2), times the interrupt's first (3) */
	EXPECT_EQ(3 * 3 + 2 * 3, both_active);
}

/* The second skipped (an interrupt in its span): the first ran and marked,
 * nobody took the mark.  It costs a later event with the same key, if the
 * first is skipped for it, a counted loss, never a second send. */
TEST(stale_mark_costs_at_most_a_counted_loss)
{
	struct irq in_second = { SECOND_PRE, 2, NULL }, in_first = { FIRST_PRE, 2, NULL };

	fresh();
	hit(1, &in_second);
	EXPECT_EQ(1, cpu.sent[2]);
	EXPECT_EQ(1, cpu.misses[1]);
	EXPECT_EQ(0, counted_lost());
	hit(3, &in_first);	/* key 2 again: its struct reused */
	EXPECT_EQ(1, cpu.sent[2]);
	EXPECT_EQ(1, cpu.sent[3]);
	EXPECT_EQ(1, counted_lost());
}

/* A burst: one interrupt completes many requests while the task's hit
 * is in one of the spans.  In the second's span each of them marks and
 * leaves its mark (the second is skipped for all): the task's own mark
 * must survive them, or the task's second would send its event again. */
TEST(a_burst_of_interrupt_hits_leaves_the_task_mark_alone)
{
	enum point p;

	for (p = 0; p < POINTS; p++) {
		struct irq burst = { p, 2, NULL, 3 * FSAIO_NEST_SLOTS };
		int k;

		if (p == SECOND_MID)
			continue;
		fresh();
		hit(1, &burst);
		for (k = 1; k < 2 + 3 * FSAIO_NEST_SLOTS; k++)
			EXPECT_EQ(1, cpu.sent[k]) TH_LOG("burst at point %d, key %d", p, k);
		EXPECT_EQ(0, counted_lost()) TH_LOG("burst at point %d", p);
	}
}

/* A level's table full of stale marks drops the oldest: the mark of the
 * hit in hand is the newest. */
TEST(full_table_drops_its_oldest_mark)
{
	struct irq stale = { SECOND_POST, 2, NULL, 2 * FSAIO_NEST_SLOTS };
	struct irq between = { BETWEEN, 30, NULL };
	int k;

	fresh();
	hit(1, &stale);
	for (k = 0; k < FSAIO_NEST_SLOTS; k++)
		EXPECT_NE(0, cpu.marks.key[1][k]);
	memset(cpu.sent, 0, sizeof(cpu.sent));
	hit_at(29, &between, 1);
	EXPECT_EQ(1, cpu.sent[29]);
	EXPECT_EQ(1, cpu.sent[30]);
	EXPECT_EQ(0, counted_lost());
}

TEST(levels_from_preempt_count)
{
	EXPECT_EQ(0, fsaio_nest_level(0));
	EXPECT_EQ(0, fsaio_nest_level(0x80000000 | 0x200 | 3));	/* bh off, preempt off */
	EXPECT_EQ(1, fsaio_nest_level(0x100 | 0x200));		/* serving a softirq */
	EXPECT_EQ(2, fsaio_nest_level(0x10000 | 0x100));	/* hardirq over it */
	EXPECT_EQ(3, fsaio_nest_level(0x100000 | 0x10000));	/* NMI */
}

/* Were the second run first, every event would go twice; the second then
 * sends more than the kernel skipped, which the harness counts lost. */
TEST(second_run_first_shows_as_more_caught_than_skipped)
{
	fresh();
	cpu.reversed = 1;
	hit(1, NULL);
	hit(2, NULL);
	EXPECT_EQ(2, cpu.sent[1]);
	EXPECT_EQ(2, cpu.caught);
	EXPECT_EQ(0, cpu.misses[0]);
	EXPECT_EQ(2, counted_lost());
}

TEST(a_key_is_never_the_free_mark)
{
	EXPECT_NE(0, fsaio_nest_key(0));
}

/*
 * The tracer's table of programs: each hook has one first and one second
 * program, on the same hook, attached so that the first runs first: in
 * table order on a raw tracepoint (probes run in attach order), the
 * second first on an fentry trampoline (the newest link runs first).
 */
TEST(every_hook_has_a_first_and_a_second_in_run_order)
{
	for (int h = 0; h < NEST__COUNT; h++) {
		int first = -1, second = -1, firsts = 0, seconds = 0;

		for (int i = 0; i < (int)NR_PROGS; i++) {
			if (progs[i].pair == h + 1)
				first = i, firsts++;
			if (progs[i].second_of == h + 1)
				second = i, seconds++;
		}
		ASSERT_EQ(1, firsts) TH_LOG("hook %d", h);
		ASSERT_EQ(1, seconds) TH_LOG("hook %d", h);
		EXPECT_EQ(progs[first].kind, progs[second].kind);
		EXPECT_STREQ(progs[first].name, progs[second].name);
		if (progs[first].kind == PK_FENTRY) {
			EXPECT_LT(second, first) TH_LOG("%s", progs[first].prog);
		} else {
			EXPECT_LT(first, second) TH_LOG("%s", progs[first].prog);
		}
	}
}

TEST_HARNESS_MAIN
