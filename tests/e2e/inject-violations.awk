# SPDX-License-Identifier: GPL-2.0
# Break three rules in a text event log (fsaio replay --text) of a
# one-request-per-call io_uring loop: the middle request completes twice,
# its thread sleeps in a page wait inside io_uring_enter right after, and
# the last request never completes.  Every record is renumbered (no gap:
# nothing reads as lost) and the closing record unsealed, as SystemTap's
# are (the seal covers the records as traced).
# awk -v mid=N -v last=M: the COMPLETEs (type=7) to double and to drop.
/^R type=7 / { c++ }
/^R / && $2 == "type=7" && c == last { next }
{
	if ($0 ~ /^R type=14 .* arg1=0x1 /) { sub(/ stack=[^ ]*/, " stack=0,0,0,0"); sub(/arg2=[^ ]*/, "arg2=0") }
	if ($0 ~ /^R / && $0 !~ /seq=0 /) { sub(/ seq=[0-9]+/, " seq=" ++n) }
	print
	if ($2 == "type=7" && c == mid && !done) {
		done = 1
		line = $0; sub(/seq=[0-9]+/, "seq=" ++n, line); print line
		s = $0; sub(/type=7/, "type=9", s); sub(/seq=[0-9]+/, "seq=" ++n, s)
		sub(/site=0/, "site=1", s); sub(/ctx=0/, "ctx=2", s); sub(/req=[^ ]*/, "req=0", s)
		sub(/arg0=[^ ]*/, "arg0=0x100000", s); sub(/nr_stack=0 stack=-/, "nr_stack=1 stack=0xffffffff81000000", s)
		print s
	}
}
