/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Synthetic fsaio records for the unit tests: each helper builds one
 * record the way the tracer would and feeds it to a checker, numbering
 * records from seq 1 without gaps (synth_seq can be bumped to make one).
 */
#ifndef FSAIO_TEST_SYNTH_H
#define FSAIO_TEST_SYNTH_H

#include <string.h>
#include "core/checker.h"

static uint64_t synth_seq;
static int synth_rc;	/* OR of checker_feed() returns: tests assert it is 0 */

static inline struct fsaio_record synth_rec(int type, int engine, uint32_t tgid,
					    uint64_t req)
{
	struct fsaio_record r;

	memset(&r, 0, sizeof(r));
	r.version = FSAIO_RECORD_VERSION;
	r.type = type;
	r.seq = ++synth_seq;
	r.ts_ns = r.seq * 1000;
	r.pid = tgid;
	r.tgid = tgid;
	r.req = req;
	r.engine = engine;
	memcpy(r.comm, "synth", 6);
	return r;
}

/* When set, every record fed is counted there too, as the BPF side counts
 * it in aggregate mode (test_aggregate.c compares the two). */
static struct fsaio_agg *synth_agg;
/* When set, records go there instead of to the checker (test_fold.c puts
 * the BPF side's folding in between). */
static void (*synth_hook)(struct checker *c, const struct fsaio_record *r);

static inline void synth_feed(struct checker *c, const struct fsaio_record *r)
{
	if (synth_agg)
		fsaio_agg_account(synth_agg, r);
	if (synth_hook) {
		synth_hook(c, r);
		return;
	}
	synth_rc |= checker_feed(c, r);
}

/* Everything observable: the patched kernel with fsaio tracepoints. */
static inline struct checker_config synth_cfg_all(void)
{
	struct checker_config cfg = {
		.see_libaio_kernel_complete = true,
		.see_retry = true,
		.see_sleep = true,
		.libaio_async_expected = true,
		.skip_retry_reason = "test: retry not observable",
	};
	return cfg;
}

/* A stock host kernel: sleeps with stacks, no per-request retry events. */
static inline struct checker_config synth_cfg_stock(void)
{
	struct checker_config cfg = {
		.see_sleep = true,
		.skip_retry_reason = "test: retry not observable",
	};
	return cfg;
}

#define SYNTH_RING	0x7f1234560000ull	/* the default aio_context_t */

/* libaio: iocb at index idx of batch into context ring (thread pid == tgid) */
static inline void aio_submit_in(struct checker *c, uint32_t tgid, uint64_t ring,
				 uint64_t iocb, int32_t batch, uint32_t idx)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_SUBMIT, FSAIO_ENGINE_LIBAIO, tgid, iocb);

	r.user_data = iocb ^ 0xda7a;
	r.arg1 = 4096;
	r.arg2 = fsaio_submit_arg2(0 /* IOCB_CMD_PREAD */, 3, idx);
	r.res = batch;
	r.ring = ring;
	synth_feed(c, &r);
}

static inline void aio_submit(struct checker *c, uint32_t tgid, uint64_t iocb,
			      int32_t batch, uint32_t idx)
{
	aio_submit_in(c, tgid, SYNTH_RING, iocb, batch, idx);
}

/* io_destroy(ring) by tgid returned ret */
static inline void aio_destroy(struct checker *c, uint32_t tgid, uint64_t ring,
			       int32_t ret)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_IO_DESTROY, FSAIO_ENGINE_LIBAIO, tgid, 0);

	r.ring = ring;
	r.res = ret;
	r.arg1 = 5000;
	synth_feed(c, &r);
}

static inline void aio_submit_done(struct checker *c, uint32_t tgid, int32_t batch,
				   uint64_t nr, int32_t ret)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_SUBMIT_DONE, FSAIO_ENGINE_LIBAIO, tgid, 0);

	r.res = ret;
	r.arg0 = nr;
	r.arg1 = 1000;
	r.arg2 = (uint32_t)batch;	/* fsaio_submit_done_batch() */
	synth_feed(c, &r);
}

/* kernel completion, in some other context (tgid 0: interrupt) */
static inline void aio_complete(struct checker *c, uint64_t iocb, int32_t res)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_LIBAIO, 0, iocb);

	r.res = res;
	synth_feed(c, &r);
}

static inline void aio_reap(struct checker *c, uint32_t tgid, uint64_t iocb, int32_t res)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_REAP, FSAIO_ENGINE_LIBAIO, tgid, iocb);

	r.res = res;
	synth_feed(c, &r);
}

/* A whole accepted batch of n iocbs at base, base + 64, ... into ring */
static inline void aio_batch_in(struct checker *c, uint32_t tgid, uint64_t ring,
				uint64_t base, int32_t batch, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		aio_submit_in(c, tgid, ring, base + 64 * i, batch, i);
	aio_submit_done(c, tgid, batch, n, n);
}

static inline void aio_batch(struct checker *c, uint32_t tgid, uint64_t base,
			     int32_t batch, unsigned n)
{
	aio_batch_in(c, tgid, SYNTH_RING, base, batch, n);
}

#define SYNTH_URING_RING	0xffff888007770000ull	/* the struct io_ring_ctx */

static inline void uring_submit(struct checker *c, uint32_t tgid, uint64_t req)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_SUBMIT, FSAIO_ENGINE_IO_URING, tgid, req);

	r.user_data = req >> 4;
	r.ring = SYNTH_URING_RING;
	synth_feed(c, &r);
}

/* io_uring_submit_req of an SQE with IOSQE_CQE_SKIP_SUCCESS: no CQE if it
 * succeeds */
static inline void uring_submit_skip(struct checker *c, uint32_t tgid, uint64_t req)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_SUBMIT, FSAIO_ENGINE_IO_URING, tgid, req);

	r.user_data = req >> 4;
	r.arg1 = FSAIO_URING_REQ_CQE_SKIP;
	r.ring = SYNTH_URING_RING;
	synth_feed(c, &r);
}

/* io_uring_fail_link: link cancelled because its chain failed (in the
 * submitter or in task_work: tgid as given) */
static inline void uring_link_fail(struct checker *c, uint32_t tgid, uint64_t link)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_LINK_FAIL, FSAIO_ENGINE_IO_URING, tgid, link);

	r.ring = SYNTH_URING_RING;
	synth_feed(c, &r);
}

/* io_uring_req_failed: the SQE failed at init (user_data = req >> 4 too) */
static inline void uring_failed_init(struct checker *c, uint32_t tgid, uint64_t req,
				     int32_t err)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_SUBMIT, FSAIO_ENGINE_IO_URING, tgid, req);

	r.flags = FSAIO_F_FAILED_INIT;
	r.user_data = req >> 4;
	r.res = err;
	r.ring = SYNTH_URING_RING;
	synth_feed(c, &r);
}

/* io_uring_cqe_overflow: no req; the CQE of the request with this
 * user_data went to the overflow list (or was dropped) */
static inline void uring_overflow(struct checker *c, uint64_t user_data, int32_t res,
				  bool dropped, uint32_t cflags)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, 0, 0);

	r.flags = FSAIO_F_OVERFLOW | (dropped ? FSAIO_F_DROPPED : 0);
	r.user_data = user_data;
	r.res = res;
	r.arg0 = cflags;
	r.ring = SYNTH_URING_RING;
	synth_feed(c, &r);
}

static inline void uring_submit_done(struct checker *c, uint32_t tgid, int32_t ret)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_SUBMIT_DONE, FSAIO_ENGINE_IO_URING, tgid, 0);

	r.res = ret;
	r.arg0 = ret;
	r.arg1 = 500;
	synth_feed(c, &r);
}

static inline void uring_complete(struct checker *c, uint32_t tgid, uint64_t req,
				  int32_t res)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_COMPLETE, FSAIO_ENGINE_IO_URING, tgid, req);

	r.res = res;
	synth_feed(c, &r);
}

/* RETRY/WAKE/PUNT for req; WAKE runs in the waker's context (tgid 0) */
static inline void ev_req(struct checker *c, int type, int engine, uint32_t tgid,
			  uint64_t req)
{
	struct fsaio_record r = synth_rec(type, engine, tgid, req);

	if (type == FSAIO_EV_RETRY) {
		r.res = -529;	/* -EIOCBQUEUED */
		r.site = FSAIO_SITE_FOLIO_BIT;
	}
	synth_feed(c, &r);
}

static inline void ev_resume(struct checker *c, int engine, uint32_t tgid,
			     uint64_t req, int same_mm)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_RESUME, engine, tgid, req);

	r.arg0 = tgid + 1;
	r.arg1 = same_mm;
	synth_feed(c, &r);
}

static inline void ev_sleep(struct checker *c, uint32_t pid, int ctx, int site,
			    uint64_t ns)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_SLEEP, FSAIO_ENGINE_NONE, pid, 0);

	r.ctx = ctx;
	r.site = site;
	r.arg0 = ns;
	r.arg1 = 209;	/* __NR_io_submit */
	r.nr_stack = 3;
	r.stack[0] = 0xffffffff81000000ull;
	synth_feed(c, &r);
}

static inline void ev_proc_exit(struct checker *c, uint32_t tgid)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_PROC_EXIT, FSAIO_ENGINE_NONE, tgid, 0);

	synth_feed(c, &r);
}

/* The harness-written end record: no seq, arg0 = lost */
static inline void trace_end(struct checker *c, uint64_t lost)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_TRACE_END, FSAIO_ENGINE_NONE, 0, 0);

	synth_seq--;
	r.seq = 0;
	r.arg0 = lost;
	synth_feed(c, &r);
}

/* A TRACE_END of today's tracer: n records dropped for one cause */
static inline void trace_end_drops(struct checker *c, unsigned cause, uint64_t n)
{
	struct fsaio_record r = synth_rec(FSAIO_EV_TRACE_END, FSAIO_ENGINE_NONE, 0, 0);

	synth_seq--;
	r.seq = 0;
	r.arg0 = n;
	r.stack[cause] = n;
	synth_feed(c, &r);
}

/* End the trace cleanly and evaluate. */
static inline void synth_finish(struct checker *c)
{
	trace_end(c, 0);
	checker_finish(c);
}

#define INV(c, id)	checker_result((c), (id))

#endif
