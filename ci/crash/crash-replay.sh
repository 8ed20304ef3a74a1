#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The crash-replay durability tier: every O_SYNC/O_DSYNC write acknowledged
# to user space (io_getevents, a CQE) must be on stable storage at the
# moment of the acknowledgement.  xfstests' generic/482 method: a
# dm-log-writes device records every write, flush and FUA of a file system;
# the workload (workloads/osync_marks.c) puts a mark in the log right after
# each acknowledgement; the log is then replayed up to a mark the way a
# power cut would have left the disk (ci/crash/lw-replay.c: up to the last
# flush before the mark, plus FUA writes), the image mounted (journal
# recovery) and every write acknowledged before the mark must read back.
#
#   ci/crash/crash-replay.sh [--fs 'ext4 xfs'] [--cases 'NAME...'] [-n COUNT]
#                            [-q DEPTH] [--every K] [--no-cache-model] [--keep]
#
#   --fs LIST        file systems (default: ext4 xfs)
#   --cases LIST     of libaio_osync libaio_odsync uring_rwf_sync uring_rwf_dsync
#                    control_wb_started control_no_flush (default: all six)
#   -n COUNT         writes per case (default 32); -q DEPTH in flight (default 8)
#   --every K        verify the marks of acknowledgements 0, K-1, 2K-1, ... and the
#                    last (default 16: first, middle, last; 1 = every mark).  A
#                    mark costs a mount and an umount, about 2-3 s under TCG
#   --no-cache-model replay every log entry up to the mark (as replay-log
#                    --end-mark), not only what a volatile write cache keeps
#   --keep           keep the work directory (logs, manifests, images)
#
# The two controls prove the tier is not blind: the same writes, plain
# buffered, "acknowledged" after sync_file_range() started writeback (or
# waited for it, but no flush and no journal commit), the two bugs a
# patched kernel could have; the control passes when the replay finds
# acknowledged writes missing, and fails if it finds them all.
#
# Devices: loop devices over sparse files in a work directory ($TMPDIR,
# default /var/tmp: tmpfs in the VM), a data disk (ext4 64 MiB, xfs
# 128 MiB) and a log disk (256 MiB); every mount, dm device and loop device
# is torn down on every exit path.  Needs root, dmsetup and the log-writes
# target (CONFIG_DM_LOG_WRITES), mkfs.<fs>, the built osync_marks and
# lw-replay (make).
#
# Output: KTAP, one test per file system x case, with the counts.  Exit
# status (harness/exit_status.h): 0 pass, 1 an acknowledged write missing
# at a mark (named with the mark) or a replayed image that does not mount,
# 4 skip (not root, no log-writes target, no mkfs: the reason is printed),
# 5 error (a setup step failed: no verdict); ERROR wins over FAIL.
set -euo pipefail
# One compound command: editing this file cannot break a running copy.
{
. "$(dirname "$0")/../lib.sh"

FSLIST="ext4 xfs"
CASES="libaio_osync libaio_odsync uring_rwf_sync uring_rwf_dsync control_wb_started control_no_flush"
COUNT=32 DEPTH=8 EVERY=16 CACHE_MODEL=1 KEEP=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--fs) FSLIST=$2; shift 2 ;;
	--cases) CASES=$2; shift 2 ;;
	-n) COUNT=$2; shift 2 ;;
	-q) DEPTH=$2; shift 2 ;;
	--every) EVERY=$2; shift 2 ;;
	--no-cache-model) CACHE_MODEL=0; shift ;;
	--keep) KEEP=1; shift ;;
	-h|--help) usage "$EXIT_PASS" ;;
	*) usage_error "unknown argument: $1" ;;
	esac
done
[[ $COUNT =~ ^[0-9]+$ && $DEPTH =~ ^[0-9]+$ && $EVERY =~ ^[1-9][0-9]*$ ]] ||
	usage_error "-n, -q and --every take positive numbers"

WL=$ROOT/.output/workloads/osync_marks
REPLAY=$ROOT/.output/crash/lw-replay
LOG_SIZE=256M
declare -A DATA_SIZE=([ext4]=64M [xfs]=128M)
# mkfs without discards (each would be a log entry over the whole disk);
# ext4 initialises its inode tables and journal now, not in a background
# thread that would write during the workload.
declare -A MKFS=([ext4]="mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0"
		 [xfs]="mkfs.xfs -q -f -K")
declare -A MOUNTOPT=([ext4]="" [xfs]="-o nouuid")
# mkfs.xfs refuses file systems under 300 MB unless run as fstests does.
export TEST_DIR=/tmp TEST_DEV=/dev/null QA_CHECK_FS=1

case_args() {
	case $1 in
	libaio_osync) echo "" ;;
	libaio_odsync) echo "-D" ;;
	uring_rwf_sync) echo "-u -R" ;;
	uring_rwf_dsync) echo "-u -R -D" ;;
	control_wb_started) echo "-C start" ;;
	control_no_flush) echo "-C wait" ;;
	*) return 1 ;;
	esac
}
for c in $CASES; do case_args "$c" >/dev/null || usage_error "unknown case $c"; done
for fs in $FSLIST; do [[ -n ${MKFS[$fs]:-} ]] || usage_error "unknown file system $fs (ext4, xfs)"; done

# ---- teardown: a stack of undo commands, run on every exit path ---------------
UNDO=()
undo_push() { UNDO+=("$1"); }
# undo_to N: run and drop the undo commands above depth N, newest first.
undo_to() {
	local i
	for ((i = ${#UNDO[@]} - 1; i >= $1; i--)); do
		eval "${UNDO[i]}" >/dev/null 2>&1 || true
		unset 'UNDO[i]'
	done
}
WORK=
cleanup() {
	undo_to 0
	if [[ -n $WORK ]]; then
		[[ -n ${FSAIO_OUT:-} && -d ${FSAIO_OUT:-} ]] && save_logs
		((KEEP)) && msg "kept $WORK" || rm -rf "$WORK"
	fi
}
# In the VM: the small text files of each case next to the results, as
# one archive (a file per copy over the 9p share took 35 s).
save_logs() {
	(cd "$WORK" && find . -name '*.txt' -size -2M -print0 |
		tar --null -T - -czf "$FSAIO_OUT/crash-logs.tar.gz") 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit $EXIT_ERROR' INT TERM HUP

# ---- what cannot run here: skip every test with the reason ------------------------
TOTAL=0
for fs in $FSLIST; do for c in $CASES; do TOTAL=$((TOTAL + 1)); done; done
echo "KTAP version 1"
echo "1..$TOTAL"
skip_all() {
	local n=0 fs c
	echo "# SKIP $1"
	for fs in $FSLIST; do for c in $CASES; do
		n=$((n + 1)); echo "ok $n ${fs}_$c # SKIP $1"
	done; done
	exit "$EXIT_SKIP"
}
[[ $(id -u) -eq 0 ]] || skip_all "needs root (dm and loop devices, mounts)"
for t in dmsetup losetup blockdev mount; do
	command -v $t >/dev/null || skip_all "$t not found (apt-get install dmsetup mount util-linux)"
done
[[ -x $WL && -x $REPLAY ]] || { echo "# $WL or $REPLAY not built: run make"; exit "$EXIT_ERROR"; }
has_log_writes() { dmsetup targets 2>/dev/null | grep -q '^log-writes'; }
has_log_writes || { modprobe dm-log-writes >/dev/null 2>&1 && has_log_writes; } ||
	skip_all "no dm log-writes target (kernel without CONFIG_DM_LOG_WRITES)"

WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/fsaio-crash.XXXXXX") || { echo "# mktemp failed"; exit "$EXIT_ERROR"; }
echo "# crash-replay on $(uname -r): $COUNT writes per case, $DEPTH in flight," \
	"marks verified: $( ((EVERY == 1)) && echo every one || echo "ack 0, every ${EVERY}th and the last")," \
	"$( ((CACHE_MODEL)) && echo "power-cut replay (up to the last flush, plus FUA)" || echo "full replay up to the mark")"

# Time per phase, in microseconds from bash's clock (no fork per reading).
declare -A T
usec() { echo $((${EPOCHREALTIME/./} - ${1:-0})); }
tadd() { T[$1]=$((${T[$1]:-0} + $(usec "$2"))); }
secs() { printf '%d.%d' $((${T[$1]:-0} / 1000000)) $((${T[$1]:-0} / 100000 % 10)); }

# ---- one file system: one log for all its cases ------------------------------------------
# Steps either work or set WHY and return EXIT_ERROR (setup) or EXIT_FAIL
# (the kernel lost an acknowledged write); SUMMARY gets the counts.
WHY='' SUMMARY=''
errout() { WHY="$1"; [[ -s ${2:-/dev/null} ]] && tail -n 5 "$2" | sed 's/^/#   /'; return "$EXIT_ERROR"; }

# loop_attach FILE VAR: a loop device over FILE, detached on teardown.
loop_attach() {
	local dev
	dev=$(losetup -f --show "$1") || return 1
	undo_push "losetup -d $dev"
	printf -v "$2" '%s' "$dev"
}

# mount_fs FS DEV DIR [OPTIONS...]: mounted on DIR, unmounted on teardown.
mount_fs() {
	mkdir -p "$3" && mount -t "$1" ${MOUNTOPT[$1]} "${@:4}" "$2" "$3" || return 1
	undo_push "umount $3 || umount -l $3"
}

# The cases of one file system run one after the other on one mkfs and
# one log (a mkfs and a log per case cost more than the cases): the
# controls last, so that no real case's flush makes their writes durable.
ORDER=()
for c in $CASES; do [[ $c == control_* ]] || ORDER+=("$c"); done
for c in $CASES; do [[ $c == control_* ]] && ORDER+=("$c"); done

# Phase 1: mkfs, then each case's osync_marks run on the log-writes device
# (marks CASE-ack0000...; manifest d/CASE.txt; its exit status in RC[CASE]),
# then umount and remove the target, which logs what is still unflushed
# and the final super.  Leaves d/log.img.
declare -A RC
record_fs() {
	local fs=$1 d=$2 dm=$3 base=${#UNDO[@]} data log sectors c t
	truncate -s "${DATA_SIZE[$fs]}" "$d/data.img" && truncate -s "$LOG_SIZE" "$d/log.img" ||
		{ errout "cannot create the disk images in $d"; return; }
	loop_attach "$d/data.img" data && loop_attach "$d/log.img" log ||
		{ errout "losetup failed (CONFIG_BLK_DEV_LOOP? free loop devices?)"; return; }
	sectors=$(blockdev --getsz "$data") || { errout "blockdev --getsz $data"; return; }
	dmsetup create "$dm" --table "0 $sectors log-writes $data $log" >"$d/dmsetup.txt" 2>&1 ||
		{ errout "dmsetup create $dm (log-writes $data $log) failed" "$d/dmsetup.txt"; return; }
	undo_push "dmsetup remove --retry $dm"
	dmsetup mknodes "$dm" >/dev/null 2>&1 || true
	t=$(usec)
	${MKFS[$fs]} "/dev/mapper/$dm" >"$d/mkfs.txt" 2>&1 ||
		{ errout "${MKFS[$fs]%% *} on /dev/mapper/$dm failed" "$d/mkfs.txt"; return; }
	tadd mkfs "$t"
	mount_fs "$fs" "/dev/mapper/$dm" "$d/mnt" || { errout "mount -t $fs /dev/mapper/$dm failed"; return; }
	for c in "${ORDER[@]}"; do
		t=$(usec)
		# shellcheck disable=SC2046
		"$WL" -d "$d/mnt" -n "$COUNT" -q "$DEPTH" -m "$dm" -P "$c-ack" -M "$d/$c.txt" \
			$(case_args "$c") >"$d/$c.out.txt" 2>&1 && RC[$c]=0 || RC[$c]=$?
		tadd "workload-$c" "$t"
	done
	umount "$d/mnt" || { errout "umount $d/mnt failed"; return; }
	dmsetup status "$dm" >"$d/status.txt" 2>&1 || true
	undo_to "$base"
	dmsetup info "$dm" >/dev/null 2>&1 && { errout "dmsetup remove $dm failed"; return; }
	grep -q logging_disabled "$d/status.txt" &&
		{ errout "dm-log-writes stopped logging (log full or I/O error): $(cat "$d/status.txt")"; return; }
	rm -f "$d/data.img"
	return 0
}

# The marks of a case to verify: ack 0, every EVERY-th and the last.
pick_marks() {
	awk -v k="$EVERY" '$1 == "ack" { m[n++] = $5 }
		END { for (i = 0; i < n; i++) if (i == 0 || (i + 1) % k == 0 || i == n - 1) print m[i] }' "$1"
}

# Phase 2, one case: replay to each of its marks (the base image is shared
# by the cases of the file system and only moves forward: cases in log
# order), mount the copy (journal recovery), verify what was acknowledged.
# show: how many lost writes each mark names.
replay_case() {
	local fs=$1 d=$2 c=$3 show=$4 mark base out rc t marks=0 ok=0 miss=0 stale=0 torn=0 checked=0 nomount=0
	local mflag=; ((CACHE_MODEL)) || mflag=--no-cache-model
	for mark in $(pick_marks "$d/$c.txt"); do
		marks=$((marks + 1))
		t=$(usec)
		"$REPLAY" -l "$d/log.img" -b "$d/base.img" -c "$d/copy.img" -m "$mark" $mflag \
			>>"$d/replay.txt" 2>&1 || { errout "lw-replay to mark $mark failed" "$d/replay.txt"; return; }
		tadd replay "$t"; t=$(usec)
		base=${#UNDO[@]}
		# -o loop: the loop device goes with the umount (autoclear)
		if ! mount_fs "$fs" "$d/copy.img" "$d/rmnt" -o loop 2>"$d/mount-$mark.txt"; then
			echo "# mark $mark: the replayed $fs does not mount: $(dmesg | tail -n 3 | tr '\n' ' ')"
			nomount=$((nomount + 1))
			undo_to "$base"
			continue
		fi
		tadd mount "$t"; t=$(usec)
		out=$("$WL" -d "$d/rmnt" -V "$d/$c.txt" -k "$mark" 2>&1) && rc=0 || rc=$?
		tadd verify "$t"; t=$(usec)
		undo_to "$base"	# (lw-replay truncates the copy for the next mark)
		tadd umount "$t"
		echo "$out" >>"$d/verify.txt"
		local line shown=0
		while IFS= read -r line; do
			[[ $line == "# "* ]] && ((shown++ < show)) && printf '%s\n' "$line"
		done <<<"$out"
		[[ $out =~ acked=([0-9]+)\ ok=([0-9]+)\ missing=([0-9]+)\ stale=([0-9]+)\ torn=([0-9]+) ]] ||
			{ errout "verifier at mark $mark: $(tail -n 1 <<<"$out")"; return; }
		checked=$((checked + BASH_REMATCH[1])) miss=$((miss + BASH_REMATCH[3]))
		stale=$((stale + BASH_REMATCH[4])) torn=$((torn + BASH_REMATCH[5]))
		((rc == EXIT_PASS)) && ok=$((ok + 1))
		# a control has shown what it must: the rest of its marks add nothing
		[[ $c == control_* ]] && ((rc != EXIT_PASS)) && break
	done
	local acked
	acked=$(grep -c '^ack ' "$d/$c.txt" || true)
	SUMMARY="$acked writes acknowledged, $ok of $marks marks verified ($checked block checks), missing $miss, stale $stale, torn $torn"
	((nomount)) && SUMMARY+=", $nomount replays did not mount"
	((ok == marks && marks > 0)) && return 0
	WHY="acknowledged writes lost at $((marks - ok)) of $marks marks"
	((marks)) || WHY="no acknowledgement in the manifest"
	return "$EXIT_FAIL"
}

# The verdict of one case after the recording: SKIP/FAIL/ERROR from its
# workload, else from the replay (inverted for a control).
case_verdict() {
	local fs=$1 d=$2 c=$3 rc=${RC[$3]} show=8
	WHY='' SUMMARY=''
	if ((rc == EXIT_SKIP)); then WHY=$(grep -m1 '^# SKIP' "$d/$c.out.txt" | sed 's/^# SKIP //'); return "$rc"; fi
	if ((rc != EXIT_PASS)); then
		sed 's/^/#   /' "$d/$c.out.txt" | tail -n 5
		WHY="osync_marks exited $rc"
		((rc == EXIT_FAIL)) && return "$EXIT_FAIL" || return "$EXIT_ERROR"
	fi
	T[replay]=0 T[mount]=0 T[verify]=0 T[umount]=0
	[[ $c == control_* ]] && show=1	# a control loses them all: name one per mark
	replay_case "$fs" "$d" "$c" "$show" && rc=0 || rc=$?
	SUMMARY+=" ($(secs "workload-$c") s writing; replays: lw-replay $(secs replay) s, mount $(secs mount) s, verify $(secs verify) s, umount $(secs umount) s)"
	if [[ $c == control_* ]]; then	# a loss is what a control must see
		case $rc in
		"$EXIT_FAIL") rc=$EXIT_PASS; WHY='' SUMMARY="control, losses expected: $SUMMARY" ;;
		"$EXIT_PASS") rc=$EXIT_FAIL WHY="the control's unsynced writes all survived the replay: the tier cannot see a lost write" ;;
		esac
	fi
	return "$rc"
}

# KTAP line of test n for case c of fs with verdict rc.
report() {
	local n=$1 name=$2 rc=$3
	[[ -n $SUMMARY ]] && echo "# $name: $SUMMARY"
	case $rc in
	"$EXIT_PASS") echo "ok $n $name"; npass=$((npass + 1)) ;;
	"$EXIT_SKIP") echo "ok $n $name # SKIP $WHY"; nskip=$((nskip + 1)) ;;
	"$EXIT_FAIL") echo "# $name: FAIL: $WHY"; echo "not ok $n $name"; nfail=$((nfail + 1)) ;;
	*) echo "# $name: ERROR (no verdict): $WHY"; echo "not ok $n $name"; nerr=$((nerr + 1)) ;;
	esac
}

run_fs() {
	local fs=$1 d=$WORK/$1 depth=${#UNDO[@]} rc c t0
	mkdir -p "$d"
	t0=$(usec)
	T=() RC=() WHY='' SUMMARY=''
	if ! command -v "${MKFS[$fs]%% *}" >/dev/null; then
		rc=$EXIT_SKIP WHY="${MKFS[$fs]%% *} not found (apt-get install ${fs/ext4/e2fs}progs)"
	else
		record_fs "$fs" "$d" "fsaio-lw-$$-$fs" && rc=0 || rc=$?
		T[record]=$(usec "$t0")
		truncate -s "${DATA_SIZE[$fs]}" "$d/base.img" || { errout "cannot create $d/base.img"; rc=$?; }
	fi
	undo_to "$depth"
	((rc == 0)) && echo "# $fs: mkfs $(secs mkfs) s, $COUNT writes x ${#ORDER[@]} cases and umount: $(secs record) s in all"
	for c in "${ORDER[@]}"; do
		n=$((n + 1))
		if ((rc == 0)); then
			case_verdict "$fs" "$d" "$c" && rc=0 || rc=$?
			report "$n" "${fs}_$c" "$rc"
			rc=0
			undo_to "$depth"
		else
			report "$n" "${fs}_$c" "$rc"	# the file system's setup failed or skipped
		fi
	done
	echo "# $fs: $(awk -v t="$(usec "$t0")" 'BEGIN { printf "%.1f", t / 1e6 }') s"
	((KEEP)) || rm -f "$d"/*.img	# tmpfs in the VM: give the memory back
}

# ---- all file systems ---------------------------------------------------------------------
n=0 npass=0 nfail=0 nskip=0 nerr=0
for fs in $FSLIST; do run_fs "$fs"; done
echo "# crash-replay: $npass passed, $nfail failed, $nskip skipped, $nerr errors"
((nerr)) && exit "$EXIT_ERROR"
((nfail)) && exit "$EXIT_FAIL"
((npass)) || exit "$EXIT_SKIP"
exit "$EXIT_PASS"
}
