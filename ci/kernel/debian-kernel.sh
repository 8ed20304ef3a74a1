#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A kernel nobody here built: Debian's own packaged kernel, for the VM tier
# (the kernel users have).  Downloads linux-image-<abi>-amd64-unsigned (what
# linux-image-amd64 depends on, or --abi), unpacks it into the cache and
# builds an initramfs that loads the modules the VM needs (virtio, 9p for
# the shared root; loop, device-mapper, null_blk and the scratch file
# systems for the suite), mounts the host's root over 9p as the built-in
# kernels do and hands over to the command line's init=.  The guest root
# is the host's, which has no /lib/modules for this kernel, so everything
# is loaded before the switch.
#
#   ci/kernel/debian-kernel.sh [--abi 6.1.0-57] [--print]
#
# Prints "VMLINUZ INITRD" (the last stdout line).  --print: only if both
# are already cached (else EXIT_FAIL).  Cache: $FSAIO_KCACHE/debian-<abi>/.
# Exit status (harness/exit_status.h): EXIT_PASS, EXIT_FAIL (--print, not
# cached), EXIT_ERROR (download or build failed), EXIT_USAGE.
set -euo pipefail
{
. "$(dirname "$0")/../lib.sh"
KCACHE=${FSAIO_KCACHE:-/var/cache/fsaio/kernels}
ABI= PRINT=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--abi) ABI=$2; shift 2 ;;
	--print) PRINT=1; shift ;;
	-h|--help) usage "$EXIT_PASS" ;;
	*) usage_error "unknown argument: $1" ;;
	esac
done
if [[ -z $ABI ]]; then
	ABI=$(apt-cache depends linux-image-amd64 2>/dev/null |
	      sed -n 's/.*Depends: linux-image-\(.*\)-amd64$/\1/p' | head -1)
	[[ -n $ABI ]] || die "cannot tell which kernel linux-image-amd64 is (apt-cache); pass --abi"
fi
[[ $ABI =~ ^[0-9]+\.[0-9]+\.[0-9]+-[0-9]+$ ]] || usage_error "--abi wants e.g. 6.1.0-57, not '$ABI'"
KREL=$ABI-amd64
DIR=$KCACHE/debian-$ABI
VMLINUZ=$DIR/root/boot/vmlinuz-$KREL
INITRD=$DIR/initrd.img
if ((PRINT)); then
	[[ -f $VMLINUZ && -f $INITRD && -f $DIR/built ]] || exit "$EXIT_FAIL"
	echo "$VMLINUZ $INITRD"
	exit "$EXIT_PASS"
fi
if [[ -f $DIR/built && -f $VMLINUZ && -f $INITRD ]]; then
	echo "$VMLINUZ $INITRD"
	exit "$EXIT_PASS"
fi
command -v busybox >/dev/null || [[ -x /bin/busybox ]] || die "busybox-static missing: ci/install-deps.sh --vm"
rm -rf "$DIR" && mkdir -p "$DIR/dl"
msg "downloading linux-image-$KREL-unsigned (Debian's packaged kernel)"
(cd "$DIR/dl" && apt-get download "linux-image-$KREL-unsigned" >/dev/null 2>&1) ||
	(cd "$DIR/dl" && apt-get update -qq && apt-get download "linux-image-$KREL-unsigned" >/dev/null 2>&1) ||
	die "apt-get download linux-image-$KREL-unsigned failed"
dpkg-deb -x "$DIR"/dl/*.deb "$DIR/root" || die "unpacking the kernel package failed"
rm -rf "$DIR/dl"
MODDIR=$DIR/root/lib/modules/$KREL
[[ -f $VMLINUZ && -d $MODDIR ]] || die "the package has no vmlinuz-$KREL or modules"
depmod -b "$DIR/root" "$KREL" || die "depmod failed"	# the package's postinst would

# The initramfs: busybox, the modules and their dependencies, /init.
IR=$DIR/initramfs
mkdir -p "$IR"/{bin,dev,proc,sys,newroot,lib/modules}
cp "$(command -v busybox || echo /bin/busybox)" "$IR/bin/busybox"
for a in sh mount umount mkdir modprobe switch_root cat sed echo sleep; do
	ln -sf busybox "$IR/bin/$a"
done
# Root over 9p first, then what the suite's disks and file systems need
# (crc32c, crc32: soft dependencies of libcrc32c and f2fs, which
# modules.dep does not list).
MODS="virtio_pci 9pnet_virtio 9p virtio_blk loop dm_mod dm_delay dm_log_writes ext4
      dm_flakey null_blk crc32c_generic crc32c_intel crc32_generic crc32_pclmul
      xfs f2fs btrfs"
# Copy only what those modules need, not the whole 300 MB tree: all of
# $MODDIR but the modules under kernel/ (so modules.order and
# modules.builtin* for depmod below), and of those only the kept ones.
keep=$(for m in $MODS; do
	f=$(modinfo -b "$DIR/root" -k "$KREL" -n "$m" 2>/dev/null) || die "module $m not in the package"
	echo "${f#$DIR/root}"
	modprobe -d "$DIR/root" -S "$KREL" --show-depends "$m" 2>/dev/null | awk '$1 == "insmod" { print $2 }' |
		sed "s|^$DIR/root||"
done | sort -u)
(cd "$DIR/root" && {
	find "lib/modules/$KREL" ! \( -path "lib/modules/$KREL/kernel/*" -name '*.ko*' \)
	while read -r f; do
		if [[ $f == "/lib/modules/$KREL/kernel/"* && ${f##*/} == *.ko* ]] &&
		   [[ -e .$f || -L .$f ]]; then
			echo "${f#/}"
		fi
	done <<<"$keep"
} | cpio -pdm --quiet "$IR") || die "copying the modules failed"
find "$IR/lib/modules/$KREL/kernel" -type d -empty -delete
depmod -b "$IR" "$KREL" || die "depmod (initramfs) failed"
echo "$MODS" | tr -s ' \n' '\n' | sed '/^$/d' >"$IR/modules"
cat >"$IR/init" <<'EOF'
#!/bin/sh
# fsaio's initramfs for a packaged kernel: load modules, mount the host's
# root over 9p read-only, run the command line's init= there.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules); do
	# null_blk: no default device; the suite makes its own in configfs
	case $m in null_blk) modprobe null_blk nr_devices=0 ;; *) modprobe "$m" ;; esac ||
		echo "fsaio-initramfs: modprobe $m failed"
done
init=/sbin/init
for a in $(cat /proc/cmdline); do case $a in init=*) init=${a#init=} ;; esac; done
mount -t 9p -o trans=virtio,version=9p2000.L,cache=loose,msize=524288,ro hostroot /newroot ||
	{ echo "fsaio-initramfs: cannot mount the host root over 9p"; sleep 2; exit 1; }
umount /proc /sys /dev
exec switch_root /newroot "$init"
EOF
chmod +x "$IR/init"
(cd "$IR" && find . | cpio -o -H newc --quiet | gzip -1) >"$INITRD.tmp" || die "cpio failed"
mv "$INITRD.tmp" "$INITRD"
rm -rf "$IR"
echo "abi=$ABI" >"$DIR/built"
msg "Debian kernel $KREL and its initramfs ($(du -h "$INITRD" | cut -f1)) in $DIR"
echo "$VMLINUZ $INITRD"
}
