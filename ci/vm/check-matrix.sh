#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-matrix: the suite on every kernel users have, and
# one table of what each invariant said where.
#
#   ci/vm/check-matrix.sh [-h] [--table]
#
#   --table   only rebuild the table from the results already in
#             .output/matrix/<kernel>/ (fsaio.json, vm-run.info)
#
# Kernels (MATRIX_KERNELS, default "host stock-6.1 debian stock patched"):
#   host       the running kernel (./fsaio check --exclusive on the host)
#   stock-6.1  Debian's linux-source-6.1 built here (make kernels KVER=6.1)
#   debian     Debian's packaged kernel, not built here (debian-kernel.sh)
#   stock, patched   6.12 without and with patches/linux-6.12
# Kernels are built (or downloaded) on first use and cached.  Each VM
# kernel runs `make vmcheck` with the default suite; results under
# .output/matrix/<kernel>/.  The table (markdown, .output/matrix/table.md)
# has a row per invariant and a column per kernel: "P/F/S/E" counts of
# workloads passing, failing, skipping, inconclusive, then lost records.
# Exit status (harness/exit_status.h): the worst over the kernels (ERROR >
# FAIL > SKIP > PASS); EXIT_USAGE for a bad argument.
set -uo pipefail
{
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cannot cd to $ROOT"
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
TABLE_ONLY=0
[[ ${1:-} == --table ]] && { TABLE_ONLY=1; shift; }
[[ $# -eq 0 ]] || usage_error "unknown argument '$1': MATRIX_KERNELS says which kernels"
KERNELS=${MATRIX_KERNELS:-host stock-6.1 debian stock patched}
OUT=$ROOT/.output/matrix
mkdir -p "$OUT"

worst=$EXIT_PASS	# worse() (ci/lib.sh) of the kernels' exit statuses

declare -A json rel
for k in $KERNELS; do
	t0=$(date +%s)
	json[$k]=$OUT/$k/fsaio.json
	if ((TABLE_ONLY)); then
		rel[$k]=$(sed -n 's/^release=//p' "$OUT/$k/vm-run.info" 2>/dev/null)
		[[ $k == host && -z ${rel[$k]} ]] && rel[$k]=$(uname -r)
		[[ -s ${json[$k]} ]] || msg "matrix: $k: no $OUT/$k/fsaio.json"
		continue
	fi
	case $k in
	host)
		mkdir -p "$OUT/host"
		msg "matrix: host ($(uname -r)): ./fsaio check --exclusive"
		./fsaio check --exclusive --json "$OUT/host/fsaio.json" >"$OUT/host/stdout" 2>"$OUT/host/stderr"
		rc=$?
		rel[$k]=$(uname -r) ;;
	stock|patched|stock-*|debian)
		msg "matrix: $k: make vmcheck KERNEL=$k"
		make -s vmcheck KERNEL="$k" VMRESULTS=matrix VMSTATUS="$OUT/$k.status" \
			>"$OUT/$k.log" 2>&1
		rc=$(cat "$OUT/$k.status" 2>/dev/null || echo "$EXIT_ERROR")
		rel[$k]=$(sed -n 's/^release=//p' "$OUT/$k/vm-run.info" 2>/dev/null) ;;
	*) usage_error "unknown kernel '$k' in MATRIX_KERNELS" ;;
	esac
	worst=$(worse "$worst" "$rc")
	msg "matrix: $k: exit $rc after $(( $(date +%s) - t0 )) s"
done

# The table: invariant x kernel.
{
	printf '| invariant |'
	for k in $KERNELS; do printf ' %s (%s) |' "$k" "${rel[$k]:-?}"; done
	printf '\n|---|'
	for k in $KERNELS; do printf -- '---|'; done
	printf '\n'
	invs=$(for k in $KERNELS; do
		jq -r '.runs[].invariants[].name' "${json[$k]}" 2>/dev/null
	done | awk '!seen[$0]++')
	for inv in $invs; do
		printf '| %s |' "$inv"
		for k in $KERNELS; do
			jq -r --arg i "$inv" '[.runs[].invariants[] | select(.name == $i) | .verdict] |
				"\(map(select(. == "pass" or . == "xfail")) | length)/\(map(select(. == "fail")) | length)/\(map(select(. == "skip")) | length)/\(map(select(. == "error")) | length)"' \
				"${json[$k]}" 2>/dev/null | sed 's/^/ /; s/$/ |/' | tr -d '\n' || printf ' - |'
			[[ -s ${json[$k]} ]] || printf ' no result |'
		done
		printf '\n'
	done
	printf '| lost records |'
	for k in $KERNELS; do printf ' %s |' "$(jq '.lost_events' "${json[$k]}" 2>/dev/null || echo '-')"; done
	printf '\n| workloads, verdict |'
	for k in $KERNELS; do
		printf ' %s, %s |' "$(jq '.runs | length' "${json[$k]}" 2>/dev/null || echo 0)" \
			"$(jq -r '.verdict' "${json[$k]}" 2>/dev/null || echo none)"
	done
	printf '\n'
} >"$OUT/table.md"
cat "$OUT/table.md"
msg "matrix: table in $OUT/table.md; P/F/S/E = workloads passing (XFAIL included) / failing / skipping / inconclusive"
exit "$worst"
}
