#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the LAVA guest (ci/lava/lava-check.sh, make lava-check), started
# with init=<repo>/ci/lava/lava-init.sh on a guest whose root is the host's /
# over virtio-9p, read-only (the QEMU options of ci/lava/device-qemu-9p.yaml.in).
#
# It does what ci/vm/guest-init.sh does before a command (proc, sys, dev,
# /dev/fd links, tmpfs on /tmp /run /var/tmp /dev/shm, tracefs, debugfs,
# cgroup2, bpffs, lo, the host's checkout bound back when it lives under
# /tmp), keeps the kernel log off the console (a kernel message in the middle
# of a LAVA signal line would lose that result), then gives LAVA a root shell
# on the serial console with the prompt "fsaio-lava# " in /tmp, where LAVA
# fetches and unpacks its test overlay (the device's lava_test_results_dir
# is /tmp/lava-%s: / is read-only).  LAVA ends the run by killing QEMU; if
# the shell exits first the guest powers off (QEMU runs -no-reboot).
#
# FSAIO_LAVA_CWD on the kernel command line (set by lava-check.sh) names the
# checkout, bound over the guest's tmpfs when it is under /tmp.

# One compound command: parsed whole, so editing this file mid-run is safe.
{
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TERM=dumb LANG=C.UTF-8

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for i in 0:stdin 1:stdout 2:stderr; do
	[ -e /dev/${i#*:} ] || ln -s /proc/self/fd/${i%%:*} /dev/${i#*:}
done
mkdir -p /dev/pts /dev/shm 2>/dev/null
mount -t devpts devpts /dev/pts 2>/dev/null
mount --bind / /mnt 2>/dev/null && HOSTROOT=/mnt || HOSTROOT=
for d in /tmp /run /var/tmp /dev/shm; do mount -t tmpfs -o mode=1777 tmpfs $d; done
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
hostname fsaio-lava 2>/dev/null
ip link set lo up 2>/dev/null || busybox ifconfig lo 127.0.0.1 up 2>/dev/null

cwd=
for a in $(cat /proc/cmdline); do
	case $a in FSAIO_LAVA_CWD=*) cwd=${a#FSAIO_LAVA_CWD=} ;; esac
done
case $cwd in
/tmp/*|/run/*|/var/tmp/*|/dev/shm/*)
	[ -n "$HOSTROOT" ] && mkdir -p "$cwd" && mount --bind "$HOSTROOT$cwd" "$cwd" ;;
esac

# Only emergencies on the console from here on.
dmesg -n 1 2>/dev/null || echo 1 >/proc/sys/kernel/printk
echo "fsaio-lava: kernel $(uname -r), $(nproc) CPUs; shell on the console" >/dev/console
cd /tmp
PS1='fsaio-lava# ' ENV= setsid -c /bin/sh -i </dev/ttyS0 >/dev/ttyS0 2>&1
sync
busybox reboot -f 2>/dev/null
echo b >/proc/sysrq-trigger
sleep 5
exit 1
}
