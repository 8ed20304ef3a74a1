#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside a FLAVOR=stap guest (ci/stap/stap-check.sh boots it): each
# workload traced twice, by the BPF tracer (fsaio check --no-fentry
# --record: tracepoints only, as stap/fsaio.stp) and by SystemTap
# (stap/fsaio-stap.sh run); both logs replayed by `fsaio replay`.  The two
# sources agree when every invariant has the same verdict and each engine
# the same request counts (submitted, completed, abandoned, errors, failed
# SQEs, CQ overflows, by opcode), with no record lost by either.
#
#   ci/stap/guest-compare.sh OUTDIR MODULE.ko [WORKLOAD...]
#   ci/stap/guest-compare.sh --logs OUTDIR NAME BPF.log STAP.txt
#       judge two logs already written (no tracing): the e2e test of this
#       judgement, stap_judge, runs it on the host
#
# KTAP on stdout, a test per workload; logs and replay JSON in OUTDIR.
# Exit status: 0 all agree, 1 a disagreement, 4 nothing could run (SKIP),
# 5 a source failed to produce a log (ERROR).
set -u -o pipefail
LOGS_ONLY=0
[[ ${1:-} == --logs ]] && { LOGS_ONLY=1; shift; }
OUT=${1:?OUTDIR}
MOD=${2:?MODULE.ko or NAME}
shift 2
# One of each class the sources model: libaio reads and O_SYNC writes
# through the patched kernel's fsaio tracepoints, io_uring reads, linked
# failures, SQEs failing at init and CQ overflow.
WORKLOADS=("$@")
((${#WORKLOADS[@]})) || WORKLOADS=(aio_read_batch aio_osync_write aio_write_order
	uring_read_batch uring_link_fail uring_early_fail uring_cq_overflow)
DIR=${FSAIO_SCRATCH_EXT4:-}
((LOGS_ONLY)) || [[ -n $DIR && -d $DIR ]] || { echo "# SKIP no ext4 scratch mount (FSAIO_SCRATCH_EXT4)"; exit 4; }
mkdir -p "$OUT"

# The facts compared, from a replay's JSON.
facts() {
	jq -S '{verdicts: [.runs[0].invariants[] | {(.name): .verdict}] | add,
		lost: .lost_events,
		engines: (.engines | map_values({submitted, completed, abandoned, errors,
						 failed_init, cq_overflow, by_opcode}))}' "$1"
}

# judge NAME BPF-LOG STAP-LOG: replay both, print the KTAP line of test n,
# raise worst
judge() {
	local w=$1 recs lost sub
	./fsaio replay --json "$OUT/bpf-$w.json" "$2" >"$OUT/bpf-$w.ktap" 2>&1
	./fsaio replay --json "$OUT/stap-$w.json" "$3" >"$OUT/stap-$w.ktap" 2>&1
	if ! facts "$OUT/bpf-$w.json" >"$OUT/bpf-$w.facts" ||
	   ! facts "$OUT/stap-$w.json" >"$OUT/stap-$w.facts"; then
		echo "not ok $n stap_agrees_$w # ERROR a replay gave no JSON (see $OUT/*-$w.ktap)"
		worst=5; return
	fi
	recs="bpf $(jq .runs[0].records "$OUT/bpf-$w.json") records, stap $(jq .runs[0].records "$OUT/stap-$w.json")"
	if ! diff -u "$OUT/bpf-$w.facts" "$OUT/stap-$w.facts" >"$OUT/diff-$w.txt"; then
		echo "not ok $n stap_agrees_$w # $recs; they differ:"
		sed 's/^/# /' "$OUT/diff-$w.txt"
		((worst == 0)) && worst=1
		return
	fi
	lost=$(jq .lost "$OUT/stap-$w.facts")
	if ((lost)); then
		echo "not ok $n stap_agrees_$w # ERROR both sources lost $lost records: inconclusive"
		worst=5; return
	fi
	sub=$(jq -c '.engines | map_values(.submitted)' "$OUT/stap-$w.facts")
	echo "ok $n stap_agrees_$w # $recs; same verdicts, submitted $sub, lost $lost"
}

n=0 worst=0
if ((LOGS_ONLY)); then
	mkdir -p "$OUT"
	echo "TAP version 13"
	echo "1..1"
	n=1
	judge "$MOD" "$1" "$2"
	exit $worst
fi

echo "TAP version 13"
echo "1..${#WORKLOADS[@]}"
for w in "${WORKLOADS[@]}"; do
	n=$((n + 1))
	prog=.output/workloads/$w
	if [[ ! -x $prog ]]; then
		echo "not ok $n stap_agrees_$w # ERROR no program $prog (make)"
		worst=5; continue
	fi
	mkdir -p "$DIR/$w"
	./fsaio check --exclusive --no-fentry --record "$OUT/bpf-$w.log" --json "$OUT/bpf-check-$w.json" \
		-- "$prog" -d "$DIR/$w" >"$OUT/bpf-check-$w.ktap" 2>&1
	stap/fsaio-stap.sh run -m "$MOD" -o "$OUT/stap-$w.txt" -- "$prog" -d "$DIR/$w" \
		>"$OUT/stap-run-$w.out" 2>&1
	src=$?
	if [[ ! -s $OUT/bpf-$w.log ]] || ((src)); then
		echo "not ok $n stap_agrees_$w # ERROR a source wrote no log (bpf: $(test -s "$OUT/bpf-$w.log" && echo yes || echo no), stap exit $src)"
		sed 's/^/# /' "$OUT/stap-run-$w.out" | tail -5
		worst=5; continue
	fi
	judge "$w" "$OUT/bpf-$w.log" "$OUT/stap-$w.txt"
done
exit $worst
