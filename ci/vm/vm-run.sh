#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a kernel in QEMU with the host's root filesystem shared read-only and
# run one command inside; bring its output, exit code and dmesg back.
#
#   ci/vm/vm-run.sh --kernel BZIMAGE [options] -- CMD [ARGS...]
#
#   --kernel FILE     bzImage to boot (required)
#   --initrd FILE     initramfs for a kernel whose virtio/9p are modules
#                     (ci/kernel/debian-kernel.sh); it mounts the shared root
#   --label NAME      result label (default: the kernel's release string)
#   --out DIR         results directory (default: <repo>/.output/vm/<label>)
#   --timeout SEC     QEMU wall-clock limit (default 900); expiry is an ERROR
#   --mem SIZE        guest memory (default 2G; make vmcheck FLAVOR=debug gives 3G)
#   --cpus N          vCPUs (default 2)
#   --accel MODE      auto | tcg | kvm (default $FSAIO_VM_ACCEL or auto: use KVM
#                     only if a cached probe boot showed it works; else TCG -cpu max)
#   --disks LIST      scratch disks, comma-separated filesystems: ext4, xfs, f2fs,
#                     btrfs or raw (unformatted); default ext4,xfs; "none" for no
#                     disks; raw sparse files, formatted on the host
#   --disk-size SIZE  size of each scratch disk (default 2G)
#   --slow MS         put each scratch disk behind dm-delay with MS ms per I/O
#   --no-mount        leave scratch disks unmounted (only FSAIO_SCRATCH_DEV_* set)
#   --icount          deterministic TCG: -icount shift=0,sleep=off (1 ns/insn)
#   --append ARGS     extra kernel command line (repeatable: the ARGS add up)
#   --interactive     console on this terminal, CMD default "bash -i" (vmshell)
#   --no-splat-check  do not fail a passing command on a dmesg splat
#   -v, --verbose     follow the serial console on stderr
#   --print-release   print the kernel's release string (from the bzImage) and exit
#
# Inside the guest the command runs in the current directory (read-only) with
# FSAIO_OUT=/tmp/fsaio-out (the read-write share of --out), FSAIO_SCRATCH_<FS>
# (EXT4, XFS, F2FS, BTRFS: one per --disks entry), FSAIO_SCRATCH_DEV_* and
# FSAIO_VM=1; a literal @OUT@ in CMD
# is replaced by $FSAIO_OUT.  Results in --out: stdout, stderr, exit-code,
# dmesg, console.log, splats, result ("PASS|FAIL|SKIP|ERROR rc=N reason").
# Exit status (harness/exit_status.h): the guest command's, which the result
# names PASS (0), SKIP (4), ERROR (5, or 64: no verdict) or else FAIL; FAIL
# (1) if it passed but dmesg has a splat; ERROR (5) when no exit code came
# back (panic, hang, timeout, QEMU killed) or the run could not be set up;
# 64 for a bad command line.
set -uo pipefail
# The whole script is one compound command, parsed before it runs, so editing
# this file cannot break a copy that is already running.
{

. "$(dirname "$0")/../lib.sh"
VMDIR=$ROOT/ci/vm
KERNEL= INITRD= LABEL= OUT= TIMEOUT=900 MEM= CPUS=2 ACCEL=${FSAIO_VM_ACCEL:-auto}
DISKS=ext4,xfs DISK_SIZE=2G SLOW=0 MOUNT=1 ICOUNT=0 APPEND= INTERACTIVE=0
SPLATCHECK=1 VERBOSE=0 PRINT_RELEASE=0
QEMU=${QEMU:-qemu-system-x86_64}

while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) KERNEL=$2; shift 2 ;;
	--initrd) INITRD=$2; shift 2 ;;
	--label) LABEL=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--mem) MEM=$2; shift 2 ;;
	--cpus) CPUS=$2; shift 2 ;;
	--accel) ACCEL=$2; shift 2 ;;
	--disks) DISKS=$2; shift 2 ;;
	--disk-size) DISK_SIZE=$2; shift 2 ;;
	--slow) SLOW=$2; shift 2 ;;
	--no-mount) MOUNT=0; shift ;;
	--icount) ICOUNT=1; shift ;;
	--append) APPEND="${APPEND:+$APPEND }$2"; shift 2 ;;
	--interactive) INTERACTIVE=1; shift ;;
	--no-splat-check) SPLATCHECK=0; shift ;;
	-v|--verbose) VERBOSE=1; shift ;;
	--print-release) PRINT_RELEASE=1; shift ;;
	-h|--help) usage "$EXIT_PASS" ;;
	--) shift; break ;;
	*) usage_error "unknown argument: $1" ;;
	esac
done
CMD=("$@")
[[ -n $KERNEL ]] || usage_error "--kernel is required"
[[ -z $INITRD || -f $INITRD ]] || usage_error "--initrd $INITRD: no such file"
[[ -f $KERNEL ]] || usage_error "no such kernel: $KERNEL"
KERNEL=$(realpath "$KERNEL")
[[ $SLOW =~ ^[0-9]+$ ]] || usage_error "--slow takes milliseconds"
command -v "$QEMU" >/dev/null || die "$QEMU not found (ci/install-deps.sh --vm)"

# Kernel release string from the bzImage setup header (offset 0x20e).
kernel_release() {
	local off
	off=$(od -An -tu2 -j $((0x20e)) -N2 "$1" 2>/dev/null | tr -d ' ')
	[[ -n $off && $off -gt 0 ]] || return 1
	dd if="$1" bs=1 skip=$((off + 0x200)) count=128 2>/dev/null | tr '\0' '\n' | head -1 | cut -d' ' -f1
}
RELEASE=$(kernel_release "$KERNEL") || RELEASE=unknown
if ((PRINT_RELEASE)); then echo "$RELEASE"; exit "$EXIT_PASS"; fi
if [[ ${#CMD[@]} -eq 0 ]]; then
	((INTERACTIVE)) && CMD=(bash -i) || usage_error "no command given (-- CMD...)"
fi
[[ -n $LABEL ]] || LABEL=$RELEASE
[[ -n $OUT ]] || OUT=$ROOT/.output/vm/$LABEL
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(realpath "$OUT")
[[ -n $MEM ]] || MEM=2G

# ---- temp area and cleanup ------------------------------------------------------
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fsaio-vm.XXXXXX") || die "mktemp failed"
QPID= TAILPID=
cleanup() {
	local pid
	if [[ -s $TMP/qemu.pid ]]; then
		pid=$(cat "$TMP/qemu.pid")
		if kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid" 2>/dev/null
			for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
			kill -KILL "$pid" 2>/dev/null
		fi
	fi
	[[ -n $QPID ]] && kill -KILL "$QPID" 2>/dev/null
	[[ -n $TAILPID ]] && kill "$TAILPID" 2>/dev/null
	rm -rf "$TMP" "$OUT/.vm"
}
on_signal() {
	INTERRUPTED=1
	msg "interrupted: stopping QEMU"
	[[ -z $QPID ]] && exit "$EXIT_ERROR"
	[[ -s $TMP/qemu.pid ]] && kill -TERM "$(cat "$TMP/qemu.pid")" 2>/dev/null
	kill -TERM "$QPID" 2>/dev/null
}
INTERRUPTED=0
trap cleanup EXIT
trap on_signal INT TERM HUP

rm -f "$OUT"/{stdout,stderr,exit-code,exit-code.tmp,dmesg,console.log,splats,result}
rm -rf "$OUT/.vm"
mkdir -p "$OUT/.vm"

# ---- accelerator ------------------------------------------------------------------
KVM_PROBE_CACHE=${FSAIO_KVM_PROBE:-/var/cache/fsaio/kvm-probe-$(uname -r)}
if [[ $ACCEL == auto ]]; then
	ACCEL=tcg
	if [[ -w /dev/kvm ]]; then
		if [[ ! -f $KVM_PROBE_CACHE ]] && [[ -z ${FSAIO_NO_KVM_PROBE:-} ]]; then
			msg "probing KVM once (boot with -enable-kvm, 45 s limit; cached in $KVM_PROBE_CACHE)"
			if "$0" --kernel "$KERNEL" --accel kvm --timeout 45 --disks none \
				--no-splat-check --out "$TMP/kvm-probe" -- true >/dev/null 2>&1; then
				echo kvm >"$KVM_PROBE_CACHE"
			else
				echo tcg >"$KVM_PROBE_CACHE"
			fi 2>/dev/null
		fi
		[[ $(cat "$KVM_PROBE_CACHE" 2>/dev/null) == kvm ]] && ACCEL=kvm
	fi
fi
case $ACCEL in
kvm) ACCEL_ARGS=(-accel kvm -cpu host) ;;
tcg) if ((ICOUNT)); then
	     ACCEL_ARGS=(-accel tcg -cpu max -icount shift=0,sleep=off)
     else
	     ACCEL_ARGS=(-accel tcg,thread=multi -cpu max)
     fi ;;
*) usage_error "unknown --accel $ACCEL (auto, tcg, kvm)" ;;
esac

# ---- scratch disks ------------------------------------------------------------------
DISK_ARGS=() GUEST_DISKS=()
if [[ $DISKS != none && -n $DISKS ]]; then
	IFS=, read -ra fss <<<"$DISKS"
	for fs in "${fss[@]}"; do
		img=$TMP/$fs.img
		truncate -s "$DISK_SIZE" "$img" || die "cannot create the $fs disk image"
		case $fs in
		ext4) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 -L fsaio-ext4 "$img" ;;
		xfs) mkfs.xfs -q -f -L fsaio-xfs "$img" ;;
		f2fs) mkfs.f2fs -q -f -l fsaio-f2fs "$img" ;;
		btrfs) mkfs.btrfs -q -f -L fsaio-btrfs "$img" ;;
		raw) true ;;
		*) usage_error "unknown scratch filesystem $fs (ext4, xfs, f2fs, btrfs, raw)" ;;
		esac >/dev/null || die "mkfs.$fs failed"
		# The guest finds each disk by its serial (fsaio-<fs>), not by name.
		DISK_ARGS+=(-drive "file=$img,if=none,id=d$fs,format=raw,cache=none,aio=threads,discard=unmap"
			    -device "virtio-blk-pci,drive=d$fs,serial=fsaio-$fs")
		GUEST_DISKS+=("$fs")
	done
fi

# ---- run description for the guest ----------------------------------------------------
# POSIX single quoting (the guest shell is dash).
gq() { local a=${1//\'/\'\\\'\'}; printf "'%s'" "$a"; }
{
	echo "FSAIO_CWD=$(gq "$PWD")"
	echo "FSAIO_DISKS='${GUEST_DISKS[*]}'"
	echo "FSAIO_SLOW_MS=$SLOW"
	echo "FSAIO_MOUNT_SCRATCH=$MOUNT"
	echo "FSAIO_INTERACTIVE=$INTERACTIVE"
	echo "FSAIO_LABEL=$(gq "$LABEL")"
	echo "export FSAIO_VM=1 FSAIO_LABEL FSAIO_SLOW_MS"
} >"$OUT/.vm/env"
# One argument is a shell script ("uname -r; ls"); several are an argv.
{
	printf '#!/bin/sh\n'
	if [[ ${#CMD[@]} -eq 1 ]]; then
		printf '%s\n' "${CMD[0]//@OUT@//tmp/fsaio-out}"
	else
		for a in "${CMD[@]}"; do gq "${a//@OUT@//tmp/fsaio-out}"; printf ' '; done
		echo
	fi
} >"$OUT/.vm/cmd"
printf '%s\n' "${CMD[*]//@OUT@//tmp/fsaio-out}" >"$OUT/.vm/cmd.txt"

APPEND_ALL="console=ttyS0,115200 earlyprintk=serial,ttyS0,115200 root=hostroot rootfstype=9p"
APPEND_ALL+=" rootflags=trans=virtio,version=9p2000.L,cache=loose,msize=524288 ro"
APPEND_ALL+=" init=$VMDIR/guest-init.sh panic=-1 loglevel=6 net.ifnames=0"
# Fail fast: a WARN, a soft lockup, a hung task or an RCU stall panics the
# guest at once (panic=-1 and -no-reboot end QEMU), instead of a wedged
# guest running into the timeout; the verdict below names the splat.
# (Detectors a config lacks ignore their parameter.)
APPEND_ALL+=" panic_on_warn=1 softlockup_panic=1 hung_task_panic=1"
APPEND_ALL+=" sysctl.kernel.panic_on_rcu_stall=1"
# SLUB debugging on every cache: a freed object is poisoned (a use after free
# reads 0x6b, not the old data), red zones catch overruns, a double free
# splats; and debug caches keep no per-CPU slabs, so /proc/slabinfo counts
# are exact for the resources check.
APPEND_ALL+=" slub_debug=FZP $APPEND"

QARGS=(-nodefaults -no-user-config -display none -no-reboot
	"${ACCEL_ARGS[@]}" -smp "$CPUS" -m "$MEM"
	-kernel "$KERNEL" ${INITRD:+-initrd "$INITRD"} -append "$APPEND_ALL"
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
	-fsdev "local,id=fsaioout,path=$OUT,security_model=none"
	-device virtio-9p-pci,fsdev=fsaioout,mount_tag=fsaioout
	"${DISK_ARGS[@]}"
	-pidfile "$TMP/qemu.pid")
if ((INTERACTIVE)); then
	QARGS+=(-serial mon:stdio)
else
	QARGS+=(-chardev "file,id=con,path=$OUT/console.log" -serial chardev:con)
fi

{
	echo "kernel=$KERNEL"
	echo "release=$RELEASE"
	echo "accel=$ACCEL"
	echo "command=${CMD[*]}"
	printf 'qemu=%s' "$QEMU"; printf ' %q' "${QARGS[@]}"; echo
} >"$OUT/vm-run.info"

desc="$ACCEL, $CPUS vCPU, $MEM"
[[ ${#GUEST_DISKS[@]} -gt 0 ]] && desc+=", disks ${GUEST_DISKS[*]}"
((SLOW)) && desc+=", dm-delay ${SLOW}ms"
msg "booting $RELEASE ($desc) -> $OUT"
start=$(now)
if ((INTERACTIVE)); then
	timeout --foreground -k 10 "$TIMEOUT" "$QEMU" "${QARGS[@]}"
	qrc=$?
else
	timeout -k 10 "$TIMEOUT" "$QEMU" "${QARGS[@]}" </dev/null >"$TMP/qemu.out" 2>&1 &
	QPID=$!
	if ((VERBOSE)); then
		tail -n +1 -F "$OUT/console.log" 2>/dev/null >&2 &
		TAILPID=$!
	fi
	{ wait $QPID; } 2>/dev/null
	qrc=$?
	# A signal interrupts wait; let QEMU finish dying, then take its status.
	while kill -0 $QPID 2>/dev/null; do { wait $QPID; } 2>/dev/null; qrc=$?; done
	QPID=
fi
elapsed=$(since "$start" 1)
[[ -n $TAILPID ]] && { sleep 0.3; kill "$TAILPID" 2>/dev/null; TAILPID=; }

# ---- verdict ------------------------------------------------------------------------------
result=ERROR rc=$EXIT_ERROR reason=
if [[ -s $OUT/exit-code ]]; then
	rc=$(cat "$OUT/exit-code")
	case $rc in
	"$EXIT_PASS") result=PASS reason="command passed" ;;
	"$EXIT_SKIP") result=SKIP reason="command skipped (exit $rc)" ;;
	"$EXIT_ERROR") result=ERROR reason="command exited $rc: error, no verdict" ;;
	"$EXIT_USAGE") result=ERROR reason="command exited $rc: usage error" ;;
	*) result=FAIL reason="command exited $rc" ;;
	esac
else
	panic=$(grep -m1 -E 'Kernel panic|BUG: |Oops|general protection fault' "$OUT/console.log" 2>/dev/null | sed 's/^\[[^]]*\] //')
	# a splat the command line made fatal: the kernel misbehaved (FAIL)
	fatal=$(grep -m1 -E 'WARNING:|soft lockup|blocked for more than|self-detected stall|detected stalls on CPUs|rcu: INFO: .* detected stall' \
		"$OUT/console.log" 2>/dev/null | sed 's/^\[[^]]*\] //')
	if ((INTERRUPTED)); then reason="interrupted"
	elif [[ -n $fatal && -n $panic ]]; then
		result=FAIL rc=$EXIT_FAIL reason="kernel splat ended the run: $fatal"
	elif [[ $qrc == 124 || $qrc == 137 && $(awk "BEGIN{print ($elapsed >= $TIMEOUT)}") == 1 ]]; then
		reason="timeout: no result after ${TIMEOUT}s${panic:+ (console: $panic)}"
	elif [[ -n $panic ]]; then reason="guest kernel died: $panic"
	elif [[ $qrc -gt 128 ]]; then reason="QEMU killed by signal $((qrc - 128))"
	elif [[ $qrc != 0 ]]; then reason="QEMU failed (rc $qrc): $(tail -1 "$TMP/qemu.out" 2>/dev/null)"
	else reason="guest stopped without an exit code (init failed? see console.log)"
	fi
fi

# Splats: in the guest's dmesg after the start marker, else the console.
scanfile=$OUT/dmesg
[[ -s $scanfile ]] || scanfile=$OUT/console.log
if [[ -s $scanfile ]] && ! "$VMDIR/splat-scan.sh" --after 'fsaio-vm: command start' "$scanfile" >"$OUT/splats" 2>&1; then
	nsplat=$(grep -cE "^[0-9]+:" "$OUT/splats")
	msg "kernel splats in $(basename "$scanfile") ($nsplat lines, see $OUT/splats):"
	head -5 "$OUT/splats" | sed 's/^/    /' >&2
	if ((SPLATCHECK)) && [[ $result == PASS ]]; then
		result=FAIL rc=$EXIT_FAIL
		reason="command passed but the kernel logged a splat: $(head -1 "$OUT/splats" | sed 's/^[0-9]*: *//; s/^\[[^]]*\] //')"
	fi
fi
echo "$result rc=$rc $reason" >"$OUT/result"

if ((!INTERACTIVE)); then
	[[ -f $OUT/stdout ]] && cat "$OUT/stdout"
	[[ -s $OUT/stderr ]] && cat "$OUT/stderr" >&2
fi
if [[ $result == ERROR ]]; then
	msg "ERROR: $reason"
	tail -15 "$OUT/console.log" 2>/dev/null | sed 's/^/    console: /' >&2
fi
msg "$result ($reason) after ${elapsed}s; results in $OUT"
exit "$rc"
exit
}
