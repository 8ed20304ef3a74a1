#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the event-log fuzzer (tests/fuzz/fuzz_log.c, built by make as
# .output/fuzz/fuzz_log) over tests/fuzz/corpus/ for SECONDS (default 60,
# what make check runs; make fuzz passes FUZZ_SECONDS, 600).  Prints KTAP
# with a kselftest "# Totals:" line (tests/run-all.sh adds it up): the seeds
# replay clean, then the fuzzing run finds no crash, leak or sanitizer
# report.  A failure names the reproducer (.output/fuzz/artifacts/), which
# `.output/fuzz/fuzz_log FILE` replays.
set -u
cd "$(dirname "$0")/../.."
. ci/lib.sh
secs=${1:-60}
bin=.output/fuzz/fuzz_log corpus=tests/fuzz/corpus art=.output/fuzz/artifacts
pass=0 fail=0 skip=0

echo "TAP version 13"
echo "1..2"
result() {	# result OK|FAIL N NAME
	if [[ $1 == OK ]]; then echo "ok $2 $3"; pass=$((pass + 1))
	else echo "not ok $2 $3"; fail=$((fail + 1)); fi
}
if [[ ! -x $bin ]]; then
	echo "ok 1 fuzz_log seeds # SKIP $bin not built (make $bin)"
	echo "ok 2 fuzz_log ${secs}s # SKIP $bin not built"
	echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:2 error:0"
	exit "$EXIT_SKIP"
fi
mkdir -p "$art"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# New inputs go to a scratch directory (the first one given): the
# committed corpus stays as it is.
reproducer() {	# the artifact libFuzzer wrote, named in its log
	grep -oE "Test unit written to [^ ]+" "$1" | tail -n 1 | sed 's/.* to //'
}
"$bin" -runs=0 "$corpus" >"$work/seeds.log" 2>&1
rc=$?
if ((rc == 0)); then
	result OK 1 "fuzz_log seeds: $(ls "$corpus" | wc -l) corpus files replay clean"
else
	sed 's/^/# /' "$work/seeds.log" | grep -E 'ERROR|SUMMARY|Running:|runtime error' | head -20
	result FAIL 1 "fuzz_log seeds (exit $rc)"
fi
# -timeout is for hangs: 60 s, as one input takes seconds on a loaded
# runner (make check-load) with the sanitizers on
"$bin" -max_total_time="$secs" -max_len=16384 -timeout=60 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$art/" "$work" "$corpus" >"$work/fuzz.log" 2>&1
rc=$?
execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$work/fuzz.log" | grep -oE '[0-9]+$')
if ((rc == 0)); then
	echo "# ${execs:-?} inputs in ${secs}s, $(ls "$work" | wc -l) new"
	result OK 2 "fuzz_log ${secs}s"
else
	grep -E '^(==[0-9]+==ERROR|SUMMARY)|runtime error' "$work/fuzz.log" | head -10 | sed 's/^/# /'
	echo "# reproduce: $bin $(reproducer "$work/fuzz.log")"
	result FAIL 2 "fuzz_log ${secs}s: crash, reproducer $(reproducer "$work/fuzz.log")"
fi
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
((fail == 0)) && exit "$EXIT_PASS"
exit "$EXIT_FAIL"
