# SPDX-License-Identifier: GPL-2.0
# End-to-end tests: bad input and faults.  Resource limits (open files,
# file size), numbers out of range, targets that trace nothing, outputs
# that cannot be written, a full scratch disk, skip codes, what a command
# line puts into KTAP, a chatty command, files that are no results, and
# what a SIGKILLed fsaio leaves for the next run to clean.  Each failed
# before the behaviour it checks was fixed.  Sourced by tests/e2e/run.sh.

# Too few file descriptors for the programs: an error that says so, never
# a blind trace that exits 0.
t_fd_limit() {
	need_root
	local out rc
	out=$(bash -c "ulimit -n 70; $FSAIO trace -d 1 -i 0 -E" 2>&1); rc=$?
	[[ $rc -eq $EXIT_ERROR && $out == *"ulimit -n"* ]] || fail "ulimit -n 70: rc=$rc '$out'"
}
TESTS+=(t_fd_limit)

# Past RLIMIT_FSIZE: exit 5 with the reason, no SIGXFSZ death, nothing
# left behind, and no JSON cut short (written whole or not at all).
t_fsize_limit() {
	need_root
	local out rc bin
	bin=$(realpath "$FSAIO")
	out=$(cd "$WORK" && bash -c "ulimit -S -f 8; $bin check --record f.log --json f.json -- sh -c 'head -c 65536 /dev/zero >big'" 2>&1); rc=$?
	[[ $rc -eq $EXIT_ERROR ]] || fail "ulimit -f 8: rc=$rc (SIGXFSZ is 153) '$(tail -2 <<<"$out")'"
	[[ $out == *"File too large"* ]] || fail "no reason given: '$(tail -2 <<<"$out")'"
	[[ ! -e $WORK/f.json ]] || jq -e . "$WORK/f.json" >/dev/null 2>&1 || fail "a JSON cut short was left"
	leftovers
}
TESTS+=(t_fsize_limit)

# Numbers are range-checked before they are narrowed to an int.
t_number_ranges() {
	local a out rc
	for a in "check --timeout 4294967297 -- true" "check --settle 4294967296 -- true" \
		 "check --timeout 010x -- true" "trace -d -1" "check -b 3 -- true"; do
		out=$($FSAIO $a 2>&1); rc=$?
		[[ $rc -eq $EXIT_USAGE ]] || fail "fsaio $a: rc=$rc '$out'"
	done
}
TESTS+=(t_number_ranges)

# trace targets that match nothing are refused: pid 0 (kill(0, 0) succeeds
# for the caller's own group), an empty name, a zombie.
t_trace_targets() {
	local out rc z=
	out=$($FSAIO trace -p 0 -d 1 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE ]] || fail "-p 0: rc=$rc '$out'"
	out=$($FSAIO trace -c '' -d 1 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE ]] || fail "-c '': rc=$rc '$out'"
	sh -c 'sleep 0.1 & exec sleep 3' &
	local parent=$!
	for _ in $(seq 50); do
		z=$(ps -o pid=,stat= --ppid "$parent" | awk '$2 ~ /^Z/ { print $1; exit }')
		[[ -n $z ]] && break
		sleep 0.1
	done
	[[ -n $z ]] || { kill "$parent"; fail "no zombie to test with"; }
	out=$($FSAIO trace -p "$z" -d 1 2>&1); rc=$?
	kill "$parent" 2>/dev/null; wait "$parent" 2>/dev/null
	[[ $rc -eq $EXIT_USAGE && $out == *zombie* ]] || fail "-p zombie: rc=$rc '$out'"
}
TESTS+=(t_trace_targets)

# Outputs and options are refused before anything is loaded or set up.
t_late_validation() {
	need_root
	local out rc
	out=$($FSAIO check --json /nonexistent/dir/x.json -- true 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out == *"cannot write"* ]] || fail "--json in a missing dir: rc=$rc '$out'"
	out=$($FSAIO check --record "$WORK/same" --json "$WORK/../${WORK##*/}/same" -- true 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && ! -e $WORK/same ]] || fail "--record F --json F: rc=$rc '$out'"
	out=$($FSAIO -v check --fs btrfs aio_read_batch 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out != *"loop device"* && $out != *attach* ]] ||
		fail "--fs btrfs: rc=$rc '$(head -3 <<<"$out")'"
}
TESTS+=(t_late_validation)

# A scratch directory without room for the image says so.
t_full_scratch() {
	need_root
	local out rc d=$WORK/small
	mkdir -p "$d" && mount -t tmpfs -o size=40m fsaio-e2e-small "$d" || { echo "# cannot mount a tmpfs"; exit "$EXIT_SKIP"; }
	out=$(FSAIO_SCRATCH_DIR=$d $FSAIO check aio_read_batch 2>&1); rc=$?
	umount "$d"
	[[ $rc -eq $EXIT_ERROR && $out == *"MiB free in $d"* ]] || fail "rc=$rc '$(grep fsaio: <<<"$out" | head -2)'"
	leftovers
}
TESTS+=(t_full_scratch)

# Skip codes per program kind: a command's exit 4 is a failing exit, its
# 77 (automake, liburing) a skip, --skip-code N its own; the run of a
# program that skipped itself is a SKIP, never a PASS.
t_skip_codes() {
	need_root
	local out rc
	out=$($FSAIO check -- sh -c 'exit 4' 2>&1); rc=$?
	[[ $rc -eq $EXIT_FAIL && $out == *"command exited with status 4"* ]] || fail "exit 4: rc=$rc"
	[[ $out != *"data or result check failed"* ]] || fail "exit 4 of a command called a failed data check"
	out=$($FSAIO check -- sh -c 'exit 77' 2>&1); rc=$?
	[[ $rc -eq $EXIT_SKIP && $out == *$'\nok 1 sh # SKIP'* ]] || fail "exit 77: rc=$rc '$(grep -E '^(not )?ok' <<<"$out")'"
	out=$($FSAIO check --skip-code 3 -- sh -c 'exit 3' 2>&1); rc=$?
	[[ $rc -eq $EXIT_SKIP ]] || fail "--skip-code 3, exit 3: rc=$rc"
	out=$($FSAIO check --skip-code 0 -- sh -c 'exit 77' 2>&1); rc=$?
	[[ $rc -eq $EXIT_FAIL ]] || fail "--skip-code 0, exit 77: rc=$rc"
}
TESTS+=(t_skip_codes)

# What argv puts into KTAP stays inside its line: exactly one top-level
# test line, no injected one.
t_ktap_newline() {
	need_root
	local out
	out=$($FSAIO check -- sh -c true $'\nnot ok 1 injected' 2>/dev/null)
	[[ $(grep -c '^not ok' <<<"$out") -eq 0 && $(grep -cE '^(not )?ok ' <<<"$out") -eq 1 ]] ||
		fail "$(grep -E '^(not )?ok|injected' <<<"$out")"
	[[ $out == *'\x0anot ok 1 injected'* ]] || fail "the newline is not shown escaped"
}
TESTS+=(t_ktap_newline)

# A chatty command is relayed at pipe speed, not taken for a hung one
# (it was relayed at ~190 KiB/s: 256 MiB took over 20 minutes).
t_chatty_command() {
	need_root
	local out rc
	out=$($FSAIO check --timeout 120 -- sh -c 'yes | head -c 256M' 2>&1); rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "rc=$rc $(grep -E 'workload_exit|lost' <<<"$out" | head -2)"
}
TESTS+=(t_chatty_command)

# A consumer that stops (SIGSTOP here; a starved one on a busy machine)
# while records pour in: BPF asks for a larger ring once half of it waits,
# and fsaio grows it when it runs again.  The records lost while it was
# stopped make the run an ERROR, never a PASS; with the maximum at the
# start the ring keeps its size.
t_ring_grows() {
	need_root
	local prog=.output/conformance/uring_enter_busy max pid st rc
	[[ -x $prog ]] || fail "$prog not built"
	for max in 16 1; do
		rm -f "$WORK/fsaio.pid"
		bash -c 'echo $$ >"$0"; exec "$@"' "$WORK/fsaio.pid" "$FSAIO" check -E \
			--ringbuf-mb 1 --ringbuf-max-mb $max --json "$WORK/grow.json" -- \
			sh -c 'kill -STOP "$(cat "$0")" && exec "$1" -c 300000' "$WORK/fsaio.pid" \
			"$(realpath $prog)" >"$WORK/grow.out" 2>&1 &
		pid=$!
		for _ in $(seq 100); do	# stopped ...
			st=$(awk '{ print $3 }' /proc/$pid/stat 2>/dev/null)
			[[ $st == T ]] && break
			sleep 0.1
		done
		[[ $st == T ]] || { kill -CONT $pid; wait $pid; fail "max $max: fsaio never stopped ($st)"; }
		# ... while the program makes all of its ~600k records (~50 MiB,
		# at any load): it ends a zombie, as fsaio cannot reap it
		for _ in $(seq 600); do
			ps -C uring_enter_busy -o stat= | grep -q Z && break
			sleep 0.1
		done
		kill -CONT $pid
		wait $pid; rc=$?
		[[ $rc -eq $EXIT_ERROR ]] || fail "max $max: rc=$rc, records lost while stopped must be ERROR"
		jqv "$WORK/grow.json" '.lost_by_cause.ringbuf > 0' >/dev/null ||
			fail "max $max: no ring buffer reserve failure counted: $(jq -c .lost_by_cause "$WORK/grow.json")"
		if [[ $max == 16 ]]; then
			jqv "$WORK/grow.json" '.ring_buffer.grown >= 1 and .ring_buffer.bytes >= 2097152' >/dev/null ||
				fail "the ring did not grow: $(jq -c .ring_buffer "$WORK/grow.json")"
			grep -q "ring buffer grown" "$WORK/grow.out" ||
				fail "the report does not say the ring grew"
		else
			jqv "$WORK/grow.json" '.ring_buffer == {"bytes": 1048576, "grown": 0}' >/dev/null ||
				fail "a fixed ring changed: $(jq -c .ring_buffer "$WORK/grow.json")"
		fi
	done
	leftovers
}
TESTS+=(t_ring_grows)

# Files that are no results are refused at once, not read forever.
t_results_not_files() {
	local c out rc
	for c in "compare /dev/zero docs/bench/bench.json" "bench show /dev/zero" \
		 "bench stats /dev/zero" "compare $WORK docs/bench/bench.json"; do
		out=$(timeout 20 $FSAIO $c 2>&1); rc=$?
		[[ $rc -eq $EXIT_USAGE ]] || fail "fsaio $c: rc=$rc '$out'"
	done
	out=$($FSAIO list extra 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE ]] || fail "list extra: rc=$rc"
}
TESTS+=(t_results_not_files)

# SIGKILL of fsaio: the command dies with it (PR_SET_PDEATHSIG); what it
# started, its cgroup and the suite's scratch mount are ended and removed
# by the next fsaio check, which says so.
t_sigkill_cleanup() {
	need_root
	need_cgroup2
	local fp out i
	# the command (exec'd: fsaio's child itself) and a setsid grandchild
	$FSAIO check -- sh -c 'setsid sh -c "sleep 300; : fsaio-e2e-marker-a" &
		exec sh -c "sleep 301; : fsaio-e2e-marker-b"' >/dev/null 2>&1 &
	fp=$!
	# (fsaio's own command line holds both markers: match the shells')
	for i in $(seq 100); do
		pgrep -f '^sh -c sleep 300' >/dev/null && pgrep -f '^sh -c sleep 301' >/dev/null && break
		sleep 0.1
	done
	kill -9 "$fp"; wait "$fp" 2>/dev/null
	sleep 0.5
	! pgrep -f '^sh -c sleep 301; : fsaio-e2e-marker-b' >/dev/null || fail "the command outlived fsaio"
	pgrep -f '^sh -c sleep 300; : fsaio-e2e-marker-a' >/dev/null || fail "nothing was left to clean (test broken)"
	# suite mode: the scratch mount
	$FSAIO check aio_read_batch aio_osync_write >/dev/null 2>&1 &
	fp=$!
	for i in $(seq 200); do grep -q "fsaio-mnt-$fp-" /proc/mounts && break; sleep 0.05; done
	kill -9 "$fp"; wait "$fp" 2>/dev/null
	grep -q "fsaio-mnt-$fp-" /proc/mounts || fail "no scratch mount was left to clean (test broken)"
	out=$($FSAIO check -- true 2>&1)
	[[ $out == *"left by fsaio"* ]] || fail "the next run said nothing: '$out'"
	leftovers
}
TESTS+=(t_sigkill_cleanup)
