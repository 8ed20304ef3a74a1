#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The error paths of ci/vm/vm-run.sh: a dead guest or a dead QEMU is an ERROR
# with its reason, never a pass, and leaves no QEMU process, no temp dir
# and no OUT/.vm behind.  KTAP out, one line per case, with its time,
# through the kernel's kselftest/ktap_helpers.sh (tests/e2e/ktap_helpers.sh).
#
#   ci/vm/vm-error-tests.sh --kernel BZIMAGE [--out DIR]   real QEMU (make vmselftest-errors)
#   ci/vm/vm-error-tests.sh --fake [--out DIR]             a fake QEMU, no kernel (tests/e2e)
#
# Cases (real): QEMU killed with SIGKILL while the guest runs `sleep 300`;
# guest kernel panic (`echo c > /proc/sysrq-trigger`); init=/bin/false
# (PID 1 exits: "Attempted to kill init!"); --timeout 30 on `sleep 600`;
# SIGTERM to vm-run.sh mid-run (Ctrl-C path).  --fake adds the verdicts of
# a guest that does come back: the command exits EXIT_PASS, EXIT_FAIL,
# EXIT_SKIP, EXIT_ERROR; a splat in dmesg, no exit code, QEMU failing to start.  The fake QEMU (a script given as $QEMU) takes
# vm-run.sh's real command line and acts out the guest: it writes the
# console and the out share as guest-init.sh would, and `exec sleep`s for a
# running command so that killing it kills "QEMU" itself.
# Exit status: EXIT_PASS every case as expected, EXIT_FAIL otherwise.
set -uo pipefail
{
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/e2e/ktap_helpers.sh"
KERNEL= FAKE=0 OUT=
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) KERNEL=$2; shift 2 ;;
	--fake) FAKE=1; shift ;;
	--out) OUT=$2; shift 2 ;;
	-h|--help) usage "$EXIT_PASS" ;;
	*) usage_error "unknown argument $1" ;;
	esac
done
[[ -n $KERNEL || $FAKE == 1 ]] || usage_error "--kernel BZIMAGE or --fake"

# Private TMPDIR: vm-run.sh's temp dir must be gone from it after every case.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fsaio-vmerr.XXXXXX") || die "mktemp failed"
export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR"
[[ -n $OUT ]] || OUT=$WORK/out
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BG=
cleanup() {
	[[ -n $BG ]] && kill -TERM "$BG" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit "$EXIT_ERROR"' INT TERM HUP

if ((FAKE)); then
	KERNEL=$WORK/bzImage-fake
	head -c 4096 /dev/zero >"$KERNEL"
	export QEMU=$WORK/fake-qemu-system-x86_64
	cat >"$QEMU" <<'FAKE'
#!/bin/bash
# Fake QEMU for ci/vm/vm-error-tests.sh: acts out the guest from the command line.
out= con= pidf= append=
while [[ $# -gt 0 ]]; do
	case $1 in
	-pidfile) pidf=$2; shift ;;
	-append) append=$2; shift ;;
	-fsdev) [[ $2 == *id=fsaioout,* ]] && { out=${2#*path=}; out=${out%%,*}; }; shift ;;
	-chardev) [[ $2 == file,id=con,* ]] && con=${2#*path=}; shift ;;
	esac
	shift
done
echo $$ >"$pidf"
say() { printf '[%12.6f] %s\n' "$SECONDS" "$*" >>"$con"; }
say "Linux version 6.12.0-fake"
if [[ " $append " == *" init=/bin/false "* ]]; then
	say "Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100"
	exit 0		# panic=-1 -no-reboot: QEMU exits
fi
cmd=$(cat "$out/.vm/cmd.txt")
say "fsaio-init: running: $cmd"
case $cmd in
"sleep "*) exec sleep "${cmd#sleep }" ;;
*sysrq-trigger*)
	say "sysrq: Trigger a crash"
	say "Kernel panic - not syncing: sysrq triggered crash"
	exit 0 ;;
"exit "*) rc=${cmd#exit }
	echo "fsaio-vm: command start" >"$out/dmesg"
	echo "hello from the fake guest" >"$out/stdout"
	echo "$rc" >"$out/exit-code" ;;
splat)
	printf '%s\n' "fsaio-vm: command start" \
		"WARNING: CPU: 1 PID: 77 at mm/filemap.c:1 fake+0x0/0x10" >"$out/dmesg"
	echo 0 >"$out/exit-code" ;;
warnpanic)	# panic_on_warn: the WARN ends the guest at once
	[[ " $append " == *" panic_on_warn=1 "* ]] || { say "no panic_on_warn=1 on the command line"; exit 0; }
	say "WARNING: CPU: 0 PID: 1 at fs/aio.c:1 fake_resume+0x0/0x10"
	say "Kernel panic - not syncing: kernel: panic_on_warn set ..."
	exit 0 ;;
noexit) say "fsaio-init: cannot mount the out share (9p tag fsaioout); giving up" ;;
qemufail) echo "qemu-system-x86_64: -device virtio-9p-pci: fake start failure" >&2; exit 1 ;;
esac
exit 0
FAKE
	chmod +x "$QEMU"
	boot_wait=10 kill_after=0.5 timeout_case=3
else
	[[ -f $KERNEL ]] || usage_error "no such kernel $KERNEL"
	boot_wait=180 kill_after=2 timeout_case=30
fi

ktap_print_header
# vm-run.sh options common to every case.
VMOPTS=(--accel tcg --disks none --kernel "$KERNEL")

# pidfile DIR: QEMU's pidfile, in vm-run.sh's temp dir, of the run in DIR
pidfile() { grep -o -- '-pidfile [^ ]*' "$1/vm-run.info" 2>/dev/null | cut -d' ' -f2; }

# Leftovers of the run in DIR: its QEMU (pidfile), any process naming DIR,
# its temp dir, DIR/.vm.
leftovers() {
	local dir=$1 info tmp pid bad=
	info=$(pidfile "$dir")
	tmp=${info%/qemu.pid}
	[[ -n $tmp && -d $tmp ]] && bad+=" temp dir $tmp;"
	pid=$(cat "$dir/qemu.pid.seen" 2>/dev/null)
	[[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && bad+=" QEMU pid $pid alive;"
	pgrep -f -- "$dir" >/dev/null && bad+=" processes: $(pgrep -af -- "$dir" | cut -c1-120 | tr '\n' ';')"
	[[ -e $dir/.vm ]] && bad+=" $dir/.vm;"
	echo "$bad"
}

# wait_for FILE REGEX SECONDS
wait_for() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# check NAME WHY: a test result, WHY empty if it passed
check() {
	if [[ -n $2 ]]; then
		echo "# $1: $2"
		ktap_test_fail "$1"
	else
		ktap_test_pass "$1"
	fi
}

# expect NAME WANT_RC REGEX RC SECONDS: vm-run.sh's exit status RC and its
# result line against WANT_RC and REGEX, then leftovers.
expect() {
	local name=$1 want_rc=$2 re=$3 dir=$OUT/$1 rc=$4 t=$5 res bad why=
	res=$(cat "$dir/result" 2>/dev/null)
	bad=$(leftovers "$dir")
	echo "# $name: vm-run.sh exit $rc, result: ${res:-none} (${t}s)"
	if [[ $rc != "$want_rc" ]]; then why="expected exit $want_rc"
	elif ! [[ $res =~ $re ]]; then why="result does not match /$re/"
	elif [[ -n $bad ]]; then why="left behind:$bad"
	fi
	check "$name" "$why"
}


# run NAME [vm-run.sh options] -- CMD: run in the foreground.
run() {
	local name=$1 t0 rc; shift
	t0=$SECONDS
	"$ROOT/ci/vm/vm-run.sh" "${VMOPTS[@]}" --label "$name" --out "$OUT/$name" "$@" >"$OUT/$name.log" 2>&1
	rc=$?
	LAST_RC=$rc LAST_T=$((SECONDS - t0))
}

# run_bg_then NAME ACTION -- CMD: start, wait for the guest command, then
# ACTION (kill-qemu | term-runner), wait for vm-run.sh.
run_bg_then() {
	local name=$1 action=$2 t0 pid info; shift 2
	local dir=$OUT/$name
	t0=$SECONDS
	rm -rf "$dir"
	# A simple command, so that $! is vm-run.sh itself (term-runner kills it).
	"$ROOT/ci/vm/vm-run.sh" "${VMOPTS[@]}" --label "$name" --out "$dir" "$@" >"$OUT/$name.log" 2>&1 &
	BG=$!
	if ! wait_for "$dir/console.log" 'fsaio-init: running:' "$boot_wait"; then
		echo "# $name: the guest command never started"
	fi
	sleep "$kill_after"
	info=$(pidfile "$dir")
	pid=$(cat "$info" 2>/dev/null)
	echo "$pid" >"$dir/qemu.pid.seen"
	case $action in
	kill-qemu) [[ -n $pid ]] && kill -KILL "$pid" ;;
	term-runner) kill -TERM "$BG" ;;
	esac
	wait "$BG"
	LAST_RC=$? LAST_T=$((SECONDS - t0))
	BG=
}

plan=6
((FAKE)) && plan=14
ktap_set_plan "$plan"

run_bg_then qemu_killed kill-qemu -- 'sleep 300'
expect qemu_killed "$EXIT_ERROR" "^ERROR rc=$EXIT_ERROR QEMU killed by signal 9" $LAST_RC $LAST_T

run guest_panic -- 'echo c > /proc/sysrq-trigger'
expect guest_panic "$EXIT_ERROR" "^ERROR rc=$EXIT_ERROR guest kernel died: Kernel panic - not syncing: sysrq triggered crash" $LAST_RC $LAST_T

run bad_init --append init=/bin/false -- true
expect bad_init "$EXIT_ERROR" "^ERROR rc=$EXIT_ERROR guest kernel died: Kernel panic - not syncing: Attempted to kill init!" $LAST_RC $LAST_T

run guest_timeout --timeout "$timeout_case" -- 'sleep 600'
expect guest_timeout "$EXIT_ERROR" "^ERROR rc=$EXIT_ERROR timeout: no result after ${timeout_case}s" $LAST_RC $LAST_T

run_bg_then runner_interrupted term-runner -- 'sleep 300'
expect runner_interrupted "$EXIT_ERROR" "^ERROR rc=$EXIT_ERROR interrupted" $LAST_RC $LAST_T

if ((FAKE)); then
	run cmd_pass -- "exit $EXIT_PASS"
	expect cmd_pass "$EXIT_PASS" "^PASS rc=$EXIT_PASS command passed" $LAST_RC $LAST_T
	run cmd_fail -- "exit $EXIT_FAIL"
	expect cmd_fail "$EXIT_FAIL" "^FAIL rc=$EXIT_FAIL command exited $EXIT_FAIL" $LAST_RC $LAST_T
	run cmd_skip -- "exit $EXIT_SKIP"
	expect cmd_skip "$EXIT_SKIP" "^SKIP rc=$EXIT_SKIP" $LAST_RC $LAST_T
	run cmd_error -- "exit $EXIT_ERROR"
	expect cmd_error "$EXIT_ERROR" "^ERROR rc=$EXIT_ERROR command exited $EXIT_ERROR: error, no verdict" $LAST_RC $LAST_T
	run cmd_splat -- splat
	expect cmd_splat "$EXIT_FAIL" "^FAIL rc=$EXIT_FAIL command passed but the kernel logged a splat" $LAST_RC $LAST_T
	run warn_fails_fast -- warnpanic
	expect warn_fails_fast "$EXIT_FAIL" "^FAIL rc=$EXIT_FAIL kernel splat ended the run: WARNING: CPU: 0 PID: 1 at fs/aio.c:1" $LAST_RC $LAST_T
	run no_exit_code -- noexit
	expect no_exit_code "$EXIT_ERROR" "^ERROR rc=$EXIT_ERROR guest stopped without an exit code" $LAST_RC $LAST_T
	run qemu_fails -- qemufail
	expect qemu_fails "$EXIT_ERROR" "^ERROR rc=$EXIT_ERROR QEMU failed \(rc 1\): .*fake start failure" $LAST_RC $LAST_T
fi

# Nothing of any case in our private TMPDIR.
left=$(ls -A "$TMPDIR" | tr '\n' ' ')
check no_temp_files "${left:+temp files left in TMPDIR: $left}"
# EXIT_PASS when every planned case passed, else EXIT_FAIL (kselftest's 0/1)
ktap_finished
}
