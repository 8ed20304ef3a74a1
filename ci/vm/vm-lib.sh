#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the ci/vm/vm.mk targets' scripts share (vmcheck.sh, vmselftest.sh,
# with-status.sh); source it after ci/lib.sh.
#
#   vm_vars VAR=value...  take make's variables from the command line: only
#                         the names below, anything else is a usage error
#   vm_kernels            the kernels KERNEL and KBUILD name, one per word:
#                         KBUILD=dir -> its bzImage; KERNEL=both -> stock patched
#   vm_kernel K           print K's bzImage (building it unless NOBUILD) for
#                         stock|patched|stock-V|debian|PATH; for debian
#                         "VMLINUZ INITRD" (Debian's packaged kernel keeps
#                         virtio and 9p in modules); status 1 when there is none
#   vm_label K            the results label of kernel K (K plus -FLAVOR; for a
#                         path VMLABEL or the kernel's release string)
#   vm_status N           write N to VMSTATUS (when set) and exit with N: make
#                         turns any failing recipe into 2, ci/vm/vm-make.sh
#                         reads the real verdict from VMSTATUS
#   vm_word RC            PASS, FAIL, SKIP or ERROR
VM_VARS=(KERNEL FLAVOR KDIR KBUILD NOBUILD VMCMD VMDISKS VMSLOW VMTIMEOUT VMOPTS
	 VMLABEL VMRESULTS VMSTATUS VM_KSRC VMSELFTEST_ARGS OUTPUT)
for _v in "${VM_VARS[@]}"; do declare "$_v="; done
unset _v
BUILD_KERNEL=$ROOT/ci/kernel/build-kernel.sh
VM_RUN=$ROOT/ci/vm/vm-run.sh

vm_vars() {
	local a name
	for a; do
		name=${a%%=*}
		[[ $a == *=* && " ${VM_VARS[*]} " == *" $name "* ]] ||
			usage_error "unknown argument '$a' (known: ${VM_VARS[*]}, as NAME=value)"
		declare -g "$name=${a#*=}"
	done
	: "${KERNEL:=stock}" "${VMRESULTS:=vm}" "${OUTPUT:=.output}" "${VMTIMEOUT:=1800}"
	: "${VMSLOW:=0}" "${VMDISKS:=ext4,xfs,f2fs,btrfs}"
	BK_ARGS=(${KDIR:+--kdir "$KDIR"} ${FLAVOR:+--flavor "$FLAVOR"})
	# KASAN's shadow memory and lockdep want more room; under TCG a KASAN +
	# lockdep kernel is so slow that ACPI's AML interpreter times out on
	# every PCI routing method (30 s each, measured) and RCU's 21 s stall
	# timeout fires during boot: acpi=off (PCI interrupts route through the
	# MP table), the longest stall timeout, nowatchdog (under TCG the
	# soft-lockup detector measures host CPU starvation; hung-task panic
	# stays armed).  kmemleak and SLUB debugging are left off: KASAN finds
	# what they find here, and each multiplies the slowdown.  Three vCPUs on
	# two cores: a vCPU descheduled mid-critical-section widens race windows.
	DEBUG_OPTS=()
	[[ $FLAVOR != debug ]] || DEBUG_OPTS=(--mem 3G --cpus 3 --append
		'nowatchdog acpi=off rcupdate.rcu_cpu_stall_timeout=300 kmemleak=off slub_debug=-')
	# The series is there when its file lists a patch.
	HAVE_SERIES=
	grep -qv '^[[:space:]]*\(#.*\)\?$' "$ROOT/patches/linux-6.12/series" 2>/dev/null && HAVE_SERIES=1
}

vm_kernels() {
	if [[ -n $KBUILD ]]; then echo "$KBUILD/arch/x86/boot/bzImage"
	elif [[ $KERNEL == both ]]; then echo stock patched
	else echo "$KERNEL"
	fi
}

vm_kernel() {
	local p=
	case $1 in
	debian)
		"$ROOT/ci/kernel/debian-kernel.sh" ${NOBUILD:+--print} | tail -1 ||
			{ msg "no cached Debian kernel (run without NOBUILD)"; return 1; } ;;
	stock-*)
		local v=${1#stock-}
		if [[ -n $NOBUILD ]]; then
			"$BUILD_KERNEL" --kver "$v" "${BK_ARGS[@]}" --path ||
				{ msg "no cached $1 kernel (run make kernels KVER=$v)"; return 1; }
		else
			"$ROOT/ci/install-deps.sh" --check --kver "$v" >&2 &&
				"$BUILD_KERNEL" --kver "$v" "${BK_ARGS[@]}"
		fi ;;
	stock|patched)
		[[ $1 == patched ]] && p=--patched
		if [[ -n $NOBUILD ]]; then
			"$BUILD_KERNEL" $p "${BK_ARGS[@]}" --path ||
				{ msg "no cached $1 kernel (run make kernels)"; return 1; }
		else
			"$BUILD_KERNEL" $p "${BK_ARGS[@]}"
		fi ;;
	*) [[ -f $1 ]] || { msg "no such kernel $1"; return 1; }; echo "$1" ;;
	esac
}

vm_label() {
	case $1 in
	stock|patched|stock-*|debian) echo "$1${FLAVOR:+-$FLAVOR}" ;;
	*) echo "${VMLABEL:-$("$VM_RUN" --print-release --kernel "$1")}${FLAVOR:+-$FLAVOR}" ;;
	esac
}

vm_status() {
	[[ -z $VMSTATUS ]] || echo "$1" >"$VMSTATUS"
	exit "$1"
}

vm_word() {
	case $(exit_class "$1") in
	"$EXIT_PASS") echo PASS ;;
	"$EXIT_SKIP") echo SKIP ;;
	"$EXIT_ERROR") echo ERROR ;;
	*) echo FAIL ;;
	esac
}
