# SPDX-License-Identifier: GPL-2.0
# The database table in markdown, from a part file or bench.json:
#   jq -r -f ci/bench/database-table.jq .output/bench/parts/database.json
# (docs/benchmarks.md: how to print it for the committed run).  The table
# is database_table in bench.jq, found beside this file.
include "bench" {search: "./"};
database_table
