#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of ci/bench/bench-vm.sh part "stap-cost": what each event
# source costs the traced program.  4 KiB random reads of a cached file
# (fio psync and io_uring), untraced, recorded by the BPF tracer (fsaio
# check --no-fentry --record: a record per event, as SystemTap writes) and
# recorded by SystemTap (stap/fsaio-stap.sh run), interleaved in rounds.
#
#   ci/bench/stapcost-guest.sh OUTDIR MODULE.ko RUNTIME ROUNDS
#
# Writes OUTDIR/<engine>-<source>-r<N>.json (fio JSON) and OUTDIR/cells.tsv
# (engine source round json fio-exit records lost seconds); OUTDIR/env
# describes the boot.  Under `ci/vm/vm-run.sh --icount` fio's figures are
# virtual time: instructions, which the host's load does not change.
set -u
. "$(dirname "$0")/../lib.sh"
out=$1 mod=$2 runtime=$3 rounds=$4
dir=${FSAIO_SCRATCH_EXT4:-}
[[ -n $dir && -d $dir ]] || die "no ext4 scratch mount (FSAIO_SCRATCH_EXT4)"
mkdir -p "$out" || exit "$EXIT_ERROR"
file=$dir/hot.dat
fio --name=lay --filename="$file" --size=64M --rw=write --bs=1M --output=/dev/null ||
	die "cannot lay out $file"
cat "$file" >/dev/null	# cached: the reads measure the path, not a device
{
	echo "release=$(uname -r)"
	echo "runtime=$runtime"
	echo "rounds=$rounds"
	echo "systemtap=$(stap -V 2>&1 | sed -n '1s/.*version \([^ ]*\).*/\1/p')"
} >"$out/env"
: >"$out/cells.tsv"

fio_cmd() {	# ENGINE JSON
	local e=$1 extra=()
	[[ $e == io_uring ]] && extra=(--iodepth=8)
	echo fio --name=bench --filename="$file" --size=64M --rw=randread --bs=4k --ioengine="$e" \
		--time_based --runtime="$runtime" --invalidate=0 --norandommap --randrepeat=0 \
		"${extra[@]}" --output-format=json --output="$2"
}

for ((r = 1; r <= rounds; r++)); do
	for e in psync io_uring; do
		for src in none bpf stap; do
			json=$out/$e-$src-r$r.json log=/tmp/stapcost-$e-$src.log
			rm -f "$log"
			t0=$(now)
			# shellcheck disable=SC2046
			case $src in
			none) $(fio_cmd "$e" "$json") >/dev/null 2>"$out/$e-$src-r$r.err" ;;
			bpf) ./fsaio check --no-fentry --record "$log" -- $(fio_cmd "$e" "$json") \
				>"$out/$e-$src-r$r.err" 2>&1 ;;
			stap) stap/fsaio-stap.sh run -m "$mod" -o "$log" -- $(fio_cmd "$e" "$json") \
				>"$out/$e-$src-r$r.err" 2>&1 ;;
			esac
			rc=$? secs=$(since "$t0" 1) records=0 lost=0
			if [[ $src != none && -s $log ]]; then
				./fsaio replay --json "$log.json" "$log" >/dev/null 2>&1
				records=$(jq '.runs[0].records // 0' "$log.json" 2>/dev/null || echo 0)
				lost=$(jq '.lost_events // 0' "$log.json" 2>/dev/null || echo 0)
			fi
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$e" "$src" "$r" "${json##*/}" "$rc" \
				"$records" "$lost" "$secs" >>"$out/cells.tsv"
			rm -f "$log" "$log.json"
		done
	done
done
rm -f "$file"
