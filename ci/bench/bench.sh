#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: run the benchmark parts, merge them into bench.json (schema
# fsaio-bench/1, see ci/README.md "Benchmarks"), print the table, draw plots.
# The JSON is built by the defs of ci/bench/bench.jq; this script measures
# and calls them.
#
#   ci/bench/bench.sh [-h]
#
# Parts:
#   tracer       host: 4 KiB cached random reads (fio psync, io_uring) without
#                tracing, under `fsaio trace`, under `fsaio check -- fio` and
#                under the bpftrace one-liner a user would pick instead,
#                interleaved in that order; the highest event rate traced
#                with zero lost records; a perf profile of where the traced
#                run's CPU time goes
#   load         host: records lost and verdicts under a background load.
#                At each load factor F (1, 2, 4): stress-ng --cpu F x nproc
#                --iomix nproc (as make check-load starts it), and beside it,
#                each under `fsaio check -j FILE -- CMD` at nice 0: the fio
#                jobs of tests/e2e/fio/ (SQPOLL, batched io_uring, libaio
#                O_DIRECT) and conformance programs of the io_uring shapes
#                (multishot, timeouts and polls, links and failed chains,
#                cancellation, CQ overflow, CQE_SKIP, a busy enter loop);
#                then the stdout relay: `sh -c 'yes | head -c 1G'` under
#                fsaio check against the bare pipeline through cat; the
#                load average sampled throughout.  About 5 minutes
#   syncpath,    VM: run by ci/bench/bench-vm.sh PARTS_DIR on cached kernels
#   fsaio-table, (it never builds one; a kernel not built makes its parts
#   device-classes, skipped); all five skipped when that script is not in
#   database,    the checkout
#   stap-cost
#
# Environment:
#   BENCH_PARTS="tracer load vm"  which to run: tracer, load, vm (every VM
#                             part) or VM part names (syncpath fsaio-table
#                             device-classes database stap-cost); a part not run is
#                             recorded as skipped, or
#   BENCH_BASE=FILE           taken over from FILE (a bench.json: e.g.
#                             docs/bench/bench.json, to re-measure one part)
#   BENCH_VM_OPTS="--no-run"  extra ci/bench/bench-vm.sh options (--no-run:
#                             rebuild the VM parts from the last raw results)
#   BENCH_RUNTIME=2           seconds per fio run in the tracer part
#   BENCH_PAIRS=8             rounds per engine of the four runs (untraced,
#                             trace, check, bpftrace); fewer than 3 warns
#   BENCH_NICE=-20            niceness of fio and the tracer in the tracer part
#   BENCH_LOAD_FACTORS="1 2 4"  load part: stress-ng CPU workers per CPU
#   BENCH_LOAD_WARMUP=20      load part: seconds of load before the first program
#   BENCH_RELAY_ROUNDS=3      load part: relay runs per factor (bare, check)
#   BENCH_OUT=.output/bench   results: bench.json, parts/, logs/, plots
#
# Exit status (harness/exit_status.h): EXIT_PASS the benchmark ran (missed
# goals and skipped parts are reported, not failures); EXIT_ERROR (5) a
# measurement, the merge or the plots failed; EXIT_USAGE (64); EXIT_SKIP (4)
# not root (nothing could be measured).
set -uo pipefail
# One compound command: editing this file cannot break a running copy.
{

. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cannot cd to $ROOT"
OUT=${BENCH_OUT:-$ROOT/.output/bench}
PARTS_DIR=$OUT/parts
LOGS=$OUT/logs
RUNTIME=${BENCH_RUNTIME:-2}
PAIRS=${BENCH_PAIRS:-8}
SELECT=${BENCH_PARTS:-tracer load vm}
FSAIO=$ROOT/fsaio
SCHEMA=fsaio-bench/1
VM_PARTS=(syncpath fsaio-table device-classes database stap-cost)
FILE_SIZE=128m		# the cached file: fits in memory, larger than the CPU caches
# fio and the tracer run at this niceness, ahead of kernel builds (nice 10),
# QEMU guests and other background work on a shared machine; in tracer.json.
NICE=${BENCH_NICE:--20}
URING_DEPTH=8
# The tracing-cost goals, fio CPU per read untraced / traced (median of tuples)
declare -A GOAL_TRACE=([psync]=">= 0.99" [io_uring]=">= 0.95")
declare -A GOAL_CHECK=([psync]="" [io_uring]=">= 0.90")
GOAL_VS_BPFTRACE=">= 1.0"	# bpftrace CPU per read / fsaio trace's: costs no more
# The peer: count io_uring completions per command and D-state sleeps per
# kernel stack (what fsaio trace's tables say), as a bpftrace user would.
BPFTRACE_PROG='tracepoint:io_uring:io_uring_complete { @cqes[comm] = count(); }
tracepoint:sched:sched_switch /args->prev_state == 2/ { @dsleep[kstack] = count(); }'
MODES=(untraced traced check bpftrace)

[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
[[ $# -eq 0 ]] || usage_error "no arguments: the environment says what to run"
[[ $RUNTIME =~ ^[1-9][0-9]*$ && $PAIRS =~ ^[1-9][0-9]*$ ]] ||
	usage_error "BENCH_RUNTIME and BENCH_PAIRS must be positive integers"
((PAIRS >= 3)) || warn "BENCH_PAIRS=$PAIRS: fewer than 3 pairs give a poor spread"

WORK= TPID= BPID= PINPID= TCPU= TCPU0= ERRORS=0 LOADPGID= SAMPLERPID=
cleanup() {
	load_stop
	[[ -n $TPID ]] && kill -INT "$TPID" 2>/dev/null && wait "$TPID" 2>/dev/null
	[[ -n $BPID ]] && kill -INT "$BPID" 2>/dev/null && wait "$BPID" 2>/dev/null
	[[ -n $PINPID ]] && kill -TERM "$PINPID" 2>/dev/null && wait "$PINPID" 2>/dev/null
	[[ -n $WORK && -d $WORK ]] && rm -rf "$WORK"
}
trap cleanup EXIT
trap 'msg "interrupted"; exit "$EXIT_ERROR"' INT TERM HUP

selected() { [[ " $SELECT " == *" $1 "* ]]; }

# carry_over NAME: the part file of NAME from $BENCH_BASE, if it has NAME
carry_over() {
	[[ -n ${BENCH_BASE:-} ]] || return 1
	jq -e -L "$ROOT/ci/bench" --arg s "$SCHEMA" --arg p "$1" 'include "bench"; carry_over($s; $p)' \
		"$BENCH_BASE" >"$PARTS_DIR/$1.json" 2>/dev/null || { rm -f "$PARTS_DIR/$1.json"; return 1; }
	msg "part $1: taken over from $BENCH_BASE"
}

# part_stub NAME STATUS REASON: a part file without figures (skipped, error).
part_stub() {
	jq -n -L "$ROOT/ci/bench" --arg s "$SCHEMA" --arg p "$1" --arg st "$2" --arg r "$3" --arg k "$(uname -r)" \
		'include "bench"; part_stub($s; $p; $st; $r; $k)' >"$PARTS_DIR/$1.json"
	msg "part $1: $2: $3"
}

# ------------------------------------------------------------ tracer part

# fio_cmd ENGINE [extra fio options...]: the fio command line, one word per line
fio_args() {
	local engine=$1
	shift
	printf '%s\n' nice -n "$NICE" fio --name=bench --filename="$WORK/hot.dat" --size=$FILE_SIZE \
		--rw=randread --bs=4k --ioengine="$engine" --time_based --runtime="$RUNTIME" \
		--invalidate=0 --norandommap --randrepeat=0 --group_reporting "$@"
	[[ $engine == io_uring ]] && echo --iodepth=$URING_DEPTH
}

# run_fio LABEL ARGS...: run fio, JSON in $WORK/LABEL.json; fails on any fio error.
run_fio() {
	local label=$1 json=$WORK/$1.json
	shift
	"$@" --output-format=json --output="$json" >"$WORK/$label.log" 2>&1 &&
		jq -e -L "$ROOT/ci/bench" 'include "bench"; fio_ok' "$json" >/dev/null ||
		{ msg "fio $label failed: $(tail -2 "$WORK/$label.log" | tr '\n' ' ')"; return 1; }
}

# proc_cpu PID: user+system CPU seconds of a process so far
proc_cpu() { awk '{ print ($14 + $15) / '"$(getconf CLK_TCK)"' }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# attached PID FILE PATTERN WHAT: wait up to 30 s for a background tracer
# to print PATTERN in FILE once attached; its CPU so far in TCPU0 (loading
# and attaching are not counted); else stop it and fail.
attached() {
	local i
	for ((i = 0; i < 300; i++)); do
		if grep -qs "$3" "$2"; then
			TCPU0=$(proc_cpu "$1")
			return 0
		fi
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	msg "$4 did not attach: $(tail -2 "$2" | tr '\n' ' ')"
	kill -INT "$1" 2>/dev/null
	wait "$1"
	return 1
}

# trace_start JSON: fsaio trace in the background; returns once its BPF
# programs are attached (it prints "fsaio: tracing ..." after attaching).
trace_start() {
	nice -n "$NICE" "$FSAIO" trace -i 0 -d $((RUNTIME * 3 + 60)) --json "$1" >"$1.out" 2>"$1.err" &
	TPID=$!
	attached "$TPID" "$1.err" '^fsaio: tracing' "fsaio trace" || { TPID=; return 1; }
}

# trace_stop JSON: stop the tracer; its CPU seconds since it attached in
# TCPU (the consumer's cost; counted until the stop); fails if it wrote
# no JSON (EXIT_ERROR with a JSON is lost records: measured, not an error).
# Not in a subshell: it waits for its child.
trace_stop() {
	local rc
	TCPU=$(awk -v a="$(proc_cpu "$TPID")" -v b="${TCPU0:-0}" 'BEGIN { print a - b }')
	kill -INT "$TPID"
	wait "$TPID"
	rc=$?
	TPID=
	if [[ $rc -ne $EXIT_PASS && $rc -ne $EXIT_ERROR ]] || ! jq -e '.lost_events' "$1" >/dev/null 2>&1; then
		msg "fsaio trace failed (exit $rc): $(tail -2 "$1.err" | tr '\n' ' ')"
		return 1
	fi
}

# bpftrace_start OUT / bpftrace_stop: the peer one-liner in the background,
# returning once it printed "Attaching N probes"; its own CPU in TCPU.
bpftrace_start() {
	nice -n "$NICE" bpftrace -e "$BPFTRACE_PROG" >"$1" 2>"$1.err" &
	BPID=$!
	attached "$BPID" "$1" '^Attaching' bpftrace || { BPID=; return 1; }
	sleep 0.5	# "Attaching" comes before the probes are live
	TCPU0=$(proc_cpu "$BPID")
}
bpftrace_stop() {
	TCPU=$(awk -v a="$(proc_cpu "$BPID")" -v b="${TCPU0:-0}" 'BEGIN { print a - b }')
	kill -INT "$BPID"
	wait "$BPID"
	BPID=
}

# one_run MODE LABEL ENGINE [fio options]: one measured run; appends a row to
# $WORK/runs.tsv: mode label engine iops ios runtime_ms records lost
# tracer_cpu_s fio_cpu_s
one_run() {
	local mode=$1 label=$2 engine=$3 cpu=0 rec=0 lost=0
	local -a cmd
	shift 3
	mapfile -t cmd < <(fio_args "$engine" "$@")
	case $mode in
	traced)
		trace_start "$WORK/$label.trace.json" || return 1
		run_fio "$label" "${cmd[@]}" || { trace_stop "$WORK/$label.trace.json"; return 1; }
		trace_stop "$WORK/$label.trace.json" || return 1
		cpu=${TCPU:-0}
		rec=$(jq '.runs[0].records' "$WORK/$label.trace.json")
		lost=$(jq '.lost_events' "$WORK/$label.trace.json")
		;;
	check)	# every event to user space and judged, as in CI
		cmd=(nice -n "$NICE" "$FSAIO" check --json "$WORK/$label.check.json" -- "${cmd[@]}")
		# lost records make check an ERROR: measured (lost), not a failed
		# run, as long as fio itself ran clean
		"${cmd[@]}" --output-format=json --output="$WORK/$label.json" >"$WORK/$label.log" 2>&1
		jq -e -L "$ROOT/ci/bench" 'include "bench"; fio_ok' "$WORK/$label.json" >/dev/null 2>&1 &&
			jq -e '.runs[0].exit_status == 0' "$WORK/$label.check.json" >/dev/null 2>&1 ||
			{ msg "fsaio check -- fio $label failed: $(tail -2 "$WORK/$label.log" | tr '\n' ' ')"; return 1; }
		rec=$(jq '.runs[0].records' "$WORK/$label.check.json")
		lost=$(jq '.lost_events' "$WORK/$label.check.json")
		;;
	bpftrace)
		bpftrace_start "$WORK/$label.bt" || return 1
		run_fio "$label" "${cmd[@]}" || { bpftrace_stop; return 1; }
		bpftrace_stop
		cpu=${TCPU:-0}
		;;
	*)
		run_fio "$label" "${cmd[@]}" || return 1
		;;
	esac
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$label" "$engine" \
		"$(jq '.jobs[0].read.iops' "$WORK/$label.json")" \
		"$(jq '.jobs[0].read.total_ios' "$WORK/$label.json")" \
		"$(jq '.jobs[0].read.runtime' "$WORK/$label.json")" "$rec" "$lost" "$cpu" \
		"$(jq -L "$ROOT/ci/bench" 'include "bench"; fio_cpu_s' "$WORK/$label.json")" \
		>>"$WORK/runs.tsv"
	# The exact command, for bench.json.
	printf '%s\t%s\n' "$label" "$(case $mode in
		traced) printf '%s ' nice -n "$NICE" "$FSAIO" trace -i 0 --json T.json '&' ;;
		bpftrace) printf '%s ' nice -n "$NICE" bpftrace -e "'$BPFTRACE_PROG'" '&' ;;
		esac; printf '%q ' "${cmd[@]}")" >>"$WORK/commands.tsv"
	printf '  %-20s %10.0f IOPS' "$label" "$(jq '.jobs[0].read.iops' "$WORK/$label.json")" >&2
	[[ $mode == traced || $mode == check ]] && printf '  records %s lost %s' "$rec" "$lost" >&2
	echo >&2
}

# perf_profile: where a traced io_uring run spends fio's CPU time, as
# "symbol<TAB>children%" rows in $WORK/profile.tsv.
perf_profile() {
	local -a cmd
	command -v perf >/dev/null || { msg "perf not installed: no profile"; return 1; }
	mapfile -t cmd < <(fio_args io_uring)
	trace_start "$WORK/prof.trace.json" || return 1
	perf record -q -e cpu-clock -F 1999 -g -o "$WORK/perf.data" -- \
		"${cmd[@]}" --output-format=json --output="$WORK/prof.json" >"$WORK/perf.log" 2>&1
	local rc=$?
	trace_stop "$WORK/prof.trace.json"
	[[ $rc -eq 0 ]] || { msg "perf record failed: $(tail -1 "$WORK/perf.log")"; return 1; }
	perf report -i "$WORK/perf.data" --children --stdio --sort sym -g none 2>/dev/null |
		awk '$1 ~ /%$/ && $2 ~ /%$/ { sub(/%/, "", $1); print $NF "\t" $1 }' >"$WORK/profile.tsv"
	[[ -s $WORK/profile.tsv ]]
}

part_tracer() {
	local t0 eng p i c m sweep_ok=1
	t0=$(now)
	if [[ $(id -u) -ne 0 ]]; then
		part_stub tracer skipped "needs root (BPF tracing)"
		return
	fi
	for c in fio jq bpftrace "$FSAIO"; do
		command -v "$c" >/dev/null ||
			{ part_stub tracer error "$c not found (run make, ci/install-deps.sh)"; return; }
	done
	WORK=$(mktemp -d /var/tmp/fsaio-bench.XXXXXX) || { part_stub tracer error "mktemp failed"; return; }
	: >"$WORK/runs.tsv"
	: >"$WORK/commands.tsv"
	msg "tracer: laying out a $FILE_SIZE file in $WORK"
	if ! fio --name=layout --filename="$WORK/hot.dat" --size=$FILE_SIZE --rw=write --bs=1m \
		--end_fsync=1 >"$WORK/layout.log" 2>&1 || ! cat "$WORK/hot.dat" >/dev/null; then
		part_stub tracer error "could not write the test file: $(tail -1 "$WORK/layout.log")"
		return
	fi
	# Hold it in the page cache: other jobs on this machine drop caches.
	"$FSAIO" bench pin "$WORK/hot.dat" >"$WORK/pin.log" 2>&1 &
	PINPID=$!
	for ((i = 0; i < 100; i++)); do
		grep -q '^fsaio: pinned' "$WORK/pin.log" && break
		kill -0 "$PINPID" 2>/dev/null || break
		sleep 0.1
	done
	grep -q '^fsaio: pinned' "$WORK/pin.log" ||
		{ part_stub tracer error "could not pin the test file: $(tail -1 "$WORK/pin.log")"; return; }
	msg "tracer: $(cat "$WORK/pin.log")"
	# Interleaved tuples: untraced, fsaio trace, fsaio check, bpftrace, ...
	for eng in psync io_uring; do
		msg "tracer: $eng, $PAIRS rounds of ${RUNTIME} s runs: ${MODES[*]}"
		for ((p = 1; p <= PAIRS; p++)); do
			for m in "${MODES[@]}"; do
				one_run "$m" "$eng-$m-$p" "$eng" ||
					{ part_stub tracer error "a measured run failed (see above)"; return; }
			done
		done
	done
	# Higher offered event rates than one io_uring job: two jobs (every CPU
	# of this machine); if one job already lost records, lower rates.
	msg "tracer: event-rate sweep"
	one_run traced io_uring-2jobs io_uring --numjobs=2 || sweep_ok=0
	if awk -F'\t' '$1 == "traced" && $3 == "io_uring" && $8 > 0 { f = 1 } END { exit !f }' "$WORK/runs.tsv"; then
		local base
		base=$(awk -F'\t' '$2 ~ /^io_uring-traced-/ { s += $4; n++ } END { printf "%d", s / n }' "$WORK/runs.tsv")
		for i in 75 50 25; do
			one_run traced "io_uring-rate$i" io_uring --rate_iops=$((base * i / 100)) || sweep_ok=0
		done
	fi
	((sweep_ok)) || { part_stub tracer error "an event-rate sweep run failed (see above)"; return; }
	msg "tracer: perf profile of one traced io_uring run"
	perf_profile || : >"$WORK/profile.tsv"
	tracer_json "$(since "$t0")" >"$PARTS_DIR/tracer.json.tmp" &&
		"$FSAIO" bench stats "$PARTS_DIR/tracer.json.tmp" &&
		fill_notes "$PARTS_DIR/tracer.json.tmp" &&
		mv "$PARTS_DIR/tracer.json.tmp" "$PARTS_DIR/tracer.json" ||
		part_stub tracer error "could not build tracer.json (jq or fsaio bench stats failed)"
	kill -TERM "$PINPID"
	wait "$PINPID"
	PINPID=
	rm -rf "$WORK"
	WORK=
}

# fill_notes FILE: a note's @{figure id[*factor]|r0 or r3}@ becomes that
# figure's value, once `fsaio bench stats` has computed the values.
fill_notes() {
	jq -L "$ROOT/ci/bench" 'include "bench"; fill_notes' "$1" >"$1.notes" && mv "$1.notes" "$1"
}

# tracer_json SECONDS: the part file from runs.tsv, commands.tsv, profile.tsv
# (figures and ratios carry samples; `fsaio bench stats` reduces them)
tracer_json() {
	jq -n -L "$ROOT/ci/bench" --arg schema "$SCHEMA" --arg kernel "$(uname -r)" --argjson seconds "$1" \
	      --argjson runtime "$RUNTIME" --argjson pairs "$PAIRS" --arg size "$FILE_SIZE" \
	      --argjson depth "$URING_DEPTH" --argjson nice "$NICE" \
	      --arg gtp "${GOAL_TRACE[psync]}" --arg gtu "${GOAL_TRACE[io_uring]}" \
	      --arg gcp "${GOAL_CHECK[psync]}" --arg gcu "${GOAL_CHECK[io_uring]}" \
	      --arg gbt "$GOAL_VS_BPFTRACE" --arg btprog "$BPFTRACE_PROG" \
	      --rawfile runs "$WORK/runs.tsv" --rawfile cmds "$WORK/commands.tsv" \
	      --rawfile prof "$WORK/profile.tsv" 'include "bench"; tracer_part($ARGS.named)'
}

# ------------------------------------------------------------ load part

LOAD_FACTORS=${BENCH_LOAD_FACTORS:-1 2 4}
LOAD_WARMUP=${BENCH_LOAD_WARMUP:-20}
RELAY_ROUNDS=${BENCH_RELAY_ROUNDS:-3}
RELAY_CMD="yes | head -c 1G"
# The programs, in the order they run at each factor; load_cmd gives the
# command, load_shape what it exercises.
LOAD_PROGS=(fio-uring-sqpoll fio-uring-batched fio-libaio-direct-depths fio-libaio-direct-phases
	uring_poll_multishot uring_read_multishot uring_mixed_ops uring_link_fail uring_cq_overflow
	uring_exit_armed uring_cqe_skip uring_enter_busy)

# load_cmd NAME DIR: the command of program NAME, one word a line; its
# files go to DIR (fio jobs: FSAIO_FX_DIR).  Counts are raised where a
# program takes them, so that a few records per process weigh little
# against its requests.
load_cmd() {
	local bin
	if [[ $1 == fio-* ]]; then
		printf '%s\n' fio --output-format=terse --output=/dev/null "tests/e2e/fio/${1#fio-}.fio"
		return
	fi
	bin=.output/workloads/$1
	[[ -x $bin ]] || bin=.output/conformance/$1
	printf '%s\n' "$bin" -d "$2"
	case $1 in
	uring_poll_multishot) printf '%s\n' -n 256 ;;
	uring_mixed_ops) printf '%s\n' -n 256 ;;
	uring_cq_overflow) printf '%s\n' -n 1024 ;;
	uring_exit_armed) printf '%s\n' -n 64 ;;
	uring_enter_busy) printf '%s\n' -c 200000 ;;
	esac
}

# load_shape NAME: engine<TAB>what the program exercises
load_shape() {
	case $1 in
	fio-uring-sqpoll) printf 'io_uring\tSQPOLL, fixed buffers, registered files; buffered random reads (fio)' ;;
	fio-uring-batched) printf 'io_uring\tbatched submit and complete, buffered and O_DIRECT random read/write (fio)' ;;
	fio-libaio-direct-depths) printf 'libaio\tO_DIRECT random reads at depths 1, 4, 16, 64 at once (fio)' ;;
	fio-libaio-direct-phases) printf 'libaio\tO_DIRECT read and write phases, sequential and random (fio)' ;;
	uring_poll_multishot) printf 'io_uring\tmultishot poll (F_MORE CQEs), cancelled by POLL_REMOVE' ;;
	uring_read_multishot) printf 'io_uring\tmultishot read with provided buffers, ended by running out' ;;
	uring_mixed_ops) printf 'io_uring\tone submit of cold reads with a timeout, a poll, splice, statx, nop' ;;
	uring_link_fail) printf 'io_uring\tlinked chains whose head or a member fails' ;;
	uring_cq_overflow) printf 'io_uring\tCQ overflow: NOPs into a 4-entry CQ, reaped late' ;;
	uring_exit_armed) printf 'io_uring\trequests armed at exit and ring close: cancelled at teardown' ;;
	uring_cqe_skip) printf 'io_uring\tIOSQE_CQE_SKIP_SUCCESS and a failed chain without CQEs' ;;
	uring_enter_busy) printf 'io_uring\ta busy io_uring_enter loop: idle GETEVENTS, then one NOP per call' ;;
	*) printf '?\t?' ;;
	esac
}

# load_start F: stress-ng at factor F in a session of its own (its pid is
# the process group to stop), and a sampler of /proc/loadavg (1-minute
# average and runnable tasks, the sampler itself not counted) every second
# into $WORK/xF.samples.
load_start() {
	mkdir -p "$WORK/stress" || return 1
	# --timeout: a stress-ng this script failed to stop ends on its own
	setsid stress-ng --cpu $(($1 * $(nproc))) --iomix "$(nproc)" --temp-path "$WORK/stress" \
		--timeout 1h --quiet </dev/null >"$LOGS/load-stress-x$1.log" 2>&1 &
	LOADPGID=$!
	sleep 1
	if ! kill -0 "$LOADPGID" 2>/dev/null ||
	   [[ $(awk '{ print $5 }' "/proc/$LOADPGID/stat" 2>/dev/null) != "$LOADPGID" ]]; then
		msg "load: stress-ng did not start in a process group of its own: $(tail -1 "$LOGS/load-stress-x$1.log")"
		load_stop
		return 1
	fi
	(while :; do
		read -r a _ _ r _ </proc/loadavg
		echo "$a $((${r%/*} - 1))"
		sleep 1
	 done) >"$WORK/x$1.samples" &
	SAMPLERPID=$!
}

# load_stop: the load and the sampler stopped, nothing of them left: TERM
# to the group, KILL to what is still there after 10 s; the I/O mix's files
# removed.
load_stop() {
	local i
	[[ -n $SAMPLERPID ]] && kill "$SAMPLERPID" 2>/dev/null && wait "$SAMPLERPID" 2>/dev/null
	SAMPLERPID=
	if [[ -n $LOADPGID ]]; then
		kill -TERM -- "-$LOADPGID" 2>/dev/null
		for ((i = 0; i < 100; i++)); do
			pgrep -g "$LOADPGID" >/dev/null || break
			sleep 0.1
		done
		if pgrep -g "$LOADPGID" >/dev/null; then
			msg "load: stress-ng still running after 10 s: killed"
			kill -KILL -- "-$LOADPGID" 2>/dev/null
			sleep 0.5
		fi
		wait "$LOADPGID" 2>/dev/null
		LOADPGID=
	fi
	[[ -n $WORK ]] && rm -rf "$WORK/stress"
}

# load_run F NAME: one program under fsaio check; a row (load_row) on
# $WORK/rows.jsonl.  A run without a JSON result is a row without figures
# (verdict "no result"), not a failed part: that is what the part measures.
load_run() {
	local f=$1 name=$2 dir json rc t0 secs la shape
	local -a cmd
	dir=$(mktemp -d "$WORK/p.XXXXXX") || return 1
	json=$WORK/x$f-$name.json
	shape=$(load_shape "$name")
	mapfile -t cmd < <(load_cmd "$name" "$dir")
	t0=$(now)
	FSAIO_FX_DIR=$dir "$FSAIO" check -t 300 -j "$json" -- "${cmd[@]}" \
		>"$LOGS/load-x$f-$name.log" 2>&1
	rc=$?
	secs=$(since "$t0" 3)
	la=$(cut -d' ' -f1 /proc/loadavg)
	rm -rf "$dir"
	[[ -s $json ]] || echo null >"$json"
	jq -c -L "$ROOT/ci/bench" --argjson factor "$f" --arg name "$name" \
		--arg engine "${shape%%$'\t'*}" --arg shape "${shape#*$'\t'}" --argjson rc "$rc" \
		--argjson seconds "$secs" --argjson loadavg "$la" \
		--arg command "FSAIO_FX_DIR=DIR $FSAIO check -j FILE -- ${cmd[*]/#$dir/DIR}" \
		'include "bench"; load_row($ARGS.named)' "$json" >>"$WORK/rows.jsonl" ||
		{ msg "load: could not read the result of $name"; return 1; }
	msg "load x$f: $(jq -r 'select(.program == $n) | "\(.program): \(.verdict), \(.records_sent // "?") records sent, \(.lost // "?") lost, \(.requests // "?") requests, \(.seconds) s, load average \(.loadavg_1m)"' \
		--arg n "$name" <(tail -1 "$WORK/rows.jsonl"))"
}

# relay_run F ROUND: the stdout relay, bare (through cat) and under fsaio
# check, wall seconds of each (under check also the command's own, from
# its JSON: fsaio's start and end not counted); a row on $WORK/relay.jsonl.
relay_run() {
	local f=$1 round=$2 t0 bare chk rc json=$WORK/x$1-relay-$2.json
	t0=$(now)
	sh -c "$RELAY_CMD" | cat >/dev/null
	bare=$(since "$t0" 3)
	t0=$(now)
	"$FSAIO" check -t 300 -j "$json" -- sh -c "$RELAY_CMD" >/dev/null 2>"$LOGS/load-x$f-relay-$round.log"
	rc=$?
	chk=$(since "$t0" 3)
	[[ -s $json ]] || echo null >"$json"
	jq -c --argjson factor "$f" --argjson round "$round" --argjson bare "$bare" --argjson check "$chk" \
		--argjson rc "$rc" '{factor: $factor, round: $round, bare_s: $bare, check_s: $check, exit: $rc,
		verdict: (.verdict // "no result"), lost: .lost_events,
		command_s: (.runs[0].wall_seconds // null | if . == null then null else . * 1000 | round / 1000 end)}' \
		"$json" >>"$WORK/relay.jsonl"
	msg "load x$f: relay round $round: bare $bare s, under fsaio check $chk s (exit $rc)"
}

part_load() {
	local t0 f p r c
	t0=$(now)
	if [[ $(id -u) -ne 0 ]]; then
		part_stub load skipped "needs root (BPF tracing)"
		return
	fi
	for c in fio jq stress-ng setsid pgrep "$FSAIO"; do
		command -v "$c" >/dev/null ||
			{ part_stub load error "$c not found (run make, ci/install-deps.sh)"; return; }
	done
	for p in "${LOAD_PROGS[@]}"; do
		[[ $p == fio-* ]] && { [[ -e tests/e2e/fio/${p#fio-}.fio ]] || { part_stub load error "no job tests/e2e/fio/${p#fio-}.fio"; return; }; continue; }
		[[ -x .output/workloads/$p || -x .output/conformance/$p ]] ||
			{ part_stub load error "program $p not built (run make)"; return; }
	done
	WORK=$(mktemp -d /var/tmp/fsaio-bench.XXXXXX) || { part_stub load error "mktemp failed"; return; }
	: >"$WORK/rows.jsonl"
	: >"$WORK/relay.jsonl"
	for f in $LOAD_FACTORS; do
		msg "load: factor $f: stress-ng --cpu $((f * $(nproc))) --iomix $(nproc), ${LOAD_WARMUP} s before the first program"
		load_start "$f" || { part_stub load error "stress-ng did not start (see above)"; return; }
		sleep "$LOAD_WARMUP"
		for p in "${LOAD_PROGS[@]}"; do
			load_run "$f" "$p" || { load_stop; part_stub load error "a run could not be recorded (see above)"; return; }
		done
		for ((r = 1; r <= RELAY_ROUNDS; r++)); do
			relay_run "$f" "$r" || { load_stop; part_stub load error "a relay run could not be recorded"; return; }
		done
		load_stop
	done
	jq -n -L "$ROOT/ci/bench" --arg schema "$SCHEMA" --arg kernel "$(uname -r)" \
	      --argjson seconds "$(since "$t0")" --argjson cpus "$(nproc)" --argjson warmup "$LOAD_WARMUP" \
	      --arg relay "$RELAY_CMD" --slurpfile rows "$WORK/rows.jsonl" --slurpfile relays "$WORK/relay.jsonl" \
	      --argjson samples "$(for f in $LOAD_FACTORS; do
			jq -R -s --argjson f "$f" '{factor: $f, rows: (split("\n") | map(select(length > 0) | split(" ") | map(tonumber)))}' \
				"$WORK/x$f.samples"; done | jq -s .)" \
	      'include "bench"; load_part($ARGS.named)' >"$PARTS_DIR/load.json.tmp" &&
		"$FSAIO" bench stats "$PARTS_DIR/load.json.tmp" &&
		mv "$PARTS_DIR/load.json.tmp" "$PARTS_DIR/load.json" ||
		part_stub load error "could not build load.json (jq or fsaio bench stats failed)"
	rm -rf "$WORK"
	WORK=
}

# ------------------------------------------------------------ VM parts

part_vm() {
	local hook=$ROOT/ci/bench/bench-vm.sh rc p reason
	if [[ ! -e $hook ]]; then
		for p in "${VM_PARTS[@]}"; do
			part_stub "$p" skipped "ci/bench/bench-vm.sh is not in this checkout: no VM measurements"
		done
		return
	fi
	local want=()
	for p in "${VM_PARTS[@]}"; do
		selected vm || selected "$p" && want+=("$p")
	done
	msg "VM parts: ci/bench/bench-vm.sh $PARTS_DIR --parts $(IFS=,; echo "${want[*]}") (log: $LOGS/vm.log)"
	# shellcheck disable=SC2086 # BENCH_VM_OPTS: words
	BENCH_OUT=$OUT FSAIO=$FSAIO bash "$hook" "$PARTS_DIR" --parts "$(IFS=,; echo "${want[*]}")" \
		${BENCH_VM_OPTS:-} 2>&1 |
		tee "$LOGS/vm.log" >&2
	rc=${PIPESTATUS[0]}
	reason=$(grep -v '^[[:space:]]*$' "$LOGS/vm.log" | tail -1)
	for p in "${want[@]}"; do
		[[ -s $PARTS_DIR/$p.json ]] && continue
		case $rc in
		"$EXIT_PASS") part_stub "$p" error "ci/bench/bench-vm.sh exited $rc without writing parts/$p.json" ;;
		"$EXIT_SKIP") part_stub "$p" skipped "ci/bench/bench-vm.sh skipped: ${reason:-no reason given}" ;;
		*) part_stub "$p" error "ci/bench/bench-vm.sh exited $rc without writing parts/$p.json: ${reason:-no output} (log: $LOGS/vm.log)" ;;
		esac
	done
	[[ $rc -eq $EXIT_PASS || $rc -eq $EXIT_SKIP ]] || msg "ci/bench/bench-vm.sh exited $rc"
}

# ------------------------------------------------------------ merge

# A part file must be fsaio-bench/1 with figures and ratios arrays; else it
# is replaced by an error stub naming the problem.
validate_parts() {
	local f name why
	for f in "$PARTS_DIR"/*.json; do
		[[ -e $f ]] || continue
		name=$(basename "$f" .json)
		why=$(jq -r -L "$ROOT/ci/bench" --arg s "$SCHEMA" --arg n "$name" \
			'include "bench"; validate_part($s; $n)' "$f" 2>&1)
		[[ -z $why ]] && continue
		part_stub "$name" error "parts/$name.json rejected: $(head -c 300 <<<"$why")"
	done
}

host_json() {
	jq -n -L "$ROOT/ci/bench" --arg kernel "$(uname -r)" --argjson cpus "$(nproc)" \
	      --arg cpu "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" \
	      --argjson mem_mib "$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)" \
	      --arg virt "$(systemd-detect-virt 2>/dev/null || echo unknown)" \
	      --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" \
	      --arg commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- 2>/dev/null || echo -dirty)" \
	      --arg fio "$(fio --version 2>/dev/null)" \
	      'include "bench"; host($kernel; $cpus; $cpu; $mem_mib; $virt; $load; $commit; $fio)'
}

# merge: parts in a fixed order (tracer, load, the VM parts, any other), figures
# and ratios tagged with their part; a ratio's "met" is recomputed from its
# goal ("OP NUMBER", OP one of <= >= < >) when the goal parses.
merge() {
	local -a files=() order=(tracer load "${VM_PARTS[@]}")
	local p f
	for p in "${order[@]}"; do
		[[ -e $PARTS_DIR/$p.json ]] && files+=("$PARTS_DIR/$p.json")
	done
	for f in "$PARTS_DIR"/*.json; do
		[[ -e $f && " ${order[*]} " != *" $(basename "$f" .json) "* ]] && files+=("$f")
	done
	jq -n -L "$ROOT/ci/bench" --arg schema "$SCHEMA" --arg gen "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	      --argjson host "$HOST" --arg cmd "make bench (ci/bench/bench.sh; BENCH_PARTS='$SELECT' BENCH_RUNTIME=$RUNTIME BENCH_PAIRS=$PAIRS${BENCH_BASE:+ BENCH_BASE=$BENCH_BASE})" \
	      'include "bench"; merge($schema; $gen; $cmd; $host) | with_goals' "${files[@]}"
}

# ------------------------------------------------------------ main

[[ -x $FSAIO ]] || die "$FSAIO not built: run make (or make bench)"
mkdir -p "$PARTS_DIR" "$LOGS" || die "cannot create $PARTS_DIR"
rm -f "$PARTS_DIR"/*.json "$OUT"/bench.json "$OUT"/*.svg "$OUT"/*.png
HOST=$(host_json) || die "could not describe the host (jq?)"
T0=$(now)

[[ -z ${BENCH_BASE:-} || -s $BENCH_BASE ]] || die "BENCH_BASE=$BENCH_BASE: no such file"
for p in $SELECT; do
	[[ $p == tracer || $p == load || $p == vm || " ${VM_PARTS[*]} " == *" $p "* ]] ||
		usage_error "BENCH_PARTS: unknown part '$p' (tracer, load, vm, ${VM_PARTS[*]})"
done
for p in tracer load; do
	if selected $p; then
		part_$p
	else
		carry_over $p || part_stub $p skipped "not selected (BENCH_PARTS='$SELECT')"
	fi
done
vm_any=0
for p in "${VM_PARTS[@]}"; do
	if selected vm || selected "$p"; then
		vm_any=1
	else
		carry_over "$p" || part_stub "$p" skipped "not selected (BENCH_PARTS='$SELECT')"
	fi
done
((vm_any)) && part_vm

validate_parts
merge >"$OUT/bench.json.tmp" && mv "$OUT/bench.json.tmp" "$OUT/bench.json" ||
	die "merging the parts into bench.json failed"
if jq -e '.duplicate_ids' "$OUT/bench.json" >/dev/null; then
	msg "ERROR: figure ids used twice: $(jq -c .duplicate_ids "$OUT/bench.json")"
	ERRORS=$((ERRORS + 1))
fi

echo
"$FSAIO" bench show "$OUT/bench.json" || ERRORS=$((ERRORS + 1))
echo
if ci/bench/bench-plot.sh "$OUT/bench.json" "$OUT"; then
	# The plot list goes into bench.json too (the figures are unchanged).
	jq -L "$ROOT/ci/bench" --slurpfile p "$OUT/plots.json" 'include "bench"; with_plots($p[0])' \
		"$OUT/bench.json" >"$OUT/bench.json.tmp" &&
		mv "$OUT/bench.json.tmp" "$OUT/bench.json"
else
	msg "ERROR: plotting failed"
	ERRORS=$((ERRORS + 1))
fi
echo
echo "bench.json, plots: $OUT ($(since "$T0") s)"
if [[ $(id -u) -ne 0 ]]; then
	msg "not root: nothing was measured"
	exit "$EXIT_SKIP"
fi
# A part that reports an error itself (the VM hook's) is an ERROR too.
bad=$(jq -r -L "$ROOT/ci/bench" 'include "bench"; error_parts' "$OUT/bench.json")
[[ -z $bad ]] || { msg "ERROR in part(s): $bad"; ERRORS=$((ERRORS + 1)); }
((ERRORS == 0)) || die "$ERRORS part(s) or step(s) failed; see above"
exit "$EXIT_PASS"
}
