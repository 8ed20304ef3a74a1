#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fsaio guest init (PID 1), started by ci/vm/vm-run.sh with
#   init=<repo>/ci/vm/guest-init.sh
# on a guest whose root is the host's / over virtio-9p, read-only.
#
# 1. mounts proc, sys, dev, devpts, tmpfs (/tmp, /run, /var/tmp), tracefs,
#    debugfs, cgroup2, and the read-write out share (9p tag "fsaioout") at
#    $FSAIO_OUT (/tmp/fsaio-out);
# 2. reads the run description vm-run.sh left in $FSAIO_OUT/.vm/env;
# 3. brings up lo, attaches the scratch disks (virtio-blk, pre-formatted by
#    the host), optionally behind dm-delay (FSAIO_SLOW_MS), mounts them under
#    /tmp/scratch/<fs> and exports FSAIO_SCRATCH_<FS> / FSAIO_SCRATCH_DEV_<FS>;
# 4. writes a marker to the kernel log, runs the command ($FSAIO_OUT/.vm/cmd)
#    in the host's working directory with stdout/stderr to $FSAIO_OUT;
# 5. records the exit code in $FSAIO_OUT/exit-code, the kernel log in
#    $FSAIO_OUT/dmesg, and powers off with `reboot -f` (QEMU runs -no-reboot).
# Anything that goes wrong before the exit code is written leaves no
# exit-code file: the host then reports ERROR.

# One compound command: parsed whole, so editing this file mid-run is safe.
{
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TERM=${TERM:-linux} LANG=C.UTF-8
FSAIO_OUT=/tmp/fsaio-out
export FSAIO_OUT

log() { echo "fsaio-init: $*" >/dev/console 2>/dev/null || echo "fsaio-init: $*"; }

poweroff_now() {
	sync
	busybox reboot -f 2>/dev/null
	echo b >/proc/sysrq-trigger
	sleep 5
	exit 1	# PID 1 exiting panics; panic=-1 + -no-reboot still ends QEMU
}

. "${0%/*}/guest-mounts.sh"
guest_mounts fsaio-vm
guest_aio_async

mkdir -p $FSAIO_OUT
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288,cache=none \
	fsaioout $FSAIO_OUT; then
	log "cannot mount the out share (9p tag fsaioout); giving up"
	poweroff_now
fi
if [ ! -r $FSAIO_OUT/.vm/env ]; then
	log "no $FSAIO_OUT/.vm/env; not started by ci/vm/vm-run.sh?"
	poweroff_now
fi
. $FSAIO_OUT/.vm/env
log "kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print int($2/1024) " MiB"}' /proc/meminfo)"

# Scratch disks: FSAIO_DISKS="ext4 xfs"; QEMU gave each the serial fsaio-<fs>.
disk_by_serial() {
	for s in /sys/block/vd*/serial; do
		[ "$(cat "$s" 2>/dev/null)" = "$1" ] || continue
		s=${s%/serial}
		echo /dev/${s##*/}
		return 0
	done
	return 1
}
mkdir -p /tmp/scratch
for fs in ${FSAIO_DISKS:-}; do
	FS=$(echo "$fs" | tr a-z A-Z)
	dev=$(disk_by_serial fsaio-$fs) || { log "scratch disk with serial fsaio-$fs missing"; continue; }
	raw=$dev
	if [ "${FSAIO_SLOW_MS:-0}" -gt 0 ] 2>/dev/null; then
		# dm-delay: reads and writes wait FSAIO_SLOW_MS ms, so a cold
		# buffered read really waits on the "device".
		sz=$(blockdev --getsz "$dev")
		name=fsaio-slow-$fs
		if dmsetup create $name --table "0 $sz delay $dev 0 $FSAIO_SLOW_MS"; then
			dmsetup mknodes $name 2>/dev/null
			dev=/dev/mapper/$name
			log "scratch $fs: $dev (dm-delay ${FSAIO_SLOW_MS} ms over $raw)"
		else
			log "dm-delay over $dev failed; using the raw disk"
		fi
	fi
	mkdir -p /tmp/scratch/$fs
	if [ "${FSAIO_MOUNT_SCRATCH:-1}" = 1 ]; then
		if mount -t $fs "$dev" /tmp/scratch/$fs; then
			export "FSAIO_SCRATCH_$FS=/tmp/scratch/$fs"
		else
			log "mounting $dev ($fs) failed"
		fi
	fi
	export "FSAIO_SCRATCH_DEV_$FS=$dev" "FSAIO_SCRATCH_RAWDEV_$FS=$raw"
done

case ${FSAIO_CWD:-/} in
/tmp/*|/run/*|/var/tmp/*|/dev/shm/*)
	if [ -n "$HOSTROOT" ] && [ -d "$HOSTROOT$FSAIO_CWD" ] &&
	   mkdir -p "$FSAIO_CWD" && mount --bind "$HOSTROOT$FSAIO_CWD" "$FSAIO_CWD"; then
		log "bound the host's $FSAIO_CWD over the guest's tmpfs"
	else
		log "the host's $FSAIO_CWD is hidden by the guest's tmpfs and could not be bound"
	fi ;;
esac
cd "${FSAIO_CWD:-/}" 2>/dev/null || cd /
# kmemleak (kernels built with it): forget what boot leaked, so the scan
# after the command reports only objects the command's kernel paths lost.
KMEMLEAK=/sys/kernel/debug/kmemleak
if [ -w $KMEMLEAK ]; then
	echo scan >$KMEMLEAK 2>/dev/null; echo scan >$KMEMLEAK 2>/dev/null
	echo clear >$KMEMLEAK 2>/dev/null
fi
echo "fsaio-vm: command start" >/dev/kmsg
log "running: $(cat $FSAIO_OUT/.vm/cmd.txt 2>/dev/null)"
if [ "${FSAIO_INTERACTIVE:-0}" = 1 ]; then
	setsid -c sh $FSAIO_OUT/.vm/cmd </dev/ttyS0 >/dev/ttyS0 2>&1
	rc=$?
else
	sh $FSAIO_OUT/.vm/cmd </dev/null >$FSAIO_OUT/stdout 2>$FSAIO_OUT/stderr
	rc=$?
fi
echo "fsaio-vm: command end rc=$rc" >/dev/kmsg
log "command exited with $rc"
# An object is reported once it is 5 s old and two scans in a row found
# nothing pointing to it; the report goes to the log ("N new suspected
# memory leaks"), which the host's splat scan turns into a FAIL.
if [ -w $KMEMLEAK ]; then
	sleep 6
	echo scan >$KMEMLEAK 2>/dev/null; echo scan >$KMEMLEAK 2>/dev/null
	cat $KMEMLEAK >$FSAIO_OUT/kmemleak 2>/dev/null
	[ -s $FSAIO_OUT/kmemleak ] && log "kmemleak: suspected leaks, see kmemleak in the results"
fi

dmesg >$FSAIO_OUT/dmesg 2>/dev/null
for fs in ${FSAIO_DISKS:-}; do
	umount /tmp/scratch/$fs 2>/dev/null
done
echo $rc >$FSAIO_OUT/exit-code.tmp && mv $FSAIO_OUT/exit-code.tmp $FSAIO_OUT/exit-code
sync
umount $FSAIO_OUT 2>/dev/null
poweroff_now
}
