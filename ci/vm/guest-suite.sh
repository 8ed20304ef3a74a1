#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The workload suite of the VM tier, run inside the guest: make vmcheck's
# default VMCMD (ci/vm/vm.mk), with the scratch disks of VMDISKS.
#
#   ci/vm/guest-suite.sh [JSON [WORKLOAD...]]
#                                    JSON default: $FSAIO_OUT/fsaio.json
#
# 1. fsaio check --exclusive: the whole default suite (or the WORKLOADs
#    named), on the ext4 scratch it makes on a loop device (results in
#    JSON).
# 2. Runs on the other scratch file systems that ci/vm/vm-run.sh --disks
#    mounts in the guest ($FSAIO_SCRATCH_<FS>), each fsaio check
#    --exclusive with its results in fsaio-<fs>.json beside JSON:
#    f2fs, xfs, btrfs: aio_osync_write -D.  None of them sets
#      FOP_DSYNC_ASYNC (f2fs and xfs record a data writeback error in the
#      mapping only, so it could not reach the one write whose block
#      failed; btrfs's ->fsync() waits for ordered extents): the patched
#      kernel must keep their O_DSYNC writes synchronous, each one
#      complete when io_submit returns, no RETRY or PUNT
#      (retry_lifecycle).
#    xfs also: aio_write_order (the order, atomicity and visibility of
#      O_DSYNC writes), and aio_blkcg (io.max, io.stat, the cgroup's
#      release after rmdir) on a disk that is not a loop device.
#    A kernel without the file system skips its run with a "# FS:" note
#    that leaves the verdict alone; a kernel with it but no mounted
#    scratch is an ERROR (the run was asked for).
#    Then a null_blk race tier, and on a kernel with the series the same
#    checks with its switch off (fs.aio-buffered-async=0) and with its
#    default, the opt-in (1).  The guest runs everything else with 2
#    (ci/vm/guest-mounts.sh guest_aio_async): fio cannot set the flag.
#
# stdout: the KTAP of each run, one after the other (tests/run-all.sh
# counts the checks of both).  Exit status: the worse of the two, ERROR >
# FAIL > PASS > SKIP (harness/exit_status.h), as make vmcheck combines
# kernels (fsaio's usage error, e.g. an unknown WORKLOAD, is an ERROR).
set -u
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cannot cd to $ROOT"
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
JSON=${1:-${FSAIO_OUT:-.}/fsaio.json}
shift $(($# > 0))

# What the suite's requests hold, before and after: fs.aio-nr and the aio
# and io_uring slab objects (exact only with SLUB debugging, which the
# default flavour boots with: /sys/kernel/slab/X/sanity_checks).
SLABS="kioctx aio_kiocb io_kiocb"
snapshot() {
	local c
	printf 'aio-nr %s' "$(cat /proc/sys/fs/aio-nr)"
	for c in $SLABS; do
		printf ' %s %s' "$c" "$(awk -v c="$c" '$1 == c { print $2 }' /proc/slabinfo 2>/dev/null)"
	done
}
# the guest runs the host's checkout: without its build there is nothing
# to judge with, which is an error of the run, not a verdict on the kernel
if [[ ! -x ./fsaio || ! -d .output/workloads ]]; then
	echo "# ERROR: ./fsaio or .output/workloads not built: run make on the host first"
	exit "$EXIT_ERROR"
fi
BEFORE=$(snapshot)

./fsaio check --exclusive --json "$JSON" "$@"
rc=$?
# The 6.12 test kernels load fsaio's fentry/fexit programs.  fsaio
# survives a verifier rejection of them by tracing with tracepoints alone:
# sound for a user, but here it would test less and still pass.
if [[ $(uname -r) == 6.12.* && -f $JSON ]] &&
   ! jq -e '.kernel.features.fentry' "$JSON" >/dev/null; then
	echo "# fentry: ERROR: fsaio ran without its fentry/fexit programs" \
	     "(./fsaio check -v shows why)"
	rc=$(worse "$rc" "$EXIT_ERROR")
fi

# check_in DIR JSON_NAME WORKLOAD [ARGS...]: one workload on DIR, traced
check_in() {
	local dir=$1 name=$2 w=$3
	shift 3
	./fsaio check --exclusive --json "$(dirname "$JSON")/$name" -- \
		".output/workloads/$w" "$@" -d "$dir"
	rc=$(worse "$rc" $?)
}

# extra FS JSON_NAME WORKLOAD [ARGS...]: one more run on scratch FS
extra() {
	local fs=$1 name=$2 var dir
	shift 2
	var=FSAIO_SCRATCH_${fs^^}
	dir=${!var:-}
	if [[ -n $dir ]]; then
		check_in "$dir" "$name" "$@"
	elif grep -qw "$fs" /proc/filesystems 2>/dev/null; then
		echo "# $fs: ERROR: the kernel has $fs but no $fs scratch is mounted" \
		     "($var unset: ci/vm/vm-run.sh --disks without $fs, or the mount failed)"
		rc=$(worse "$rc" "$EXIT_ERROR")
	else
		echo "# $fs: $1 not run: this kernel has no $fs"
	fi
}

extra f2fs fsaio-f2fs.json aio_osync_write -D
extra xfs fsaio-xfs-order.json aio_write_order
extra xfs fsaio-xfs.json aio_osync_write -D
# io cgroups on a disk that is not a loop device (whose per-cgroup worker
# holds a removed cgroup for 60 s): aio_blkcg checks the release there.
extra xfs fsaio-xfs-blkcg.json aio_blkcg
extra btrfs fsaio-btrfs.json aio_osync_write -D
# A killed submitter's resumed read re-arming in its worker: on a disk
# the page it reads again is still in flight when it re-arms; the loop
# device of the suite (on tmpfs) often has it read first.
extra ext4 fsaio-ext4-kill.json aio_kill_parked

# Race amplification: a memory-backed null_blk whose completions
# come from a 5 us hrtimer (irqmode=2), so a read's completion races the
# issuer arming its wait, under a fresh ext4: the many-submitters, ordering
# and batch workloads once more, and reads whose folios are invalidated
# between wake and copy (fsaio-nullb-<workload>.json).
# Not aio_blkcg: io.max on a disk that is then deleted leaks its
# throtl_data on 6.12 (blkg_destroy_all() clears the policy bit that
# blk_throtl_exit() tests before kfree(q->td); kmemleak reports it on
# stock too), and this device is deleted after the run.
NULLB_WORKLOADS="aio_shared_folios aio_read_batch aio_write_order aio_osync_write
	aio_read_invalidate"
nullb_run() {
	local cfg=/sys/kernel/config nb dev mnt=/tmp/scratch/nullb w
	[[ -d $cfg/nullb ]] || mount -t configfs none $cfg 2>/dev/null
	if [[ ! -d $cfg/nullb ]]; then
		echo "# nullb: not run: this kernel has no null_blk configfs (CONFIG_BLK_DEV_NULL_BLK)"
		return
	fi
	nb=$cfg/nullb/fsaio-race
	if ! { mkdir "$nb" && echo 512 >"$nb/size" && echo 1 >"$nb/memory_backed" &&
	       echo 2 >"$nb/irqmode" && echo 5000 >"$nb/completion_nsec" &&
	       echo 1 >"$nb/power"; } 2>/dev/null; then
		echo "# nullb: ERROR: could not configure a timer-completion null_blk at $nb"
		rmdir "$nb" 2>/dev/null
		rc=$(worse "$rc" "$EXIT_ERROR")
		return
	fi
	# named after the configfs directory since 5.19, nullb<index> before
	dev=/dev/${nb##*/}
	[[ -b $dev ]] || dev=/dev/nullb$(cat "$nb/index")
	mkdir -p "$mnt"
	if mkfs.ext4 -q -F "$dev" && mount "$dev" "$mnt"; then
		echo "# nullb: $dev (memory-backed, irqmode=2, completion_nsec=5000) ext4 on $mnt"
		for w in $NULLB_WORKLOADS; do
			check_in "$mnt" "fsaio-nullb-$w.json" "$w"
		done
		umount "$mnt"
	else
		echo "# nullb: ERROR: mkfs.ext4 or mount of $dev failed"
		rc=$(worse "$rc" "$EXIT_ERROR")
	fi
	echo 0 >"$nb/power" 2>/dev/null
	rmdir "$nb" "$mnt" 2>/dev/null
}
nullb_run

# with_switch NAME VALUE WORKLOAD...: a kernel with the series runs the
# WORKLOADs with fs.aio-buffered-async=VALUE (results in fsaio-NAME.json),
# then puts the guest's value back.
with_switch() {
	local name=$1 value=$2 sw=/proc/sys/fs/aio-buffered-async old
	shift 2
	if [[ ! -w $sw ]]; then
		echo "# $name: not run: no $sw (a kernel without the series)"
		return
	fi
	old=$(cat "$sw")
	echo "$value" >"$sw"
	echo "# $name: fs.aio-buffered-async=$value"
	./fsaio check --exclusive --json "$(dirname "$JSON")/fsaio-$name.json" "$@"
	rc=$(worse "$rc" $?)
	echo "$old" >"$sw"
}

# The administrator's off switch: with fs.aio-buffered-async=0 every libaio
# request must stay synchronous, as on stock (fsaio check fails
# retry_lifecycle on a RETRY or PUNT, and the sleeps in io_submit are the
# expected XFAIL): cold reads, O_SYNC writes and a second thread's submits.
with_switch switch-off 0 aio_read_batch aio_osync_write aio_leader_exit

# The series' default (fs.aio-buffered-async=1): only a request that sets
# IOCB_FLAG_BUFFERED_ASYNC may go asynchronous.  aio_opt_in asks for every
# other one of its reads and O_DSYNC writes, and checks that the rest were
# complete when io_submit returned; the trace fails a RETRY or PUNT of a
# request that did not ask, and a sleep in io_submit of one that did.  The
# programs that never ask must behave as on stock.
with_switch opt-in 1 aio_opt_in aio_read_batch aio_osync_write

# 2b. aio_read_pkey proves the worker's protection-key rights only if its
#     copies ran there: on a kernel with the series every one of its reads
#     must have been resumed (fsaio_resume in an aio worker), none done in
#     io_submit.
pkey_copy_in_worker() {
	local q='.runs[] | select(.name=="aio_read_pkey")' v got
	echo "KTAP version 1"
	echo "1..1"
	v=$(jq -r "$q | .verdict" "$JSON" 2>/dev/null)
	if [[ -z $v || $v == skip ]]; then
		echo "ok 1 pkey_copy_in_worker # SKIP aio_read_pkey ${v:-not run}"
		return "$EXIT_PASS"
	fi
	if [[ ! -w /proc/sys/fs/aio-buffered-async ]]; then
		echo "ok 1 pkey_copy_in_worker # SKIP a kernel without the series copies in io_submit"
		return "$EXIT_PASS"
	fi
	got=$(jq -c "$q | .engines.libaio | [.submitted, .resumes, .blocked_in_submit]" "$JSON")
	echo "# aio_read_pkey: submitted, resumed, blocked in io_submit: $got (want [16,16,0])"
	[[ $got == "[16,16,0]" ]] && { echo "ok 1 pkey_copy_in_worker"; return "$EXIT_PASS"; }
	echo "not ok 1 pkey_copy_in_worker"
	return "$EXIT_FAIL"
}
pkey_copy_in_worker
rc=$(worse "$rc" $?)

# 3. fsaio trace on this kernel: requests counted in the kernel
#    (raw io_uring tracepoints where their prototype is known, the fsaio
#    tracepoints on a patched kernel) must give the programs' own counts:
#    64 io_uring and 64 libaio cold reads, traced by pid.
trace_live() {
	local d=${FSAIO_SCRATCH_EXT4:-/tmp}/trace-live out=/tmp/trace-live.json fifo=/tmp/trace-live.fifo pid t q got
	mkdir -p "$d"; rm -f "$fifo"; mkfifo "$fifo"
	sh -c 'read _; w=.output/workloads; $w/uring_read_batch -d '"$d"' && $w/aio_read_batch -d '"$d" \
		<"$fifo" >/dev/null 2>&1 &
	pid=$!
	./fsaio trace -d 10 -i 0 -p "$pid" --json "$out" >/tmp/trace-live.out 2>&1 &
	t=$!
	# start the programs once the tracer is attached (it says so then)
	for _ in $(seq 300); do
		grep -q '^fsaio: tracing' /tmp/trace-live.out && break
		sleep 0.1
	done
	echo go >"$fifo"
	wait "$t"
	t=$?
	wait
	rm -rf "$d" "$fifo"
	q='[.engines.libaio.submitted,.engines.libaio.completed,.engines.io_uring.submitted,.engines.io_uring.completed]'
	got=$(jq -c "$q" "$out" 2>/dev/null)
	echo "KTAP version 1"
	echo "1..1"
	echo "# fsaio trace -p: libaio/io_uring submitted,completed $got (want [64,64,64,64]);" \
	     "records $(jq '.runs[0].records' "$out" 2>/dev/null), counted in the kernel" \
	     "$(jq '.runs[0].records_counted_in_kernel' "$out" 2>/dev/null), lost $(jq '.lost_events' "$out" 2>/dev/null)"
	if [[ $t -eq 0 && $got == "[64,64,64,64]" ]] &&
	   (($(jq '.runs[0].records_counted_in_kernel' "$out") > 0)); then
		echo "ok 1 trace_live"
		return "$EXIT_PASS"
	fi
	sed 's/^/# /' /tmp/trace-live.out | tail -5
	echo "not ok 1 trace_live"
	return "$EXIT_FAIL"
}
trace_live
rc=$(worse "$rc" $?)

# 4. After every run, as a KTAP document of its own: fs.aio-nr
#    and the slab objects back to what they were before the suite, and
#    the aio_rw workqueue idle: no task with an aio worker function on its
#    stack within 10 s (a stalled retry, or a worker stuck in a sync step).
aio_rw_busy() {
	grep -lE 'aio_rw_work|aio_write_sync|aio_read_async' /proc/[0-9]*/stack 2>/dev/null |
		sed 's|/proc/\([0-9]*\)/stack|\1|' | tr '\n' ' '
}
suite_resources() {
	local after busy i n=0 c exact=1 v0 v1 what
	for i in $(seq 20); do
		busy=$(aio_rw_busy)
		[[ -z $busy ]] && break
		sleep 0.5
	done
	after=$(snapshot)
	echo "KTAP version 1"
	echo "1..1"
	echo "    KTAP version 1"
	echo "    # Subtest: suite_resources"
	echo "    1..3"
	echo "    # before the suite: $BEFORE"
	echo "    # after every run:  $after"
	v0=$(set -- $BEFORE; echo "$2") v1=$(set -- $after; echo "$2")
	if [[ $v0 == "$v1" ]]; then
		echo "    ok 1 suite_aio_contexts"
	else
		echo "    # fs.aio-nr $v0 -> $v1: aio contexts (or their events) leaked by the suite"
		echo "    not ok 1 suite_aio_contexts"; n=1
	fi
	for c in $SLABS; do
		[[ $(cat /sys/kernel/slab/$c/sanity_checks 2>/dev/null) == 1 ]] || exact=0
	done
	if ((!exact)); then
		echo "    ok 2 suite_slab_objects # SKIP slab counts inexact without SLUB debugging (slub_debug=F)"
	else
		what=$(awk -v a="$BEFORE" -v b="$after" 'BEGIN {
			na = split(a, x, " "); split(b, y, " ")
			for (i = 3; i < na; i += 2) if (x[i + 1] != y[i + 1])
				printf "%s %s -> %s (%+d) ", x[i], x[i + 1], y[i + 1], y[i + 1] - x[i + 1] }')
		if [[ -z $what ]]; then
			echo "    ok 2 suite_slab_objects"
		else
			echo "    # slab objects not back to baseline: $what"
			echo "    not ok 2 suite_slab_objects"; n=1
		fi
	fi
	if [[ -z $busy ]]; then
		echo "    ok 3 suite_aio_rw_idle"
	else
		echo "    # aio worker functions still on the stack of pid(s) $busy after 10 s:"
		for i in $busy; do sed 's/^/    #   /' /proc/$i/stack 2>/dev/null | head -12; done
		echo "    not ok 3 suite_aio_rw_idle"; n=1
	fi
	if ((n)); then echo "not ok 1 suite_resources"; return "$EXIT_FAIL"; fi
	echo "ok 1 suite_resources"
	return "$EXIT_PASS"
}
suite_resources
rc=$(worse "$rc" $?)
exit "$rc"
