#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak: `fsaio trace` on a busy machine for a long time.
#
#   ci/bench/trace-soak.sh [-h]
#
# A mixed load runs for SOAK_SECONDS: fio with a libaio, an io_uring and a
# psync job (4 KiB buffered random reads of a cached file), and a churn
# loop that starts short-lived libaio and io_uring programs (the suite's
# aio_read_batch and uring_read_batch) back to back.  `fsaio trace`
# watches the whole system meanwhile.  Passes when nothing was lost, the
# tracer's resident memory at the end is within SOAK_RSS_SLACK_KIB of what
# it was once attached, and its per-thread state (the sys_states map)
# does not grow with the processes that came and went.  Results in
# .output/soak/ (trace.json, summary.txt).
#
# Environment: SOAK_SECONDS=600, SOAK_RSS_SLACK_KIB=4096.
# Exit status (harness/exit_status.h): EXIT_PASS, EXIT_FAIL (loss, growth),
# EXIT_ERROR (could not run), EXIT_SKIP (not root), EXIT_USAGE.
set -uo pipefail
{
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cannot cd to $ROOT"

usage() {
	sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-$EXIT_USAGE}"
}
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
[[ $# -eq 0 ]] || usage_error "no arguments: SOAK_SECONDS says how long"
SECS=${SOAK_SECONDS:-600}
SLACK=${SOAK_RSS_SLACK_KIB:-4096}
[[ $SECS =~ ^[0-9]+$ && $SECS -ge 30 && $SLACK =~ ^[0-9]+$ ]] ||
	usage_error "SOAK_SECONDS must be at least 30 and SOAK_RSS_SLACK_KIB a number"
[[ $(id -u) -eq 0 ]] || { msg "SKIP: needs root (BPF tracing)"; exit "$EXIT_SKIP"; }
for c in fio jq bpftool ./fsaio .output/workloads/aio_read_batch .output/workloads/uring_read_batch; do
	command -v "$c" >/dev/null || [[ -x $c ]] || die "$c not found: run make (and ci/install-deps.sh)"
done

OUT=$ROOT/.output/soak
WORK=$(mktemp -d /var/tmp/fsaio-soak.XXXXXX) || die "mktemp failed"
FPID= TPID= CPID=
cleanup() {
	[[ -n $CPID ]] && kill "$CPID" 2>/dev/null
	[[ -n $FPID ]] && kill "$FPID" 2>/dev/null
	[[ -n $TPID ]] && kill -INT "$TPID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit $EXIT_ERROR' INT TERM
mkdir -p "$OUT" && rm -f "$OUT"/*

# sys_states entries now (per-thread syscall state the tracer keeps)
states() { bpftool -j map dump name sys_states 2>/dev/null | jq length 2>/dev/null || echo -1; }

msg "soak: laying out a cached 256 MiB file in $WORK"
fio --name=layout --filename="$WORK/hot.dat" --size=256m --rw=write --bs=1m \
	>/dev/null 2>&1 && cat "$WORK/hot.dat" >/dev/null || die "could not write the test file"

./fsaio trace -d "$SECS" -i 60 --json "$OUT/trace.json" >"$OUT/trace.out" 2>"$OUT/trace.err" &
TPID=$!
for ((i = 0; i < 300; i++)); do
	grep -q '^fsaio: tracing' "$OUT/trace.err" 2>/dev/null && break
	kill -0 "$TPID" 2>/dev/null || die "fsaio trace did not start: $(tail -2 "$OUT/trace.err")"
	sleep 0.1
done
msg "soak: fsaio trace attached; ${SECS} s of libaio + io_uring + psync reads and process churn"
fio --directory="$WORK" --filename=hot.dat --size=256m --rw=randread --bs=4k --invalidate=0 \
	--time_based --runtime=$((SECS - 10)) --norandommap --randrepeat=0 --group_reporting=0 \
	--name=libaio --ioengine=libaio --iodepth=8 \
	--name=io_uring --ioengine=io_uring --iodepth=8 \
	--name=psync --ioengine=psync \
	--output-format=json --output="$OUT/fio.json" >/dev/null 2>&1 &
FPID=$!
(
	mkdir -p "$WORK/churn"
	while :; do
		.output/workloads/aio_read_batch -d "$WORK/churn" >/dev/null 2>&1
		.output/workloads/uring_read_batch -d "$WORK/churn" >/dev/null 2>&1
	done
) &
CPID=$!
early=$((SECS / 4))
sleep "$early"
s0=$(states)
sleep $((SECS - early - 15))
s1=$(states)
kill "$CPID" 2>/dev/null; wait "$CPID" 2>/dev/null; CPID=
wait "$FPID"; FPID=
wait "$TPID"; rc=$?; TPID=

[[ -s $OUT/trace.json ]] || die "fsaio trace wrote no JSON (exit $rc): $(tail -2 "$OUT/trace.err")"
lost=$(jq '.lost_events' "$OUT/trace.json")
rss=($(jq -r '.runs[0].workload_summary' "$OUT/trace.json" | grep -oE '[0-9]+ KiB' | grep -oE '[0-9]+'))
read -r lsub usub recs kern < <(jq -r '[.engines.libaio.submitted, .engines.io_uring.submitted,
	.runs[0].records, .runs[0].records_counted_in_kernel] | @tsv' "$OUT/trace.json")
{
	echo "fsaio trace -d $SECS under libaio + io_uring + psync fio jobs and process churn ($(uname -r))"
	echo "requests traced: libaio $lsub, io_uring $usub; records sent $recs, counted in the kernel $kern; lost $lost"
	echo "fio IOPS: $(jq -r '[.jobs[] | "\(.jobname) \(.read.iops | floor)"] | join(", ")' "$OUT/fio.json" 2>/dev/null)"
	echo "resident memory: ${rss[0]:-?} KiB once attached, ${rss[1]:-?} KiB at the end"
	echo "sys_states entries: $s0 after $early s, $s1 15 s before the end"
} | tee "$OUT/summary.txt" >&2
verdict=$EXIT_PASS
[[ $lost == 0 ]] || { msg "FAIL: $lost records lost"; verdict=$EXIT_FAIL; }
[[ ${#rss[@]} -eq 2 ]] || die "no resident memory in $OUT/trace.json"
((rss[1] <= rss[0] + SLACK)) || { msg "FAIL: resident memory grew ${rss[0]} -> ${rss[1]} KiB"; verdict=$EXIT_FAIL; }
((s1 >= 0 && s1 <= s0 + 64)) || { msg "FAIL: per-thread state grew $s0 -> $s1 entries"; verdict=$EXIT_FAIL; }
((lsub > 0 && usub > 0)) || { msg "FAIL: a load's requests were not traced"; verdict=$EXIT_FAIL; }
msg "soak: $( ((verdict == EXIT_PASS)) && echo PASS || echo FAIL); $OUT/summary.txt"
exit "$verdict"
}
