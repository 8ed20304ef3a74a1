#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End-to-end tests of fsaio on the running kernel: real BPF, real fio,
# real libaio/io_uring, real loop devices.  KTAP out through the kernel's
# tools/testing/selftests/kselftest/ktap_helpers.sh (vendored unchanged as
# tests/e2e/ktap_helpers.sh); the last line is its kselftest "# Totals:"
# line, which tests/run-all.sh adds up.  Each test is a function run in a
# subshell: exit status EXIT_PASS, EXIT_SKIP or anything else for a
# failure (harness/exit_status.h, through ci/lib.sh).
#
#   tests/e2e/run.sh [NAME...]    all tests, or only the named ones
set -u
cd "$(dirname "$0")/../.."
. ci/lib.sh
. tests/e2e/ktap_helpers.sh

# The tests, by topic, in the order they run (tests/e2e/*.sh): lib.sh is
# what they share; each topic file defines its tests as t_NAME functions
# and appends them to TESTS.
. tests/e2e/lib.sh
. tests/e2e/cli.sh
. tests/e2e/fio.sh
. tests/e2e/replay.sh
. tests/e2e/results.sh
. tests/e2e/conformance.sh
. tests/e2e/trace.sh
. tests/e2e/vm.sh
. tests/e2e/crash.sh
. tests/e2e/db.sh
. tests/e2e/faults.sh

# tests/e2e/run.sh [NAME...]: only these tests (names as printed, a t_
# prefix allowed: the function's name), as kselftest's -t; an unknown name
# is a usage error.
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
if (($#)); then
	want=()
	for n in "$@"; do
		n=${n#t_}
		[[ " ${TESTS[*]} " == *" t_$n "* ]] || usage_error "no test '$n'; tests: ${TESTS[*]#t_}"
		want+=("t_$n")
	done
	TESTS=("${want[@]}")
fi
ktap_print_header
ktap_set_plan "${#TESTS[@]}"
for t in "${TESTS[@]}"; do
	# The test's output (its reason to skip or fail included) as diagnostics.
	out=$( (set +e; "$t") 2>&1 ); rc=$?
	[[ -n $out ]] && sed 's/^\([^#]\)/# \1/' <<<"$out"
	case $rc in
	"$EXIT_PASS") ktap_test_pass "${t#t_}" ;;
	"$EXIT_SKIP") ktap_test_skip "${t#t_}" ;;
	*) ktap_test_fail "${t#t_}" ;;
	esac
done
ktap_finished
