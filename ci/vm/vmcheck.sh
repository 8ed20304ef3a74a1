#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make vmcheck: boot each kernel under QEMU (ci/vm/vm-run.sh) and run VMCMD
# inside; results in $OUTPUT/$VMRESULTS/<label>/ (stdout = KTAP, fsaio.json,
# dmesg, console.log, splats, result).  ci/vm/vm.mk passes make's variables:
#
#   ci/vm/vmcheck.sh KERNEL=stock|patched|both|stock-V|debian|PATH [FLAVOR=debug]
#                    [KBUILD=dir] [VMCMD='...'] [VMDISKS=fs,...] [VMSLOW=ms]
#                    [VMTIMEOUT=s] [VMOPTS='...'] [VMLABEL=l] [VMRESULTS=vm]
#                    [NOBUILD=1] [VMSTATUS=file]
#   ci/vm/vmcheck.sh --print-kernel KERNEL=... (make vmshell: the first
#                    kernel's bzImage, built unless NOBUILD=1)
#
# VMCMD's @OUT@ is the guest's view of the results directory.  Exit status:
# the worse of the kernels' verdicts (ci/lib.sh worse), also written to
# VMSTATUS; a kernel that cannot be built or lacks required options is an
# ERROR for that kernel, and the others still run.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. "$ROOT/ci/vm/vm-lib.sh"
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
PRINT=0
[[ ${1:-} == --print-kernel ]] && { PRINT=1; shift; }
vm_vars "$@"
if ((PRINT)); then	# make vmshell: the first kernel's bzImage
	read -r k _ <<<"$(vm_kernels)"
	kk=$(vm_kernel "$k") || exit "$EXIT_ERROR"
	echo "${kk%% *}"
	exit "$EXIT_PASS"
fi
cd "$ROOT" || die "cannot cd to $ROOT"
: "${VMCMD:=ci/vm/guest-suite.sh @OUT@/fsaio.json}"
eval "opts=($VMOPTS)" || usage_error "VMOPTS is not a list of words: $VMOPTS"

worst=$EXIT_PASS summary=
for k in $(vm_kernels); do
	case $k in
	stock|patched|stock-*|debian)
		label=$(vm_label "$k")
		if [[ $k == patched && -z $HAVE_SERIES ]]; then
			msg "patches/linux-6.12/series lists no patches"
			worst=$(worse "$worst" "$EXIT_ERROR")
			summary+="\n  $label: ERROR (no patch series)"
			continue
		fi ;;
	*)
		label=
		"$BUILD_KERNEL" --check-kernel "$k" ${KBUILD:+--kbuild "$KBUILD"} || {
			worst=$(worse "$worst" "$EXIT_ERROR")
			summary+="\n  $k: ERROR (kernel lacks required options)"
			continue
		} ;;
	esac
	kk=$(vm_kernel "$k") bz=${kk%% *} ird=
	[[ $bz == "$kk" ]] || ird=${kk#* }
	[[ -n $kk && -f $bz ]] || {
		worst=$(worse "$worst" "$EXIT_ERROR")
		summary+="\n  $k: ERROR (no kernel: not built or build failed)"
		continue
	}
	[[ -n $label ]] || label=$(vm_label "$bz")
	out=$ROOT/$OUTPUT/$VMRESULTS/$label
	msg "$label: $bz -> $out"
	"$VM_RUN" --kernel "$bz" ${ird:+--initrd "$ird"} --label "$label" --out "$out" \
		--disks "$VMDISKS" --timeout "$VMTIMEOUT" --slow "$VMSLOW" \
		"${DEBUG_OPTS[@]}" "${opts[@]}" -- "$VMCMD"
	worst=$(worse "$worst" $?)
	ln -sfn stdout "$out/results.ktap"
	summary+="\n  $label: $(cat "$out/result" 2>/dev/null || echo 'ERROR (no result)')"
done
printf "vmcheck summary:$summary\n" >&2
vm_status "$worst"
