// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics that do not come from one record: the counts the BPF side
 * kept in its place (aggregated, folded) and the sums over runs.
 */
#include "core/checker_int.h"

static void cell_add(struct wait_cell *d, const struct wait_cell *a)
{
	int i;

	d->count += a->count;
	d->total_ns += a->total_ns;
	d->max_ns = a->max_ns > d->max_ns ? a->max_ns : d->max_ns;
	for (i = 0; i < HIST_BUCKETS; i++)
		d->hist[i] += a->hist[i];
}

void checker_stats_add_aggregate(struct checker_stats *st, const struct fsaio_agg *a)
{
	int e;

	for (e = 0; e < FSAIO_ENGINE__COUNT; e++) {
		struct engine_stats *es = &st->engine[e];
		const __u64 *k = a->c[e];

#define X(counter, field) es->field += k[counter];
		FSAIO_AGG_FIELDS(X)
#undef X
	}
	st->aggregated += a->counted;
}

void checker_add_aggregate(struct checker *c, const struct fsaio_agg *a)
{
	checker_stats_add_aggregate(&c->st, a);
}

void checker_add_folded(struct checker *c, const struct fsaio_fold_counts *f)
{
	int e, k;

	for (e = FSAIO_ENGINE_LIBAIO; e < FSAIO_ENGINE__COUNT; e++) {
		const struct fsaio_fold_engine *fe = &f->e[e];
		struct engine_stats *es = &c->st.engine[e];
		/* the records each stands for: a SUBMIT and its end (io_uring:
		 * the final COMPLETE; libaio: the REAP, and the kernel's
		 * COMPLETE where one is traced), and the SUBMIT_DONEs */
		uint64_t per = e == FSAIO_ENGINE_LIBAIO && c->cfg.see_libaio_kernel_complete ? 3 : 2;

		es->submitted += fe->lifecycles;
		es->completed += fe->lifecycles;
		es->errors += fe->errors;
		es->submit_calls += fe->submit_calls;
		es->submit_ns += fe->submit_ns;
		es->punts += fe->punts;
		es->cqe_skipped += fe->cqe_skipped;
		for (k = 0; k < FSAIO_FOLD_OPS; k++)
			c->st.by_opcode[e][k < FSAIO_MAX_OPCODE ? k : FSAIO_MAX_OPCODE - 1] +=
				fe->by_opcode[k];
		c->lifecycles += fe->lifecycles;
		c->folded[e] += fe->lifecycles;
		/* (those that ended without a CQE had none) */
		c->st.aggregated += per * fe->lifecycles + fe->submit_calls + fe->punts +
				    fe->link_fails + fe->more_cqes - fe->cqe_skipped;
		c->more_cqes += fe->more_cqes;
	}
}

void checker_stats_add(struct checker_stats *sum, const struct checker_stats *s)
{
	int e, site, ctx;

	for (e = 0; e < FSAIO_ENGINE__COUNT; e++) {
#define X(field, what) sum->engine[e].field += s->engine[e].field;
		FSAIO_ENGINE_STATS(X)
#undef X
	}
	for (site = 0; site < FSAIO_SITE__COUNT; site++)
		for (ctx = 0; ctx < FSAIO_CTX__COUNT; ctx++)
			cell_add(&sum->waits[site][ctx], &s->waits[site][ctx]);
	sum->records += s->records;
	sum->aggregated += s->aggregated;
	sum->voids += s->voids;
	sum->lost += s->lost;
	for (e = 0; e < FSAIO_DROP__COUNT; e++)
		sum->drops[e] += s->drops[e];
	sum->oom += s->oom;
	for (e = 0; e < FSAIO_ENGINE__COUNT; e++)
		for (site = 0; site < FSAIO_MAX_OPCODE; site++)
			sum->by_opcode[e][site] += s->by_opcode[e][site];
	sum->malformed += s->malformed;
	if (s->ringbuf_bytes > sum->ringbuf_bytes)
		sum->ringbuf_bytes = s->ringbuf_bytes;
	sum->ringbuf_grows += s->ringbuf_grows;
}
