// SPDX-License-Identifier: GPL-2.0
/* The argp children shared by check, trace and replay. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include "cmd/options.h"
#include "common.h"

struct output_opts output_opts;

static const struct argp_option output_options[] = {
	{ "json", 'j', "FILE", 0, "write the JSON summary to FILE" },
	{ "verbose", 'v', NULL, 0, "print feature probes, workload output and all histograms" },
	{},
};

static error_t output_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'j':
		output_opts.json = arg;
		return 0;
	case 'v':
		verbose = true;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp output_argp = { output_options, output_parse };

static const struct argp_option record_options[] = {
	{ "record", 'r', "FILE", 0, "record every event to FILE (for 'fsaio replay')" },
	{ "ringbuf-mb", 'b', "MB", 0, "ring buffer size in MiB, a power of two (default: "
	  "check 32, trace 8); lost records make a run an ERROR" },
	{},
};

long option_number(struct argp_state *state, const char *what, const char *arg,
		   long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	/* "010" is ten, not octal 8: base 10 above; no sign, no blanks */
	if (errno || end == arg || *end || !isdigit((unsigned char)arg[0]) || v < min || v > max)
		argp_error(state, "%s wants a number from %ld to %ld, not '%s'", what, min, max, arg);
	return v;
}

static error_t record_parse(int key, char *arg, struct argp_state *state)
{
	long v;

	switch (key) {
	case 'r':
		output_opts.record = arg;
		return 0;
	case 'b':
		v = option_number(state, "--ringbuf-mb", arg, 1, 1024);
		if (v & (v - 1))
			argp_error(state, "--ringbuf-mb wants a power of two from 1 to 1024, not '%s'",
				   arg);
		output_opts.ringbuf_mb = v;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp record_argp = { record_options, record_parse };
