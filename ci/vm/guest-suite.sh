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
# 2. The f2fs run: fsaio check --exclusive -- aio_osync_write -D on the
#    f2fs scratch disk that ci/vm/vm-run.sh --disks ...,f2fs mounts in the
#    guest ($FSAIO_SCRATCH_F2FS; results in fsaio-f2fs.json beside JSON).
#    O_DSYNC libaio writes to a file system without FOP_BUFFER_WASYNC,
#    whose ->write_iter() answers an IOCB_NOWAIT buffered write with
#    -EINVAL (generic_write_checks()), not -EAGAIN or -EOPNOTSUPP as ext4
#    does: every write must still complete with its bytes, made stable.
#    A kernel without f2fs (none in /proc/filesystems) skips it with a
#    "# f2fs:" note that leaves the verdict alone; a kernel with f2fs but
#    no mounted f2fs scratch is an ERROR (the run was asked for).
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
F2FS_JSON=$(dirname "$JSON")/fsaio-f2fs.json

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

if [[ -n ${FSAIO_SCRATCH_F2FS:-} ]]; then
	./fsaio check --exclusive --json "$F2FS_JSON" -- \
		.output/workloads/aio_osync_write -D -d "$FSAIO_SCRATCH_F2FS"
	rc=$(worse "$rc" $?)
elif grep -qw f2fs /proc/filesystems 2>/dev/null; then
	echo "# f2fs: ERROR: the kernel has f2fs but no f2fs scratch is mounted" \
	     "(FSAIO_SCRATCH_F2FS unset: ci/vm/vm-run.sh --disks without f2fs, or the mount failed)"
	rc=$(worse "$rc" "$EXIT_ERROR")
else
	echo "# f2fs: not run: this kernel has no f2fs (CONFIG_F2FS_FS)"
fi
exit "$rc"
