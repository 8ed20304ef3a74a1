#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's own account of a run, independent of fsaio: run CMD with the
# io_uring tracepoints enabled in a private tracefs instance and count, per
# event, what the kernel reported (all tasks: kworker and io-wq completions
# included, so run it on an otherwise io_uring-idle machine).
#
#   tests/conformance/kernel-truth.sh CMD [ARGS...]
#
# Prints CMD's output, then one line per event and, for io_uring_complete,
# the results and flags seen:
#   io_uring_submit_req 72
#   io_uring_req_failed 12          (SQEs rejected at init: no submit_req)
#   io_uring_complete 84  res<0 20  F_MORE 0
#   io_uring_cqe_overflow 60        (CQEs that did not fit the CQ)
set -u
T=/sys/kernel/tracing
[[ -d $T/instances ]] || T=/sys/kernel/debug/tracing
[[ -d $T/instances ]] || { echo "# SKIP no tracefs" >&2; exit 4; }
I=$T/instances/fsaio-truth.$$
mkdir "$I" || exit 5
trap 'echo 0 >"$I/tracing_on"; rmdir "$I"' EXIT
echo 16384 >"$I/buffer_size_kb"
EVENTS="io_uring_submit_req io_uring_req_failed io_uring_complete io_uring_cqe_overflow
	io_uring_queue_async_work io_uring_fail_link io_uring_poll_arm"
for e in $EVENTS; do echo 1 >"$I/events/io_uring/$e/enable"; done
echo 1 >"$I/tracing_on"
"$@"
rc=$?
sleep 0.5	# teardown work (ring exit, fallback task_work) runs after CMD
echo 0 >"$I/tracing_on"
OUT=$(mktemp /tmp/fsaio-truth.XXXXXX)
grep -v '^#' "$I/trace" >"$OUT"
awk '
	{ for (i = 1; i <= NF; i++) if ($i ~ /^io_uring_[a-z_]+:$/) { ev = substr($i, 1, length($i) - 1); break } }
	{ n[ev]++ }
	ev == "io_uring_complete" {
		if (match($0, /result -?[0-9]+/)) { r = substr($0, RSTART + 7, RLENGTH - 7) + 0; if (r < 0) neg++; res[r]++ }
		# IORING_CQE_F_MORE is bit 1: the last hex digit is 2, 3, 6, 7, a, b, e or f
		if (match($0, /cflags 0x[0-9a-f]+/) && substr($0, RSTART + RLENGTH - 1, 1) ~ /[2367abef]/) more++
	}
	END {
		for (e in n) {
			line = sprintf("%s %d", e, n[e])
			if (e == "io_uring_complete") {
				line = line sprintf("  res<0 %d  F_MORE %d  results:", neg, more)
				for (r in res) line = line sprintf(" %s:%d", r, res[r])
			}
			print line
		}
	}' "$OUT" | sort
if [[ -n ${KEEP_TRACE:-} ]]; then echo "# trace kept in $OUT"; else rm -f "$OUT"; fi
exit $rc
