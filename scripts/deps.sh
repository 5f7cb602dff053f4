#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the Debian 12 packages NeuG needs, idempotently: dpkg is asked
# first, and apt-get runs (with one `apt-get update`) only when something is
# missing. As a non-root user it prints the exact apt-get line instead.
#   scripts/deps.sh build   what `make` and `make run` need
#   scripts/deps.sh check   everything `make check` uses (tests, guests, firmware)
set -u
profile=${1:-build}
build_pkgs=(gcc make libc6-dev libusb-1.0-0-dev pkg-config)
check_pkgs=("${build_pkgs[@]}" libbz2-dev python3 clang libclang-rt-14-dev libssl-dev openssl coreutils
	gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm qemu-system-x86
	linux-image-amd64 busybox-static cpio usbip usb.ids rng-tools5 mtools dosfstools
	mmdebstrap e2fsprogs kmod chromium dfu-util dpkg-dev debhelper lintian bash-completion prometheus appstream man-db groff-base)
bench_pkgs=(haveged jitterentropy-rngd hyperfine time)
case $profile in
build) want=("${build_pkgs[@]}") ;;
check) want=("${check_pkgs[@]}") ;;
bench) want=("${check_pkgs[@]}" "${bench_pkgs[@]}") ;;
*) echo "usage: scripts/deps.sh build|check|bench" >&2; exit 2 ;;
esac
missing=()
for p in "${want[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	[ "$st" = installed ] || missing+=("$p")
done
[ "${#missing[@]}" = 0 ] && exit 0
line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages: ${missing[*]}" >&2
	echo "deps: run as root:  apt-get update && $line" >&2
	[ "$profile" = build ] && exit 1
	echo "deps: tests that need them will report 'skipped'." >&2
	exit 0
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || { echo "deps: apt-get update failed" >&2; exit 1; }
$line >&2 || { echo "deps: '$line' failed" >&2; exit 1; }
