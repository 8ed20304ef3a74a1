#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shell helpers shared by the ci/ scripts and tests/*.sh (bash).  Source it
# first thing, by a path relative to the script:
#
#   . "$(dirname "$0")/../lib.sh"        # from a script in ci/vm/, ci/bench/, ...
#
# It sets
#   ROOT         the fsaio checkout (the directory above ci/)
#   PROG         the script's name without .sh: the prefix of its messages
#   EXIT_PASS EXIT_FAIL EXIT_SKIP EXIT_ERROR EXIT_USAGE
#                the exit status numbers, read from harness/exit_status.h,
#                the project's one table (ci/README.md "Exit status")
# and defines
#   usage [STATUS]     print the script's header comment (the comment lines
#                      after the #! and SPDX lines) and exit with STATUS,
#                      default EXIT_USAGE; on stdout for EXIT_PASS (--help),
#                      else on stderr
#   usage_error MSG    "[PROG] MSG" and where the usage is; exit EXIT_USAGE
#   msg MSG            "[PROG] MSG" on stderr
#   warn MSG           "[PROG] warning: MSG" on stderr
#   die MSG            "[PROG] error: MSG" on stderr; exit EXIT_ERROR
#   now                the time: seconds since the epoch, with nanoseconds
#   since T0 [DIGITS]  seconds from T0 (a `now`) to now, with DIGITS decimals
#                      (default 0)
#   exit_class RC      what exit status RC stands for: EXIT_PASS, EXIT_SKIP,
#                      EXIT_ERROR themselves, EXIT_USAGE an EXIT_ERROR (no
#                      verdict), anything else EXIT_FAIL
#   worse A B          the worse of two exit statuses, by their classes, on
#                      the ladder of harness/exit_status.h: ERROR > FAIL >
#                      PASS > SKIP (a skip beside a pass is a pass)
#
# Run instead of sourced, `ci/lib.sh exit-status` prints the numbers as
# NAME=N lines (ci/vm/vm.mk reads them so).  If the header cannot be read
# there are no numbers to use: the script stops with status 1.
# ci/vm/guest-init.sh (PID 1 of the guest, POSIX sh) does not use this file.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd) || exit 1
PROG=$(basename "$0" .sh)

eval "$(sed -n 's/^#define[[:space:]]\{1,\}\(EXIT_[A-Z]\{1,\}\)[[:space:]]\{1,\}\([0-9]\{1,\}\).*/\1=\2/p' \
	"$ROOT/harness/exit_status.h" 2>/dev/null)"
for _v in EXIT_PASS EXIT_FAIL EXIT_SKIP EXIT_ERROR EXIT_USAGE; do
	[[ ${!_v:-} =~ ^[0-9]+$ ]] || {
		printf '[%s] error: no #define %s in %s\n' "$PROG" "$_v" "$ROOT/harness/exit_status.h" >&2
		exit 1
	}
done
unset _v

msg() { printf '[%s] %s\n' "$PROG" "$*" >&2; }
warn() { msg "warning: $*"; }
die() { msg "error: $*"; exit "$EXIT_ERROR"; }

usage() {
	local status=${1:-$EXIT_USAGE}
	awk 'NR == 1 && /^#!/ { next } /^# SPDX-License-Identifier:/ { next }
	     !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0" |
		if [[ $status == "$EXIT_PASS" ]]; then cat; else cat >&2; fi
	exit "$status"
}
usage_error() { msg "$*"; msg "usage: $0 --help"; exit "$EXIT_USAGE"; }

now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" -v d="${2:-0}" 'BEGIN { printf "%." d "f", a - b }'; }

exit_class() {
	case $1 in
	"$EXIT_PASS"|"$EXIT_SKIP"|"$EXIT_ERROR") echo "$1" ;;
	"$EXIT_USAGE") echo "$EXIT_ERROR" ;;
	*) echo "$EXIT_FAIL" ;;
	esac
}
worse() {
	local a b s
	a=$(exit_class "$1") b=$(exit_class "$2")
	for s in "$EXIT_ERROR" "$EXIT_FAIL" "$EXIT_PASS"; do
		[[ $a == "$s" || $b == "$s" ]] && { echo "$s"; return; }
	done
	echo "$EXIT_SKIP"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	case ${1:-} in
	exit-status) for _v in EXIT_PASS EXIT_FAIL EXIT_SKIP EXIT_ERROR EXIT_USAGE; do echo "$_v=${!_v}"; done ;;
	-h|--help) usage "$EXIT_PASS" ;;
	*) usage_error "run as a program it takes one argument: exit-status" ;;
	esac
fi
