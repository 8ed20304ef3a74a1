# SPDX-License-Identifier: GPL-2.0
# The device-classes table in markdown, from a part file or bench.json:
#   jq -r -f ci/bench/classes-table.jq .output/bench/parts/device-classes.json
# (docs/benchmarks.md: how to print it for the committed run).  The table
# is classes_table in bench.jq, found beside this file.
include "bench" {search: "./"};
classes_table
