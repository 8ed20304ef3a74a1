# SPDX-License-Identifier: GPL-2.0
# Sourced (sh) by the guests' PID 1 scripts, ci/vm/guest-init.sh and
# ci/lava/lava-init.sh: the file systems a guest that runs the host's root
# over 9p needs before anything else, and the series' switch.
#
#   guest_aio_async         on a kernel with the series, make every eligible
#                           buffered libaio request asynchronous
#                           (fs.aio-buffered-async=2)
#
#   guest_mounts HOSTNAME   mount proc, sys, dev (with /dev/fd and
#                           /dev/std*, /dev/fuse 0666), devpts, tmpfs on /tmp /run /var/tmp
#                           /dev/shm, tracefs, debugfs, cgroup2, bpffs;
#                           bring lo up; set HOSTROOT to a view of the
#                           host's root taken before the tmpfs mounts hide
#                           its /tmp (empty if the bind failed)
guest_mounts() {
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
	# devtmpfs has no /dev/fd, /dev/std{in,out,err} (udev makes them): without
	# them `>>/dev/stdout` (the kselftest runner's log) creates a plain file.
	[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
	for i in 0:stdin 1:stdout 2:stderr; do
		[ -e /dev/${i#*:} ] || ln -s /proc/self/fd/${i%%:*} /dev/${i#*:}
	done
	# and /dev/fuse is 0600 there, where udev makes it 0666: every user may
	# mount a FUSE file system (through fusermount3), and aio_fuse_stall
	# tests what an unprivileged one can do with that
	[ -c /dev/fuse ] && chmod 0666 /dev/fuse
	mkdir -p /dev/pts /dev/shm 2>/dev/null
	mount -t devpts devpts /dev/pts 2>/dev/null
	# Keep a view of the host's /tmp etc. before tmpfs hides them: a checkout
	# there (CI clones into /tmp) is bound back at its own path later.
	HOSTROOT=
	mount --bind / /mnt 2>/dev/null && HOSTROOT=/mnt
	for d in /tmp /run /var/tmp /dev/shm; do mount -t tmpfs -o mode=1777 tmpfs $d; done
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null
	hostname "$1" 2>/dev/null
	ip link set lo up 2>/dev/null || busybox ifconfig lo 127.0.0.1 up 2>/dev/null
}

# The series' default (1) runs asynchronously only the requests that set
# IOCB_FLAG_BUFFERED_ASYNC; fio and most of the suite's programs do not, so
# the guest takes every eligible one (2).  guest-suite.sh's opt-in and
# switch-off tiers set 1 and 0 for their runs.
guest_aio_async() {
	[ -w /proc/sys/fs/aio-buffered-async ] &&
		echo 2 >/proc/sys/fs/aio-buffered-async
	return 0
}
