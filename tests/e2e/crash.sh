# SPDX-License-Identifier: GPL-2.0
# End-to-end tests of the crash-replay tier (ci/crash/; its VM run is make
# vmcrash) on the host: the dm-log-writes log reader and osync_marks's
# verifier.  Sourced by tests/e2e/run.sh (lib.sh first).

# The host has no dm-log-writes, so the log reader gets a log written here
# in the kernel's format (drivers/md/dm-log-writes.c): 512-byte sectors, one
# header sector per entry (the mark name in it), then the entry's data.
lw_le64() { local v=$1 i; for ((i = 0; i < 8; i++)); do printf '\\x%02x' $(((v >> (8 * i)) & 255)); done; }
lw_sector() { { cat; head -c 512 /dev/zero; } | head -c 512; }	# pad stdin to a sector
# lw_entry LOG SECTOR NR FLAGS [MARK|FILLCHAR]
lw_entry() {
	local mark= fill=
	(($4 & 8)) && mark=$5 || fill=${5:-}
	{ printf "$(lw_le64 "$2")$(lw_le64 "$3")$(lw_le64 "$4")$(lw_le64 ${#mark})"; printf '%s' "$mark"; } |
		lw_sector >>"$1"
	if [[ -n $fill ]]; then head -c $(($3 * 512)) /dev/zero | tr '\0' "$fill" >>"$1"; fi
}
# lw_super LOG NR_ENTRIES: the super sector (entries appended after it)
lw_super() {
	{ printf "$(lw_le64 $((0x6a736677736872)))$(lw_le64 1)$(lw_le64 "$2")"; printf '\x00\x02\x00\x00'; } | lw_sector >"$1"
}
# byte CHAR at sector S of FILE? (the first byte of the sector)
lw_at() { [[ $(dd if="$1" bs=512 skip="$2" count=1 2>/dev/null | head -c 1 | od -An -c | tr -d ' ') == "$3" ]]; }

t_crash_lw_replay() {
	local R=.output/crash/lw-replay d=$WORK/lw out rc
	[[ -x $R ]] || fail "$R not built"
	mkdir -p "$d"
	# W A@0, W B@8, FLUSH, mark m1, FUA C@16, W D@24 (no flush after it),
	# mark m2, DISCARD 0..8, FLUSH, mark m3
	lw_super "$d/log" 10
	lw_entry "$d/log" 0 8 0 A; lw_entry "$d/log" 8 8 0 B; lw_entry "$d/log" 0 0 1
	lw_entry "$d/log" 0 0 8 m1; lw_entry "$d/log" 16 8 2 C; lw_entry "$d/log" 24 8 0 D
	lw_entry "$d/log" 0 0 8 m2; lw_entry "$d/log" 0 8 4; lw_entry "$d/log" 0 0 1
	lw_entry "$d/log" 0 0 8 m3
	out=$($R -l "$d/log" --list) || fail "--list: $out"
	[[ $(grep -c . <<<"$out") -eq 11 && $out == *"6 MARK m2"* && $out == *"4 FUA sector 16 nr 8"* ]] ||
		fail "--list: $out"
	truncate -s 32K "$d/base"
	out=$($R -l "$d/log" -b "$d/base" -c "$d/copy" -m m1) || fail "m1: $out"
	[[ $out == *"entry=3 flush=2 base=3 fua_tail=0 dropped=0" ]] || fail "m1: $out"
	lw_at "$d/copy" 0 A && lw_at "$d/copy" 8 B && lw_at "$d/copy" 16 '\0' || fail "m1 image wrong"
	# m2: the FUA write is on disk, the plain one still in the volatile cache
	out=$($R -l "$d/log" -b "$d/base" -c "$d/copy" -m m2) || fail "m2: $out"
	[[ $out == *"entry=6 flush=2 base=3 fua_tail=1 dropped=1" ]] || fail "m2: $out"
	lw_at "$d/copy" 16 C && lw_at "$d/copy" 24 '\0' && ! lw_at "$d/base" 16 C || fail "m2 image wrong"
	out=$($R -l "$d/log" -b "$d/base" -c "$d/copy" -m m3) || fail "m3: $out"
	[[ $out == *"entry=9 flush=8 base=9 fua_tail=0 dropped=0" ]] || fail "m3: $out"
	lw_at "$d/copy" 0 '\0' && lw_at "$d/copy" 8 B && lw_at "$d/copy" 24 D || fail "m3 image wrong (discard, D)"
	# marks out of order, unknown marks and bad logs: errors, not verdicts
	out=$($R -l "$d/log" -b "$d/base" -c "$d/copy" -m m1 2>&1); rc=$?
	[[ $rc -eq $EXIT_ERROR && $out == *"log order"* ]] || fail "out of order: rc=$rc $out"
	out=$($R -l "$d/log" -b "$d/base" -c "$d/copy" -m nosuch 2>&1); rc=$?
	[[ $rc -eq $EXIT_ERROR && $out == *"no mark 'nosuch'"* ]] || fail "unknown mark: rc=$rc $out"
	# without the cache model D is replayed at m2 too
	rm -f "$d/base.pos"; truncate -s 0 "$d/base"; truncate -s 32K "$d/base"
	out=$($R -l "$d/log" -b "$d/base" -c "$d/copy" -m m2 --no-cache-model) || fail "m2 full: $out"
	lw_at "$d/copy" 24 D || fail "--no-cache-model: D missing at m2"
	head -c 4096 /dev/zero >"$d/bad"
	out=$($R -l "$d/bad" --list 2>&1); rc=$?
	[[ $rc -eq $EXIT_ERROR && $out == *"not a dm-log-writes log"* ]] || fail "bad magic: rc=$rc $out"
	head -c 3000 "$d/log" >"$d/short"
	out=$($R -l "$d/short" --list 2>&1); rc=$?
	[[ $rc -eq $EXIT_ERROR && $out == *"truncated"* ]] || fail "truncated log: rc=$rc $out"
	$R >/dev/null 2>&1; rc=$?
	[[ $rc -eq $EXIT_USAGE ]] || fail "no arguments: rc=$rc"
}
TESTS+=(t_crash_lw_replay)

# osync_marks's verifier on a file it wrote (kept, -K), then damaged: a
# lost, a torn and a stale block must each be named with the mark.
t_crash_verify() {
	local W=.output/workloads/osync_marks d=$WORK/om out rc f
	mkdir -p "$d"
	out=$($W -d "$d" -n 16 -q 4 -K -M "$d/m.txt") || fail "write: $out"
	out=$($W -d "$d" -V "$d/m.txt" -k ack0007) || fail "verify intact: $out"
	[[ $out == *"acked=8 ok=8 missing=0 stale=0 torn=0"* ]] || fail "verify intact: $out"
	f=$(awk '$1 == "file" { print $2 }' "$d/m.txt")
	w() { awk -v s="$1" '$1 == "ack" && $2 == s { print $3 }' "$d/m.txt"; }	# write acked as SEQ
	# seq 1 -> zeros, seq 2 -> one byte off, seq 3 -> the block of seq 0
	dd if=/dev/zero of="$d/$f" bs=64K seek="$(w 1)" count=1 conv=notrunc status=none
	printf 'X' | dd of="$d/$f" bs=1 seek=$(($(w 2) * 65536 + 100)) conv=notrunc status=none
	dd if="$d/$f" of="$d/$f" bs=4K skip=$(($(w 0) * 16)) seek=$(($(w 3) * 16)) count=1 conv=notrunc status=none
	out=$($W -d "$d" -V "$d/m.txt" -k ack0007); rc=$?
	[[ $rc -eq $EXIT_FAIL && $out == *"acked=8 ok=5 missing=1 stale=1 torn=1"* ]] || fail "damaged: rc=$rc $out"
	[[ $out == *"mark ack0007: write $(w 1) (offset $(($(w 1) * 65536))) missing"* &&
	   $out == *"write $(w 3) "*"stale: holds write $(w 0) "* ]] || fail "damage not named: $out"
	# before the damage, nothing to see
	out=$($W -d "$d" -V "$d/m.txt" -k ack0000) || fail "verify up to ack0000: $out"
	out=$($W -d "$d" -V "$d/m.txt" -k nosuch 2>&1); rc=$?
	[[ $rc -eq $EXIT_USAGE ]] || fail "unknown mark: rc=$rc $out"
}
TESTS+=(t_crash_verify)
