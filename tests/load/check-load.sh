#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-load: the host tier (unit tests, e2e, the docs check) with a
# documented background load beside it, as a busy CI runner has.  fsaio's
# verdicts must not depend on an idle CPU: every test must pass and no
# record may be lost while the load runs.
#
#   tests/load/check-load.sh [--factor F] [TEST...]
#
#   --factor F   load per CPU (default 2): F x nproc stress-ng CPU workers
#                and nproc I/O-mix workers (writes, reads, fsync, on a
#                directory of their own under /var/tmp), all at nice 0
#   TEST...      what to run under the load (default: the unit-test
#                binaries and the docs check given by make, then
#                tests/e2e/run.sh)
#
# The load (tests/load/load.sh) is started before the tests and stopped
# after them, also when interrupted; its directory is removed.  The last
# line is tests/run-all.sh's "N passed, N failed, N skipped".  Exit status:
# that of tests/run-all.sh; EXIT_ERROR when stress-ng is missing (installed
# by ci/install-deps.sh) or the load did not start.  make check runs the
# host tiers this way too, then the QEMU tiers without the load.
set -u
. "$(dirname "$0")/../../ci/lib.sh"
cd "$ROOT" || die "cannot cd to $ROOT"
FACTOR=2
while [[ $# -gt 0 ]]; do
	case $1 in
	--factor) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage_error "--factor wants a positive integer"
		FACTOR=$2; shift 2 ;;
	-h|--help) usage "$EXIT_PASS" ;;
	*) break ;;
	esac
done
exec tests/run-all.sh --load "$FACTOR" "$@"
