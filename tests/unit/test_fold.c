// SPDX-License-Identifier: GPL-2.0
/*
 * fsaio check folds plain io_uring lifecycles in the kernel
 * (bpf/fsaio_fold.h): a submit is kept in a map, a plain final CQE right
 * after it is counted, anything else sends the kept SUBMIT first.  The
 * checker must reach the same verdicts either way.  Each test plays one
 * synthetic stream twice: straight into a checker, and through a model of
 * the BPF side (the same fsaio_fold_* state machine over an array instead
 * of the hash map, sending with a sequence of its own as the ring buffer
 * does) into another; then compares every invariant's verdict and count
 * and the engine counters, and how many records the fold spared.
 */
#include <stdlib.h>
#include <string.h>
#include "kselftest_harness.h"
#include "synth.h"

#pragma GCC diagnostic ignored "-Wsign-compare"

#define MODEL_SLOTS 64

/* The BPF side of fold, over an array. */
static struct fold_model {
	struct {
		uint64_t req;
		struct fsaio_fold_req f;
	} slot[MODEL_SLOTS];
	int nr;
	struct fsaio_fold_counts counts;
	uint64_t seq;		/* the ring buffer's: folded records take none */
	uint64_t sent;
} m;

static struct fsaio_fold_req *model_find(uint64_t req)
{
	for (int i = 0; i < m.nr; i++)
		if (m.slot[i].req == req)
			return &m.slot[i].f;
	return NULL;
}

static void model_delete(uint64_t req)
{
	for (int i = 0; i < m.nr; i++)
		if (m.slot[i].req == req) {
			m.slot[i] = m.slot[--m.nr];
			return;
		}
}

static void send(struct checker *c, struct fsaio_record r)
{
	if (r.type != FSAIO_EV_TRACE_END)
		r.seq = ++m.seq;
	m.sent++;
	synth_rc |= checker_feed(c, &r);
}

static void send_kept(struct checker *c, uint64_t req, const struct fsaio_fold_req *f,
		      int what)
{
	struct fsaio_record r;

	if (what > 0 && (what & FSAIO_FOLD_SEND_SUBMIT)) {
		memset(&r, 0, sizeof(r));
		r.version = FSAIO_RECORD_VERSION;
		fsaio_fold_submit_record(&r, req, f);
		send(c, r);
	}
	if (what > 0 && (what & FSAIO_FOLD_SEND_CQE)) {
		memset(&r, 0, sizeof(r));
		r.version = FSAIO_RECORD_VERSION;
		fsaio_fold_complete_record(&r, req, f);
		send(c, r);
		fsaio_fold_uncount(&m.counts, f);
	}
}

/* fold_promote_all(): an overflowed CQE's ring, or an exiting process */
static void promote_all(struct checker *c, uint64_t ring, uint32_t tgid)
{
	for (int i = 0; i < m.nr; i++) {
		struct fsaio_fold_req *f = &m.slot[i].f;

		if (f->state == FSAIO_FOLD_PENDING &&
		    ((ring && f->ring == ring) || (tgid && f->tgid == tgid)))
			send_kept(c, m.slot[i].req, f, fsaio_fold_promote(f));
	}
}

static void promote(struct checker *c, uint64_t req)
{
	struct fsaio_fold_req *f = req ? model_find(req) : NULL;

	if (f)
		send_kept(c, req, f, fsaio_fold_promote(f));
}

/* What fsaio.bpf.c does with each record when fold is on. */
static void model_feed(struct checker *c, const struct fsaio_record *r)
{
	bool uring = r->engine == FSAIO_ENGINE_IO_URING;
	struct fsaio_fold_req *f;
	int what;

	if (uring && r->type == FSAIO_EV_SUBMIT) {		/* fold_submit() */
		bool resent = false;

		f = model_find(r->req);
		if (f) {
			what = fsaio_fold_on_resubmit(f);
			send_kept(c, r->req, f, what);
			resent = what;
		}
		if (resent || !fsaio_fold_submit_ok(r->flags, r->arg1)) {
			model_delete(r->req);
			send(c, *r);
			return;
		}
		if (!f) {
			if (m.nr == MODEL_SLOTS) {	/* full: records */
				send(c, *r);
				return;
			}
			m.slot[m.nr].req = r->req;
			f = &m.slot[m.nr++].f;
		}
		memset(f, 0, sizeof(*f));
		f->ts_ns = r->ts_ns;
		f->user_data = r->user_data;
		f->ring = r->ring;
		f->flags = r->arg1;
		f->pid = r->pid;
		f->tgid = r->tgid;
		f->cpu = r->cpu;
		f->opcode = r->arg0;
		f->state = FSAIO_FOLD_PENDING;
		memcpy(f->comm, r->comm, sizeof(f->comm));
		return;
	}
	if (uring && r->type == FSAIO_EV_COMPLETE && (r->flags & FSAIO_F_OVERFLOW)) {
		promote_all(c, r->ring, 0);
	} else if (uring && r->type == FSAIO_EV_COMPLETE) {	/* fold_cqe() */
		f = r->req ? model_find(r->req) : NULL;
		if (f) {
			what = fsaio_fold_on_cqe(f, r->res, r->arg0, r->ts_ns);
			if (what < 0) {
				fsaio_fold_count(&m.counts, f->opcode, r->res);
				return;
			}
			send_kept(c, r->req, f, what);
		}
	} else if (uring && r->type == FSAIO_EV_SUBMIT_DONE) {
		m.counts.submit_calls++;
		m.counts.submit_ns += r->arg1;
		return;
	} else if (uring && (r->type == FSAIO_EV_RETRY || r->type == FSAIO_EV_WAKE ||
			     r->type == FSAIO_EV_RESUME || r->type == FSAIO_EV_PUNT ||
			     r->type == FSAIO_EV_LINK_FAIL)) {
		promote(c, r->req);
	} else if (r->type == FSAIO_EV_PROC_EXIT) {
		promote_all(c, 0, r->tgid);
	} else if (r->type == FSAIO_EV_TRACE_END) {
		/* session_end(): tracer_fold_flush(), then the counts */
		for (int i = 0; i < m.nr; i++)
			if (m.slot[i].f.state == FSAIO_FOLD_PENDING)
				send_kept(c, m.slot[i].req, &m.slot[i].f, FSAIO_FOLD_SEND_SUBMIT);
		m.nr = 0;
		checker_add_folded(c, &m.counts);
	}
	send(c, *r);
}

FIXTURE(fold) {
	struct checker *direct, *folded;
	uint64_t records;	/* fed to the direct checker */
};

FIXTURE_SETUP(fold)
{
	struct checker_config cfg = synth_cfg_all();

	self->direct = checker_new(&cfg);
	self->folded = checker_new(&cfg);
	ASSERT_NE(NULL, self->direct);
	ASSERT_NE(NULL, self->folded);
	memset(&m, 0, sizeof(m));
	synth_rc = 0;
}

FIXTURE_TEARDOWN(fold)
{
	synth_hook = NULL;
	checker_free(self->direct);
	checker_free(self->folded);
}

/* A stream, written once against a checker's feed */
typedef void (*stream_fn)(struct checker *c);

/* Play the stream both ways; every verdict, count and engine counter
 * equal; returns the records the fold sent. */
static uint64_t play(struct __test_metadata *_metadata, FIXTURE_DATA(fold) *self,
		     stream_fn stream)
{
	const struct checker_stats *a, *b;
	uint64_t seq0 = synth_seq;
	int i, e;

	synth_hook = NULL;
	stream(self->direct);
	synth_finish(self->direct);
	self->records = synth_seq - seq0;
	synth_hook = model_feed;
	stream(self->folded);
	synth_finish(self->folded);
	synth_hook = NULL;
	ASSERT_EQ(0, synth_rc);
	for (i = 0; i < INV__COUNT; i++) {
		const struct invariant_result *x = INV(self->direct, i);
		const struct invariant_result *y = INV(self->folded, i);

		EXPECT_EQ(x->verdict, y->verdict) TH_LOG("%s: %s | folded: %s",
							 x->name, x->detail, y->detail);
		/* records seen: fewer by design (stats.aggregated counts them) */
		if (i != INV_TRACE_INTEGRITY)
			EXPECT_EQ(x->observations, y->observations)
				TH_LOG("%s observations", x->name);
	}
	a = checker_stats(self->direct);
	b = checker_stats(self->folded);
	for (e = FSAIO_ENGINE_LIBAIO; e < FSAIO_ENGINE__COUNT; e++) {
#define X(field, what) EXPECT_EQ(a->engine[e].field, b->engine[e].field) \
		TH_LOG("engine %d " #field, e);
		FSAIO_ENGINE_STATS(X)
#undef X
		for (i = 0; i < FSAIO_MAX_OPCODE; i++)
			EXPECT_EQ(a->by_opcode[e][i], b->by_opcode[e][i]);
	}
	return m.sent;
}

#define RQ(i)	(0xffff888010000000ull + (uint64_t)(i) * 0x100)

/* fio-like: batches of plain reads, one io_uring_enter per batch */
static void plain_reads(struct checker *c)
{
	for (int b = 0; b < 4; b++) {
		for (int i = 0; i < 8; i++)
			uring_submit(c, 100, RQ(i));
		uring_submit_done(c, 100, 8);
		for (int i = 0; i < 8; i++)
			uring_complete(c, 100, RQ(i), 4096);
	}
	ev_proc_exit(c, 100);
}

TEST_F(fold, plain_reads_send_only_the_exit)
{
	uint64_t sent = play(_metadata, self, plain_reads);

	EXPECT_EQ(VERDICT_PASS, INV(self->folded, INV_EXACTLY_ONCE)->verdict);
	EXPECT_EQ(32, INV(self->folded, INV_EXACTLY_ONCE)->observations);
	EXPECT_EQ(VERDICT_PASS, INV(self->folded, INV_QUIESCENCE)->verdict);
	/* 32 x (SUBMIT + COMPLETE) + 4 SUBMIT_DONE + exit; the end record
	 * has no sequence number */
	EXPECT_EQ(69, self->records);
	EXPECT_EQ(2, sent);	/* the exit and the end record */
	EXPECT_EQ(68, checker_stats(self->folded)->aggregated);
}

/* A folded request completed again: the second CQE sends the pair */
static void double_completion(struct checker *c)
{
	uring_submit(c, 100, RQ(1));
	uring_complete(c, 100, RQ(1), 4096);
	uring_complete(c, 100, RQ(1), 4096);
}

TEST_F(fold, completed_twice_fails_as_without_folding)
{
	uint64_t sent = play(_metadata, self, double_completion);

	EXPECT_EQ(VERDICT_FAIL, INV(self->folded, INV_EXACTLY_ONCE)->verdict);
	EXPECT_NE(NULL, strstr(INV(self->folded, INV_EXACTLY_ONCE)->detail, "completed twice"));
	EXPECT_EQ(4, sent);	/* the pair, the second CQE, the end */
}

/* Submitted again (same req) before its CQE */
static void resubmitted(struct checker *c)
{
	uring_submit(c, 100, RQ(1));
	uring_submit(c, 100, RQ(1));
	uring_complete(c, 100, RQ(1), 4096);
}

TEST_F(fold, resubmit_before_completion_fails)
{
	play(_metadata, self, resubmitted);
	EXPECT_EQ(VERDICT_FAIL, INV(self->folded, INV_EXACTLY_ONCE)->verdict);
}

/* Still in flight at the end: handed over as SUBMIT by the flush */
static void left_in_flight(struct checker *c)
{
	uring_submit(c, 100, RQ(1));
	uring_submit(c, 100, RQ(2));
	uring_complete(c, 100, RQ(2), 4096);
}

TEST_F(fold, in_flight_at_the_end_fails_quiescence)
{
	play(_metadata, self, left_in_flight);
	EXPECT_EQ(VERDICT_FAIL, INV(self->folded, INV_QUIESCENCE)->verdict);
	EXPECT_EQ(1, checker_stats(self->folded)->engine[FSAIO_ENGINE_IO_URING].completed);
}

/* A buffered read that waited: retry, wake, resume promote it */
static void retried_read(struct checker *c)
{
	uring_submit(c, 100, RQ(1));
	uring_submit(c, 100, RQ(2));
	ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_IO_URING, 100, RQ(1));
	uring_complete(c, 100, RQ(2), 4096);
	ev_req(c, FSAIO_EV_WAKE, FSAIO_ENGINE_IO_URING, 0, RQ(1));
	ev_resume(c, FSAIO_ENGINE_IO_URING, 100, RQ(1), 1);
	uring_complete(c, 100, RQ(1), 4096);
}

TEST_F(fold, retried_read_keeps_its_history)
{
	play(_metadata, self, retried_read);
	EXPECT_EQ(VERDICT_PASS, INV(self->folded, INV_RETRY_LIFECYCLE)->verdict);
	EXPECT_EQ(1, INV(self->folded, INV_RETRY_LIFECYCLE)->observations);
}

/* A wake with no resume before the CQE: the checker's FAIL survives */
static void completed_while_woken(struct checker *c)
{
	uring_submit(c, 100, RQ(1));
	ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_IO_URING, 100, RQ(1));
	ev_req(c, FSAIO_EV_WAKE, FSAIO_ENGINE_IO_URING, 0, RQ(1));
	uring_complete(c, 100, RQ(1), 4096);
}

TEST_F(fold, completed_after_wake_without_resume_fails)
{
	play(_metadata, self, completed_while_woken);
	EXPECT_EQ(VERDICT_FAIL, INV(self->folded, INV_RETRY_LIFECYCLE)->verdict);
}

/* CQ overflow: the overflowed CQE names ring and user_data only */
static void overflow(struct checker *c)
{
	for (int i = 0; i < 4; i++)
		uring_submit(c, 100, RQ(i));
	uring_complete(c, 100, RQ(0), 4096);
	uring_complete(c, 100, RQ(1), 4096);
	uring_overflow(c, RQ(2) >> 4, 4096, false, 0);
	uring_overflow(c, RQ(3) >> 4, 4096, true, 0);
	uring_submit(c, 100, RQ(2));	/* the overflowed one's req, reused */
	uring_complete(c, 100, RQ(2), 4096);
}

TEST_F(fold, cq_overflow_matches_by_user_data)
{
	play(_metadata, self, overflow);
	EXPECT_EQ(VERDICT_PASS, INV(self->folded, INV_EXACTLY_ONCE)->verdict);
	EXPECT_EQ(2, checker_stats(self->folded)->engine[FSAIO_ENGINE_IO_URING].cq_overflow);
}

/* Multishot (F_MORE), teardown -ECANCELED, CQE_SKIP, failed init, links */
static void not_plain(struct checker *c)
{
	struct fsaio_record r;

	uring_submit(c, 100, RQ(1));
	r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 100, RQ(1));
	r.res = 100;
	r.arg0 = 1u << 1;	/* F_MORE */
	synth_feed(c, &r);
	uring_complete(c, 100, RQ(1), 0);
	uring_submit_skip(c, 100, RQ(2));
	uring_failed_init(c, 100, RQ(3), -22);
	uring_complete(c, 100, RQ(3), -22);
	uring_submit(c, 100, RQ(4));
	uring_submit(c, 100, RQ(5));
	uring_complete(c, 100, RQ(4), -5);
	uring_link_fail(c, 100, RQ(5));
	uring_complete(c, 100, RQ(5), -125);
	uring_submit(c, 100, RQ(6));
	r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 100, RQ(6));
	r.res = -125;
	r.flags = FSAIO_F_TEARDOWN;
	synth_feed(c, &r);
	ev_proc_exit(c, 100);
}

TEST_F(fold, requests_the_checker_reads_flags_of_go_as_records)
{
	uint64_t sent = play(_metadata, self, not_plain);

	/* only RQ(4), a plain final CQE with an error, is folded */
	EXPECT_EQ(1, m.counts.lifecycles);
	EXPECT_EQ(1, m.counts.errors);
	EXPECT_EQ(self->records - 2 + 1, sent);	/* + the end record */
}

/* The process exits with a request in flight, whose CQE comes later
 * (ring teardown): the exit sends its SUBMIT first */
static void exit_in_flight(struct checker *c)
{
	struct fsaio_record r;

	uring_submit(c, 100, RQ(1));
	uring_submit(c, 100, RQ(2));
	uring_complete(c, 100, RQ(2), 4096);
	ev_proc_exit(c, 100);
	r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 0, RQ(1));
	r.res = -125;
	r.flags = FSAIO_F_TEARDOWN;
	synth_feed(c, &r);
}

TEST_F(fold, exit_sends_what_the_process_left_in_flight)
{
	play(_metadata, self, exit_in_flight);
	EXPECT_EQ(VERDICT_PASS, INV(self->folded, INV_QUIESCENCE)->verdict);
}

TEST_HARNESS_MAIN
