#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of ci/bench/bench-vm.sh part "syncpath": instructions per synchronous
# operation, in a guest booted with `ci/vm/vm-run.sh --icount --cpus 1`.
#
#   ci/bench/syncpath-guest.sh OUTFILE SYNCPATH-BINARY N_CACHED N_64K N_COLD PASSES
#
# Appends one JSON line per measurement to OUTFILE (see ci/bench/syncpath.c),
# tagged with the configuration: "stock" when the kernel has no
# fs.aio-buffered-async sysctl, else "async0" (0) and "async1" (2: every
# request asynchronous, as syncpath.c does not set IOCB_FLAG_BUFFERED_ASYNC).  Every
# configuration runs PASSES times, interleaved (pass 1: all configurations,
# pass 2: all again), so a repeat is separated by other work, as a second run
# would be.
set -u
. "$(dirname "$0")/../lib.sh"
out=$1 bin=$2 n=$3 n64=$4 ncold=$5 passes=$6
sysctl=/proc/sys/fs/aio-buffered-async

# The filesystem: ext4 on dm-delay (50 ms) on a loop device over a file in
# a private tmpfs, so that a cold read's I/O never leaves the guest: under
# -icount,sleep=off a guest waiting for the host's disk lets virtual time
# jump to its next timer, an arbitrary amount, while a device in guest RAM
# is instructions like the rest.  The delay makes every cold read sleep and
# be woken by the completion, as on a real disk; without it the loop worker
# sometimes completes the read before the reader waits (a cheaper path,
# taken or not depending on scheduler state), and the per-read cost
# wanders by a few percent between runs.  50 ms keeps dm-delay on timers
# (below 50 it busy-polls); the waits are idle virtual time, skipped.
delay=50
store=/run/fsaio-syncpath-store dir=/run/fsaio-syncpath
mkdir -p $store $dir && mount -t tmpfs -o size=160m tmpfs $store || exit "$EXIT_ERROR"
truncate -s 128M $store/disk.img || exit "$EXIT_ERROR"
loopdev=$(losetup -f --show $store/disk.img) || die "losetup failed"
dmsetup create fsaio-syncpath --table "0 $(blockdev --getsz "$loopdev") delay $loopdev 0 $delay" ||
	die "dmsetup create (dm-delay) failed"
dmsetup mknodes fsaio-syncpath 2>/dev/null
dev=/dev/mapper/fsaio-syncpath
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev" || exit "$EXIT_ERROR"
mount -t ext4 "$dev" $dir || exit "$EXIT_ERROR"

# No periodic writeback while measuring: the buffered-write loop re-dirties
# one page, and flusher I/O would interleave device interrupts with it.
echo 0 >/proc/sys/vm/dirty_writeback_centisecs
if [ -e $sysctl ]; then cfgs="async0 async1"; else cfgs=stock; fi
echo "release=$(uname -r) cpus=$(nproc) clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) configs=$cfgs fs=ext4 on dm-delay ${delay}ms on $loopdev (tmpfs)" >&2
for pass in $(seq "$passes"); do
	for cfg in $cfgs; do
		case $cfg in async0) echo 0 >$sysctl ;; async1) echo 2 >$sysctl ;; esac
		sync
		"$bin" -d "$dir" -c 0 -r 1 -n "$n" -t "$cfg.p$pass" pread4k write4k >>"$out" || exit "$EXIT_ERROR"
		"$bin" -d "$dir" -c 0 -r 1 -n "$n64" -t "$cfg.p$pass" pread64k >>"$out" || exit "$EXIT_ERROR"
		"$bin" -d "$dir" -c 0 -r 1 -n "$ncold" -w 200 -t "$cfg.p$pass" cold4k >>"$out" || exit "$EXIT_ERROR"
	done
done
[ -e $sysctl ] && echo 2 >$sysctl
rm -f "$dir"/{pread4k,pread64k,cold4k,write4k}
umount $dir && dmsetup remove fsaio-syncpath && losetup -d "$loopdev"
exit "$EXIT_PASS"
