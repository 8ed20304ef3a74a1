// SPDX-License-Identifier: GPL-2.0
/*
 * fsaio check folds plain io_uring and libaio lifecycles in the kernel
 * (bpf/fsaio_fold.h, bpf/fsaio_fold_aio.h): a submit is kept in a table, a
 * plain end of it (io_uring: a final CQE; libaio: its batch accepted, the
 * kernel's COMPLETE, one REAP of the same result) is counted, anything
 * else sends what was kept first.  The
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
#include "bpf/fsaio_fold_aio.h"

#pragma GCC diagnostic ignored "-Wsign-compare"

#define FOLD_BATCH_SENT_MODEL	(1ull << 32)	/* maps.bpf.h FOLD_BATCH_SENT */
#define FOLD_BATCH_PARTIAL_MODEL (1ull << 33)	/* and FOLD_BATCH_PARTIAL */

/* The BPF side of fold: the same tables and state machines. */
#define MODEL_THREADS	8

static struct fold_model {
	struct fsaio_fold_req slot[FSAIO_FOLD_SLOTS];
	struct fsaio_fold_aio aslot[FSAIO_FOLD_AIO_SLOTS];
	struct fsaio_fold_counts counts;
	uint32_t aio_mode;	/* fold_aio: FOLD_AIO_KCOMPLETE or _BARE */
	/* sys_state.fold_batch of the submitting threads */
	struct { uint32_t pid; uint64_t fold_batch; } thr[MODEL_THREADS];
	__u64 seq;		/* the ring buffer's: folded records take none */
	__u64 unsent;		/* fold_unsent: promotes numbered, not yet sent */
	uint64_t sent;
} m;

/* A record numbered as it is sent (seq 0), or before (a promote's) */
static void send_seq(struct checker *c, struct fsaio_record r, uint64_t seq)
{
	if (r.type != FSAIO_EV_TRACE_END)
		r.seq = seq ? seq : ++m.seq;
	m.sent++;
	synth_rc |= checker_feed(c, &r);
}

/* Where the model's promotes take their numbers (FOLD_NUMBERS) */
#define M_NUMBERS	(&(const struct fsaio_fold_numbers){ .seq = &m.seq, .unsent = &m.unsent })

static void send(struct checker *c, struct fsaio_record r)
{
	send_seq(c, r, 0);
}

/* The numbers of a promote that lost its slot (FSAIO_FOLD_SEND_VOID) */
static void send_voids(struct checker *c, int what, uint64_t seq, uint64_t req)
{
	struct fsaio_record r;

	for (uint32_t i = 0; i < fsaio_fold_nrecords(what); i++) {
		memset(&r, 0, sizeof(r));
		r.version = FSAIO_RECORD_VERSION;
		r.type = FSAIO_EV_VOID;
		r.req = req;
		send_seq(c, r, ++seq);
	}
	if (fsaio_fold_nrecords(what))
		m.unsent--;
}

/* fold_send() */
static void send_kept(struct checker *c, int what, const struct fsaio_fold_req *snap)
{
	static const int order[] = { FSAIO_FOLD_SEND_SUBMIT, FSAIO_FOLD_SEND_PUNT,
				     FSAIO_FOLD_SEND_LINK_FAIL, FSAIO_FOLD_SEND_CQE };
	struct fsaio_record r;
	uint64_t seq = snap->seq;

	if (what <= 0)
		return;
	if (what & FSAIO_FOLD_SEND_VOID) {
		send_voids(c, what, seq, snap->req);
		return;
	}
	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(what & order[i]))
			continue;
		memset(&r, 0, sizeof(r));
		r.version = FSAIO_RECORD_VERSION;
		if (order[i] == FSAIO_FOLD_SEND_SUBMIT)
			fsaio_fold_submit_record(&r, snap);
		else if (order[i] == FSAIO_FOLD_SEND_CQE)
			fsaio_fold_complete_record(&r, snap);
		else
			fsaio_fold_note_record(&r, snap, order[i] >> 4);
		send_seq(c, r, ++seq);
	}
	if (what & FSAIO_FOLD_SEND_CQE)
		fsaio_fold_uncount(&m.counts, snap);
	m.unsent--;
}

static struct fsaio_fold_req *slot_of(uint64_t req)
{
	return &m.slot[fsaio_fold_slot(req)];
}

/* fold_promote_all(): an overflowed CQE's ring, or an exiting process */
static void promote_all(struct checker *c, uint64_t ring, uint32_t tgid)
{
	struct fsaio_fold_req snap;

	for (unsigned i = 0; i < FSAIO_FOLD_SLOTS; i++) {
		struct fsaio_fold_req *f = &m.slot[i];

		if (FSAIO_FOLD_ST(f->state) == FSAIO_FOLD_PENDING &&
		    ((ring && f->ring == ring) || (tgid && f->tgid == tgid)))
			send_kept(c, fsaio_fold_promote(f, 0, &snap, M_NUMBERS), &snap);
	}
}

static uint64_t *batch_word(uint32_t pid)
{
	for (int i = 0; i < MODEL_THREADS; i++)
		if (m.thr[i].pid == pid || !m.thr[i].pid) {
			m.thr[i].pid = pid;
			return &m.thr[i].fold_batch;
		}
	abort();
}

static struct fsaio_fold_aio *aslot_of(uint32_t tgid, uint64_t req);

/* fold_aio_send() */
static void send_kept_aio(struct checker *c, int what, const struct fsaio_fold_aio *snap)
{
	struct fsaio_record r;
	uint64_t *w, open = (uint32_t)snap->batch;
	uint64_t seq = snap->seq;
	bool closed;

	if (what <= 0)
		return;	/* *snap was not written */
	if (what & FSAIO_FOLD_SEND_VOID) {
		send_voids(c, what, seq, snap->req);
		return;
	}
	w = batch_word(snap->pid);
	closed = (*w & ~FOLD_BATCH_SENT_MODEL) != open && *w != (open | FOLD_BATCH_PARTIAL_MODEL);
	if ((*w & ~FOLD_BATCH_SENT_MODEL) == open)
		*w |= FOLD_BATCH_SENT_MODEL;
	memset(&r, 0, sizeof(r));
	r.version = FSAIO_RECORD_VERSION;
	fsaio_fold_aio_submit_record(&r, snap, closed);
	send_seq(c, r, ++seq);
	for (int kcqe = 1; kcqe >= 0; kcqe--) {
		if (!(what & (kcqe ? FSAIO_FOLD_SEND_KCQE : FSAIO_FOLD_SEND_REAP)))
			continue;
		memset(&r, 0, sizeof(r));
		r.version = FSAIO_RECORD_VERSION;
		fsaio_fold_aio_end_record(&r, snap, kcqe);
		send_seq(c, r, ++seq);
	}
	if (what & FSAIO_FOLD_SEND_REAP)
		fsaio_fold_aio_uncount(&m.counts.e[FSAIO_ENGINE_LIBAIO], snap);
	m.unsent--;
}

/* The submitter's tgid of a kernel-side libaio event (fsaio_tp.bpf.c
 * remembers it per request): a kept entry's, else the record's. */
static uint32_t aio_tgid(const struct fsaio_record *r)
{
	for (unsigned i = 0; i < FSAIO_FOLD_AIO_SLOTS; i++)
		if (m.aslot[i].req == r->req && FSAIO_FOLD_ST(m.aslot[i].state) != FSAIO_FOLD_FREE)
			return m.aslot[i].tgid;
	return r->tgid;
}

static struct fsaio_fold_aio *aslot_of(uint32_t tgid, uint64_t req)
{
	return &m.aslot[fsaio_fold_aio_slot(tgid, req)];
}

/* fold_aio_promote_all(): a process exit, an io_destroy, a partial batch */
static void promote_all_aio(struct checker *c, uint32_t tgid, uint64_t ring, uint32_t pid,
			    int32_t batch)
{
	struct fsaio_fold_aio snap;

	for (unsigned i = 0; i < FSAIO_FOLD_AIO_SLOTS; i++) {
		struct fsaio_fold_aio *f = &m.aslot[i];

		if (!fsaio_fold_aio_kept(FSAIO_FOLD_ST(f->state)))
			continue;
		if (pid ? f->pid == pid && f->batch == batch :
			  f->tgid == tgid && (!ring || f->ring == ring))
			send_kept_aio(c, fsaio_fold_aio_promote(f, 0, 0, &snap, M_NUMBERS), &snap);
	}
}

/* What libaio.bpf.c and fsaio_tp.bpf.c do with a libaio record: true if
 * it was folded (not sent). */
static bool model_feed_aio(struct checker *c, const struct fsaio_record *r)
{
	struct fsaio_fold_aio *f, snap;
	uint64_t *bw, w;
	int what;

	switch (r->type) {
	case FSAIO_EV_SUBMIT:					/* fold_aio_submit() */
		bw = batch_word(r->pid);
		if ((*bw & ~FOLD_BATCH_SENT_MODEL) != (uint32_t)fsaio_submit_batch(r))
			*bw = (uint32_t)fsaio_submit_batch(r);	/* io_submit's entry */
		f = aslot_of(r->tgid, r->req);
		w = fsaio_fold_aio_take(f, r->tgid, r->req, &snap, &what, M_NUMBERS);
		send_kept_aio(c, what, &snap);
		if (!w) {
			fsaio_fold_aio_forget(f, r->tgid, r->req);
			*bw |= FOLD_BATCH_SENT_MODEL;
			return false;
		}
		f->req = r->req;
		f->ts_ns = r->ts_ns;
		f->user_data = r->user_data;
		f->ring = r->ring;
		f->offset = r->arg0;
		f->nbytes = r->arg1;
		f->arg2 = r->arg2;
		f->batch = fsaio_submit_batch(r);
		f->kres = f->ures = 0;
		f->pid = r->pid;
		f->tgid = r->tgid;
		f->cpu = r->cpu;
		f->kdone = 0;
		memcpy(f->comm, r->comm, sizeof(f->comm));
		f->state = FSAIO_FOLD_WORD(w, FSAIO_FOLD_PENDING);
		return true;
	case FSAIO_EV_SUBMIT_DONE:				/* fold_aio_batch_close() */
		bw = batch_word(r->pid);
		if (!*bw)
			return false;
		if (r->res != (int64_t)r->arg0) {
			promote_all_aio(c, 0, 0, r->pid, fsaio_submit_done_batch(r));
			*bw = (uint32_t)fsaio_submit_done_batch(r) | FOLD_BATCH_PARTIAL_MODEL;
			return false;
		}
		w = *bw;
		*bw = 0;
		if (w & FOLD_BATCH_SENT_MODEL)
			return false;
		m.counts.e[FSAIO_ENGINE_LIBAIO].submit_calls++;
		m.counts.e[FSAIO_ENGINE_LIBAIO].submit_ns += r->arg1;
		return true;
	case FSAIO_EV_COMPLETE:					/* fold_aio_kcomplete() */
		if (m.aio_mode != FOLD_AIO_KCOMPLETE)
			break;
		what = fsaio_fold_aio_on_kcomplete(aslot_of(aio_tgid(r), r->req), aio_tgid(r),
						   r->req, r->res, &snap, M_NUMBERS);
		if (what < 0)
			return true;
		send_kept_aio(c, what, &snap);
		return false;
	case FSAIO_EV_REAP:					/* fold_aio_reap() */
		what = fsaio_fold_aio_on_reap(aslot_of(r->tgid, r->req), r->tgid, r->req, r->res,
					      m.aio_mode == FOLD_AIO_KCOMPLETE, &snap, M_NUMBERS);
		if (what < 0) {
			fsaio_fold_aio_count(&m.counts.e[FSAIO_ENGINE_LIBAIO], &snap);
			return true;
		}
		send_kept_aio(c, what, &snap);
		return false;
	case FSAIO_EV_IO_DESTROY:
		promote_all_aio(c, r->tgid, r->ring, 0, 0);
		return false;
	}
	if (r->req) {		/* RETRY, WAKE, RESUME, PUNT, FSYNC: fsaio_req_reserve() */
		uint32_t tgid = aio_tgid(r);

		send_kept_aio(c, fsaio_fold_aio_promote(aslot_of(tgid, r->req), tgid, r->req,
							&snap, M_NUMBERS), &snap);
	}
	return false;
}

/* tracer_fold_flush(): an io_uring request kept in flight, its SUBMIT and
 * notes as the harness's own records (no seq) */
static void flush_uring(struct checker *c, const struct fsaio_fold_req *f)
{
	struct fsaio_record r;

	memset(&r, 0, sizeof(r));
	r.version = FSAIO_RECORD_VERSION;
	fsaio_fold_submit_record(&r, f);
	r.flags |= FSAIO_F_INFERRED;
	synth_rc |= checker_feed(c, &r);
	for (uint64_t note = FSAIO_FOLD_F_PUNTED; note <= FSAIO_FOLD_F_LINK_FAILED; note <<= 1) {
		if (!(f->state & note))
			continue;
		memset(&r, 0, sizeof(r));
		r.version = FSAIO_RECORD_VERSION;
		fsaio_fold_note_record(&r, f, note);
		r.flags |= FSAIO_F_INFERRED;
		synth_rc |= checker_feed(c, &r);
	}
}

/* tracer_fold_flush(): the libaio ones kept in flight, in submit order */
static void flush_aio(struct checker *c)
{
	for (uint64_t ts = 0;;) {
		struct fsaio_fold_aio *next = NULL;
		struct fsaio_record r;

		for (unsigned i = 0; i < FSAIO_FOLD_AIO_SLOTS; i++)
			if (fsaio_fold_aio_kept(FSAIO_FOLD_ST(m.aslot[i].state)) &&
			    m.aslot[i].ts_ns > ts && (!next || m.aslot[i].ts_ns < next->ts_ns))
				next = &m.aslot[i];
		if (!next)
			break;
		memset(&r, 0, sizeof(r));
		r.version = FSAIO_RECORD_VERSION;
		fsaio_fold_aio_submit_record(&r, next, 1);
		r.flags |= FSAIO_F_INFERRED;	/* no seq, as the tracer sends it */
		synth_rc |= checker_feed(c, &r);
		if (FSAIO_FOLD_ST(next->state) == FSAIO_FOLD_KDONE) {
			memset(&r, 0, sizeof(r));
			r.version = FSAIO_RECORD_VERSION;
			fsaio_fold_aio_end_record(&r, next, 1);
			r.flags |= FSAIO_F_INFERRED;
			synth_rc |= checker_feed(c, &r);
		}
		ts = next->ts_ns;
	}
	memset(m.aslot, 0, sizeof(m.aslot));
}

/* What fsaio.bpf.c does with each record when fold is on. */
static void model_feed(struct checker *c, const struct fsaio_record *r)
{
	bool uring = r->engine == FSAIO_ENGINE_IO_URING;
	struct fsaio_fold_req *f, snap;
	int what;
	uint64_t w;

	if (r->engine == FSAIO_ENGINE_LIBAIO && model_feed_aio(c, r))
		return;
	if (uring && r->type == FSAIO_EV_SUBMIT) {		/* fold_submit() */
		f = slot_of(r->req);
		if (!fsaio_fold_submit_ok(r->flags)) {
			if (FSAIO_FOLD_ST(f->state) == FSAIO_FOLD_PENDING)
				send_kept(c, fsaio_fold_promote(f, r->req, &snap, M_NUMBERS), &snap);
			else
				fsaio_fold_forget(f, r->req);
			send(c, *r);
			return;
		}
		w = fsaio_fold_take(f, r->req, &snap, &what, M_NUMBERS);
		if (what == FSAIO_FOLD_ENDED_NO_CQE)
			fsaio_fold_count_no_cqe(&m.counts, &snap);
		else
			send_kept(c, what, &snap);
		if (!w) {
			send(c, *r);
			return;
		}
		f->req = r->req;
		f->ts_ns = r->ts_ns;
		f->user_data = r->user_data;
		f->ring = r->ring;
		f->flags = r->arg1;
		f->done_res = 0;
		f->pid = r->pid;
		f->tgid = r->tgid;
		f->cpu = r->cpu;
		f->opcode = r->arg0;
		memcpy(f->comm, r->comm, sizeof(f->comm));
		f->state = fsaio_fold_pending_word(w, r->arg1);
		return;
	}
	if (uring && r->type == FSAIO_EV_COMPLETE && (r->flags & FSAIO_F_OVERFLOW)) {
		promote_all(c, r->ring, 0);
	} else if (uring && r->type == FSAIO_EV_COMPLETE && !r->req &&
		   (r->arg0 & FSAIO_CQE_F_MORE)) {			/* fold_cqe() */
		m.counts.e[FSAIO_ENGINE_IO_URING].more_cqes++;
		return;
	} else if (uring && r->type == FSAIO_EV_COMPLETE && r->req) {	/* fold_cqe() */
		what = fsaio_fold_on_cqe(slot_of(r->req), r->req, r->res, r->arg0, r->flags,
					 &snap, M_NUMBERS);
		if (what == FSAIO_FOLD_DROPPED)
			return;
		if (what < 0) {
			fsaio_fold_count(&m.counts, &snap, r->res);
			return;
		}
		send_kept(c, what, &snap);
	} else if (uring && r->type == FSAIO_EV_SUBMIT_DONE) {
		m.counts.e[FSAIO_ENGINE_IO_URING].submit_calls++;
		m.counts.e[FSAIO_ENGINE_IO_URING].submit_ns += r->arg1;
		return;
	} else if (uring && (r->type == FSAIO_EV_PUNT || r->type == FSAIO_EV_LINK_FAIL) &&
		   r->req) {					/* fold_note() */
		what = fsaio_fold_on_note(slot_of(r->req), r->req, r->type == FSAIO_EV_PUNT ?
					  FSAIO_FOLD_F_PUNTED : FSAIO_FOLD_F_LINK_FAILED,
					  r->arg2, &snap, M_NUMBERS);
		if (what < 0)
			return;
		send_kept(c, what, &snap);
	} else if (uring && (r->type == FSAIO_EV_RETRY || r->type == FSAIO_EV_WAKE ||
			     r->type == FSAIO_EV_RESUME) && r->req) {
		send_kept(c, fsaio_fold_promote(slot_of(r->req), r->req, &snap, M_NUMBERS), &snap);
	} else if (r->type == FSAIO_EV_PROC_EXIT) {
		*batch_word(r->tgid) = 0;	/* its sys_state is gone */
		promote_all(c, 0, r->tgid);
		promote_all_aio(c, r->tgid, 0, 0, 0);
	} else if (r->type == FSAIO_EV_TRACE_END) {
		/* session_end(): tracer_fold_flush(), in submit order */
		for (uint64_t ts = 0;;) {
			struct fsaio_fold_req *next = NULL;

			for (unsigned i = 0; i < FSAIO_FOLD_SLOTS; i++)
				if (FSAIO_FOLD_ST(m.slot[i].state) == FSAIO_FOLD_PENDING &&
				    m.slot[i].ts_ns > ts && (!next || m.slot[i].ts_ns < next->ts_ns))
					next = &m.slot[i];
			if (!next)
				break;
			flush_uring(c, next);
			ts = next->ts_ns;
		}
		memset(m.slot, 0, sizeof(m.slot));
		flush_aio(c);
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
	m.aio_mode = FOLD_AIO_KCOMPLETE;	/* the fsaio tracepoints: synth_cfg_all() */
	synth_rc = 0;
}

/* A stock kernel: no kernel COMPLETE of libaio requests (FOLD_AIO_BARE) */
static void use_stock(struct __test_metadata *_metadata, FIXTURE_DATA(fold) *self)
{
	struct checker_config cfg = synth_cfg_stock();

	checker_free(self->direct);
	checker_free(self->folded);
	self->direct = checker_new(&cfg);
	self->folded = checker_new(&cfg);
	ASSERT_NE(NULL, self->direct);
	ASSERT_NE(NULL, self->folded);
	m.aio_mode = FOLD_AIO_BARE;
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
	EXPECT_EQ(0, m.unsent);	/* every numbering was sent */
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

	/* RQ(1), a multishot request (its F_MORE CQE dropped), RQ(4), a
	 * plain final CQE with an error, and RQ(5), a failed chain's link
	 * and its -ECANCELED, are folded */
	EXPECT_EQ(3, m.counts.e[FSAIO_ENGINE_IO_URING].lifecycles);
	EXPECT_EQ(2, m.counts.e[FSAIO_ENGINE_IO_URING].errors);
	EXPECT_EQ(1, m.counts.e[FSAIO_ENGINE_IO_URING].link_fails);
	EXPECT_EQ(self->records - 8 + 1, sent);	/* + the end record */
}

/* Multishot at full rate, and cancellations on a live ring (a link
 * timeout, IORING_OP_ASYNC_CANCEL): -ECANCELED without teardown ends a
 * request as any error does */
static void multishot_and_cancel(struct checker *c)
{
	struct fsaio_record r;

	uring_submit(c, 100, RQ(1));
	for (int i = 0; i < 1000; i++) {
		r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 100, RQ(1));
		r.res = 1;
		r.arg0 = FSAIO_CQE_F_MORE;
		synth_feed(c, &r);
	}
	uring_complete(c, 100, RQ(1), -125);	/* cancelled: the last CQE */
	for (int i = 0; i < 100; i++) {		/* posted without their req */
		r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 100, 0);
		r.res = 1;
		r.arg0 = FSAIO_CQE_F_MORE;
		synth_feed(c, &r);
	}
	uring_submit(c, 100, RQ(2));		/* a read with a link timeout */
	uring_submit(c, 100, RQ(3));		/* the timeout */
	uring_complete(c, 100, RQ(2), -125);
	uring_complete(c, 100, RQ(3), -62);	/* -ETIME */
	/* a multishot CQE after the request ended: completed twice */
	r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 100, RQ(1));
	r.res = 1;
	r.arg0 = FSAIO_CQE_F_MORE;
	synth_feed(c, &r);
}

TEST_F(fold, multishot_and_cancellations_fold)
{
	uint64_t sent = play(_metadata, self, multishot_and_cancel);

	EXPECT_EQ(VERDICT_FAIL, INV(self->folded, INV_EXACTLY_ONCE)->verdict);
	EXPECT_NE(NULL, strstr(INV(self->folded, INV_EXACTLY_ONCE)->detail, "completed twice"));
	EXPECT_EQ(2, m.counts.e[FSAIO_ENGINE_IO_URING].lifecycles);	/* RQ(2), RQ(3) */
	/* RQ(1)'s pair and the late CQE, the end record: of 1,107 records */
	EXPECT_EQ(1107, self->records);
	EXPECT_EQ(100, m.counts.e[FSAIO_ENGINE_IO_URING].more_cqes);
	EXPECT_EQ(4, sent);
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

/* Two requests whose reqs share a slot, both in flight: the second's
 * submit promotes the first (its SUBMIT sent) and takes the slot */
static uint64_t rq_twin;

static void slot_taken(struct checker *c)
{
	uring_submit(c, 100, RQ(0));
	uring_submit(c, 100, rq_twin);
	uring_complete(c, 100, RQ(0), 4096);
	uring_complete(c, 100, rq_twin, 4096);
	uring_submit(c, 100, RQ(0));	/* and back: kept again */
	uring_complete(c, 100, RQ(0), 4096);
}

TEST_F(fold, a_pending_request_whose_slot_is_taken_is_sent)
{
	uint64_t sent;

	for (int i = 1; !rq_twin; i++)
		if (fsaio_fold_slot(RQ(i)) == fsaio_fold_slot(RQ(0)))
			rq_twin = RQ(i);
	sent = play(_metadata, self, slot_taken);
	EXPECT_EQ(VERDICT_PASS, INV(self->folded, INV_EXACTLY_ONCE)->verdict);
	/* the twin's submit evicted RQ(0) (its SUBMIT numbered before the
	 * slot changed hands) and was kept; RQ(0) again is kept too */
	EXPECT_EQ(2, m.counts.e[FSAIO_ENGINE_IO_URING].lifecycles);
	EXPECT_EQ(3, sent);	/* RQ(0)'s first SUBMIT and COMPLETE, the end */
}

/* io-wq punts and failed chains: noted in the kept request; sent with it
 * when anything else is said (a resume after the punt needs its PUNT), a
 * link whose CQE the kernel skipped ends at its req's next submit, and
 * what is in flight at the end goes with its notes */
static void punts_and_links(struct checker *c)
{
	for (int i = 0; i < 8; i++)
		uring_submit(c, 100, RQ(i));
	for (int i = 0; i < 4; i++)
		ev_req(c, FSAIO_EV_PUNT, FSAIO_ENGINE_IO_URING, 100, RQ(i));
	uring_complete(c, 100, RQ(0), 4096);		/* punted, plain: folded */
	ev_resume(c, FSAIO_ENGINE_IO_URING, 100, RQ(1), 1);	/* io-wq runs it */
	uring_complete(c, 100, RQ(1), 4096);
	ev_req(c, FSAIO_EV_PUNT, FSAIO_ENGINE_IO_URING, 100, RQ(2));	/* again */
	uring_complete(c, 100, RQ(2), 4096);
	uring_link_fail(c, 100, RQ(4));
	uring_complete(c, 100, RQ(4), -125);		/* folded */
	uring_link_fail(c, 100, RQ(5));			/* its CQE skipped */
	uring_submit(c, 100, RQ(5));			/* the req reused */
	uring_complete(c, 100, RQ(5), 4096);
	uring_link_fail(c, 100, RQ(6));			/* in flight at the end */
	/* RQ(3) punted, RQ(7) plain: in flight at the end too */
}

TEST_F(fold, punts_and_failed_links_are_noted)
{
	play(_metadata, self, punts_and_links);
	EXPECT_EQ(VERDICT_FAIL, INV(self->folded, INV_QUIESCENCE)->verdict);
	EXPECT_EQ(VERDICT_PASS, INV(self->folded, INV_EXACTLY_ONCE)->verdict);
	/* RQ(0), RQ(4), RQ(5) ended without a CQE at its reuse, and again */
	EXPECT_EQ(4, m.counts.e[FSAIO_ENGINE_IO_URING].lifecycles);
	EXPECT_EQ(1, m.counts.e[FSAIO_ENGINE_IO_URING].cqe_skipped);
	EXPECT_EQ(1, m.counts.e[FSAIO_ENGINE_IO_URING].punts);
	EXPECT_EQ(5, checker_stats(self->folded)->engine[FSAIO_ENGINE_IO_URING].punts);
	/* RQ(5), and RQ(6) settled at the end */
	EXPECT_EQ(2, checker_stats(self->folded)->engine[FSAIO_ENGINE_IO_URING].cqe_skipped);
}

/* IOSQE_CQE_SKIP_SUCCESS at full rate: a request that succeeds posts no
 * CQE and ends when its req is submitted again; one that fails posts its
 * CQE; the last ones are in flight at the end (the checker settles them) */
static void cqe_skip_reuse(struct checker *c)
{
	for (int i = 0; i < 400; i++) {
		uring_submit_skip(c, 100, RQ(i % 8));
		if (i % 50 == 7)
			uring_complete(c, 100, RQ(i % 8), -5);
	}
	uring_submit(c, 100, RQ(0));		/* a plain one on a skipped req */
	uring_complete(c, 100, RQ(0), 4096);
	uring_complete(c, 100, RQ(0), 4096);	/* completed twice */
}

TEST_F(fold, cqe_skip_requests_end_at_their_reuse)
{
	uint64_t sent = play(_metadata, self, cqe_skip_reuse);

	EXPECT_EQ(VERDICT_FAIL, INV(self->folded, INV_EXACTLY_ONCE)->verdict);
	/* 400 submits: 8 failed with a CQE, 385 ended by their req's reuse
	 * (RQ(0)'s last by the plain submit), RQ(1..7)'s last in flight at
	 * the end, where the checker settles them */
	EXPECT_EQ(385, m.counts.e[FSAIO_ENGINE_IO_URING].cqe_skipped);
	EXPECT_EQ(392, checker_stats(self->folded)->engine[FSAIO_ENGINE_IO_URING].cqe_skipped);
	EXPECT_EQ(4, sent);	/* the pair of the one completed twice, its CQE, the end */
}

/* ---- libaio ---- */

#define IOCB(i)	(0x7f5500001000ull + (uint64_t)(i) * 64)

/* fio-like: batches of 8 reads, completed by the kernel, reaped */
static void aio_plain(struct checker *c)
{
	for (int b = 1; b <= 4; b++) {
		aio_batch(c, 100, IOCB(0), b, 8);
		for (int i = 0; i < 8; i++)
			aio_complete(c, IOCB(i), 4096);
		for (int i = 0; i < 8; i++)
			aio_reap(c, 100, IOCB(i), 4096);
	}
	ev_proc_exit(c, 100);
}

TEST_F(fold, aio_plain_reads_send_only_the_exit)
{
	uint64_t sent = play(_metadata, self, aio_plain);

	EXPECT_EQ(VERDICT_PASS, INV(self->folded, INV_EXACTLY_ONCE)->verdict);
	EXPECT_EQ(32, INV(self->folded, INV_EXACTLY_ONCE)->observations);
	EXPECT_EQ(VERDICT_PASS, INV(self->folded, INV_QUIESCENCE)->verdict);
	/* 32 x (SUBMIT + COMPLETE + REAP) + 4 SUBMIT_DONE + the exit */
	EXPECT_EQ(101, self->records);
	EXPECT_EQ(2, sent);	/* the exit and the end record */
	EXPECT_EQ(100, checker_stats(self->folded)->aggregated);
}

static void aio_plain_stock(struct checker *c)
{
	for (int b = 1; b <= 2; b++) {
		aio_batch(c, 100, IOCB(0), b, 4);
		for (int i = 0; i < 4; i++)
			aio_reap(c, 100, IOCB(i), i == 3 ? -5 : 4096);
	}
}

TEST_F(fold, aio_stock_kernel_folds_submit_and_reap)
{
	uint64_t sent;

	use_stock(_metadata, self);
	sent = play(_metadata, self, aio_plain_stock);
	EXPECT_EQ(VERDICT_PASS, INV(self->folded, INV_EXACTLY_ONCE)->verdict);
	EXPECT_EQ(8, m.counts.e[FSAIO_ENGINE_LIBAIO].lifecycles);
	EXPECT_EQ(2, m.counts.e[FSAIO_ENGINE_LIBAIO].errors);
	EXPECT_EQ(1, sent);	/* the end record */
}

/* io_submit took 2 of 4: the kept SUBMITs go, then the SUBMIT_DONE */
static void aio_partial_batch(struct checker *c)
{
	for (int i = 0; i < 4; i++)
		aio_submit(c, 100, IOCB(i), 1, i);
	aio_submit_done(c, 100, 1, 4, 2);
	for (int i = 0; i < 2; i++) {
		aio_complete(c, IOCB(i), 4096);
		aio_reap(c, 100, IOCB(i), 4096);
	}
}

TEST_F(fold, aio_partial_batch_is_judged_whole)
{
	play(_metadata, self, aio_partial_batch);
	EXPECT_EQ(VERDICT_PASS, INV(self->folded, INV_QUIESCENCE)->verdict);
	EXPECT_EQ(2, INV(self->folded, INV_EXACTLY_ONCE)->observations);
}

/* Rule breakers at full rate, among plain requests */
static void aio_breakers(struct checker *c)
{
	aio_batch(c, 100, IOCB(0), 1, 6);
	for (int i = 0; i < 6; i++)
		if (i != 4)
			aio_complete(c, IOCB(i), 4096);
	aio_reap(c, 100, IOCB(0), 4096);
	aio_reap(c, 100, IOCB(0), 4096);	/* reaped twice */
	aio_reap(c, 100, IOCB(1), -5);		/* another result than the kernel's */
	aio_complete(c, IOCB(2), 4096);		/* completed twice */
	aio_reap(c, 100, IOCB(2), 4096);
	aio_reap(c, 100, IOCB(3), 4096);
	aio_reap(c, 100, IOCB(4), 4096);	/* no kernel COMPLETE */
	aio_submit(c, 100, IOCB(5), 2, 0);	/* submitted again before reaped */
	aio_submit_done(c, 100, 2, 1, 1);
	aio_reap(c, 100, IOCB(5), 4096);
}

TEST_F(fold, aio_rule_breakers_fail_as_without_folding)
{
	play(_metadata, self, aio_breakers);
	EXPECT_EQ(VERDICT_FAIL, INV(self->folded, INV_EXACTLY_ONCE)->verdict);
	/* the one plain request, IOCB(3), folded */
	EXPECT_EQ(1, m.counts.e[FSAIO_ENGINE_LIBAIO].lifecycles);
}

/* In flight at the end (KDONE and PENDING), and abandoned by io_destroy
 * and by the process's exit */
static void aio_left(struct checker *c)
{
	aio_batch(c, 100, IOCB(0), 1, 2);
	aio_complete(c, IOCB(0), 4096);
	aio_batch_in(c, 200, SYNTH_RING + 0x1000, IOCB(0), 1, 2);
	aio_complete(c, IOCB(1), 4096);
	aio_destroy(c, 200, SYNTH_RING + 0x1000, 0);
	aio_batch(c, 300, IOCB(0), 1, 1);
	ev_proc_exit(c, 300);
}

TEST_F(fold, aio_in_flight_and_abandoned_are_sent)
{
	play(_metadata, self, aio_left);
	EXPECT_EQ(VERDICT_FAIL, INV(self->folded, INV_QUIESCENCE)->verdict);
	EXPECT_EQ(0, m.counts.e[FSAIO_ENGINE_LIBAIO].lifecycles);
}

/* The patched kernel's async path: retry, wake, resume send the history */
static void aio_retried(struct checker *c)
{
	aio_batch(c, 100, IOCB(0), 1, 2);
	ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_LIBAIO, 100, IOCB(0));
	aio_complete(c, IOCB(1), 4096);
	ev_req(c, FSAIO_EV_WAKE, FSAIO_ENGINE_LIBAIO, 0, IOCB(0));
	ev_resume(c, FSAIO_ENGINE_LIBAIO, 100, IOCB(0), 1);
	aio_complete(c, IOCB(0), 4096);
	aio_reap(c, 100, IOCB(1), 4096);
	aio_reap(c, 100, IOCB(0), 4096);
}

TEST_F(fold, aio_retried_read_keeps_its_history)
{
	play(_metadata, self, aio_retried);
	EXPECT_EQ(VERDICT_PASS, INV(self->folded, INV_RETRY_LIFECYCLE)->verdict);
	EXPECT_EQ(1, m.counts.e[FSAIO_ENGINE_LIBAIO].lifecycles);
}

/*
 * A kept SUBMIT sent after its batch's SUBMIT_DONE was counted, while the
 * thread's next batch is open and records of it flow: it carries
 * FSAIO_F_ACCEPTED, or the checker would close the open batch early and
 * take its rejected entries for accepted ones.
 */
static void aio_late_accepted(struct checker *c)
{
	struct fsaio_record r;

	aio_batch(c, 100, IOCB(0), 1, 2);
	aio_complete(c, IOCB(0), 4096);
	aio_complete(c, IOCB(1), 4096);
	aio_submit(c, 100, IOCB(1), 2, 0);	/* again before reaped: sent */
	aio_submit(c, 100, IOCB(2), 2, 1);
	r = synth_rec(FSAIO_EV_REAP, FSAIO_ENGINE_LIBAIO, 100, IOCB(0));
	r.pid = 101;				/* another thread reaps */
	r.res = -5;				/* not the kernel's result */
	synth_feed(c, &r);
	aio_submit_done(c, 100, 2, 2, 0);	/* took none */
}

TEST_F(fold, aio_late_submit_of_an_accepted_batch)
{
	play(_metadata, self, aio_late_accepted);
	EXPECT_EQ(2, checker_stats(self->folded)->engine[FSAIO_ENGINE_LIBAIO].submitted);
}

/* More requests in flight than slots: evictions send, never change a verdict */
static void aio_many(struct checker *c)
{
	unsigned n = FSAIO_FOLD_AIO_SLOTS + 500;

	for (unsigned i = 0; i < n; i++)
		aio_submit(c, 100, IOCB(i), 1, i);
	aio_submit_done(c, 100, 1, n, n);
	for (unsigned i = 0; i < n; i++)
		aio_complete(c, IOCB(i), 4096);
	for (unsigned i = 0; i < n; i++)
		aio_reap(c, 100, IOCB(i), 4096);
}

TEST_F(fold, aio_more_in_flight_than_slots)
{
	uint64_t sent = play(_metadata, self, aio_many);

	EXPECT_EQ(VERDICT_PASS, INV(self->folded, INV_EXACTLY_ONCE)->verdict);
	EXPECT_EQ(FSAIO_FOLD_AIO_SLOTS + 500, INV(self->folded, INV_EXACTLY_ONCE)->observations);
	EXPECT_GT(m.counts.e[FSAIO_ENGINE_LIBAIO].lifecycles, 0);
	EXPECT_LT(sent, self->records);
}


/* A promote numbers its records before it claims the slot (PROMOTED):
 * whatever another CPU says about the request after the claim is
 * numbered later, however long the promoting CPU takes to write them. */
TEST(promote_numbers_its_records_before_it_claims_the_slot)
{
	struct fsaio_fold_req f = {
		.req = 0x1000, .state = FSAIO_FOLD_DONE | FSAIO_FOLD_F_PUNTED,
	}, snap;
	__u64 seq = 10, unsent = 0;
	struct fsaio_fold_numbers n = { .seq = &seq, .unsent = &unsent };

	EXPECT_EQ(FSAIO_FOLD_SEND_SUBMIT | FSAIO_FOLD_SEND_PUNT | FSAIO_FOLD_SEND_CQE,
		  fsaio_fold_promote(&f, 0x1000, &snap, &n));
	EXPECT_EQ(1, unsent);	/* until the sender has written them */
	EXPECT_EQ(10, snap.seq);	/* its records are 11, 12, 13 */
	EXPECT_EQ(13, seq);
	EXPECT_EQ(FSAIO_FOLD_PROMOTED, FSAIO_FOLD_ST(f.state));
	/* the next event about it: nothing kept, numbered after them */
	EXPECT_EQ(0, fsaio_fold_promote(&f, 0x1000, &snap, &n));
	EXPECT_EQ(13, seq);
}

/* Another CPU changes the slot between the promote's read and its claim
 * (here: the kernel COMPLETE folds): the claim fails, its number goes as
 * a VOID record, the promote asks again.  The checker then reads the
 * whole stream with nothing lost. */
TEST(promote_that_loses_its_slot_sends_its_numbers_void)
{
	struct fsaio_fold_aio f = {
		.req = 0x1000, .tgid = 7, .pid = 7, .batch = 1, .state = FSAIO_FOLD_PENDING,
	}, snap, moved;
	struct checker_config cfg = synth_cfg_all();
	struct checker *c = checker_new(&cfg);
	struct fsaio_record reap;
	__u64 w, seq = 0, unsent = 0;
	struct fsaio_fold_numbers n = { .seq = &seq, .unsent = &unsent };
	int what;

	ASSERT_NE(NULL, c);
	memset(&m, 0, sizeof(m));
	what = fsaio_fold_aio_promote_read(&f, 7, 0x1000, &snap, &w);
	ASSERT_EQ(FSAIO_FOLD_SEND_SUBMIT, what);
	/* meanwhile, on another CPU: the kernel's COMPLETE, folded */
	ASSERT_EQ(-1, fsaio_fold_aio_on_kcomplete(&f, 7, 0x1000, 4096, &moved, &n));
	what = fsaio_fold_number_and_swap(&f.state, w, what, &snap.seq, &n);
	EXPECT_EQ(FSAIO_FOLD_SEND_SUBMIT | FSAIO_FOLD_SEND_VOID, what);
	EXPECT_EQ(FSAIO_FOLD_KDONE, FSAIO_FOLD_ST(f.state));
	EXPECT_EQ(1, seq);
	m.seq = seq;
	m.unsent = unsent;
	send_kept_aio(c, what, &snap);				/* VOID 1 */
	what = fsaio_fold_aio_promote(&f, 7, 0x1000, &snap, M_NUMBERS);
	EXPECT_EQ(FSAIO_FOLD_SEND_SUBMIT | FSAIO_FOLD_SEND_KCQE, what);
	send_kept_aio(c, what, &snap);				/* SUBMIT 2, COMPLETE 3 */
	reap = synth_rec(FSAIO_EV_REAP, FSAIO_ENGINE_LIBAIO, 7, 0x1000);
	reap.res = 4096;
	send(c, reap);						/* REAP 4 */
	checker_finish(c);
	EXPECT_EQ(0, synth_rc);
	EXPECT_EQ(0, checker_stats(c)->lost);
	EXPECT_EQ(1, checker_stats(c)->voids);
	EXPECT_EQ(VERDICT_PASS, INV(c, INV_EXACTLY_ONCE)->verdict);
	checker_free(c);
}

/* A submit that evicts a kept request claims the slot for it, numbering
 * its SUBMIT first; an interrupt on the same CPU (the evicted request's
 * completion) before that SUBMIT is written then sends its COMPLETE
 * first, numbered after it.  Found tracing MariaDB on the patched kernel:
 * "reaped without a kernel completion", 0 lost: the completion waited for
 * the slot's sender it had interrupted, gave up and took the lower seq. */
TEST(interrupted_eviction_is_read_in_order)
{
	struct fsaio_fold_aio f = { .req = 0x1000, .tgid = 7, .state = FSAIO_FOLD_PENDING }, snap,
			      none;
	__u64 seq = 100, unsent = 0;
	struct fsaio_fold_numbers n = { .seq = &seq, .unsent = &unsent };
	int send;

	/* the new submit takes the slot once the evicted one is claimed */
	EXPECT_NE(0, fsaio_fold_aio_take(&f, 7, 0x2000, &snap, &send, &n));
	EXPECT_EQ(FSAIO_FOLD_SEND_SUBMIT, send);
	EXPECT_EQ(0x1000, snap.req);
	EXPECT_EQ(100, snap.seq);	/* the evicted SUBMIT is 101 */
	/* the interrupt: not the slot's request any more, nothing to send
	 * first; its own record takes the next number */
	EXPECT_EQ(0, fsaio_fold_aio_on_kcomplete(&f, 7, 0x1000, 4096, &none, &n));
	EXPECT_EQ(101, seq);
}

/* The same for io_uring's table: the evicting submit takes the slot after
 * the evicted request's claim; its CQE is numbered after its SUBMIT. */
TEST(eviction_numbers_the_evicted_submit_first)
{
	struct fsaio_fold_req f = { .req = 0x1000, .state = FSAIO_FOLD_PENDING }, snap, none;
	__u64 seq = 5, unsent = 0;
	struct fsaio_fold_numbers n = { .seq = &seq, .unsent = &unsent };
	int send;

	EXPECT_NE(0, fsaio_fold_take(&f, 0x2000, &snap, &send, &n));
	EXPECT_EQ(FSAIO_FOLD_SEND_SUBMIT, send);
	EXPECT_EQ(5, snap.seq);
	EXPECT_EQ(6, seq);
	EXPECT_EQ(0, fsaio_fold_on_cqe(&f, 0x1000, 0, 0, 0, &none, &n));
	/* the new one kept; its req submitted again while it is kept: the
	 * checker judges that pair, the kept SUBMIT goes first */
	f.req = 0x2000;
	f.state = FSAIO_FOLD_WORD(f.state, FSAIO_FOLD_PENDING);
	EXPECT_EQ(0, fsaio_fold_take(&f, 0x2000, &snap, &send, &n));
	EXPECT_EQ(FSAIO_FOLD_SEND_SUBMIT, send);
	EXPECT_EQ(7, seq);
}

TEST_HARNESS_MAIN
