# SPDX-License-Identifier: GPL-2.0
# What the end-to-end tests share: the fsaio under test, the scratch
# directory $WORK (removed on exit), the TESTS list each topic file appends
# its tests to (in the order they run), and the helpers below.  Sourced by
# tests/e2e/run.sh after ci/lib.sh (the EXIT_* statuses), from the top of
# the tree.

FSAIO=${FSAIO:-./fsaio}	# FSAIO=path: test another build
WORK=$(mktemp -d /var/tmp/fsaio-e2e.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
TESTS=()

# Fail the current test with a message.
fail() { echo "# $*"; exit "$EXIT_FAIL"; }
need_root() { [[ $(id -u) -eq 0 ]] || { echo "# needs root"; exit "$EXIT_SKIP"; }; }
# jqv FILE FILTER: print FILTER's result; a non-zero status if it is null
# or false or jq fails
jqv() { jq -er "$2" "$1" 2>/dev/null; }
leftovers() {	# nothing of ours mounted, attached, running or in a cgroup
	! grep -q fsaio /proc/mounts || fail "scratch mount left behind: $(grep fsaio /proc/mounts)"
	! losetup -a 2>/dev/null | grep -q fsaio || fail "loop device left behind: $(losetup -a | grep fsaio)"
	! pgrep -f 'fsaio-e2e-marker' >/dev/null || fail "workload process left behind: $(pgrep -af fsaio-e2e-marker)"
	local cg
	cg=$(dead_fsaio_cgroups)
	[[ -z $cg ]] || fail "cgroup left behind: $cg"
}
# The run's cgroups (fsaio-<pid>-<n>, harness/run/cgroup.c) whose fsaio
# has exited; those of an fsaio still running elsewhere are its own business.
dead_fsaio_cgroups() {
	local d pid
	for d in $(find /sys/fs/cgroup -type d -name 'fsaio-*-*' 2>/dev/null); do
		pid=${d##*/fsaio-}
		pid=${pid%%-*}
		[[ -d /proc/$pid ]] || echo "$d"
	done
}
need_cgroup2() {
	grep -q '^cgroup2 ' /proc/mounts || { echo "# no cgroup v2 mounted"; exit "$EXIT_SKIP"; }
}

# trace_start OUT ARGS...: fsaio trace ARGS in the background, its output
# in OUT; returns once it is attached (its "fsaio: tracing" line), so a
# workload started next is seen whole however long loading BPF takes on a
# busy machine.  Sets TRACE_PID.  trace_stop: Ctrl-C it (it then reports)
# and return its exit status.
trace_start() {
	local out=$1 i
	shift
	$FSAIO trace "$@" >"$out" 2>&1 &
	TRACE_PID=$!
	for i in $(seq 1200); do
		grep -q '^fsaio: tracing ' "$out" && return 0
		kill -0 "$TRACE_PID" 2>/dev/null || { wait "$TRACE_PID"; return 1; }
		sleep 0.1
	done
	kill -INT "$TRACE_PID"; wait "$TRACE_PID"
	return 1
}
trace_stop() {
	kill -INT "$TRACE_PID"
	wait "$TRACE_PID"
}
