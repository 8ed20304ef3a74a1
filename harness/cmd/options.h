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
	size_t ringbuf_max_mb;	/* --ringbuf-max-mb; 0: 8x the start */
};
extern struct output_opts output_opts;

/*
 * A decimal number from min to max for option `what`, or argp_error()
 * saying so.  The one place a command-line number is read: the range is
 * checked on the long it was read into, before any narrowing.
 */
long option_number(struct argp_state *state, const char *what, const char *arg,
		   long min, long max);

/* -j/--json, -v/--verbose */
extern const struct argp output_argp;
/* -r/--record, -b/--ringbuf-mb, --ringbuf-max-mb: what a tracing command records */
extern const struct argp record_argp;

#endif
