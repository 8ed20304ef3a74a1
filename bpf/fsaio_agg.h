/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel aggregation for `fsaio trace`.  With the BPF side's
 * `aggregate` switch on, every record is still built as for `fsaio check`,
 * in a per-CPU scratch slot instead of the ring buffer, and counted here;
 * only what a person must see one by one (fsaio_agg_sends()) goes on to
 * the ring.  Traffic is then O(sleeps and anomalies), not O(requests).
 *
 * Shared by the BPF object and the harness (like fsaio.h): the harness's
 * unit tests drive fsaio_agg_account() and the checker with the same
 * synthetic streams, so there is one definition of each count.
 *
 * The counts are of events, not of requests: a request the checker would
 * fold (a completion without a CQE, IOSQE_CQE_SKIP_SUCCESS; one reaped
 * twice) is what --per-event and `fsaio check` judge.
 */
#ifndef FSAIO_AGG_H
#define FSAIO_AGG_H

#include "fsaio.h"

/* Per engine; the names are the checker's engine_stats fields. */
enum fsaio_agg_counter {
	FSAIO_AGG_SUBMITTED,	/* libaio: io_submit returns; io_uring: SQEs */
	FSAIO_AGG_COMPLETED,	/* libaio: io_events reaped; io_uring: final CQEs */
	FSAIO_AGG_ERRORS,	/* of those, res < 0 */
	FSAIO_AGG_RETRIES,
	FSAIO_AGG_WAKES,
	FSAIO_AGG_RESUMES,
	FSAIO_AGG_PUNTS,
	FSAIO_AGG_SUBMIT_CALLS,
	FSAIO_AGG_SUBMIT_NS,
	FSAIO_AGG_FAILED_INIT,
	FSAIO_AGG_CQ_OVERFLOW,
	FSAIO_AGG_CQ_DROPPED,
	FSAIO_AGG_ZC_NOTIFS,
	FSAIO_AGG__COUNT,
};

/* Only __u64 fields: user space sums them over CPUs word by word
 * (harness/live/tracer.h). */
struct fsaio_agg {
	__u64 c[FSAIO_ENGINE__COUNT][FSAIO_AGG__COUNT];
	__u64 counted;		/* records counted here and not sent */
	__u64 sent;		/* records sent on to the ring buffer */
};

#define FSAIO_CQE_F_MORE	(1u << 1)	/* IORING_CQE_F_MORE */
#define FSAIO_CQE_F_NOTIF	(1u << 3)	/* IORING_CQE_F_NOTIF */

/*
 * Records that still go to the ring buffer when aggregating: what a person
 * must see one by one (sleeps, the tracker's lifecycle, anomalies), the
 * last column of FSAIO_EVENT_TYPES (fsaio.h, where each row says why).
 */
FSAIO_INLINE int fsaio_agg_sends(__u16 type)
{
	switch (type) {
#define FSAIO_AGG_SENDS(id, val, name, agg, sent) case FSAIO_EV_##id: return agg;
	FSAIO_EVENT_TYPES(FSAIO_AGG_SENDS)
#undef FSAIO_AGG_SENDS
	}
	return 0;
}

/* What a count needs of a record: the hot paths (an io_uring submit or
 * completion) fill this on the stack and never build the record. */
struct fsaio_agg_event {
	__u16 type;
	__u8 engine;
	__u8 flags;
	__s32 res;
	__u64 arg0;
	__u64 arg1;
};

FSAIO_INLINE struct fsaio_agg_event fsaio_agg_event_of(const struct fsaio_record *r)
{
	struct fsaio_agg_event ev = {
		.type = r->type, .engine = r->engine, .flags = r->flags,
		.res = r->res, .arg0 = r->arg0, .arg1 = r->arg1,
	};

	return ev;
}

/* Count one event.  Pure: the same stream gives the same counts in BPF
 * and in the unit tests. */
FSAIO_INLINE void fsaio_agg_count(struct fsaio_agg *a, const struct fsaio_agg_event *r)
{
	__u8 e = r->engine < FSAIO_ENGINE__COUNT ? r->engine : 0;
	__u64 *c = a->c[e];
	__u32 cflags = (__u32)r->arg0;

	switch (r->type) {
	case FSAIO_EV_SUBMIT:
		/* libaio: counted from what io_submit() accepted (SUBMIT_DONE),
		 * which leaves out the iocbs it rejected */
		if (e == FSAIO_ENGINE_IO_URING) {
			c[FSAIO_AGG_SUBMITTED]++;
			if (r->flags & FSAIO_F_FAILED_INIT)
				c[FSAIO_AGG_FAILED_INIT]++;
		}
		break;
	case FSAIO_EV_SUBMIT_DONE:
		c[FSAIO_AGG_SUBMIT_CALLS]++;
		c[FSAIO_AGG_SUBMIT_NS] += r->arg1;
		if (e == FSAIO_ENGINE_LIBAIO && r->res > 0)
			c[FSAIO_AGG_SUBMITTED] += r->res;
		break;
	case FSAIO_EV_REAP:
		c[FSAIO_AGG_COMPLETED]++;
		if (r->res < 0)
			c[FSAIO_AGG_ERRORS]++;
		break;
	case FSAIO_EV_COMPLETE:
		/* libaio: the kernel's side of what REAP counts */
		if (e != FSAIO_ENGINE_IO_URING)
			break;
		if (r->flags & FSAIO_F_OVERFLOW) {
			c[FSAIO_AGG_CQ_OVERFLOW]++;
			if (r->flags & FSAIO_F_DROPPED)
				c[FSAIO_AGG_CQ_DROPPED]++;
		}
		/* a zero-copy send ends with its notification (its own CQE
		 * has F_MORE then); a multishot request with its CQE without
		 * F_MORE */
		if (cflags & FSAIO_CQE_F_NOTIF) {
			c[FSAIO_AGG_ZC_NOTIFS]++;
			c[FSAIO_AGG_COMPLETED]++;
		} else if (!(cflags & FSAIO_CQE_F_MORE)) {
			c[FSAIO_AGG_COMPLETED]++;
			if (r->res < 0)
				c[FSAIO_AGG_ERRORS]++;
		}
		break;
	case FSAIO_EV_RETRY:
		c[FSAIO_AGG_RETRIES]++;
		break;
	case FSAIO_EV_WAKE:
		c[FSAIO_AGG_WAKES]++;
		break;
	case FSAIO_EV_RESUME:
		c[FSAIO_AGG_RESUMES]++;
		break;
	case FSAIO_EV_PUNT:
		c[FSAIO_AGG_PUNTS]++;
		break;
	}
	if (fsaio_agg_sends(r->type))
		a->sent++;
	else
		a->counted++;
}

FSAIO_INLINE void fsaio_agg_account(struct fsaio_agg *a, const struct fsaio_record *r)
{
	struct fsaio_agg_event ev = fsaio_agg_event_of(r);

	fsaio_agg_count(a, &ev);
}

#endif /* FSAIO_AGG_H */
