#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make vmselftest: boot each kernel, build a scratch kselftest tree in the
# guest's /var/tmp (make selftest-tree), run the kernel's own kselftest make
# command there with TARGETS=fsaio, and check the KTAP on the host with
# kunit.py parse (ci/selftests/ktap-check.sh).  Results in
# $OUTPUT/vm-selftest/<label>/ (ktap.txt = the run_tests output,
# nested-*.ktap, kunit-*.txt, fsaio.json, verdict).
#
#   ci/vm/vmselftest.sh KERNEL=stock|patched|both|PATH VM_KSRC=tree
#                       [VMSELFTEST_ARGS='workloads'] [FLAVOR=debug] [VMTIMEOUT=s]
#                       [VMOPTS='...'] [VMLABEL=l] [NOBUILD=1] [VMSTATUS=file]
#   ci/vm/vmselftest.sh --errors KERNEL=...
#       make vmselftest-errors: kill QEMU mid-run, panic the guest, bogus
#       init, timeout: each must be an ERROR with its reason and leave no
#       QEMU process or temp file (ci/vm/vm-error-tests.sh)
#
# Exit status: the worse over the kernels of the guest's verdict and
# ktap-check's (ci/lib.sh worse), also written to VMSTATUS.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. "$ROOT/ci/vm/vm-lib.sh"
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
ERRORS=0
[[ ${1:-} == --errors ]] && { ERRORS=1; shift; }
vm_vars "$@"
cd "$ROOT" || die "cannot cd to $ROOT"
eval "opts=($VMOPTS)" || usage_error "VMOPTS is not a list of words: $VMOPTS"

if ((ERRORS)); then
	read -r k _ <<<"$(vm_kernels)"
	bz=$(vm_kernel "$k") && [[ -f $bz ]] || vm_status "$EXIT_ERROR"
	ci/vm/vm-error-tests.sh --kernel "$bz" --out "$ROOT/$OUTPUT/vm-selftest/errors"
	vm_status $?
fi

[[ -n $VM_KSRC ]] || usage_error "VM_KSRC= names the kernel tree whose kselftest framework is used"
GUEST_TREE=/var/tmp/fsaio-ksft
# In the guest: the scratch tree, then the kselftest make command with its
# stdout (the TAP) through a pipe: the runner appends each test's output to
# /dev/stdout, which on a plain file (the out share) would be overwritten by
# the runner's own writes.
cmd="set -e; make --no-print-directory selftest-tree KSRC=$VM_KSRC KSFT_TREE=$GUEST_TREE >&2;"
cmd+=" export FSAIO_SELFTEST_JSON=@OUT@/fsaio.json"
[[ -z $VMSELFTEST_ARGS ]] || cmd+=" KSELFTEST_FSAIO_CHECK_SH_ARGS=\"$VMSELFTEST_ARGS\""
cmd+="; { make --no-print-directory -C $GUEST_TREE/tools/testing/selftests TARGETS=fsaio run_tests;"
cmd+=" echo \$? >/tmp/ksft.rc; } | cat; exit \$(cat /tmp/ksft.rc)"

worst=$EXIT_PASS summary=
for k in $(vm_kernels); do
	label=$(vm_label "$k")
	bz=$(vm_kernel "$k") && [[ -f $bz ]] || {
		worst=$(worse "$worst" "$EXIT_ERROR")
		summary+="\n  $label: ERROR (no kernel: not built or build failed)"
		continue
	}
	out=$ROOT/$OUTPUT/vm-selftest/$label
	msg "$label: $bz -> $out"
	rm -f "$out"/nested* "$out"/kunit-* "$out/ktap-check.txt" "$out"/verdict* "$out/fsaio.json"
	"$VM_RUN" --kernel "$bz" --label "$label" --out "$out" --timeout "$VMTIMEOUT" \
		--disks none "${DEBUG_OPTS[@]}" "${opts[@]}" -- "$cmd" >/dev/null
	vrc=$?
	ln -sfn stdout "$out/ktap.txt"
	ci/selftests/ktap-check.sh --kunit "$VM_KSRC/tools/testing/kunit/kunit.py" --out "$out" "$out/stdout"
	krc=$?
	[[ -s $out/stdout ]] && grep -E '^(TAP version|1\.\.|(not )?ok )' "$out/stdout" | sed 's/^/  /' >&2
	r=$(cat "$out/result" 2>/dev/null || echo 'ERROR (no result)')
	v=$(worse "$vrc" "$krc")
	worst=$(worse "$worst" "$v")
	echo "$(vm_word "$v") vm: $r; ktap-check: exit $krc (ktap-check.txt)" >"$out/verdict"
	summary+="\n  $label: $(cat "$out/verdict")"
done
printf "vmselftest summary:$summary\n" >&2
vm_status "$worst"
