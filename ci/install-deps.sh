#!/bin/bash
# Install the Debian packages fsaio needs. Idempotent: installs only what is
# missing, so `make` targets can call it cheaply.
#   ci/install-deps.sh          host build + tests
#   ci/install-deps.sh --vm     also kernel build + QEMU tooling
set -euo pipefail

PKGS=(clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config make gcc
      libaio-dev liburing-dev libjson-c-dev libgsl-dev fio e2fsprogs util-linux kmod jq xfsprogs gnuplot-nox)
VM_PKGS=(linux-source-6.12 qemu-system-x86 busybox-static cpio bc bison flex
	 libssl-dev dwarves ccache xz-utils rsync gnuplot-nox dmsetup xfsprogs)

[[ ${1:-} == --vm ]] && PKGS+=("${VM_PKGS[@]}")

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
	echo "fsaio: missing packages: ${missing[*]}; run 'sudo $0 $*'" >&2
	exit 1
fi
echo "fsaio: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
