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

. "${0%/*}/../vm/guest-mounts.sh"
guest_mounts fsaio-lava
guest_aio_async

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
