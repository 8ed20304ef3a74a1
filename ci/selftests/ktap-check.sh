#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check that a KTAP log parses with the kernel's own parser
# (tools/testing/kunit/kunit.py parse) and that the parser's counts equal
# the result lines in the log; print the counts and exit with the verdict.
#
#   ci/selftests/ktap-check.sh [--kunit PATH/kunit.py] [--out DIR] [-q] FILE
#
# FILE is `fsaio check` output, or a kselftest run (`make run_tests`), whose
# runner prefixes each test's own output with "# ": every such test that
# printed KTAP of its own (fsaio_prereq, fsaio_check.sh) is cut out,
# un-prefixed and checked too, as DIR/nested-<test>.ktap.
# kunit.py: --kunit, else $KSRC or $KDIR's tools/testing/kunit/kunit.py, else
# the Debian tree's (/var/cache/fsaio/src/linux-source-6.12); it needs no build.
# Per document, DIR/kunit-<name>.txt holds the parser's output.
#
# Leaves are counted independently of kunit.py: a result line is a leaf
# unless the result line just before it is deeper (its last subtest);
# "ok ... # SKIP" and "not ok ... # SKIP" are skipped, other "not ok" failed,
# other "ok" (XFAIL included) passed.  kunit.py must report the same
# counts, no "errors:"/"crashed:" (its parse errors, missing subtests or
# result lines, plan mismatches) and exit 0 unless something failed or all
# skipped; a kselftest line "ok N selftests: ..: T" must not sit on nested
# KTAP that failed.
# Exit status (harness/exit_status.h): EXIT_PASS (0), EXIT_FAIL (1) a test
# failed, EXIT_SKIP (4) every test skipped, EXIT_ERROR (5) the log does not
# parse or the counts differ, EXIT_USAGE (64) a bad command line.
set -uo pipefail
{
. "$(dirname "$0")/../lib.sh"
KUNIT= OUT= QUIET=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--kunit) KUNIT=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	-q) QUIET=1; shift ;;
	-h|--help) usage "$EXIT_PASS" ;;
	-*) usage_error "unknown option $1" ;;
	*) break ;;
	esac
done
[[ $# -eq 1 ]] || usage_error "one FILE expected"
[[ -r $1 ]] || usage_error "cannot read $1"
FILE=$1
if [[ -z $KUNIT ]]; then
	for k in ${KSRC:-} ${KDIR:-} "${FSAIO_SRCCACHE:-/var/cache/fsaio/src}/linux-source-6.12"; do
		[[ -f $k/tools/testing/kunit/kunit.py ]] && { KUNIT=$k/tools/testing/kunit/kunit.py; break; }
	done
fi
[[ -f $KUNIT ]] || die "no kunit.py (--kunit, or KSRC=kernel tree)"
TMP=
if [[ -z $OUT ]]; then
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsaio-ktap.XXXXXX") || die "mktemp failed"
	trap 'rm -rf "$TMP"' EXIT
	OUT=$TMP
fi
mkdir -p "$OUT" || die "cannot create $OUT"

# Independent leaf counts: "passed failed skipped".
leaf_counts() {
	awk '
	function indent(s) { match(s, /^[ \t]*/); return RLENGTH }
	/^[ \t]*(not ok|ok) [0-9]+/ {
		d = indent($0)
		if (!(seen && prev > d)) {
			if ($0 ~ / # [Ss][Kk][Ii][Pp]/) s++
			else if ($0 ~ /^[ \t]*not ok/) f++
			else p++
		}
		prev = d; seen = 1
	}
	END { printf "%d %d %d\n", p, f, s }' "$1"
}

# check NAME FILE: run kunit.py parse on FILE, compare the counts; print one
# line and append "NAME VERDICT" to $OUT/verdicts.
check() {
	local name=$1 file=$2 log=$OUT/kunit-$1.txt krc p f s line kp kf ks kc ke v why
	read -r p f s < <(leaf_counts "$file")
	python3 "$KUNIT" parse <"$file" >"$log" 2>&1
	krc=$?
	line=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -o 'Testing complete\. .*' | tail -n 1)
	num() { local n; n=$(grep -oE "$1: [0-9]+" <<<"$line" | grep -oE '[0-9]+'); echo "${n:-0}"; }
	kp=$(num passed) kf=$(num failed) ks=$(num skipped) kc=$(num crashed) ke=$(num errors)
	# kunit.py's own exit status: 0, or 1 when a test failed or none passed.
	local want_krc=0
	((f > 0 || p == 0)) && want_krc=1
	if ((p + f + s == 0)); then
		if grep -qE '^[[:space:]]*1\.\.0' "$file"; then v=$EXIT_SKIP why="SKIP (empty plan 1..0)"
		else v=$EXIT_ERROR why="ERROR: no test results"; fi
	elif [[ -z $line ]]; then v=$EXIT_ERROR why="ERROR: kunit.py printed no summary (exit $krc)"
	elif ((kc || ke)); then v=$EXIT_ERROR why="ERROR: kunit.py found crashed $kc, errors $ke: $(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -m3 -E '\[ERROR\]|CRASHED' | sed 's/^\[[0-9:]*\] //' | tr '\n' ';')"
	elif ((kp != p || kf != f || ks != s)); then v=$EXIT_ERROR why="ERROR: counts differ: log $p/$f/$s, kunit.py $kp/$kf/$ks (passed/failed/skipped)"
	elif ((krc != want_krc)); then v=$EXIT_ERROR why="ERROR: kunit.py exited $krc, expected $want_krc"
	elif ((f > 0)); then v=$EXIT_FAIL why="FAIL ($f failed), counts match"
	elif ((p == 0)); then v=$EXIT_SKIP why="SKIP (all skipped), counts match"
	else v=$EXIT_PASS why="PASS, counts match"
	fi
	echo "$name $v" >>"$OUT/verdicts"
	printf 'ktap-check: %s: %d results (%d passed, %d failed, %d skipped); kunit.py parse exit %d: %s -> %s\n' \
		"$name" $((p + f + s)) "$p" "$f" "$s" "$krc" "${line#Testing complete. }" "$why"
}

: >"$OUT/verdicts"
{
	check main "$FILE"
	# kselftest blocks: "# selftests: DIR: NAME" ... "ok|not ok N selftests: DIR: NAME"
	awk -v out="$OUT" '
	/^# selftests: [^:]+: / { name = $0; sub(/^# selftests: [^:]+: /, "", name); body = ""; inblk = 1; next }
	inblk && /^(not ok|ok) [0-9]+ selftests: / {
		top = ($1 == "ok" && $0 !~ / # SKIP/) ? "ok" : "other"
		if (body ~ /(^|\n)[ \t]*(KTAP version 1|TAP version 1[34])\n/) {
			f = out "/nested-" name ".ktap"
			printf "%s", body > f; close(f)
			print name, f, top
		}
		inblk = 0; next
	}
	inblk { l = $0; if (substr(l, 1, 2) == "# ") l = substr(l, 3); else if (l == "#") l = ""; body = body l "\n" }
	' "$FILE" >"$OUT/nested.list"
	while read -r name file top; do
		[[ -n $name ]] || continue
		check "nested-$name" "$file"
		# A kselftest "ok" over nested KTAP that failed is a contradiction.
		if [[ $top == ok ]] && grep -qx "nested-$name $EXIT_FAIL" "$OUT/verdicts"; then
			echo "ktap-check: nested-$name: the kselftest result line says ok but its own KTAP failed -> ERROR"
			echo "nested-$name-vs-main $EXIT_ERROR" >>"$OUT/verdicts"
		fi
	done <"$OUT/nested.list"
} >"$OUT/ktap-check.txt"
((QUIET)) || cat "$OUT/ktap-check.txt"

# The main document decides pass/fail/skip; nested ones can only add a
# failure or an error (ci/lib.sh worse).
worst=$EXIT_SKIP
while read -r name v; do
	[[ $name == main || $v == "$EXIT_FAIL" || $v == "$EXIT_ERROR" ]] || continue
	worst=$(worse "$worst" "$v")
done <"$OUT/verdicts"
exit $worst
}
