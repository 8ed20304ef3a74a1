#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make stapcheck: SystemTap against BPF on the patched kernel.  Builds (or
# takes from the cache) the patched 6.12 kernel of FLAVOR=stap (modules,
# kprobes, DWARF), compiles stap/fsaio.stp into a module against its build
# tree on the host, boots it and runs ci/stap/guest-compare.sh inside: each
# workload traced by both sources, both logs judged by `fsaio replay`, and
# the verdicts and per-engine counts compared.
#
#   ci/stap/stap-check.sh [--nobuild] [--out DIR] [WORKLOAD...]
#
#   --nobuild   use a cached kernel only (ERROR if there is none)
#   --out DIR   results (default <repo>/.output/vm/stap): ci/vm/vm-run.sh's
#               files, the logs and replays of both sources per workload
#
# Exit status (harness/exit_status.h): the guest's (0 every workload agrees,
# 1 a disagreement, 5 a source wrote no log or lost records, or the kernel
# or the module could not be built); 4 when systemtap is not installed
# and cannot be (ci/install-deps.sh).
set -uo pipefail
{
. "$(dirname "$0")/../lib.sh"
NOBUILD=0 OUT=$ROOT/.output/vm/stap
while [[ $# -gt 0 ]]; do
	case $1 in
	--nobuild) NOBUILD=1; shift ;;
	--out) OUT=$2; shift 2 ;;
	-h|--help) usage "$EXIT_PASS" ;;
	-*) usage_error "unknown option $1" ;;
	*) break ;;
	esac
done
command -v stap >/dev/null || { msg "SKIP: systemtap not installed (ci/install-deps.sh installs it)"; exit "$EXIT_SKIP"; }
BK=("$ROOT/ci/kernel/build-kernel.sh" --patched --flavor stap)
if ((NOBUILD)); then
	bz=$("${BK[@]}" --path) || die "no cached FLAVOR=stap patched kernel: run without --nobuild"
else
	bz=$("${BK[@]}" | tail -1) || die "building the FLAVOR=stap patched kernel failed"
fi
kbuild=${bz%/arch/x86/boot/bzImage}
release=$(cat "$kbuild/include/config/kernel.release")
mod=$ROOT/.output/stap/fsaio_stap.ko
msg "compiling stap/fsaio.stp against $kbuild ($release)"
t0=$(now)
"$ROOT/stap/fsaio-stap.sh" build -r "$kbuild" -o "$mod" >/dev/null ||
	die "the SystemTap module did not build"
msg "module built in $(since "$t0")s: $mod"
"$ROOT/ci/vm/vm-run.sh" --kernel "$bz" --label stap --out "$OUT" --disks ext4 \
	-- ci/stap/guest-compare.sh @OUT@ "$mod" "$@"
exit $?	# vm-run.sh has shown the guest's KTAP
}
