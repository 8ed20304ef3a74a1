#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The database's own judgement of a crash: mariadbd is killed (SIGKILL)
# while clients commit, then restarted; InnoDB's crash recovery must
# succeed and every transaction a client saw committed must be there.
# ci/db/db-tier.sh runs it under `fsaio check -- ...`, so the kill, with
# the server's aio in flight, and the recovery's reads are traced too.
#
#   ci/db/db-crash.sh [--control] [--ktap FILE] DIR FLUSH [SECONDS]
#
# DIR: a server directory made by db_init and `db-oltp.sh --prepare`;
# FLUSH: innodb_flush_method; SECONDS of commits before the kill (default
# 10).  The clients: ci/db/acked.lua, 4 threads, each transaction an update
# of sbtest1 and a row of `acked` (innodb_flush_log_at_trx_commit=1), its
# number appended to DIR/acked/acked.<thread> once COMMIT returned.
#
# stdout (or --ktap FILE: under `fsaio check` the command's stdout is not
# shown): KTAP lines (without the plan), one test per claim:
#   killed_while_committing   the clients had committed when the kill came
#   innodb_recovery           the server started again (crash recovery ran)
#                             and its log has no [ERROR] line
#   tables_check              CHECK TABLE sbtest1, acked: OK
#   committed_rows_present    for each thread, rows 1..max(n) without a
#                             hole and max(n) >= the last number acked (at
#                             most one more: committed, not yet acked)
#
# --control: the same, but the datadir is then put back as it was before
# the clients ran (a copy taken at a clean shutdown), as a disk that lost
# every write since would leave it: committed_rows_present must find the
# acked transactions missing.  It is reported as
# control_lost_commits_seen, which passes when the check sees the loss
# and fails when it finds the rows (it would be blind).
# Exit status: 0 all pass, 1 any fails, 5 (ERROR) a setup step failed.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/db-lib.sh"
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
control=0
while [[ ${1:-} == --* ]]; do
	case $1 in
	--control) control=1; shift ;;
	--ktap) [[ $# -ge 2 ]] || usage_error "--ktap wants a FILE"
		exec >"$2" || die "cannot write $2"; shift 2 ;;
	*) usage_error "unknown option: $1" ;;
	esac
done
[[ $# -ge 2 && $# -le 3 ]] || usage_error "wants DIR FLUSH [SECONDS]"
dir=$1 flush=$2 secs=${3:-10} threads=4
[[ $secs =~ ^[0-9]+$ ]] || usage_error "SECONDS is a whole number, not '$secs'"
n=0 failed=0
t() {	# t OK NAME [DIAG]: one KTAP line
	n=$((n + 1))
	[[ -n ${3:-} ]] && echo "# $2: $3"
	if (($1)); then echo "ok $n $2"; else echo "not ok $n $2"; failed=1; fi
}

rm -rf "$dir/acked" "$dir/data.before"
mkdir -p "$dir/acked" || die "cannot make $dir/acked"
db_start "$dir" "$flush" --innodb-flush-log-at-trx-commit=1 || exit "$EXIT_ERROR"
acked_sb() {
	sysbench "$ROOT/ci/db/acked.lua" --db-driver=mysql --mysql-socket="$dir/sock" \
		--mysql-user=root --mysql-db=sbtest --acked-dir="$dir/acked" \
		--table-size="$DB_ROWS" "$@"
}
db_sql "$dir" 'DROP TABLE IF EXISTS sbtest.acked' &&
	acked_sb prepare >"$dir/acked-prepare.log" 2>&1 ||
	{ db_stop "$dir"; die "cannot create the acked table: $(tail -1 "$dir/acked-prepare.log")"; }
if ((control)); then
	db_stop "$dir" && cp -a "$dir/data" "$dir/data.before" &&
		db_start "$dir" "$flush" --innodb-flush-log-at-trx-commit=1 ||
		die "cannot copy the datadir for the control"
fi
acked_sb --threads=$threads --time=$((secs * 10)) run >"$dir/acked.log" 2>&1 &
client=$!
sleep "$secs"
db_kill "$dir"
{ wait "$client"; } 2>/dev/null	# the clients lose their connections and stop
total=$(cat "$dir"/acked/acked.* 2>/dev/null | wc -l)
t $((total > 0)) killed_while_committing "$total transactions acked by $threads clients in ${secs} s"

if ((control)); then	# the disk that lost every write since the copy
	rm -rf "$dir/data" && mv "$dir/data.before" "$dir/data" ||
		die "cannot put the copy of the datadir back"
fi
if db_start "$dir" "$flush"; then
	errs=$(grep -c '\[ERROR\]' "$dir/mariadbd.err")
	first=$(grep -m1 '\[ERROR\]' "$dir/mariadbd.err")
	t $((errs == 0)) innodb_recovery "$(grep -c 'InnoDB: Starting crash recovery' "$dir/mariadbd.err") crash recovery, $errs [ERROR] lines${first:+; first: $first}"
else
	t 0 innodb_recovery "mariadbd did not start after the kill"
	exit "$EXIT_FAIL"
fi

bad=$(db_sql "$dir" 'CHECK TABLE sbtest.sbtest1, sbtest.acked' | awk -F'\t' '$3 == "status" && $4 != "OK"')
t $((${#bad} == 0)) tables_check "${bad:-sbtest1 and acked: OK}"

ok=1 why=""
for f in "$dir"/acked/acked.*; do
	tid=${f##*.}
	last=$(tail -n1 "$f")
	read -r cnt max < <(db_sql "$dir" "SELECT COUNT(*), COALESCE(MAX(n), 0) FROM sbtest.acked WHERE tid = $tid")
	if ((cnt != max || max < last || max > last + 1)); then
		ok=0 why+=" thread $tid: acked up to $last, table has $cnt rows, max $max;"
	fi
done
if ((control)); then
	t $((1 - ok)) control_lost_commits_seen "${why:-every acked transaction is there: the check did not see the loss it must}"
else
	t $ok committed_rows_present "${why:-every acked transaction of the $threads threads is there}"
fi
db_stop "$dir" || failed=1
exit $((failed ? EXIT_FAIL : EXIT_PASS))
