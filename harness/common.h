/* SPDX-License-Identifier: GPL-2.0 */
/* Exit codes and small helpers shared by the fsaio commands. */
#ifndef FSAIO_COMMON_H
#define FSAIO_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#define FSAIO_VERSION "0.1"

#include "exit_status.h"

extern bool verbose;

/* One-line diagnostics on stderr, prefixed "fsaio: ". */
void fsaio_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fsaio_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Set by SIGINT/SIGTERM; long loops poll it. */
extern volatile int fsaio_interrupted;
void fsaio_install_signals(void);

/* CLOCK_MONOTONIC in seconds */
double now_seconds(void);

/* uname -r */
const char *kernel_release(void);



/* Not a probe result but a fact recorded with it: the patched kernel has
 * fs.aio-buffered-async=1, so libaio buffered reads must not block.  Kept
 * beside the tracer's FEAT_* bits in logs. */
#define FEAT_X_LIBAIO_ASYNC	(1u << 31)
#endif
