#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run a ci/vm/vm.mk target and exit with its verdict, which make cannot do
# (GNU make exits 2 for any failing recipe, whatever its status):
#
#   ci/vm/vm-make.sh [vmcheck|vmcrash|vmselftest|vmselftest-errors|lava-check] [VAR=value...]
#   e.g. ci/vm/vm-make.sh vmcheck KERNEL=both NOBUILD=1
#
# Exit status (harness/exit_status.h): the worst verdict over the kernels,
# ERROR (5) > FAIL (1) > PASS (0) > SKIP (4); ERROR also when make stopped
# before a verdict (a failed kernel build, a bad variable).
set -uo pipefail
{
. "$(dirname "$0")/../lib.sh"
target=vmcheck
case ${1:-} in
vmcheck|vmcrash|vmselftest|vmselftest-errors|lava-check) target=$1; shift ;;
-h|--help) usage "$EXIT_PASS" ;;
esac
st=$(mktemp "${TMPDIR:-/tmp}/fsaio-vmstatus.XXXXXX") || die "mktemp failed"
trap 'rm -f "$st"' EXIT
trap 'exit "$EXIT_ERROR"' INT TERM HUP
make -C "$ROOT" --no-print-directory "$target" VMSTATUS="$st" "$@"
mrc=$?
code=$(cat "$st" 2>/dev/null)
if [[ ! $code =~ ^[0-9]+$ ]]; then
	msg "make $target stopped before a verdict (make exit $mrc): ERROR"
	code=$EXIT_ERROR
fi
msg "make $target exited $mrc; verdict exit status $code"
exit "$code"
}
