#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One traced database run: start mariadbd on DIR (made by db_init and
# filled by `db-oltp.sh --prepare`), run sysbench TEST for SECONDS, stop
# the server cleanly.  ci/db/db-tier.sh runs it under `fsaio check -- ...`
# so that the server, its aio and the client are all the traced workload.
#
#   ci/db/db-oltp.sh DIR FLUSH TEST SECONDS [THREADS]
#   ci/db/db-oltp.sh --prepare DIR FLUSH
#
# FLUSH: innodb_flush_method (fsync or O_DSYNC); TEST: a sysbench OLTP test
# (oltp_read_only, oltp_read_write, oltp_write_only); THREADS default 4.
# stdout: "engine: E" (what InnoDB chose: libaio, io_uring, none), then
# sysbench's report.  Exit status: 0, or 1 when the server did not start,
# sysbench failed or the server did not stop cleanly.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/db-lib.sh"
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"

if [[ ${1:-} == --prepare ]]; then
	[[ $# -eq 3 ]] || usage_error "--prepare wants DIR FLUSH"
	dir=$2
	db_start "$dir" "$3" || exit 1
	db_sql "$dir" 'CREATE DATABASE sbtest' &&
		db_sysbench "$dir" oltp_read_write prepare >"$dir/prepare.log" 2>&1
	rc=$?
	((rc)) && tail -5 "$dir/prepare.log" >&2
	db_stop "$dir" || rc=1
	exit $((rc != 0))
fi

[[ $# -ge 4 && $# -le 5 ]] || usage_error "wants DIR FLUSH TEST SECONDS [THREADS]"
dir=$1 flush=$2 test=$3 secs=$4 threads=${5:-4}
[[ $secs =~ ^[0-9]+$ && $threads =~ ^[0-9]+$ ]] || usage_error "SECONDS and THREADS are whole numbers"

db_start "$dir" "$flush" || exit 1
echo "engine: $(db_aio_engine "$dir")"
db_sysbench "$dir" "$test" --threads="$threads" --time="$secs" --report-interval=0 \
	--percentile=95 run
rc=$?
db_stop "$dir" || rc=1
exit $((rc != 0))
