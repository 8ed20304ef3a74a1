-- SPDX-License-Identifier: GPL-2.0
-- sysbench script of the database crash test (ci/db/db-crash.sh): each
-- event is one transaction, an oltp_write_only-style update of the sysbench
-- table and one row of acked, committed with autocommit off; once COMMIT
-- has returned, the thread appends its number to ACKED_DIR/acked.<thread>
-- (written out at once).  After mariadbd is killed and restarted, every
-- number in those files must be in the table: the transactions the
-- client saw committed.
--   sysbench ci/db/acked.lua --mysql-socket=... --mysql-db=sbtest
--            --acked-dir=DIR --table-size=ROWS --threads=N --time=SEC run

sysbench.cmdline.options = {
	["acked-dir"] = {"where each thread appends the numbers it saw committed", "."},
	["table-size"] = {"rows of sbtest1 (the updates pick one)", 10000},
}

function prepare()
	local con = sysbench.sql.driver():connect()
	con:query("CREATE TABLE acked (tid INT NOT NULL, n INT NOT NULL, " ..
		  "PRIMARY KEY (tid, n)) ENGINE=InnoDB")
end

function thread_init()
	drv = sysbench.sql.driver()
	con = drv:connect()
	n = 0
	out = assert(io.open(sysbench.opt.acked_dir .. "/acked." .. sysbench.tid, "a"))
	out:setvbuf("no")
end

function event()
	n = n + 1
	con:query("BEGIN")
	con:query(string.format("UPDATE sbtest1 SET k = k + 1 WHERE id = %d",
				sysbench.rand.uniform(1, sysbench.opt.table_size)))
	con:query(string.format("INSERT INTO acked VALUES (%d, %d)", sysbench.tid, n))
	con:query("COMMIT")
	out:write(n, "\n")
end

function thread_done()
	out:close()
	con:disconnect()
end
