#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fsaio kselftest: run `fsaio check`, the fsaio workload suite (libaio and
# io_uring buffered I/O programs and fio jobs on a scratch ext4 on a loop
# device) under BPF tracing, and print its KTAP: one subtest per workload,
# one line per invariant.  Exit status is fsaio's (harness/exit_status.h
# in the checkout): 0 pass (an XFAIL, e.g. stock libaio sleeping in
# io_submit, is a pass), 1 fail, 4 skip, 5 error (no verdict), 64 usage;
# the runner counts 4 as a skip and anything else but 0 as a failure.
# Installed in a kernel tree, it cannot source the checkout's ci/lib.sh
# before it has found the checkout: its own 4 is kselftest's KSFT_SKIP.
#
# fsaio is not part of the kernel tree; this script finds a built checkout
# (the directory holding the `fsaio` binary and .output/workloads/), first
# match wins:
#   1. $FSAIO_ROOT
#   2. the path in ./fsaio-root, written by `make selftest-install KSRC=...`
#      in the fsaio checkout
#   3. the checkout this script lives in (when the directory is a symlink
#      to <fsaio>/ci/selftests/fsaio)
#   4. `fsaio` in $PATH
# None found, or not built: SKIP.
#
# Arguments (or $KSELFTEST_FSAIO_CHECK_SH_ARGS through the kselftest
# runner): workload names, default the whole suite (`fsaio list`).
# FSAIO_SELFTEST_JSON=FILE also writes fsaio's JSON summary there;
# FSAIO_SELFTEST_FS=xfs runs the suite on xfs instead of ext4.
# One compound command: parsed whole, so editing the file mid-run is safe.
{
here=$(cd "$(dirname "$0")" && pwd)
root=
from=
if [[ -n ${FSAIO_ROOT:-} ]]; then
	root=$FSAIO_ROOT from=FSAIO_ROOT
elif [[ -s $here/fsaio-root ]]; then
	root=$(head -n 1 "$here/fsaio-root") from="$here/fsaio-root"
else
	real=$(dirname "$(readlink -f "$0")")
	if [[ -x $real/../../../fsaio ]]; then
		root=$(cd "$real/../../.." && pwd) from="this script's checkout"
	elif command -v fsaio >/dev/null; then
		root=$(dirname "$(readlink -f "$(command -v fsaio)")") from=PATH
	fi
fi

if [[ -z $root ]]; then
	echo "# SKIP: fsaio not found: set FSAIO_ROOT to a built fsaio checkout"
	echo "1..0 # SKIP fsaio not found (FSAIO_ROOT)"
	exit 4
fi
if [[ ! -x $root/fsaio || ! -d $root/.output/workloads ]]; then
	echo "# SKIP: $root (from $from) has no built fsaio: run make there"
	echo "1..0 # SKIP fsaio not built in $root"
	exit 4
fi

args=()
[[ -n ${FSAIO_SELFTEST_JSON:-} ]] && args+=(--json "$FSAIO_SELFTEST_JSON")
[[ -n ${FSAIO_SELFTEST_FS:-} ]] && args+=(--fs "$FSAIO_SELFTEST_FS")
echo "# fsaio: $root/fsaio (from $from) on $(uname -r)"
# fsaio's KTAP on stdout; its diagnostics on stderr, which the runner merges.
exec "$root/fsaio" check "${args[@]}" "$@"
}
