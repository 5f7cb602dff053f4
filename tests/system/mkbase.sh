#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds (once) the Debian bookworm root filesystem of the system-test guest
# with mmdebstrap, as a tarball cached under build/system/ (a tarball: the
# top Makefile includes every *.d under build/, and a root has many). The name
# carries a hash of this script, so a change to the package list rebuilds it.
#   tests/system/mkbase.sh            prints the tarball's path (building it if needed)
# Needs root (mmdebstrap --mode=root) and the Debian mirror of /etc/apt.
set -eu
cd "$(dirname "$0")/../.."
pkgs=systemd,systemd-sysv,udev,kmod,rng-tools5,usbip,libusb-1.0-0,libbz2-1.0,libssl3,procps,iproute2,socat
hash=$(sha256sum "$0" | cut -c1-12)
out=build/system/base-$hash.tar
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi
mkdir -p build/system
rm -rf build/system/base-*.tmp
# --variant=apt: essential + apt; systemd as init. No recommends, English only.
mmdebstrap --mode=root --format=tar --variant=apt --include="$pkgs" \
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--customize-hook='echo neug-guest > "$1/etc/hostname"' \
	--customize-hook='chroot "$1" passwd -d root' \
	--customize-hook='rm -f "$1/etc/machine-id"; touch "$1/etc/machine-id"' \
	bookworm "$out.tmp" >&2
mv "$out.tmp" "$out"
echo "$out"
