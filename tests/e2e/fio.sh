# SPDX-License-Identifier: GPL-2.0
# End-to-end tests with fio, a program that is not part of fsaio: it
# submits cold 4 KiB buffered reads and fsaio must count exactly what fio says
# it did; and fio job files in the style of fio's own examples.  Sourced by
# tests/e2e/run.sh (lib.sh first).

fio_cold_reads() {	# engine json_out
	fio --name=cold --directory="$WORK" --filename=cold.dat --size=16m \
	    --ioengine="$1" --direct=0 --rw=randread --bs=4k --iodepth=32 \
	    --number_ios=512 --invalidate=1 --randrepeat=1 --norandommap \
	    --output-format=json --output="$2"
}

t_fio_libaio_cold_exact() {
	need_root
	local out rc ios sub comp blocked st
	out=$($FSAIO check --json "$WORK/la.json" -- \
	      bash -c "$(declare -f fio_cold_reads); WORK=$WORK fio_cold_reads libaio $WORK/fio-la.json" 2>&1); rc=$?
	echo "$out" | grep -E '^ *(not ok|ok [0-9]+ nonblocking|# nonblocking)' | head -5
	[[ $rc -eq $EXIT_PASS ]] || fail "fsaio check rc=$rc: $out"
	ios=$(jq '.jobs[0].read.total_ios' "$WORK/fio-la.json")
	sub=$(jqv "$WORK/la.json" '.engines.libaio.submitted')
	comp=$(jqv "$WORK/la.json" '.engines.libaio.completed')
	blocked=$(jqv "$WORK/la.json" '.engines.libaio.blocked_in_submit')
	echo "# fio total_ios=$ios traced submitted=$sub completed=$comp blocked_in_submit=$blocked"
	[[ $ios -gt 0 && $sub -eq $ios && $comp -eq $ios ]] || fail "counts differ"
	# Stock kernel: io_submit sleeps in page waits, reported XFAIL with the count.
	if ! jqv "$WORK/la.json" '.kernel.features.fsaio_tracepoints' >/dev/null; then
		[[ $blocked -gt 0 ]] || fail "stock kernel but no blocking seen in io_submit"
		jqv "$WORK/la.json" '.invariants[] | select(.name=="nonblocking_submit_libaio") | select(.verdict=="xfail") | .detail' || fail "not XFAIL"
		# ... each with where it waited: a page wait under io_submit,
		# symbolized, the tracer's and the scheduler's frames left out
		st=$(jqv "$WORK/la.json" '[.runs[0].invariants[] | select(.name=="nonblocking_submit_libaio") | .stacks[] | select(.site=="folio_bit")][0].stack')
		echo "# stack: $st"
		[[ $st == folio_wait_bit_common+0x* && $st == *"<- io_submit_one+0x"* ]] || fail "stack: '$st'"
	fi
}
TESTS+=(t_fio_libaio_cold_exact)

# The same cold libaio reads beside a busy io_uring_enter loop of 300k
# NOPs, every request folded in the kernel: fsaio still counts both
# exactly, and on a stock kernel still finds io_submit's real sleeps (an
# XFAIL with the count) among the folded requests, with nothing lost.
t_fio_libaio_beside_busy_loop() {
	need_root
	local out rc ios sub blocked nops busy=$(realpath .output/conformance/uring_enter_busy)
	out=$($FSAIO check --json "$WORK/lb.json" -- bash -c "$(declare -f fio_cold_reads)
		$busy -c 300000 >$WORK/busy.out & WORK=$WORK fio_cold_reads libaio $WORK/fio-lb.json; wait" 2>&1); rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "fsaio check rc=$rc: $(grep -E 'not ok|# [a-z_]+:' <<<"$out" | head -5)"
	ios=$(jq '.jobs[0].read.total_ios' "$WORK/fio-lb.json")
	sub=$(jqv "$WORK/lb.json" '.engines.libaio.submitted')
	nops=$(jqv "$WORK/lb.json" '.engines.io_uring.submitted')
	blocked=$(jqv "$WORK/lb.json" '.engines.libaio.blocked_in_submit')
	echo "# fio total_ios=$ios libaio submitted=$sub io_uring submitted=$nops blocked=$blocked records=$(jq .runs[0].records "$WORK/lb.json")"
	[[ $ios -gt 0 && $sub -eq $ios && $nops -eq 300000 ]] || fail "counts differ"
	jqv "$WORK/lb.json" '.lost_events == 0' >/dev/null || fail "records lost"
	if ! jqv "$WORK/lb.json" '.kernel.features.fsaio_tracepoints' >/dev/null; then
		[[ $blocked -gt 0 ]] || fail "stock kernel but no blocking seen in io_submit"
		jqv "$WORK/lb.json" '.invariants[] | select(.name=="nonblocking_submit_libaio") | select(.verdict=="xfail")' >/dev/null ||
			fail "not XFAIL: $(jq -c '.invariants[] | select(.name=="nonblocking_submit_libaio")' "$WORK/lb.json")"
	fi
}
TESTS+=(t_fio_libaio_beside_busy_loop)

t_fio_io_uring_cold_exact() {
	need_root
	local out rc ios sub comp blocked
	out=$($FSAIO check --json "$WORK/iu.json" -- \
	      bash -c "$(declare -f fio_cold_reads); WORK=$WORK fio_cold_reads io_uring $WORK/fio-iu.json" 2>&1); rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "fsaio check rc=$rc: $out"
	ios=$(jq '.jobs[0].read.total_ios' "$WORK/fio-iu.json")
	sub=$(jqv "$WORK/iu.json" '.engines.io_uring.submitted')
	comp=$(jqv "$WORK/iu.json" '.engines.io_uring.completed')
	blocked=$(jqv "$WORK/iu.json" '.engines.io_uring.blocked_in_submit')
	echo "# fio total_ios=$ios traced submitted=$sub completed=$comp blocked_in_submit=$blocked"
	[[ $ios -gt 0 && $sub -eq $ios && $comp -eq $ios && $blocked -eq 0 ]] || fail "counts differ or blocked"
	jqv "$WORK/iu.json" '.invariants[] | select(.name=="exactly_once") | select(.verdict=="pass")' >/dev/null || fail "exactly_once not pass"
	jqv "$WORK/iu.json" '.invariants[] | select(.name=="nonblocking_submit_io_uring") | select(.verdict=="pass")' >/dev/null || fail "nonblocking_submit_io_uring not pass"
}
TESTS+=(t_fio_io_uring_cold_exact)

# Job files in the style of fio's own examples (tests/e2e/fio/: libaio
# O_DIRECT at four depths, the four stonewalled phases of ssd-test, io_uring
# with SQPOLL + fixed buffers + registered files, io_uring with batched
# submit and complete): fsaio follows fio exactly (the traced requests are
# fio's total_ios, nothing lost, every per-request check passes).  Whether
# this kernel's submit calls slept is the kernel's behaviour, not fsaio's:
# a nonblocking_submit_* FAIL is printed, whole, and does not fail the test.
t_fio_examples() {
	need_root
	local j out rc ios sub comp bad
	export FSAIO_FX_DIR=$WORK/fx
	mkdir -p "$FSAIO_FX_DIR"
	for j in tests/e2e/fio/*.fio; do
		out=$WORK/fx-$(basename "$j" .fio)
		$FSAIO check --json "$out.json" -- fio --output-format=json --output="$out.fio.json" "$j" \
			>"$out.ktap" 2>&1; rc=$?
		# what failed, whole: each failing check with its diagnostics
		bad=$(grep -E '^ *(# [a-z_]+: |# stack: |not ok)' "$out.ktap" | grep -B3 'not ok' | grep -vE '^--$')
		if [[ $rc -eq $EXIT_FAIL ]] &&
		   ! grep -E '^    not ok' "$out.ktap" | grep -qv 'nonblocking_submit_'; then
			echo "# $(basename "$j"): the kernel slept in submit: $bad" | tr '\n' ' '; echo
		elif [[ $rc -ne $EXIT_PASS ]]; then
			fail "$j: rc=$rc $bad"
		fi
		ios=$(jq '[.jobs[] | .read.total_ios + .write.total_ios] | add' "$out.fio.json")
		sub=$(jq '.engines.libaio.submitted + .engines.io_uring.submitted' "$out.json")
		comp=$(jq '.engines.libaio.completed + .engines.io_uring.completed' "$out.json")
		echo "# $(basename "$j"): fio total_ios $ios, traced submitted $sub completed $comp, lost $(jq .lost_events "$out.json")"
		[[ $ios -gt 0 && $sub -eq $ios && $comp -eq $ios && $(jq .lost_events "$out.json") -eq 0 ]] ||
			fail "$j: counts differ"
		rm -f "$FSAIO_FX_DIR"/*
	done
}
TESTS+=(t_fio_examples)
