#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Does every prefix of the patch series build?  (`make bisect-check`)
#
#   ci/kernel/bisect-build.sh [--keep]
#
# For k = 1..N: the Debian tree with the first k patches of
# patches/linux-6.12/series applied, and the objects of every .c file any
# patch of the series touches (or the unity file that #includes it, as
# kernel/sched does) rebuilt with KCFLAGS=-Werror: a header an early patch
# changes must still fit the callers a later one updates.  They are built
# in a copy of a patched kernel's O= tree (the series' own if built, else
# the last one: `make kernels` builds it), which provides the config and
# the other dependencies.  One TAP line per patch, "ok k - name (N
# compiled)" or "not ok k - name" with the compiler's last lines.  A
# touched file whose object this config does not build (fs/nfs, fs/smb,
# net/sunrpc in the VM config) is named in a "# not in this config:"
# note: compile-check those with a config that has them.  About 10 s per
# patch here (ccache).
#
# The work tree (/var/tmp/fsaio-bisect.*) is removed at exit unless
# --keep.  Exit status: EXIT_PASS if every prefix built, EXIT_FAIL if one
# did not, EXIT_ERROR if the check could not run.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
[[ ${1:-} == -h || ${1:-} == --help ]] && usage "$EXIT_PASS"
KEEP=0
[[ ${1:-} == --keep ]] && { KEEP=1; shift; }
[[ $# -eq 0 ]] || usage_error "unknown argument $1"

PATCHDIR=$ROOT/patches/linux-6.12
KDIR=${FSAIO_SRCCACHE:-/var/cache/fsaio/src}/linux-source-6.12
KCACHE=${FSAIO_KCACHE:-/var/cache/fsaio/kernels}
CPU_LOCK=${FSAIO_CPU_LOCK:-/var/cache/fsaio/cpu.lock}
# The O= tree only provides the configuration and the objects' other
# dependencies: the series' own kernel if built, else the last patched one.
key=$("$ROOT/ci/kernel/build-kernel.sh" --patched --print-key)
if ! "$ROOT/ci/kernel/build-kernel.sh" --patched --path >/dev/null; then
	[[ -f $KCACHE/latest-patched/built ]] ||
		die "no patched kernel built ($key): run make kernels first"
	key=$(basename "$(realpath "$KCACHE/latest-patched")")
	msg "the series' kernel is not built; using the O= tree of $key"
fi
[[ -d $KDIR ]] || die "no Debian source tree at $KDIR"

mapfile -t PATCHES < <(grep -v '^[[:space:]]*\(#\|$\)' "$PATCHDIR/series" | awk '{ print $1 }')
WORK=$(mktemp -d /var/tmp/fsaio-bisect.XXXXXX)
cleanup() { ((KEEP)) && msg "kept $WORK" || rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit "$EXIT_ERROR"' INT TERM HUP

# The O= tree stays a direct subdirectory of the source, as in the cache
# (ci/kernel/build-kernel.sh): its command lines name sources relative to it.
msg "copying the O= tree of $key"
mkdir "$WORK/src"
cp -a "$KCACHE/$key/build/." "$WORK/src/o"
export CCACHE_NOHASHDIR=1 CCACHE_BASEDIR=$WORK
MAKE=(flock "$CPU_LOCK" nice -n 10 make -C "$WORK/src" O="$WORK/src/o" -j"$(nproc)"
      CC="ccache gcc" HOSTCC="ccache gcc" KCFLAGS=-Werror)

echo "TAP version 13"
echo "1..${#PATCHES[@]}"
mapfile -t touched < <(for p in "${PATCHES[@]}"; do
	sed -n 's|^+++ b/\(.*\.c\)$|\1|p' "$PATCHDIR/$p"; done | sort -u)
objs=() missing=()
for f in "${touched[@]}"; do
	o=${f%.c}.o
	# kernel/sched builds its files through #include in unity files
	[[ -f $WORK/src/o/$o ]] ||
		for u in $(grep -l "^#include \"${f##*/}\"" "$(dirname "$KDIR/$f")"/*.c 2>/dev/null); do
			o=${u#"$KDIR/"}; o=${o%.c}.o
		done
	if [[ -f $WORK/src/o/$o ]]; then objs+=("$o"); else missing+=("$f"); fi
done
echo "# objects: ${objs[*]}"
((${#missing[@]})) && echo "# not in this config: ${missing[*]}"
fails=0
for ((k = 1; k <= ${#PATCHES[@]}; k++)); do
	p=${PATCHES[k - 1]}
	mv "$WORK/src/o" "$WORK/o"
	rm -rf "$WORK/src"
	cp -al "$KDIR" "$WORK/src"
	rm -rf "$WORK/src/.git"
	mv "$WORK/o" "$WORK/src/o"
	for ((i = 0; i < k; i++)); do
		patch -p1 -d "$WORK/src" --forward --batch --no-backup-if-mismatch -s \
			<"$PATCHDIR/${PATCHES[i]}" >"$WORK/patch.log" 2>&1 ||
			die "${PATCHES[i]} does not apply: $(head -3 "$WORK/patch.log")"
	done
	if "${MAKE[@]}" "${objs[@]}" >"$WORK/make.log" 2>&1; then
		echo "ok $k - $p ($(grep -c '^  CC ' "$WORK/make.log") compiled)"
	else
		echo "not ok $k - $p"
		tail -15 "$WORK/make.log" | sed 's/^/# /'
		fails=$((fails + 1))
	fi
done
((fails == 0)) || exit "$EXIT_FAIL"
exit "$EXIT_PASS"
