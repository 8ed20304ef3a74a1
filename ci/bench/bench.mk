# SPDX-License-Identifier: GPL-2.0
# make bench: the benchmark, included by the top-level Makefile.
#   make bench                        every part: tracer, load (host) + VM parts (ci/bench/bench-vm.sh)
#   make bench BENCH_PARTS=tracer     tracing cost on the host (about 4 minutes)
#   make bench BENCH_PARTS=load       records lost and verdicts beside stress-ng (about 5 minutes)
# Prints the table, writes .output/bench/bench.json (schema fsaio-bench/1,
# see ci/README.md "Benchmarks") and SVG/PNG plots.  Exit 0 when the
# benchmark ran: missed goals are reported in the table, not failures.
.PHONY: bench soak
bench: all ## the benchmark: table, .output/bench/bench.json and plots
	ci/bench/bench.sh

# make soak [SOAK_SECONDS=600]: fsaio trace for SOAK_SECONDS under a mixed
# libaio + io_uring + psync load with process churn: no loss, memory flat.
soak: all ## fsaio trace under a mixed load with process churn (SOAK_SECONDS)
	ci/bench/trace-soak.sh
