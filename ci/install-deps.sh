#!/bin/bash
# Install the Debian packages fsaio needs. Idempotent: installs only what is
# missing, so `make` targets can call it cheaply.
#   ci/install-deps.sh          host build + tests
#   ci/install-deps.sh --vm     also kernel build + QEMU tooling
#   ci/install-deps.sh --kver V also Debian's linux-source-V (make kernels
#                               KVER=V; implies --vm)
#   ci/install-deps.sh --lava   also lava-dispatcher (make lava-check; implies
#                               --vm; pulls ~140 packages, so not by default)
#   ci/install-deps.sh --check [--vm|--kver V|--lava]
#                               install nothing: say what is missing and the
#                               command that installs it (what make does)
# Exit status: EXIT_PASS, or EXIT_ERROR (5) when packages are missing and
# this is not root, or apt-get failed; EXIT_USAGE (64) for a bad argument.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config make gcc
      libaio-dev liburing-dev libfuse3-dev fuse3 libjson-c-dev libgsl-dev fio e2fsprogs util-linux kmod jq xfsprogs gnuplot-nox
      bpftrace python3-yaml stress-ng libclang-rt-dev)	# bpftrace: make bench measures fsaio trace against its one-liner
# libclang-rt-dev: clang's sanitizer and libFuzzer runtimes (only recommended
# by clang) for make fuzz and the fuzzer in make check (tests/fuzz/)
# python3-yaml: the e2e test of the LAVA verdict path (t_lava_judge)
# stress-ng: make check-load runs the host tier beside a CPU and I/O load
# f2fs-tools, btrfs-progs: ci/vm/vm-run.sh --disks f2fs,btrfs formats those
# scratch disks on the host (the guest runs the host's root, mkfs included).
VM_PKGS=(linux-source-6.12 qemu-system-x86 busybox-static cpio bc bison flex
	 libssl-dev dwarves ccache xz-utils rsync gnuplot-nox dmsetup xfsprogs
	 f2fs-tools btrfs-progs systemtap mariadb-server sysbench)
# systemtap: make stapcheck builds stap/fsaio.stp against a FLAVOR=stap kernel
# mariadb-server, sysbench: the database tier (make vmdb; the guest runs the
# host's root).  The tier starts its own servers on scratch datadirs: the
# packaged service must not start on the host (NO_START below).

CHECK=0
[[ ${1:-} == --check ]] && { CHECK=1; shift; }
case ${1:-} in
'') ;;
--vm) PKGS+=("${VM_PKGS[@]}") ;;
--lava) PKGS+=("${VM_PKGS[@]}" lava-dispatcher) ;;
--kver)
	[[ ${2:-} =~ ^[0-9]+\.[0-9]+$ ]] || usage_error "--kver wants a version such as 6.1, not '${2:-}'"
	PKGS+=("${VM_PKGS[@]}" "linux-source-$2") ;;
-h|--help) usage "$EXIT_PASS" ;;
*) usage_error "unknown argument: $1" ;;
esac

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit "$EXIT_PASS"
((CHECK)) && die "missing packages: ${missing[*]}; install them with: ci/install-deps.sh${1:+ $*}"

[[ $(id -u) -eq 0 ]] || die "missing packages: ${missing[*]}; run 'sudo $0 $*'"
msg "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || die "apt-get update failed"
# No service a package ships may start here (mariadb-server's would run on
# the host): policy-rc.d says no for the install, if nothing says so yet.
NO_START=/usr/sbin/policy-rc.d
if [[ ! -e $NO_START ]]; then
	printf '#!/bin/sh\n# ci/install-deps.sh: no service starts during its install\nexit 101\n' >"$NO_START" &&
		chmod +x "$NO_START" && trap 'rm -f "$NO_START"' EXIT
fi
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
	die "apt-get install ${missing[*]} failed"
