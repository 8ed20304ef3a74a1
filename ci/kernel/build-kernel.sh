#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build a test kernel for fsaio's VM tiers (6.12; 6.1 LTS with --kver 6.1).
#
#   ci/kernel/build-kernel.sh [--kdir DIR] [--kver V] [--patched] [--flavor debug] [options]
#
#   --kdir DIR       kernel source (default: the Debian linux-source-V tree,
#                    extracted from /usr/src/linux-source-V.tar.xz if needed)
#   --kver V         Debian source version for the default tree: 6.12 (default)
#                    or another linux-source-V package (ci/install-deps.sh
#                    --kver V); the patch series is for 6.12 only
#   --patched        apply patches/linux-6.12/series (patch -p1) to a per-key copy
#   --patches DIR    series directory (default: <repo>/patches/linux-6.12)
#   --flavor debug   add ci/kernel/config/debug.config (KASAN, lockdep, hung-task panic)
#   --flavor stap    add ci/kernel/config/stap.config (modules, kprobes, DWARF:
#                    a SystemTap module can be built for it and loaded)
#   --config-only    stop after olddefconfig + verification; print the .config path
#   --print-key      print the cache key and exit
#   --path           print the bzImage path if it is already built (else exit
#                    EXIT_FAIL, 1)
#   -j N             parallel jobs (default: nproc)
#   --force          run make even if this key is already built (the Debian tree
#                    and patched copies are treated as immutable; --kdir trees
#                    are always re-made, incrementally)
#   --check-kernel BZIMAGE [--kbuild DIR]
#                    check a kernel fsaio did not build against
#                    ci/kernel/config/required.config, using the build tree's .config
#                    (--kbuild) or the config embedded in the image (IKCONFIG);
#                    names every missing option; exit EXIT_FAIL (1) if any
#                    required one is
#
# Cache: $FSAIO_KCACHE (default /var/cache/fsaio/kernels)/<key>/ holding
# src/ (a hard-link copy of the source, patched for a patched key), src/o
# (the O= tree, reused incrementally; build/ links to it), build.log, info.
# A new key's O= tree is seeded from a built one (patched from stock), so a
# cold machine compiles the kernel once and the series' files on top.  key = <version>-<source id>-<stock|patched>[-<flavor>]-c<config hash>
# [-p<series hash>].  Progress goes to stderr; the last stdout line is the
# bzImage path.  Heavy make runs under `flock $FSAIO_CPU_LOCK nice -n 10` so
# parallel kernel builds on this machine take turns.
# Exit status (harness/exit_status.h): EXIT_PASS, EXIT_FAIL as above,
# EXIT_ERROR (5) when the build or its setup failed or was interrupted,
# EXIT_USAGE (64) for a bad command line.
set -euo pipefail
# The whole script is one compound command, parsed before it runs, so editing
# this file cannot break a copy that is already running.
{

. "$(dirname "$0")/../lib.sh"
CONFIG_DIR=$ROOT/ci/kernel/config
KCACHE=${FSAIO_KCACHE:-/var/cache/fsaio/kernels}
SRCCACHE=${FSAIO_SRCCACHE:-/var/cache/fsaio/src}
CPU_LOCK=${FSAIO_CPU_LOCK:-/var/cache/fsaio/cpu.lock}
KVER=6.12
KDIR=
PATCHED=0
PATCHDIR=$ROOT/patches/linux-6.12
FLAVOR=
MODE=build
CHECK_IMAGE= KBUILD= FORCE=0
JOBS=$(nproc)

while [[ $# -gt 0 ]]; do
	case $1 in
	--kdir) KDIR=$2; shift 2 ;;
	--kdir=*) KDIR=${1#*=}; shift ;;
	--kver) KVER=$2; shift 2 ;;
	--kver=*) KVER=${1#*=}; shift ;;
	--patched) PATCHED=1; shift ;;
	--patches) PATCHDIR=$2; shift 2 ;;
	--flavor) FLAVOR=$2; shift 2 ;;
	--flavor=*) FLAVOR=${1#*=}; shift ;;
	--config-only) MODE=config; shift ;;
	--print-key) MODE=key; shift ;;
	--path) MODE=path; shift ;;
	--force) FORCE=1; shift ;;
	--check-kernel) MODE=check; CHECK_IMAGE=$2; shift 2 ;;
	--kbuild) KBUILD=$2; shift 2 ;;
	-j) JOBS=$2; shift 2 ;;
	-j*) JOBS=${1#-j}; shift ;;
	-h|--help) usage "$EXIT_PASS" ;;
	*) usage_error "unknown argument: $1" ;;
	esac
done

[[ $KVER =~ ^[0-9]+\.[0-9]+$ ]] || usage_error "--kver wants a version such as 6.1, not '$KVER'"
((PATCHED)) && [[ $KVER != 6.12 && -z $KDIR ]] &&
	usage_error "the patch series is for 6.12; --kver $KVER builds stock only"
DEB_TARBALL=/usr/src/linux-source-$KVER.tar.xz

case $FLAVOR in
''|stock|default) FLAVOR= ;;
debug|stap) ;;
*) usage_error "unknown flavor '$FLAVOR' (known: debug, stap)" ;;
esac

# ---- --check-kernel: verify a foreign kernel's config -------------------------------
check_kernel() {
	local cfg line opt want missing=() wanted=() src
	if [[ -n $KBUILD ]]; then
		cfg=$KBUILD/.config
		[[ -f $cfg ]] || usage_error "no .config in $KBUILD"
		src="$cfg"
	else
		[[ -f $CHECK_IMAGE ]] || usage_error "no such kernel image: $CHECK_IMAGE"
		CHECK_TMP=$(mktemp)
		trap 'rm -f "$CHECK_TMP"' EXIT
		local tmp=$CHECK_TMP
		local x=${KDIR:-$SRCCACHE/linux-source-$KVER}/scripts/extract-ikconfig
		[[ -x $x ]] || x=$(command -v extract-ikconfig || true)
		if [[ -z $x ]] || ! "$x" "$CHECK_IMAGE" >"$tmp" 2>/dev/null || [[ ! -s $tmp ]]; then
			warn "$CHECK_IMAGE has no embedded config (CONFIG_IKCONFIG) and no --kbuild/KBUILD= was given;"
			warn "cannot verify it has what fsaio needs; booting it anyway"
			return 0
		fi
		cfg=$tmp
		src="config embedded in $CHECK_IMAGE"
	fi
	while IFS= read -r line; do
		want=0
		[[ $line =~ ^#\ want:\ (.*)$ ]] && { line=${BASH_REMATCH[1]}; want=1; }
		[[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]] || continue
		opt=${BASH_REMATCH[1]}
		grep -qxF "$line" "$cfg" && continue
		have=$(grep -E "^(# )?$opt[= ]" "$cfg" || echo "$opt absent")
		if ((want)); then wanted+=("$line (have: $have)"); else missing+=("$line (have: $have)"); fi
	done <"$CONFIG_DIR/required.config"
	((${#wanted[@]})) && { warn "recommended options missing in $src:"; printf '    %s\n' "${wanted[@]}" >&2; }
	if ((${#missing[@]})); then
		msg "required options missing in $src:"
		printf '    %s\n' "${missing[@]}" >&2
		msg "kernel lacks ${#missing[@]} option(s) fsaio needs (see ci/kernel/config/required.config)"
		exit "$EXIT_FAIL"
	fi
	msg "kernel config OK ($src): all required options set"
}
if [[ $MODE == check ]]; then check_kernel; exit "$EXIT_PASS"; fi

# ---- source -----------------------------------------------------------------
if [[ -z $KDIR ]]; then
	KDIR=$SRCCACHE/linux-source-$KVER
	if [[ ! -f $KDIR/Makefile ]]; then
		[[ -f $DEB_TARBALL ]] ||
			die "no kernel source: install linux-source-$KVER (ci/install-deps.sh --kver $KVER) or pass --kdir"
		msg "extracting $DEB_TARBALL into $SRCCACHE"
		mkdir -p "$SRCCACHE"
		tar -C "$SRCCACHE" -xf "$DEB_TARBALL"
	fi
	SRCID=deb
else
	[[ -f $KDIR/Makefile && -f $KDIR/Kconfig ]] || usage_error "--kdir $KDIR is not a kernel tree"
	KDIR=$(realpath "$KDIR")
	SRCID=s$(printf '%s' "$KDIR" | sha256sum | cut -c1-8)
fi
[[ -e $KDIR/.config || -d $KDIR/include/config ]] &&
	die "$KDIR is configured in-tree; run 'make mrproper' there (O= builds need a clean tree)"
VERSION=$(make -s -C "$KDIR" kernelversion 2>/dev/null) || die "cannot read kernel version of $KDIR"

# ---- key ----------------------------------------------------------------------
FRAGS=("$CONFIG_DIR/base.config" "$CONFIG_DIR/bpf.config")
# what an older source needs differently (6.1.config), after the common ones
MAJMIN=$(echo "$VERSION" | cut -d. -f1,2)
[[ -f $CONFIG_DIR/$MAJMIN.config ]] && FRAGS+=("$CONFIG_DIR/$MAJMIN.config")
[[ -n $FLAVOR ]] && FRAGS+=("$CONFIG_DIR/$FLAVOR.config")
for f in "${FRAGS[@]}"; do [[ -f $f ]] || die "missing config fragment $f"; done
CFGHASH=$(cat "${FRAGS[@]}" | sha256sum | cut -c1-10)

PATCHES=()
if ((PATCHED)); then
	SERIES=$PATCHDIR/series
	[[ -s $SERIES ]] || die "no patch series at $SERIES"
	while read -r p _; do
		[[ -z $p || $p == \#* ]] && continue
		[[ -f $PATCHDIR/$p ]] || die "series names $p but $PATCHDIR/$p does not exist"
		PATCHES+=("$p")
	done <"$SERIES"
	[[ ${#PATCHES[@]} -gt 0 ]] || die "$SERIES lists no patches"
	PHASH=$( (cat "$SERIES"; for p in "${PATCHES[@]}"; do cat "$PATCHDIR/$p"; done) |
		sha256sum | cut -c1-10)
	KIND=patched
else
	KIND=stock
fi
KEY=$VERSION-$SRCID-$KIND${FLAVOR:+-$FLAVOR}-c$CFGHASH${PHASH:+-p$PHASH}
KEYDIR=$KCACHE/$KEY
# the last build of a kind, for incremental seeding (6.12's has no suffix)
LATEST=latest-$KIND${FLAVOR:+-$FLAVOR}
[[ $KVER == 6.12 ]] || LATEST=latest-$KIND${FLAVOR:+-$FLAVOR}-$KVER
OUT=$KEYDIR/build
BZIMAGE=$OUT/arch/x86/boot/bzImage
# What make builds: the image; a SystemTap kernel also its module build
# environment (modpost, Module.symvers), which stap -r OUT needs to build
# the tracequery and fsaio_stap modules against it.
TARGETS=(bzImage)
DONE_FILES=("$BZIMAGE")
[[ $FLAVOR == stap ]] && { TARGETS+=(modules); DONE_FILES+=("$OUT/Module.symvers"); }
all_built() {
	local f
	for f in "${DONE_FILES[@]}"; do [[ -f $f ]] || return 1; done
}

# make mutants edits this key's tree (ci/mutants/mutants.sh writes its pid
# here): building or booting it meanwhile could give a mutant kernel
if [[ -f $KEYDIR/mutating && $MODE != key ]] && kill -0 "$(cat "$KEYDIR/mutating")" 2>/dev/null; then
	die "make mutants (pid $(cat "$KEYDIR/mutating")) is mutating $KEYDIR: wait for it to finish or stop it"
fi

case $MODE in
key) echo "$KEY"; exit "$EXIT_PASS" ;;
path) all_built && [[ -f $KEYDIR/built ]] || exit "$EXIT_FAIL"; echo "$BZIMAGE"; exit "$EXIT_PASS" ;;
esac

LOG=$KEYDIR/build.log
mkdir -p "$KEYDIR"
msg "kernel $VERSION ($KIND${FLAVOR:+, $FLAVOR}) from $KDIR"
msg "cache $KEYDIR"

# ---- the key's source tree, with the O= tree inside it ---------------------------
# A Debian or patched source gets a per-key hard-link copy, src/, and is built
# in src/o (build/ links to it).  With O= a direct subdirectory of the source,
# Kbuild names every source relative to it (srctree ".."), so two keys' command
# lines are the same: one key's O= tree can seed another's (a patched build
# recompiles only what the series touches) and ccache hits across keys.
# A --kdir tree (mutable, the user's) is built in place with O=build/, as is
# a key built before this layout.
SRC=$KDIR
if [[ $SRCID == deb || $PATCHED == 1 ]] && [[ ! -d $OUT || -L $OUT ]]; then
	SRC=$KEYDIR/src
	OUT=$SRC/o
	if [[ ! -f $SRC/.fsaio-src ]]; then
		rm -rf "$SRC" "$SRC.tmp" "$KEYDIR/build"
		msg "copying $KDIR to $SRC (hard links; patch(1) breaks them on write)"
		# Hard links are cheap and safe here: GNU patch writes a new file and
		# renames it over the old one, and the build writes only to src/o.
		cp -al "$KDIR" "$SRC.tmp" 2>/dev/null || rsync -a --exclude=.git "$KDIR/" "$SRC.tmp/"
		rm -rf "$SRC.tmp/.git"
		i=0
		for p in "${PATCHES[@]}"; do
			i=$((i + 1))
			msg "applying [$i/${#PATCHES[@]}] $p"
			if ! patch -p1 -d "$SRC.tmp" --forward --batch --no-backup-if-mismatch \
				-s <"$PATCHDIR/$p" >"$KEYDIR/patch.log" 2>&1; then
				sed 's/^/    /' "$KEYDIR/patch.log" >&2
				rm -rf "$SRC.tmp"
				die "patch $p does not apply to $VERSION ($KDIR)"
			fi
		done
		printf '%s\n' "${PATCHES[@]}" >"$SRC.tmp/.fsaio-src"
		mv "$SRC.tmp" "$SRC"
	fi
	ln -sfn src/o "$KEYDIR/build"
elif ((PATCHED)); then
	SRC=$KEYDIR/src	# the earlier layout: build/ beside the patched copy
	[[ -f $SRC/.fsaio-patched ]] || die "$KEYDIR has an unfinished build of an earlier layout: remove it"
fi
mkdir -p "$OUT"

# freshen SEED_SRC: give every file that may differ between the seed's source
# and ours a new mtime in ours, so that make rebuilds what depends on it.
# A file patch(1) wrote has one link; one shared with the Debian tree more.
freshen() {
	local f n=0
	while IFS= read -r -d '' f; do
		[[ -f $SRC/$f ]] || continue
		if [[ $(stat -c %h "$SRC/$f") -gt 1 ]]; then	# ours is the shared copy
			cp "$SRC/$f" "$SRC/$f.fsaio-new" && mv "$SRC/$f.fsaio-new" "$SRC/$f"
		else
			touch "$SRC/$f"
		fi
		n=$((n + 1))
		printf '%s\n' "${f#./}"
	done < <({ (cd "$1" && find . -path ./o -prune -o -type f -links 1 -print0)
		   (cd "$SRC" && find . -path ./o -prune -o -type f -links 1 -print0); } |
		 sort -zu) >"$KEYDIR/freshened"
	msg "  $n source file(s) differ from the seed's: their dependents recompile"
}

# stale_objects: after a build seeded from a key of the same config, every
# object whose dependencies (its .cmd file) name a freshened file must have
# been rebuilt after freshen; one that was not would put the seed's code into
# this kernel unnoticed.  Prints the stale objects.
stale_objects() {
	local pat cmd obj
	[[ -s $KEYDIR/freshened && -f $KEYDIR/seed-same-config ]] || return 0
	pat=$(mktemp) || return 0
	sed 's|^|../|' "$KEYDIR/freshened" >"$pat"
	while IFS= read -r cmd; do
		obj=$(basename "$cmd" .cmd); obj=$(dirname "$cmd")/${obj#.}
		[[ -f $obj && ! $obj -nt $KEYDIR/freshened ]] && echo "${obj#"$OUT"/}"
	done < <(grep -rlF -f "$pat" --include='.*.o.cmd' "$OUT")
	rm -f "$pat"
}

# ---- seed a new key's O= tree from a built key of the same source ------------------
# Kbuild rebuilds only what depends on changed options and files (fixdep), so
# a config fragment edit or the patch series need not be a cold build: a
# patched key starts from the last patched build of its config (or its
# stock key), a stock key from the last stock build of the same tree.
if [[ ! -f $OUT/.config && $OUT == "$SRC/o" ]]; then
	seeds=("$KCACHE/$LATEST")
	# A patched key seeds from the last patched build of the same config
	# (it differs from this series in the files changed since: usually
	# fs/aio.c alone), else from its stock key (the series' headers,
	# include/linux/fs.h among them, recompile most of the kernel).
	if ((PATCHED)); then
		stock=$KCACHE/$VERSION-$SRCID-stock${FLAVOR:+-$FLAVOR}-c$CFGHASH
		if cmp -s "$KCACHE/$LATEST/fragments.config" <(cat "${FRAGS[@]}"); then
			seeds+=("$stock")
		else
			seeds=("$stock" "${seeds[@]}")
		fi
	fi
	for prev in "${seeds[@]}"; do
		[[ -f $prev/built && -L $prev/build && -f $prev/src/o/.config ]] || continue
		grep -qxF "kdir=$KDIR" "$prev/info" 2>/dev/null || continue
		[[ $(realpath "$prev") != "$(realpath "$KEYDIR")" ]] || continue
		msg "seeding $OUT from $(basename "$(realpath "$prev")") (incremental rebuild)"
		rm -rf "$OUT"
		cp -a "$prev/src/o" "$OUT"
		rm -f "$OUT/.config"	# forces the config step below
		rm -f "$KEYDIR/seed-same-config"
		cmp -s "$prev/fragments.config" <(cat "${FRAGS[@]}") && touch "$KEYDIR/seed-same-config"
		freshen "$prev/src"
		break
	done
elif [[ ! -f $OUT/.config ]] && ((!PATCHED)); then
	# a --kdir tree: its last stock key of the same tree, by the old layout
	prev=$KCACHE/$LATEST
	if [[ -f $prev/info && -d $prev/build && ! -L $prev/build && -f $prev/build/.config ]] &&
	   grep -qxF "kdir=$KDIR" "$prev/info" && [[ $(realpath "$prev") != "$(realpath "$KEYDIR")" ]]; then
		msg "seeding $OUT from $(basename "$(realpath "$prev")") (incremental rebuild)"
		rm -rf "$OUT"
		cp -a "$prev/build" "$OUT"
		rm -f "$OUT/.config"	# forces the config step below
	fi
fi

# ---- config -----------------------------------------------------------------------
MAKE=(make -C "$SRC" O="$OUT" -j"$JOBS" CC="ccache gcc" HOSTCC="ccache gcc")
export CCACHE_NOHASHDIR=1 CCACHE_BASEDIR=$KCACHE
MERGED=$KEYDIR/fragments.config
cat "${FRAGS[@]}" >"$MERGED.new"
if [[ ! -f $OUT/.config ]] || ! cmp -s "$MERGED.new" "$MERGED"; then
	msg "config: tinyconfig + ${FRAGS[*]##*/} -> olddefconfig"
	{
		"${MAKE[@]}" tinyconfig &&
		(cd "$OUT" && "$SRC/scripts/kconfig/merge_config.sh" -m -O "$OUT" \
			"$OUT/.config" "${FRAGS[@]}") &&
		"${MAKE[@]}" olddefconfig
	} >"$KEYDIR/config.log" 2>&1 || { tail -20 "$KEYDIR/config.log" >&2; die "configuring failed (see $KEYDIR/config.log)"; }
fi
mv "$MERGED.new" "$MERGED"

# Every line of every fragment must have survived olddefconfig.
missing=()
while IFS= read -r line; do
	if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
		grep -qxF "$line" "$OUT/.config" || {
			have=$(grep -E "^(# )?${BASH_REMATCH[1]}[= ]" "$OUT/.config" || true)
			missing+=("$line (have: ${have:-absent})")
		}
	elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
		! grep -q "^${BASH_REMATCH[1]}=" "$OUT/.config" ||
			missing+=("$line (have: $(grep "^${BASH_REMATCH[1]}=" "$OUT/.config"))")
	fi
done <"$MERGED"
if [[ ${#missing[@]} -gt 0 ]]; then
	msg "options that did not survive olddefconfig (unmet dependencies?):"
	printf '    %s\n' "${missing[@]}" >&2
	rm -f "$MERGED"	# re-run the config step next time
	die "${#missing[@]} required config option(s) missing in $OUT/.config"
fi
msg "config verified: $(grep -c '^CONFIG_' "$MERGED") required options set"
if [[ $MODE == config ]]; then echo "$OUT/.config"; exit "$EXIT_PASS"; fi
# Immutable sources: once built, nothing to do (no need to queue for the lock).
if ((!FORCE)) && [[ -f $KEYDIR/built ]] && all_built && [[ $SRCID == deb || $PATCHED == 1 ]]; then
	msg "up to date (built $(date -r "$KEYDIR/built" '+%F %T'); --force to re-run make)"
	echo "$BZIMAGE"
	exit "$EXIT_PASS"
fi

# ---- build --------------------------------------------------------------------------
mkdir -p "$(dirname "$CPU_LOCK")"
rm -f "$KEYDIR/built"
: >"$LOG"
start=$(date +%s)
waiting=0
if ! flock -n "$CPU_LOCK" true; then
	waiting=1
	msg "waiting for the CPU lock $CPU_LOCK (another kernel build holds it)..."
fi
msg "building ${TARGETS[*]} with -j$JOBS under nice -n 10 (log: $LOG)"
# Own session, so an interrupt can take down flock, make and the compilers.
setsid flock "$CPU_LOCK" nice -n 10 \
	sh -c 'echo "# fsaio: CPU lock acquired $(date +%s)"; exec "$@"' sh \
	"${MAKE[@]}" "${TARGETS[@]}" >"$LOG" 2>&1 &
mpid=$!
trap 'kill -TERM -- -$mpid 2>/dev/null; wait $mpid 2>/dev/null; exit "$EXIT_ERROR"' INT TERM
last=
while kill -0 $mpid 2>/dev/null; do
	for _ in $(seq 30); do kill -0 $mpid 2>/dev/null || break; sleep 1; done
	kill -0 $mpid 2>/dev/null || break
	if ((waiting)) && ! grep -q '^# fsaio: CPU lock acquired' "$LOG"; then
		msg "  $(( $(date +%s) - start ))s: still waiting for the CPU lock"
		continue
	fi
	if ((waiting)); then
		msg "  got the CPU lock after ~$(( $(date +%s) - start ))s"
		waiting=0
	fi
	n=$(grep -c '^ *CC ' "$LOG" || true)
	# (no such line yet is not an error: set -e with pipefail ended a cold
	# build's watcher here while make went on alone)
	cur=$(grep -E '^ *(CC|LD|AR|BTF|BTFIDS|OBJCOPY|KSYMS|GEN|AS|SYSMAP|MODPOST|HOSTCC) ' "$LOG" |
	      tail -1 | sed 's/^ *//' || true)
	[[ $cur != "$last" ]] && msg "  $(( $(date +%s) - start ))s: $n objects compiled, now: $cur"
	last=$cur
done
rc=0; wait $mpid || rc=$?
trap - INT TERM
end=$(date +%s)
acquired=$(sed -n 's/^# fsaio: CPU lock acquired \([0-9]*\)$/\1/p' "$LOG" | head -1)
acquired=${acquired:-$start}
elapsed=$((end - acquired))
waited=$((acquired - start))
if [[ $rc -ne 0 ]]; then
	first=$(grep -m1 -E 'error:|Error [0-9]+|\*\*\*' "$LOG" || true)
	msg "build FAILED after ${elapsed}s; last lines of $LOG:"
	tail -25 "$LOG" | sed 's/^/    /' >&2
	die "first error: ${first:-see $LOG}"
fi
for f in "${DONE_FILES[@]}"; do
	[[ -f $f ]] || die "make succeeded but $f is missing"
done
grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$OUT/.config" && [[ ! -s $OUT/vmlinux ]] &&
	die "vmlinux missing after build"
stale=$(stale_objects)
[[ -z $stale ]] || die "objects not rebuilt after the seed's sources were replaced: $(head -5 <<<"$stale" | tr '\n' ' ')(remove $KEYDIR and build again)"
touch "$KEYDIR/built"
release=$(cat "$OUT/include/config/kernel.release" 2>/dev/null || echo "$VERSION")
cat >"$KEYDIR/info" <<EOF
key=$KEY
version=$VERSION
release=$release
kdir=$KDIR
kind=$KIND
flavor=${FLAVOR:-none}
patches=${PATCHES[*]:-}
fragments=${FRAGS[*]##*/}
last_build_seconds=$elapsed
last_lock_wait_seconds=$waited
EOF
ln -sfn "$KEY" "$KCACHE/$LATEST"
msg "built $release in ${elapsed}s$( ((waited > 1)) && echo " (after ${waited}s waiting for the CPU lock)") ($(du -h "$BZIMAGE" | cut -f1) bzImage)"
echo "$BZIMAGE"
exit
}
