#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Offline tests of the LAVA verdict path, no QEMU, no lava-run (seconds):
# kselftest logs go through ci/lava/lava-kselftest.sh --parse (the guest
# side), its results are written as lava-run would log them, and
# ci/lava/lava-check.sh --judge must give the expected exit status.  Cases:
# a passing run (0), a failing fsaio check deep in the KTAP (1), every
# result skipped (4), and the ways results go missing, each an ERROR (5):
# KTAP cut off, a plan that does not match, a result lost between guest and
# LAVA, a failed LAVA job, no log, no fsaio results at all; and the
# guest-side script's two ways of running the kselftest, with fakes.
# The real-QEMU twins are documented in ci/README.md ("LAVA: make lava-check").
#
#   ci/lava/lava-judge-tests.sh
#
# KTAP on stdout.  Exit status: 0 all cases behaved, 1 one did not.
set -uo pipefail
{
. "$(dirname "$0")/../lib.sh"
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
L=$ROOT/ci/lava
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsaio-lava-judge.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT

# A run_tests log of the kselftest: prereq with a skip, two workloads; $1
# replaces the second workload's third check line.
ksft_log() {
	cat <<KTAP
TAP version 13
1..2
# timeout set to 900
# selftests: fsaio: fsaio_prereq
# TAP version 13
# 1..2
# ok 1 btf #  /sys/kernel/btf/vmlinux 3352 KiB
# ok 2 syscall_tracepoints # SKIP no syscall tracepoints
ok 1 selftests: fsaio: fsaio_prereq
# selftests: fsaio: fsaio_check.sh
# # fsaio: /x/fsaio on 6.12.118
# KTAP version 1
# 1..2
#     KTAP version 1
#     # Subtest: aio_read_batch
#     # command: aio_read_batch
#     1..3
#     ok 1 workload_exit
#     ok 2 nonblocking_submit_libaio # XFAIL stock kernel: io_submit slept
#     ok 3 durability # SKIP needs the patched kernel
# ok 1 aio_read_batch
#     KTAP version 1
#     # Subtest: uring_read_batch
#     1..3
#     ok 1 workload_exit
#     ok 2 exactly_once
#     ${1:-ok 3 quiescence}
# ${2:-ok 2 uring_read_batch}
${3:-ok 2 selftests: fsaio: fsaio_check.sh}
KTAP
}

# joblog KTAPFILE [JOBRESULT]: the guest's results as lava-run logs them
joblog() {
	local name result n
	echo '{"dt": "2026-12-04T00:00:00", "lvl": "info", "msg": "lava-dispatcher (fake log)"}'
	echo '{"dt": "2026-12-04T00:00:01", "lvl": "results", "msg": {"case": "login-action", "definition": "lava", "duration": "20.00", "result": "pass"}}'
	"$L/lava-kselftest.sh" --parse "$1" 2>/dev/null | while read -r name result n; do
		if [[ $name == ktap-complete ]]; then
			printf '{"dt": "2026-12-04T00:00:02", "lvl": "results", "msg": {"case": "ktap-complete", "definition": "0_fsaio-kselftest", "measurement": ! "%s.0", "result": "%s", "units": "results"}}\n' "$n" "$result"
		else
			printf '{"dt": "2026-12-04T00:00:02", "lvl": "results", "msg": {"case": "%s", "definition": "0_fsaio-kselftest", "result": "%s"}}\n' "$name" "$result"
		fi
	done
	printf '{"dt": "2026-12-04T00:00:03", "lvl": "results", "msg": {"case": "job", "definition": "lava", "result": "%s"}}\n' "${2:-pass}"
}

n=0 bad=0
# case NAME EXPECTED: judge $TMP/NAME/job.log
check() {
	local name=$1 want=$2 rc out
	n=$((n + 1))
	out=$("$L/lava-check.sh" --judge "$TMP/$name" 2>/dev/null); rc=$?
	if [[ $rc == "$want" ]]; then
		echo "ok $n $name # exit $rc: $out"
	else
		echo "not ok $n $name # exit $rc, expected $want: $out"
		bad=$((bad + 1))
	fi
}
mk() { mkdir -p "$TMP/$1"; }

echo "KTAP version 1"
echo "1..12"
mk pass; ksft_log >"$TMP/pass/ktap"; joblog "$TMP/pass/ktap" >"$TMP/pass/job.log"
check pass "$EXIT_PASS"
# the parser's own count: 2 kselftest + 2 prereq + 2 workloads + 6 checks
got=$("$L/lava-kselftest.sh" --parse "$TMP/pass/ktap" 2>/dev/null | tail -1)
n=$((n + 1))
if [[ $got == "ktap-complete pass 12" ]]; then echo "ok $n parse_counts # $got"
else echo "not ok $n parse_counts # '$got', expected 'ktap-complete pass 12'"; bad=$((bad + 1)); fi

mk failing_check
ksft_log "not ok 3 quiescence" "not ok 2 uring_read_batch" \
	"not ok 2 selftests: fsaio: fsaio_check.sh # exit=1" >"$TMP/failing_check/ktap"
joblog "$TMP/failing_check/ktap" >"$TMP/failing_check/job.log"
check failing_check "$EXIT_FAIL"

mk all_skipped
printf '%s\n' "TAP version 13" "1..1" "# selftests: fsaio: fsaio_check.sh" \
	"# 1..0 # SKIP fsaio not found (FSAIO_ROOT)" "ok 1 selftests: fsaio: fsaio_check.sh # SKIP" >"$TMP/all_skipped/ktap"
joblog "$TMP/all_skipped/ktap" >"$TMP/all_skipped/job.log"
check all_skipped "$EXIT_SKIP"

mk cut_off; ksft_log | head -22 >"$TMP/cut_off/ktap"
joblog "$TMP/cut_off/ktap" >"$TMP/cut_off/job.log"
check cut_off "$EXIT_ERROR"

mk plan_mismatch; ksft_log | sed '/^#     ok 2 exactly_once$/d' >"$TMP/plan_mismatch/ktap"
joblog "$TMP/plan_mismatch/ktap" >"$TMP/plan_mismatch/job.log"
check plan_mismatch "$EXIT_ERROR"

mk lost_result; grep -v '"case": "fsaio_check.sh.aio_read_batch.workload_exit"' "$TMP/pass/job.log" >"$TMP/lost_result/job.log"
check lost_result "$EXIT_ERROR"

mk job_failed; joblog "$TMP/pass/ktap" fail >"$TMP/job_failed/job.log"
check job_failed "$EXIT_ERROR"

mk empty_log; : >"$TMP/empty_log/job.log"
check empty_log "$EXIT_ERROR"

mk no_fsaio_results; grep -v '"definition": "0_fsaio-kselftest"' "$TMP/pass/job.log" >"$TMP/no_fsaio_results/job.log"
check no_fsaio_results "$EXIT_ERROR"

# lava-kselftest.sh's two ways of running, with fakes printing the log
# above: a kselftest tree (make run_tests) and an install (run_kselftest.sh)
mkdir -p "$TMP/tree" "$TMP/install"
ksft_log >"$TMP/canned"
printf 'run_tests:\n\t@echo "TARGETS=$(TARGETS) args=$$KSELFTEST_FSAIO_CHECK_SH_ARGS" >%s\n\t@cat %s\n' \
	"$TMP/tree/ran" "$TMP/canned" >"$TMP/tree/Makefile"
printf '#!/bin/sh\necho "$*" >%s\ncat %s\n' "$TMP/install/ran" "$TMP/canned" >"$TMP/install/run_kselftest.sh"
chmod +x "$TMP/install/run_kselftest.sh"
for mode in tree install; do
	n=$((n + 1))
	got=$(PATH=/usr/bin:/bin "$L/lava-kselftest.sh" -k "$TMP/$mode" aio_read_batch 2>&1 | tail -1)
	ran=$(cat "$TMP/$mode/ran" 2>/dev/null)
	want="TARGETS=fsaio args=aio_read_batch"
	[[ $mode == install ]] && want="-c fsaio"
	if [[ $got == "ktap-complete pass 12" && $ran == "$want" ]]; then
		echo "ok $n run_$mode # ran '$ran'; $got"
	else
		echo "not ok $n run_$mode # ran '$ran' (expected '$want'); last line '$got'"
		bad=$((bad + 1))
	fi
done

echo "# Totals: pass:$((n - bad)) fail:$bad xfail:0 xpass:0 skip:0 error:0"
((bad == 0)) && exit "$EXIT_PASS"
exit "$EXIT_FAIL"
}
