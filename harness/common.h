/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by every layer of fsaio except the pure core. */
#ifndef FSAIO_COMMON_H
#define FSAIO_COMMON_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "exit_status.h"

#define FSAIO_VERSION "0.1"

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

/* pid is no running fsaio: gone, or reused by another program.  What an
 * fsaio names after its pid (cgroups, scratch mounts) is an orphan then. */
bool fsaio_pid_dead(pid_t pid);

#endif
