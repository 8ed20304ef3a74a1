/* SPDX-License-Identifier: GPL-2.0 */
/* The fsaio subcommands; argv[0] is the command name. */
#ifndef FSAIO_COMMANDS_H
#define FSAIO_COMMANDS_H

#include <stdbool.h>

int cmd_trace(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_features(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* fsaio bench show: print a bench.json (results/bench_show.c, for cmd_bench) */
int bench_show(const char *path, bool all);

#endif
