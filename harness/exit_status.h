/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exit status of every fsaio program: the fsaio command, the workloads,
 * ci/ scripts (ci/lib.sh reads the numbers from this file) and make check.
 * One meaning per number.  0, 1 and 4 are kselftest's KSFT_PASS, KSFT_FAIL
 * and KSFT_SKIP; kselftest's 2 (XFAIL) and 3 (XPASS) are never used as an
 * exit status here (an XFAIL check is reported in KTAP and exits 0).
 *
 * Combining verdicts (several checks, workloads or kernels into one): the
 * worse wins on one ladder, ERROR > FAIL > XFAIL > PASS > SKIP, in C
 * (core/verdict.c verdict_worse) and in shell (ci/lib.sh worse, where XFAIL
 * is already a pass).  SKIP is the least: as in kselftest_harness, a run
 * skips only when nothing in it ran; a skip beside a pass is a pass.
 */
#ifndef FSAIO_EXIT_STATUS_H
#define FSAIO_EXIT_STATUS_H

#define EXIT_PASS	0	/* every check passed (XFAIL counts as passed) */
#define EXIT_FAIL	1	/* a check failed: the kernel or workload misbehaved */
#define EXIT_SKIP	4	/* nothing could be checked: feature or privilege missing */
#define EXIT_ERROR	5	/* no verdict: lost records, tool or guest failure, timeout */
#define EXIT_USAGE	64	/* bad command line or input file (sysexits.h EX_USAGE) */

#endif
