#!/bin/sh
# Guest init (PID 1) for run-vm.sh: mounts, runs aiotest, dumps the fsaio trace.
# FSAIO_BT (from the kernel command line) is the host directory with the aiotest binary.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null

mount -t tmpfs tmpfs /mnt
mkdir -p /mnt/d /mnt/proc
mount -t proc proc /mnt/proc
export PROCDIR=/mnt/proc
cat /mnt/proc/sys/fs/aio-buffered-async
mount -t tracefs tracefs /sys/kernel/tracing
echo "=== kernel $(uname -r)"
mount -t ext4 /dev/vda /mnt/d || echo "MOUNT FAILED"
T=/sys/kernel/tracing
echo 8192 > $T/buffer_size_kb
ls $T/events/fsaio/
echo 1 > $T/events/fsaio/enable
$FSAIO_BT/aiotest /mnt/d/fsaio-test.dat
echo "=== aiotest exit $?"
echo 0 > /sys/block/vda/queue/read_ahead_kb
$FSAIO_BT/aiotest /mnt/d/fsaio-test.dat ra0
echo "=== aiotest ra0 exit $?"
echo 0 > $T/events/fsaio/enable
cat $T/trace > /mnt/trace.txt
echo "=== events:"; grep -o 'fsaio_[a-z_]*:' /mnt/trace.txt | sort | uniq -c
echo "=== resume same_mm=0 (mm alive):"; grep fsaio_resume /mnt/trace.txt | grep -v 'mm=0000000000000000' | grep -c 'same_mm=0'
echo "=== punts:"; grep fsaio_punt /mnt/trace.txt | head -5
echo "=== wake deferred:"; grep -c 'deferred=1' /mnt/trace.txt
echo "=== sample:"; grep -m1 -B2 -A8 fsaio_retry /mnt/trace.txt
echo "=== TRACE BEGIN"; grep fsaio_ /mnt/trace.txt; echo "=== TRACE END"
echo "=== lost: $(grep -c LOST /mnt/trace.txt)"
dmesg | grep -iE "warning|bug|oops|kasan|lockdep|circular|hung|rcu.*stall" | head -20
echo "=== dmesg scan done"
umount /mnt/d
echo "=== END"
echo o > /mnt/proc/sysrq-trigger
sleep 5
