// SPDX-License-Identifier: GPL-2.0
/*
 * No record without a reader.  The event-type table (FSAIO_EVENT_TYPES in
 * bpf/fsaio.h) says which types a BPF program sends; the checker says
 * which it reads (checker_reads()).  A type sent and never read costs ring
 * buffer room and, under load, the records that matter: an idle SQPOLL
 * thread's task_work events once made millions of records a second that
 * nothing read.  The BPF sources are held to the table here as well: a
 * program that names a type the table calls unsent fails.
 */
#include <ctype.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include "kselftest_harness.h"
#include "core/checker.h"
#include "core/names.h"

/* Every type the table marks sent has a reader in the checker. */
TEST(every_sent_type_is_read)
{
	unsigned int t, sent = 0;

	for (t = 0; t < FSAIO_EV__MAX; t++) {
		if (!fsaio_ev_sent(t))
			continue;
		sent++;
		EXPECT_TRUE(checker_reads(t))
			TH_LOG("%s (%u) is sent by BPF but nothing reads it", event_type_name(t), t);
	}
	EXPECT_GE(sent, 10u);
}

/* A type read by the checker that no program sends is one the harness
 * writes (TRACE_END) or none. */
TEST(read_but_unsent_is_the_harness_own)
{
	unsigned int t;

	for (t = 0; t < FSAIO_EV__MAX; t++)
		if (checker_reads(t) && !fsaio_ev_sent(t))
			EXPECT_EQ((unsigned int)FSAIO_EV_TRACE_END, t)
				TH_LOG("%s is read but the table says nothing sends it",
				       event_type_name(t));
}

/* The id of FSAIO_EV_<ID> in a source line, or -1. */
static int type_named(const char *id, size_t len)
{
	unsigned int t;

	for (t = 1; t < FSAIO_EV__MAX; t++) {
		const char *n = event_type_name(t);
		size_t i;

		if (strlen(n) != len)
			continue;
		for (i = 0; i < len && toupper((unsigned char)n[i]) == id[i]; i++)
			;
		if (i == len)
			return t;
	}
	return -1;
}

/*
 * The BPF programs (bpf/ *.bpf.c, run from the checkout's root as make
 * check does) name only types the table says they send.
 */
TEST(bpf_sends_only_sent_types)
{
	glob_t g;
	size_t i, named = 0;

	ASSERT_EQ(0, glob("bpf/*.bpf.c", 0, NULL, &g))
		TH_LOG("no bpf/*.bpf.c: run from the top of the checkout");
	for (i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");
		char line[512];
		int lineno = 0;

		ASSERT_NE(NULL, f);
		while (fgets(line, sizeof(line), f)) {
			const char *p = line;

			lineno++;
			while ((p = strstr(p, "FSAIO_EV_"))) {
				const char *id = p + strlen("FSAIO_EV_");
				size_t len = 0;
				int t;

				while (isupper((unsigned char)id[len]) || id[len] == '_')
					len++;
				p = id + len;
				if (len >= 2 && id[0] == '_' && id[1] == '_')
					continue;	/* FSAIO_EV__MAX */
				t = type_named(id, len);
				EXPECT_NE(-1, t)
					TH_LOG("%s:%d: unknown type FSAIO_EV_%.*s",
					       g.gl_pathv[i], lineno, (int)len, id);
				if (t < 0)
					continue;
				named++;
				EXPECT_TRUE(fsaio_ev_sent(t))
					TH_LOG("%s:%d: FSAIO_EV_%.*s is retired in FSAIO_EVENT_TYPES",
					       g.gl_pathv[i], lineno, (int)len, id);
			}
		}
		fclose(f);
	}
	globfree(&g);
	EXPECT_GE(named, (size_t)10);
}

TEST_HARNESS_MAIN
