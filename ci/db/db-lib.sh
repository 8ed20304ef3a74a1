#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# MariaDB helpers of the database tier, sourced after ci/lib.sh by
# ci/db/*.sh.  One server per directory DIR, everything in it: the datadir
# DIR/data, the socket, the pid file, the error log DIR/mariadbd.err and
# the server's temporary files, so a read-only root (the guest's) is enough.
#
#   db_init DIR              mariadb-install-db into DIR/data
#   db_start DIR FLUSH [OPT...]
#                            start mariadbd (InnoDB over native aio, FLUSH
#                            = innodb_flush_method: fsync or O_DSYNC; the
#                            small buffer pool of DB_POOL) and wait until it
#                            answers; the pid is in DIR/pid
#   db_stop DIR              clean shutdown, waited for
#   db_kill DIR              SIGKILL, waited for
#   db_sql DIR SQL           run SQL, tab-separated rows on stdout
#   db_sysbench DIR TEST ARGS...   sysbench TEST against the server
#   db_aio_engine DIR        what InnoDB said it uses: io_uring, libaio or
#                            none (from the error log of the last start)
#
# Sizes (environment): DB_POOL (innodb_buffer_pool_size, default 8M),
# DB_ROWS (rows in the one sysbench table, default 100000: about 30 MiB,
# so reads miss the pool), DB_LOG (innodb_log_file_size, default 16M).
DB_POOL=${DB_POOL:-8M}
DB_ROWS=${DB_ROWS:-100000}
DB_LOG=${DB_LOG:-16M}
DB_START_TIMEOUT=${DB_START_TIMEOUT:-120}

db_need() {
	local t
	for t in mariadbd mariadb-install-db mariadb mariadb-admin sysbench; do
		command -v "$t" >/dev/null || { echo "$t"; return 1; }
	done
}

_db_opts() {
	local dir=$1
	echo --no-defaults --datadir="$dir/data" --socket="$dir/sock" \
		--pid-file="$dir/pid" --tmpdir="$dir/tmp" --skip-networking \
		--user=root --log-error="$dir/mariadbd.err" \
		--innodb-buffer-pool-size="$DB_POOL" --innodb-log-file-size="$DB_LOG"
}

db_init() {
	local dir=$1
	mkdir -p "$dir/tmp" || return 1
	# shellcheck disable=SC2046 # word splitting of the option list is meant
	mariadb-install-db $(_db_opts "$dir") --auth-root-authentication-method=normal \
		--skip-test-db --skip-name-resolve >"$dir/install.log" 2>&1 ||
		{ tail -5 "$dir/install.log" >&2; return 1; }
}

db_start() {
	local dir=$1 flush=$2 i
	shift 2
	: >"$dir/mariadbd.err"
	rm -f "$dir/pid"
	# shellcheck disable=SC2046
	mariadbd $(_db_opts "$dir") --innodb-use-native-aio=1 \
		--innodb-flush-method="$flush" "$@" </dev/null >/dev/null 2>&1 &
	echo $! >"$dir/server.pid"
	disown	# no "Killed" line from bash after db_kill: its end is polled
	for ((i = 0; i < DB_START_TIMEOUT * 5; i++)); do
		mariadb-admin --no-defaults -S "$dir/sock" -uroot ping >/dev/null 2>&1 && return 0
		kill -0 "$(cat "$dir/server.pid")" 2>/dev/null || break
		sleep 0.2
	done
	msg "mariadbd did not start; its log ends:"
	tail -5 "$dir/mariadbd.err" >&2
	db_kill "$dir"
	return 1
}

_db_wait_gone() {
	local pid=$1 i
	for ((i = 0; i < DB_START_TIMEOUT * 5; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.2
	done
	return 1
}

db_stop() {
	local dir=$1 pid
	pid=$(cat "$dir/server.pid" 2>/dev/null) || return 0
	mariadb-admin --no-defaults -S "$dir/sock" -uroot shutdown >/dev/null 2>&1 ||
		kill -TERM "$pid" 2>/dev/null
	_db_wait_gone "$pid" || { msg "mariadbd $pid did not stop: killed"; db_kill "$dir"; return 1; }
	rm -f "$dir/server.pid"
}

db_kill() {
	local dir=$1 pid
	pid=$(cat "$dir/server.pid" 2>/dev/null) || return 0
	kill -KILL "$pid" 2>/dev/null
	_db_wait_gone "$pid"
	rm -f "$dir/server.pid"
}

db_sql() {
	mariadb --no-defaults -S "$1/sock" -uroot -N -B -e "$2"
}

db_sysbench() {
	local dir=$1 test=$2
	shift 2
	sysbench "$test" --db-driver=mysql --mysql-socket="$dir/sock" --mysql-user=root \
		--mysql-db=sbtest --tables=1 --table-size="$DB_ROWS" "$@"
}

db_aio_engine() {
	if grep -q 'InnoDB: Using io_uring' "$1/mariadbd.err"; then echo io_uring
	elif grep -q 'InnoDB: Using Linux native AIO' "$1/mariadbd.err"; then echo libaio
	else echo none
	fi
}
