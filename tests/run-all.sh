#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run every test of fsaio: the unit-test binaries given as arguments
# (kselftest_harness) and then the end-to-end tests on the running kernel.
# Ends with the line "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0 skip=0

# Add a kselftest "# Totals: pass:P fail:F xfail:X xpass:Y skip:S error:E" line.
add_totals() {
	local line p f x y s e
	line=$(grep -E '^# Totals: ' <<<"$1" | tail -n 1)
	[[ -n $line ]] || return 1
	read -r p f x y s e < <(sed -E 's/.*pass:([0-9]+) fail:([0-9]+) xfail:([0-9]+) xpass:([0-9]+) skip:([0-9]+) error:([0-9]+).*/\1 \2 \3 \4 \5 \6/' <<<"$line")
	pass=$((pass + p + x)) fail=$((fail + f + y + e)) skip=$((skip + s))
}

for t in "$@"; do
	out=$(timeout 600 "$t" 2>&1)
	rc=$?
	if ! add_totals "$out"; then
		echo "$out"
		echo "not ok - $t printed no totals (exit $rc)"
		fail=$((fail + 1))
		continue
	fi
	if [[ $rc -ne 0 && $rc -ne 4 ]]; then
		echo "$out" | grep -E '^(not ok|#)' | grep -v '^# *$'
	fi
	echo "# unit: $(grep -E '^# Totals' <<<"$out") ($t)"
done

out_file=$(mktemp)
trap 'rm -f "$out_file"' EXIT
tests/e2e/run.sh | tee "$out_file"
add_totals "$(cat "$out_file")" || { echo "not ok - e2e printed no totals"; fail=$((fail + 1)); }

echo "$pass passed, $fail failed, $skip skipped"
[[ $fail -eq 0 ]]
