#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run a ci/vm/vm.mk target and exit with its verdict, which make cannot do
# (GNU make exits 2 for any failing recipe, whatever its status):
#
#   ci/vm/vm-make.sh [vmcheck|vmselftest|vmselftest-errors] [VAR=value...]
#   e.g. ci/vm/vm-make.sh vmcheck KERNEL=both NOBUILD=1
#
# Exit status: 0 PASS, 1 FAIL, 2 ERROR, 4 SKIP (the worst over the kernels:
# ERROR > FAIL > SKIP > PASS); 2 also when make stopped before a verdict
# (a failed kernel build, a bad variable).
set -uo pipefail
{
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
target=vmcheck
case ${1:-} in
vmcheck|vmselftest|vmselftest-errors) target=$1; shift ;;
-h|--help) awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
esac
st=$(mktemp "${TMPDIR:-/tmp}/fsaio-vmstatus.XXXXXX") || exit 2
trap 'rm -f "$st"' EXIT
trap 'exit 2' INT TERM HUP
make -C "$ROOT" --no-print-directory "$target" VMSTATUS="$st" "$@"
mrc=$?
code=$(cat "$st" 2>/dev/null)
if [[ ! $code =~ ^[0-9]+$ ]]; then
	echo "vm-make: make $target stopped before a verdict (make exit $mrc): ERROR" >&2
	code=2
fi
echo "vm-make: make $target exited $mrc; verdict exit status $code" >&2
exit "$code"
}
