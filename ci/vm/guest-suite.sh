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
#    f2fs: aio_osync_write -D.  O_DSYNC libaio writes to a file system
#      without FOP_BUFFER_WASYNC, whose ->write_iter() answers an
#      IOCB_NOWAIT buffered write with -EINVAL (generic_write_checks()),
#      not -EAGAIN or -EOPNOTSUPP as ext4 does: every write must still
#      complete with its bytes, made stable.
#    xfs: aio_write_order and aio_osync_write -D.  xfs takes IOCB_NOWAIT
#      buffered writes (FOP_BUFFER_WASYNC), where a non-blocking copy can
#      stop short at a folio it must read: the order, atomicity and
#      visibility of O_DSYNC writes (issue 12, item 3) there too.
#    A kernel without the file system skips its run with a "# FS:" note
#    that leaves the verdict alone; a kernel with it but no mounted
#    scratch is an ERROR (the run was asked for).
#
# stdout: the KTAP of each run, one after the other (tests/run-all.sh
# counts the checks of both).  Exit status: the worse of the two, ERROR >
# FAIL > SKIP > PASS (harness/exit_status.h), as make vmcheck combines
# kernels (fsaio's usage error, e.g. an unknown WORKLOAD, is an ERROR).
set -u
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cannot cd to $ROOT"
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
JSON=${1:-${FSAIO_OUT:-.}/fsaio.json}
shift $(($# > 0))

# class RC: PASS, SKIP and ERROR stand for themselves (USAGE: no verdict,
# an ERROR), anything else is a FAIL; worse A B: the worse of two.
class() {
	case $1 in
	"$EXIT_PASS"|"$EXIT_SKIP"|"$EXIT_ERROR") echo "$1" ;;
	"$EXIT_USAGE") echo "$EXIT_ERROR" ;;
	*) echo "$EXIT_FAIL" ;;
	esac
}
worse() {
	local a b s
	a=$(class "$1") b=$(class "$2")
	for s in "$EXIT_ERROR" "$EXIT_FAIL" "$EXIT_SKIP"; do
		[[ $a == "$s" || $b == "$s" ]] && { echo "$s"; return; }
	done
	echo "$EXIT_PASS"
}

./fsaio check --exclusive --json "$JSON" "$@"
rc=$?

# extra FS JSON_NAME WORKLOAD [ARGS...]: one more run on scratch FS
extra() {
	local fs=$1 name=$2 var dir
	shift 2
	var=FSAIO_SCRATCH_${fs^^}
	dir=${!var:-}
	if [[ -n $dir ]]; then
		./fsaio check --exclusive --json "$(dirname "$JSON")/$name" -- \
			".output/workloads/$1" "${@:2}" -d "$dir"
		rc=$(worse "$rc" $?)
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
exit "$rc"
