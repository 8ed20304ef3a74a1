/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel symbols from /proc/kallsyms: address -> name for stack traces. */
#ifndef FSAIO_KSYMS_H
#define FSAIO_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksyms;

/* Load the text symbols of /proc/kallsyms (kernel and modules), sorted.
 * NULL on failure, with a one-line reason in err.  Addresses read as 0
 * (kptr_restrict, not root) are a failure: nothing could be symbolized. */
struct ksyms *ksyms_load(char *err, size_t errlen);

/* Name of the function containing addr (the greatest symbol <= addr),
 * NULL if addr is below every symbol.  off, if not NULL, gets addr - start.
 * Names are as in kallsyms (".cold", ".isra.0" kept). */
const char *ksyms_name(const struct ksyms *k, uint64_t addr, uint64_t *off);

/* Address of a symbol by exact name, 0 if absent. */
uint64_t ksyms_addr(const struct ksyms *k, const char *name);

/* ksyms_name() with the table as an opaque pointer: a symbolizer callback
 * (report_set_symbolizer). */
const char *ksyms_symbolize(uint64_t addr, uint64_t *off, void *ksyms);

size_t ksyms_count(const struct ksyms *k);
void ksyms_free(struct ksyms *k);

#endif
