# SPDX-License-Identifier: GPL-2.0
# End-to-end tests of the default suite with --json and --record, and of
# fsaio replay on that log: binary, written as text, truncated, cut, garbage.
# t_replay and t_replay_text read t_suite's log (they skip without it), so
# t_suite comes first.  Sourced by tests/e2e/run.sh (lib.sh first).

t_suite() {
	need_root
	local rc
	$FSAIO check --json "$WORK/suite.json" --record "$WORK/suite.log" >"$WORK/suite.ktap" 2>&1; rc=$?
	sed 's/^/# /' "$WORK/suite.ktap" | grep -E '^# *(not ok|ok [0-9]+ [a-z_]+$|# [a-z_]+:)' | head -60
	# what failed, whole: each failing check's diagnostics and its workload
	[[ $rc -eq $EXIT_PASS ]] || fail "suite rc=$rc: $(grep -E '^    # (command|[a-z_]+): |not ok' "$WORK/suite.ktap" |
		grep -B2 'not ok' | grep -vE '^--$')"
	for k in '.kernel.release' '.kernel.features' '.engines.libaio.submitted' \
		 '.engines.io_uring.punts' '.wait_sites' '.lost_events' '.invariants[0].verdict'; do
		jq -e "$k != null" "$WORK/suite.json" >/dev/null || fail "JSON lacks $k"
	done
	[[ $(jq '.lost_events' "$WORK/suite.json") -eq 0 ]] || fail "lost events"
	# README's example: on a kernel without the series, aio_read_batch's
	# 64 cold reads in one io_submit are 64 FSAIO waits, an XFAIL
	if [[ ! -d /sys/kernel/tracing/events/fsaio && ! -d /sys/kernel/debug/tracing/events/fsaio ]]; then
		grep -q 'nonblocking_submit_libaio # XFAIL stock kernel: io_submit slept 64 times in FSAIO waits' \
			<(sed -n '/Subtest: aio_read_batch$/,/^ok [0-9]* aio_read_batch/p' "$WORK/suite.ktap") ||
			fail "aio_read_batch is not the README's XFAIL: $(grep -A40 'Subtest: aio_read_batch$' \
				"$WORK/suite.ktap" | grep nonblocking_submit_libaio)"
	fi
	leftovers
}
TESTS+=(t_suite)

t_replay() {
	need_root
	[[ -s $WORK/suite.log ]] || { echo "# needs t_suite's log"; exit "$EXIT_SKIP"; }
	local rc
	$FSAIO replay --json "$WORK/replay.json" "$WORK/suite.log" >"$WORK/replay.ktap"; rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "replay rc=$rc"
	# The trace verdicts of replay equal those of the live run.
	diff <(jq -c '[.runs[].invariants[] | select(.name|test("^workload")|not) | [.name,.verdict,.observations]]' "$WORK/suite.json") \
	     <(jq -c '[.runs[].invariants[] | select(.name|test("^workload")|not) | [.name,.verdict,.observations]]' "$WORK/replay.json") ||
		fail "replay verdicts differ from the live run"
	# Truncated log: ERROR, never a pass.
	head -c $(( $(stat -c %s "$WORK/suite.log") - 100 )) "$WORK/suite.log" >"$WORK/trunc.log"
	$FSAIO replay "$WORK/trunc.log" >"$WORK/trunc.ktap" 2>&1; rc=$?
	[[ $rc -eq $EXIT_ERROR ]] || fail "truncated log: rc=$rc"
	grep -q "not ok [0-9]* trace_integrity" "$WORK/trunc.ktap" || fail "truncated log: trace_integrity not failed"
	echo garbage >"$WORK/garbage.log"
	$FSAIO replay "$WORK/garbage.log" >/dev/null 2>&1; rc=$?
	[[ $rc -eq $EXIT_USAGE ]] || fail "garbage log: rc=$rc"
}
TESTS+=(t_replay)

# The text event log (SystemTap's form, stap/README.md): the suite's log
# written as text (replay --text) and replayed gives the same verdicts,
# observations and per-engine counts as the binary log; a record line
# cut in half is an ERROR naming its line, never a pass.
t_replay_text() {
	need_root
	[[ -s $WORK/suite.log ]] || { echo "# needs t_suite's log"; exit "$EXIT_SKIP"; }
	local rc facts='[.runs[] | [.invariants[] | [.name, .verdict, .observations]], .engines, .records]'
	$FSAIO replay --json "$WORK/bin.json" --text "$WORK/suite.txt" "$WORK/suite.log" >/dev/null; rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "replay --text rc=$rc"
	# one line per record, and the log's closing record (arg1=0x1), which
	# belongs to no run
	local lines
	lines=$(grep -c '^R ' "$WORK/suite.txt")
	[[ $lines -eq $(($(jq '[.runs[].records] | add' "$WORK/bin.json") + 1)) ]] ||
		fail "text log: $lines record lines, $(jq '[.runs[].records] | add' "$WORK/bin.json") records + 1 closing"
	tail -1 "$WORK/suite.txt" | grep -q '^R type=14 .* arg1=0x1 ' || fail "no closing record at the end"
	# cut at a segment boundary: the closing record gone, an ERROR
	sed '$d' "$WORK/suite.txt" >"$WORK/unclosed.txt"
	$FSAIO replay "$WORK/unclosed.txt" >"$WORK/unclosed.ktap" 2>&1; rc=$?
	[[ $rc -eq $EXIT_ERROR ]] && grep -q 'cut short' "$WORK/unclosed.ktap" ||
		fail "a log without its closing record: rc=$rc, not an ERROR"
	$FSAIO replay --json "$WORK/text.json" "$WORK/suite.txt" >"$WORK/text.ktap"; rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "replay of the text log: rc=$rc"
	grep -q '^# replay of .*: text log recorded on' "$WORK/text.ktap" || fail "not read as a text log"
	diff <(jq -c "$facts" "$WORK/bin.json") <(jq -c "$facts" "$WORK/text.json") ||
		fail "the text log's verdicts or counts differ from the binary log's"
	awk 'NR == 40 { print substr($0, 1, 30); next } { print }' "$WORK/suite.txt" >"$WORK/cut.txt"
	$FSAIO replay "$WORK/cut.txt" >"$WORK/cut.ktap" 2>"$WORK/cut.err"; rc=$?
	[[ $rc -eq $EXIT_ERROR ]] || fail "a cut record line: rc=$rc"
	grep -q 'line 40' "$WORK/cut.err" || fail "the error does not name line 40: $(cat "$WORK/cut.err")"
}
TESTS+=(t_replay_text)

# Rules broken once among tens of thousands of requests made at full rate:
# a real stream of a busy io_uring_enter loop (every event sent, -E), the
# same stream with a double completion, a sleep inside io_uring_enter and
# a request never completed put in (inject-violations.awk).  The real one
# passes; the broken one fails exactly those three checks, one violation
# each, named.  (The kernel-side fold's decisions on such streams:
# tests/unit/test_fold.c; real kernels that break them: make mutants.)
t_violations_at_full_rate() {
	need_root
	local prog=.output/conformance/uring_enter_busy nc rc out
	[[ -x $prog ]] || fail "$prog not built"
	# 60k records: fewer than the ring holds, so none is lost under load
	$FSAIO check -E --record "$WORK/busy.log" -- "$prog" -c 20000 >/dev/null 2>&1; rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "the real busy loop: rc=$rc"
	$FSAIO replay --text "$WORK/busy.txt" "$WORK/busy.log" >/dev/null || fail "replay --text"
	nc=$(grep -c '^R type=7 ' "$WORK/busy.txt")
	((nc >= 20000)) || fail "$nc COMPLETE records for 20000 NOPs"
	awk -v mid=$((nc / 2)) -v last="$nc" -f tests/e2e/inject-violations.awk \
		"$WORK/busy.txt" >"$WORK/broken.txt"
	out=$($FSAIO replay --json "$WORK/broken.json" "$WORK/broken.txt" 2>&1); rc=$?
	[[ $rc -eq $EXIT_FAIL ]] || fail "broken stream: rc=$rc $(grep -E 'not ok|ERROR' <<<"$out" | head -3)"
	jqv "$WORK/broken.json" '[.invariants[] | select(.verdict != "pass" and .verdict != "skip") | .name] ==
		["exactly_once", "nonblocking_submit_io_uring", "quiescence"]' >/dev/null ||
		fail "not exactly the three: $(jq -c '[.invariants[] | [.name, .verdict]]' "$WORK/broken.json")"
	grep -q '# exactly_once: 1 violations; first: completed twice: req ' <<<"$out" ||
		fail "double completion: $(grep exactly_once <<<"$out")"
	grep -q '# nonblocking_submit_io_uring: io_uring_enter slept 1 times ' <<<"$out" ||
		fail "sleep in submit: $(grep nonblocking_submit_io_uring <<<"$out")"
	grep -q '# quiescence: 1 requests never completed' <<<"$out" ||
		fail "never completed: $(grep quiescence <<<"$out")"
	jqv "$WORK/broken.json" ".lost_events == 0 and .engines.io_uring.submitted == $nc" >/dev/null ||
		fail "counts: $(jq -c '[.lost_events, .engines.io_uring.submitted]' "$WORK/broken.json")"
}
TESTS+=(t_violations_at_full_rate)
