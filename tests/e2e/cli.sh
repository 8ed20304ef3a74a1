# SPDX-License-Identifier: GPL-2.0
# End-to-end tests: fsaio's command line and how a run ends: usage, bad
# input, no root, no BTF, a command that cannot run, fails, hangs or is
# interrupted (with setsid children and daemons), and fs.aio-nr coming back
# after it.  Sourced by tests/e2e/run.sh (lib.sh first).

t_help() {
	$FSAIO --help | grep -q "Usage: fsaio" || fail "no usage"
	$FSAIO check --help | grep -q -- "-- CMD" || fail "check --help lacks '-- CMD'"
	$FSAIO trace --help | grep -q -- "--duration" || fail "trace --help lacks --duration"
}
TESTS+=(t_help)

t_bad_input() {
	local out rc
	out=$($FSAIO frobnicate 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out == "fsaio: unknown command"* ]] || fail "unknown command: rc=$rc '$out'"
	out=$($FSAIO check --no-such-flag 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE ]] || fail "unknown flag: rc=$rc"
	out=$($FSAIO check no_such_workload 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out == *"unknown workload 'no_such_workload'"* ]] || fail "unknown workload: rc=$rc '$out'"
	out=$($FSAIO trace -d abc 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE ]] || fail "bad duration: rc=$rc"
	out=$($FSAIO replay /nonexistent/log 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out == *"cannot open"* ]] || fail "missing log: rc=$rc '$out'"
	out=$($FSAIO check -- 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE ]] || fail "empty command: rc=$rc '$out'"
}
TESTS+=(t_bad_input)

t_not_root() {
	need_root
	local out rc
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups $FSAIO check -- true 2>&1); rc=$?
	[[ $rc -eq $EXIT_SKIP && $out == *"needs root"* ]] || fail "not root: rc=$rc '$out'"
	[[ $(wc -l <<<"$out") -eq 1 ]] || fail "not one line: '$out'"
}
TESTS+=(t_not_root)

t_no_btf() {
	need_root
	local out rc
	out=$(FSAIO_BTF=/nonexistent/vmlinux $FSAIO check -- true 2>&1); rc=$?
	[[ $rc -eq $EXIT_SKIP && $out == *"BTF"* ]] || fail "no BTF: rc=$rc '$out'"
}
TESTS+=(t_no_btf)

t_command_not_found() {
	need_root
	local out rc
	out=$($FSAIO check -- /nonexistent/prog 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE && $out == *"cannot run '/nonexistent/prog'"* ]] || fail "rc=$rc '$out'"
	leftovers
}
TESTS+=(t_command_not_found)

t_command_fails() {
	need_root
	local out rc
	out=$($FSAIO check -- sh -c 'exit 3' 2>&1); rc=$?
	[[ $rc -eq $EXIT_FAIL && $out == *"not ok 1 workload_exit"* ]] || fail "rc=$rc '$out'"
}
TESTS+=(t_command_fails)

t_command_hangs() {
	need_root
	local out rc
	out=$($FSAIO check --timeout 2 -- sh -c 'sleep 600 # fsaio-e2e-marker' 2>&1); rc=$?
	[[ $rc -eq $EXIT_ERROR && $out == *"hung: killed after 2 s"* ]] || fail "rc=$rc '$out'"
	sleep 0.5
	leftovers
}
TESTS+=(t_command_hangs)

# workload_resources: fs.aio-nr must come back after a workload.  A process
# outside fsaio's tree creates an aio context when the workload tells it to
# and keeps it past the run: with --exclusive that is a FAIL naming the
# count, without it a SKIP (fsaio cannot tell whose the context is).  One
# that frees it later than --settle but within the late window is a PASS
# that says the free was late.
t_resources_leak() {
	need_root
	local out rc x
	cc -O2 -x c -o "$WORK/hold_aio" - <<'CEOF' || fail "cannot build the helper"
#include <linux/aio_abi.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdlib.h>
/* hold_aio GO DONE: an aio context from a byte on fifo GO until a byte on
 * fifo DONE; hold_aio GO MS: until MS ms after GO's byte */
int main(int argc, char **argv)
{
	aio_context_t ctx = 0;
	char c;
	FILE *go = fopen(argv[1], "r"), *done;

	if (!go || fread(&c, 1, 1, go) != 1 || syscall(SYS_io_setup, 8, &ctx))
		return 1;
	if (argv[2][0] >= '0' && argv[2][0] <= '9')
		return usleep(atoi(argv[2]) * 1000);
	done = fopen(argv[2], "r");	/* hold the context until told */
	return done && fread(&c, 1, 1, done) == 1 ? 0 : 1;
}
CEOF
	for x in "--exclusive" ""; do
		rm -f "$WORK/go" "$WORK/done"; mkfifo "$WORK/go" "$WORK/done"
		"$WORK/hold_aio" "$WORK/go" "$WORK/done" &
		out=$($FSAIO check $x --settle 500 -- sh -c "echo g >'$WORK/go'; sleep 0.3" 2>&1); rc=$?
		echo d >"$WORK/done"; wait
		grep -E 'workload_resources' <<<"$out"
		if [[ -n $x ]]; then
			[[ $rc -eq $EXIT_FAIL && $out == *"not ok 3 workload_resources"* &&
			   $out == *"8 aio events of contexts not freed"* ]] || fail "--exclusive: rc=$rc"
		else
			[[ $rc -eq $EXIT_PASS && $out == *"ok 3 workload_resources # SKIP"* ]] ||
				fail "without --exclusive: rc=$rc"
		fi
	done
	out=$($FSAIO check --exclusive -- sh -c 'true' 2>&1); rc=$?
	[[ $rc -eq $EXIT_PASS && $out == *"fs.aio-nr back to"* ]] || fail "clean run: rc=$rc '$out'"
	# freed ~1 s after the run: past --settle 500, inside 4 x 500.  The
	# clock starts when the workload starts (its byte on go), not when
	# fsaio does: loading BPF on a busy machine takes seconds.
	rm -f "$WORK/go"; mkfifo "$WORK/go"
	"$WORK/hold_aio" "$WORK/go" 1300 &
	out=$($FSAIO check --exclusive --settle 500 -- sh -c "echo g >'$WORK/go'; sleep 0.3" 2>&1); rc=$?
	wait
	grep -E 'workload_resources' <<<"$out"
	[[ $rc -eq $EXIT_PASS && $out == *"freed late, not leaked"* ]] || fail "late free: rc=$rc"
}
TESTS+=(t_resources_leak)

# A child that leaves the process group (setsid) is killed with the rest:
# the command runs in a cgroup of its own (harness/run/cgroup.c).
t_command_setsid_hangs() {
	need_root
	need_cgroup2
	local out rc n
	out=$($FSAIO check --timeout 2 -- sh -c 'setsid sh -c "sleep 600 # fsaio-e2e-marker" 2>/dev/null & sleep 600' 2>&1); rc=$?
	[[ $rc -eq $EXIT_ERROR && $out == *"hung: killed after 2 s"* ]] || fail "rc=$rc '$out'"
	n=$(sed -n 's/.*killed after 2 s (--timeout), \([0-9]*\) process.*/\1/p' <<<"$out")
	[[ ${n:-0} -ge 2 ]] || fail "killed '${n}' processes, not the whole tree: '$out'"
	leftovers
}
TESTS+=(t_command_setsid_hangs)

# The command exits 0 at once, its daemon (setsid, double fork) keeps its
# stdout: fsaio ends within the grace period, kills it and says so.
t_command_daemon_leftover() {
	need_root
	need_cgroup2
	local out rc t0 ms
	t0=$(date +%s%N)
	out=$(timeout -k 5 60 $FSAIO check --timeout 60 -- \
	      sh -c 'setsid sh -c "sh -c \"sleep 600 # fsaio-e2e-marker\" 2>/dev/null &"; echo started' 2>&1); rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	echo "# took $ms ms"
	[[ $rc -eq $EXIT_PASS ]] || fail "rc=$rc '$out'"
	((ms < 15000)) || fail "took $ms ms: waited on the daemon"
	grep -Eq 'workload_exit: exit 0; [0-9]+ leftover process(es)? killed 2 s after it exited' <<<"$out" ||
		fail "leftover not reported: '$out'"
	leftovers
}
TESTS+=(t_command_daemon_leftover)

t_interrupted() {
	need_root
	local pid rc
	$FSAIO check --timeout 60 cached_randread >"$WORK/int.out" 2>&1 &
	pid=$!
	sleep 4
	kill -INT $pid
	wait $pid; rc=$?
	[[ $rc -eq $EXIT_ERROR ]] || fail "interrupted run: rc=$rc: $(cat "$WORK/int.out")"
	grep -q "interrupted" "$WORK/int.out" || fail "no 'interrupted' message"
	sleep 0.5
	leftovers
}
TESTS+=(t_interrupted)

# SIGINT while a setsid() child runs: it is killed too, and reported.
t_interrupted_setsid() {
	need_root
	need_cgroup2
	local pid rc i
	$FSAIO check --timeout 60 -- sh -c 'setsid sh -c "sleep 600 # fsaio-e2e-marker" 2>/dev/null & sleep 600' \
		>"$WORK/intsid.out" 2>&1 &
	pid=$!
	for ((i = 0; i < 100; i++)); do
		pgrep -f '^sh -c sleep 600 # fsaio-e2e-marker' >/dev/null && break
		sleep 0.1
	done
	kill -INT $pid
	wait $pid; rc=$?
	[[ $rc -eq $EXIT_ERROR ]] || fail "interrupted run: rc=$rc: $(cat "$WORK/intsid.out")"
	grep -Eq 'workload_exit: ERROR: interrupted: [0-9]+ process(es)? killed' "$WORK/intsid.out" ||
		fail "no 'interrupted: N processes killed': $(cat "$WORK/intsid.out")"
	leftovers
}
TESTS+=(t_interrupted_setsid)
