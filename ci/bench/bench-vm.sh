#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The VM parts of `make bench` (called by ci/bench/bench.sh): boot cached
# kernels in QEMU and write one part file per part (schema fsaio-bench/1,
# see ci/README.md "Benchmarks in the VM"; the JSON is built by the defs
# of ci/bench/bench.jq):
#
#   syncpath       instructions per synchronous operation (cached pread 4 KiB
#                  and 64 KiB, cold 4 KiB pread, buffered 4 KiB pwrite) on
#                  stock, patched with fs.aio-buffered-async=0 and =1; QEMU
#                  -icount shift=0,sleep=off, 1 vCPU, every configuration
#                  twice per boot and in BOOTS boots per kernel
#   fsaio-table    the FSAIO table on 6.12: fio random/sequential reads and
#                  sequential O_SYNC writes, 64 KiB x iodepth 64 and 4 KiB x
#                  iodepth 32, on ext4 over dm-delay over a loop device in
#                  guest RAM; stock and patched libaio buffered, io_uring
#                  buffered, libaio O_DIRECT; MB/s, IOPS, submit latency
#                  percentiles; QEMU -icount (virtual time: the host's load
#                  does not enter), 2 vCPUs, one boot per kernel
#   device-classes the FSAIO table by device latency: ext4 on a memory-backed
#                  null_blk whose requests complete from a timer 0.1, 1, 8 and
#                  50 ms after submission; fio random reads and O_SYNC
#                  overwrites, 4 KiB and 64 KiB, iodepth 1/8/32; stock libaio
#                  buffered, io_uring buffered, O_DIRECT, patched libaio
#                  buffered; -icount, 2 vCPUs, one boot per kernel
#   database       MariaDB's InnoDB over libaio (kernel.io_uring_disabled=2):
#                  sysbench oltp_read_write transactions/s, p95 and p99
#                  latency and CPU per transaction, per innodb_flush_method
#                  (fsync, O_DSYNC) and device class (the virtio disk, and
#                  behind dm-delay); ROUNDS runs per cell, medians: a
#                  boot per kernel and round (the kernels alternate), the
#                  flush methods interleaved in it; wall-clock TCG
#                  (MariaDB under -icount is too slow to boot), 2 vCPUs
#   stap-cost      what each event source costs the traced program: fio 4 KiB
#                  cached random reads (psync, io_uring) untraced, recorded by
#                  the BPF tracer (fsaio check --no-fentry --record) and by
#                  SystemTap (stap/fsaio-stap.sh run), interleaved in rounds,
#                  on the patched kernel of FLAVOR=stap; -icount, 2 vCPUs
#
#   ci/bench/bench-vm.sh [PARTS_DIR] [--parts syncpath,fsaio-table,device-classes,database,stap-cost]
#                        [--kernels stock,patched] [--boots N] [--delay MS] [--runtime SEC]
#                        [--size SIZE] [--classes US,US,...] [--db-rounds N] [--db-seconds SEC]
#                        [--db-classes virtio,delayN,...] [--quick] [--no-run]
#
#   PARTS_DIR      where <part>.json go (default $BENCH_OUT/parts, BENCH_OUT
#                  defaulting to .output/bench)
#   --parts        which parts (default all four)
#   --kernels      which kernels (default both; a kernel left out or not built
#                  makes the part "skipped", with the reason; stap-cost runs
#                  on the FLAVOR=stap patched kernel, skipped if not built)
#   --boots N      syncpath boots per kernel (default 2)
#   --delay MS     dm-delay per I/O for the table (default 50, the least that
#                  keeps dm-delay on timers: below 50 ms it busy-polls)
#   --runtime SEC  fio runtime cap per table cell, virtual seconds (default 10)
#   --size SIZE    table test file (default 512M)
#   --classes US,..  device-classes latencies in us (default 100,1000,8000,50000)
#   --db-rounds N, --db-seconds SEC, --db-classes LIST
#                  database rounds (default 3: one boot per kernel each,
#                  the kernels alternating), seconds per sysbench run
#                  (default 15) and device classes (default virtio,delay2)
#   --quick        a smoke run (not for figures): syncpath 2000/200/100
#                  iterations and 1 boot, the table runtime 3 and 128M,
#                  device-classes runtime 1 and 64M, stap-cost one 1 s round,
#                  database 1 round of 5 s
#   --no-run       boot nothing: rebuild the part files from the raw results of
#                  the last run (same options)
#
# Kernels: `ci/kernel/build-kernel.sh [--patched] --path` (never builds); or
# BENCH_VM_STOCK_KERNEL / BENCH_VM_PATCHED_KERNEL = a bzImage to use instead.
# FSAIO (default ./fsaio): the binary whose `fsaio bench stats` reduces the
# samples.  Raw results: $BENCH_OUT/vm/ (syncpath-<kernel>-b<N>/,
# table-<kernel>/, classes-<kernel>/, database-<kernel>-r<round>/, stapcost/: ci/vm/vm-run.sh output
# dirs) and the rows read from them, vm/<part>.jsonl.
#
# Exit status (harness/exit_status.h): EXIT_PASS every selected part file
# written (missed goals and skipped kernels are reported in them, not
# failures); EXIT_ERROR (5) a VM run or a measurement failed (the part says
# which, and the last line printed is the reason); EXIT_USAGE (64).
set -uo pipefail
# One compound command: editing this file cannot break a running copy.
{

. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cannot cd to $ROOT"
OUT=${BENCH_OUT:-$ROOT/.output/bench}
FSAIO=${FSAIO:-$ROOT/fsaio}	# fsaio bench stats: the one implementation of the statistics
PARTS_DIR=
PARTS=syncpath,fsaio-table,device-classes,database,stap-cost
KERNELS=stock,patched
BOOTS=2 SLOW=50 RUNTIME=10 SIZE=512M QUICK=0 NORUN=0
# device classes (us): NVMe, SATA SSD, disk, and the fsaio-table's 50 ms
CLASSES=100,1000,8000,50000 CLASS_RUNTIME=2 CLASS_SIZE=256M
# stap-cost: virtual seconds per fio run, rounds of (none, bpf, stap)
STAP_RUNTIME=3 STAP_ROUNDS=3
# database: rounds per cell, seconds per sysbench run, device classes
DB_ROUNDS=3 DB_SECONDS=15 DB_CLASSES=virtio,delay2
SCHEMA=fsaio-bench/1

while [[ $# -gt 0 ]]; do
	case $1 in
	--parts) PARTS=$2; shift 2 ;;
	--kernels) KERNELS=$2; shift 2 ;;
	--boots) BOOTS=$2; shift 2 ;;
	--delay) SLOW=$2; shift 2 ;;
	--runtime) RUNTIME=$2; shift 2 ;;
	--size) SIZE=$2; shift 2 ;;
	--classes) CLASSES=$2; shift 2 ;;
	--db-rounds) DB_ROUNDS=$2; shift 2 ;;
	--db-seconds) DB_SECONDS=$2; shift 2 ;;
	--db-classes) DB_CLASSES=$2; shift 2 ;;
	--quick) QUICK=1; shift ;;
	--no-run) NORUN=1; shift ;;
	-h|--help) usage "$EXIT_PASS" ;;
	-*) usage_error "unknown option $1" ;;
	*) [[ -z $PARTS_DIR ]] || usage_error "one PARTS_DIR only"; PARTS_DIR=$1; shift ;;
	esac
done
[[ -n $PARTS_DIR ]] || PARTS_DIR=$OUT/parts
[[ $CLASSES =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
	usage_error "--classes takes device latencies in microseconds, comma-separated (e.g. 100,1000,8000)"
[[ $DB_ROUNDS =~ ^[1-9][0-9]*$ && $DB_SECONDS =~ ^[1-9][0-9]*$ && $DB_CLASSES =~ ^(virtio|delay[1-9][0-9]*)(,(virtio|delay[1-9][0-9]*))*$ ]] ||
	usage_error "--db-rounds and --db-seconds take whole numbers > 0, --db-classes virtio and delayN (ms), comma-separated"
[[ $BOOTS =~ ^[1-9]$ && $SLOW =~ ^[0-9]+$ && $RUNTIME =~ ^[1-9][0-9]*$ ]] ||
	usage_error "--boots takes 1 to 9, --delay and --runtime whole numbers (--runtime > 0)"
mkdir -p "$PARTS_DIR" "$OUT/vm" "$OUT/bin" || die "cannot create $PARTS_DIR, $OUT/vm"
PARTS_DIR=$(realpath "$PARTS_DIR")

# syncpath iteration counts: cached 4 KiB ops, 64 KiB reads, cold reads.
N_CACHED=20000 N_64K=2000 N_COLD=500 PASSES=2
if ((QUICK)); then
	N_CACHED=2000 N_64K=200 N_COLD=100 BOOTS=1 RUNTIME=3 SIZE=128M
	CLASS_RUNTIME=1 CLASS_SIZE=64M
	STAP_RUNTIME=1 STAP_ROUNDS=1
	DB_ROUNDS=1 DB_SECONDS=5
fi
# The syncpath program runs in the guest from the host's root (9p).
SYNCPATH_BIN=$OUT/bin/syncpath
SYNCPATH_REL=$(realpath --relative-to="$ROOT" "$SYNCPATH_BIN" 2>/dev/null || echo "$SYNCPATH_BIN")

ERRORS=0
LAST_ERROR=

# resolve_kernel stock|patched: KPATH[k] = the bzImage (with KKEY, KRELEASE),
# or KREASON[k] = why there is none.
declare -A KPATH KREASON KRELEASE KKEY
resolve_kernel() {
	local k=$1 var bz p=
	[[ $k == patched ]] && p=--patched
	var=BENCH_VM_${k^^}_KERNEL
	if [[ ",$KERNELS," != *",$k,"* ]]; then
		KREASON[$k]="$k kernel not selected (--kernels $KERNELS)"
		return
	fi
	if [[ -n ${!var:-} ]]; then
		bz=${!var}
		[[ -f $bz ]] || { KREASON[$k]="$var=$bz: no such file"; return; }
		KKEY[$k]="$var=$bz"
	elif bz=$(ci/kernel/build-kernel.sh $p --path 2>/dev/null) && [[ -f $bz ]]; then
		KKEY[$k]=$(ci/kernel/build-kernel.sh $p --print-key 2>/dev/null | tail -1)
	else
		KREASON[$k]="$k kernel not built yet (ci/kernel/build-kernel.sh $p --path: none; make kernels builds it)"
		return
	fi
	KPATH[$k]=$bz
	KRELEASE[$k]=$(ci/vm/vm-run.sh --print-release --kernel "$bz")
}

# The JSON pieces go through files: a figure list is too long for argv.
W=$OUT/vm/.work
mkdir -p "$W" || die "cannot create $W"
echo '[]' >"$W/empty.json"
echo '{}' >"$W/none.json"

# part_file PART STATUS REASON SECONDS KERNEL FIGURES-FILE RATIOS-FILE [EXTRA-FILE]
part_file() {
	local sec=$4
	((NORUN)) && sec=null	# --no-run: the measurement time is not known here
	jq -n -L "$ROOT/ci/bench" --arg s "$SCHEMA" --arg p "$1" --arg st "$2" --arg r "$3" --argjson sec "$sec" \
	      --arg k "$5" --slurpfile f "$6" --slurpfile rt "$7" --slurpfile x "${8:-$W/none.json}" \
	      'include "bench"; vm_part($s; $p; $st; $r; $sec; $k; $f[0]; $rt[0]; $x[0])' \
		>"$PARTS_DIR/$1.json.tmp" && mv "$PARTS_DIR/$1.json.tmp" "$PARTS_DIR/$1.json"
}

error() { msg "ERROR: $*"; ERRORS=$((ERRORS + 1)); LAST_ERROR=$*; }

# vm_result OUT: how the guest command in the vm-run.sh dir OUT ended
vm_result() { echo "$(cat "$1/result" 2>/dev/null || echo 'no result') ($(tail -1 "$1/stderr" 2>/dev/null))"; }

# part_skipped: in a part function whose status is still ok, a kernel that
# is missing (missing = the reasons; kinds = the kernels it has figures
# for) makes the part skipped, with the reasons.
part_skipped() {
	[[ $status == ok && ${#missing[@]} -gt 0 ]] || return 0
	status=skipped
	reason=$(printf '%s; ' "${missing[@]}")
	reason=${reason%; }
	[[ ${#kinds[@]} -eq 0 ]] || reason+="; figures for ${kinds[*]} only, no patched/stock ratios"
}

kernels_desc() {
	local k d=
	for k in stock patched; do
		[[ -n ${KPATH[$k]:-} ]] && d+="${d:+, }$k ${KRELEASE[$k]} (${KKEY[$k]})"
	done
	echo "${d:-none}"
}

# ============================================================ syncpath

syncpath_cmd() {	# the guest command of one syncpath boot
	echo "ci/bench/syncpath-guest.sh @OUT@/syncpath.jsonl $SYNCPATH_REL $N_CACHED $N_64K $N_COLD $PASSES"
}

part_syncpath() {
	local t0 k b out status=ok reason= raw=$OUT/vm/syncpath.jsonl rel kinds=() missing=()
	t0=$(now)
	: >"$raw"
	if ! gcc -O2 -Wall -Wextra -o "$SYNCPATH_BIN" ci/bench/syncpath.c 2>"$OUT/bin/syncpath.log"; then
		error "syncpath: gcc ci/bench/syncpath.c failed: $(head -1 "$OUT/bin/syncpath.log")"
		part_file syncpath error "$LAST_ERROR" "$(since "$t0")" "$(kernels_desc)" "$W/empty.json" "$W/empty.json"
		return
	fi
	for k in stock patched; do
		if [[ -z ${KPATH[$k]:-} ]]; then
			missing+=("${KREASON[$k]}")
			continue
		fi
		for ((b = 1; b <= BOOTS; b++)); do
			out=$OUT/vm/syncpath-$k-b$b
			if ((!NORUN)); then
				mkdir -p "$out" && rm -f "$out/syncpath.jsonl"
				msg "syncpath: $k boot $b/$BOOTS (icount, 1 vCPU) -> $out"
				ci/vm/vm-run.sh --kernel "${KPATH[$k]}" --label "syncpath-$k-b$b" --out "$out" \
					--icount --cpus 1 --disks none --timeout 1800 -- "$(syncpath_cmd)" >/dev/null
			fi
			if [[ $(cat "$out/exit-code" 2>/dev/null) != "$EXIT_PASS" || ! -s $out/syncpath.jsonl ]]; then
				error "syncpath: $k boot $b: $(vm_result "$out")"
				status=error reason=$LAST_ERROR
				continue 2
			fi
			rel=$(grep -o 'release=[^ ]*' "$out/stderr" | head -1 | cut -d= -f2)
			jq -c -L "$ROOT/ci/bench" --arg k "$k" --argjson b "$b" --arg rel "${rel:-${KRELEASE[$k]}}" \
			      --arg vmcmd "ci/vm/vm-run.sh --kernel ${KPATH[$k]} --icount --cpus 1 --disks none -- '$(syncpath_cmd)'" \
			      'include "bench"; syncpath_row($k; $b; $rel; $vmcmd)' \
				"$out/syncpath.jsonl" >>"$raw"
		done
		kinds+=("$k")
	done
	part_skipped
	msg "syncpath: aggregating $(wc -l <"$raw") measurements"
	local figs=$W/syncpath-figures.json ratios=$W/syncpath-ratios.json extra=$W/syncpath-extra.json
	jq -s -L "$ROOT/ci/bench" 'include "bench"; syncpath_figures' "$raw" >"$figs" &&
		"$FSAIO" bench stats "$figs" ||
		{ error "syncpath: aggregation failed"; echo '[]' >"$figs"; status=error reason=$LAST_ERROR; }
	jq -n -L "$ROOT/ci/bench" --slurpfile F "$figs" 'include "bench"; syncpath_ratios($F[0])' >"$ratios" ||
		{ error "syncpath: ratios failed"; echo '[]' >"$ratios"; status=error reason=$LAST_ERROR; }
	jq -n -L "$ROOT/ci/bench" --argjson n "[$N_CACHED,$N_64K,$N_COLD]" \
	      --argjson boots "$BOOTS" --argjson passes "$PASSES" \
		'include "bench"; syncpath_extra($n; $boots; $passes)' >"$extra"
	part_file syncpath "$status" "$reason" "$(since "$t0")" "$(kernels_desc)" "$figs" "$ratios" "$extra"
	msg "syncpath: $status${reason:+ ($reason)} in $(since "$t0") s"
}

# ============================================================ fsaio-table

table_cmd() {
	echo "ci/bench/table-guest.sh @OUT@/table $RUNTIME $SIZE $SLOW '' 5"
}

part_table() {
	local t0 k out status=ok reason= raw=$OUT/vm/table.jsonl kinds=() missing=() line
	t0=$(now)
	: >"$raw"
	for k in stock patched; do
		if [[ -z ${KPATH[$k]:-} ]]; then
			missing+=("${KREASON[$k]}")
			continue
		fi
		out=$OUT/vm/table-$k
		if ((!NORUN)); then
			mkdir -p "$out" && rm -rf "$out/table"
			msg "fsaio-table: $k (icount, 2 vCPUs, ext4 on dm-delay ${SLOW} ms on a loop device in RAM, runtime ${RUNTIME}s, file $SIZE) -> $out"
			ci/vm/vm-run.sh --kernel "${KPATH[$k]}" --label "table-$k" --out "$out" \
				--icount --cpus 2 --mem 3G --disks none --timeout 1800 -- "$(table_cmd)" >/dev/null
		fi
		if [[ $(cat "$out/exit-code" 2>/dev/null) != "$EXIT_PASS" || ! -s $out/table/cells.tsv ]]; then
			error "fsaio-table: $k: $(vm_result "$out")"
			status=error reason=$LAST_ERROR
			continue
		fi
		local rel
		rel=$(sed -n 's/^release=//p' "$out/table/env")
		while IFS=$'\t' read -r cname wname file rc secs; do
			if [[ $rc != 0 || ! -s $out/table/$file ]]; then
				error "fsaio-table: $k $cname $wname: fio exited $rc: $(tail -1 "$out/table/${file%.json}.err" 2>/dev/null)"
				status=error reason=$LAST_ERROR
				continue
			fi
			# fio may print warnings before the JSON: start at the first "{".
			sed -n '/^{/,$p' "$out/table/$file" | jq -c -L "$ROOT/ci/bench" --arg k "$k" --arg c "$cname" --arg w "$wname" \
				--arg rel "$rel" --argjson secs "$secs" --arg f "$out/table/$file" \
				'include "bench"; table_row($k; $c; $w; $rel; $secs; $f)' >>"$raw" ||
				{ error "fsaio-table: $k $cname $wname: unreadable fio JSON $file"; status=error reason=$LAST_ERROR; }
		done <"$out/table/cells.tsv"
		# Cross-check of slat against the trace.
		if [[ -s $out/table/xcheck.json && -s $out/table/xcheck-fio.json ]]; then
			jq -c -n -L "$ROOT/ci/bench" --arg k "$k" --arg rel "$rel" \
			      --slurpfile c "$out/table/xcheck.json" --slurpfile f "$out/table/xcheck-fio.json" \
				'include "bench"; table_xcheck_row($k; $rel; $c[0]; $f[0])' >>"$raw" 2>/dev/null ||
				msg "fsaio-table: $k: cross-check output unreadable (see $out/table/xcheck.*)"
		else
			msg "fsaio-table: $k: no cross-check ($(tail -1 "$out/table/xcheck.err" 2>/dev/null || echo './fsaio not built?'))"
		fi
		kinds+=("$k")
	done
	part_skipped
	local figs=$W/table-figures.json ratios=$W/table-ratios.json extra=$W/table-extra.json
	local cdf=$W/table-cdf.json xcheck=$W/table-xcheck.json
	jq -s -L "$ROOT/ci/bench" --arg slow "$SLOW" --arg rt "$RUNTIME" --arg size "$SIZE" \
		'include "bench"; table_figures($slow; $rt; $size)' "$raw" >"$figs" ||
		{ error "fsaio-table: aggregation failed"; echo '[]' >"$figs"; status=error reason=$LAST_ERROR; }
	jq -n -L "$ROOT/ci/bench" --slurpfile F "$figs" --arg slow "$SLOW" \
		'include "bench"; table_ratios($F[0]; $slow)' >"$ratios" ||
		{ error "fsaio-table: ratios failed"; echo '[]' >"$ratios"; status=error reason=$LAST_ERROR; }
	jq -s -L "$ROOT/ci/bench" 'include "bench"; table_cdf' "$raw" >"$cdf" || echo '[]' >"$cdf"
	jq -s -L "$ROOT/ci/bench" 'include "bench"; table_xcheck' "$raw" >"$xcheck" || echo '[]' >"$xcheck"
	# The cross-check as figures too, so that it shows in the table.
	jq -n -L "$ROOT/ci/bench" --slurpfile F "$figs" --slurpfile X "$xcheck" --arg slow "$SLOW" \
		'include "bench"; table_xcheck_figures($F[0]; $X[0]; $slow)' >"$figs.tmp" &&
		mv "$figs.tmp" "$figs"
	jq -n -L "$ROOT/ci/bench" --slurpfile cdf "$cdf" --slurpfile x "$xcheck" \
	      --arg slow "$SLOW" --arg rt "$RUNTIME" --arg size "$SIZE" \
		'include "bench"; table_extra($cdf[0]; $x[0]; $slow; $rt; $size)' >"$extra"
	part_file fsaio-table "$status" "$reason" "$(since "$t0")" "$(kernels_desc)" "$figs" "$ratios" "$extra"
	msg "fsaio-table: $status${reason:+ ($reason)} in $(since "$t0") s"
}

# ============================================================ device-classes

classes_cmd() {	# the guest command of one device-classes boot
	echo "ci/bench/classes-guest.sh @OUT@/classes $1 $CLASS_SIZE $CLASS_RUNTIME ${CLASSES//,/ }"
}

part_classes() {
	local t0 k out status=ok reason= raw=$OUT/vm/classes.jsonl kinds=() missing=() rel
	t0=$(now)
	: >"$raw"
	# Both kernels at once: under -icount QEMU runs its vCPUs on one host
	# thread and the figures are virtual time, so the host's load (the
	# other guest included) changes how long a boot takes, not its results.
	local pids=()
	for k in stock patched; do
		[[ -n ${KPATH[$k]:-} ]] && ((!NORUN)) || continue
		out=$OUT/vm/classes-$k
		mkdir -p "$out" && rm -rf "$out/classes"
		msg "device-classes: $k (icount, 2 vCPUs, ext4 on null_blk, completions after ${CLASSES//,/ /} us, runtime >= ${CLASS_RUNTIME}s, file $CLASS_SIZE) -> $out"
		ci/vm/vm-run.sh --kernel "${KPATH[$k]}" --label "classes-$k" --out "$out" \
			--icount --cpus 2 --mem 3G --disks none --timeout 3600 -- "$(classes_cmd "$k")" >/dev/null &
		pids+=($!)
	done
	((${#pids[@]} == 0)) || wait "${pids[@]}"
	for k in stock patched; do
		if [[ -z ${KPATH[$k]:-} ]]; then
			missing+=("${KREASON[$k]}")
			continue
		fi
		out=$OUT/vm/classes-$k
		if [[ $(cat "$out/exit-code" 2>/dev/null) != "$EXIT_PASS" || ! -s $out/classes/cells.tsv ]]; then
			error "device-classes: $k: $(vm_result "$out")"
			status=error reason=$LAST_ERROR
			continue
		fi
		rel=$(sed -n 's/^release=//p' "$out/classes/env")
		while IFS=$'\t' read -r us cname wname qd file rc secs; do
			if [[ $rc != 0 || ! -s $out/classes/$file ]]; then
				error "device-classes: $k $us us $cname $wname qd$qd: fio exited $rc: $(tail -1 "$out/classes/${file%.json}.err" 2>/dev/null)"
				status=error reason=$LAST_ERROR
				continue
			fi
			sed -n '/^{/,$p' "$out/classes/$file" | jq -c -L "$ROOT/ci/bench" --arg k "$k" --arg c "$cname" --arg w "$wname" \
				--argjson us "$us" --argjson qd "$qd" --arg rel "$rel" --argjson secs "$secs" \
				--arg f "$out/classes/$file" \
				'include "bench"; classes_row($k; $c; $w; $us; $qd; $rel; $secs; $f)' >>"$raw" ||
				{ error "device-classes: unreadable fio JSON $file"; status=error reason=$LAST_ERROR; }
		done <"$out/classes/cells.tsv"
		kinds+=("$k")
	done
	part_skipped
	local figs=$W/classes-figures.json ratios=$W/classes-ratios.json extra=$W/classes-extra.json
	jq -s -L "$ROOT/ci/bench" --arg rt "$CLASS_RUNTIME" --arg size "$CLASS_SIZE" \
		'include "bench"; classes_figures($rt; $size)' "$raw" >"$figs" ||
		{ error "device-classes: aggregation failed"; echo '[]' >"$figs"; status=error reason=$LAST_ERROR; }
	jq -n -L "$ROOT/ci/bench" --slurpfile F "$figs" 'include "bench"; classes_ratios($F[0])' >"$ratios" ||
		{ error "device-classes: ratios failed"; echo '[]' >"$ratios"; status=error reason=$LAST_ERROR; }
	jq -n -L "$ROOT/ci/bench" --arg rt "$CLASS_RUNTIME" --arg size "$CLASS_SIZE" --arg cl "$CLASSES" \
		'include "bench"; classes_extra($rt; $size; $cl)' >"$extra"
	part_file device-classes "$status" "$reason" "$(since "$t0")" "$(kernels_desc)" "$figs" "$ratios" "$extra"
	msg "device-classes: $status${reason:+ ($reason)} in $(since "$t0") s"
}

# ============================================================ database

database_cmd() {	# the guest command of one database boot: one round
	echo "ci/db/db-bench-guest.sh @OUT@/cells 1 $DB_SECONDS ${DB_CLASSES//,/ }"
}

# One boot per round and kernel, the kernels alternating (stock first in
# odd rounds, patched first in even ones): TCG boots of the same kernel
# differ by several percent, and a drift of the host's load over the part
# would otherwise fall on one kernel.
part_database() {
	local t0 k r out status=ok reason= raw=$OUT/vm/database.jsonl kinds=() missing=() rel envs=
	local figs=$W/database-figures.json ratios=$W/database-ratios.json extra=$W/database-extra.json
	local -A seen=()
	t0=$(now)
	: >"$raw"
	for k in stock patched; do
		[[ -z ${KPATH[$k]:-} ]] && missing+=("${KREASON[$k]}")
	done
	for ((r = 1; r <= DB_ROUNDS; r++)); do
		for k in $( ((r % 2)) && echo stock patched || echo patched stock); do
			[[ -z ${KPATH[$k]:-} ]] && continue
			out=$OUT/vm/database-$k-r$r
			if ((!NORUN)); then
				mkdir -p "$out" && rm -rf "$out/cells"
				msg "database: round $r/$DB_ROUNDS, $k (TCG, 2 vCPUs; ${DB_CLASSES}; fsync, O_DSYNC x ${DB_SECONDS}s) -> $out"
				ci/vm/vm-run.sh --kernel "${KPATH[$k]}" --label "database-$k-r$r" --out "$out" \
					--cpus 2 --disks ext4 --no-mount --timeout 3600 -- "$(database_cmd)" >/dev/null
			fi
			if [[ $(cat "$out/exit-code" 2>/dev/null) != "$EXIT_PASS" || ! -s $out/cells/cells.tsv ]]; then
				error "database: $k round $r: $(vm_result "$out")"
				status=error reason=$LAST_ERROR
				continue
			fi
			rel=$(sed -n 's/^release=//p' "$out/cells/env")
			if [[ -z ${seen[$k]:-} ]]; then
				envs+="$k: $(tr '\n' ' ' <"$out/cells/env")"$'\n'
				kinds+=("$k")
				seen[$k]=1
			fi
			jq -R -c -L "$ROOT/ci/bench" --arg k "$k" --arg rel "${rel:-${KRELEASE[$k]}}" --arg d "$out/cells" \
				--argjson r "$r" 'include "bench"; split("\t") | database_row($k; $rel; $d) | .round = $r' \
				"$out/cells/cells.tsv" >>"$raw"
		done
	done
	part_skipped
	jq -s -L "$ROOT/ci/bench" --arg secs "$DB_SECONDS" 'include "bench"; database_figures($secs)' "$raw" >"$figs" &&
		"$FSAIO" bench stats "$figs" ||
		{ error "database: aggregation failed"; echo '[]' >"$figs"; status=error reason=$LAST_ERROR; }
	jq -n -L "$ROOT/ci/bench" --slurpfile F "$figs" 'include "bench"; database_ratios($F[0])' >"$ratios" ||
		{ error "database: ratios failed"; echo '[]' >"$ratios"; status=error reason=$LAST_ERROR; }
	jq -n -L "$ROOT/ci/bench" --argjson r "$DB_ROUNDS" --arg s "$DB_SECONDS" --arg c "$DB_CLASSES" --arg env "$envs" \
		'include "bench"; database_extra($r; $s; $c; $env | split("\n") | map(select(. != "")))' >"$extra"
	part_file database "$status" "$reason" "$(since "$t0")" "$(kernels_desc)" "$figs" "$ratios" "$extra"
	msg "database: $status${reason:+ ($reason)} in $(since "$t0") s"
}

# ============================================================ stap-cost

part_stapcost() {
	local t0 out=$OUT/vm/stapcost status=ok reason= bz kbuild rel mod=$OUT/bin/fsaio_stap.ko
	local raw=$OUT/vm/stapcost.jsonl figs=$W/stapcost-figures.json ratios=$W/stapcost-ratios.json
	local extra=$W/stapcost-extra.json
	t0=$(now)
	if ! bz=$(ci/kernel/build-kernel.sh --patched --flavor stap --path 2>/dev/null); then
		part_file stap-cost skipped "no FLAVOR=stap patched kernel built (make stapcheck builds it)" \
			0 none "$W/empty.json" "$W/empty.json"
		return
	fi
	kbuild=${bz%/arch/x86/boot/bzImage}
	rel=$(cat "$kbuild/include/config/kernel.release")
	if ((!NORUN)); then
		if ! stap/fsaio-stap.sh build -r "$kbuild" -o "$mod" >"$OUT/bin/stap-build.log" 2>&1; then
			error "stap-cost: the SystemTap module did not build: $(tail -1 "$OUT/bin/stap-build.log")"
			part_file stap-cost error "$LAST_ERROR" "$(since "$t0")" "$rel" "$W/empty.json" "$W/empty.json"
			return
		fi
		rm -rf "$out"
		msg "stap-cost: patched $rel (FLAVOR=stap; icount, 2 vCPUs; fio ${STAP_RUNTIME}s x $STAP_ROUNDS rounds of none/bpf/stap) -> $out"
		ci/vm/vm-run.sh --kernel "$bz" --label stapcost --out "$out" --icount --cpus 2 --disks ext4 \
			--timeout 3600 -- "ci/bench/stapcost-guest.sh @OUT@/cells $mod $STAP_RUNTIME $STAP_ROUNDS" >/dev/null
	fi
	if [[ $(cat "$out/exit-code" 2>/dev/null) != "$EXIT_PASS" || ! -s $out/cells/cells.tsv ]]; then
		error "stap-cost: $(vm_result "$out")"
		part_file stap-cost error "$LAST_ERROR" "$(since "$t0")" "$rel" "$W/empty.json" "$W/empty.json"
		return
	fi
	: >"$raw"
	while IFS=$'\t' read -r engine src round file rc records lost secs; do
		if ! jq -e -L "$ROOT/ci/bench" 'include "bench"; fio_ok' "$out/cells/$file" >/dev/null 2>&1; then
			error "stap-cost: $engine $src round $round: fio failed: $(tail -1 "$out/cells/${file%.json}.err" 2>/dev/null)"
			status=error reason=$LAST_ERROR
			continue
		fi
		jq -c -L "$ROOT/ci/bench" --arg e "$engine" --arg s "$src" --argjson r "$round" --argjson rec "$records" \
			--argjson lost "$lost" --arg f "$out/cells/$file" \
			'include "bench"; stapcost_row($e; $s; $r; $rec; $lost; $f)' "$out/cells/$file" >>"$raw"
	done <"$out/cells/cells.tsv"
	jq -s -L "$ROOT/ci/bench" --arg rel "$rel" --arg rt "$STAP_RUNTIME" \
		'include "bench"; stapcost_figures($rel; $rt)' "$raw" >"$figs" &&
		"$FSAIO" bench stats "$figs" ||
		{ error "stap-cost: aggregation failed"; echo '[]' >"$figs"; status=error reason=$LAST_ERROR; }
	jq -n -L "$ROOT/ci/bench" --slurpfile F "$figs" 'include "bench"; stapcost_ratios($F[0])' >"$ratios" ||
		{ error "stap-cost: ratios failed"; echo '[]' >"$ratios"; status=error reason=$LAST_ERROR; }
	jq -n -L "$ROOT/ci/bench" --arg env "$(cat "$out/cells/env" 2>/dev/null)" \
		'include "bench"; stapcost_extra($env)' >"$extra"
	part_file stap-cost "$status" "$reason" "$(since "$t0")" "patched $rel (FLAVOR=stap)" "$figs" "$ratios" "$extra"
	msg "stap-cost: $status${reason:+ ($reason)} in $(since "$t0") s"
}

# ============================================================ main

command -v jq >/dev/null || die "jq not installed (ci/install-deps.sh)"
for k in stock patched; do resolve_kernel "$k"; done
msg "kernels: $(kernels_desc)"
for k in stock patched; do
	[[ -n ${KREASON[$k]:-} ]] && msg "$k: ${KREASON[$k]}"
done

T0=$(now)
[[ ,$PARTS, == *,syncpath,* ]] && part_syncpath
[[ ,$PARTS, == *,fsaio-table,* ]] && part_table
[[ ,$PARTS, == *,device-classes,* ]] && part_classes
[[ ,$PARTS, == *,database,* ]] && part_database
[[ ,$PARTS, == *,stap-cost,* ]] && part_stapcost
msg "done in $(since "$T0") s; parts in $PARTS_DIR"
if ((ERRORS)); then
	echo "bench-vm: ERROR: $LAST_ERROR"
	exit "$EXIT_ERROR"
fi
exit "$EXIT_PASS"
}
