#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run a kselftest collection (default fsaio) the kernel's way and report each
# KTAP result line to LAVA as one test case; the step a LAVA test definition
# (ci/lava/fsaio-kselftest.yaml) runs on the device.
#
#   ci/lava/lava-kselftest.sh [-t TARGETS] [-k KSFT_DIR] [-r FSAIO_ROOT] [WORKLOAD...]
#   ci/lava/lava-kselftest.sh --parse LOG
#
#   -t TARGETS     kselftest TARGETS (default fsaio)
#   -k KSFT_DIR    a tools/testing/selftests directory that has fsaio in it
#                  (`make selftest-install KSRC=tree` in the fsaio checkout):
#                  runs `make -C KSFT_DIR TARGETS=... run_tests`; or a
#                  kselftest install (`make ... install`, it has run_kselftest.sh
#                  and no Makefile): runs `run_kselftest.sh -c TARGET...`.
#                  Default: a scratch tree in /var/tmp/fsaio-ksft made by
#                  `make selftest-tree` in FSAIO_ROOT from $KSRC (default
#                  /var/cache/fsaio/src/linux-source-6.12), as make vmselftest does
#   -r FSAIO_ROOT  the built fsaio checkout, exported as FSAIO_ROOT for
#                  fsaio_check.sh (default: fsaio_check.sh's own search; the
#                  scratch tree is made from the checkout holding this script)
#   WORKLOAD...    run only these fsaio workloads (KSELFTEST_FSAIO_CHECK_SH_ARGS)
#   --parse LOG    only turn a run_tests log into results (no LAVA needed)
#
# Every "ok"/"not ok" line of the run_tests output becomes one result, at
# every nesting level: the kselftest line (fsaio_check.sh), each line of the
# test's own KTAP, which the runner prefixes with "# " (fsaio_prereq.btf,
# fsaio_check.sh.aio_read_batch, fsaio_check.sh.aio_read_batch.<check>).
# Name: the descriptions from the top down joined with ".", characters
# other than [A-Za-z0-9_.+-] as "_".  Result: "# SKIP" skip, other "not ok"
# fail, other "ok" pass (XFAIL included): ci/selftests/ktap-check.sh's rules.
# Then one more result, ktap-complete, with the number of results as its
# measurement: pass if there was a kselftest result line, every plan
# ("1..N") matched its result lines and no nested result was left without
# its parent line (a test cut off); else fail.  ci/lava/lava-check.sh counts
# on it to tell a complete run from a lost one.
# Inside LAVA (lava-test-case in PATH) results go through lava-test-case;
# else they are printed as "NAME RESULT" lines.
# Exit status: 0 when the results were reported (whatever they are: LAVA
# judges them), 1 when the run produced no complete KTAP, 64 bad usage.
set -uo pipefail
{
TARGETS=fsaio KSFT_DIR= ROOT= PARSE=
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '3,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit "${1:-64}"; }
while [[ $# -gt 0 ]]; do
	case $1 in
	-t) TARGETS=$2; shift 2 ;;
	-k) KSFT_DIR=$2; shift 2 ;;
	-r) ROOT=$2; shift 2 ;;
	--parse) PARSE=$2; shift 2 ;;
	-h|--help) usage 0 ;;
	-*) echo "lava-kselftest: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
if [[ -n $ROOT ]]; then export FSAIO_ROOT=$ROOT; else ROOT=$(cd "$here/../.." && pwd); fi

# parse LOG: "NAME RESULT" lines, then "ktap-complete pass|fail N" last;
# diagnostics on stderr.
parse() {
	awk '
	function indent(s) { match(s, /^ */); return RLENGTH }
	function clean(s) { gsub(/[^A-Za-z0-9_.+-]+/, "_", s); sub(/^_+/, "", s); sub(/_+$/, "", s); return s }
	function bad(m) { nbad++; print "lava-kselftest: " m > "/dev/stderr" }
	function fullname(i) { return par[i] ? fullname(par[i]) "." nm[i] : nm[i] }
	{
		line = $0; sub(/\r$/, "", line)
		d = 0
		if (line ~ /^# /) { line = substr(line, 3); d = 1 }
		if (d == 1 && line ~ /^selftests: [^ ]+: /) {
			# a new kselftest test starts: whatever is open below is an orphan
			next
		}
		ind = indent(line); rest = substr(line, ind + 1)
		dep = d + int(ind / 4)
		if (rest ~ /^Bail out!/) { bad("bail out: " rest); next }
		if (rest ~ /^1\.\.[0-9]+/) {
			p = rest; sub(/^1\.\./, "", p); plan[dep] = p + 0; hasplan[dep] = 1
			next
		}
		if (rest !~ /^(not ok|ok) [0-9]+( |$)/) next
		res = rest ~ /^not ok/ ? "fail" : "pass"
		desc = rest; sub(/^(not ok|ok) [0-9]+ ?(- )?/, "", desc)
		dir = ""
		if (desc ~ /^# /) { dir = substr(desc, 3); desc = "" }
		else if (match(desc, / # /)) { dir = substr(desc, RSTART + 3); desc = substr(desc, 1, RSTART - 1) }
		if (toupper(dir) ~ /^SKIP/) res = "skip"
		if (dep == 0) sub(/^selftests: [^ ]+: /, "", desc)
		N++; nm[N] = clean(desc); rs[N] = res; dp[N] = dep
		if (nm[N] == "") nm[N] = "test" N
		if (dep == 0) top++
		# the lines one level down since the last line at this level are its subtests
		c = dep + 1
		if (hasplan[c] && nk[c] != plan[c])
			bad(sprintf("%s: plan 1..%d but %d result lines", fullname(N), plan[c], nk[c]))
		for (i = 1; i <= nk[c]; i++) par[kid[c, i]] = N
		nk[c] = 0; hasplan[c] = 0
		kid[dep, ++nk[dep]] = N
	}
	END {
		if (!top) bad("no kselftest result line")
		if (hasplan[0] && nk[0] != plan[0])
			bad(sprintf("top level: plan 1..%d but %d result lines", plan[0], nk[0]))
		for (k in nk) if (k + 0 > 0 && nk[k] > 0)
			bad(sprintf("%d result lines at depth %d without their parent line (test cut off?)", nk[k], k))
		for (i = 1; i <= N; i++) {
			n = fullname(i)
			if (seen[n]++) n = n "_" seen[n]
			print n, rs[i]
		}
		print "ktap-complete", (nbad || !top) ? "fail" : "pass", N
	}' "$1"
}

report() {
	local parsed=$1 name result n=0 complete count
	while read -r name result count; do
		if [[ $name == ktap-complete ]]; then
			complete=$result
			continue
		fi
		n=$((n + 1))
		if command -v lava-test-case >/dev/null; then
			lava-test-case "$name" --result "$result"
		else
			echo "$name $result"
		fi
	done <"$parsed"
	if command -v lava-test-case >/dev/null; then
		lava-test-case ktap-complete --result "${complete:-fail}" --measurement "$n" --units results
	else
		echo "ktap-complete ${complete:-fail} $n"
	fi
	[[ ${complete:-fail} == pass ]]
}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/lava-kselftest.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
if [[ -n $PARSE ]]; then
	[[ -r $PARSE ]] || { echo "lava-kselftest: cannot read $PARSE" >&2; exit 64; }
	parse "$PARSE" >"$TMP/parsed"
	report "$TMP/parsed"
	exit
fi

[[ $# -gt 0 ]] && export KSELFTEST_FSAIO_CHECK_SH_ARGS="$*"
if [[ -z $KSFT_DIR ]]; then
	ksrc=${KSRC:-/var/cache/fsaio/src/linux-source-6.12}
	echo "lava-kselftest: kselftest tree /var/tmp/fsaio-ksft from $ksrc, fsaio from $ROOT"
	make --no-print-directory -C "$ROOT" selftest-tree KSRC="$ksrc" KSFT_TREE=/var/tmp/fsaio-ksft ||
		echo "lava-kselftest: make selftest-tree failed"
	KSFT_DIR=/var/tmp/fsaio-ksft/tools/testing/selftests
fi
log=${FSAIO_LAVA_KTAP:-$TMP/run_tests.log}
start=$(date +%s)
if [[ -f $KSFT_DIR/Makefile ]]; then
	echo "lava-kselftest: make -C $KSFT_DIR TARGETS=$TARGETS run_tests${KSELFTEST_FSAIO_CHECK_SH_ARGS:+ (workloads: $KSELFTEST_FSAIO_CHECK_SH_ARGS)}"
	# the runner appends to /dev/stdout: give it a pipe, not a file
	make --no-print-directory -C "$KSFT_DIR" TARGETS="$TARGETS" run_tests 2>&1 | tee "$log"
else
	args=()
	for t in $TARGETS; do args+=(-c "$t"); done
	echo "lava-kselftest: $KSFT_DIR/run_kselftest.sh ${args[*]}"
	(cd "$KSFT_DIR" && ./run_kselftest.sh "${args[@]}") 2>&1 | tee "$log"
fi
echo "lava-kselftest: run_tests took $(($(date +%s) - start)) s"
parse "$log" >"$TMP/parsed"
report "$TMP/parsed"
exit
}
