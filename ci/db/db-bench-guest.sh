#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of ci/bench/bench-vm.sh part "database": sysbench
# oltp_read_write against MariaDB's InnoDB over libaio
# (kernel.io_uring_disabled=2), per device class and innodb_flush_method,
# in ROUNDS rounds whose runs are interleaved (class by class: every flush
# method once per round).
#
#   ci/db/db-bench-guest.sh OUTDIR ROUNDS SECONDS CLASS...
#
#   CLASS    virtio: ext4 on the scratch virtio disk (a host file);
#            delayN: the same behind dm-delay N ms per read and write
#   SECONDS  per run, 4 client threads, the page cache dropped before each
#
# Needs `ci/vm/vm-run.sh --disks ext4 --no-mount` (FSAIO_SCRATCH_DEV_EXT4).
# Writes OUTDIR/cells.tsv: class flush round txns tps p95_ms p99_ms
# cpu_ms_per_txn (guest CPU time, all CPUs, during the run / transactions),
# one line per run; OUTDIR/<class>-<flush>-r<round>.txt the sysbench
# report; OUTDIR/env the boot.  Exit status 0, or 5 (ERROR) when a setup
# step or a run failed (the cells before it stay).
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/db-lib.sh"
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
[[ $# -ge 4 ]] || usage_error "wants OUTDIR ROUNDS SECONDS CLASS..."
out=$1 rounds=$2 secs=$3
shift 3
dev=${FSAIO_SCRATCH_DEV_EXT4:-}
[[ -b $dev ]] || die "no ext4 scratch device (boot with --disks ext4 --no-mount)"
missing=$(db_need) || die "$missing not installed"
mkdir -p "$out" || die "cannot make $out"
: >"$out/cells.tsv"
{ echo "release=$(uname -r)"; echo "mariadb=$(mariadbd --version)"; echo "sysbench=$(sysbench --version)"; } >"$out/env"
mnt=/tmp/dbbench dm= dir=$mnt/db
cleanup() {
	[[ -d $dir ]] && db_kill "$dir"
	mountpoint -q "$mnt" && umount "$mnt"
	[[ -n $dm ]] && dmsetup remove "$dm" 2>/dev/null
	dm=
}
trap cleanup EXIT
echo 2 >/proc/sys/kernel/io_uring_disabled || die "no kernel.io_uring_disabled"

# busy jiffies of all CPUs (user nice system irq softirq steal)
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
hz=$(getconf CLK_TCK)

for class in "$@"; do
	case $class in
	virtio) d=$dev ;;
	delay[1-9]*)
		dm=fsaio-dbbench
		dmsetup create $dm --table "0 $(blockdev --getsz "$dev") delay $dev 0 ${class#delay}" ||
			die "dm-delay over $dev failed"
		dmsetup mknodes $dm 2>/dev/null	# no udev in the guest
		d=/dev/mapper/$dm ;;
	*) usage_error "unknown class '$class' (virtio, delayN)" ;;
	esac
	mkdir -p $mnt && mkfs.ext4 -q -F "$d" && mount "$d" $mnt || die "$class: cannot make ext4 on $d"
	mkdir -p "$dir" && db_init "$dir" && "$ROOT/ci/db/db-oltp.sh" --prepare "$dir" fsync ||
		die "$class: cannot make the datadir"
	for ((r = 1; r <= rounds; r++)); do
		for flush in fsync O_DSYNC; do
			rep=$out/$class-$flush-r$r.txt
			sync
			echo 3 >/proc/sys/vm/drop_caches
			db_start "$dir" "$flush" || die "$class $flush round $r: mariadbd did not start"
			b0=$(busy)
			db_sysbench "$dir" oltp_read_write --threads=4 --time="$secs" \
				--percentile=95 --histogram=on run >"$rep" 2>&1
			b1=$(busy)
			db_stop "$dir"
			read -r txns tps p95 p99 < <(awk -f "$ROOT/ci/db/sysbench-figures.awk" "$rep") ||
				die "$class $flush round $r: sysbench failed: $(tail -1 "$rep")"
			printf '%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n' "$class" "$flush" "$r" "$txns" "$tps" "$p95" "$p99" \
				"$(awk -v b=$((b1 - b0)) -v hz="$hz" -v t="$txns" 'BEGIN { printf "%.3f", b * 1000 / hz / t }')" \
				>>"$out/cells.tsv"
			msg "$class $flush round $r/$rounds: $tps tps, p95 $p95 ms"
		done
	done
	cleanup
done
exit "$EXIT_PASS"
