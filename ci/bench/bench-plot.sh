#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Plots of a benchmark result, drawn only from bench.json (so they agree
# with the table `fsaio bench show` prints), as SVG and PNG (gnuplot).
#
#   ci/bench/bench-plot.sh BENCH_JSON OUTDIR
#
#   tracer-throughput   part tracer: IOPS untraced vs traced per engine, ± stddev
#   table-throughput    part fsaio-table: figures in MB/s (or MiB/s), by workload
#   table-iops          part fsaio-table: figures in IOPS, by workload
#   slat-cdf-<workload> part fsaio-table: submit-latency CDF from the slat_pNN
#                       percentile figures, one line per series
#   classes-<workload>  part device-classes: IOPS against device latency,
#                       one line per engine and iodepth
#   syncpath-insn       part syncpath: instructions per operation by kernel
#   syncpath-insn-vs-stock  the same as % over the "stock" series
#   database-tps, database-p99  part database: transactions/s and p99
#                       latency per kernel and flush method, by device class
#
# Series and group of a figure: its "series" and "group" fields if present,
# else the second and third..second-to-last dot-separated fields of its id
# (<part>.<series>.<group...>.<metric>).  A plot without figures is skipped
# with the reason (the part's status).  Writes OUTDIR/plots.json: what was
# drawn (its files) or why not.  The figures are read by the
# plot_* defs of ci/bench/bench.jq.  Exit status (harness/exit_status.h):
# EXIT_PASS, EXIT_ERROR (5) gnuplot or jq failed, EXIT_USAGE (64).
set -uo pipefail
{
. "$(dirname "$0")/../lib.sh"

[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
[[ $# -eq 2 ]] || usage_error "BENCH_JSON OUTDIR expected"
[[ -f $1 ]] || usage_error "no such file: $1"
JSON=$1 OUT=$2
command -v gnuplot >/dev/null || die "gnuplot not installed (ci/install-deps.sh installs gnuplot-nox)"
mkdir -p "$OUT" || die "cannot create $OUT"
TMP=$(mktemp -d /tmp/fsaio-plot.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT
FAILED=0
: >"$TMP/plots.tsv"	# name, status, files or reason

# part_reason PART: "part P skipped: reason" for a plot without figures
part_reason() {
	jq -r -L "$ROOT/ci/bench" --arg p "$1" 'include "bench"; plot_part_reason($p)' "$JSON"
}

note() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$TMP/plots.tsv"; echo "plot $1: $2${3:+: $3}"; }

# render NAME GNUPLOT-BODY: NAME.svg and NAME.png in OUT
render() {
	local name=$1 body=$2 t ok=1
	for t in svg png; do
		{
			if [[ $t == svg ]]; then
				echo "set terminal svg size 900,520 dynamic enhanced font 'sans,11' background rgb 'white'"
			else
				echo "set terminal pngcairo size 900,520 enhanced font 'sans,10' background rgb 'white'"
			fi
			echo "set output '$OUT/$name.$t'"
			echo "$body"
		} >"$TMP/$name.$t.gp"
		gnuplot "$TMP/$name.$t.gp" 2>"$TMP/$name.$t.err" || {
			msg "gnuplot failed for $name.$t: $(head -3 "$TMP/$name.$t.err")"
			ok=0
		}
	done
	if ((ok)); then
		note "$name" drawn "$name.svg $name.png"
	else
		note "$name" error "gnuplot failed"
		FAILED=1
	fi
}

# pivot FILTER > TSV: the figures FILTER selects, a row per group, value
# and stddev per series (plot_pivot in bench.jq).
pivot() {
	jq -r -L "$ROOT/ci/bench" "include \"bench\"; plot_pivot($1)" "$JSON"
}

# first_unit FILTER: the unit of the first figure FILTER selects
first_unit() {
	jq -r -L "$ROOT/ci/bench" "include \"bench\"; plot_first_unit($1)" "$JSON"
}

# bars NAME TITLE YLABEL TSV: clustered bars with error bars
bars() {
	local name=$1 title=$2 ylabel=$3 tsv=$4 nser
	nser=$(( ($(head -1 "$tsv" | awk -F'\t' '{ print NF }') - 1) / 2 ))
	render "$name" "
set title \"$title\" noenhanced
set datafile separator '\t'
set datafile missing '?'
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.75 border -1
set boxwidth 0.9
set key outside right top noenhanced
set ylabel '$ylabel'
$(if [[ -n ${YLOG:-} ]]; then echo "set logscale y"; echo "set yrange [*:*]"; else echo "set yrange [${YMIN:-0}:*]"; fi)
set xtics rotate by -25 noenhanced
set grid ytics
plot for [i=0:$((nser - 1))] '$tsv' using (column(2+2*i)):(column(3+2*i)):xtic(1) title columnheader(2+2*i)"
}

# ------------------------------------------------------------ tracer
pivot '.part == "tracer" and (.id | test("^tracer\\.(un)?traced\\.[^.]+\\.iops$"))' >"$TMP/tracer.tsv"
if [[ -s $TMP/tracer.tsv ]]; then
	title=$(jq -r -L "$ROOT/ci/bench" 'include "bench"; plot_tracer_title' "$JSON")
	bars tracer-throughput "4 KiB cached random reads, untraced vs under fsaio trace (mean ± stddev)\\ntraced/untraced: $title" IOPS "$TMP/tracer.tsv"
else
	note tracer-throughput skipped "$(part_reason tracer)"
fi

# ------------------------------------------------------------ fsaio-table
pivot '.part == "fsaio-table" and (.unit | test("^MB/s$|^MiB/s$"))' >"$TMP/tput.tsv"
if [[ -s $TMP/tput.tsv ]]; then
	YLOG=1 bars table-throughput "The FSAIO table on 6.12: throughput (log scale)" \
		"$(first_unit '.part == "fsaio-table" and (.unit | test("^MB/s$|^MiB/s$"))')" "$TMP/tput.tsv"
else
	note table-throughput skipped "$(part_reason fsaio-table)"
fi
pivot '.part == "fsaio-table" and .unit == "IOPS"' >"$TMP/iops.tsv"
if [[ -s $TMP/iops.tsv ]]; then
	YLOG=1 bars table-iops "The FSAIO table on 6.12: IOPS (log scale)" IOPS "$TMP/iops.tsv"
else
	note table-iops skipped "$(part_reason fsaio-table)"
fi

# Submit-latency CDFs: for each group (workload), one line per series
# through the points (latency, percentile).
jq -r -L "$ROOT/ci/bench" 'include "bench"; plot_slat_cdfs' "$JSON" >"$TMP/cdf.list"
if [[ -s $TMP/cdf.list ]]; then
	while IFS=$'\t' read -r group unit series; do
		safe=${group//[^A-Za-z0-9_.-]/_}
		: >"$TMP/cdf-$safe.dat"
		titles=()
		IFS=';' read -ra sers <<<"$series"
		for s in "${sers[@]}"; do
			titles+=("${s%%=*}")
			tr ',' '\n' <<<"${s#*=}" | tr ':' '\t' >>"$TMP/cdf-$safe.dat"
			printf '\n\n' >>"$TMP/cdf-$safe.dat"
		done
		plot="plot "
		for i in "${!titles[@]}"; do
			plot+="'$TMP/cdf-$safe.dat' index $i using 1:2 with linespoints title '${titles[$i]}', "
		done
		render "slat-cdf-$safe" "
set title 'Submit latency (fio slat) CDF: $group' noenhanced
set datafile separator '\t'
set logscale x
set xlabel 'submit latency ($unit)'
set ylabel 'percentile'
set yrange [0:100]
set key outside right top noenhanced
set grid
${plot%, }"
	done <"$TMP/cdf.list"
else
	note slat-cdf skipped "$(part_reason fsaio-table)"
fi

# ------------------------------------------------------------ device-classes
# IOPS against device latency (log-log), one plot per workload, one line per
# engine and iodepth: where the patch stops mattering and where it does.
jq -r -L "$ROOT/ci/bench" 'include "bench"; plot_classes' "$JSON" >"$TMP/classes.list"
if [[ -s $TMP/classes.list ]]; then
	for w in $(cut -f1 "$TMP/classes.list" | sort -u); do
		: >"$TMP/classes-$w.dat"
		plot="plot " i=0
		while IFS=$'\t' read -r _ title points; do
			tr ',' '\n' <<<"$points" | tr ':' '\t' >>"$TMP/classes-$w.dat"
			printf '\n\n' >>"$TMP/classes-$w.dat"
			# one colour per engine, one dash per depth
			case $title in *qd1) dt=3 ;; *qd8) dt=2 ;; *) dt=1 ;; esac
			case $title in stock-libaio-buffered*) lc=1 ;; patched-*) lc=2 ;; *io_uring*) lc=3 ;; *) lc=4 ;; esac
			plot+="'$TMP/classes-$w.dat' index $i using 1:2 with linespoints lc $lc dt $dt title '$title', "
			i=$((i + 1))
		done < <(awk -F'\t' -v w="$w" '$1 == w' "$TMP/classes.list")
		render "classes-$w" "
set title 'IOPS by device latency: $w (ext4 on null_blk, QEMU -icount)' noenhanced
set datafile separator '\t'
set logscale xy
set xlabel 'device latency per request (ms)'
set ylabel 'IOPS'
set key outside right top noenhanced
set grid
${plot%, }"
	done
else
	note classes skipped "$(part_reason device-classes)"
fi

# ------------------------------------------------------------ syncpath
pivot '.part == "syncpath" and (.unit | ascii_downcase | test("instruction|insn"))' >"$TMP/insn.tsv"
if [[ -s $TMP/insn.tsv ]]; then
	bars syncpath-insn "Instructions per synchronous operation by kernel (QEMU -icount)" \
		"$(first_unit '.part == "syncpath" and (.unit | ascii_downcase | test("instruction|insn"))')" \
		"$TMP/insn.tsv"
else
	note syncpath-insn skipped "$(part_reason syncpath)"
fi
# The same figures as % over the "stock" series of the same group: the
# differences the goal is about (0.5%) are invisible on the absolute bars.
jq -r -L "$ROOT/ci/bench" 'include "bench"; plot_syncpath_vs_stock' "$JSON" >"$TMP/insn-rel.tsv"
if [[ -s $TMP/insn-rel.tsv ]]; then
	YMIN="*<0" bars syncpath-insn-vs-stock "Instructions per synchronous operation: % over stock (goal for cached reads: <= 0.5%)" \
		"% instructions over stock" "$TMP/insn-rel.tsv"
else
	note syncpath-insn-vs-stock skipped "$(part_reason syncpath): no stock and patched figures of the same operation"
fi

# ------------------------------------------------------------ database
# sysbench oltp_read_write on InnoDB: one bar per kernel and flush method,
# grouped by device class (database.<kernel>-<flush>.<class>.<metric>).
for m in tps p99; do
	pivot ".part == \"database\" and (.id | endswith(\".$m\"))" >"$TMP/db-$m.tsv"
	if [[ ! -s $TMP/db-$m.tsv ]]; then
		note "database-$m" skipped "$(part_reason database)"
	elif [[ $m == tps ]]; then
		bars database-tps "MariaDB InnoDB over libaio, sysbench oltp_read_write: transactions/s (median)" \
			"transactions/s" "$TMP/db-$m.tsv"
	else
		bars database-p99 "MariaDB InnoDB over libaio, sysbench oltp_read_write: p99 latency (median)" \
			"$(first_unit ".part == \"database\" and (.id | endswith(\".p99\"))")" "$TMP/db-$m.tsv"
	fi
done

jq -Rn -L "$ROOT/ci/bench" 'include "bench"; plot_list' "$TMP/plots.tsv" >"$OUT/plots.json" || FAILED=1
((FAILED)) && exit "$EXIT_ERROR"
exit "$EXIT_PASS"
}
