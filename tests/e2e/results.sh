# SPDX-License-Identifier: GPL-2.0
# End-to-end tests of the results commands (harness/results/): fsaio
# compare, fsaio bench show and fsaio bench stats, on JSON files written here.
# No root needed.  Sourced by tests/e2e/run.sh (lib.sh first).

# Two benchmark results: a change beyond the noise rule is "*", one within
# it "~"; --strict turns "*" into EXIT_FAIL; bad inputs are EXIT_USAGE with
# the reason.
t_compare() {
	local out rc
	jq -n '{schema: "fsaio-bench/1", generated: "A", host: {kernel: "k"}, parts: [],
		figures: [{id: "p.a.w.iops", unit: "IOPS", value: 100, samples: [99, 100, 101]},
			  {id: "p.a.w.ns", unit: "ns", value: 50, stddev: 5},
			  {id: "p.a.w.gone", unit: "ns", value: 1}],
		ratios: [{id: "p.w.ratio", num: "x", den: "y", value: 0.9, goal: ">= 0.97", met: false}]}' >"$WORK/a.json"
	jq '.figures[0] |= (.value = 120 | .samples = [119, 120, 121]) | .figures[1].value = 55
	    | del(.figures[2]) | .ratios[0] |= (.value = 0.98 | .met = true)' "$WORK/a.json" >"$WORK/b.json"
	out=$($FSAIO compare "$WORK/a.json" "$WORK/b.json" 2>&1); rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "compare rc=$rc: $out"
	grep -Eq '^p\.a\.w\.iops +100±1 +120±1 +1\.200 +IOPS +\*$' <<<"$out" || fail "no '*' row for iops: $out"
	grep -Eq '^p\.a\.w\.ns .* 1\.100 +ns +~$' <<<"$out" || fail "no '~' row for ns: $out"
	grep -Eq '^p\.a\.w\.gone .*\(absent\) .* -$' <<<"$out" || fail "no absent row: $out"
	grep -q 'goal >= 0.97: A MISSED, B met' <<<"$out" || fail "no goal line: $out"
	$FSAIO compare --strict "$WORK/a.json" "$WORK/b.json" >/dev/null 2>&1; rc=$?
	[[ $rc -eq $EXIT_FAIL ]] || fail "--strict with a significant change: rc=$rc"
	$FSAIO compare --strict "$WORK/a.json" "$WORK/a.json" >/dev/null 2>&1 || fail "--strict on identical files failed"
	$FSAIO bench show "$WORK/a.json" | grep -Eq '^p\.w\.ratio +0\.9000 .*>= 0\.97 +MISSED' || fail "bench show: no MISSED ratio"
	# Two check results: counters compared, verdict changes marked "!".
	jq -n '{schema: 1, mode: "check", verdict: "pass", kernel: {release: "k"},
		engines: {libaio: {submitted: 64, completed: 64}}, lost_events: 0, runs: []}' >"$WORK/c1.json"
	jq '.verdict = "fail" | .engines.libaio.completed = 63' "$WORK/c1.json" >"$WORK/c2.json"
	out=$($FSAIO compare "$WORK/c1.json" "$WORK/c2.json" 2>&1) || fail "check compare failed: $out"
	grep -Eq '^verdict +pass +fail .*!$' <<<"$out" || fail "verdict change not marked: $out"
	grep -Eq '^engines\.libaio\.completed +64 +63 .*\?$' <<<"$out" || fail "counter change not marked: $out"
	# Errors: EXIT_USAGE and say what is wrong.
	out=$($FSAIO compare "$WORK/a.json" "$WORK/nope.json" 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out == *"cannot open"*"nope.json"* ]] || fail "missing file: rc=$rc '$out'"
	printf '{"schema": "fsaio-bench/1", "figures": [' >"$WORK/bad.json"
	out=$($FSAIO compare "$WORK/a.json" "$WORK/bad.json" 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out == *"not valid JSON"* ]] || fail "bad JSON: rc=$rc '$out'"
	jq '.schema = "fsaio-bench/2"' "$WORK/a.json" >"$WORK/v2.json"
	out=$($FSAIO compare "$WORK/a.json" "$WORK/v2.json" 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out == *"not supported"* ]] || fail "schema 2: rc=$rc '$out'"
	out=$($FSAIO compare "$WORK/a.json" "$WORK/c1.json" 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out == *"different kinds"* ]] || fail "bench vs check: rc=$rc '$out'"
	out=$($FSAIO compare "$WORK/a.json" 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE ]] || fail "one file: rc=$rc"
}
TESTS+=(t_compare)

# fsaio bench stats: the statistics make bench and compare share, exact.
t_bench_stats() {
	local out rc
	jq -n '{figures: [{id: "med", stat: "median", samples: [3, 1, 2, 10], digits: 0},
			  {id: "mean", stat: "mean", samples: [1000, 1010], digits: 3, spread_pct: null},
			  {id: "one", stat: "median", samples: [7]},
			  {id: "none", stat: "mean", samples: []},
			  {id: "kept", value: 5, stddev: 1}],
		ratios: [{id: "r", stat: "median", samples: [0.5, 0.25, 1], digits: 3, note: "n"}]}' >"$WORK/st.json"
	out=$($FSAIO bench stats "$WORK/st.json" 2>&1); rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "bench stats rc=$rc: $out"
	out=$(jq -c '[(.figures[], .ratios[]) | [.id, .value, .stddev, .spread_pct]]' "$WORK/st.json")
	[[ $out == '[["med",3,4,null],["mean",1005,7.071,0.995],["one",7,null,null],["none",null,null,null],["kept",5,1,null],["r",0.5,0.382,null]]' ]] ||
		fail "bench stats values: $out"
	echo '{"f": {"stat": "mode", "samples": [1]}}' >"$WORK/st-bad.json"
	out=$($FSAIO bench stats "$WORK/st-bad.json" 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out == *'"stat" must be'* ]] || fail "bad stat: rc=$rc '$out'"
	out=$($FSAIO bench stats "$WORK/nope.json" 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out == *"nope.json"* ]] || fail "missing file: rc=$rc '$out'"
}
TESTS+=(t_bench_stats)
