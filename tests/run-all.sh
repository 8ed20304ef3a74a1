#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run every test of fsaio: the unit-test binaries given as arguments
# (kselftest_harness), the end-to-end tests on the running kernel, and with
# --vm KERNELS the workload suite inside QEMU on those kernels (make vmcheck;
# KERNELS = both | stock | patched; builds them unless cached; FLAVOR=debug
# in the environment boots the debug flavour of each), the crash-replay
# durability tier (make vmcrash) and the database tier (make vmdb) on the
# same kernels.  With --load F the
# unit and end-to-end tests run beside a stress-ng load (tests/load/load.sh,
# F x nproc CPU workers): verdicts must not depend on an idle CPU.  The QEMU
# tiers run after the load is stopped (a TCG guest starved of CPU panics on
# its hung-task and RCU-stall watchdogs, which every test kernel arms).
# Ends with the line "N passed, N failed, N skipped"; exit status EXIT_PASS
# or EXIT_FAIL (harness/exit_status.h, through ci/lib.sh).
set -u
cd "$(dirname "$0")/.."
. ci/lib.sh
pass=0 fail=0 skip=0
VM= LOAD=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--vm) VM=$2; shift 2 ;;
	--load) [[ ${2:-} =~ ^[0-9]+$ ]] || usage_error "--load wants a load factor (0: none)"
		LOAD=$2; shift 2 ;;
	*) break ;;
	esac
done
. tests/load/load.sh
# Every failure line, repeated above the final count: a CI log is often
# read from its tail.
failures=$(mktemp)
trap 'rm -f "$failures"; load_stop' EXIT
trap 'msg "interrupted"; exit "$EXIT_ERROR"' INT TERM HUP
((LOAD > 0)) && load_start "$LOAD"

# A failure line: shown now, and repeated above the final count.
report_failure() { echo "not ok - $*" | tee -a "$failures"; }

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
		report_failure "$t printed no totals (exit $rc)"
		fail=$((fail + 1))
		continue
	fi
	if [[ $rc -ne $EXIT_PASS && $rc -ne $EXIT_SKIP ]]; then
		echo "$out" | grep -E '^(not ok|#)' | grep -v '^# *$'
		echo "$out" | grep -E '^ *not ok ' | sed "s|^ *|# unit $t: |" >>"$failures"
	fi
	echo "# unit: $(grep -E '^# Totals' <<<"$out") ($t)"
done

out_file=$(mktemp)
trap 'rm -f "$out_file" "$failures"; load_stop' EXIT
tests/e2e/run.sh | tee "$out_file"
grep -E '^ *not ok ' "$out_file" | grep -v '# TODO' | sed 's/^ */# e2e: /' >>"$failures"
add_totals "$(cat "$out_file")" || { report_failure "e2e printed no totals"; fail=$((fail + 1)); }
if ((LOAD > 0)); then
	msg "load average at the end of the host tiers: $(cut -d' ' -f1-3 /proc/loadavg)"
	load_stop
fi

# VM tiers whose guest command prints fsaio's KTAP (one document per run):
# every check of every run on each kernel counts as a test (XFAIL as
# passed, as kselftest does); a guest ERROR (panic, hang, timeout, no
# result) or a failing run without a failing check counts as failed.
#   nested_tier NAME RESULTS TARGET: make TARGET KERNEL=$VM, results in
#   .output/RESULTS/<kernel>/
nested_tier() {
	local name=$1 results=$2 target=$3 k label dir res p f s nf
	local suffix=${FLAVOR:+-$FLAVOR}
	case $VM in both) set -- stock patched ;; *) set -- "$VM" ;; esac
	# No verdict from an earlier run may stand in for this one.
	for k in "$@"; do rm -f ".output/$results/$k$suffix/result" ".output/$results/$k$suffix/stdout"; done
	echo "# $name: make $target KERNEL=$VM${FLAVOR:+ FLAVOR=$FLAVOR} (kernel builds are cached in /var/cache/fsaio/kernels)"
	make --no-print-directory "$target" KERNEL="$VM" ${FLAVOR:+FLAVOR="$FLAVOR"}
	for k in "$@"; do
		label=$k$suffix dir=.output/$results/$k$suffix
		res=$(cat "$dir/result" 2>/dev/null || echo "ERROR no result")
		if [[ ! -s $dir/stdout || $res == ERROR* ]]; then
			report_failure "$name $label: $res"
			fail=$((fail + 1))
			continue
		fi
		p=$(grep -cE '^    ok [0-9]+ [^#]*($|# XFAIL)' "$dir/stdout")
		s=$(grep -cE '^    ok [0-9]+ .*# SKIP' "$dir/stdout")
		f=$(grep -cE '^    not ok ' "$dir/stdout")
		nf=$(grep -cE '^not ok ' "$dir/stdout")
		grep -E '^    not ok |^not ok ' "$dir/stdout" | sed "s/^ */# $name $label: /" | tee -a "$failures"
		if ((nf > 0 && f == 0)); then
			report_failure "$name $label: $nf run(s) failed without a failing check"
			f=1
		fi
		if [[ $res == FAIL* ]] && ((f == 0)); then
			report_failure "$name $label: $res"
			f=1
		fi
		echo "# $name $label: pass:$p fail:$f skip:$s ($res)"
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	done
}
# The workload suite (make vmcheck), and the database tier (make vmdb,
# MariaDB's InnoDB over libaio; the kernels are built by then).
vm_tier() { nested_tier vm vm vmcheck; }
db_tier() { NOBUILD=1 nested_tier vm-db vm-db vmdb; }
# Crash-replay tier (ci/crash/crash-replay.sh in its own boot, make
# vmcrash): each file system x engine x sync flag is a test; a guest ERROR
# or a FAIL without a failing test (a splat) counts as one failure.
crash_tier() {
	local k label dir res p f s
	local suffix=${FLAVOR:+-$FLAVOR}
	case $VM in both) set -- stock patched ;; *) set -- "$VM" ;; esac
	for k in "$@"; do rm -f ".output/vm-crash/$k$suffix/result" ".output/vm-crash/$k$suffix/stdout"; done
	echo "# vm-crash: make vmcrash KERNEL=$VM${FLAVOR:+ FLAVOR=$FLAVOR} NOBUILD=1"
	make --no-print-directory vmcrash KERNEL="$VM" ${FLAVOR:+FLAVOR="$FLAVOR"} NOBUILD=1 >/dev/null
	for k in "$@"; do
		label=$k$suffix dir=.output/vm-crash/$k$suffix
		res=$(cat "$dir/result" 2>/dev/null || echo "ERROR no result")
		p=$(grep -cE '^ok [0-9]+ [^#]*$' "$dir/stdout" 2>/dev/null)
		s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$dir/stdout" 2>/dev/null)
		f=$(grep -cE '^not ok ' "$dir/stdout" 2>/dev/null)
		grep -hE '^# .*(FAIL|ERROR)|^not ok ' "$dir/stdout" 2>/dev/null | sed "s/^#* */# vm-crash $label: /" | tee -a "$failures"
		if [[ $res == ERROR* || $res == FAIL* ]] && ((f == 0)); then
			report_failure "vm-crash $label: $res"
			f=1
		fi
		echo "# vm-crash $label: pass:$p fail:$f skip:$s ($res)"
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	done
}
[[ -n $VM ]] && { vm_tier; crash_tier; db_tier; }

if [[ -s $failures ]]; then
	echo "# what failed (each also above, with its run):"
	cat "$failures"
fi
echo "$pass passed, $fail failed, $skip skipped"
((fail == 0)) && exit "$EXIT_PASS"
exit "$EXIT_FAIL"
