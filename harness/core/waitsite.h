/* SPDX-License-Identifier: GPL-2.0 */
/* Classify a symbolized kernel stack into an fsaio_wait_site. Pure. */
#ifndef FSAIO_WAITSITE_H
#define FSAIO_WAITSITE_H

#include <stdbool.h>
#include <stdint.h>
#include "bpf/fsaio.h"

/* names[0] is the innermost frame.  NULL entries (unknown symbols) are
 * skipped.  Returns the most specific site (journal and writeback before
 * folio bit, folio bit before wait_bit action, io_schedule last). */
enum fsaio_wait_site classify_wait_site(const char *const *names, int n);

/* A SLEEP record's frames named by symbolize (ksyms_symbolize's shape;
 * NULL where unknown) into names[FSAIO_STACK_DEPTH]; returns how many. */
int wait_stack_names(const struct fsaio_record *r,
		     const char *(*symbolize)(uint64_t addr, uint64_t *off, void *ctx),
		     void *ctx, const char **names);

/* The stack is io_uring_enter() submitting (io_submit_sqes()): the
 * submit context where no syscall tracepoint says so (fsaio trace). */
bool stack_in_uring_submit(const char *const *names, int n);

#endif
