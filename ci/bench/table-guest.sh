#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of ci/bench/bench-vm.sh part "fsaio-table": run every configuration
# of the modern FSAIO table on this kernel, one fio run per cell, on ext4
# over dm-delay that it builds in guest RAM (ci/vm/vm-run.sh --disks none).
#
#   ci/bench/table-guest.sh OUTDIR RUNTIME SIZE DELAY_MS [CELL-FILTER] [XCHECK-RUNTIME]
#
# The device is made here, in guest RAM, so that no I/O leaves the guest: a
# file on a private tmpfs, a loop device on it, dm-delay (DELAY_MS per read,
# write and flush) over that, ext4 on top.  Under `ci/vm/vm-run.sh --icount`
# the whole run is then a function of the guest's instructions and its
# timers: the disk latency is exactly DELAY_MS of virtual time (plus the
# jiffy rounding of dm-delay's timer), the CPU a 1-instruction-per-ns
# machine, and the host's load does not enter into it.  DELAY_MS >= 50:
# below that dm-delay switches to a kthread that busy-polls its queue
# (drivers/md/dm-delay.c, "fast" mode), which burns a vCPU for as long as
# any I/O is delayed.
#
# Writes OUTDIR/<config>__<workload>.json (fio JSON) and OUTDIR/cells.tsv
# (config workload json-file exit-status seconds); OUTDIR/env describes the
# boot.  Then, unless XCHECK-RUNTIME is 0 or ./fsaio is missing, the 4 KiB
# libaio buffered random read once more under `./fsaio check` (xcheck.json,
# xcheck-fio.json): fio's slat against the traced io_submit time.
# Configurations: libaio-buffered (patched: with fs.aio-buffered-async=2,
# as fio cannot set IOCB_FLAG_BUFFERED_ASYNC,
# and =0 as a control for the 4 KiB random read), io_uring-buffered,
# libaio-direct.  Workloads: randread, read (sequential), O_SYNC write
# (sequential), each at 64 KiB x iodepth 64 and 4 KiB x iodepth 32.
set -u
. "$(dirname "$0")/../lib.sh"
out=$1 runtime=$2 size=$3 delay=$4 filter=${5:-} xruntime=${6:-5}
mkdir -p "$out" || exit "$EXIT_ERROR"
bytes=$(numfmt --from=iec "$size") || exit "$EXIT_ERROR"
# The backing store: the file, plus room for ext4's metadata and journal.
store=/run/fsaio-bench-store
mkdir -p $store && mount -t tmpfs -o size=$(( bytes / 1048576 + 256 ))m tmpfs $store || exit "$EXIT_ERROR"
truncate -s $(( bytes / 1048576 + 192 ))M $store/disk.img || exit "$EXIT_ERROR"
loopdev=$(losetup -f --show $store/disk.img) || die "losetup failed"
sectors=$(blockdev --getsz "$loopdev")
dmsetup create fsaio-bench --table "0 $sectors delay $loopdev 0 $delay $loopdev 0 $delay $loopdev 0 $delay" ||
	die "dmsetup create (dm-delay) failed"
dmsetup mknodes fsaio-bench 2>/dev/null
dev=/dev/mapper/fsaio-bench
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev" || exit "$EXIT_ERROR"
dir=/run/fsaio-bench
mkdir -p $dir && mount -t ext4 "$dev" $dir || exit "$EXIT_ERROR"
file=$dir/bench.dat
sysctl=/proc/sys/fs/aio-buffered-async
jobfile=$ROOT/ci/bench/table.fio

{
	echo "release=$(uname -r)"
	echo "delay_ms=$delay"
	echo "dev=$dev ($(dmsetup table fsaio-bench)) over $loopdev on tmpfs"
	echo "cpus=$(nproc)"
	echo "sysctl=$([ -e $sysctl ] && cat $sysctl || echo absent)"
	echo "runtime=$runtime"
	echo "size=$size"
} >"$out/env"

# Lay the file out once: allocated, written, on disk.
t0=$(now)
fallocate -l "$size" "$file" || exit "$EXIT_ERROR"
dd if=/dev/zero of="$file" bs=1M count=$(( bytes >> 20 )) \
	conv=notrunc,fsync status=none || exit "$EXIT_ERROR"
echo "layout $size: $(since "$t0" 1) s" >&2

configs=("libaio-buffered:libaio:0" "io_uring-buffered:io_uring:0" "libaio-direct:libaio:1")
[ -e $sysctl ] && configs+=("libaio-buffered-async0:libaio:0")
workloads=("randread-64k:randread:64k:64:0" "randread-4k:randread:4k:32:0"
	   "seqread-64k:read:64k:64:0" "seqread-4k:read:4k:32:0"
	   "osync-write-64k:write:64k:64:1" "osync-write-4k:write:4k:32:1")
: >"$out/cells.tsv"
for w in "${workloads[@]}"; do
	IFS=: read -r wname rw bs depth sync <<<"$w"
	for c in "${configs[@]}"; do
		IFS=: read -r cname engine direct <<<"$c"
		# The =0 control only where it says something: the 4 KiB random read.
		[ "$cname" = libaio-buffered-async0 ] && [ "$wname" != randread-4k ] && continue
		cell=${cname}__$wname
		[ -n "$filter" ] && [[ ! $cell =~ $filter ]] && continue
		if [ -e $sysctl ]; then
			if [ "$cname" = libaio-buffered-async0 ]; then echo 0 >$sysctl; else echo 2 >$sysctl; fi
		fi
		sync
		echo 3 >/proc/sys/vm/drop_caches
		# drop_caches also dropped fio's and its libraries' pages, which
		# come from the host over 9p; re-reading them mid-run would let
		# -icount,sleep=off skip virtual time while the host answers.  A
		# short run of the same engine and pattern on tmpfs brings them
		# back first.
		fio --name=warm --filename=/run/fsaio-bench-warm --size=4m --ioengine=$engine \
			--rw=$rw --bs=$bs --iodepth=$depth --sync=$sync --output=/dev/null >/dev/null 2>&1
		rm -f /run/fsaio-bench-warm
		t0=$(now)
		BENCH_FILE=$file BENCH_SIZE=$size BENCH_ENGINE=$engine BENCH_DIRECT=$direct \
		BENCH_SYNC=$sync BENCH_RW=$rw BENCH_BS=$bs BENCH_DEPTH=$depth \
		BENCH_RUNTIME=$runtime \
			fio --output-format=json --output="$out/$cell.json" "$jobfile" 2>"$out/$cell.err"
		rc=$?
		secs=$(since "$t0" 1)
		printf '%s\t%s\t%s\t%s\t%s\n' "$cname" "$wname" "$cell.json" "$rc" "$secs" >>"$out/cells.tsv"
		echo "cell $cell: fio rc=$rc, ${secs}s" >&2
		[ $rc = 0 ] || echo "cell $cell: fio exited $rc: $(tail -1 "$out/$cell.err")" >&2
	done
done
[ -e $sysctl ] && echo 2 >$sysctl

# Cross-check: fio's submit latency against the traced io_submit time.
if [ "$xruntime" != 0 ] && [ -x "$ROOT/fsaio" ] && [[ -z $filter || libaio-buffered__randread-4k =~ $filter ]]; then
	sync
	echo 3 >/proc/sys/vm/drop_caches
	BENCH_FILE=$file BENCH_SIZE=$size BENCH_ENGINE=libaio BENCH_DIRECT=0 \
	BENCH_SYNC=0 BENCH_RW=randread BENCH_BS=4k BENCH_DEPTH=32 BENCH_RUNTIME=$xruntime \
		"$ROOT/fsaio" check --json "$out/xcheck.json" -- \
		fio --output-format=json --output="$out/xcheck-fio.json" "$jobfile" \
		>"$out/xcheck.ktap" 2>"$out/xcheck.err"
	echo "xcheck: fsaio check rc=$?" >&2
fi
umount $dir
dmsetup remove fsaio-bench
losetup -d "$loopdev"
exit "$EXIT_PASS"
