# SPDX-License-Identifier: GPL-2.0
# End-to-end tests of fsaio trace: idle, under load, -c/-p filters, the
# kernel's counts against the checker's, --stacks; and fsaio check's
# in-kernel fold against -E.  Sourced by tests/e2e/run.sh (lib.sh first).

t_trace_idle() {
	need_root
	local rc
	$FSAIO trace -d 3 -i 1 --json "$WORK/idle.json" >"$WORK/idle.out" 2>&1; rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "rc=$rc: $(cat "$WORK/idle.out")"
	[[ $(jq '.lost_events' "$WORK/idle.json") -eq 0 ]] || fail "lost events"
	grep -q "wait site" "$WORK/idle.out" || fail "no wait-site table"
}
TESTS+=(t_trace_idle)

t_trace_under_load() {
	need_root
	local rc fpid
	# io_uring makes two records per read: the highest event rate we can
	# drive from one job (about 1e6 records/s here).
	fio --name=cached --directory="$WORK" --filename=hot.dat --size=64m --ioengine=io_uring \
	    --iodepth=8 --rw=randread --bs=4k --time_based --runtime=8 --invalidate=0 \
	    --output-format=json --output="$WORK/hot.json" >/dev/null 2>&1 &
	fpid=$!
	# -c fio: the thresholds judge fio alone; sleeps and I/O of other
	# processes on a busy machine (a CI runner) are not fio's records.
	$FSAIO trace -d 6 -i 2 -c fio --json "$WORK/load.json" >"$WORK/load.out" 2>&1; rc=$?
	wait $fpid
	[[ $rc -eq $EXIT_PASS ]] || fail "rc=$rc: $(tail -3 "$WORK/load.out")"
	local sub recs
	sub=$(jq '.engines.io_uring.submitted' "$WORK/load.json")
	recs=$(jq '.runs[0].records' "$WORK/load.json")
	echo "# fio io_uring cached randread $(jq '.jobs[0].read.iops|floor' "$WORK/hot.json") IOPS while traced; records $recs for $sub io_uring requests ($(jq '.runs[0].records_counted_in_kernel' "$WORK/load.json") counted in the kernel), lost $(jq '.lost_events' "$WORK/load.json")"
	[[ $(jq '.lost_events' "$WORK/load.json") -eq 0 ]] || fail "lost events"
	[[ $sub -gt 10000 ]] || fail "too few io_uring requests traced"
	# requests are counted in the kernel: records are sleeps and exits
	((recs * 100 < sub)) || fail "$recs records for $sub requests: not aggregated in the kernel"
	# and its memory does not grow with the load (a bound, not a timing)
	local rss
	rss=($(jq -r '.runs[0].workload_summary' "$WORK/load.json" | grep -oE '[0-9]+ KiB' | grep -oE '[0-9]+'))
	echo "# resident ${rss[0]:-?} KiB once attached, ${rss[1]:-?} KiB at the end"
	[[ ${#rss[@]} -eq 2 ]] || fail "no resident memory in the JSON"
	((rss[1] <= rss[0] + 4096)) || fail "fsaio trace grew from ${rss[0]} to ${rss[1]} KiB"
}
TESTS+=(t_trace_under_load)

# -c and -p select what is traced: only the chosen program's 64 reads count.
t_trace_filters() {
	need_root
	local rc
	mkdir -p "$WORK/f"
	trace_start "$WORK/comm.out" -i 0 -c aio_read_batch --json "$WORK/comm.json" ||
		fail "trace -c did not start: $(cat "$WORK/comm.out")"
	.output/workloads/uring_read_batch -d "$WORK/f" >/dev/null
	.output/workloads/aio_read_batch -d "$WORK/f" >/dev/null
	trace_stop; rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "trace -c rc=$rc"
	[[ $(jq '.engines.libaio.submitted' "$WORK/comm.json") -eq 64 &&
	   $(jq '.engines.io_uring.submitted' "$WORK/comm.json") -eq 0 ]] ||
		fail "trace -c: $(jq -c '[.engines.libaio.submitted,.engines.io_uring.submitted]' "$WORK/comm.json")"
	# -p: a shell that runs the io_uring program once its tracer is attached.
	mkfifo "$WORK/go.fifo"
	sh -c 'read _ ; exec '"$PWD"'/.output/workloads/uring_read_batch -d '"$WORK/f" \
		<"$WORK/go.fifo" >/dev/null 2>&1 &
	local pid=$!
	trace_start "$WORK/pid.out" -i 0 -p $pid --json "$WORK/pid.json" ||
		{ echo go >"$WORK/go.fifo"; fail "trace -p did not start: $(cat "$WORK/pid.out")"; }
	.output/workloads/aio_read_batch -d "$WORK/f" >/dev/null &
	echo go >"$WORK/go.fifo"
	wait $pid; wait $!
	trace_stop; rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "trace -p rc=$rc"
	[[ $(jq '.engines.io_uring.submitted' "$WORK/pid.json") -eq 64 &&
	   $(jq '.engines.libaio.submitted' "$WORK/pid.json") -eq 0 ]] ||
		fail "trace -p: $(jq -c '[.engines.libaio.submitted,.engines.io_uring.submitted]' "$WORK/pid.json")"
}
TESTS+=(t_trace_filters)

# The kernel's counts (fsaio trace) and the checker's from every record
# (fsaio trace -E, as fsaio check counts) agree on the same programs:
# 64 io_uring reads, 64 libaio reads, a multishot read; exact.
t_trace_aggregate_agrees() {
	need_root
	local mode rc f opt
	mkdir -p "$WORK/ag"
	for mode in agg per-event; do
		f=$WORK/ag-$mode
		rm -f "$f.fifo"; mkfifo "$f.fifo"
		sh -c 'read _; w='"$PWD"'/.output/workloads; $w/uring_read_batch -d '"$WORK/ag"' &&
		       $w/aio_read_batch -d '"$WORK/ag"' && $w/uring_read_multishot -d '"$WORK/ag" \
			<"$f.fifo" >/dev/null 2>&1 &
		local pid=$!
		opt=()
		[[ $mode == agg ]] || opt=(--per-event)
		trace_start "$f.out" -i 0 -p $pid "${opt[@]}" --json "$f.json" ||
			{ echo go >"$f.fifo"; fail "trace ($mode) did not start: $(tail -2 "$f.out")"; }
		echo go >"$f.fifo"
		wait $pid
		trace_stop; rc=$?
		[[ $rc -eq $EXIT_PASS ]] || fail "trace ($mode) rc=$rc: $(tail -2 "$f.out")"
	done
	local q='[.engines.libaio.submitted,.engines.libaio.completed,.engines.io_uring.submitted,.engines.io_uring.completed]'
	local a e
	a=$(jq -c "$q" "$WORK/ag-agg.json"); e=$(jq -c "$q" "$WORK/ag-per-event.json")
	echo "# libaio/io_uring submitted,completed: kernel counts $a, per event $e; records $(jq '.runs[0].records' "$WORK/ag-agg.json") vs $(jq '.runs[0].records' "$WORK/ag-per-event.json")"
	[[ $a == "$e" ]] || fail "the kernel's counts $a differ from the checker's $e"
	[[ $(jq '.engines.libaio.submitted' "$WORK/ag-agg.json") -eq 64 &&
	   $(jq '.engines.libaio.completed' "$WORK/ag-agg.json") -eq 64 ]] || fail "libaio: $a, want 64 64"
	[[ $(jq '.runs[0].records_counted_in_kernel' "$WORK/ag-agg.json") -gt 128 ]] ||
		fail "nothing counted in the kernel"
	[[ $(jq '.runs[0].records_counted_in_kernel' "$WORK/ag-per-event.json") -eq 0 ]] ||
		fail "-E counted in the kernel"
}
TESTS+=(t_trace_aggregate_agrees)

# fsaio check folds plain io_uring lifecycles in the kernel
# (bpf/fsaio_fold.h); -E sends every record.  Same verdicts, same request
# counts, on io_uring programs that fold (reads), that do not (multishot,
# CQ overflow, failed links, early failures, ring teardown at exit), and on
# one that keeps requests in flight across an exit.
t_check_fold_agrees() {
	need_root
	local mode w="uring_read_batch uring_read_multishot uring_poll_multishot uring_cq_overflow uring_link_fail uring_early_fail uring_exit_armed uring_drain aio_read_batch aio_exit_inflight aio_leader_exit aio_eio aio_read_holes"
	for mode in fold per-event; do
		local opt=()
		[[ $mode == fold ]] || opt=(-E)
		$FSAIO check "${opt[@]}" --json "$WORK/cf-$mode.json" $w >"$WORK/cf-$mode.out" 2>&1 ||
			fail "check ($mode) rc=$?: $(grep -m3 'not ok' "$WORK/cf-$mode.out")"
	done
	local q='[.runs[] | {name, verdict, inv: [.invariants[] | {name, verdict}], u: .engines.io_uring | [.submitted, .completed, .errors, .failed_init, .cq_overflow, .cqe_skipped, .abandoned], l: .engines.libaio | [.submitted, .completed, .errors, .abandoned, .submit_calls]}]'
	local a e
	a=$(jq -c "$q" "$WORK/cf-fold.json"); e=$(jq -c "$q" "$WORK/cf-per-event.json")
	[[ $a == "$e" ]] || fail "folded and per-event checks differ: $(diff <(jq . <<<"$a") <(jq . <<<"$e") | head -20 | tr '\n' ' ')"
	local rf re kf
	rf=$(jq '[.runs[].records] | add' "$WORK/cf-fold.json")
	re=$(jq '[.runs[].records] | add' "$WORK/cf-per-event.json")
	kf=$(jq '[.runs[].records_counted_in_kernel] | add' "$WORK/cf-fold.json")
	echo "# records sent: $rf folded, $re per event; $kf counted in the kernel"
	# 64 plain reads, 2 records each; fold_slots is direct-mapped, so two
	# of them in flight at once may hash to one slot and the first is then
	# sent instead (rare: io_kiocbs sit close together and the hash is
	# Fibonacci's; seen once, 338 of 354): most, not all.
	local kr
	kr=$(jq '.runs[] | select(.name == "uring_read_batch") | .records_counted_in_kernel' "$WORK/cf-fold.json")
	[[ $kr -ge 96 ]] || fail "uring_read_batch: only $kr of its 128 plain-read records were counted in the kernel"
	# libaio: a SUBMIT and a REAP per read, a SUBMIT_DONE per batch
	kr=$(jq '.runs[] | select(.name == "aio_read_batch") | .records_counted_in_kernel' "$WORK/cf-fold.json")
	[[ $kr -ge 64 ]] || fail "aio_read_batch: only $kr records were counted in the kernel"
	[[ $(jq '[.runs[].records_counted_in_kernel] | add' "$WORK/cf-per-event.json") -eq 0 ]] ||
		fail "-E counted in the kernel"
	((rf < re)) || fail "folding sent $rf records, per event $re"
}
TESTS+=(t_check_fold_agrees)

# fsaio trace --stacks: where a traced program slept, by stack.  On a stock
# kernel io_submit sleeps in folio_wait_bit_common under io_submit_one.
t_trace_stacks() {
	need_root
	local rc
	mkdir -p "$WORK/s"
	trace_start "$WORK/stacks.out" -i 0 -c aio_read_batch --stacks=3 ||
		fail "trace --stacks did not start: $(cat "$WORK/stacks.out")"
	.output/workloads/aio_read_batch -d "$WORK/s" >/dev/null
	trace_stop; rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "trace --stacks rc=$rc: $(tail -3 "$WORK/stacks.out")"
	grep -q '^top stacks, wait site folio_bit:' "$WORK/stacks.out" || fail "no folio_bit stacks: $(cat "$WORK/stacks.out")"
	grep -Eq '^ +[0-9]+ sleeps .* submit_libaio +folio_wait_bit_common\+0x[0-9a-f]+ <- .*io_submit_one' "$WORK/stacks.out" ||
		fail "no io_submit stack: $(grep -A3 'top stacks' "$WORK/stacks.out")"
}
TESTS+=(t_trace_stacks)
