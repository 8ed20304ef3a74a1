# SPDX-License-Identifier: GPL-2.0
# The documented background load of the host tiers (sourced by
# tests/run-all.sh and tests/load/check-load.sh), as a busy CI runner has:
# F x nproc stress-ng CPU workers and nproc I/O-mix workers (writes, reads,
# fsync, on a directory of their own under /var/tmp), all at nice 0.
#
#   load_start F     start it (dies with "stress-ng not installed" if absent)
#   load_stop        stop it and remove its directory (also from a trap)
LOADPID= LOADDIR=

load_stop() {
	if [[ -n $LOADPID ]]; then
		kill -TERM "$LOADPID" 2>/dev/null
		wait "$LOADPID" 2>/dev/null
	fi
	LOADPID=
	[[ -n $LOADDIR ]] && rm -rf "$LOADDIR"
	LOADDIR=
}

load_start() {	# load_start FACTOR
	local factor=$1 cpus
	command -v stress-ng >/dev/null || die "stress-ng not installed: ci/install-deps.sh"
	cpus=$(nproc)
	LOADDIR=$(mktemp -d /var/tmp/fsaio-load.XXXXXX) || die "mktemp failed"
	# --timeout: a stress-ng this script failed to stop ends on its own.
	stress-ng --cpu $((factor * cpus)) --iomix "$cpus" --temp-path "$LOADDIR" \
		--timeout 3h --quiet &
	LOADPID=$!
	sleep 2
	kill -0 "$LOADPID" 2>/dev/null || die "stress-ng did not start"
	msg "load: stress-ng --cpu $((factor * cpus)) --iomix $cpus on $cpus CPUs" \
	    "(load average $(cut -d' ' -f1-3 /proc/loadavg))"
}
