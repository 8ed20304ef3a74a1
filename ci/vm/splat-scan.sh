#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Scan a kernel log for splats.
#
#   ci/vm/splat-scan.sh [--after MARKER] [--last] [-q] [FILE|-]
#
#   --after MARKER  only scan lines after the first line containing MARKER
#                   (with --last: after the last such line); if the marker is
#                   absent the whole file is scanned and a note is printed
#   -q              print nothing, only set the exit status
#
# Matches WARNING:, BUG:, Oops, general protection fault, KASAN, UBSAN,
# lockdep reports (possible circular/recursive locking, inconsistent lock
# state, suspicious RCU usage, ...), RCU stalls, hung tasks ("blocked for more
# than"), soft/hard lockups, kernel panics, kmemleak reports ("new suspected
# memory leaks"), debugobjects (ODEBUG) and SLUB debug reports (KFENCE's
# start "BUG: KFENCE").  Each match is printed with its
# line number.  Exit status (harness/exit_status.h): EXIT_PASS (0) clean,
# EXIT_FAIL (1) splat found, EXIT_USAGE (64) bad option or unreadable file.
set -uo pipefail
# The whole script is one compound command, parsed before it runs, so editing
# this file cannot break a copy that is already running.
{
. "$(dirname "$0")/../lib.sh"

MARKER= LAST=0 QUIET=0 FILE=-
while [[ $# -gt 0 ]]; do
	case $1 in
	--after) MARKER=$2; shift 2 ;;
	--after=*) MARKER=${1#*=}; shift ;;
	--last) LAST=1; shift ;;
	-q|--quiet) QUIET=1; shift ;;
	-h|--help) usage "$EXIT_PASS" ;;
	-*) [[ $1 == - ]] && { FILE=-; shift; continue; }
	    usage_error "unknown option $1" ;;
	*) FILE=$1; shift ;;
	esac
done
[[ $FILE == - || -r $FILE ]] || usage_error "cannot read $FILE"

PATTERN='WARNING:|BUG:|Oops|general protection fault|KASAN|UBSAN:|'
PATTERN+='possible circular locking|possible recursive locking|inconsistent lock state|'
PATTERN+='lockdep|suspicious RCU usage|INFO: trying to register non-static key|'
PATTERN+='rcu_sched self-detected stall|rcu_preempt self-detected stall|RCU stall|'
PATTERN+='rcu: INFO: .* detected stall|detected stalls on CPUs|'
PATTERN+='blocked for more than|soft lockup|hard LOCKUP|Kernel panic|'
PATTERN+='kernel BUG at|Unable to handle kernel|stack-protector|list_add corruption|'
PATTERN+='list_del corruption|refcount_t: |new suspected memory leak|ODEBUG: |'
PATTERN+='BUG .*: Poison overwritten|Redzone overwritten|Object already free'

# Lines that mention the words without being a splat.
IGNORE='lockdep: fixing up alternatives|Lock dependency validator|'
IGNORE+='[.][.][.] MAX_LOCKDEP|Kernel command line:|in-hardirq chains|in-softirq chains|KASAN init|'
IGNORE+='kasan: KernelAddressSanitizer initialized|hung_task_panic|softlockup_panic'

awk -v marker="$MARKER" -v last="$LAST" -v pat="$PATTERN" -v ign="$IGNORE" \
    -v prog="$PROG" -v pass="$EXIT_PASS" -v fail="$EXIT_FAIL" '
{ line[NR] = $0 }
marker != "" && index($0, marker) { if (!found || last) start = NR; found = 1 }
END {
	if (marker != "" && !found)
		printf("[%s] warning: marker \"%s\" not found; scanning the whole log\n", prog, marker) > "/dev/stderr"
	n = 0
	for (i = start + 1; i <= NR; i++)
		if (line[i] ~ pat && line[i] !~ ign) {
			if (!quiet) printf("%d: %s\n", i, line[i])
			n++
		}
	exit (n > 0 ? fail : pass)
}' quiet="$QUIET" "$FILE"
exit
}
