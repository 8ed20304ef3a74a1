#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The VM parts of `make bench` (called by ci/bench/bench.sh): boot the cached
# stock and patched kernels in QEMU and write two part files (schema
# fsaio-bench/1, see ci/README.md "Benchmarks in the VM"):
#
#   syncpath     instructions per synchronous operation (cached pread 4 KiB
#                and 64 KiB, cold 4 KiB pread, buffered 4 KiB pwrite) on stock,
#                patched with fs.aio-buffered-async=0 and =1; QEMU
#                -icount shift=0,sleep=off, 1 vCPU, every configuration twice
#                per boot and in BOOTS boots per kernel
#   fsaio-table  the FSAIO table on 6.12: fio random/sequential reads and
#                sequential O_SYNC writes, 64 KiB x iodepth 64 and 4 KiB x
#                iodepth 32, on ext4 over dm-delay over a loop device in guest
#                RAM; stock and patched libaio buffered, io_uring buffered,
#                libaio O_DIRECT; MB/s, IOPS, submit latency percentiles; QEMU
#                -icount (virtual time: the host's load does not enter), 2
#                vCPUs, one boot per kernel
#
#   stap-cost    what each event source costs the traced program: fio 4 KiB
#                cached random reads (psync, io_uring) untraced, recorded by
#                the BPF tracer (fsaio check --no-fentry --record) and by
#                SystemTap (stap/fsaio-stap.sh run), interleaved in rounds,
#                on the patched kernel of FLAVOR=stap; -icount, 2 vCPUs
#
#   ci/bench/bench-vm.sh [PARTS_DIR] [--parts syncpath,fsaio-table,device-classes,stap-cost]
#                        [--kernels stock,patched] [--boots N] [--delay MS] [--runtime SEC]
#                        [--size SIZE] [--classes US,US,...] [--quick]
#
#   PARTS_DIR      where <part>.json go (default $BENCH_OUT/parts, BENCH_OUT
#                  defaulting to .output/bench)
#   device-classes the FSAIO table by device latency: ext4 on a memory-backed
#                null_blk whose requests complete from a timer 0.1, 1, 8 and
#                50 ms after submission; fio random reads and O_SYNC
#                overwrites, 4 KiB and 64 KiB, iodepth 1/8/32; stock libaio
#                buffered, io_uring buffered, O_DIRECT, patched libaio
#                buffered; -icount, 2 vCPUs, one boot per kernel
#
#   --parts        which parts (default all four)
#   --kernels      which kernels (default both; a kernel left out or not built
#                  makes the part "skipped", with the reason)
#   --boots N      syncpath boots per kernel (default 2)
#   --delay MS     dm-delay per I/O for the table (default 50, the least that
#                  keeps dm-delay on timers: below 50 ms it busy-polls)
#   --runtime SEC  fio runtime cap per table cell, virtual seconds (default 10)
#   --size SIZE    table test file (default 512M)
#   --classes US,..  device-classes latencies in us (default 100,1000,8000,50000)
#   --quick        a smoke run: small N, 1 boot, runtime 3, 128M (not for figures)
#   --no-run       boot nothing: rebuild the part files from the raw results of
#                  the last run (same options)
#
# Kernels: `ci/kernel/build-kernel.sh [--patched] --path` (never builds); or
# BENCH_VM_STOCK_KERNEL / BENCH_VM_PATCHED_KERNEL = a bzImage to use instead.
# Raw results: $BENCH_OUT/vm/<syncpath|table>-<kernel>[-bN]/ (ci/vm/vm-run.sh
# output dirs; syncpath.jsonl, table/*.json).
#
# Exit status (harness/exit_status.h): EXIT_PASS both part files written
# (missed goals and skipped kernels are reported in them, not failures);
# EXIT_ERROR (5) a VM run or a measurement failed (the part says which, and
# the last line printed is the reason); EXIT_USAGE (64).
set -uo pipefail
# One compound command: editing this file cannot break a running copy.
{

. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cannot cd to $ROOT"
OUT=${BENCH_OUT:-$ROOT/.output/bench}
FSAIO=${FSAIO:-$ROOT/fsaio}	# fsaio bench stats: the one implementation of the statistics
PARTS_DIR=
PARTS=syncpath,fsaio-table,device-classes,stap-cost
KERNELS=stock,patched
BOOTS=2 SLOW=50 RUNTIME=10 SIZE=512M QUICK=0 NORUN=0
# device classes (us): NVMe, SATA SSD, disk, and the fsaio-table's 50 ms
CLASSES=100,1000,8000,50000 CLASS_RUNTIME=2 CLASS_SIZE=256M
# stap-cost: virtual seconds per fio run, rounds of (none, bpf, stap)
STAP_RUNTIME=3 STAP_ROUNDS=3
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
	jq -n --arg s "$SCHEMA" --arg p "$1" --arg st "$2" --arg r "$3" --argjson sec "$sec" \
	      --arg k "$5" --slurpfile f "$6" --slurpfile rt "$7" --slurpfile x "${8:-$W/none.json}" \
	      '{schema: $s, part: $p, status: $st, reason: (if $r == "" then null else $r end),
	        seconds: $sec, kernel: $k, figures: $f[0], ratios: $rt[0]} + $x[0]' \
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
			jq -c --arg k "$k" --argjson b "$b" --arg rel "${rel:-${KRELEASE[$k]}}" \
			      --arg vmcmd "ci/vm/vm-run.sh --kernel ${KPATH[$k]} --icount --cpus 1 --disks none -- '$(syncpath_cmd)'" \
			      '(.tag | split(".")) as $t
			       | . + {kind: $k, boot: $b, release: $rel, vm_command: $vmcmd,
			              pass: ($t[1] | ltrimstr("p") | tonumber),
			              cfg: (if $t[0] == "stock" then (if $k == "stock" then "stock" else "patched-nosysctl" end)
			                    else "patched-" + $t[0] end)}' \
				"$out/syncpath.jsonl" >>"$raw"
		done
		kinds+=("$k")
	done
	part_skipped
	msg "syncpath: aggregating $(wc -l <"$raw") measurements"
	local figs=$W/syncpath-figures.json ratios=$W/syncpath-ratios.json extra=$W/syncpath-extra.json
	jq -s --arg n "$N_CACHED/$N_64K/$N_COLD" '
		def r3: . * 1000 | round / 1000;
		def opdesc: {pread4k: "cached 4 KiB pread", pread64k: "cached 64 KiB pread",
		             cold4k: "cold 4 KiB pread (page dropped with POSIX_FADV_DONTNEED before each)",
		             write4k: "buffered 4 KiB pwrite to a cached, allocated file"}[.];
		def cfgdesc: {stock: "stock kernel", "patched-async0": "patched kernel, fs.aio-buffered-async=0",
		              "patched-async1": "patched kernel, fs.aio-buffered-async=1",
		              "patched-nosysctl": "patched kernel without the sysctl"}[.];
		def cmd: "ci/bench/bench-vm.sh --parts syncpath --kernels \(if .cfg == "stock" then "stock" else "patched" end)";
		group_by(.cfg + "|" + .op) | map(sort_by(.boot, .pass)) | map(
		  .[0] as $f | ($f.op == "cold4k") as $cold |
		  (map(.med)) as $s |
		  (map(if $cold then .cpu_ns else .mono_ns end)) as $l |
		  {id: "syncpath.\($f.cfg).\($f.op).insn", series: $f.cfg, group: $f.op,
		   metric: (if $cold then "instructions per cold read: median over the reads of the thread CPU time around pread (1 ns = 1 instruction under -icount); the device wait (dm-delay 50 ms) and the loop device worker are not on this thread"
		            else "instructions per operation: median over N of the rdtsc delta around the syscall (1 tick = 1 instruction under -icount), minus an empty rdtsc pair: the uninterrupted path" end),
		   config: "\($f.cfg | cfgdesc); \($f.op | opdesc)",
		   stat: "mean", digits: 3, unit: "instructions", samples: $s, spread_pct: null,
		   samples_are: "\(length) runs: boot-major, pass-minor (\(map("b\(.boot)p\(.pass)") | join(" ")))",
		   kernel: $f.release, command: ($f | cmd), vm_command: $f.vm_command},
		  {id: "syncpath.\($f.cfg).\($f.op).loop", series: $f.cfg, group: $f.op,
		   metric: (if $cold then "thread CPU ns per fadvise(DONTNEED)+pread, loop of N (= instructions under -icount, incl. interrupts on this thread)"
		            else "CLOCK_MONOTONIC ns per op over N back-to-back ops (= instructions under -icount, incl. timer ticks and other interrupts)" end),
		   config: "\($f.cfg | cfgdesc); \($f.op | opdesc)",
		   stat: "mean", digits: 3, unit: "virtual ns", samples: ($l | map(r3)), spread_pct: null,
		   kernel: $f.release, command: ($f | cmd), vm_command: $f.vm_command}
		) | flatten' "$raw" >"$figs" && "$FSAIO" bench stats "$figs" ||
		{ error "syncpath: aggregation failed"; echo '[]' >"$figs"; status=error reason=$LAST_ERROR; }
	jq -n --slurpfile F "$figs" '$F[0] as $f |
		def r5: . * 100000 | round / 100000;
		($f | map(select(.id | endswith(".insn"))) | map({key: .id, value: .}) | from_entries) as $m
		| [ ("pread4k", "pread64k", "cold4k", "write4k") as $op
		  | ("patched-async0", "patched-async1") as $cfg
		  | $m["syncpath.stock.\($op).insn"] as $d | $m["syncpath.\($cfg).\($op).insn"] as $n
		  | select($d != null and $n != null)
		  | ($n.value / $d.value) as $v
		  | ({pread4k: 4096, pread64k: 65536, cold4k: 4096, write4k: 4096}[$op]) as $bytes
		  | (($n.value - $bytes) / ($d.value - $bytes)) as $nocopy
		  | {id: "syncpath.ratio.\($op).\($cfg)-vs-stock", num: $n.id, den: $d.id, value: ($v | r5)}
		    + (if $op == "pread4k" then {goal: "<= 1.005", met: ($v <= 1.005)} else {} end)
		    + {note: ("\($n.value - $d.value | . * 10 | round / 10) instructions per op (\(($v - 1) * 100 | . * 1000 | round / 1000)%); "
		             + "without the \($bytes) copy iterations (icount counts each byte of the rep movsb copy as one instruction) the ratio is \($nocopy | r5); "
		             + "run-to-run spread: stock \($d.spread_pct)%, patched \($n.spread_pct)% over \($d.samples | length)/\($n.samples | length) runs"
		             + (if $n.value == $d.value then "; identical counts: none of the patched code is on this path" else "" end))}
		  ]' >"$ratios" || { error "syncpath: ratios failed"; echo '[]' >"$ratios"; status=error reason=$LAST_ERROR; }
	jq -n --argjson n "[$N_CACHED,$N_64K,$N_COLD]" --argjson boots "$BOOTS" --argjson passes "$PASSES" \
		'{method: "QEMU TCG -icount shift=0,sleep=off (1 virtual ns per instruction), 1 vCPU, ext4 on dm-delay 50 ms on a loop device over tmpfs (no I/O leaves the guest; every cold read sleeps on the device), vm.dirty_writeback_centisecs=0; ci/bench/syncpath.c pinned to CPU 0; per kernel configuration: \($boots) boot(s) x \($passes) interleaved passes",
		  iterations: {cached4k: $n[0], cached64k: $n[1], cold4k: $n[2]}, raw: "vm/syncpath.jsonl"}' >"$extra"
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
			sed -n '/^{/,$p' "$out/table/$file" | jq -c --arg k "$k" --arg c "$cname" --arg w "$wname" \
				--arg rel "$rel" --argjson secs "$secs" --arg f "$out/table/$file" '
				.jobs[0] as $j
				| (if ($j["job options"].rw // .["global options"].rw) == "write" then "write" else "read" end) as $d
				| $j[$d] as $x
				| {kind: $k, cname: $c, wname: $w, release: $rel, dir: $d, wall_s: $secs, file: $f,
				   iops: $x.iops, mbps: ($x.bw_bytes / 1e6), ios: $x.total_ios, runtime_ms: $x.runtime,
				   slat_mean_us: ($x.slat_ns.mean / 1000),
				   slat: ($x.slat_ns.percentile // {} | to_entries | map({p: (.key | tonumber), us: (.value / 1000)})),
				   clat_p50_us: ((($x.clat_ns.percentile // {})["50.000000"] // 0) / 1000),
				   clat_p99_us: ((($x.clat_ns.percentile // {})["99.000000"] // 0) / 1000),
				   error: $j.error}' >>"$raw" ||
				{ error "fsaio-table: $k $cname $wname: unreadable fio JSON $file"; status=error reason=$LAST_ERROR; }
		done <"$out/table/cells.tsv"
		# Cross-check of slat against the trace.
		if [[ -s $out/table/xcheck.json && -s $out/table/xcheck-fio.json ]]; then
			jq -c -n --arg k "$k" --arg rel "$rel" \
			      --slurpfile c "$out/table/xcheck.json" --slurpfile f "$out/table/xcheck-fio.json" '
				$c[0].engines.libaio as $e | $f[0].jobs[0].read as $r
				| {xcheck: true, kind: $k, release: $rel, verdict: $c[0].verdict,
				   fio_ios: $r.total_ios, fio_slat_mean_us: ($r.slat_ns.mean / 1000),
				   traced_submits: $e.submit_calls, traced_submitted: $e.submitted,
				   traced_submit_us: (if $e.submit_calls > 0 then $e.submit_ns / $e.submit_calls / 1000 else null end),
				   traced_blocked_us: (if $e.submit_calls > 0 then $e.blocked_ns / $e.submit_calls / 1000 else null end),
				   lost: $c[0].lost_events}' >>"$raw" 2>/dev/null ||
				msg "fsaio-table: $k: cross-check output unreadable (see $out/table/xcheck.*)"
		else
			msg "fsaio-table: $k: no cross-check ($(tail -1 "$out/table/xcheck.err" 2>/dev/null || echo './fsaio not built?'))"
		fi
		kinds+=("$k")
	done
	part_skipped
	local figs=$W/table-figures.json ratios=$W/table-ratios.json extra=$W/table-extra.json
	local cdf=$W/table-cdf.json xcheck=$W/table-xcheck.json
	jq -s --arg slow "$SLOW" --arg rt "$RUNTIME" --arg size "$SIZE" '
		def r2: . * 100 | round / 100;
		def cfgdesc: {"libaio-buffered": "libaio buffered", "libaio-buffered-async0": "libaio buffered, fs.aio-buffered-async=0 (control)",
		              "io_uring-buffered": "io_uring buffered", "libaio-direct": "libaio O_DIRECT"}[.];
		def wdesc: {"randread-64k": "random read 64 KiB, iodepth 64", "randread-4k": "random read 4 KiB, iodepth 32",
		            "seqread-64k": "sequential read 64 KiB, iodepth 64", "seqread-4k": "sequential read 4 KiB, iodepth 32",
		            "osync-write-64k": "sequential O_SYNC write 64 KiB, iodepth 64 (overwrite)",
		            "osync-write-4k": "sequential O_SYNC write 4 KiB, iodepth 32 (overwrite)"}[.];
		map(select(.xcheck | not)) | map(
		  (.kind + "-" + .cname) as $s | .wname as $g
		  | {series: $s, group: $g, kernel: .release,
		     config: "\(.kind) kernel, \(.cname | cfgdesc)\(if .kind == "patched" and .cname != "libaio-buffered-async0" then " (fs.aio-buffered-async=1)" else "" end); \(.wname | wdesc); ext4 on dm-delay \($slow) ms (loop device in guest RAM), \($size) file, runtime cap \($rt) s",
		     command: "ci/bench/bench-vm.sh --parts fsaio-table --kernels \(.kind) --delay \($slow) --runtime \($rt) --size \($size)",
		     samples_are: "one fio run (\(.ios) I/Os in \(.runtime_ms) ms)", raw: .file} as $b
		  | ($b + {id: "fsaio-table.\($s).\($g).MBps", metric: "throughput", value: (.mbps | r2), unit: "MB/s", samples: [(.mbps | r2)]}),
		    ($b + {id: "fsaio-table.\($s).\($g).iops", metric: "IOPS", value: (.iops | r2), unit: "IOPS", samples: [(.iops | r2)]}),
		    ($b + {id: "fsaio-table.\($s).\($g).slat_mean", metric: "submit latency mean (fio slat)", value: (.slat_mean_us | r2), unit: "us"}),
		    (.slat[] as $p | $b + {id: "fsaio-table.\($s).\($g).slat_p\($p.p)", metric: "submit latency p\($p.p) (fio slat)", value: ($p.us | r2), unit: "us"}),
		    ($b + {id: "fsaio-table.\($s).\($g).clat_p99", metric: "completion latency p99 (fio clat)", value: (.clat_p99_us | r2), unit: "us"})
		)' "$raw" >"$figs" || { error "fsaio-table: aggregation failed"; echo '[]' >"$figs"; status=error reason=$LAST_ERROR; }
	jq -n --slurpfile F "$figs" --arg slow "$SLOW" '$F[0] as $f |
		def r3: . * 1000 | round / 1000;
		($f | map({key: .id, value: .}) | from_entries) as $m
		| def v($s; $g; $x): $m["fsaio-table.\($s).\($g).\($x)"];
		  def ratio($id; $n; $d; $goal; $note):
		    select($n != null and $d != null and $d.value != 0)
		    | ($n.value / $d.value) as $v
		    | {id: $id, num: $n.id, den: $d.id, value: ($v | r3)}
		      + (if $goal == null then {} else {goal: $goal, met: ($goal | capture("(?<op>[<>]=) *(?<n>[0-9.]+)") | (.n | tonumber) as $t | if .op == ">=" then $v >= $t else $v <= $t end)} end)
		      + {note: $note};
		  def lat($s; $g): "slat p50/p99 \(v($s; $g; "slat_p50").value)/\(v($s; $g; "slat_p99").value) us";
		[ ("randread-64k", "randread-4k") as $g
		  | ratio("fsaio-table.ratio.\($g).iops.patched-vs-stock"; v("patched-libaio-buffered"; $g; "iops"); v("stock-libaio-buffered"; $g; "iops"); ">= 2";
		          "libaio buffered IOPS, patched (fs.aio-buffered-async=1) / stock; stock \(lat("stock-libaio-buffered"; $g)): io_submit sleeps on every miss, so the queue depth never reaches the device (dm-delay \($slow) ms); patched \(lat("patched-libaio-buffered"; $g))"),
		    ratio("fsaio-table.ratio.\($g).iops.patched-vs-io_uring"; v("patched-libaio-buffered"; $g; "iops"); v("patched-io_uring-buffered"; $g; "iops"); ">= 0.9";
		          "patched libaio buffered / io_uring buffered on the patched kernel; io_uring \(lat("patched-io_uring-buffered"; $g)), libaio \(lat("patched-libaio-buffered"; $g))"),
		    ratio("fsaio-table.ratio.\($g).iops.stock-io_uring-vs-stock"; v("stock-io_uring-buffered"; $g; "iops"); v("stock-libaio-buffered"; $g; "iops"); null;
		          "what io_uring already gives on the stock kernel")
		] + [
		  ("seqread-64k", "seqread-4k") as $g
		  | ratio("fsaio-table.ratio.\($g).MBps.patched-vs-stock"; v("patched-libaio-buffered"; $g; "MBps"); v("stock-libaio-buffered"; $g; "MBps"); null;
		          "no goal: readahead already overlaps sequential reads on stock; stock \(lat("stock-libaio-buffered"; $g)), patched \(lat("patched-libaio-buffered"; $g))")
		] + [
		  ("osync-write-64k", "osync-write-4k") as $g
		  | ratio("fsaio-table.ratio.\($g).iops.patched-vs-stock"; v("patched-libaio-buffered"; $g; "iops"); v("stock-libaio-buffered"; $g; "iops"); ">= 2";
		          "libaio buffered O_SYNC, patched / stock; stock \(lat("stock-libaio-buffered"; $g)), patched \(lat("patched-libaio-buffered"; $g)); io_uring buffered on patched: \(v("patched-io_uring-buffered"; $g; "iops").value // "?") IOPS, O_DIRECT: \(v("patched-libaio-direct"; $g; "iops").value // "?") IOPS")
		] + [
		  ("randread-64k", "randread-4k", "seqread-64k", "seqread-4k", "osync-write-64k", "osync-write-4k") as $g
		  | ratio("fsaio-table.ratio.\($g).slat_p99.stock-vs-patched"; v("stock-libaio-buffered"; $g; "slat_p99"); v("patched-libaio-buffered"; $g; "slat_p99"); ">= 10";
		          "libaio buffered submit latency p99, stock / patched: \(v("stock-libaio-buffered"; $g; "slat_p99").value) us / \(v("patched-libaio-buffered"; $g; "slat_p99").value) us; p99.9: \(v("stock-libaio-buffered"; $g; "slat_p99.9").value) / \(v("patched-libaio-buffered"; $g; "slat_p99.9").value) us"
		          + (if v("stock-libaio-buffered"; $g; "slat_p99").value < 1000 then "; on stock fewer than 1% of these submits sleep on the device (readahead stays ahead), so p99 is the CPU cost of the readahead both kernels start inline (io_uring: \(v("stock-io_uring-buffered"; $g; "slat_p99").value) us); the sleeping submits show from p99.5 on" else "" end))
		] + [
		  ("randread-64k", "randread-4k", "seqread-64k", "seqread-4k", "osync-write-64k", "osync-write-4k") as $g
		  | ratio("fsaio-table.ratio.\($g).iops.direct-patched-vs-stock"; v("patched-libaio-direct"; $g; "iops"); v("stock-libaio-direct"; $g; "iops"); null;
		          "control: O_DIRECT does not touch the patched paths, so this shows the run-to-run noise of one fio run under TCG")
		] + [
		  ratio("fsaio-table.ratio.randread-4k.iops.async0-vs-stock"; v("patched-libaio-buffered-async0"; "randread-4k"; "iops"); v("stock-libaio-buffered"; "randread-4k"; "iops"); null;
		        "control: the patched kernel with fs.aio-buffered-async=0 should behave as stock")
		]' >"$ratios" || { error "fsaio-table: ratios failed"; echo '[]' >"$ratios"; status=error reason=$LAST_ERROR; }
	jq -s 'map(select(.xcheck | not)) | map({id: "fsaio-table.\(.kind)-\(.cname).\(.wname).slat", series: "\(.kind)-\(.cname)", group: .wname,
		unit: "us", points: (.slat | map([.p, (.us * 100 | round / 100)]))})' "$raw" >"$cdf" || echo '[]' >"$cdf"
	jq -s 'map(select(.xcheck)) | map(del(.xcheck)
		| . + {agree: (if .traced_submit_us == null then null else ((.fio_slat_mean_us - .traced_submit_us) | fabs) <= (0.5 * ([.fio_slat_mean_us, .traced_submit_us] | max) + 50) end),
		       rule: "fsaio check workload_agreement rule: |fio slat mean - traced io_submit time per call| <= 50% of the larger + 50 us"})' "$raw" >"$xcheck" || echo '[]' >"$xcheck"
	# The cross-check as figures too, so that it shows in the table.
	jq -n --slurpfile F "$figs" --slurpfile X "$xcheck" --arg slow "$SLOW" 'def r2: if . == null then null else . * 100 | round / 100 end;
		$F[0] as $f | $X[0] as $x | $f + [ $x[] as $c
		| ({id: "fsaio-table.xcheck.\($c.kind).fio_slat_mean", series: "xcheck-\($c.kind)", group: "randread-4k",
		    metric: "fio slat mean, 4 KiB libaio buffered random read under fsaio check", value: ($c.fio_slat_mean_us | r2), unit: "us",
		    kernel: $c.release, config: "\($c.kind) kernel; traced by ./fsaio check (verdict \($c.verdict), lost \($c.lost))",
		    command: "ci/bench/bench-vm.sh --parts fsaio-table --kernels \($c.kind) --delay \($slow)"},
		   {id: "fsaio-table.xcheck.\($c.kind).traced_submit", series: "xcheck-\($c.kind)", group: "randread-4k",
		    metric: (if $c.traced_submit_us == null then "traced io_submit time per call: no io_submit traced (\($c.traced_submitted) requests seen; no syscall tracepoints in this kernel?)"
		             else "traced io_submit time per call (\($c.traced_submits) calls, blocked \($c.traced_blocked_us | r2) us/call in page waits); agrees with fio slat: \($c.agree)" end),
		    value: ($c.traced_submit_us | r2), unit: "us", kernel: $c.release,
		    config: "\($c.kind) kernel; traced by ./fsaio check",
		    command: "ci/bench/bench-vm.sh --parts fsaio-table --kernels \($c.kind) --delay \($slow)"}) ]' >"$figs.tmp" &&
		mv "$figs.tmp" "$figs"
	jq -n --slurpfile cdf "$cdf" --slurpfile x "$xcheck" --arg slow "$SLOW" --arg rt "$RUNTIME" --arg size "$SIZE" \
		'{method: "QEMU TCG -icount shift=0,sleep=off (virtual time: 1 ns per instruction, idle time skipped to the next timer, so the figures do not depend on the host load), 2 vCPUs, 3 GiB; ext4 on dm-delay \($slow) ms per read, write and flush on a loop device over a tmpfs file (no I/O leaves the guest); one \($size) file laid out and fsynced once, caches dropped before every cell (and fio invalidate=1); fio iodepth_batch_submit=1, runtime cap \($rt) s of virtual time or one pass over the file; one boot per kernel; job file ci/bench/table.fio, driver ci/bench/table-guest.sh",
		  cdf: $cdf[0], xcheck: $x[0], raw: "vm/table.jsonl"}' >"$extra"
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
			sed -n '/^{/,$p' "$out/classes/$file" | jq -c --arg k "$k" --arg c "$cname" --arg w "$wname" \
				--argjson us "$us" --argjson qd "$qd" --arg rel "$rel" --argjson secs "$secs" \
				--arg f "$out/classes/$file" '
				.jobs[0] as $j
				| (if ($j["job options"].rw // .["global options"].rw) == "write" then "write" else "read" end) as $d
				| $j[$d] as $x
				| {kind: $k, cname: $c, wname: $w, us: $us, qd: $qd, release: $rel, wall_s: $secs, file: $f,
				   iops: $x.iops, mbps: ($x.bw_bytes / 1e6), ios: $x.total_ios, runtime_ms: $x.runtime,
				   slat_mean_us: ($x.slat_ns.mean / 1000),
				   clat_p50_us: ((($x.clat_ns.percentile // {})["50.000000"] // 0) / 1000)}' >>"$raw" ||
				{ error "device-classes: unreadable fio JSON $file"; status=error reason=$LAST_ERROR; }
		done <"$out/classes/cells.tsv"
		kinds+=("$k")
	done
	part_skipped
	local figs=$W/classes-figures.json ratios=$W/classes-ratios.json extra=$W/classes-extra.json
	jq -s --arg rt "$CLASS_RUNTIME" --arg size "$CLASS_SIZE" '
		def r2: . * 100 | round / 100;
		def cfgdesc: {"libaio-buffered": "libaio buffered", "io_uring-buffered": "io_uring buffered",
		              "libaio-direct": "libaio O_DIRECT"}[.];
		def wdesc: {"randread-4k": "random read 4 KiB", "randread-64k": "random read 64 KiB",
		            "osync-write-4k": "sequential O_SYNC overwrite 4 KiB",
		            "osync-write-64k": "sequential O_SYNC overwrite 64 KiB"}[.];
		map(
		  (.kind + "-" + .cname) as $s | "\(.us)us.\(.wname)-qd\(.qd)" as $g
		  | {series: $s, group: $g, kernel: .release,
		     config: "\(.kind) kernel, \(.cname | cfgdesc)\(if .kind == "patched" then " (fs.aio-buffered-async=1)" else "" end); \(.wname | wdesc), iodepth \(.qd); ext4 on null_blk completing every request \(.us) us after submission (memory-backed, irqmode=2), \($size) file, runtime cap max(\($rt) s, 100 device latencies)",
		     command: "ci/bench/bench-vm.sh --parts device-classes --kernels \(.kind)",
		     samples_are: "one fio run (\(.ios) I/Os in \(.runtime_ms) ms of virtual time)", raw: .file,
		     device_us: .us, qd: .qd, workload: .wname} as $b
		  | ($b + {id: "device-classes.\($s).\($g).iops", metric: "IOPS", value: (.iops | r2), unit: "IOPS", samples: [(.iops | r2)]}),
		    ($b + {id: "device-classes.\($s).\($g).MBps", metric: "throughput", value: (.mbps | r2), unit: "MB/s", samples: [(.mbps | r2)]}),
		    ($b + {id: "device-classes.\($s).\($g).slat_mean", metric: "submit latency mean (fio slat)", value: (.slat_mean_us | r2), unit: "us"}),
		    ($b + {id: "device-classes.\($s).\($g).clat_p50", metric: "completion latency p50 (fio clat)", value: (.clat_p50_us | r2), unit: "us"})
		) | flatten' "$raw" >"$figs" ||
		{ error "device-classes: aggregation failed"; echo '[]' >"$figs"; status=error reason=$LAST_ERROR; }
	# Ratios per class, workload and depth; the 2007 FSAIO table (a disk of
	# its day: random read 2.37x, O_SYNC write 3.76x, patched / stock
	# libaio) stands beside the disk class.
	jq -n --slurpfile F "$figs" '$F[0] as $f |
		def r3: . * 1000 | round / 1000;
		($f | map(select(.id | endswith(".iops"))) | map({key: .id, value: .}) | from_entries) as $m
		| def v($s; $g): $m["device-classes.\($s).\($g).iops"];
		  def ratio($id; $n; $d; $note):
		    select($n != null and $d != null and $d.value != 0)
		    | {id: $id, num: $n.id, den: $d.id, value: ($n.value / $d.value | r3), note: $note};
		  def y2007($w): if ($w | startswith("randread")) then 2.37 else 3.76 end;
		[ $f[] | select(.id | endswith(".iops")) | .group ] | unique | map(
		  . as $g | ($g | capture("^(?<us>[0-9]+)us\\.(?<w>.*)-qd(?<qd>[0-9]+)$")) as $c
		  | ratio("device-classes.ratio.\($g).patched-vs-stock"; v("patched-libaio-buffered"; $g); v("stock-libaio-buffered"; $g);
		          "libaio buffered IOPS, patched / stock, device \($c.us) us, iodepth \($c.qd)"
		          + (if $c.us == "8000" then "; the 2007 FSAIO table (a disk of its day) gave \(y2007($c.w))x for \(if ($c.w | startswith("randread")) then "random reads" else "O_SYNC writes" end)" else "" end)),
		    ratio("device-classes.ratio.\($g).patched-vs-io_uring"; v("patched-libaio-buffered"; $g); v("stock-io_uring-buffered"; $g);
		          "patched libaio buffered / io_uring buffered (stock kernel: io_uring does not enter the patched code)"),
		    ratio("device-classes.ratio.\($g).patched-vs-direct"; v("patched-libaio-buffered"; $g); v("stock-libaio-direct"; $g);
		          "patched libaio buffered / libaio O_DIRECT")
		) | flatten' >"$ratios" || { error "device-classes: ratios failed"; echo '[]' >"$ratios"; status=error reason=$LAST_ERROR; }
	jq -n --arg rt "$CLASS_RUNTIME" --arg size "$CLASS_SIZE" --arg cl "$CLASSES" \
		'{method: "QEMU TCG -icount shift=0,sleep=off (virtual time), 2 vCPUs, 3 GiB; per device class a memory-backed null_blk (configfs; irqmode=2: every request completes from an hrtimer the class latency after submission, no vCPU polls; no volatile cache, so flushes are free) with ext4 on it and one \($size) file laid out and fsynced; caches dropped before every cell; fio iodepth_batch_submit=1, runtime cap max(\($rt) s, 100 x latency) of virtual time or one pass over the file; one boot per kernel; job file ci/bench/table.fio, driver ci/bench/classes-guest.sh. Classes (us): \($cl)",
		  classes_us: ($cl | split(",") | map(tonumber)),
		  fsaio_2007: {randread: 2.37, osync_write: 3.76, note: "patched / stock libaio, the 2007 FSAIO patch set on a disk of its day, as published with it"},
		  raw: "vm/classes.jsonl"}' >"$extra"
	part_file device-classes "$status" "$reason" "$(since "$t0")" "$(kernels_desc)" "$figs" "$ratios" "$extra"
	msg "device-classes: $status${reason:+ ($reason)} in $(since "$t0") s"
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
		if ! jq -e '.jobs[0].error == 0 and .jobs[0].read.total_ios > 0' "$out/cells/$file" >/dev/null 2>&1; then
			error "stap-cost: $engine $src round $round: fio failed: $(tail -1 "$out/cells/${file%.json}.err" 2>/dev/null)"
			status=error reason=$LAST_ERROR
			continue
		fi
		jq -c --arg e "$engine" --arg s "$src" --argjson r "$round" --argjson rec "$records" \
			--argjson lost "$lost" --arg f "$out/cells/$file" \
			'{engine: $e, source: $s, round: $r, records: $rec, lost: $lost, file: $f,
			  iops: .jobs[0].read.iops, ios: .jobs[0].read.total_ios}' "$out/cells/$file" >>"$raw"
	done <"$out/cells/cells.tsv"
	jq -s --arg rel "$rel" --arg rt "$STAP_RUNTIME" '
		def desc: {none: "untraced", bpf: "BPF tracer recording every event (fsaio check --no-fentry --record)",
		           stap: "SystemTap recording every event (stap/fsaio-stap.sh run)"}[.];
		group_by(.engine + .source) | map(
		  .[0] as $a | {id: "stap-cost.\($a.engine).\($a.source).iops", metric: "IOPS", unit: "IOPS",
		    series: $a.source, group: $a.engine, kernel: $rel, stat: "median", digits: 1,
		    samples: map(.iops), records: map(.records), lost: map(.lost),
		    config: "fio 4 KiB random reads of a cached 64 MiB file, \($a.engine)\(if $a.engine == "io_uring" then " iodepth 8" else "" end), \($rt) s virtual time; \($a.source | desc)",
		    command: "ci/bench/bench-vm.sh --parts stap-cost",
		    samples_are: "one fio run per round, rounds interleaved (none, bpf, stap)"})' "$raw" >"$figs" &&
		"$FSAIO" bench stats "$figs" ||
		{ error "stap-cost: aggregation failed"; echo '[]' >"$figs"; status=error reason=$LAST_ERROR; }
	jq --slurpfile F "$figs" -n '$F[0] as $f |
		def r3: . * 1000 | round / 1000;
		($f | map({key: .id, value: .}) | from_entries) as $m
		| [ ("psync", "io_uring") as $e
		    | ( {id: "stap-cost.ratio.\($e).bpf-vs-none", num: "stap-cost.\($e).bpf.iops", den: "stap-cost.\($e).none.iops",
		         note: "traced / untraced IOPS, BPF recording every event"},
		        {id: "stap-cost.ratio.\($e).stap-vs-none", num: "stap-cost.\($e).stap.iops", den: "stap-cost.\($e).none.iops",
		         note: "traced / untraced IOPS, SystemTap recording every event"},
		        {id: "stap-cost.ratio.\($e).stap-vs-bpf", num: "stap-cost.\($e).stap.iops", den: "stap-cost.\($e).bpf.iops",
		         note: "SystemTap / BPF traced IOPS (above 1: SystemTap costs less)"} )
		    | select($m[.num] != null and $m[.den] != null and $m[.den].value != 0)
		    | . + {value: ($m[.num].value / $m[.den].value | r3)} ]' >"$ratios" ||
		{ error "stap-cost: ratios failed"; echo '[]' >"$ratios"; status=error reason=$LAST_ERROR; }
	jq -n --arg env "$(cat "$out/cells/env" 2>/dev/null)" \
		'{method: "QEMU TCG -icount shift=0,sleep=off (virtual time: instructions), 2 vCPUs; the patched 6.12 kernel of FLAVOR=stap (modules, kprobes, DWARF); both sources record every event of the traced fio and its threads; records and lost per run in each figure; driver ci/bench/stapcost-guest.sh",
		  guest: ($env | split("\n"))}' >"$extra"
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
[[ ,$PARTS, == *,stap-cost,* ]] && part_stapcost
msg "done in $(since "$T0") s; parts in $PARTS_DIR"
if ((ERRORS)); then
	echo "bench-vm: ERROR: $LAST_ERROR"
	exit "$EXIT_ERROR"
fi
exit "$EXIT_PASS"
}
