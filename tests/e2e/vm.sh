# SPDX-License-Identifier: GPL-2.0
# End-to-end tests of the CI machinery that run without a VM or a kernel
# build: the kernel cache's stale-object check, ci/vm/vm-run.sh with a fake
# QEMU, the LAVA verdict path and the SystemTap judgement.  Sourced by
# tests/e2e/run.sh (lib.sh first).

# A patched kernel is seeded from the stock key's O= tree
# (ci/kernel/build-kernel.sh): its stale_objects() must name an object that
# depends on a replaced source and was not rebuilt after it, and nothing
# else; run on a small fake O= tree with the script's own function.
t_kernel_stale_objects() {
	local d=$WORK/stale fn got
	mkdir -p "$d/src/o/fs" "$d/src/o/mm" "$d/key"
	printf 'include/linux/wait_bit.h\n' >"$d/key/freshened"
	: >"$d/key/seed-same-config"
	printf 'deps_fs/aio.o := \\\n  ../include/linux/wait_bit.h \\\n' >"$d/src/o/fs/.aio.o.cmd"
	printf 'deps_fs/pipe.o := \\\n  ../include/linux/wait.h \\\n' >"$d/src/o/fs/.pipe.o.cmd"
	printf 'deps_mm/filemap.o := \\\n  ../include/linux/wait_bit.h \\\n' >"$d/src/o/mm/.filemap.o.cmd"
	touch -d '-2 min' "$d/src/o/fs/aio.o" "$d/src/o/fs/pipe.o"	# before freshen
	touch -d '-1 min' "$d/key/freshened"
	touch "$d/src/o/mm/filemap.o"					# rebuilt after it
	fn=$(sed -n '/^stale_objects() {/,/^}/p' ci/kernel/build-kernel.sh)
	[[ -n $fn ]] || fail "no stale_objects() in ci/kernel/build-kernel.sh"
	got=$(eval "$fn"; KEYDIR=$d/key OUT=$d/src/o stale_objects)
	[[ $got == fs/aio.o ]] || fail "stale objects: '$got', expected fs/aio.o only"
	rm "$d/key/seed-same-config"	# seeded from another config: not judged
	got=$(eval "$fn"; KEYDIR=$d/key OUT=$d/src/o stale_objects)
	[[ -z $got ]] || fail "judged without a same-config seed: '$got'"
}
TESTS+=(t_kernel_stale_objects)

# Every mutant of make mutants still applies to the series: a change to
# the series that moves a mutant's context would otherwise turn its run
# into "does not apply", noticed only when someone runs make mutants.
# The series and each mutant go onto a copy of the files they touch from
# the Debian source tree (the kernel build's source cache), with patch
# -p1 as ci/kernel/build-kernel.sh and ci/mutants/mutants.sh apply them.
t_mutants_apply() {
	local src=${FSAIO_SRCCACHE:-/var/cache/fsaio/src}/linux-source-6.12
	local d=$WORK/mutants-apply f p m bad=()
	if [[ ! -f $src/Makefile ]]; then
		echo "# no kernel source cache at $src (make kernels makes it)"
		exit "$EXIT_SKIP"
	fi
	mkdir -p "$d"
	for f in $(sed -n 's|^+++ b/||p' patches/linux-6.12/0*.patch ci/mutants/*.patch | sort -u); do
		[[ -f $src/$f ]] || continue	# a file the series creates
		mkdir -p "$d/$(dirname "$f")" && cp "$src/$f" "$d/$f"
	done
	while read -r p; do
		patch -s -d "$d" -p1 <"patches/linux-6.12/$p" >/dev/null 2>&1 ||
			fail "series patch $p does not apply to $src"
	done <patches/linux-6.12/series
	for m in ci/mutants/*.patch; do
		patch -s --dry-run -d "$d" -p1 <"$m" >/dev/null 2>&1 || bad+=("$(basename "$m" .patch)")
	done
	((${#bad[@]} == 0)) || fail "mutants that no longer apply to the series: ${bad[*]}"
	echo "# $(ls ci/mutants/*.patch | wc -l) mutants apply to the series"
}
TESTS+=(t_mutants_apply)

# ci/vm/vm-run.sh's verdicts and cleanup with a fake QEMU (no kernel, ~7 s):
# QEMU killed, guest panic, bad init, timeout, Ctrl-C are ERRORs with their
# reason; pass/fail/skip/splat/no exit code/QEMU start failure; no QEMU
# process, temp dir or OUT/.vm left.  The real-QEMU twin: make vmselftest-errors.
t_vm_error_paths() {
	local out rc
	out=$(ci/vm/vm-error-tests.sh --fake 2>&1); rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "$(grep -E '^(not ok|# )' <<<"$out" | tr '\n' ' ')"
}
TESTS+=(t_vm_error_paths)

# The LAVA verdict path without QEMU or lava-run (ci/lava/lava-judge-tests.sh,
# ~7 s): kselftest logs through the guest-side parser, LAVA's log judged by
# lava-check.sh --judge: pass, a failing check, all skipped, and cut-off KTAP,
# plan mismatch, a lost result, a failed job, no log, no results as ERRORs.
# The real run: make lava-check.
t_lava_judge() {
	local out rc
	python3 -c 'import yaml' 2>/dev/null || { echo "# no python3-yaml"; exit "$EXIT_SKIP"; }
	out=$(ci/lava/lava-judge-tests.sh 2>&1); rc=$?
	[[ $rc -eq $EXIT_PASS ]] || fail "$(grep -E '^not ok' <<<"$out" | tr '\n' ' ')"
}
TESTS+=(t_lava_judge)

# The SystemTap-against-BPF judgement without a VM (ci/stap/guest-compare.sh
# --logs): a real libaio run's --record log against itself as text agrees;
# the text with one REAP's result changed (counts disagree) FAILs; with a
# REAP line dropped (a lost record) it FAILs too, never passes.  The real
# run: make stapcheck.
t_stap_judge() {
	need_root
	local rc d=$WORK/stapj
	mkdir -p "$d/data"
	$FSAIO check --record "$d/bpf.log" -- .output/workloads/aio_read_batch -d "$d/data" \
		>"$d/check.ktap" 2>&1
	[[ -s $d/bpf.log ]] || fail "no log recorded: $(tail -3 "$d/check.ktap")"
	$FSAIO replay --text "$d/same.txt" "$d/bpf.log" >/dev/null
	ci/stap/guest-compare.sh --logs "$d/out" same "$d/bpf.log" "$d/same.txt" >"$d/same.ktap"; rc=$?
	cat "$d/same.ktap"
	[[ $rc -eq 0 ]] && grep -q '^ok 1 stap_agrees_same' "$d/same.ktap" || fail "same log: rc=$rc"
	# one REAP's result 4096 -> -5: errors 0 -> 1
	awk '!done && /^R type=8 / && / res=4096 / { sub(/ res=4096 /, " res=-5 "); done = 1 } { print }' \
		"$d/same.txt" >"$d/res.txt"
	ci/stap/guest-compare.sh --logs "$d/out" res "$d/bpf.log" "$d/res.txt" >"$d/res.ktap"; rc=$?
	cat "$d/res.ktap"
	[[ $rc -eq 1 ]] && grep -q '^not ok 1 stap_agrees_res # .*they differ' "$d/res.ktap" &&
		grep -q '"errors": 1' "$d/res.ktap" || fail "a changed result: rc=$rc"
	awk '!done && /^R type=8 / { done = 1; next } { print }' "$d/same.txt" >"$d/lost.txt"
	ci/stap/guest-compare.sh --logs "$d/out" lost "$d/bpf.log" "$d/lost.txt" >"$d/lost.ktap"; rc=$?
	[[ $rc -ne 0 ]] && grep -q '^not ok 1 stap_agrees_lost' "$d/lost.ktap" ||
		fail "a lost record: rc=$rc $(cat "$d/lost.ktap")"
	rm -rf "$d/data"
}
TESTS+=(t_stap_judge)
