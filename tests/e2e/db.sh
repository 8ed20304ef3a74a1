# SPDX-License-Identifier: GPL-2.0
# End-to-end tests of the database tier (ci/db/; its VM run is make vmdb)
# on the host: the crash judgement with a real MariaDB, its control, and
# the tier's errors.  Sourced by tests/e2e/run.sh (lib.sh first).

db_need_tools() {
	need_root
	local m
	m=$(bash -c '. ci/lib.sh; . ci/db/db-lib.sh; db_need') ||
		{ echo "# $m not installed (ci/install-deps.sh --vm)"; exit "$EXIT_SKIP"; }
}

# A datadir with a small table: the judgement, not the misses, is tested.
db_make() {
	DB_ROWS=5000 bash -c '. ci/lib.sh; . ci/db/db-lib.sh; db_init "$1"' _ "$1" &&
		DB_ROWS=5000 ci/db/db-oltp.sh --prepare "$1" fsync || fail "cannot make a datadir in $1"
}

t_db_crash_recovery_judged() {
	db_need_tools
	local d=$WORK/db out rc
	db_make "$d"
	out=$(DB_ROWS=5000 ci/db/db-crash.sh "$d" fsync 2 2>&1); rc=$?
	((rc == EXIT_PASS)) || fail "db-crash.sh: rc=$rc: $out"
	[[ $(grep -c '^ok [1-4] ' <<<"$out") -eq 4 && $out == *"ok 4 committed_rows_present"* &&
	   $out == *"1 crash recovery, 0 [ERROR] lines"* ]] || fail "db-crash.sh: $out"
	# the control: the datadir put back as before the commits; the check sees it
	out=$(DB_ROWS=5000 ci/db/db-crash.sh --control "$d" fsync 2 2>&1); rc=$?
	((rc == EXIT_PASS)) && [[ $out == *"ok 4 control_lost_commits_seen"* &&
				   $out == *"table has 0 rows"* ]] || fail "--control: rc=$rc: $out"
	! pgrep -f "datadir=$d/data" >/dev/null || fail "a mariadbd of $d is still running"
	[[ ! -e $d/server.pid ]] || fail "$d/server.pid left behind"
}
TESTS+=(t_db_crash_recovery_judged)

t_db_tier_errors() {
	need_root
	local out rc was
	out=$(ci/db/db-tier.sh --time soon 2>&1); rc=$?
	((rc == EXIT_USAGE)) && [[ $out == *"whole seconds"* ]] || fail "--time soon: rc=$rc: $out"
	db_need_tools
	[[ -w /proc/sys/kernel/io_uring_disabled ]] || { echo "# no kernel.io_uring_disabled"; exit "$EXIT_SKIP"; }
	was=$(cat /proc/sys/kernel/io_uring_disabled)
	out=$(FSAIO_SCRATCH_EXT4= ci/db/db-tier.sh --fs ext4 --no-crash --out "$WORK/dbout" 2>&1); rc=$?
	((rc == EXIT_ERROR)) && [[ $out == *"ERROR: no ext4 scratch disk"*"--disks ext4"* ]] ||
		fail "no scratch: rc=$rc: $out"
	[[ $(cat /proc/sys/kernel/io_uring_disabled) == "$was" ]] ||
		fail "kernel.io_uring_disabled left at $(cat /proc/sys/kernel/io_uring_disabled), was $was"
}
TESTS+=(t_db_tier_errors)
