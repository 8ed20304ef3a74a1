/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Options every tracing command shares (check, trace, replay), parsed by an
 * argp child so each command's --help lists them the same way.
 */
#ifndef FSAIO_CMD_OPTIONS_H
#define FSAIO_CMD_OPTIONS_H

#include <argp.h>

struct output_opts {
	const char *json;	/* --json FILE */
	const char *record;	/* --record FILE (check, trace) */
	size_t ringbuf_mb;	/* --ringbuf-mb (check, trace); 0: the command's default */
};
extern struct output_opts output_opts;

/* -j/--json, -v/--verbose */
extern const struct argp output_argp;
/* -r/--record, -b/--ringbuf-mb: what a tracing command records */
extern const struct argp record_argp;

#endif
