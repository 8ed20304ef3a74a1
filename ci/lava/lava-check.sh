#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run fsaio's kselftest as a LAVA job, locally with lava-run (lava-dispatcher's
# local runner, no lava-server), and turn LAVA's results back into fsaio
# verdicts.
#
#   ci/lava/lava-check.sh [--kernel BZIMAGE] [options]
#
#   --kernel FILE     bzImage to boot (default: the cached stock 6.12,
#                     `ci/kernel/build-kernel.sh --path`; nothing is built)
#   --out DIR         results directory (default <repo>/.output/lava/<release>)
#   --workloads LIST  fsaio workloads, space-separated (default $FSAIO_LAVA_WORKLOADS,
#                     else the whole suite)
#   --targets T       kselftest TARGETS (default $FSAIO_LAVA_TARGETS or fsaio;
#                     a target that does not exist gives no results: ERROR)
#   --append ARGS     extra kernel command line (e.g. init=/bin/false: no boot)
#   --accel MODE      tcg | kvm (default $FSAIO_VM_ACCEL, else tcg unless
#                     ci/vm/vm-run.sh's cached KVM probe says kvm)
#   --mem SIZE        guest memory (default 2G)
#   --cpus N          vCPUs (default 2)
#   --minutes N       LAVA test action timeout (default 60); the boot gets
#                     20, the job N + 30
#   --validate        only let lava-run validate the job (no boot)
#   --judge DIR       run nothing: judge the job.log of an earlier run in DIR
#
# The device (ci/lava/device-qemu-9p.yaml.in: device_type qemu, the host's
# root over 9p read-only, as ci/vm/vm-run.sh boots it) and the job
# (ci/lava/job-fsaio-kselftest.yaml.in: deploy the kernel, boot with QEMU to
# the "fsaio-lava# " shell of ci/lava/lava-init.sh, hand over LAVA's overlay
# through 9p with ci/lava/lava-fetch.sh, run the test definition
# ci/lava/fsaio-kselftest.yaml inline) are filled in under DIR and run with
# `nice -n 19 lava-run`.  In the guest ci/lava/lava-kselftest.sh runs
# `make -C tools/testing/selftests TARGETS=fsaio run_tests` and records one
# LAVA result per KTAP result line, then ktap-complete.
#
# Results in DIR: device.yaml, job.yaml, job.log (lava-run's YAML log, one
# entry a line, and anything else it printed),
# results.yaml (LAVA's results from it), verdicts (one "PASS|FAIL|SKIP name"
# per fsaio result), verdict (the summary line).
# Exit status (harness/exit_status.h): 0 every fsaio result passed (skips
# allowed), 1 an fsaio result failed, 4 every result skipped, 5 (ERROR) no
# verdict: lava-run missing or failed, the job did not complete (no boot,
# timeout), LAVA recorded no fsaio results, ktap-complete missing or failed
# (the KTAP was cut off or its plans do not match), or the number of results
# LAVA recorded differs from what the guest reported; 64 bad command line.
set -uo pipefail
{
. "$(dirname "$0")/../lib.sh"
LAVADIR=$ROOT/ci/lava
KERNEL= OUT= WORKLOADS=${FSAIO_LAVA_WORKLOADS:-} TARGETS=${FSAIO_LAVA_TARGETS:-fsaio}
APPEND= ACCEL=${FSAIO_VM_ACCEL:-} MEM=2G CPUS=2 MINUTES=60 VALIDATE=0 JUDGE=
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) KERNEL=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--workloads) WORKLOADS=$2; shift 2 ;;
	--targets) TARGETS=$2; shift 2 ;;
	--append) APPEND="${APPEND:+$APPEND }$2"; shift 2 ;;
	--accel) ACCEL=$2; shift 2 ;;
	--mem) MEM=$2; shift 2 ;;
	--cpus) CPUS=$2; shift 2 ;;
	--minutes) MINUTES=$2; shift 2 ;;
	--validate) VALIDATE=1; shift ;;
	--judge) JUDGE=$2; shift 2 ;;
	-h|--help) usage "$EXIT_PASS" ;;
	*) usage_error "unknown argument: $1" ;;
	esac
done
[[ $MINUTES =~ ^[0-9]+$ && $MINUTES -gt 0 ]] || usage_error "--minutes takes a positive number"
[[ $TARGETS =~ ^[A-Za-z0-9_./+-]+$ ]] || usage_error "--targets: one kselftest target name"
[[ $WORKLOADS =~ ^[A-Za-z0-9_\ -]*$ ]] || usage_error "--workloads: workload names, space-separated"
[[ $APPEND != *\"* ]] || usage_error "--append: no double quotes"
# run_job: fill in device and job, run lava-run; sets OUT, lrc (its exit
# status) and elapsed.
run_job() {
command -v lava-run >/dev/null || die "lava-run not found: apt-get install --no-install-recommends lava-dispatcher"
if [[ -z $KERNEL ]]; then
	KERNEL=$("$ROOT/ci/kernel/build-kernel.sh" --path) ||
		die "no cached stock kernel (make kernels, or --kernel FILE)"
fi
[[ -f $KERNEL ]] || usage_error "no such kernel: $KERNEL"
KERNEL=$(realpath "$KERNEL")
[[ -x $ROOT/fsaio && -d $ROOT/.output/workloads ]] ||
	die "fsaio is not built in $ROOT (make, or make lava-check, which builds it)"
if [[ -z $ACCEL ]]; then
	ACCEL=tcg
	[[ -w /dev/kvm && $(cat "${FSAIO_KVM_PROBE:-/var/cache/fsaio/kvm-probe-$(uname -r)}" 2>/dev/null) == kvm ]] && ACCEL=kvm
fi
case $ACCEL in
kvm) ACCEL_OPTS="-accel kvm -cpu host" ;;
tcg) ACCEL_OPTS="-accel tcg,thread=multi -cpu max" ;;
*) usage_error "--accel: tcg or kvm" ;;
esac
RELEASE=$("$ROOT/ci/vm/vm-run.sh" --print-release --kernel "$KERNEL" 2>/dev/null) || RELEASE=unknown
[[ -n $OUT ]] || OUT=$ROOT/.output/lava/$RELEASE
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(realpath "$OUT")
rm -rf "$OUT"/{device.yaml,job.yaml,dispatcher.yaml,job.log,results.yaml,verdicts,verdict,lava-run,qemu.pid}

# The job id names LAVA's directories (/var/lib/lava/dispatcher/tmp/ID, the
# guest's /tmp/lava-ID); this shell's pid keeps parallel runs apart.
JOBID=$$
LAVATMP=/var/lib/lava/dispatcher/tmp/$JOBID
LPID=
cleanup() {
	local pid
	# lava-run cancels the job on SIGTERM and stops QEMU itself (QEMU is in
	# a session of its own: pexpect's pty); give it 30 s
	if [[ -n $LPID ]] && kill -TERM -- "-$LPID" 2>/dev/null; then
		for _ in $(seq 60); do kill -0 "$LPID" 2>/dev/null || break; sleep 0.5; done
		kill -KILL -- "-$LPID" 2>/dev/null
	fi
	if [[ -s $OUT/qemu.pid ]]; then
		pid=$(cat "$OUT/qemu.pid")
		if kill -0 "$pid" 2>/dev/null; then
			warn "QEMU (pid $pid) outlived lava-run: killing it"
			kill -TERM "$pid" 2>/dev/null; sleep 2; kill -KILL "$pid" 2>/dev/null
		fi
	fi
	rm -f "$OUT/qemu.pid"
	rm -rf "$LAVATMP"
}
trap cleanup EXIT
trap 'msg "interrupted"; exit "$EXIT_ERROR"' INT TERM HUP

# ---- device and job -----------------------------------------------------------
APPEND_ALL="console=ttyS0,115200 root=hostroot rootfstype=9p"
APPEND_ALL+=" rootflags=trans=virtio,version=9p2000.L,cache=loose,msize=524288 ro"
APPEND_ALL+=" init=$LAVADIR/lava-init.sh panic=-1 net.ifnames=0 FSAIO_LAVA_CWD=$ROOT $APPEND"
sed -e "s|@ACCEL@|$ACCEL_OPTS|" -e "s|@CPUS@|$CPUS|" -e "s|@MEM@|$MEM|" \
	-e "s|@PIDFILE@|$OUT/qemu.pid|" "$LAVADIR/device-qemu-9p.yaml.in" >"$OUT/device.yaml" ||
	die "cannot write $OUT/device.yaml"
# Only used to spell the overlay's URL, which lava-fetch.sh maps to a path.
echo "dispatcher_ip: 127.0.0.1" >"$OUT/dispatcher.yaml"
KERNEL=$KERNEL ROOT=$ROOT APPEND=$APPEND_ALL TARGETS=$TARGETS WORKLOADS=$WORKLOADS \
JOB_MINUTES=$((MINUTES + 30)) BOOT_MINUTES=20 TEST_MINUTES=$MINUTES \
python3 - "$LAVADIR" "$OUT/job.yaml" <<'PY' || die "cannot write $OUT/job.yaml"
import os, sys, yaml
lavadir, out = sys.argv[1], sys.argv[2]
text = open(lavadir + "/job-fsaio-kselftest.yaml.in").read()
for k in ("KERNEL", "ROOT", "APPEND", "TARGETS", "WORKLOADS",
          "JOB_MINUTES", "BOOT_MINUTES", "TEST_MINUTES"):
    text = text.replace("@%s@" % k, os.environ[k])
text = text.replace("@TESTDEF@", "TESTDEF")
job = yaml.safe_load(text)
job["actions"][2]["test"]["definitions"][0]["repository"] = \
    yaml.safe_load(open(lavadir + "/fsaio-kselftest.yaml"))
yaml.safe_dump(job, open(out, "w"), default_flow_style=False, sort_keys=False)
PY

LAVA_ARGS=(--job-id "$JOBID" --output-dir "$OUT/lava-run" --device "$OUT/device.yaml"
	--dispatcher "$OUT/dispatcher.yaml")
if ((VALIDATE)); then
	lava-run "${LAVA_ARGS[@]}" --validate "$OUT/job.yaml" >"$OUT/job.log" 2>&1
	rc=$?
	grep -E '"lvl": "(error|exception)"' "$OUT/job.log" | head -5 >&2
	((rc == 0)) && { msg "job valid ($OUT/job.yaml)"; exit "$EXIT_PASS"; }
	die "lava-run --validate failed (rc $rc, see $OUT/job.log)"
fi

msg "lava-run job $JOBID: $RELEASE ($ACCEL, $CPUS vCPU, $MEM, TARGETS=$TARGETS${WORKLOADS:+, workloads: $WORKLOADS}) -> $OUT"
start=$(now)
# Its own process group (setsid), so that cleanup can end lava-run and
# everything it started; QEMU (its child) inherits nice 19.
setsid nice -n 19 timeout -k 30 $(((MINUTES + 40) * 60)) lava-run "${LAVA_ARGS[@]}" "$OUT/job.yaml" \
	>"$OUT/job.log" 2>&1 </dev/null &
LPID=$!
wait "$LPID"
lrc=$?
LPID=
elapsed=$(since "$start")
}

if [[ -n $JUDGE ]]; then
	[[ -r $JUDGE/job.log ]] || usage_error "--judge: no $JUDGE/job.log"
	OUT=$(realpath "$JUDGE") lrc=0 elapsed=0
	rm -f "$OUT"/{results.yaml,verdicts,verdict}
else
	run_job
fi

# ---- LAVA's results -> verdicts -----------------------------------------------------
python3 - "$OUT" "$lrc" "$EXIT_PASS" "$EXIT_FAIL" "$EXIT_SKIP" "$EXIT_ERROR" <<'PY'
import re, sys, yaml
out, lrc = sys.argv[1], int(sys.argv[2])
PASS, FAIL, SKIP, ERROR = (int(x) for x in sys.argv[3:7])
results, errors, boot = [], [], None
try:
    log = open(out + "/job.log").read().splitlines()
except OSError:
    log = []
for line in log:
    line = line[2:] if line.startswith("- {") else line
    if not line.startswith("{"):
        continue
    try:
        entry = yaml.safe_load(line)
    except Exception:
        continue
    lvl, m = entry.get("lvl"), entry.get("msg")
    if lvl == "results" and isinstance(m, dict):
        results.append(m)
    elif lvl in ("error", "exception"):
        errors.append(str(m))
yaml.safe_dump(results, open(out + "/results.yaml", "w"), sort_keys=False)

def lava(case):
    return [r for r in results if r.get("definition") == "lava" and r.get("case") == case]
job = lava("job")
ours = [r for r in results if re.match(r"^\d+_fsaio-kselftest$", str(r.get("definition", "")))]
complete = [r for r in ours if r.get("case") == "ktap-complete"]
fsaio = [r for r in ours if r.get("case") != "ktap-complete"]
# QEMU start to the shell prompt; the test definition's run
for r in lava("login-action"):
    if r.get("result") == "pass":
        boot = r.get("duration")
run = [r.get("duration") for r in results if re.match(r"^\d+_fsaio-kselftest$", str(r.get("case", "")))]
why = []
if not log:
    why.append("lava-run wrote no log (rc %d)" % lrc)
if not job:
    why.append("LAVA recorded no job result (lava-run rc %d)" % lrc)
elif job[-1].get("result") != "pass":
    why.append("LAVA job %s: %s" % (job[-1].get("result"),
               job[-1].get("error_msg", "") or "; ".join(errors[-1:])))
if not fsaio:
    why.append("LAVA recorded no fsaio results")
if not complete:
    why.append("no ktap-complete result (the test definition did not finish)")
else:
    c = complete[-1]
    if c.get("result") != "pass":
        why.append("ktap-complete failed: the KTAP was cut off or its plans do not match")
    if int(c.get("measurement", -1)) != len(fsaio):
        why.append("the guest reported %s results, LAVA recorded %d" % (c.get("measurement"), len(fsaio)))
words = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}
n = {"PASS": 0, "FAIL": 0, "SKIP": 0, "UNKNOWN": 0}
with open(out + "/verdicts", "w") as f:
    for r in fsaio:
        w = words.get(r.get("result"), "UNKNOWN")
        n[w] += 1
        f.write("%s %s\n" % (w, r.get("case")))
if n["UNKNOWN"]:
    why.append("%d results neither pass, fail nor skip" % n["UNKNOWN"])
counts = "%d results: %d passed, %d failed, %d skipped" % (len(fsaio), n["PASS"], n["FAIL"], n["SKIP"])
# the kselftest-level results (no other result's name is a prefix of
# theirs) and every failure
names = {r.get("case", "") for r in fsaio}
for r in fsaio:
    c = r.get("case", "")
    if r.get("result") == "fail" or not any(c.startswith(m + ".") for m in names):
        sys.stderr.write("  %s %s\n" % (words.get(r.get("result"), "UNKNOWN"), r.get("case")))
if why:
    rc, word = ERROR, "ERROR"
elif n["FAIL"]:
    rc, word = FAIL, "FAIL"
elif n["SKIP"] == len(fsaio):
    rc, word = SKIP, "SKIP"
else:
    rc, word = PASS, "PASS"
line = "%s rc=%d %s%s" % (word, rc, counts, ("; " + "; ".join(why)) if why else "")
if boot:
    line += "; boot %ss" % boot
if run and run[-1]:
    line += ", test run %ss" % run[-1]
open(out + "/verdict", "w").write(line + "\n")
print(line)
sys.exit(rc)
PY
rc=$?
verdict=$(cat "$OUT/verdict" 2>/dev/null || echo "ERROR (no verdict)")
if [[ ${verdict%% *} == ERROR ]]; then
	grep -E '"lvl": "(error|exception)"' "$OUT/job.log" 2>/dev/null | tail -3 | cut -c1-300 | sed 's/^/    lava: /' >&2
	grep -v '^{' "$OUT/job.log" 2>/dev/null | tail -3 | sed 's/^/    lava-run: /' >&2
fi
msg "${verdict%% *} after ${elapsed}s; results in $OUT"
exit "$rc"
exit
}
