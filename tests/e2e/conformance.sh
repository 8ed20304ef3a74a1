# SPDX-License-Identifier: GPL-2.0
# End-to-end tests of the conformance corpus (tests/conformance/README.md):
# each program's traced counts, exact.  Sourced by tests/e2e/run.sh (lib.sh
# first).

# Programs of tests/conformance/ whose verdicts are right today (the others
# and their expected counts: tests/conformance/README.md).  conf_run NAME
# [ARGS]: fsaio check -- the program; the run must pass with 0 records
# lost and the traced counts must equal the program's own (the join
# workload_agreement makes for workloads; it skips commands).  Sets $J,
# the JSON.
conf_run() {
	local name=$1 rc line mine traced
	shift
	J=$WORK/conf-$name.json
	mkdir -p "$WORK/conf"
	local prog=.output/workloads/$name
	[[ -x $prog ]] || prog=.output/conformance/$name
	$FSAIO check --json "$J" -- "$prog" -d "$WORK/conf" "$@" \
		>"$WORK/conf-$name.ktap" 2>&1; rc=$?
	if [[ $(jq -r '.runs[0].invariants[0].verdict' "$J" 2>/dev/null) == skip ]]; then
		grep -m1 'SKIP' "$WORK/conf-$name.ktap"; exit "$EXIT_SKIP"
	fi
	grep -E '^ +(not ok|# [a-z_]+:)' "$WORK/conf-$name.ktap" | sed 's/^ *//'
	[[ $rc -eq $EXIT_PASS ]] || fail "fsaio check rc=$rc"
	[[ $(jq '.lost_events' "$J") -eq 0 ]] || fail "records lost"
	line=$(jq -r '.runs[0].workload_summary' "$J")
	mine=$(sed -nE 's/.* submitted=([0-9]+) completed=([0-9]+) .*/\1 \2/p' <<<"$line")
	mine="$mine $(sed -nE 's/.* abandoned=([0-9]+).*/\1/p' <<<"$line")"
	mine=${mine% }; [[ $mine == *" "*" "* ]] || mine="$mine 0"
	traced=$(jq -r '.engines | "\(.io_uring.submitted + .libaio.submitted) \(.io_uring.completed + .libaio.completed) \(.io_uring.abandoned + .libaio.abandoned)"' "$J")
	[[ -n $mine && $mine == "$traced" ]] || fail "program says '$line', traced $traced"
}

# One IORING_POLL_ADD_MULTI, 16 CQEs with F_MORE, then POLL_REMOVE: two
# requests, each ended by its one CQE without F_MORE; -ECANCELED is 1 error.
t_conf_poll_multishot() {
	need_root
	conf_run uring_poll_multishot
	[[ $(jq -r '.engines.io_uring | "\(.submitted) \(.completed) \(.abandoned) \(.errors)"' "$J") == "2 2 0 1" ]] ||
		fail "io_uring counts $(jq -c .engines.io_uring "$J")"
}
TESTS+=(t_conf_poll_multishot)

# IORING_OP_READ_MULTISHOT with 8 provided buffers: 8 CQEs with F_MORE,
# then -ENOBUFS ends it (skips where the kernel lacks the opcode).
t_conf_read_multishot() {
	need_root
	conf_run uring_read_multishot
	[[ $(jq -r '.engines.io_uring | "\(.submitted) \(.completed) \(.abandoned) \(.errors)"' "$J") == "1 1 0 1" ]] ||
		fail "io_uring counts $(jq -c .engines.io_uring "$J")"
}
TESTS+=(t_conf_read_multishot)

# 8 cold reads + poll, timeout (-ETIME), splice, statx, nop in one submit.
t_conf_mixed_ops() {
	need_root
	conf_run uring_mixed_ops
	[[ $(jq -r '.engines.io_uring | "\(.submitted) \(.completed) \(.abandoned) \(.errors) \(.submit_calls)"' "$J") == "13 13 0 1 1" ]] ||
		fail "io_uring counts $(jq -c .engines.io_uring "$J")"
	jqv "$J" '.invariants[] | select(.name=="nonblocking_submit_io_uring") | select(.verdict=="pass")' >/dev/null ||
		fail "nonblocking_submit_io_uring not pass"
}
TESTS+=(t_conf_mixed_ops)

# conf_counts ENGINE "FIELD..." "VALUES": exact engine counters of the run
conf_counts() {
	local got
	got=$(jq -r --arg e "$1" --arg f "$2" '.engines[$e] as $x | [$f | split(" ")[] | $x[.] | tostring] | join(" ")' "$J")
	[[ $got == "$3" ]] || fail "$1 $2: $got, expected $3"
}

# 72 good cold reads and 12 SQEs rejected at init (bad opcode, flags, fd,
# buffer), several on req structs recycled from finished reads: 84
# requests each completed once; the 12 are io_uring_req_failed's, not
# "completed twice" (20 errors: 12 at init, 8 at issue).
t_conf_early_fail() {
	need_root
	conf_run uring_early_fail
	conf_counts io_uring "submitted completed abandoned errors failed_init" "84 84 0 20 12"
}
TESTS+=(t_conf_early_fail)

# 64 NOPs into a 4-entry CQ: 4 CQEs posted, 60 overflowed (traced by
# io_uring_cqe_overflow, without the req), none dropped: all completed.
t_conf_cq_overflow() {
	need_root
	conf_run uring_cq_overflow
	conf_counts io_uring "submitted completed abandoned cq_overflow cq_dropped" "64 64 0 60 0"
}
TESTS+=(t_conf_cq_overflow)

# Pipe reads and polls armed at _exit() and at ring close: the kernel
# cancels them at ring teardown (-ECANCELED): abandoned, not completed.
t_conf_exit_armed() {
	need_root
	conf_run uring_exit_armed
	conf_counts io_uring "submitted completed abandoned" "12 2 10"
	grep -q "10 cancelled at io_uring ring teardown" "$WORK/conf-uring_exit_armed.ktap" ||
		fail "detail: $(grep exactly_once "$WORK/conf-uring_exit_armed.ktap")"
}
TESTS+=(t_conf_exit_armed)

# Linked chains broken at issue, at init (the head rejected by
# io_uring_req_failed) and by a short read: -ECANCELED members counted.
t_conf_link_fail() {
	need_root
	conf_run uring_link_fail
	conf_counts io_uring "submitted completed abandoned errors failed_init" "16 16 0 10 1"
}
TESTS+=(t_conf_link_fail)

# IOSQE_CQE_SKIP_SUCCESS (liburing's test/skip-cqe.c drew "submitted again
# before it completed" and quiescence FAILs): 25 requests, 7 CQEs; 18 end
# without one (successes with the flag, and a failed chain's links whose
# -ECANCELED CQE the kernel skips), each counted completed once.
t_conf_cqe_skip() {
	need_root
	conf_run uring_cqe_skip
	conf_counts io_uring "submitted completed abandoned errors cqe_skipped" "25 25 0 3 18"
	grep -q "18 ended without a CQE" "$WORK/conf-uring_cqe_skip.ktap" ||
		fail "detail: $(grep exactly_once "$WORK/conf-uring_cqe_skip.ktap")"
}
TESTS+=(t_conf_cqe_skip)

# IORING_OP_SEND_ZC on loopback TCP: each send's own CQE (F_MORE) ends it,
# the notification (F_NOTIF) comes from the kernel's own request on a
# recycled req struct: 24 sends, 24 notifications, none "in flight".
t_conf_send_zc() {
	need_root
	conf_run uring_send_zc
	conf_counts io_uring "submitted completed abandoned errors zc_notifs" "24 24 0 0 24"
}
TESTS+=(t_conf_send_zc)

# CQ overflow while a pipe read with the same user_data (0) is in flight:
# the overflowed CQEs (no req) first end the read; its own CQE, and the
# reuse of an overflowed NOP's req struct, move them where they belong.
t_conf_overflow_same_ud() {
	need_root
	conf_run uring_overflow_same_ud
	conf_counts io_uring "submitted completed abandoned errors cq_overflow cq_dropped" "34 34 0 0 16 0"
}
TESTS+=(t_conf_overflow_same_ud)

# 1024 cold reads in one io_uring_enter: the submitter waits for block
# layer request tags (the queue holds fewer), not in page waits: the
# sleeps are counted apart and nonblocking_submit_io_uring passes.
t_conf_read_deep() {
	need_root
	conf_run uring_read_deep
	conf_counts io_uring "submitted completed submit_calls blocked_in_submit" "1024 1024 1 0"
}
TESTS+=(t_conf_read_deep)

# libaio: the main thread pthread_exit()s first, a worker submits 48 and
# reaps 32; the last thread's exit abandons 16 (not the leader's).
t_conf_leader_exit() {
	need_root
	conf_run aio_leader_exit
	conf_counts libaio "submitted completed abandoned" "48 32 16"
}
TESTS+=(t_conf_leader_exit)

# IOSQE_IO_DRAIN: 8 cold reads, a drained NOP, 8 more reads in one submit;
# the NOP and the last 8 complete after the first 8 (the program checks
# the order; the NOP vs the last 8 is not promised, so not checked): 17
# requests, each completed once.
t_conf_drain() {
	need_root
	conf_run uring_drain
	conf_counts io_uring "submitted completed abandoned errors" "17 17 0 0"
	[[ $(jq -c '.engines.io_uring.by_opcode' "$J") == '{"nop":1,"read":16}' ]] ||
		fail "by_opcode $(jq -c '.engines.io_uring.by_opcode' "$J")"
}
TESTS+=(t_conf_drain)

# A program that calls io_uring_enter in a tight loop (1M empty
# GETEVENTS, 1M NOP submit+reap: ~3M records in a few seconds): check's
# default ring buffer (32 MiB) takes it without losing a record.
t_conf_enter_busy() {
	need_root
	# -t 120: the exact counts, not the program's default 10 s limit per
	# phase, which a loaded machine reaches first
	conf_run uring_enter_busy -t 120
	conf_counts io_uring "submitted completed abandoned" "1000000 1000000 0"
}
TESTS+=(t_conf_enter_busy)
