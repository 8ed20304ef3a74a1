#!/bin/bash
# Boot test of the FSAIO series: boot BZIMAGE under QEMU (TCG) with the host
# root read-only over 9p and a fresh ext4 scratch disk, run aiotest (cold
# libaio reads, O_SYNC writes, exit/destroy/truncate with I/O in flight),
# then check the fsaio trace.
#   run-vm.sh BZIMAGE [LOG]        (as root; needs libaio-dev, qemu-system-x86)
# FSAIO_KARGS adds kernel arguments (e.g. nosoftlockup for a debug kernel
# on a loaded host, where TCG vCPU starvation trips the soft-lockup panic).
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
BZ=$1; LOG=${2:-/tmp/fsaio-boot-test/vm.log}
D=${FSAIO_BT:-/tmp/fsaio-boot-test}
mkdir -p "$D"
gcc -O2 -Wall -include stdarg.h -o "$D/aiotest" "$HERE/aiotest.c" -laio -static
rm -f "$D/disk.img"; truncate -s 256M "$D/disk.img"; mkfs.ext4 -q -F "$D/disk.img"
timeout 900 qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 1024 -nographic -no-reboot \
  -kernel "$BZ" \
  -append "console=ttyS0 root=hostroot rootfstype=9p rootflags=trans=virtio,version=9p2000.L,cache=loose ro init=$HERE/init.sh panic=-1 FSAIO_BT=$D ${FSAIO_KARGS:-}" \
  -fsdev local,id=r,path=/,security_model=none,readonly=on -device virtio-9p-pci,fsdev=r,mount_tag=hostroot \
  -drive file="$D/disk.img",if=virtio,format=raw,cache=none \
  >"$LOG" 2>&1 || true
grep -E '^(ok|not ok)|failures|exit' "$LOG" || true
python3 "$HERE/check.py" "$LOG"
grep -q '^# 0 failures' "$LOG" && grep -q 'ERRORS: none' <(python3 "$HERE/check.py" "$LOG") &&
	! grep -qE 'WARNING:|BUG:|Oops|possible circular locking|possible recursive locking|INFO: task .* blocked|Kernel panic - not syncing: (softlockup|hung_task)' "$LOG"
