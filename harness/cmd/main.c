// SPDX-License-Identifier: GPL-2.0
/*
 * fsaio: trace and check asynchronous buffered file I/O.  The command
 * table; each command parses its own options (options.c).  Every command
 * and option is documented in docs/fsaio.1, which tests/docs/check-docs.sh
 * keeps in step with the --help texts.
 */
#include <stdio.h>
#include <string.h>
#include "cmd/commands.h"
#include "common.h"

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *what;
} commands[] = {
	{ "trace", cmd_trace, "trace the live system and summarise async I/O and waits" },
	{ "check", cmd_check, "run workloads or a command under tracing; check invariants (KTAP)" },
	{ "replay", cmd_replay, "re-check the invariants on a recorded event log" },
	{ "features", cmd_features, "probe what this kernel lets fsaio observe" },
	{ "list", cmd_list, "list the workloads of the default suite" },
	{ "compare", cmd_compare, "two result sets (bench.json or --json) side by side, B/A, noise" },
	{ "bench", cmd_bench, "show a benchmark result (run it with 'make bench')" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: fsaio [-v] COMMAND [OPTIONS]\n\n"
		"Trace asynchronous buffered file I/O (libaio, io_uring) on the running\n"
		"kernel and check that it behaves: every request completes exactly once,\n"
		"armed retries are woken and resumed, submitters do not sleep in page waits.\n\n"
		"Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].what);
	fprintf(f, "\nOptions:\n"
		"  -v, --verbose   print feature probes, fallbacks and their cost\n"
		"  -V, --version   print the version\n"
		"  -h, --help      this help; 'fsaio COMMAND --help' for a command\n\n"
		"Examples:\n"
		"  fsaio check                      run the default workload suite\n"
		"  fsaio check -- ./my-aio-prog     check any program\n"
		"  fsaio trace -d 10                trace everything for 10 s\n\n"
		"Exit status: 0 pass, 1 fail, 4 skip (kselftest), 5 error (no verdict),\n"
		"64 usage.\n\n"
		"See man ./docs/fsaio.1 (every command and option) or docs/.\n");
}

int main(int argc, char **argv)
{
	int i = 1;
	size_t c;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			verbose = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return EXIT_PASS;
		} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			printf("fsaio %s\n", FSAIO_VERSION);
			return EXIT_PASS;
		} else {
			fsaio_err("unknown option '%s'; see 'fsaio --help'", argv[i]);
			return EXIT_USAGE;
		}
	}
	if (i == argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (!strcmp(argv[i], commands[c].name))
			return commands[c].fn(argc - i, argv + i);
	fsaio_err("unknown command '%s'; commands: trace, check, replay, features, list, compare, bench",
		  argv[i]);
	return EXIT_USAGE;
}
