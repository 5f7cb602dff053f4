#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Assembles the system-test guest's disk: the cached Debian root (mkbase.sh),
# the host kernel's modules for USB/IP, cdc-acm, usb-storage, virtio-rng,
# ext4, our Debian package (DEB, `make deb`: installed by the guest test
# itself), the golden vectors and the guest test (guest-test.sh + its unit),
# as an ext4 image made with mke2fs -d.
#   tests/system/mkimage.sh KVER OUT.img DEB [PREV.deb]
# PREV.deb: the previous package, for the upgrade test (in deb-prev/).
# Rebuilt only when an input changed (a stamp of checksums next to it).
set -eu
kver=$1 out=$2 deb=$3 prevdeb=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top"
base=$(bash tests/system/mkbase.sh)
mods=/lib/modules/$kver
vectors=${NG_VECTORS:-tests/data}
# Staging outside build/ (the top Makefile includes every *.d under build/).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ng-sysimg.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/root
stamp_now=$( {
	echo "$base $kver"
	sha256sum "$0" "$here/guest-test.sh" "$here/neug-systest.service" "$deb" $prevdeb
	sha256sum "$vectors"/neug-1.0.6/*.bin
} | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp_now" ]; then
	echo "# image up to date: $out"
	exit 0
fi
mkdir "$stage"
tar -C "$stage" -xf "$base"
# modules: the subset the tests load, then depmod for modprobe
mkdir -p "$stage/lib/modules/$kver/kernel"
for d in drivers/usb drivers/char/hw_random drivers/virtio drivers/block fs/ext4 fs/jbd2 \
	fs/mbcache.ko fs/fat fs/nls fs/autofs lib crypto drivers/scsi; do
	[ -e "$mods/kernel/$d" ] || continue
	mkdir -p "$stage/lib/modules/$kver/kernel/$(dirname "$d")"
	cp -a "$mods/kernel/$d" "$stage/lib/modules/$kver/kernel/$d"
done
cp -a "$mods"/modules.order "$mods"/modules.builtin* "$stage/lib/modules/$kver/"
depmod -b "$stage" "$kver"
# the test
mkdir -p "$stage/usr/lib/neug-systest/vectors" "$stage/usr/lib/neug-systest/deb"
cp "$deb" "$stage/usr/lib/neug-systest/deb/"
if [ -n "$prevdeb" ]; then
	mkdir -p "$stage/usr/lib/neug-systest/deb-prev"
	cp "$prevdeb" "$stage/usr/lib/neug-systest/deb-prev/"
fi
cp "$vectors"/neug-1.0.6/*.bin "$stage/usr/lib/neug-systest/vectors/"
install -m 0755 "$here/guest-test.sh" "$stage/usr/lib/neug-systest/guest-test.sh"
install -m 0644 "$here/neug-systest.service" "$stage/etc/systemd/system/neug-systest.service"
ln -sf /etc/systemd/system/neug-systest.service "$stage/etc/systemd/system/multi-user.target.wants/neug-systest.service"
# a quiet, quick boot: no getty on the console, no network wait
ln -sf /dev/null "$stage/etc/systemd/system/serial-getty@ttyS0.service"
ln -sf /dev/null "$stage/etc/systemd/system/getty@tty1.service"
ln -sf /dev/null "$stage/etc/systemd/system/rngd.service"  # started by the test, on /dev/neug
echo "/dev/vda / ext4 rw,relatime 0 1" > "$stage/etc/fstab"
size=$(( $(du -sm "$stage" | cut -f1) * 13 / 10 + 64 ))
rm -f "$out.tmp"
mke2fs -q -t ext4 -L neugroot -d "$stage" "$out.tmp" "${size}M"
mv "$out.tmp" "$out"
echo "$stamp_now" > "$out.stamp"
echo "# image built: $out (${size} MB)"
