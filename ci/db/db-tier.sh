#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The database tier, run inside the guest (make vmdb): MariaDB's InnoDB
# over libaio on the scratch file systems, judged by fsaio and by the
# database itself.
#
#   ci/db/db-tier.sh [--fs 'ext4 xfs'] [--flush 'fsync O_DSYNC']
#                    [--tests 'oltp_read_only oltp_read_write'] [--time SEC]
#                    [--crash-time SEC] [--no-crash] [--out DIR]
#
# kernel.io_uring_disabled=2 (as many sites set it) makes InnoDB take
# libaio, with innodb_use_native_aio=1; a buffer pool of 8 MiB against a
# table of about 30 MiB makes its reads miss.  innodb_flush_method=fsync
# keeps the data files buffered (the series' paths); O_DSYNC opens them
# O_DIRECT (MariaDB 10.11), the direct-I/O comparison.  For each file system
# ($FSAIO_SCRATCH_<FS>, from ci/vm/vm-run.sh --disks):
#   1. a datadir made and filled (sysbench prepare), untraced;
#   2. for each innodb_flush_method and sysbench test: page cache dropped,
#      `fsaio check --exclusive -- ci/db/db-oltp.sh ...` (server start,
#      TEST for SEC seconds, clean shutdown): every invariant, the stock
#      kernel's io_submit sleeps as XFAIL;
#   3. db_libaio_<fs>: each run's requests were libaio's, none io_uring's
#      (from its JSON): the runs tested what they claim to;
#   4. db_crash_<fs>: `fsaio check -- ci/db/db-crash.sh` with the first
#      flush method (a kill -9 while committing, recovery, every acked
#      transaction there), then its control (db-crash.sh --control), which
#      must see a loss.
# Defaults: both file systems, both flush methods, both tests, --time 10,
# --crash-time 8; results (the fsaio JSON of each run, the server logs of
# a failed one) in --out (default $FSAIO_OUT/db, else ./db-results).
#
# stdout: KTAP, one document per fsaio run and per tier check, as
# ci/vm/guest-suite.sh (tests/run-all.sh counts the checks of each).  Exit
# status: the worst verdict, ERROR > FAIL > PASS > SKIP; SKIP (4) when the
# tools are missing, the kernel has no kernel.io_uring_disabled (6.6+:
# without it InnoDB would take io_uring) or this is not root.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/db-lib.sh"
cd "$ROOT" || die "cannot cd to $ROOT"

FSLIST="ext4 xfs" FLUSHES="fsync O_DSYNC" TESTS="oltp_read_only oltp_read_write"
TIME=10 CRASH_TIME=8 CRASH=1 OUT=${FSAIO_OUT:+$FSAIO_OUT/db}
while [[ $# -gt 0 ]]; do
	case $1 in
	--fs) FSLIST=$2; shift 2 ;;
	--flush) FLUSHES=$2; shift 2 ;;
	--tests) TESTS=$2; shift 2 ;;
	--time) TIME=$2; shift 2 ;;
	--crash-time) CRASH_TIME=$2; shift 2 ;;
	--no-crash) CRASH=0; shift ;;
	--out) OUT=$2; shift 2 ;;
	-h|--help) usage "$EXIT_PASS" ;;
	*) usage_error "unknown argument: $1" ;;
	esac
done
[[ $TIME =~ ^[0-9]+$ && $CRASH_TIME =~ ^[0-9]+$ ]] || usage_error "--time and --crash-time are whole seconds"
OUT=${OUT:-$PWD/db-results}

skip() { echo "KTAP version 1"; echo "1..0 # SKIP $*"; exit "$EXIT_SKIP"; }
[[ $(id -u) -eq 0 ]] || skip "the database tier needs root (mount, sysctl, drop_caches)"
missing=$(db_need) || skip "$missing not installed: ci/install-deps.sh --vm installs mariadb-server and sysbench"
[[ -w /proc/sys/kernel/io_uring_disabled ]] ||
	skip "no kernel.io_uring_disabled (6.6+): InnoDB would take io_uring, not libaio"
[[ -x ./fsaio ]] || { echo "# ERROR: ./fsaio not built: run make on the host first"; exit "$EXIT_ERROR"; }
mkdir -p "$OUT" || die "cannot make $OUT"

rc=$EXIT_SKIP
URING_WAS=$(cat /proc/sys/kernel/io_uring_disabled)
DIRS=()
cleanup() {
	local d
	for d in "${DIRS[@]}"; do
		db_kill "$d"
		rm -rf "$d"
	done
	echo "$URING_WAS" >/proc/sys/kernel/io_uring_disabled
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo 2 >/proc/sys/kernel/io_uring_disabled

# doc NAME OK DIAG...: one KTAP document with one test (a tier check)
doc() {
	local name=$1 ok=$2
	shift 2
	printf 'KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: %s\n    1..1\n' "$name"
	[[ $# -gt 0 ]] && printf '    # %s\n' "$@"
	if ((ok)); then
		printf '    ok 1 %s\nok 1 %s\n' "$name" "$name"
		rc=$(worse "$rc" "$EXIT_PASS")
	else
		printf '    not ok 1 %s\nnot ok 1 %s\n' "$name" "$name"
		rc=$(worse "$rc" "$EXIT_FAIL")
	fi
}

# keep_logs DIR TAG: a failed run's server and client logs, for the reader
keep_logs() {
	local f
	for f in mariadbd.err prepare.log acked.log; do
		[[ -f $1/$f ]] && cp "$1/$f" "$OUT/$2-$f"
	done
}

for fs in $FSLIST; do
	var=FSAIO_SCRATCH_${fs^^}
	scratch=${!var:-}
	if [[ -z $scratch ]]; then
		echo "# ERROR: no $fs scratch disk (\$$var): boot with ci/vm/vm-run.sh --disks ${FSLIST// /,}"
		rc=$(worse "$rc" "$EXIT_ERROR")
		continue
	fi
	dir=$scratch/fsaio-db
	rm -rf "$dir"
	DIRS+=("$dir")
	mkdir -p "$dir" && db_init "$dir" && ci/db/db-oltp.sh --prepare "$dir" "${FLUSHES%% *}" || {
		echo "# ERROR: $fs: cannot make and fill the datadir (logs in $OUT/$fs-setup-*)"
		keep_logs "$dir" "$fs-setup"
		rc=$(worse "$rc" "$EXIT_ERROR")
		continue
	}
	engines=()
	for flush in $FLUSHES; do
		for test in $TESTS; do
			json=$OUT/$fs-$flush-$test.json
			sync
			echo 3 >/proc/sys/vm/drop_caches
			./fsaio check --exclusive --json "$json" -- \
				ci/db/db-oltp.sh "$dir" "$flush" "$test" "$TIME"
			r=$?
			((r == EXIT_PASS)) || keep_logs "$dir" "$fs-$flush-$test"
			rc=$(worse "$rc" "$r")
			engines+=("$flush $test: $(jq -r '"libaio \(.engines.libaio.submitted), io_uring \(.engines.io_uring.submitted)"' "$json" 2>/dev/null || echo "no JSON")")
		done
	done
	bad=$(printf '%s\n' "${engines[@]}" | grep -cv 'libaio [1-9][0-9]*, io_uring 0$')
	doc "db_libaio_$fs" $((bad == 0)) "requests per run (InnoDB must take libaio):" "${engines[@]}"

	((CRASH)) || continue
	flush=${FLUSHES%% *}
	for mode in crash control; do
		name=db_${mode}_${fs}_$flush ktap=$OUT/$fs-$mode.ktap
		: >"$ktap"
		./fsaio check --exclusive --json "$OUT/$fs-$mode.json" -- ci/db/db-crash.sh \
			$([[ $mode == control ]] && echo --control) --ktap "$ktap" "$dir" "$flush" "$CRASH_TIME"
		r=$?
		rc=$(worse "$rc" "$r")
		((r == EXIT_PASS)) || keep_logs "$dir" "$fs-$mode"
		n=$(grep -cE '^(not )?ok ' "$ktap")
		printf 'KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: %s\n    1..%d\n' "$name" "$n"
		sed 's/^/    /' "$ktap"
		if ((n > 0)) && ! grep -q '^not ok ' "$ktap"; then
			echo "ok 1 $name"
		else
			echo "not ok 1 $name"
			((n > 0)) || echo "# ERROR: $name printed no result"
			rc=$(worse "$rc" "$([[ $n -gt 0 ]] && echo "$EXIT_FAIL" || echo "$EXIT_ERROR")")
		fi
	done
done
exit "$rc"
