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
# Exit status: 0 pass, 1 a test failed, 2 the log does not parse or the
# counts differ (ERROR), 4 every test skipped.
set -uo pipefail
{
KUNIT= OUT= QUIET=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--kunit) KUNIT=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	-q) QUIET=1; shift ;;
	-h|--help) awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	-*) echo "ktap-check: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[[ $# -eq 1 && -r $1 ]] || { echo "usage: ci/selftests/ktap-check.sh [--kunit kunit.py] [--out DIR] FILE" >&2; exit 2; }
FILE=$1
if [[ -z $KUNIT ]]; then
	for k in ${KSRC:-} ${KDIR:-} /var/cache/fsaio/src/linux-source-6.12; do
		[[ -f $k/tools/testing/kunit/kunit.py ]] && { KUNIT=$k/tools/testing/kunit/kunit.py; break; }
	done
fi
[[ -f $KUNIT ]] || { echo "ktap-check: no kunit.py (--kunit, or KSRC=kernel tree)" >&2; exit 2; }
TMP=
if [[ -z $OUT ]]; then
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsaio-ktap.XXXXXX") || exit 2
	trap 'rm -rf "$TMP"' EXIT
	OUT=$TMP
fi
mkdir -p "$OUT" || exit 2

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
	local want_krc=0
	((f > 0 || p == 0)) && want_krc=1
	if ((p + f + s == 0)); then
		if grep -qE '^[[:space:]]*1\.\.0' "$file"; then v=4 why="SKIP (empty plan 1..0)"
		else v=2 why="ERROR: no test results"; fi
	elif [[ -z $line ]]; then v=2 why="ERROR: kunit.py printed no summary (exit $krc)"
	elif ((kc || ke)); then v=2 why="ERROR: kunit.py found crashed $kc, errors $ke: $(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -m3 -E '\[ERROR\]|CRASHED' | sed 's/^\[[0-9:]*\] //' | tr '\n' ';')"
	elif ((kp != p || kf != f || ks != s)); then v=2 why="ERROR: counts differ: log $p/$f/$s, kunit.py $kp/$kf/$ks (passed/failed/skipped)"
	elif ((krc != want_krc)); then v=2 why="ERROR: kunit.py exited $krc, expected $want_krc"
	elif ((f > 0)); then v=1 why="FAIL ($f failed), counts match"
	elif ((p == 0)); then v=4 why="SKIP (all skipped), counts match"
	else v=0 why="PASS, counts match"
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
		if [[ $top == ok ]] && grep -qx "nested-$name 1" "$OUT/verdicts"; then
			echo "ktap-check: nested-$name: the kselftest result line says ok but its own KTAP failed -> ERROR"
			echo "nested-$name-vs-main 2" >>"$OUT/verdicts"
		fi
	done <"$OUT/nested.list"
} >"$OUT/ktap-check.txt"
((QUIET)) || cat "$OUT/ktap-check.txt"

# The main document decides pass/fail/skip; nested ones can only add a
# failure or an error.  Ranking: ERROR (2) > FAIL (1) > SKIP (4) > PASS (0).
worst=0
while read -r name v; do
	[[ $name != main && $v == 4 ]] && v=0
	case $v in
	2) worst=2 ;;
	1) ((worst != 2)) && worst=1 ;;
	4) ((worst == 0)) && worst=4 ;;
	esac
done <"$OUT/verdicts"
exit $worst
}
