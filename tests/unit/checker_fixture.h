/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the checker's unit tests share.  Each test_<invariant>.c feeds, for
 * one invariant family, event sequences that must pass and sequences that
 * must fail as synthetic records (synth.h); test_checker.c tests the
 * checker as a whole.
 *
 * Every test owns one checker: its fixture's FIXTURE_SETUP makes it from a
 * config and FIXTURE_TEARDOWN frees it.  A fixture runs each of its tests
 * once per variant, so the tests are grouped by config: "patched" sees
 * everything (synth_cfg_all), "stock" is a stock host (synth_cfg_stock),
 * and a fixture with a variant table runs one stream under several
 * configs, or with a few parameters changed, and checks each variant's
 * verdicts.
 *
 * A file defines the fixtures it uses: CHECKER_FIXTURE(patched,
 * synth_cfg_all()), CHECKER_FIXTURE(stock, synth_cfg_stock()) or its own.
 */
#ifndef FSAIO_TEST_CHECKER_FIXTURE_H
#define FSAIO_TEST_CHECKER_FIXTURE_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "kselftest_harness.h"
#include "synth.h"

/* EXPECT_EQ(4, some_u64) compares int with unsigned: fine for these
 * small constants, and the harness macros cannot cast for us. */
#pragma GCC diagnostic ignored "-Wsign-compare"

/*
 * What a fixture variant changes in synth_cfg_all() or, with .stock, in
 * synth_cfg_stock(): zero changes nothing.
 */
struct cfg_delta {
	bool stock;
	bool no_kernel_complete;	/* see_libaio_kernel_complete off */
	bool no_sleep;			/* see_sleep off */
	bool async_expected;		/* libaio_async_expected on */
	bool submit_unseen;		/* libaio_submit_unseen on */
};

static inline struct checker_config config_of(struct cfg_delta d)
{
	struct checker_config cfg = d.stock ? synth_cfg_stock() : synth_cfg_all();

	if (d.no_kernel_complete)
		cfg.see_libaio_kernel_complete = false;
	if (d.no_sleep)
		cfg.see_sleep = false;
	if (d.async_expected)
		cfg.libaio_async_expected = true;
	if (d.submit_unseen)
		cfg.libaio_submit_unseen = true;
	return cfg;
}

/* A fixture owning the checker self->c, made from config (an expression
 * that may use the fixture's variant). */
#define CHECKER_FIXTURE(name, config)					\
	FIXTURE(name) {							\
		struct checker *c;					\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		struct checker_config cfg = (config);			\
									\
		self->c = checker_new(&cfg);				\
		ASSERT_NE(NULL, self->c);				\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		checker_free(self->c);					\
	}

#define V(c, id)	(INV(c, id)->verdict)
#define D(c, id)	(INV(c, id)->detail)
#define HAS(c, id, s)	(strstr(D(c, id), (s)) != NULL)
#define LIBAIO(c)	(&checker_stats(c)->engine[FSAIO_ENGINE_LIBAIO])
#define URING(c)	(&checker_stats(c)->engine[FSAIO_ENGINE_IO_URING])

/* Verdict and detail of invariant id; on failure they log the detail. */
#define EXPECT_VERDICT(c, v, id)					\
	EXPECT_EQ(v, V(c, id)) TH_LOG("%s", D(c, id))
#define EXPECT_DETAIL(c, id, s)						\
	EXPECT_TRUE(HAS(c, id, s)) TH_LOG("%s", D(c, id))
/* Each of a variant's (up to two) detail substrings of invariant id. */
#define EXPECT_DETAILS(c, id, details) do {				\
	for (int d_ = 0; d_ < 2 && (details)[d_]; d_++) {		\
		EXPECT_DETAIL(c, id, (details)[d_]);			\
	}								\
} while (0)

/* End the trace cleanly and evaluate; every record fed was valid. */
#define FINISH(c) do {							\
	synth_finish(c);						\
	ASSERT_EQ(0, synth_rc);						\
} while (0)

#define IOCB	0x7ffc0000a000ull
#define UREQ	0xffff888004a1c000ull

/*
 * Events of one io_uring request of tgid 7, in words: submit, retry, wake
 * (in IRQ), resume, punt, complete (4096).  -EINVAL for another word.
 */
static inline int uring_events(struct checker *c, uint64_t req, const char *events)
{
	char buf[128], *save, *ev;

	snprintf(buf, sizeof(buf), "%s", events);
	for (ev = strtok_r(buf, " ", &save); ev; ev = strtok_r(NULL, " ", &save)) {
		if (!strcmp(ev, "submit"))
			uring_submit(c, 7, req);
		else if (!strcmp(ev, "retry"))
			ev_req(c, FSAIO_EV_RETRY, FSAIO_ENGINE_IO_URING, 7, req);
		else if (!strcmp(ev, "wake"))
			ev_req(c, FSAIO_EV_WAKE, FSAIO_ENGINE_IO_URING, 0, req);
		else if (!strcmp(ev, "resume"))
			ev_resume(c, FSAIO_ENGINE_IO_URING, 7, req, 1);
		else if (!strcmp(ev, "punt"))
			ev_req(c, FSAIO_EV_PUNT, FSAIO_ENGINE_IO_URING, 7, req);
		else if (!strcmp(ev, "complete"))
			uring_complete(c, 7, req, 4096);
		else
			return -EINVAL;
	}
	return 0;
}

static inline void uring_retry_cycle(struct checker *c, uint64_t req)
{
	uring_events(c, req, "retry wake resume");
}

#endif
