/* SPDX-License-Identifier: GPL-2.0 */
/* Stable names of the record enums (bpf/fsaio.h), for reports and JSON. */
#ifndef FSAIO_CORE_NAMES_H
#define FSAIO_CORE_NAMES_H

#include "bpf/fsaio.h"

const char *engine_name(enum fsaio_engine e);		/* "libaio", "io_uring" */
const char *wait_site_name(enum fsaio_wait_site s);	/* "folio_bit", ... */
const char *context_name(enum fsaio_context x);		/* "submit_libaio", ... */
const char *event_type_name(enum fsaio_event_type t);	/* "submit", ... */
const char *drop_name(enum fsaio_drop d);		/* "ringbuf", ... */
/* The opcode of a SUBMIT ("read", "nop", "pread"...), NULL if unknown. */
#define FSAIO_MAX_OPCODE 64
const char *opcode_name(enum fsaio_engine e, unsigned op);

#endif
