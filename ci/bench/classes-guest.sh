#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of ci/bench/bench-vm.sh part "device-classes": the FSAIO table
# by device latency.  For each class a memory-backed null_blk whose every
# request completes from an hrtimer COMPLETION_US after submission
# (irqmode=2: no vCPU polls while a request waits, unlike dm-delay below 50
# ms), ext4 on it, one file laid out, then fio random reads and sequential
# O_SYNC overwrites, 4 KiB and 64 KiB, at iodepth 1, 8 and 32.
#
#   ci/bench/classes-guest.sh OUTDIR KIND SIZE RUNTIME CLASS_US... [-- CELL-FILTER]
#
#   KIND     stock: libaio buffered, io_uring buffered, libaio O_DIRECT;
#            patched: libaio buffered with fs.aio-buffered-async=2 (the
#            other engines do not enter the patched code: the fsaio-table
#            part runs them on both kernels as controls)
#   RUNTIME  cap per cell in virtual seconds, raised for slow classes to
#            100 device latencies (so iodepth 1 still sees 100 I/Os)
#   CLASS_US device latencies in microseconds (100 1000 8000 50000: NVMe,
#            SATA SSD, disk, today's dm-delay table)
#
# Under `ci/vm/vm-run.sh --icount` the latency is exact virtual time and the
# host's load does not enter.  Writes OUTDIR/<class>/<config>__<workload>-qd<N>.json
# (fio JSON) and OUTDIR/cells.tsv (class_us config workload qd json exit-status
# seconds); OUTDIR/env describes the boot.
set -u
. "$(dirname "$0")/../lib.sh"
out=$1 kind=$2 size=$3 runtime=$4
shift 4
classes=() filter=
while [ $# -gt 0 ]; do
	[ "$1" = -- ] && { filter=${2:-}; break; }
	classes+=("$1"); shift
done
mkdir -p "$out" || exit "$EXIT_ERROR"
bytes=$(numfmt --from=iec "$size") || exit "$EXIT_ERROR"
sysctl=/proc/sys/fs/aio-buffered-async
jobfile=$ROOT/ci/bench/table.fio
cfg=/sys/kernel/config
[ -d $cfg/nullb ] || mount -t configfs none $cfg 2>/dev/null
[ -d $cfg/nullb ] || die "no null_blk configfs on this kernel (CONFIG_BLK_DEV_NULL_BLK)"
nb=$cfg/nullb/fsaio-class dir=/run/fsaio-class
cleanup() {
	umount "$dir" 2>/dev/null
	[ -d "$nb" ] && { echo 0 >"$nb/power"; rmdir "$nb"; } 2>/dev/null
}
trap cleanup EXIT

case $kind in
stock) configs=("libaio-buffered:libaio:0" "io_uring-buffered:io_uring:0" "libaio-direct:libaio:1") ;;
patched) [ -e $sysctl ] || die "patched run on a kernel without $sysctl"
	 echo 2 >$sysctl
	 configs=("libaio-buffered:libaio:0") ;;
*) die "KIND is stock or patched, not $kind" ;;
esac
workloads=("randread-4k:randread:4k:0" "randread-64k:randread:64k:0"
	   "osync-write-4k:write:4k:1" "osync-write-64k:write:64k:1")
depths=(1 8 32)
{
	echo "release=$(uname -r)"
	echo "kind=$kind"
	echo "classes_us=${classes[*]}"
	echo "cpus=$(nproc)"
	echo "sysctl=$([ -e $sysctl ] && cat $sysctl || echo absent)"
	echo "runtime=$runtime"
	echo "size=$size"
} >"$out/env"
: >"$out/cells.tsv"

for us in "${classes[@]}"; do
	mkdir "$nb" && echo $(( bytes / 1048576 + 192 )) >"$nb/size" &&
		echo 1 >"$nb/memory_backed" && echo 4096 >"$nb/blocksize" &&
		echo 2 >"$nb/irqmode" && echo $(( us * 1000 )) >"$nb/completion_nsec" &&
		echo 64 >"$nb/hw_queue_depth" && echo 1 >"$nb/power" ||
		die "could not configure null_blk $nb (completion ${us} us)"
	# named after the configfs directory since 5.19, nullb<index> before
	dev=/dev/${nb##*/}
	[ -b "$dev" ] || dev=/dev/nullb$(cat "$nb/index")
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev" || die "mkfs.ext4 $dev failed"
	mkdir -p $dir && mount -t ext4 "$dev" $dir || die "mount $dev failed"
	file=$dir/bench.dat
	t0=$(now)
	fallocate -l "$size" "$file" &&
		dd if=/dev/zero of="$file" bs=1M count=$(( bytes >> 20 )) conv=notrunc,fsync status=none ||
		die "laying out $file failed"
	echo "class ${us} us: $dev, layout $size in $(since "$t0" 1) s" >&2
	rt=$(( us / 10000 > runtime ? us / 10000 : runtime ))
	mkdir -p "$out/$us"
	for w in "${workloads[@]}"; do
		IFS=: read -r wname rw bs sync <<<"$w"
		for qd in "${depths[@]}"; do
			for c in "${configs[@]}"; do
				IFS=: read -r cname engine direct <<<"$c"
				cell=${cname}__$wname-qd$qd
				[ -n "$filter" ] && [[ ! $us/$cell =~ $filter ]] && continue
				sync
				echo 3 >/proc/sys/vm/drop_caches
				# bring fio's own pages back (9p from the host) before the
				# measured run: see ci/bench/table-guest.sh
				fio --name=warm --filename=/run/fsaio-class-warm --size=4m --ioengine=$engine \
					--rw=$rw --bs=$bs --iodepth=$qd --sync=$sync --output=/dev/null >/dev/null 2>&1
				rm -f /run/fsaio-class-warm
				t0=$(now)
				BENCH_FILE=$file BENCH_SIZE=$size BENCH_ENGINE=$engine BENCH_DIRECT=$direct \
				BENCH_SYNC=$sync BENCH_RW=$rw BENCH_BS=$bs BENCH_DEPTH=$qd BENCH_RUNTIME=$rt \
					fio --output-format=json --output="$out/$us/$cell.json" "$jobfile" \
					2>"$out/$us/$cell.err"
				rc=$?
				secs=$(since "$t0" 1)
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$us" "$cname" "$wname" "$qd" \
					"$us/$cell.json" "$rc" "$secs" >>"$out/cells.tsv"
				echo "class ${us} us, $cell: fio rc=$rc, ${secs}s" >&2
			done
		done
	done
	umount $dir || die "umount $dir failed"
	echo 0 >"$nb/power" && rmdir "$nb" || die "could not remove null_blk $nb"
done
exit "$EXIT_PASS"
