#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make mutants: measure the suite by mutation testing.  Each ci/mutants/*.patch
# (a small bug on top of patches/linux-6.12) is applied to the cached patched
# kernel tree, built incrementally (one changed file: about a minute), its
# sources put back at once (the series' kernel is rebuilt once, at the end),
# and the mutant kernel run under the suite in QEMU
# (make vmcheck KERNEL=image) and the crash-replay tier (make vmcrash
# KERNEL=image).  Prints the kill table (mutant, the checks that failed,
# crash-replay tests as crash:NAME, or "SURVIVED") and the kill rate; a mutant whose patch has a
# line "Equivalent: why" (before the diff) and survives is listed as such
# and left out of the rate; results per mutant in
# .output/vm/mut-NAME/ and .output/vm-crash/mut-NAME/.
#
#   ci/mutants/mutants.sh [NAME...]  default: every ci/mutants/*.patch
#
# FLAVOR=debug runs the mutants on the debug flavour (KASAN, lockdep: a
# use-after-free that reads stale but plausible memory is a KASAN report
# there), its kernel tree and its VM options; results in
# .output/vm/mut-NAME-debug/.  VMCMD in the environment narrows the suite
# (ci/vm/vm.mk); CRASH_TIER=0 leaves the crash-replay tier out (a targeted
# run of mutants the tier cannot see).
#
# Needs the patched kernel built (make kernels).  Builds take the CPU lock
# of ci/kernel/build-kernel.sh.  The cached tree is the series again on
# every exit path (its aio.c and friends are restored from a copy).
# Exit status: EXIT_PASS when every mutant was killed, EXIT_FAIL when one
# survived, EXIT_ERROR when a mutant could not be built or run.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || die "cannot cd to $ROOT"
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"

bz=$(ci/kernel/build-kernel.sh --patched ${FLAVOR:+--flavor "$FLAVOR"} --path 2>/dev/null) &&
	[[ -f $bz ]] || die "no cached patched${FLAVOR:+ $FLAVOR} kernel: run make kernels${FLAVOR:+ FLAVOR=$FLAVOR}"
K=${bz%/build/arch/x86/boot/bzImage}
[[ -d $K/src && -d $K/build ]] || die "unexpected cache layout: $K"
CPU_LOCK=${FSAIO_CPU_LOCK:-/var/cache/fsaio/cpu.lock}
CRASH_TIER=${CRASH_TIER:-1}
WORK=$(mktemp -d /var/tmp/fsaio-mutants.XXXXXX) || die "mktemp"
SAVED=()

# Put back every file a mutant touched.  The objects are rebuilt only once,
# at the end (rebuild_series): the next mutant rebuilds the same files
# anyway.  Until then the cache's "built" marker is gone, so anything else
# that asks for the patched kernel meanwhile rebuilds it from the series.
restore() {
	local f
	((${#SAVED[@]})) || return 0
	for f in "${SAVED[@]}"; do
		rm -f "$K/src/$f" && cp -p "$WORK/orig/$f" "$K/src/$f" && touch "$K/src/$f"
	done
	SAVED=()
}
DIRTY=0
rebuild_series() {
	((DIRTY)) || return 0
	msg "rebuilding the series' kernel"
	kbuild >"$WORK/restore.log" 2>&1 || { msg "error: restoring the series failed (see $WORK/restore.log)"; return 1; }
	touch "$K/built"
	DIRTY=0
}
kbuild() {
	flock "$CPU_LOCK" nice -n 10 make -C "$K/src" O="$K/build" -j"$(nproc)" \
		CC="ccache gcc" HOSTCC="ccache gcc" bzImage
}
cleanup() { restore; rebuild_series; rm -f "$K/mutating"; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# ci/kernel/build-kernel.sh refuses this tree while we mutate it
[[ -f $K/mutating ]] && kill -0 "$(cat "$K/mutating")" 2>/dev/null &&
	die "another make mutants (pid $(cat "$K/mutating")) is using $K"
echo $$ >"$K/mutating"

if (($#)); then names=("$@"); else
	names=(); for p in ci/mutants/*.patch; do names+=("$(basename "$p" .patch)"); done
fi
killed=0 survived=0 errors=0 equivalent=0 table=()
for name in "${names[@]}"; do
	patch=ci/mutants/$name.patch
	[[ -f $patch ]] || usage_error "no mutant $patch"
	msg "$name: applying, building"
	files=$(sed -n 's|^+++ b/||p' "$patch")
	for f in $files; do
		mkdir -p "$WORK/orig/$(dirname "$f")"
		cp -p "$K/src/$f" "$WORK/orig/$f" && SAVED+=("$f")
	done
	rm -f "$K/built"; DIRTY=1
	# patch writes a new file: the source cache the tree is linked to stays intact
	if ! patch -s -d "$K/src" -p1 <"$patch" >"$WORK/$name.patch.log" 2>&1 ||
	   ! kbuild >"$WORK/$name.build.log" 2>&1; then
		table+=("$name|ERROR: does not apply or build (see the log)")
		tail -5 "$WORK/$name.build.log" "$WORK/$name.patch.log" 2>/dev/null >&2
		errors=$((errors + 1)); restore; continue
	fi
	cp "$K/build/arch/x86/boot/bzImage" "$WORK/bzImage-$name"
	restore
	msg "$name: running the suite"
	make --no-print-directory vmcheck KERNEL="$WORK/bzImage-$name" VMLABEL="mut-$name${FLAVOR:+-$FLAVOR}" \
		${FLAVOR:+FLAVOR="$FLAVOR"} >"$WORK/$name.vm.log" 2>&1
	out=.output/vm/mut-$name${FLAVOR:+-$FLAVOR}
	res=$(cat "$out/result" 2>/dev/null || echo "ERROR no result")
	# and the crash-replay tier (make vmcrash): its failing tests as crash:NAME
	cout=.output/vm-crash/mut-$name${FLAVOR:+-$FLAVOR}
	rm -rf "$cout"
	if ((CRASH_TIER)); then
		msg "$name: running the crash-replay tier"
		make --no-print-directory vmcrash KERNEL="$WORK/bzImage-$name" VMLABEL="mut-$name${FLAVOR:+-$FLAVOR}" \
			${FLAVOR:+FLAVOR="$FLAVOR"} >"$WORK/$name.crash.log" 2>&1
	fi
	by=$({ grep -E '^    not ok [0-9]+ ' "$out/stdout" 2>/dev/null | awk '{ print $4 }'
	       grep -E '^not ok [0-9]+ ' "$cout/stdout" 2>/dev/null | awk '{ print "crash:" $4 }'; } |
	     sort | uniq -c | awk '{ printf "%s%s x%d", sep, $2, $1; sep = ", " }')
	# a tier that ran and left no result is an ERROR, not a skip
	if ((CRASH_TIER)); then
		cres=$(cat "$cout/result" 2>/dev/null || echo "ERROR no result")
	else
		cres="SKIP not run (CRASH_TIER=0)"
	fi
	# a crash-replay FAIL/ERROR without a failing test (a splat, a dead guest)
	[[ $res == PASS* || $res == SKIP* ]] && [[ $cres == FAIL* || $cres == ERROR* ]] && res=$cres
	if [[ -n $by ]]; then
		table+=("$name|killed by $by"); killed=$((killed + 1))
	elif [[ $res == FAIL* ]]; then
		table+=("$name|killed: ${res#FAIL rc=* }"); killed=$((killed + 1))
	elif [[ $res == ERROR*"guest kernel died: "* ]]; then
		# a splat (KASAN, BUG, a WARN under panic_on_warn) ended the guest:
		# the kernel itself named the bug
		table+=("$name|killed by a splat: ${res#*guest kernel died: }"); killed=$((killed + 1))
	elif [[ $res == ERROR* ]]; then
		table+=("$name|ERROR: ${res#ERROR rc=* }"); errors=$((errors + 1))
	elif equiv=$(sed -n 's/^Equivalent: //p' "$patch") && [[ -n $equiv ]]; then
		table+=("$name|survived, equivalent: $equiv"); equivalent=$((equivalent + 1))
	else
		table+=("$name|SURVIVED ($res)"); survived=$((survived + 1))
	fi
done

printf '\n%-28s %s\n' mutant result
for row in "${table[@]}"; do printf '%-28s %s\n' "${row%%|*}" "${row#*|}"; done
total=$((killed + survived + errors))
printf '\nkilled %d of %d (%d%%), survived %d, errors %d; %d equivalent (argued in the patch, not counted)\n' \
	"$killed" "$total" $((total ? killed * 100 / total : 0)) "$survived" "$errors" "$equivalent"
((errors)) && exit "$EXIT_ERROR"
((survived)) && exit "$EXIT_FAIL"
exit "$EXIT_PASS"
