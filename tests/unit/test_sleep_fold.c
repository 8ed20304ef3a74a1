// SPDX-License-Identifier: GPL-2.0
/*
 * fsaio check counts D-state sleeps in the kernel (bpf/fsaio_sleeps.h):
 * the first sleeps of each (stack, context) go as SLEEP records, the rest
 * add to their key's sums, which the harness hands to the checker at the
 * end of the run (checker_add_sleeps).  The checker must reach the same
 * verdicts and statistics either way.  Each test plays one synthetic
 * stream twice: straight into a checker, and through a model of the BPF
 * side (the same fsaio_sleep_* functions over an array instead of the
 * hash map, records numbered as the ring buffer does, the drain of
 * tracer_sleep_flush() at the end with the wait site classified from the
 * stack) into another; then compares every verdict, detail and printed
 * stack, the wait cells, the engine counters and the distinct stacks.
 */
#include <stdlib.h>
#include <string.h>
#include "kselftest_harness.h"
#include "synth.h"
#include "bpf/fsaio_sleeps.h"

#pragma GCC diagnostic ignored "-Wsign-compare"

/* A synthetic stack says its wait site in its first frame (the model's
 * classifier reads it back, as waitsite.c reads a real one) and its call
 * path in the second. */
#define PC_SITE(site)	(0xffffffff81000000ull + ((uint64_t)(site) << 8))
#define PC_PATH(path)	(0xffffffff82000000ull + ((uint64_t)(path) << 6))

static int classify(const struct fsaio_record *r)
{
	uint64_t site = (r->stack[0] - PC_SITE(0)) >> 8;

	return r->nr_stack && site < FSAIO_SITE__COUNT ? (int)site : FSAIO_SITE_UNKNOWN;
}

/* The BPF side: the sleep_aggs map, and the ring buffer's sequence. */
static struct sleep_model {
	struct fsaio_sleep_key key[FSAIO_SLEEP_KEYS];
	struct fsaio_sleep_agg agg[FSAIO_SLEEP_KEYS];
	unsigned nr, cap;	/* entries, and how many the map holds */
	uint8_t gen;		/* sleep_gen */
	bool ring_full;		/* every SLEEP record's reserve fails */
	uint64_t seq, sent, sleeps_sent, dropped;
} m;

static void send(struct checker *c, struct fsaio_record r)
{
	if (r.type != FSAIO_EV_TRACE_END)
		r.seq = ++m.seq;
	m.sent++;
	synth_rc |= checker_feed(c, &r);
}

/* sleep_agg_of(): the key's entry, created by its first sleep */
static struct fsaio_sleep_agg *agg_of(const struct fsaio_sleep_key *k,
				      const struct fsaio_record *r, uint32_t nr)
{
	unsigned i;

	for (i = 0; i < m.nr; i++)
		if (!memcmp(&m.key[i], k, sizeof(*k)))
			return &m.agg[i];
	if (m.nr == m.cap)
		return NULL;	/* full: a record */
	m.key[m.nr] = *k;
	fsaio_sleep_agg_init(&m.agg[m.nr], r->stack, nr, r->pid, r->tgid, r->comm,
			     (int64_t)r->arg1);
	return &m.agg[m.nr++];
}

/* tracer_sleep_flush(): flip the generation, then hand every key of the
 * old one to the checker with the record it stands for, and delete it */
static void drain(struct checker *c)
{
	uint8_t old = m.gen;
	unsigned i, kept = 0;

	m.gen ^= 1;
	for (i = 0; i < m.nr; i++) {
		struct fsaio_record like;

		if (m.key[i].gen != old) {
			m.key[kept] = m.key[i];
			m.agg[kept++] = m.agg[i];
			continue;
		}
		if (!m.agg[i].count)
			continue;
		memset(&like, 0, sizeof(like));
		fsaio_sleep_record(&like, &m.key[i], &m.agg[i]);
		like.site = classify(&like);	/* enrich_sleep() */
		checker_add_sleeps(c, &like, m.agg[i].count, m.agg[i].total_ns,
				   m.agg[i].max_ns, (const uint64_t *)m.agg[i].hist);
	}
	m.nr = kept;
}

/* What sleep.bpf.c's sleep_end() does with a sleep when fold is on. */
static void model_feed(struct checker *c, const struct fsaio_record *r)
{
	struct fsaio_record s = *r;

	if (r->type == FSAIO_EV_SLEEP) {
		uint32_t nr = r->nr_stack < FSAIO_STACK_DEPTH ? r->nr_stack : FSAIO_STACK_DEPTH;
		int what = FSAIO_SLEEP_RECORD;
		struct fsaio_sleep_key k;
		struct fsaio_sleep_agg *a;

		fsaio_sleep_key_of(&k, r->stack, nr, r->ctx, r->engine, r->flags, m.gen);
		a = agg_of(&k, r, nr);
		if (a)
			what = fsaio_sleep_end(a, r->stack, nr, r->arg0);
		if (what == FSAIO_SLEEP_COUNTED)
			return;
		if (m.ring_full) {
			if (what == FSAIO_SLEEP_EXAMPLE)
				fsaio_sleep_add(a, r->arg0);
			else
				m.dropped++;
			return;
		}
		s.site = classify(&s);	/* sent unclassified, classified on delivery */
		m.sleeps_sent++;
	} else if (r->type == FSAIO_EV_TRACE_END) {
		drain(c);	/* session_end(): before the end record */
		s.arg0 += m.dropped;
		s.stack[FSAIO_DROP_RINGBUF] += m.dropped;
	}
	send(c, s);
}

/* One sleep of pid in ctx (the engine is its context's, as in BPF). */
static void sleep_in(struct checker *c, uint32_t pid, int ctx, int site, int path,
		     uint64_t ns, uint8_t flags)
{
	int e = ctx == FSAIO_CTX_SUBMIT_LIBAIO || ctx == FSAIO_CTX_REAP ? FSAIO_ENGINE_LIBAIO :
		ctx == FSAIO_CTX_SUBMIT_IO_URING || ctx == FSAIO_CTX_IO_WQ_WORKER ?
		FSAIO_ENGINE_IO_URING : FSAIO_ENGINE_NONE;
	struct fsaio_record r = synth_rec(FSAIO_EV_SLEEP, e, pid, 0);

	r.ctx = ctx;
	r.site = site;
	r.flags = flags;
	r.arg0 = ns;
	r.arg1 = 209;
	r.nr_stack = 5;
	r.stack[0] = PC_SITE(site);
	r.stack[1] = PC_PATH(path);
	r.stack[2] = 0xffffffff81234560ull;
	r.stack[3] = 0xffffffff81345670ull;
	r.stack[4] = 0xffffffff81456780ull;
	synth_feed(c, &r);
}

FIXTURE(sleeps) {
	struct checker *direct, *folded;
};

FIXTURE_SETUP(sleeps)
{
	struct checker_config cfg = synth_cfg_all();

	cfg.keep_stacks = true;
	self->direct = checker_new(&cfg);
	self->folded = checker_new(&cfg);
	ASSERT_NE(NULL, self->direct);
	ASSERT_NE(NULL, self->folded);
	memset(&m, 0, sizeof(m));
	m.cap = FSAIO_SLEEP_KEYS;
	synth_rc = 0;
}

FIXTURE_TEARDOWN(sleeps)
{
	synth_hook = NULL;
	checker_free(self->direct);
	checker_free(self->folded);
}

typedef void (*stream_fn)(struct checker *c);

static bool same_stack(const struct inv_stack *x, const struct inv_stack *y, bool exact)
{
	return x->site == y->site && x->ctx == y->ctx && x->nr == y->nr &&
	       !memcmp(x->pc, y->pc, x->nr * sizeof(x->pc[0])) &&
	       (!exact || (x->pid == y->pid && x->ns == y->ns));
}

/*
 * Play the stream both ways and compare.  exact: the first sleeps went as
 * records, so even the quoted first sleep and the printed stacks (pid,
 * duration) are the same; otherwise only which sleeps are quoted differs.
 */
static void play(struct __test_metadata *_metadata, FIXTURE_DATA(sleeps) *self,
		 stream_fn stream, bool exact)
{
	const struct checker_stats *a, *b;
	struct stack_count *x, *y;
	int i, j, e, site, nx, ny;

	synth_hook = NULL;
	stream(self->direct);
	synth_finish(self->direct);
	synth_hook = model_feed;
	stream(self->folded);
	synth_finish(self->folded);
	synth_hook = NULL;
	ASSERT_EQ(0, synth_rc);
	for (i = 0; i < INV__COUNT; i++) {
		const struct invariant_result *p = INV(self->direct, i);
		const struct invariant_result *q = INV(self->folded, i);

		EXPECT_EQ(p->verdict, q->verdict) TH_LOG("%s: %s | counted: %s",
							 p->name, p->detail, q->detail);
		if (i == INV_TRACE_INTEGRITY)
			continue;	/* records seen: fewer by design */
		EXPECT_EQ(p->observations, q->observations) TH_LOG("%s observations", p->name);
		if (!exact) {
			/* a stack printed wherever one was */
			EXPECT_EQ(!p->nr_stacks, !q->nr_stacks) TH_LOG("%s stacks", p->name);
			continue;
		}
		EXPECT_STREQ(p->detail, q->detail);
		ASSERT_EQ(p->nr_stacks, q->nr_stacks) TH_LOG("%s stacks", p->name);
		for (j = 0; j < p->nr_stacks; j++)
			EXPECT_TRUE(same_stack(&p->stacks[j], &q->stacks[j], true))
				TH_LOG("%s stack %d", p->name, j);
	}
	a = checker_stats(self->direct);
	b = checker_stats(self->folded);
	EXPECT_EQ(0, memcmp(a->waits, b->waits, sizeof(a->waits))) TH_LOG("wait cells differ");
	for (e = FSAIO_ENGINE_LIBAIO; e < FSAIO_ENGINE__COUNT; e++) {
#define X(field, what) EXPECT_EQ(a->engine[e].field, b->engine[e].field) \
		TH_LOG("engine %d " #field, e);
		FSAIO_ENGINE_STATS(X)
#undef X
	}
	/* each sleep either a record or counted in the kernel */
	if (!m.dropped)
		EXPECT_EQ(a->records, b->records + b->aggregated);
	/* the distinct stacks (trace --stacks), as sets */
	x = calloc(STACKS_MAX, sizeof(*x));
	y = calloc(STACKS_MAX, sizeof(*y));
	ASSERT_NE(NULL, x);
	ASSERT_NE(NULL, y);
	for (site = 0; site < FSAIO_SITE__COUNT; site++) {
		nx = checker_top_stacks(self->direct, site, x, STACKS_MAX);
		ny = checker_top_stacks(self->folded, site, y, STACKS_MAX);
		EXPECT_EQ(nx, ny) TH_LOG("site %d: distinct stacks", site);
		for (i = 0; i < nx; i++) {
			for (j = 0; j < ny; j++)
				if (same_stack(&x[i].k, &y[j].k, false))
					break;
			ASSERT_LT(j, ny) TH_LOG("site %d stack %d not counted", site, i);
			EXPECT_EQ(x[i].count, y[j].count);
			EXPECT_EQ(x[i].total_ns, y[j].total_ns);
			if (exact)
				EXPECT_TRUE(same_stack(&x[i].k, &y[j].k, true));
		}
	}
	free(x);
	free(y);
}

#define IOCB(i)	(0x7f0000001000ull + (uint64_t)(i) * 64)

/*
 * fio's libaio random reads on a stock kernel: every io_submit sleeps on
 * the page lock (two call paths), some in the block layer, some with an
 * S_SYNC write in flight; io_getevents waits too.
 */
static void libaio_reads(struct checker *c)
{
	for (int i = 0; i < 400; i++) {
		uint64_t ns = 1000 + (uint64_t)i * 7919 % 3000000;

		aio_submit(c, 100, IOCB(i), i, 0);
		sleep_in(c, 100, FSAIO_CTX_SUBMIT_LIBAIO, FSAIO_SITE_FOLIO_BIT, i % 2, ns, 0);
		if (i % 10 == 3)
			sleep_in(c, 100, FSAIO_CTX_SUBMIT_LIBAIO, FSAIO_SITE_BLOCK, 0, ns / 3, 0);
		if (i % 50 == 7)
			sleep_in(c, 100, FSAIO_CTX_SUBMIT_LIBAIO, FSAIO_SITE_JOURNAL, 1, ns * 5,
				 FSAIO_F_STAYS_SYNC);
		aio_submit_done(c, 100, i, 1, 1);
		aio_complete(c, IOCB(i), 4096);
		if (i % 7 == 0)
			sleep_in(c, 100, FSAIO_CTX_REAP, FSAIO_SITE_IO_OTHER, 2, ns / 2, 0);
		aio_reap(c, 100, IOCB(i), 4096);
	}
	ev_proc_exit(c, 100);
}

TEST_F(sleeps, libaio_reads_send_the_first_three_of_each_stack)
{
	play(_metadata, self, libaio_reads, true);
	EXPECT_EQ(VERDICT_FAIL, INV(self->folded, INV_NONBLOCKING_SUBMIT_LIBAIO)->verdict);
	EXPECT_NE(NULL, strstr(INV(self->folded, INV_NONBLOCKING_SUBMIT_LIBAIO)->detail,
			       "slept 400 times"));
	/* five keys: two page lock paths, block, journal (S_SYNC), reap */
	EXPECT_EQ(5 * FSAIO_SLEEP_EXAMPLES, m.sleeps_sent);
	EXPECT_EQ(400 + 40 + 8 + 58 - 5 * FSAIO_SLEEP_EXAMPLES,
		  checker_stats(self->folded)->aggregated);
	EXPECT_EQ(8, checker_stats(self->folded)->engine[FSAIO_ENGINE_LIBAIO].stays_sync_sleeps);
}

/*
 * io_uring: the inline attempt's copy sleeps (a blocked submit), block
 * layer waits in submit (not FSAIO waits), an io-wq worker's page waits.
 */
static void uring_sleeps(struct checker *c)
{
	for (int i = 0; i < 20; i++) {
		uint64_t req = 0xffff888010000000ull + i * 0x100;

		uring_submit(c, 100, req);
		if (i % 4 == 0)
			sleep_in(c, 100, FSAIO_CTX_SUBMIT_IO_URING, FSAIO_SITE_BLOCK, 0, 5000, 0);
		if (i >= 10)
			sleep_in(c, 100, FSAIO_CTX_SUBMIT_IO_URING, FSAIO_SITE_COPY, 0,
				 20000 + i, 0);
		uring_submit_done(c, 100, 1);
		sleep_in(c, 101, FSAIO_CTX_IO_WQ_WORKER, FSAIO_SITE_FOLIO_BIT, 3, 70000, 0);
		uring_complete(c, 100, req, 4096);
	}
	ev_proc_exit(c, 100);
}

TEST_F(sleeps, uring_submit_that_sleeps_fails_either_way)
{
	play(_metadata, self, uring_sleeps, true);
	EXPECT_EQ(VERDICT_FAIL, INV(self->folded, INV_NONBLOCKING_SUBMIT_IO_URING)->verdict);
	EXPECT_NE(NULL, strstr(INV(self->folded, INV_NONBLOCKING_SUBMIT_IO_URING)->detail,
			       "slept 10 times"));
}

/* No example record made it (the ring buffer full at every sleep): the
 * sums alone still fail the submit, and name a sleeper. */
TEST_F(sleeps, uring_submit_sleep_counted_alone_still_fails)
{
	const struct invariant_result *ir;

	m.ring_full = true;
	play(_metadata, self, uring_sleeps, false);
	EXPECT_EQ(0, m.sleeps_sent);
	EXPECT_EQ(0, m.dropped);
	ir = INV(self->folded, INV_NONBLOCKING_SUBMIT_IO_URING);
	EXPECT_EQ(VERDICT_FAIL, ir->verdict);
	EXPECT_NE(NULL, strstr(ir->detail, "slept 10 times"));
	EXPECT_NE(NULL, strstr(ir->detail, "first: pid 100 (synth) slept in copy for 0.020 ms"))
		TH_LOG("%s", ir->detail);
	EXPECT_EQ(1, ir->nr_stacks);	/* one key: one example stack */
	EXPECT_EQ(VERDICT_PASS, INV(self->folded, INV_TRACE_INTEGRITY)->verdict);
}

/* The map holds two keys: the others' sleeps all go as records. */
static void four_keys(struct checker *c)
{
	for (int i = 0; i < 20; i++)
		for (int k = 0; k < 4; k++)
			sleep_in(c, 100 + k, FSAIO_CTX_SUBMIT_LIBAIO, FSAIO_SITE_FOLIO_BIT, k,
				 1000 * (i + 1) + k, 0);
}

TEST_F(sleeps, full_map_sends_records)
{
	m.cap = 2;
	play(_metadata, self, four_keys, true);
	EXPECT_EQ(2 * FSAIO_SLEEP_EXAMPLES + 2 * 20, m.sleeps_sent);
}

/* Another stack under the same hash: the entry's frames differ, so its
 * sleeps are never added to that entry's sums. */
static void one_stack(struct checker *c)
{
	for (int i = 0; i < 10; i++)
		sleep_in(c, 100, FSAIO_CTX_SUBMIT_IO_URING, FSAIO_SITE_WRITEBACK, 5, 3000 + i, 0);
}

TEST_F(sleeps, a_hash_collision_sends_records)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_SLEEP, FSAIO_ENGINE_IO_URING, 100, 0);

	synth_seq--;
	/* the entry that one_stack()'s key finds: made by another stack */
	r.ctx = FSAIO_CTX_SUBMIT_IO_URING;
	r.nr_stack = 5;
	r.stack[0] = PC_SITE(FSAIO_SITE_WRITEBACK);
	r.stack[1] = PC_PATH(5);
	r.stack[2] = 0xffffffff81234560ull;
	r.stack[3] = 0xffffffff81345670ull;
	r.stack[4] = 0xffffffff81456780ull;
	fsaio_sleep_key_of(&m.key[0], r.stack, 5, r.ctx, r.engine, 0, 0);
	r.stack[4] ^= 0x10;
	fsaio_sleep_agg_init(&m.agg[0], r.stack, 5, 100, 100, r.comm, 426);
	m.nr = 1;
	play(_metadata, self, one_stack, true);
	EXPECT_EQ(10, m.sleeps_sent);
	EXPECT_EQ(0, checker_stats(self->folded)->aggregated);
}

/* Each run its own first sleeps: the drain forgets every key. */
TEST_F(sleeps, every_run_sends_its_own_examples)
{
	struct checker_config cfg = synth_cfg_all();
	struct checker *again = checker_new(&cfg);

	ASSERT_NE(NULL, again);
	play(_metadata, self, one_stack, true);
	EXPECT_EQ(FSAIO_SLEEP_EXAMPLES, m.sleeps_sent);
	synth_hook = model_feed;
	one_stack(again);
	synth_finish(again);
	synth_hook = NULL;
	EXPECT_EQ(2 * FSAIO_SLEEP_EXAMPLES, m.sleeps_sent);
	EXPECT_EQ(3, INV(again, INV_NONBLOCKING_SUBMIT_IO_URING)->nr_stacks);
	EXPECT_EQ(10, checker_stats(again)->engine[FSAIO_ENGINE_IO_URING].blocked_in_submit);
	checker_free(again);
}

/* A sleep that ends while the harness drains (a traced process still
 * running) adds to the next generation's key: the next run counts it, as
 * it would get its record, and this run's drain leaves it alone. */
TEST_F(sleeps, a_sleep_ending_during_the_drain_counts_in_the_next_run)
{
	struct checker_config cfg = synth_cfg_all();
	struct checker *next = checker_new(&cfg);
	struct fsaio_sleep_agg *a;
	struct fsaio_record r;

	ASSERT_NE(NULL, next);
	play(_metadata, self, one_stack, true);
	/* after the flip: the tenth sleep of one_stack()'s key ends */
	synth_hook = NULL;
	r = synth_rec(FSAIO_EV_SLEEP, FSAIO_ENGINE_IO_URING, 100, 0);
	synth_seq--;
	r.ctx = FSAIO_CTX_SUBMIT_IO_URING;
	r.nr_stack = 5;
	r.stack[0] = PC_SITE(FSAIO_SITE_WRITEBACK);
	r.stack[1] = PC_PATH(5);
	r.stack[2] = 0xffffffff81234560ull;
	r.stack[3] = 0xffffffff81345670ull;
	r.stack[4] = 0xffffffff81456780ull;
	fsaio_sleep_key_of(&m.key[0], r.stack, 5, r.ctx, r.engine, 0, m.gen);
	fsaio_sleep_agg_init(&m.agg[0], r.stack, 5, 100, 100, r.comm, 426);
	m.agg[0].examples = FSAIO_SLEEP_EXAMPLES;
	a = &m.agg[0];
	fsaio_sleep_add(a, 7777);
	m.nr = 1;
	/* a drain with nothing of this run's generation: the entry stays */
	m.gen ^= 1;
	drain(self->folded);
	EXPECT_EQ(1, m.nr);
	EXPECT_EQ(10, checker_stats(self->folded)->engine[FSAIO_ENGINE_IO_URING].blocked_in_submit);
	/* the next run gets it with its own sleeps */
	synth_hook = model_feed;
	one_stack(next);
	synth_finish(next);
	synth_hook = NULL;
	EXPECT_EQ(0, m.nr);
	EXPECT_EQ(11, checker_stats(next)->engine[FSAIO_ENGINE_IO_URING].blocked_in_submit);
	EXPECT_EQ(7777 + 10 * 3000 + 45,
		  checker_stats(next)->engine[FSAIO_ENGINE_IO_URING].blocked_ns);
	checker_free(next);
}

/* The kernel's histogram bucket is the checker's log2 of nanoseconds. */
TEST(bucket_is_floor_log2_capped)
{
	uint64_t ns = 0x9e3779b97f4a7c15ull;
	int i, b;

	for (i = 0; i < 64; i++) {
		uint64_t v[] = { 1ull << i, (1ull << i) - 1, (1ull << i) + 1, ns >> i };

		for (unsigned j = 0; j < 4; j++) {
			b = v[j] ? 63 - __builtin_clzll(v[j]) : 0;
			EXPECT_EQ(b < FSAIO_SLEEP_HIST ? b : FSAIO_SLEEP_HIST - 1,
				  fsaio_sleep_bucket(v[j])) TH_LOG("%#llx", (unsigned long long)v[j]);
		}
	}
	EXPECT_EQ(0, fsaio_sleep_bucket(0));
	EXPECT_EQ(FSAIO_SLEEP_HIST - 1, fsaio_sleep_bucket(~0ull));
}

/* Sums that name no known site or context are a malformed input. */
TEST(sums_of_an_unknown_site_are_malformed)
{
	struct checker_config cfg = synth_cfg_all();
	struct checker *c = checker_new(&cfg);
	struct fsaio_record like = synth_rec(FSAIO_EV_SLEEP, 0, 100, 0);
	uint64_t hist[HIST_BUCKETS] = { [10] = 2 };

	ASSERT_NE(NULL, c);
	like.site = FSAIO_SITE__COUNT;
	checker_add_sleeps(c, &like, 2, 2048, 1024, hist);
	like.site = FSAIO_SITE_OTHER;
	checker_add_sleeps(c, &like, 0, 0, 0, NULL);	/* nothing */
	synth_finish(c);
	EXPECT_EQ(1, checker_stats(c)->malformed);
	EXPECT_EQ(0, checker_stats(c)->aggregated);
	EXPECT_EQ(VERDICT_ERROR, INV(c, INV_TRACE_INTEGRITY)->verdict);
	checker_free(c);
}

TEST_HARNESS_MAIN
