#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark JSON module ci/bench/bench.jq, checked without measuring:
# make bench calls its defs only after minutes of runs, so a def that no
# longer parses or no longer reproduces the committed result would show
# late.  Needs jq only (no root, no BPF, no fio, no QEMU); about a second.
#
#   tests/bench/bench-jq.sh [-h]
#
# Checks: the module compiles; every part of docs/bench/bench.json taken
# over (carry_over), validated (validate_part) and merged again (merge)
# gives back its parts, figures and ratios unchanged; fill_notes leaves
# filled notes alone; the device-classes table prints a row per group;
# the tracer part of a small synthetic run is a valid part file with
# unique ids; so is the load part, and the goals computed from it are met,
# missed (with the distance) or not measured as its figures say; the goals
# in the committed result are computed, and README.md and
# docs/benchmarks.md print them, and so does fsaio bench show (when
# built); the fio readers and the VM parts' row defs read a fio JSON
# as the scripts expect; the plot defs table the committed figures.
# Ends with "N passed, N failed"; exit status EXIT_PASS or EXIT_FAIL
# (harness/exit_status.h, through ci/lib.sh).

# shellcheck disable=SC2016,SC2317 # jq programs in single quotes; checks called through check()
set -u
cd "$(dirname "$0")/../.." || exit 1
. ci/lib.sh
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
[[ $# -eq 0 ]] || usage_error "no arguments"
command -v jq >/dev/null || die "jq not installed (ci/install-deps.sh)"
BASE=docs/bench/bench.json
SCHEMA=fsaio-bench/1
T=$(mktemp -d /tmp/fsaio-bench-jq.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0
check() {	# check NAME COMMAND...: one result line
	if "${@:2}" >"$T/out" 2>&1; then
		pass=$((pass + 1)); echo "ok $((pass + fail + skip)) - $1"
	else
		fail=$((fail + 1)); echo "not ok $((pass + fail + skip)) - $1"; sed 's/^/# /' "$T/out" | head -20
	fi
}
bjq() { jq -L ci/bench "$@"; }

check "bench.jq compiles" bjq -n 'include "bench"; empty'

# carry_over + validate_part + merge is the identity on the committed result
roundtrip() {
	local p files=() why
	for p in $(jq -r '.parts[].name' "$BASE"); do
		bjq -e --arg s "$SCHEMA" --arg p "$p" 'include "bench"; carry_over($s; $p)' "$BASE" >"$T/$p.json" ||
			{ echo "carry_over $p: nothing"; return 1; }
		why=$(bjq -r --arg s "$SCHEMA" --arg n "$p" 'include "bench"; validate_part($s; $n)' "$T/$p.json")
		[[ -z $why ]] || { echo "validate_part $p: $why"; return 1; }
		files+=("$T/$p.json")
	done
	# byte for byte, key order included: what `fsaio bench show` prints
	bjq -n --arg s "$SCHEMA" --argjson h '{}' 'include "bench"; merge($s; "g"; "c"; $h)' "${files[@]}" |
		jq '{parts, figures, ratios}' >"$T/merged.json" &&
		jq '{parts, figures, ratios}' "$BASE" | cmp - "$T/merged.json"
}
check "carry_over, validate_part, merge give $BASE back" roundtrip
absent() { ! bjq -e --arg s "$SCHEMA" --arg p nosuch 'include "bench"; carry_over($s; $p)' "$BASE"; }
check "carry_over of an absent part gives nothing" absent
wrong_schema() {
	[[ $(echo '{"schema": "v2", "part": "p"}' |
	     bjq -r --arg s "$SCHEMA" --arg n p 'include "bench"; validate_part($s; $n)') == "schema is \"v2\", not \"$SCHEMA\"" ]]
}
check "validate_part rejects a wrong schema" wrong_schema
filled() { bjq 'include "bench"; fill_notes' "$BASE" | jq -e --slurpfile b "$BASE" '.ratios == $b[0].ratios'; }
check "fill_notes leaves filled notes alone" filled
classes_table() {
	local groups
	groups=$(jq '[.figures[] | select(.part == "device-classes" and (.id | endswith(".iops"))) | .group]
		| unique | length' "$BASE")
	[[ $(jq -r -f ci/bench/classes-table.jq "$BASE" | wc -l) -eq $((2 + groups)) ]]
}
check "classes-table.jq: a header and a row per group" classes_table

# A fio JSON as fio writes it, trimmed to what the defs read.
cat >"$T/fio.json" <<'EOF'
{"jobs": [{"error": 0, "usr_cpu": 10, "sys_cpu": 40, "job options": {"rw": "randread"},
  "read": {"iops": 1000.5, "bw_bytes": 4098000, "total_ios": 2001, "runtime": 2000,
           "slat_ns": {"mean": 5000, "percentile": {"50.000000": 4000, "99.000000": 9000}},
           "clat_ns": {"percentile": {"50.000000": 100000, "99.000000": 300000}}},
  "write": {"iops": 0, "total_ios": 0}}]}
EOF
check "fio_ok, fio_cpu_s" bjq -e 'include "bench"; fio_ok and fio_cpu_s == 1' "$T/fio.json"
check "table_row reads a fio cell" bjq -e 'include "bench";
	table_row("stock"; "libaio-buffered"; "randread-4k"; "r"; 3; "f")
	| .dir == "read" and .mbps == 4.098 and .slat == [{p: 50, us: 4}, {p: 99, us: 9}] and .clat_p99_us == 300' "$T/fio.json"
check "classes_row, stapcost_row read a fio cell" bjq -e 'include "bench";
	classes_row("stock"; "c"; "w"; 100; 8; "r"; 3; "f").clat_p50_us == 100
	and stapcost_row("psync"; "bpf"; 1; 5; 0; "f").ios == 2001' "$T/fio.json"

# The database part from two kernels' cells.tsv lines: a figure per
# kernel x flush x class x metric, its samples in round order, and the
# patched / stock ratios once fsaio bench stats has given the values.
database() {
	printf 'virtio\tfsync\t2\t300\t30.0\t40\t60\t2.0\nvirtio\tfsync\t1\t200\t20.0\t50\t70\t2.5\n' |
		bjq -R -c 'include "bench"; split("\t") | database_row("stock"; "6.12"; "d")' >"$T/db.jsonl"
	printf 'virtio\tfsync\t1\t400\t40.0\t25\t35\t1.0\n' |
		bjq -R -c 'include "bench"; split("\t") | database_row("patched"; "6.12"; "d")' >>"$T/db.jsonl"
	bjq -s 'include "bench"; database_figures("15")' "$T/db.jsonl" >"$T/dbf.json" &&
		./fsaio bench stats "$T/dbf.json" &&
		bjq -e 'length == 8 and (map(select(.id == "database.stock-fsync.virtio.tps"))[0]
			| .samples == [20, 30] and .raw == ["d/virtio-fsync-r1.txt", "d/virtio-fsync-r2.txt"])' "$T/dbf.json" &&
		bjq -n -e --slurpfile F "$T/dbf.json" 'include "bench"; database_ratios($F[0])
			| length == 4 and (map(select(.id == "database.ratio.fsync.virtio.tps.patched-vs-stock"))[0]
			| .value == 1.6 and .den == "database.stock-fsync.virtio.tps")' &&
		bjq -c '{figures: .}' "$T/dbf.json" >"$T/dbp.json" &&
		[[ $(jq -r -f ci/bench/database-table.jq "$T/dbp.json" | sed -n 3p) == \
		   "| virtio | fsync | 25 | 40 | 1.6x | 45 / 25 | 65 / 35 | 0.44x |" ]]
}
check "database_row, database_figures, database_ratios, database-table.jq" database

# The tracer part of three synthetic rounds per engine, one sweep run.
tracer() {
	local e m p
	: >"$T/runs.tsv"; : >"$T/cmds.tsv"; : >"$T/prof.tsv"
	for e in psync io_uring; do
		for p in 1 2 3; do
			for m in untraced traced check bpftrace; do
				printf '%s\t%s\t%s\t%s\t%s\t2000\t%s\t0\t0.01\t%s\n' "$m" "$e-$m-$p" "$e" \
					$((500000 - p * 1000)) $((1000000 - p * 2000)) $((p * 100)) "1.$p" >>"$T/runs.tsv"
				printf '%s\tfio %s\n' "$e-$m-$p" "$e" >>"$T/cmds.tsv"
			done
		done
	done
	printf 'traced\tio_uring-2jobs\tio_uring\t900000\t1800000\t2000\t50\t0\t0.1\t2.5\n' >>"$T/runs.tsv"
	printf 'trace_call_bpf\t1.5\n' >"$T/prof.tsv"
	bjq -n --arg schema "$SCHEMA" --arg kernel k --argjson seconds 1 --argjson runtime 2 --argjson pairs 3 \
		--arg size 128m --argjson depth 8 --argjson nice -20 --arg gtp ">= 0.99" --arg gtu ">= 0.95" \
		--arg gcp "" --arg gcu ">= 0.80" --arg gbt ">= 1.0" --arg btprog "tracepoint:x { }" \
		--rawfile runs "$T/runs.tsv" --rawfile cmds "$T/cmds.tsv" --rawfile prof "$T/prof.tsv" \
		'include "bench"; tracer_part($ARGS.named)' >"$T/tracer.json" || return 1
	[[ -z $(bjq -r --arg s "$SCHEMA" --arg n tracer 'include "bench"; validate_part($s; $n)' "$T/tracer.json") ]] &&
		jq -e '([.figures[].id, .ratios[].id] | length == (unique | length)) and (.figures | length) == 33
			and (.ratios | length) == 10' "$T/tracer.json"
}
check "tracer_part: a valid part file, 33 figures, 10 ratios, unique ids" tracer

# The load part: a run's row from its check JSON, the part file of a
# small synthetic run, and the goals computed from figures.
cat >"$T/check.json" <<'EOF2'
{"verdict": "error", "lost_events": 7,
 "lost_by_cause": {"ringbuf": 7, "user_read": 0, "batch_cut": 0, "map_full": 0, "seq_gap": 0, "checker_oom": 0},
 "engines": {"libaio": {"submitted": 0}, "io_uring": {"submitted": 200}},
 "runs": [{"records": 13, "records_counted_in_kernel": 400,
           "invariants": [{"name": "exactly_once", "verdict": "error"}, {"name": "quiescence", "verdict": "pass"}]}]}
EOF2
load_row() {
	local a='--argjson factor 2 --arg name p --arg engine io_uring --arg shape s --argjson rc 5
		--argjson seconds 1.5 --argjson loadavg 3.1 --arg command c'
	# shellcheck disable=SC2086 # $a: words
	bjq -e $a 'include "bench"; load_row($ARGS.named)
		| .records_sent == 20 and .requests == 200 and .records_per_request == 0.1 and .lost == 7
		  and .lost_by_cause == {ringbuf: 7} and .failed_checks == ["exactly_once"] and (load_green | not)' \
		"$T/check.json" &&
	echo null | bjq -e $a 'include "bench"; load_row($ARGS.named)
		| .verdict == "no result" and .lost == null and .records_per_request == null and (load_green | not)'
}
check "load_row: counts, causes, failed checks; no result without a JSON" load_row
# load_synth LOST RELAY_CHECK_S: a load part of factors 1 and 2, two
# programs each, the SQPOLL job losing LOST records at factor 2, merged.
load_synth() {
	local f p rows=() rel=()
	for f in 1 2; do
		for p in fio-uring-sqpoll uring_cq_overflow; do
			rows+=("$(jq -nc --argjson f "$f" --arg p "$p" --argjson l "$([[ $f == 2 && $p == fio-uring-sqpoll ]] && echo "$1" || echo 0)" \
				'{factor: $f, program: $p, engine: "io_uring", shape: "s", command: "c", exit: 0, seconds: 1,
				  loadavg_1m: 2, verdict: (if $l > 0 then "error" else "pass" end), records: 5, lost: $l,
				  lost_by_cause: {}, records_sent: (5 + $l), requests: 1000, records_counted_in_kernel: 0,
				  records_per_request: ((5 + $l) / 1000), failed_checks: []}')")
		done
		rel+=("{\"factor\": $f, \"round\": 1, \"bare_s\": 2, \"check_s\": $2, \"exit\": 0, \"verdict\": \"pass\", \"lost\": 0, \"command_s\": 2.1}")
	done
	printf '%s\n' "${rows[@]}" >"$T/rows.jsonl"
	printf '%s\n' "${rel[@]}" >"$T/relay.jsonl"
	bjq -n --arg schema "$SCHEMA" --arg kernel k --argjson seconds 1 --argjson cpus 2 --argjson warmup 0 \
		--arg relay "yes | head -c 1G" --slurpfile rows "$T/rows.jsonl" --slurpfile relays "$T/relay.jsonl" \
		--argjson samples '[{"factor": 1, "rows": [[1.5, 2], [2.5, 2]]}, {"factor": 2, "rows": [[4, 4]]}]' \
		'include "bench"; load_part($ARGS.named)' >"$T/load.json" || return 1
	# what fsaio bench stats fills in, by hand for the ratios goals read
	jq '.ratios |= map(.value = (.samples | add / length)) | .figures |= map(if .stat then .value = (.samples | add / length) else . end)' \
		"$T/load.json" >"$T/load.filled.json" &&
	bjq -n --arg s "$SCHEMA" --argjson h '{}' 'include "bench"; merge($s; "g"; "c"; $h) | with_goals' "$T/load.filled.json"
}
load_part() {
	load_synth 0 2.4 >"$T/m.json" || return 1
	[[ -z $(bjq -r --arg s "$SCHEMA" --arg n load 'include "bench"; validate_part($s; $n)' "$T/load.json") ]] &&
		jq -e '([.figures[].id, .ratios[].id] | length == (unique | length))
			and (.figures | length) == 4 + 8 + 6 and (.ratios | length) == 2
			and ([.figures[] | select(.id == "load.x1.runnable")][0].samples == [2, 2])' "$T/load.json"
}
check "load_part: a valid part file, unique ids, figures per program, factor and relay" load_part
goals_met() {
	load_synth 0 2.4 >"$T/m.json" &&
	jq -e '.goals | length == 6 and (.[0] | .met == true and .now == "0 (1x: 0, 2x: 0)")
		and (.[1] | .met == null and (.now | startswith("corpus + fio jobs: 0 lost, 2 of 2 green")))
		and (.[2] | .met == true and (.now | test("^1.2x \\(worst, [12]x load: 2.4 s vs 2 s bare, the command itself 2.1 s\\)")))
		and (.[3] | .met == true)
		and (.[4], .[5] | .met == null and .result == "not measured")' "$T/m.json"
}
check "goals: met, open and not measured, from the figures" goals_met
goals_missed() {
	load_synth 1234567 3.1 >"$T/m.json" &&
	jq -e '(.goals[0] | .met == false and .now == "1,234,567 (1x: 0, 2x: 1,234,567)" and .result == "missed: 1,234,567 records lost")
		and (.goals[1] | .met == false and (.distance | contains("not green: fio-uring-sqpoll")))
		and (.goals[2] | .met == false and (.distance | startswith("1.03x the goal")))
		and (.goals[3] | .met == false and (.distance == "above 0.01: fio-uring-sqpoll"))' "$T/m.json"
}
check "goals: missed, with the distance named" goals_missed
goals_committed() {
	bjq -e 'include "bench"; .goals == (del(.goals) | with_goals).goals' "$BASE"
}
check "the goals of $BASE are what with_goals computes from its figures" goals_committed
goals_in_docs() {
	local f rc=0
	bjq -r 'include "bench"; goals_table' "$BASE" >"$T/goals.md" || return 1
	for f in README.md docs/benchmarks.md; do
		# the table as one block of whole lines
		[[ $'\n'$(<"$f")$'\n' == *$'\n'"$(<"$T/goals.md")"$'\n'* ]] ||
			{ echo "$f: the goals table differs from goals_table of $BASE:"; cat "$T/goals.md"; rc=1; }
	done
	return $rc
}
check "README.md and docs/benchmarks.md print the goals of $BASE" goals_in_docs

# fsaio bench show prints each goal of the committed result with its
# result line (harness/results/bench_show.c); needs the built ./fsaio.
show_goals() {
	local out n i
	out=$(./fsaio bench show "$BASE") || return 1
	n=$(jq '.goals | length' "$BASE")
	((n > 0)) || { echo "no goals in $BASE"; return 1; }
	grep -qE "^goals: [0-9]+ met, [0-9]+ missed, [0-9]+ not measured or open$" <<<"$out" ||
		{ echo "no goals summary line"; return 1; }
	for ((i = 0; i < n; i++)); do
		grep -qF -- "=> $(jq -r ".goals[$i].result" "$BASE" | cut -c1-60)" <<<"$out" ||
			{ echo "goal $i: no result line"; echo "$out" | sed -n '/^goals$/,$p'; return 1; }
	done
}
if [[ -x ./fsaio ]]; then
	check "fsaio bench show prints the goals with their results" show_goals
else
	skip=$((skip + 1)); echo "ok $((pass + fail + skip)) - fsaio bench show prints the goals # SKIP ./fsaio not built"
fi

pivot() {
	[[ $(bjq -r 'include "bench"; plot_pivot(.part == "tracer" and (.id | test("^tracer\\.(un)?traced\\.[^.]+\\.iops$")))' \
	     "$BASE" | wc -l) -eq 3 ]]
}
check "plot_pivot: the tracer IOPS, a header and a row per engine" pivot
plot_list() {
	printf 'a\tdrawn\ta.svg a.png\nb\tskipped\tno figures\n' | bjq -Rn -c 'include "bench"; plot_list' |
		grep -qxF '[{"name":"a","status":"drawn","files":["a.svg","a.png"]},{"name":"b","status":"skipped","reason":"no figures"}]'
}
check "plot_list: plots.tsv to plots.json" plot_list

echo "1..$((pass + fail + skip))"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"	# tests/run-all.sh adds it up
((fail == 0)) || exit "$EXIT_FAIL"
exit "$EXIT_PASS"
