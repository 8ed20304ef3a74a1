#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# SystemTap as fsaio's second event source (stap/README.md): build the
# module of stap/fsaio.stp for a kernel, trace a command with it into a
# text event log, and let `fsaio replay` judge the log.
#
#   stap/fsaio-stap.sh build -r KBUILD [-o MODULE.ko]
#       compile the module on a build host against a kernel build tree
#       (its .config, headers and vmlinux with DWARF); default MODULE
#       .output/stap/fsaio_stap.ko
#   stap/fsaio-stap.sh run [-m MODULE.ko] -o LOG -- CMD [ARGS...]
#       on the traced machine: load the module with staprun, trace CMD and
#       the processes it forks, write LOG (the header, the records in seq
#       order, a TRACE_END with what SystemTap lost); exit 0 once LOG is
#       written (CMD's own status is its PROC_EXIT record's)
#   stap/fsaio-stap.sh check [-m MODULE.ko] [-o LOG] [--json FILE] -- CMD...
#       run, then `fsaio replay LOG`: exit status fsaio's (0 PASS, 1 FAIL,
#       4 SKIP, 5 ERROR)
#
# A kernel without the module's prerequisites (CONFIG_MODULES, kprobes,
# DWARF: FLAVOR=stap in ci/kernel/config/stap.config) or without staprun
# is refused with the reason: exit 4 (SKIP).  Bad usage: 64.
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
# EXIT_* from harness/exit_status.h; this script's usage and die below
# stand in for ci/lib.sh's
. "$repo/ci/lib.sh"

usage() {
	sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-$EXIT_USAGE}"
}
die() { echo "fsaio-stap: $2" >&2; exit "$1"; }

# MAXACTION: a 4096-iocb io_submit is one probe running ~10 statements an
# iocb; MAXSKIPPED: a skipped probe is a lost record, counted, never fatal;
# STP_NO_OVERLOAD: a traced program's own rate must not stop the trace.
# INTERRUPTIBLE=0: probes run with interrupts off, so a completion's probe
# in an interrupt cannot land on a probe that holds the globals' locks on
# the same CPU (it was skipped after MAXTRYLOCK tries: a lost record);
# MAXTRYLOCK: up to ~100 ms for another CPU's probe to let go; -d kernel:
# the kernel's unwind data, for the sleep stacks.
STAP_DEFS=(-DMAXACTION=200000 -DMAXSKIPPED=1000000000 -DSTP_NO_OVERLOAD
	   -DMAXMAPENTRIES=8192 -DMAXSTRINGLEN=512 -DINTERRUPTIBLE=0 -DMAXTRYLOCK=10000 -d kernel)
# systemtap 4.8 (Debian 12) against kernels after 6.1 (stap/compat/):
# - its tracepoint code defines COUNT_ARGS, which linux/args.h defines
#   since 6.7, and is built with -Werror: every kernel.trace() probe
#   fails ("no match") unless linux-args.h stands in for the kernel's;
# - kernels since 6.8 warn where 4.8's generated and runtime code did not
#   expect (missing prototypes, empty bodies, flushing system
#   workqueues): warnings, not errors, there;
# - its runtime predates APIs 6.4 to 6.12 changed:
#   runtime-4.8-linux-6.12.patch, applied to a copy (stap -R).
COMPAT_KCFLAGS="-include $here/compat/linux-args.h -Wno-missing-prototypes -Wno-missing-declarations -Wno-empty-body -Wno-old-style-declaration -Wno-attribute-warning"

# runtime_dir: the runtime stap should use; for 4.8 a patched copy under
# .output/stap (made once), else the installed one
runtime_dir() {
	local ver src=/usr/share/systemtap/runtime dst
	ver=$(stap -V 2>&1 | sed -n '1s/.*version \([0-9.]*\).*/\1/p')
	if [[ ${ver%/*} != 4.8 ]]; then
		echo "$src"
		return
	fi
	dst=$repo/.output/stap/runtime-4.8
	if [[ ! -f $dst/.fsaio-patched || $here/compat/runtime-4.8-linux-6.12.patch -nt $dst/.fsaio-patched ]]; then
		rm -rf "$dst" && mkdir -p "$(dirname "$dst")" && cp -a "$src" "$dst" &&
			patch -s -p1 -d "$dst" <"$here/compat/runtime-4.8-linux-6.12.patch" >&2 &&
			touch "$dst/.fsaio-patched" ||
			die $EXIT_ERROR "cannot prepare the patched systemtap runtime in $dst"
	fi
	echo "$dst"
}

cmd_build() {
	local kbuild="" out="$repo/.output/stap/fsaio_stap.ko"
	while (($#)); do
		case $1 in
		-r) kbuild=$2; shift 2 ;;
		-o) out=$2; shift 2 ;;
		-h|--help) usage 0 ;;
		*) die $EXIT_USAGE "build: unknown argument '$1' (see --help)" ;;
		esac
	done
	[[ -n $kbuild ]] || die $EXIT_USAGE "build: which kernel? -r KBUILD (a kernel build tree)"
	command -v stap >/dev/null || die $EXIT_SKIP "stap not installed: apt-get install systemtap"
	[[ -f $kbuild/.config && -f $kbuild/vmlinux ]] ||
		die $EXIT_USAGE "build: $kbuild is not a built kernel tree (.config, vmlinux)"
	grep -q '^CONFIG_MODULES=y' "$kbuild/.config" ||
		die $EXIT_SKIP "build: $kbuild has no CONFIG_MODULES: SystemTap loads a module (FLAVOR=stap)"
	local name tmp rt consts=$repo/.output/stap/tapset
	# fsaio.stp's constants, generated from the BPF programs' headers
	make -s --no-print-directory -C "$repo" .output/stap/tapset/fsaio.stpm ||
		die $EXIT_ERROR "build: cannot generate fsaio.stp's constants ($consts/fsaio.stpm)"
	name=$(basename "$out" .ko)
	rt=$(runtime_dir) || exit
	# the compat flags are for 4.8's generated code (a later stap has its own)
	local compat=()
	[[ $rt == */runtime-4.8 ]] && compat=(-B "KCFLAGS=$COMPAT_KCFLAGS")
	tmp=$(mktemp -d) || exit $EXIT_ERROR
	# stap writes the module to the current directory
	# SYSTEMTAP_DIR: stap's cache of compiled queries, ours, not ~/.systemtap's
	if ! (cd "$tmp" && SYSTEMTAP_DIR=$repo/.output/stap/home \
	      stap -R "$rt" "${compat[@]}" -r "$(cd "$kbuild" && pwd)" -I "$consts" -p4 -m "$name" \
			"${STAP_DEFS[@]}" "$here/fsaio.stp" >"$tmp/stap.log" 2>&1); then
		grep -v 'warning: objtool:' "$tmp/stap.log" | tail -40 >&2
		rm -rf "$tmp"
		die $EXIT_ERROR "build: stap -p4 failed for $kbuild (its last messages above)"
	fi
	mkdir -p "$(dirname "$out")" && mv "$tmp/$name.ko" "$out"
	rm -rf "$tmp"
	echo "$out"
}

# The header's features= (their names in harness/core/features.h): what
# this source observes on this kernel.
features() {
	local ev=/sys/kernel/tracing/events f=()
	[[ -d $ev ]] || ev=/sys/kernel/debug/tracing/events
	[[ -d $ev/raw_syscalls ]] && f+=(syscall_tracepoints)
	[[ -d $ev/io_uring ]] && f+=(io_uring_tracepoints)
	[[ -d $ev/workqueue ]] && f+=(workqueue_tracepoints)
	[[ -d $ev/fsaio ]] && f+=(fsaio_tracepoints)
	[[ -d $ev/sched ]] && f+=(sleep_stacks)
	case $(cat /proc/sys/fs/aio-buffered-async 2>/dev/null) in
	1) f+=(libaio_opt_in libaio_async) ;;
	2) f+=(libaio_async) ;;
	esac
	local IFS=,
	echo "${f[*]:--}"
}

# run_traced MODULE LOG CMD...: LOG written, or exit with the reason
run_traced() {
	local mod=$1 log=$2 raw err; shift 2
	command -v staprun >/dev/null || die $EXIT_SKIP "staprun not installed: apt-get install systemtap-runtime"
	[[ -f $mod ]] || die $EXIT_USAGE "run: no module $mod: build it first (stap/fsaio-stap.sh build -r KBUILD)"
	[[ -e /proc/modules ]] || die $EXIT_SKIP "run: this kernel cannot load modules (no CONFIG_MODULES)"
	raw=$(mktemp) && err=$(mktemp) || exit $EXIT_ERROR
	# staprun -c runs the command once the probes are in (target() is it)
	# and unloads the module when it exits; CMD's status comes back in its
	# PROC_EXIT record, so the shell quoting below only has to survive sh -c
	local q
	printf -v q '%q ' "$@"
	# -b 64: 64 MiB of relay buffer a CPU (the default 16 has lost records
	# to a transport failure on a TCG guest)
	staprun -b 64 ${FSAIO_STAPRUN_OPTS:-} -c "$q" "$mod" >"$raw" 2>"$err"
	local src=$?
	if ((src != 0)); then
		cat "$err" >&2
		rm -f "$raw" "$err"
		die $EXIT_ERROR "run: staprun failed (exit $src)"
	fi
	# What SystemTap lost: probes it skipped (overload, a locked map) and
	# transport failures are records never written (the ring buffer's
	# drops of the BPF source); iocb/io_event reads that faulted.
	local skipped transport user
	skipped=$(sed -n 's/.*skipped probes: \([0-9]*\).*/\1/p' "$err" | tail -1)
	transport=$(sed -n 's/.*There were \([0-9]*\) transport failures.*/\1/p' "$err" | tail -1)
	user=$(sed -n 's/^D user_read=\([0-9]*\)$/\1/p' "$raw" | tail -1)
	skipped=${skipped:-0} transport=${transport:-0} user=${user:-0}
	grep -v '^WARNING: Number of errors: 0, skipped probes: 0' "$err" | grep . >&2
	{
		# a label is one line of at most 127 bytes (the header's field)
		echo "fsaio-text 2 features=$(features) release=$(uname -r) label=$(printf '%s' "$*" | tr '\n\r' '  ' | head -c 127)"
		echo "# systemtap $(stap -V 2>&1 | sed -n '1s/.*version \([^ ]*\).*/\1/p'), module $(basename "$mod")"
		# stap prints a probe's output when the probe ends: records of
		# two CPUs can come out of seq order; seq is the lock order
		grep '^R ' "$raw" | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^seq=/) { print substr($i, 5) "\t" $0; break } }' |
			sort -n -s -k1,1 | cut -f2-
		echo "R type=14 cpu=0 ts=0 seq=0 pid=0 tgid=0 req=0 user_data=0 engine=0 site=0 ctx=0 flags=0 res=0 arg0=$((skipped + transport + user)) arg1=0 arg2=0 ring=0 nr_stack=0 stack=$((skipped + transport)),$user,0,0 comm=fsaio-stap"
		# the closing record (log version 2): a log without it was cut
		echo "R type=14 cpu=0 ts=0 seq=0 pid=0 tgid=0 req=0 user_data=0 engine=0 site=0 ctx=0 flags=0 res=0 arg0=0 arg1=1 arg2=0 ring=0 nr_stack=0 stack=0,0,0,0 comm=fsaio-stap"
	} >"$log"
	rm -f "$raw" "$err"
}

cmd_run() {
	local mod="$repo/.output/stap/fsaio_stap.ko" log=""
	while (($#)); do
		case $1 in
		-m) mod=$2; shift 2 ;;
		-o) log=$2; shift 2 ;;
		-h|--help) usage 0 ;;
		--) shift; break ;;
		*) die $EXIT_USAGE "run: unknown argument '$1' (see --help)" ;;
		esac
	done
	[[ -n $log ]] || die $EXIT_USAGE "run: where to? -o LOG"
	(($#)) || die $EXIT_USAGE "run: what to trace? -- CMD [ARGS...]"
	run_traced "$mod" "$log" "$@"
}

cmd_check() {
	local mod="$repo/.output/stap/fsaio_stap.ko" log="" json=()
	while (($#)); do
		case $1 in
		-m) mod=$2; shift 2 ;;
		-o) log=$2; shift 2 ;;
		--json) json=(--json "$2"); shift 2 ;;
		-h|--help) usage 0 ;;
		--) shift; break ;;
		*) die $EXIT_USAGE "check: unknown argument '$1' (see --help)" ;;
		esac
	done
	(($#)) || die $EXIT_USAGE "check: what to trace? -- CMD [ARGS...]"
	local keep=1
	[[ -n $log ]] || { log=$(mktemp) && keep=0; }
	run_traced "$mod" "$log" "$@"
	"$repo/fsaio" replay "${json[@]}" "$log"
	rc=$?
	((keep)) || rm -f "$log"
	return $rc
}

case ${1:-} in
build) shift; cmd_build "$@" ;;
run) shift; cmd_run "$@" ;;
check) shift; cmd_check "$@" ;;
-h|--help) usage 0 ;;
"") usage ;;
*) die $EXIT_USAGE "unknown command '$1': build, run or check (see --help)" ;;
esac
