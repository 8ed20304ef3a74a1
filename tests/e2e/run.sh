#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End-to-end tests of fsaio on the running kernel: real BPF, real fio,
# real libaio/io_uring, real loop devices.  KTAP out through the kernel's
# tools/testing/selftests/kselftest/ktap_helpers.sh (vendored unchanged as
# tests/e2e/ktap_helpers.sh); the last line is its kselftest "# Totals:"
# line, which tests/run-all.sh adds up.  Each test is a function run in a
# subshell: exit status EXIT_PASS, EXIT_SKIP or anything else for a
# failure (harness/exit_status.h, through ci/lib.sh).
#
#   tests/e2e/run.sh [NAME...]    all tests, or only the named ones
set -u
cd "$(dirname "$0")/../.."
. ci/lib.sh
. tests/e2e/ktap_helpers.sh
FSAIO=./fsaio
WORK=$(mktemp -d /var/tmp/fsaio-e2e.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
TESTS=()

# Fail the current test with a message.
fail() { echo "# $*"; exit "$EXIT_FAIL"; }
need_root() { [[ $(id -u) -eq 0 ]] || { echo "# needs root"; exit "$EXIT_SKIP"; }; }
# jq FILE FILTER: evaluate, fail if null/false/error
jqv() { jq -er "$2" "$1" 2>/dev/null; }
leftovers() {	# nothing of ours mounted, attached, running or in a cgroup
	! grep -q fsaio /proc/mounts || fail "scratch mount left behind: $(grep fsaio /proc/mounts)"
	! losetup -a 2>/dev/null | grep -q fsaio || fail "loop device left behind: $(losetup -a | grep fsaio)"
	! pgrep -f 'fsaio-e2e-marker' >/dev/null || fail "workload process left behind: $(pgrep -af fsaio-e2e-marker)"
	local cg
	cg=$(dead_fsaio_cgroups)
	[[ -z $cg ]] || fail "cgroup left behind: $cg"
}
# The run's cgroups (fsaio-<pid>-<n>, run/cgroup.c) whose fsaio has exited;
# those of an fsaio still running elsewhere are its own business.
dead_fsaio_cgroups() {
	local d pid
	for d in $(find /sys/fs/cgroup -type d -name 'fsaio-*-*' 2>/dev/null); do
		pid=${d##*/fsaio-}
		pid=${pid%%-*}
		[[ -d /proc/$pid ]] || echo "$d"
	done
}
need_cgroup2() {
	grep -q '^cgroup2 ' /proc/mounts || { echo "# no cgroup v2 mounted"; exit "$EXIT_SKIP"; }
}

# ---------------------------------------------------------------- usage
t_help() {
	$FSAIO --help | grep -q "Usage: fsaio" || fail "no usage"
	$FSAIO check --help | grep -q -- "-- CMD" || fail "check --help lacks '-- CMD'"
	$FSAIO trace --help | grep -q -- "--duration" || fail "trace --help lacks --duration"
}
TESTS+=(t_help)

t_bad_input() {
	local out rc
	out=$($FSAIO frobnicate 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out == "fsaio: unknown command"* ]] || fail "unknown command: rc=$rc '$out'"
	out=$($FSAIO check --no-such-flag 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE ]] || fail "unknown flag: rc=$rc"
	out=$($FSAIO check no_such_workload 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out == *"unknown workload 'no_such_workload'"* ]] || fail "unknown workload: rc=$rc '$out'"
	out=$($FSAIO trace -d abc 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE ]] || fail "bad duration: rc=$rc"
	out=$($FSAIO replay /nonexistent/log 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out == *"cannot open"* ]] || fail "missing log: rc=$rc '$out'"
	out=$($FSAIO check -- 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE ]] || fail "empty command: rc=$rc '$out'"
}
TESTS+=(t_bad_input)

t_not_root() {
	need_root
	local out rc
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups $FSAIO check -- true 2>&1); rc=$?
	[[ $rc -eq $EXIT_SKIP && $out == *"needs root"* ]] || fail "not root: rc=$rc '$out'"
	[[ $(wc -l <<<"$out") -eq 1 ]] || fail "not one line: '$out'"
}
TESTS+=(t_not_root)

t_no_btf() {
	need_root
	local out rc
	out=$(FSAIO_BTF=/nonexistent/vmlinux $FSAIO check -- true 2>&1); rc=$?
	[[ $rc -eq $EXIT_SKIP && $out == *"BTF"* ]] || fail "no BTF: rc=$rc '$out'"
}
TESTS+=(t_no_btf)

t_command_not_found() {
	need_root
	local out rc
	out=$($FSAIO check -- /nonexistent/prog 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out == *"cannot run '/nonexistent/prog'"* ]] || fail "rc=$rc '$out'"
	leftovers
}
TESTS+=(t_command_not_found)

t_command_fails() {
	need_root
	local out rc
	out=$($FSAIO check -- sh -c 'exit 3' 2>&1); rc=$?
	[[ $rc -eq $EXIT_FAIL && $out == *"not ok 1 workload_exit"* ]] || fail "rc=$rc '$out'"
}
TESTS+=(t_command_fails)

t_command_hangs() {
	need_root
	local out rc
	out=$($FSAIO check --timeout 2 -- sh -c 'sleep 600 # fsaio-e2e-marker' 2>&1); rc=$?
	[[ $rc -eq $EXIT_ERROR && $out == *"hung: killed after 2 s"* ]] || fail "rc=$rc '$out'"
	sleep 0.5
	leftovers
}
TESTS+=(t_command_hangs)

# workload_resources: fs.aio-nr must come back after a workload.  A process
# outside fsaio's tree creates an aio context when the workload tells it to
# and keeps it past the run: with --exclusive that is a FAIL naming the
# count, without it a SKIP (fsaio cannot tell whose the context is).  One
# that frees it later than --settle but within the late window is a PASS
# that says the free was late.
t_resources_leak() {
	need_root
	local out rc x
	cc -O2 -x c -o "$WORK/hold_aio" - <<'CEOF' || fail "cannot build the helper"
#include <linux/aio_abi.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	aio_context_t ctx = 0;
	char c;
	FILE *go = fopen(argv[1], "r"), *done;

	if (!go || fread(&c, 1, 1, go) != 1 || syscall(SYS_io_setup, 8, &ctx))
		return 1;
	done = fopen(argv[2], "r");	/* hold the context until told */
	return done && fread(&c, 1, 1, done) == 1 ? 0 : 1;
}
CEOF
	for x in "--exclusive" ""; do
		rm -f "$WORK/go" "$WORK/done"; mkfifo "$WORK/go" "$WORK/done"
		"$WORK/hold_aio" "$WORK/go" "$WORK/done" &
		out=$($FSAIO check $x --settle 500 -- sh -c "echo g >'$WORK/go'; sleep 0.3" 2>&1); rc=$?
		echo d >"$WORK/done"; wait
		grep -E 'workload_resources' <<<"$out"
		if [[ -n $x ]]; then
			[[ $rc -eq $EXIT_FAIL && $out == *"not ok 3 workload_resources"* &&
			   $out == *"8 aio events of contexts not freed"* ]] || fail "--exclusive: rc=$rc"
		else
			[[ $rc -eq $EXIT_PASS && $out == *"ok 3 workload_resources # SKIP"* ]] ||
				fail "without --exclusive: rc=$rc"
		fi
	done
	out=$($FSAIO check --exclusive -- sh -c 'true' 2>&1); rc=$?
	[[ $rc -eq $EXIT_PASS && $out == *"fs.aio-nr back to"* ]] || fail "clean run: rc=$rc '$out'"
	# freed 1.5 s after the run: past --settle 500, inside 4 x 500
	rm -f "$WORK/go" "$WORK/done"; mkfifo "$WORK/go" "$WORK/done"
	"$WORK/hold_aio" "$WORK/go" "$WORK/done" &
	(sleep 1.8; echo d >"$WORK/done") &
	out=$($FSAIO check --exclusive --settle 500 -- sh -c "echo g >'$WORK/go'; sleep 0.3" 2>&1); rc=$?
	wait
	grep -E 'workload_resources' <<<"$out"
	[[ $rc -eq $EXIT_PASS && $out == *"freed late, not leaked"* ]] || fail "late free: rc=$rc"
}
TESTS+=(t_resources_leak)

# A child that leaves the process group (setsid) is killed with the rest:
# the command runs in a cgroup of its own (harness/run/cgroup.c).
t_command_setsid_hangs() {
	need_root
	need_cgroup2
	local out rc n
	out=$($FSAIO check --timeout 2 -- sh -c 'setsid sh -c "sleep 600 # fsaio-e2e-marker" 2>/dev/null & sleep 600' 2>&1); rc=$?
	[[ $rc -eq $EXIT_ERROR && $out == *"hung: killed after 2 s"* ]] || fail "rc=$rc '$out'"
	n=$(sed -n 's/.*killed after 2 s (--timeout), \([0-9]*\) process.*/\1/p' <<<"$out")
	[[ ${n:-0} -ge 2 ]] || fail "killed '${n}' processes, not the whole tree: '$out'"
	leftovers
}
TESTS+=(t_command_setsid_hangs)

# The command exits 0 at once, its daemon (setsid, double fork) keeps its
# stdout: fsaio ends within the grace period, kills it and says so.
t_command_daemon_leftover() {
	need_root
	need_cgroup2
	local out rc t0 ms
	t0=$(date +%s%N)
	out=$(timeout -k 5 60 $FSAIO check --timeout 60 -- \
	      sh -c 'setsid sh -c "sh -c \"sleep 600 # fsaio-e2e-marker\" 2>/dev/null &"; echo started' 2>&1); rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	echo "# took $ms ms"
	[[ $rc -eq $EXIT_PASS ]] || fail "rc=$rc '$out'"
	((ms < 15000)) || fail "took $ms ms: waited on the daemon"
	grep -Eq 'workload_exit: exit 0; [0-9]+ leftover process(es)? killed 2 s after it exited' <<<"$out" ||
		fail "leftover not reported: '$out'"
	leftovers
}
TESTS+=(t_command_daemon_leftover)

t_interrupted() {
	need_root
	local pid rc
	$FSAIO check --timeout 60 cached_randread >"$WORK/int.out" 2>&1 &
	pid=$!
	sleep 4
	kill -INT $pid
	wait $pid; rc=$?
	[[ $rc -eq $EXIT_ERROR ]] || fail "interrupted run: rc=$rc: $(cat "$WORK/int.out")"
	grep -q "interrupted" "$WORK/int.out" || fail "no 'interrupted' message"
	sleep 0.5
	leftovers
}
TESTS+=(t_interrupted)

# SIGINT while a setsid() child runs: it is killed too, and reported.
t_interrupted_setsid() {
	need_root
	need_cgroup2
	local pid rc i
	$FSAIO check --timeout 60 -- sh -c 'setsid sh -c "sleep 600 # fsaio-e2e-marker" 2>/dev/null & sleep 600' \
		>"$WORK/intsid.out" 2>&1 &
	pid=$!
	for ((i = 0; i < 100; i++)); do
		pgrep -f '^sh -c sleep 600 # fsaio-e2e-marker' >/dev/null && break
		sleep 0.1
	done
	kill -INT $pid
	wait $pid; rc=$?
	[[ $rc -eq $EXIT_ERROR ]] || fail "interrupted run: rc=$rc: $(cat "$WORK/intsid.out")"
	grep -Eq 'workload_exit: ERROR: interrupted: [0-9]+ process(es)? killed' "$WORK/intsid.out" ||
		fail "no 'interrupted: N processes killed': $(cat "$WORK/intsid.out")"
	leftovers
}
TESTS+=(t_interrupted_setsid)

# ------------------------------------------------ the must-show: fio, not ours
# A program that is not part of fsaio (fio) submits a batch of cold 4 KiB
# buffered reads; fsaio must count exactly what fio says it did.
fio_cold_reads() {	# engine json_out
	fio --name=cold --directory="$WORK" --filename=cold.dat --size=16m \
	    --ioengine="$1" --direct=0 --rw=randread --bs=4k --iodepth=32 \
	    --number_ios=512 --invalidate=1 --randrepeat=1 --norandommap \
	    --output-format=json --output="$2"
}

t_fio_libaio_cold_exact() {
	need_root
	local out rc ios sub comp blocked st
	out=$($FSAIO check --json "$WORK/la.json" -- \
	      bash -c "$(declare -f fio_cold_reads); WORK=$WORK fio_cold_reads libaio $WORK/fio-la.json" 2>&1); rc=$?
	echo "$out" | grep -E '^ *(not ok|ok [0-9]+ nonblocking|# nonblocking)' | head -5
	[[ $rc -eq $EXIT_PASS ]] || fail "fsaio check rc=$rc: $out"
	ios=$(jq '.jobs[0].read.total_ios' "$WORK/fio-la.json")
	sub=$(jqv "$WORK/la.json" '.engines.libaio.submitted')
	comp=$(jqv "$WORK/la.json" '.engines.libaio.completed')
	blocked=$(jqv "$WORK/la.json" '.engines.libaio.blocked_in_submit')
	echo "# fio total_ios=$ios traced submitted=$sub completed=$comp blocked_in_submit=$blocked"
	[[ $ios -gt 0 && $sub -eq $ios && $comp -eq $ios ]] || fail "counts differ"
	# Stock kernel: io_submit sleeps in page waits, reported XFAIL with the count.
	if ! jqv "$WORK/la.json" '.kernel.features.fsaio_tracepoints' >/dev/null; then
		[[ $blocked -gt 0 ]] || fail "stock kernel but no blocking seen in io_submit"
		jqv "$WORK/la.json" '.invariants[] | select(.name=="nonblocking_submit_libaio") | select(.verdict=="xfail") | .detail' || fail "not XFAIL"
		# ... each with where it waited: a page wait under io_submit,
		# symbolized, the tracer's and the scheduler's frames left out
		st=$(jqv "$WORK/la.json" '[.runs[0].invariants[] | select(.name=="nonblocking_submit_libaio") | .stacks[] | select(.site=="folio_bit")][0].stack')
		echo "# stack: $st"
		[[ $st == folio_wait_bit_common+0x* && $st == *"<- io_submit_one+0x"* ]] || fail "stack: '$st'"
	fi
}
TESTS+=(t_fio_libaio_cold_exact)

t_fio_io_uring_cold_exact() {
	need_root
	local out rc ios sub comp blocked
	out=$($FSAIO check --json "$WORK/iu.json" -- \
	      bash -c "$(declare -f fio_cold_reads); WORK=$WORK fio_cold_reads io_uring $WORK/fio-iu.json" 2>&1); rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "fsaio check rc=$rc: $out"
	ios=$(jq '.jobs[0].read.total_ios' "$WORK/fio-iu.json")
	sub=$(jqv "$WORK/iu.json" '.engines.io_uring.submitted')
	comp=$(jqv "$WORK/iu.json" '.engines.io_uring.completed')
	blocked=$(jqv "$WORK/iu.json" '.engines.io_uring.blocked_in_submit')
	echo "# fio total_ios=$ios traced submitted=$sub completed=$comp blocked_in_submit=$blocked"
	[[ $ios -gt 0 && $sub -eq $ios && $comp -eq $ios && $blocked -eq 0 ]] || fail "counts differ or blocked"
	jqv "$WORK/iu.json" '.invariants[] | select(.name=="exactly_once") | select(.verdict=="pass")' >/dev/null || fail "exactly_once not pass"
	jqv "$WORK/iu.json" '.invariants[] | select(.name=="nonblocking_submit_io_uring") | select(.verdict=="pass")' >/dev/null || fail "nonblocking_submit_io_uring not pass"
}
TESTS+=(t_fio_io_uring_cold_exact)

# Job files in the style of fio's own examples (tests/e2e/fio/: libaio
# O_DIRECT at four depths, the four stonewalled phases of ssd-test, io_uring
# with SQPOLL + fixed buffers + registered files, io_uring with batched
# submit and complete): each passes, nothing lost, and the traced requests
# are exactly fio's total_ios.
t_fio_examples() {
	need_root
	local j out rc ios sub comp
	export FSAIO_FX_DIR=$WORK/fx
	mkdir -p "$FSAIO_FX_DIR"
	for j in tests/e2e/fio/*.fio; do
		out=$WORK/fx-$(basename "$j" .fio)
		$FSAIO check --json "$out.json" -- fio --output-format=json --output="$out.fio.json" "$j" \
			>"$out.ktap" 2>&1; rc=$?
		[[ $rc -eq $EXIT_PASS ]] || fail "$j: rc=$rc $(grep -E '^ *(# .*: |not ok)' "$out.ktap" | head -3)"
		ios=$(jq '[.jobs[] | .read.total_ios + .write.total_ios] | add' "$out.fio.json")
		sub=$(jq '.engines.libaio.submitted + .engines.io_uring.submitted' "$out.json")
		comp=$(jq '.engines.libaio.completed + .engines.io_uring.completed' "$out.json")
		echo "# $(basename "$j"): fio total_ios $ios, traced submitted $sub completed $comp, lost $(jq .lost_events "$out.json")"
		[[ $ios -gt 0 && $sub -eq $ios && $comp -eq $ios && $(jq .lost_events "$out.json") -eq 0 ]] ||
			fail "$j: counts differ"
		rm -f "$FSAIO_FX_DIR"/*
	done
}
TESTS+=(t_fio_examples)

# ------------------------------------------------ the suite, JSON, replay
t_suite() {
	need_root
	local rc
	$FSAIO check --json "$WORK/suite.json" --record "$WORK/suite.log" >"$WORK/suite.ktap" 2>&1; rc=$?
	sed 's/^/# /' "$WORK/suite.ktap" | grep -E '^# *(not ok|ok [0-9]+ [a-z_]+$|# [a-z_]+:)' | head -60
	[[ $rc -eq $EXIT_PASS ]] || fail "suite rc=$rc"
	for k in '.kernel.release' '.kernel.features' '.engines.libaio.submitted' \
		 '.engines.io_uring.punts' '.wait_sites' '.lost_events' '.invariants[0].verdict'; do
		jq -e "$k != null" "$WORK/suite.json" >/dev/null || fail "JSON lacks $k"
	done
	[[ $(jq '.lost_events' "$WORK/suite.json") -eq 0 ]] || fail "lost events"
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
	[[ $(grep -c '^R ' "$WORK/suite.txt") -eq $(jq '[.runs[].records] | add' "$WORK/bin.json") ]] ||
		fail "text log: $(grep -c '^R ' "$WORK/suite.txt") record lines, $(jq '[.runs[].records] | add' "$WORK/bin.json") records"
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

# ------------------------------------------------ compare (no root needed)
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

# ------------------------------------------------ conformance corpus
# Programs of tests/conformance/ whose verdicts are right today (the others
# and their expected counts: tests/conformance/README.md).  conf_run NAME
# [ARGS]: fsaio check -- the program; the run must pass with 0 records
# lost and the traced counts must equal the program's own (the join
# workload_agreement makes for workloads; it skips commands).  Sets $J,
# the JSON.
conf_run() {
	local name=$1 rc line mine traced
	shift
	J=$WORK/conf-$name.json
	mkdir -p "$WORK/conf"
	local prog=.output/workloads/$name
	[[ -x $prog ]] || prog=.output/conformance/$name
	$FSAIO check --json "$J" -- "$prog" -d "$WORK/conf" "$@" \
		>"$WORK/conf-$name.ktap" 2>&1; rc=$?
	if [[ $(jq -r '.runs[0].invariants[0].verdict' "$J" 2>/dev/null) == skip ]]; then
		grep -m1 'SKIP' "$WORK/conf-$name.ktap"; exit "$EXIT_SKIP"
	fi
	grep -E '^ +(not ok|# [a-z_]+:)' "$WORK/conf-$name.ktap" | sed 's/^ *//'
	[[ $rc -eq $EXIT_PASS ]] || fail "fsaio check rc=$rc"
	[[ $(jq '.lost_events' "$J") -eq 0 ]] || fail "records lost"
	line=$(jq -r '.runs[0].workload_summary' "$J")
	mine=$(sed -nE 's/.* submitted=([0-9]+) completed=([0-9]+) .*/\1 \2/p' <<<"$line")
	mine="$mine $(sed -nE 's/.* abandoned=([0-9]+).*/\1/p' <<<"$line")"
	mine=${mine% }; [[ $mine == *" "*" "* ]] || mine="$mine 0"
	traced=$(jq -r '.engines | "\(.io_uring.submitted + .libaio.submitted) \(.io_uring.completed + .libaio.completed) \(.io_uring.abandoned + .libaio.abandoned)"' "$J")
	[[ -n $mine && $mine == "$traced" ]] || fail "program says '$line', traced $traced"
}

# One IORING_POLL_ADD_MULTI, 16 CQEs with F_MORE, then POLL_REMOVE: two
# requests, each ended by its one CQE without F_MORE; -ECANCELED is 1 error.
t_conf_poll_multishot() {
	need_root
	conf_run uring_poll_multishot
	[[ $(jq -r '.engines.io_uring | "\(.submitted) \(.completed) \(.abandoned) \(.errors)"' "$J") == "2 2 0 1" ]] ||
		fail "io_uring counts $(jq -c .engines.io_uring "$J")"
}
TESTS+=(t_conf_poll_multishot)

# IORING_OP_READ_MULTISHOT with 8 provided buffers: 8 CQEs with F_MORE,
# then -ENOBUFS ends it (skips where the kernel lacks the opcode).
t_conf_read_multishot() {
	need_root
	conf_run uring_read_multishot
	[[ $(jq -r '.engines.io_uring | "\(.submitted) \(.completed) \(.abandoned) \(.errors)"' "$J") == "1 1 0 1" ]] ||
		fail "io_uring counts $(jq -c .engines.io_uring "$J")"
}
TESTS+=(t_conf_read_multishot)

# 8 cold reads + poll, timeout (-ETIME), splice, statx, nop in one submit.
t_conf_mixed_ops() {
	need_root
	conf_run uring_mixed_ops
	[[ $(jq -r '.engines.io_uring | "\(.submitted) \(.completed) \(.abandoned) \(.errors) \(.submit_calls)"' "$J") == "13 13 0 1 1" ]] ||
		fail "io_uring counts $(jq -c .engines.io_uring "$J")"
	jqv "$J" '.invariants[] | select(.name=="nonblocking_submit_io_uring") | select(.verdict=="pass")' >/dev/null ||
		fail "nonblocking_submit_io_uring not pass"
}
TESTS+=(t_conf_mixed_ops)

# conf_counts ENGINE "FIELD..." "VALUES": exact engine counters of the run
conf_counts() {
	local got
	got=$(jq -r --arg e "$1" --arg f "$2" '.engines[$e] as $x | [$f | split(" ")[] | $x[.] | tostring] | join(" ")' "$J")
	[[ $got == "$3" ]] || fail "$1 $2: $got, expected $3"
}

# 72 good cold reads and 12 SQEs rejected at init (bad opcode, flags, fd,
# buffer), several on req structs recycled from finished reads: 84
# requests each completed once; the 12 are io_uring_req_failed's, not
# "completed twice" (20 errors: 12 at init, 8 at issue).
t_conf_early_fail() {
	need_root
	conf_run uring_early_fail
	conf_counts io_uring "submitted completed abandoned errors failed_init" "84 84 0 20 12"
}
TESTS+=(t_conf_early_fail)

# 64 NOPs into a 4-entry CQ: 4 CQEs posted, 60 overflowed (traced by
# io_uring_cqe_overflow, without the req), none dropped: all completed.
t_conf_cq_overflow() {
	need_root
	conf_run uring_cq_overflow
	conf_counts io_uring "submitted completed abandoned cq_overflow cq_dropped" "64 64 0 60 0"
}
TESTS+=(t_conf_cq_overflow)

# Pipe reads and polls armed at _exit() and at ring close: the kernel
# cancels them at ring teardown (-ECANCELED): abandoned, not completed.
t_conf_exit_armed() {
	need_root
	conf_run uring_exit_armed
	conf_counts io_uring "submitted completed abandoned" "12 2 10"
	grep -q "10 cancelled at io_uring ring teardown" "$WORK/conf-uring_exit_armed.ktap" ||
		fail "detail: $(grep exactly_once "$WORK/conf-uring_exit_armed.ktap")"
}
TESTS+=(t_conf_exit_armed)

# Linked chains broken at issue, at init (the head rejected by
# io_uring_req_failed) and by a short read: -ECANCELED members counted.
t_conf_link_fail() {
	need_root
	conf_run uring_link_fail
	conf_counts io_uring "submitted completed abandoned errors failed_init" "16 16 0 10 1"
}
TESTS+=(t_conf_link_fail)

# IOSQE_CQE_SKIP_SUCCESS (liburing's test/skip-cqe.c drew "submitted again
# before it completed" and quiescence FAILs): 25 requests, 7 CQEs; 18 end
# without one (successes with the flag, and a failed chain's links whose
# -ECANCELED CQE the kernel skips), each counted completed once.
t_conf_cqe_skip() {
	need_root
	conf_run uring_cqe_skip
	conf_counts io_uring "submitted completed abandoned errors cqe_skipped" "25 25 0 3 18"
	grep -q "18 ended without a CQE" "$WORK/conf-uring_cqe_skip.ktap" ||
		fail "detail: $(grep exactly_once "$WORK/conf-uring_cqe_skip.ktap")"
}
TESTS+=(t_conf_cqe_skip)

# IORING_OP_SEND_ZC on loopback TCP: each send's own CQE (F_MORE) ends it,
# the notification (F_NOTIF) comes from the kernel's own request on a
# recycled req struct: 24 sends, 24 notifications, none "in flight".
t_conf_send_zc() {
	need_root
	conf_run uring_send_zc
	conf_counts io_uring "submitted completed abandoned errors zc_notifs" "24 24 0 0 24"
}
TESTS+=(t_conf_send_zc)

# CQ overflow while a pipe read with the same user_data (0) is in flight:
# the overflowed CQEs (no req) first end the read; its own CQE, and the
# reuse of an overflowed NOP's req struct, move them where they belong.
t_conf_overflow_same_ud() {
	need_root
	conf_run uring_overflow_same_ud
	conf_counts io_uring "submitted completed abandoned errors cq_overflow cq_dropped" "34 34 0 0 16 0"
}
TESTS+=(t_conf_overflow_same_ud)

# 1024 cold reads in one io_uring_enter: the submitter waits for block
# layer request tags (the queue holds fewer), not in page waits: the
# sleeps are counted apart and nonblocking_submit_io_uring passes.
t_conf_read_deep() {
	need_root
	conf_run uring_read_deep
	conf_counts io_uring "submitted completed submit_calls blocked_in_submit" "1024 1024 1 0"
}
TESTS+=(t_conf_read_deep)

# libaio: the main thread pthread_exit()s first, a worker submits 48 and
# reaps 32; the last thread's exit abandons 16 (not the leader's).
t_conf_leader_exit() {
	need_root
	conf_run aio_leader_exit
	conf_counts libaio "submitted completed abandoned" "48 32 16"
}
TESTS+=(t_conf_leader_exit)

# IOSQE_IO_DRAIN: 8 cold reads, a drained NOP, 8 more reads in one submit;
# the NOP and the last 8 complete after the first 8 (the program checks
# the order; the NOP vs the last 8 is not promised, so not checked): 17
# requests, each completed once.
t_conf_drain() {
	need_root
	conf_run uring_drain
	conf_counts io_uring "submitted completed abandoned errors" "17 17 0 0"
	[[ $(jq -c '.engines.io_uring.by_opcode' "$J") == '{"nop":1,"read":16}' ]] ||
		fail "by_opcode $(jq -c '.engines.io_uring.by_opcode' "$J")"
}
TESTS+=(t_conf_drain)

# A program that calls io_uring_enter in a tight loop (1M empty
# GETEVENTS, 1M NOP submit+reap: ~3M records in a few seconds): check's
# default ring buffer (32 MiB) takes it without losing a record.
t_conf_enter_busy() {
	need_root
	conf_run uring_enter_busy
	conf_counts io_uring "submitted completed abandoned" "1000000 1000000 0"
}
TESTS+=(t_conf_enter_busy)

# ------------------------------------------------ trace
t_trace_idle() {
	need_root
	local rc
	$FSAIO trace -d 3 -i 1 --json "$WORK/idle.json" >"$WORK/idle.out" 2>&1; rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "rc=$rc: $(cat "$WORK/idle.out")"
	[[ $(jq '.lost_events' "$WORK/idle.json") -eq 0 ]] || fail "lost events"
	grep -q "wait site" "$WORK/idle.out" || fail "no wait-site table"
}
TESTS+=(t_trace_idle)

t_trace_under_load() {
	need_root
	local rc fpid
	# io_uring makes two records per read: the highest event rate we can
	# drive from one job (about 1e6 records/s here).
	fio --name=cached --directory="$WORK" --filename=hot.dat --size=64m --ioengine=io_uring \
	    --iodepth=8 --rw=randread --bs=4k --time_based --runtime=8 --invalidate=0 \
	    --output-format=json --output="$WORK/hot.json" >/dev/null 2>&1 &
	fpid=$!
	$FSAIO trace -d 6 -i 2 --json "$WORK/load.json" >"$WORK/load.out" 2>&1; rc=$?
	wait $fpid
	[[ $rc -eq $EXIT_PASS ]] || fail "rc=$rc: $(tail -3 "$WORK/load.out")"
	local sub recs
	sub=$(jq '.engines.io_uring.submitted' "$WORK/load.json")
	recs=$(jq '.runs[0].records' "$WORK/load.json")
	echo "# fio io_uring cached randread $(jq '.jobs[0].read.iops|floor' "$WORK/hot.json") IOPS while traced; records $recs for $sub io_uring requests ($(jq '.runs[0].records_counted_in_kernel' "$WORK/load.json") counted in the kernel), lost $(jq '.lost_events' "$WORK/load.json")"
	[[ $(jq '.lost_events' "$WORK/load.json") -eq 0 ]] || fail "lost events"
	[[ $sub -gt 10000 ]] || fail "too few io_uring requests traced"
	# requests are counted in the kernel: records are sleeps and exits
	((recs * 100 < sub)) || fail "$recs records for $sub requests: not aggregated in the kernel"
	# and its memory does not grow with the load (a bound, not a timing)
	local rss
	rss=($(jq -r '.runs[0].workload_summary' "$WORK/load.json" | grep -oE '[0-9]+ KiB' | grep -oE '[0-9]+'))
	echo "# resident ${rss[0]:-?} KiB once attached, ${rss[1]:-?} KiB at the end"
	[[ ${#rss[@]} -eq 2 ]] || fail "no resident memory in the JSON"
	((rss[1] <= rss[0] + 4096)) || fail "fsaio trace grew from ${rss[0]} to ${rss[1]} KiB"
}
TESTS+=(t_trace_under_load)

# -c and -p select what is traced: only the chosen program's 64 reads count.
t_trace_filters() {
	need_root
	local rc
	mkdir -p "$WORK/f"
	mkfifo "$WORK/go.fifo"
	(sleep 2; .output/workloads/uring_read_batch -d "$WORK/f" >/dev/null;
	 .output/workloads/aio_read_batch -d "$WORK/f" >/dev/null) &
	$FSAIO trace -d 5 -i 0 -c aio_read_batch --json "$WORK/comm.json" >/dev/null 2>&1; rc=$?
	wait
	[[ $rc -eq $EXIT_PASS ]] || fail "trace -c rc=$rc"
	[[ $(jq '.engines.libaio.submitted' "$WORK/comm.json") -eq 64 &&
	   $(jq '.engines.io_uring.submitted' "$WORK/comm.json") -eq 0 ]] ||
		fail "trace -c: $(jq -c '[.engines.libaio.submitted,.engines.io_uring.submitted]' "$WORK/comm.json")"
	# -p: a shell that runs the io_uring program once its tracer is attached.
	sh -c 'read _ ; exec '"$PWD"'/.output/workloads/uring_read_batch -d '"$WORK/f" \
		<"$WORK/go.fifo" >/dev/null 2>&1 &
	local pid=$!
	( sleep 2; echo go >"$WORK/go.fifo" ) &
	.output/workloads/aio_read_batch -d "$WORK/f" >/dev/null &
	$FSAIO trace -d 5 -i 0 -p $pid --json "$WORK/pid.json" >/dev/null 2>&1; rc=$?
	wait
	[[ $rc -eq $EXIT_PASS ]] || fail "trace -p rc=$rc"
	[[ $(jq '.engines.io_uring.submitted' "$WORK/pid.json") -eq 64 &&
	   $(jq '.engines.libaio.submitted' "$WORK/pid.json") -eq 0 ]] ||
		fail "trace -p: $(jq -c '[.engines.libaio.submitted,.engines.io_uring.submitted]' "$WORK/pid.json")"
}
TESTS+=(t_trace_filters)

# The kernel's counts (fsaio trace) and the checker's from every record
# (fsaio trace -E, as fsaio check counts) agree on the same programs:
# 64 io_uring reads, 64 libaio reads, a multishot read; exact.
t_trace_aggregate_agrees() {
	need_root
	local mode rc f opt
	mkdir -p "$WORK/ag"
	for mode in agg per-event; do
		f=$WORK/ag-$mode
		rm -f "$f.fifo"; mkfifo "$f.fifo"
		sh -c 'read _; w='"$PWD"'/.output/workloads; $w/uring_read_batch -d '"$WORK/ag"' &&
		       $w/aio_read_batch -d '"$WORK/ag"' && $w/uring_read_multishot -d '"$WORK/ag" \
			<"$f.fifo" >/dev/null 2>&1 &
		local pid=$!
		( sleep 2; echo go >"$f.fifo" ) &
		opt=()
		[[ $mode == agg ]] || opt=(--per-event)
		$FSAIO trace -d 6 -i 0 -p $pid "${opt[@]}" --json "$f.json" >"$f.out" 2>&1; rc=$?
		wait
		[[ $rc -eq $EXIT_PASS ]] || fail "trace ($mode) rc=$rc: $(tail -2 "$f.out")"
	done
	local q='[.engines.libaio.submitted,.engines.libaio.completed,.engines.io_uring.submitted,.engines.io_uring.completed]'
	local a e
	a=$(jq -c "$q" "$WORK/ag-agg.json"); e=$(jq -c "$q" "$WORK/ag-per-event.json")
	echo "# libaio/io_uring submitted,completed: kernel counts $a, per event $e; records $(jq '.runs[0].records' "$WORK/ag-agg.json") vs $(jq '.runs[0].records' "$WORK/ag-per-event.json")"
	[[ $a == "$e" ]] || fail "the kernel's counts $a differ from the checker's $e"
	[[ $(jq '.engines.libaio.submitted' "$WORK/ag-agg.json") -eq 64 &&
	   $(jq '.engines.libaio.completed' "$WORK/ag-agg.json") -eq 64 ]] || fail "libaio: $a, want 64 64"
	[[ $(jq '.runs[0].records_counted_in_kernel' "$WORK/ag-agg.json") -gt 128 ]] ||
		fail "nothing counted in the kernel"
	[[ $(jq '.runs[0].records_counted_in_kernel' "$WORK/ag-per-event.json") -eq 0 ]] ||
		fail "-E counted in the kernel"
}
TESTS+=(t_trace_aggregate_agrees)

# fsaio check folds plain io_uring lifecycles in the kernel
# (bpf/fsaio_fold.h); -E sends every record.  Same verdicts, same request
# counts, on io_uring programs that fold (reads), that do not (multishot,
# CQ overflow, failed links, early failures, ring teardown at exit), and on
# one that keeps requests in flight across an exit.
t_check_fold_agrees() {
	need_root
	local mode w="uring_read_batch uring_read_multishot uring_cq_overflow uring_link_fail uring_early_fail uring_exit_armed uring_drain"
	for mode in fold per-event; do
		local opt=()
		[[ $mode == fold ]] || opt=(-E)
		$FSAIO check "${opt[@]}" --json "$WORK/cf-$mode.json" $w >"$WORK/cf-$mode.out" 2>&1 ||
			fail "check ($mode) rc=$?: $(grep -m3 'not ok' "$WORK/cf-$mode.out")"
	done
	local q='[.runs[] | {name, verdict, inv: [.invariants[] | {name, verdict}], u: .engines.io_uring | [.submitted, .completed, .errors, .failed_init, .cq_overflow]}]'
	local a e
	a=$(jq -c "$q" "$WORK/cf-fold.json"); e=$(jq -c "$q" "$WORK/cf-per-event.json")
	[[ $a == "$e" ]] || fail "folded and per-event checks differ: $(diff <(jq . <<<"$a") <(jq . <<<"$e") | head -20 | tr '\n' ' ')"
	local rf re kf
	rf=$(jq '[.runs[].records] | add' "$WORK/cf-fold.json")
	re=$(jq '[.runs[].records] | add' "$WORK/cf-per-event.json")
	kf=$(jq '[.runs[].records_counted_in_kernel] | add' "$WORK/cf-fold.json")
	echo "# records sent: $rf folded, $re per event; $kf counted in the kernel"
	# 64 plain reads, 2 records each; fold_slots is direct-mapped, so two
	# of them in flight at once may hash to one slot and the first is then
	# sent instead (rare: io_kiocbs sit close together and the hash is
	# Fibonacci's; seen once in session 9, 338 of 354): most, not all.
	local kr
	kr=$(jq '.runs[] | select(.name == "uring_read_batch") | .records_counted_in_kernel' "$WORK/cf-fold.json")
	[[ $kr -ge 96 ]] || fail "uring_read_batch: only $kr of its 128 plain-read records were counted in the kernel"
	[[ $(jq '[.runs[].records_counted_in_kernel] | add' "$WORK/cf-per-event.json") -eq 0 ]] ||
		fail "-E counted in the kernel"
	((rf < re)) || fail "folding sent $rf records, per event $re"
}
TESTS+=(t_check_fold_agrees)

# fsaio trace --stacks: where a traced program slept, by stack.  On a stock
# kernel io_submit sleeps in folio_wait_bit_common under io_submit_one.
t_trace_stacks() {
	need_root
	local rc
	mkdir -p "$WORK/s"
	(sleep 2; .output/workloads/aio_read_batch -d "$WORK/s" >/dev/null) &
	$FSAIO trace -d 5 -i 0 -c aio_read_batch --stacks=3 >"$WORK/stacks.out" 2>&1; rc=$?
	wait
	[[ $rc -eq $EXIT_PASS ]] || fail "trace --stacks rc=$rc: $(tail -3 "$WORK/stacks.out")"
	grep -q '^top stacks, wait site folio_bit:' "$WORK/stacks.out" || fail "no folio_bit stacks: $(cat "$WORK/stacks.out")"
	grep -Eq '^ +[0-9]+ sleeps .* submit_libaio +folio_wait_bit_common\+0x[0-9a-f]+ <- .*io_submit_one' "$WORK/stacks.out" ||
		fail "no io_submit stack: $(grep -A3 'top stacks' "$WORK/stacks.out")"
}
TESTS+=(t_trace_stacks)

# A patched kernel is seeded from the stock key's O= tree
# (ci/kernel/build-kernel.sh): its stale_objects() must name an object that
# depends on a replaced source and was not rebuilt after it, and nothing
# else; run on a small fake O= tree with the script's own function.
t_kernel_stale_objects() {
	local d=$WORK/stale fn got
	mkdir -p "$d/src/o/fs" "$d/src/o/mm" "$d/key"
	printf 'include/linux/wait_bit.h\n' >"$d/key/freshened"
	: >"$d/key/seed-same-config"
	printf 'deps_fs/aio.o := \\\n  ../include/linux/wait_bit.h \\\n' >"$d/src/o/fs/.aio.o.cmd"
	printf 'deps_fs/pipe.o := \\\n  ../include/linux/wait.h \\\n' >"$d/src/o/fs/.pipe.o.cmd"
	printf 'deps_mm/filemap.o := \\\n  ../include/linux/wait_bit.h \\\n' >"$d/src/o/mm/.filemap.o.cmd"
	touch -d '-2 min' "$d/src/o/fs/aio.o" "$d/src/o/fs/pipe.o"	# before freshen
	touch -d '-1 min' "$d/key/freshened"
	touch "$d/src/o/mm/filemap.o"					# rebuilt after it
	fn=$(sed -n '/^stale_objects() {/,/^}/p' ci/kernel/build-kernel.sh)
	[[ -n $fn ]] || fail "no stale_objects() in ci/kernel/build-kernel.sh"
	got=$(eval "$fn"; KEYDIR=$d/key OUT=$d/src/o stale_objects)
	[[ $got == fs/aio.o ]] || fail "stale objects: '$got', expected fs/aio.o only"
	rm "$d/key/seed-same-config"	# seeded from another config: not judged
	got=$(eval "$fn"; KEYDIR=$d/key OUT=$d/src/o stale_objects)
	[[ -z $got ]] || fail "judged without a same-config seed: '$got'"
}
TESTS+=(t_kernel_stale_objects)

# ci/vm/vm-run.sh's verdicts and cleanup with a fake QEMU (no kernel, ~7 s):
# QEMU killed, guest panic, bad init, timeout, Ctrl-C are ERRORs with their
# reason; pass/fail/skip/splat/no exit code/QEMU start failure; no QEMU
# process, temp dir or OUT/.vm left.  The real-QEMU twin: make vmselftest-errors.
t_vm_error_paths() {
	local out rc
	out=$(ci/vm/vm-error-tests.sh --fake 2>&1); rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "$(grep -E '^(not ok|# )' <<<"$out" | tr '\n' ' ')"
}
TESTS+=(t_vm_error_paths)

# The LAVA verdict path without QEMU or lava-run (ci/lava/lava-judge-tests.sh,
# ~7 s): kselftest logs through the guest-side parser, LAVA's log judged by
# lava-check.sh --judge: pass, a failing check, all skipped, and cut-off KTAP,
# plan mismatch, a lost result, a failed job, no log, no results as ERRORs.
# The real run: make lava-check.
t_lava_judge() {
	local out rc
	python3 -c 'import yaml' 2>/dev/null || { echo "# no python3-yaml"; exit "$EXIT_SKIP"; }
	out=$(ci/lava/lava-judge-tests.sh 2>&1); rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "$(grep -E '^not ok' <<<"$out" | tr '\n' ' ')"
}
TESTS+=(t_lava_judge)

# The SystemTap-against-BPF judgement without a VM (ci/stap/guest-compare.sh
# --logs): a real libaio run's --record log against itself as text agrees;
# the text with one REAP's result changed (counts disagree) FAILs; with a
# REAP line dropped (a lost record) it FAILs too, never passes.  The real
# run: make stapcheck.
t_stap_judge() {
	need_root
	local rc d=$WORK/stapj
	mkdir -p "$d/data"
	$FSAIO check --record "$d/bpf.log" -- .output/workloads/aio_read_batch -d "$d/data" \
		>"$d/check.ktap" 2>&1
	[[ -s $d/bpf.log ]] || fail "no log recorded: $(tail -3 "$d/check.ktap")"
	$FSAIO replay --text "$d/same.txt" "$d/bpf.log" >/dev/null
	ci/stap/guest-compare.sh --logs "$d/out" same "$d/bpf.log" "$d/same.txt" >"$d/same.ktap"; rc=$?
	cat "$d/same.ktap"
	[[ $rc -eq 0 ]] && grep -q '^ok 1 stap_agrees_same' "$d/same.ktap" || fail "same log: rc=$rc"
	# one REAP's result 4096 -> -5: errors 0 -> 1
	awk '!done && /^R type=8 / && / res=4096 / { sub(/ res=4096 /, " res=-5 "); done = 1 } { print }' \
		"$d/same.txt" >"$d/res.txt"
	ci/stap/guest-compare.sh --logs "$d/out" res "$d/bpf.log" "$d/res.txt" >"$d/res.ktap"; rc=$?
	cat "$d/res.ktap"
	[[ $rc -eq 1 ]] && grep -q '^not ok 1 stap_agrees_res # .*they differ' "$d/res.ktap" &&
		grep -q '"errors": 1' "$d/res.ktap" || fail "a changed result: rc=$rc"
	awk '!done && /^R type=8 / { done = 1; next } { print }' "$d/same.txt" >"$d/lost.txt"
	ci/stap/guest-compare.sh --logs "$d/out" lost "$d/bpf.log" "$d/lost.txt" >"$d/lost.ktap"; rc=$?
	[[ $rc -ne 0 ]] && grep -q '^not ok 1 stap_agrees_lost' "$d/lost.ktap" ||
		fail "a lost record: rc=$rc $(cat "$d/lost.ktap")"
	rm -rf "$d/data"
}
TESTS+=(t_stap_judge)

# ---------------------------------------------------------------- crash-replay tier
# (ci/crash/; its VM run is make vmcrash).  The host has no dm-log-writes,
# so the log reader gets a log written here by the kernel's format
# (drivers/md/dm-log-writes.c): 512-byte sectors, one header sector per
# entry (the mark name in it), then the entry's data.
lw_le64() { local v=$1 i; for ((i = 0; i < 8; i++)); do printf '\\x%02x' $(((v >> (8 * i)) & 255)); done; }
lw_sector() { { cat; head -c 512 /dev/zero; } | head -c 512; }	# pad stdin to a sector
# lw_entry LOG SECTOR NR FLAGS [MARK|FILLCHAR]
lw_entry() {
	local mark= fill=
	(($4 & 8)) && mark=$5 || fill=${5:-}
	{ printf "$(lw_le64 "$2")$(lw_le64 "$3")$(lw_le64 "$4")$(lw_le64 ${#mark})"; printf '%s' "$mark"; } |
		lw_sector >>"$1"
	if [[ -n $fill ]]; then head -c $(($3 * 512)) /dev/zero | tr '\0' "$fill" >>"$1"; fi
}
# lw_log LOG NR_ENTRIES: the super sector (entries appended after it)
lw_super() {
	{ printf "$(lw_le64 $((0x6a736677736872)))$(lw_le64 1)$(lw_le64 "$2")"; printf '\x00\x02\x00\x00'; } | lw_sector >"$1"
}
# byte CHAR at sector S of FILE? (the first byte of the sector)
lw_at() { [[ $(dd if="$1" bs=512 skip="$2" count=1 2>/dev/null | head -c 1 | od -An -c | tr -d ' ') == "$3" ]]; }

t_crash_lw_replay() {
	local R=.output/crash/lw-replay d=$WORK/lw out rc
	[[ -x $R ]] || fail "$R not built"
	mkdir -p "$d"
	# W A@0, W B@8, FLUSH, mark m1, FUA C@16, W D@24 (no flush after it),
	# mark m2, DISCARD 0..8, FLUSH, mark m3
	lw_super "$d/log" 10
	lw_entry "$d/log" 0 8 0 A; lw_entry "$d/log" 8 8 0 B; lw_entry "$d/log" 0 0 1
	lw_entry "$d/log" 0 0 8 m1; lw_entry "$d/log" 16 8 2 C; lw_entry "$d/log" 24 8 0 D
	lw_entry "$d/log" 0 0 8 m2; lw_entry "$d/log" 0 8 4; lw_entry "$d/log" 0 0 1
	lw_entry "$d/log" 0 0 8 m3
	out=$($R -l "$d/log" --list) || fail "--list: $out"
	[[ $(grep -c . <<<"$out") -eq 11 && $out == *"6 MARK m2"* && $out == *"4 FUA sector 16 nr 8"* ]] ||
		fail "--list: $out"
	truncate -s 32K "$d/base"
	out=$($R -l "$d/log" -b "$d/base" -c "$d/copy" -m m1) || fail "m1: $out"
	[[ $out == *"entry=3 flush=2 base=3 fua_tail=0 dropped=0" ]] || fail "m1: $out"
	lw_at "$d/copy" 0 A && lw_at "$d/copy" 8 B && lw_at "$d/copy" 16 '\0' || fail "m1 image wrong"
	# m2: the FUA write is on disk, the plain one still in the volatile cache
	out=$($R -l "$d/log" -b "$d/base" -c "$d/copy" -m m2) || fail "m2: $out"
	[[ $out == *"entry=6 flush=2 base=3 fua_tail=1 dropped=1" ]] || fail "m2: $out"
	lw_at "$d/copy" 16 C && lw_at "$d/copy" 24 '\0' && ! lw_at "$d/base" 16 C || fail "m2 image wrong"
	out=$($R -l "$d/log" -b "$d/base" -c "$d/copy" -m m3) || fail "m3: $out"
	[[ $out == *"entry=9 flush=8 base=9 fua_tail=0 dropped=0" ]] || fail "m3: $out"
	lw_at "$d/copy" 0 '\0' && lw_at "$d/copy" 8 B && lw_at "$d/copy" 24 D || fail "m3 image wrong (discard, D)"
	# marks out of order, unknown marks and bad logs: errors, not verdicts
	out=$($R -l "$d/log" -b "$d/base" -c "$d/copy" -m m1 2>&1); rc=$?
	[[ $rc -eq $EXIT_ERROR && $out == *"log order"* ]] || fail "out of order: rc=$rc $out"
	out=$($R -l "$d/log" -b "$d/base" -c "$d/copy" -m nosuch 2>&1); rc=$?
	[[ $rc -eq $EXIT_ERROR && $out == *"no mark 'nosuch'"* ]] || fail "unknown mark: rc=$rc $out"
	# without the cache model D is replayed at m2 too
	rm -f "$d/base.pos"; truncate -s 0 "$d/base"; truncate -s 32K "$d/base"
	out=$($R -l "$d/log" -b "$d/base" -c "$d/copy" -m m2 --no-cache-model) || fail "m2 full: $out"
	lw_at "$d/copy" 24 D || fail "--no-cache-model: D missing at m2"
	head -c 4096 /dev/zero >"$d/bad"
	out=$($R -l "$d/bad" --list 2>&1); rc=$?
	[[ $rc -eq $EXIT_ERROR && $out == *"not a dm-log-writes log"* ]] || fail "bad magic: rc=$rc $out"
	head -c 3000 "$d/log" >"$d/short"
	out=$($R -l "$d/short" --list 2>&1); rc=$?
	[[ $rc -eq $EXIT_ERROR && $out == *"truncated"* ]] || fail "truncated log: rc=$rc $out"
	$R >/dev/null 2>&1; rc=$?
	[[ $rc -eq $EXIT_USAGE ]] || fail "no arguments: rc=$rc"
}
TESTS+=(t_crash_lw_replay)

# osync_marks's verifier on a file it wrote (kept, -K), then damaged: a
# lost, a torn and a stale block must each be named with the mark.
t_crash_verify() {
	local W=.output/workloads/osync_marks d=$WORK/om out rc f
	mkdir -p "$d"
	out=$($W -d "$d" -n 16 -q 4 -K -M "$d/m.txt") || fail "write: $out"
	out=$($W -d "$d" -V "$d/m.txt" -k ack0007) || fail "verify intact: $out"
	[[ $out == *"acked=8 ok=8 missing=0 stale=0 torn=0"* ]] || fail "verify intact: $out"
	f=$(awk '$1 == "file" { print $2 }' "$d/m.txt")
	w() { awk -v s="$1" '$1 == "ack" && $2 == s { print $3 }' "$d/m.txt"; }	# write acked as SEQ
	# seq 1 -> zeros, seq 2 -> one byte off, seq 3 -> the block of seq 0
	dd if=/dev/zero of="$d/$f" bs=64K seek="$(w 1)" count=1 conv=notrunc status=none
	printf 'X' | dd of="$d/$f" bs=1 seek=$(($(w 2) * 65536 + 100)) conv=notrunc status=none
	dd if="$d/$f" of="$d/$f" bs=4K skip=$(($(w 0) * 16)) seek=$(($(w 3) * 16)) count=1 conv=notrunc status=none
	out=$($W -d "$d" -V "$d/m.txt" -k ack0007); rc=$?
	[[ $rc -eq $EXIT_FAIL && $out == *"acked=8 ok=5 missing=1 stale=1 torn=1"* ]] || fail "damaged: rc=$rc $out"
	[[ $out == *"mark ack0007: write $(w 1) (offset $(($(w 1) * 65536))) missing"* &&
	   $out == *"write $(w 3) "*"stale: holds write $(w 0) "* ]] || fail "damage not named: $out"
	# before the damage, nothing to see
	out=$($W -d "$d" -V "$d/m.txt" -k ack0000) || fail "verify up to ack0000: $out"
	out=$($W -d "$d" -V "$d/m.txt" -k nosuch 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE ]] || fail "unknown mark: rc=$rc $out"
}
TESTS+=(t_crash_verify)

# tests/e2e/run.sh [NAME...]: only these tests (names without t_), as
# kselftest's -t; an unknown name is a usage error.
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
if (($#)); then
	want=()
	for n in "$@"; do
		[[ " ${TESTS[*]} " == *" t_$n "* ]] || usage_error "no test '$n'; tests: ${TESTS[*]#t_}"
		want+=("t_$n")
	done
	TESTS=("${want[@]}")
fi
ktap_print_header
ktap_set_plan "${#TESTS[@]}"
for t in "${TESTS[@]}"; do
	# The test's output (its reason to skip or fail included) as diagnostics.
	out=$( (set +e; "$t") 2>&1 ); rc=$?
	[[ -n $out ]] && sed 's/^\([^#]\)/# \1/' <<<"$out"
	case $rc in
	"$EXIT_PASS") ktap_test_pass "${t#t_}" ;;
	"$EXIT_SKIP") ktap_test_skip "${t#t_}" ;;
	*) ktap_test_fail "${t#t_}" ;;
	esac
done
ktap_finished
