/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checker's state, shared by the files of the core that fill it from
 * the events (checker.c, sleeps.c, stats.c) and judge it (rules.c).  Only
 * for harness/core: the interface is checker.h.
 */
#ifndef FSAIO_CORE_CHECKER_INT_H
#define FSAIO_CORE_CHECKER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/checker.h"
#include "core/table.h"

#define HIST_LEN	16	/* events kept per lifecycle for failure details */
#define EV_REJECTED	100	/* pseudo event in a history: batch entry rejected */

/* struct lc.flags */
#define LC_ACTIVE	0x01	/* a lifecycle is open (submitted, not rejected) */
#define LC_PENDING	0x02	/* libaio: its batch's SUBMIT_DONE not yet seen */
#define LC_REJECTED	0x04	/* libaio: io_submit did not accept it */
#define LC_KCOMPLETE	0x08	/* kernel COMPLETE seen */
#define LC_REAPED	0x10	/* user REAP seen */
#define LC_DONE		0x20	/* lifecycle ended (counted in completed) */
#define LC_PUNTED	0x40	/* last resumption path was a punt */
#define LC_ABANDONED	0x80	/* ended unreaped (with LC_DONE): struct lc.why says why */

/* struct lc.sync: the durability of an async O_SYNC/O_DSYNC write */
#define SYNC_PUNTED	0x01	/* a libaio write handed to the worker (O_SYNC/O_DSYNC) */
#define SYNC_FSYNCED	0x02	/* its worker ran the final fsync */
#define SYNC_WEAK	0x04	/* ...but an O_SYNC write got fdatasync only */
#define SYNC_LANDED	0x08	/* the hand-off said where the copy landed (land_*) */

/* struct lc.cqe: why an io_uring request may end, or ended, without its own CQE */
#define CQE_MAY_SKIP	0x01	/* submitted with IOSQE_CQE_SKIP_SUCCESS */
#define CQE_LINK_FAILED	0x02	/* cancelled with its failed chain (LINK_FAIL) */
#define CQE_BY_OVERFLOW	0x04	/* ended by an overflowed CQE matched by user_data */
#define EV_NO_CQE	101	/* pseudo event in a history: ended without a CQE */

/* struct lc.why: why a request was abandoned, never reaped: its context
 * was destroyed (libaio io_destroy), its process exited (libaio), or its
 * ring was torn down (io_uring: cancelled by process exit or ring close). */
enum { AB_NONE, AB_DESTROY, AB_EXIT, AB_TEARDOWN, AB__COUNT };

enum rstate { R_IDLE, R_ARMED, R_WOKEN };

/* One request lifecycle, kept for the life of the checker and reused when
 * the same key is submitted again: one per distinct (engine, tgid, req), so
 * its size (see the assert), with its index links (struct tlink, one per
 * list), bounds the checker's memory on a long trace. */
struct lc {
	uint64_t req;
	uint64_t born;		/* st.records at SUBMIT: orders against PROC_EXIT/IO_DESTROY */
	uint64_t ring;		/* aio_context_t / struct io_ring_ctx of the SUBMIT */
	uint64_t user_data;	/* of the SUBMIT: names an overflowed io_uring CQE */
	int64_t land_pos;	/* async sync write: where its copy landed ... */
	uint64_t land_len;	/* ... and how much (the hand-off PUNT) */
	uint32_t tgid;
	uint32_t pid;		/* submitting thread */
	int32_t batch;		/* libaio batch id */
	uint32_t index;		/* libaio index in the batch */
	int32_t kres;		/* kernel COMPLETE result */
	int32_t ures;		/* REAP result */
	uint16_t nev;		/* events in this lifecycle, saturating */
	uint8_t engine;
	uint8_t flags;
	uint8_t rstate;
	uint8_t head;		/* next slot in ev[]/val[] */
	uint8_t ev[HIST_LEN];
	uint8_t why;		/* AB_* once abandoned */
	uint8_t opcode;		/* of the SUBMIT, < FSAIO_MAX_OPCODE */
	uint8_t sync;		/* SYNC_*: the durability of an async sync write */
	uint8_t cqe;		/* CQE_*: may end, or was ended, without its own CQE */
	int32_t val[HIST_LEN];
};
_Static_assert(sizeof(struct lc) <= 168, "struct lc grew: a million requests cost 168 MB");

/* The lists of lifecycles in struct checker.list_tab */
enum { LIST_LIVE, LIST_OVF, LIST__COUNT };

/* A thread's libaio batch awaiting its SUBMIT_DONE. */
struct thr {
	uint32_t pid;
	int32_t batch;
	uint32_t n, cap;
	uint32_t *lcs;		/* indices into c->lcs */
};

/* First violation of an invariant, and how many there were. */
struct fail {
	uint64_t count;
	char first[400];
};

/* A process exit (ring 0) or an io_destroy of (tgid, ring): st.records at
 * the latest one; at == 0 is an empty slot. */
struct mark {
	uint64_t ring;
	uint64_t at;
	uint32_t tgid;
};

struct sleep_sum {
	uint64_t count;
	uint64_t ns;
	char first[200];	/* the first offending sleep */
	uint32_t nr_stacks;	/* the first few, with their stacks */
	struct inv_stack stacks[INV_MAX_STACKS];
	uint64_t by_site[FSAIO_SITE__COUNT];
};

struct checker {
	struct checker_config cfg;
	struct checker_stats st;
	struct invariant_result res[INV__COUNT];
	bool finished;

	struct lc *lcs;
	uint32_t nr_lcs, cap_lcs;
	/* How an event finds its lifecycle without a walk over the others
	 * (checker.c, "Finding a lifecycle"): */
	struct table exact_tab;	/* (engine, tgid, req) -> its lifecycle */
	struct table first_tab;	/* (engine, req) -> its first lifecycle */
	/* lists of lifecycles, oldest first, with their links per lifecycle:
	 * LIST_LIVE (engine, req) -> those in flight; LIST_OVF (ring,
	 * user_data, OVF_*) -> io_uring ones in flight or ended by an
	 * overflowed CQE */
	struct table list_tab[LIST__COUNT];
	struct tlink *link[LIST__COUNT];

	struct thr *thrs;
	uint32_t nr_thrs, cap_thrs;
	struct table thr_tab;

	/* (tgid, ring) -> latest io_destroy; (tgid, 0) -> latest PROC_EXIT */
	struct mark *marks;
	uint32_t marks_mask, nr_marks;
	uint64_t abandoned[AB__COUNT];

	uint64_t lifecycles;	/* accepted lifecycles, all engines */
	uint64_t folded[FSAIO_ENGINE__COUNT];	/* of those, folded in BPF */
	uint64_t rejected;	/* libaio batch entries io_submit refused */
	uint64_t unmatched_uring; /* io_uring COMPLETE of unknown requests */
	uint64_t more_cqes;	/* io_uring F_MORE CQEs traced without req (aux) */
	uint64_t ovf_moved;	/* overflowed CQEs moved to another request (same user_data) */
	uint64_t unmatched_libaio; /* libaio events of unknown requests, when
				    * cfg.libaio_submit_unseen */
	uint64_t unattributed;	/* RETRY/WAKE/RESUME/PUNT without req */

	/* seq accounting */
	uint64_t seq_min, seq_max, seq_seen, seq_last, reordered;
	/* Every seq seen, one bit each from seq_base (checker.c seq_account):
	 * a duplicate is corruption even when it fills the gap of a lost
	 * record, which counts alone cannot tell. */
	uint64_t *seq_bits, seq_base, seq_words, seq_dups;
	uint64_t end_drops[FSAIO_DROP__COUNT];	/* TRACE_END per cause, summed */
	uint64_t oom;		/* events the checker could not track (allocation failed) */
	uint64_t trace_ends;
	char malformed_first[200];

	struct fail eonce, retry, resume, quiesce;
	struct fail durab;	/* sync writes completed without their final fsync */
	uint64_t sync_writes;	/* async O_SYNC/O_DSYNC writes completed */
	struct fail aband;	/* abandoned requests the kernel did not finish */
	/* RESUMEs that found the submitter's mm gone, judged at the end: the
	 * address space goes in exit_mm(), before sched_process_exit fires */
	struct mm_gone { uint32_t tgid; uint64_t born, req; } *mm_gone;
	size_t nr_mm_gone, cap_mm_gone;
	struct sleep_sum blocked[FSAIO_ENGINE__COUNT];	/* FSAIO waits in submit */
	struct sleep_sum other[FSAIO_ENGINE__COUNT];	/* other sleeps in submit */

	/* cfg.keep_stacks: distinct sleep stacks, open addressing over
	 * 2 * STACKS_MAX slots of index + 1 */
	struct stack_count *stacks;
	uint32_t nr_stacks;
	uint32_t *stack_slot;
	uint64_t stacks_untracked;
};

/* checker.c */
/* Count a violation; keep the words and the event sequence of the first. */
void fail_note(struct fail *f, const struct lc *l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* st.records at the latest io_destroy of (tgid, ring), or at the exit of
 * tgid (ring 0); 0 if none */
uint64_t mark_at(const struct checker *c, uint32_t tgid, uint64_t ring);
uint64_t abandoned_all(const struct checker *c);	/* every cause */

/* sleeps.c */
void on_sleep(struct checker *c, const struct fsaio_record *r);

/* rules.c: every result ERROR "not evaluated" until rules_judge(), which
 * checker_finish() calls once the open lifecycles are settled */
void rules_init(struct checker *c);
void rules_judge(struct checker *c);

/* lookup.c: the lifecycle table (what a lifecycle takes next, finding,
 * creating and indexing lifecycles) */
#define CQE_F_MORE	FSAIO_CQE_F_MORE
#define CQE_F_NOTIF	FSAIO_CQE_F_NOTIF
enum { OVF_NONE, OVF_INFLIGHT, OVF_ZC, OVF_ENDED };
struct key {
	uint64_t a, b;
	uint32_t k;
};

uint64_t thr_key(const void *ctx, uint32_t i);
bool lc_inflight(const struct lc *l);
bool lc_wants(const struct lc *l, unsigned type);
bool lc_zc_send(const struct lc *l);
struct lc *list_first(struct checker *c, unsigned list, struct key k,
		       const struct lc *not);
struct lc *lc_older(struct lc *a, struct lc *b);
void lc_relist(struct checker *c, struct lc *l);
void lc_unlist(struct checker *c, struct lc *l);
struct lc *lc_find(struct checker *c, const struct fsaio_record *r, bool exact);
struct lc *lc_create(struct checker *c, const struct fsaio_record *r);
void lc_push(struct lc *l, unsigned type, int32_t val);
void lc_format(const struct lc *l, char *buf, size_t len);
void lc_reset(struct checker *c, struct lc *l, const struct fsaio_record *r);
struct lc *list_next(struct checker *c, unsigned list, const struct lc *l,
		      const struct lc *head);

#endif
