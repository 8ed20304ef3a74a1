#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the conformance corpus under fsaio check and print, per program, the
# verdict of every invariant and the program's counts next to the traced
# ones (what workload_agreement would say if the program were a workload:
# for `fsaio check -- CMD` the harness skips it).  The table of
# tests/conformance/README.md is this output.
#
#   tests/conformance/run.sh [-d DIR] [NAME[:ARGS]...]
#
# NAME is a program of the corpus (all of them by default: CORPUS below;
# built in .output/workloads, or .output/conformance for those not in the
# default suite); ARGS
# are extra arguments for it, comma-separated (uring_enter_busy:-b,8).
# Files go to a fresh directory under DIR (default /var/tmp); KTAP and
# JSON of each run are kept in .output/conformance-runs/NAME.{ktap,json}.
# Exit status: EXIT_PASS when every program ran, EXIT_USAGE for a bad
# NAME; verdicts do not change it (this is a report, the e2e tests assert).
set -u
cd "$(dirname "$0")/../.." || exit
. ci/lib.sh
DIR=/var/tmp
if [[ ${1:-} == -d ]]; then DIR=$2; shift 2; fi
[[ ${1:-} == -h || ${1:-} == --help ]] && { sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//'; exit "$EXIT_PASS"; }
OUT=.output/conformance-runs
mkdir -p "$OUT"
# The corpus: the programs that moved to workloads/ once fsaio modelled
# them right, and those still here (the busy loop: whether it loses records
# depends on the load).
CORPUS=(aio_leader_exit uring_cq_overflow uring_early_fail uring_enter_busy
	uring_exit_armed uring_link_fail uring_mixed_ops uring_poll_multishot
	uring_read_deep uring_read_multishot)
(($#)) || set -- "${CORPUS[@]}"

# Short names for the invariants, in report order.
INV=(workload_exit trace_integrity exactly_once retry_lifecycle
     nonblocking_submit_libaio nonblocking_submit_io_uring resume_context quiescence)
SHORT=(exit integrity once retry nb_aio nb_uring resume quiesc)

printf '%-34s %s  %-24s %-24s %s\n' program "$(printf '%-9s ' "${SHORT[@]}")" \
	"program sub/comp/aband" "traced sub/comp/aband" counts
for spec in "$@"; do
	name=${spec%%:*} args=()
	[[ $spec == *:* ]] && IFS=, read -r -a args <<<"${spec#*:}"
	prog=.output/workloads/$name
	[[ -x $prog ]] || prog=.output/conformance/$name
	[[ -x $prog ]] || { echo "no program $prog (make first?)" >&2; exit "$EXIT_USAGE"; }
	tag=$name${args[*]:+ ${args[*]}}
	work=$(mktemp -d "$DIR/fsaio-conf.XXXXXX")
	./fsaio -v check --json "$OUT/$name.json" -- "$prog" -d "$work" "${args[@]}" \
		>"$OUT/$name.ktap" 2>&1
	rm -rf "$work"
	if [[ ! -s $OUT/$name.json ]]; then
		printf '%-34s fsaio wrote no JSON: %s\n' "$tag" "$(tail -1 "$OUT/$name.ktap")"
		continue
	fi
	verdicts=()
	for i in "${INV[@]}"; do
		v=$(jq -r --arg n "$i" '.runs[0].invariants[] | select(.name == $n) | .verdict' "$OUT/$name.json")
		[[ $v == fail || $v == error ]] && v=${v^^}
		verdicts+=("${v:-?}")
	done
	line=$(jq -r '.runs[0].workload_summary // ""' "$OUT/$name.json")
	engine=$(sed -n 's/.* engine=\([a-z_]*\).*/\1/p' <<<"$line")
	get() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$line"; }
	ab=$(get abandoned)
	mine="$(get submitted)/$(get completed)/${ab:-0}"
	[[ $engine == mixed ]] && engine=libaio
	traced=$(jq -r --arg e "${engine:-io_uring}" \
		'.runs[0].engines[$e] | "\(.submitted)/\(.completed)/\(.abandoned)"' "$OUT/$name.json")
	lost=$(jq -r '.runs[0].lost_events' "$OUT/$name.json")
	if [[ -z $line ]]; then agree="no summary"
	elif [[ $mine == "$traced" ]]; then agree=equal
	else agree=DIFFER
	fi
	((lost)) && agree+=" (lost $lost)"
	printf '%-34s %s  %-24s %-24s %s\n' "$tag" "$(printf '%-9s ' "${verdicts[@]}")" \
		"$mine" "$traced" "$agree"
	grep -E '^ +# \| # expect:' "$OUT/$name.ktap" | sed 's/^ *# | #/    #/'
	jq -r '.runs[0].invariants[] | select(.verdict == "fail" or .verdict == "error") |
		"    # \(.name): \(.detail)"' "$OUT/$name.json"
done
exit "$EXIT_PASS"
