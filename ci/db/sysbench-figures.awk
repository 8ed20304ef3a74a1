# SPDX-License-Identifier: GPL-2.0
# Read one `sysbench ... --percentile=95 --histogram=on run` report and
# print "TXNS TPS P95_MS P99_MS": the transactions, their rate, sysbench's
# 95th percentile and the 99th percentile of its latency histogram (the
# smallest bucket value at or above 99% of the events).  Prints nothing
# when the report has no transactions line (sysbench failed).
/^ +[0-9.]+ \|/ { v[n] = $1; c[n] = $NF; total += $NF; n++ }
/^ +transactions:/ { txns = $2; tps = $3; gsub(/[(]/, "", tps) }
/^ +95th percentile:/ { p95 = $3 }
END {
	if (txns == "")
		exit 1
	for (i = 0; i < n; i++) {
		sum += c[i]
		if (sum >= 0.99 * total) { p99 = v[i]; break }
	}
	printf "%s %s %s %s\n", txns, tps, p95, (p99 == "" ? p95 : p99)
}
