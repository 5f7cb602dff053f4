#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the guest initramfs for tests/guest/check.sh:
#   tests/guest/mkinitramfs.sh KVER NEUG NGCTL VECTORS OUT.cpio.gz [EXTRA_BIN...]
# Contents: static busybox (/bin), the guest /init (tests/guest/init.sh), the
# kernel modules for vhci-hcd, cdc-acm, usb-storage, sd_mod, vfat (dependencies
# from the kernel's modules.dep, plus the softdeps it does not list), the usbip
# tool, rngtest, neug and each EXTRA_BIN (in /usr/bin) with their shared
# libraries, the static ngctl, the golden vectors and the GPLv3 text
# (/ref/COPYING), and the files of the directory $NG_INITRAMFS_DATA (if
# set) in /data (test images for the update checks).
# Rebuilt only when an input changed (a stamp with the inputs' checksums).
set -eu
kver=$1 neug=$2 ngctl=$3 vectors=$4 out=$5
shift 5
extra=("$@")
mods=/lib/modules/$kver
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

want_mods=(usbip-core vhci-hcd cdc-acm crct10dif_generic crc64_rocksoft_generic
	sd_mod usb-storage fat vfat nls_cp437 nls_ascii nls_iso8859-1 nls_utf8)
libs_of() { ldd "$1" | awk '/=> \//{print $3} /^[ \t]*\/lib/{print $1}'; }
bins=(/bin/busybox /usr/sbin/usbip /usr/bin/rngtest "$neug" "$ngctl" "${extra[@]}")

# Inputs that decide the image: the scripts, binaries, vectors, module list.
stamp_now=$( {
	echo "$kver ${want_mods[*]}"
	sha256sum "$here/init.sh" "$0" "${bins[@]}" "$top/COPYING"
	sha256sum "$vectors"/*.bin
	[ -n "${NG_INITRAMFS_DATA:-}" ] && (cd "$NG_INITRAMFS_DATA" && sha256sum * 2>/dev/null)
} | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ -f "$out.stamp" ] && [ "$(cat "$out.stamp")" = "$stamp_now" ]; then
	echo "# initramfs up to date: $out"
	exit 0
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/ng-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,proc,sys,dev,tmp,mnt,var/run,etc,ref,vectors,lib/modules}

# Module load order: depth-first over modules.dep, dependencies first.
declare -A seen=()
order=()
path_of() { # module name (- or _) -> path relative to $mods
	local n=${1//-/[-_]}
	grep -E "(^|/)${n}\.ko(\.[a-z]+)?:" "$mods/modules.dep" | head -1 | cut -d: -f1
}
add_mod() { # relative path
	local p=$1 d deps
	[ -n "${seen[$p]:-}" ] && return 0
	seen[$p]=1
	deps=$(grep -E "^${p//./\\.}:" "$mods/modules.dep" | cut -d: -f2)
	# modules.dep lists the nearest dependency first; load the farthest first
	for d in $(echo $deps | tr ' ' '\n' | tac); do add_mod "$d"; done
	order+=("$p")
}
for m in "${want_mods[@]}"; do
	p=$(path_of "$m")
	[ -n "$p" ] || { echo "mkinitramfs: module $m not found in $mods/modules.dep" >&2; exit 1; }
	add_mod "$p"
done
for p in "${order[@]}"; do
	mkdir -p "$root/lib/modules/$(dirname "$p")"
	cp "$mods/$p" "$root/lib/modules/$p"
	echo "$p"
done >"$root/etc/modules.order"

cp /bin/busybox "$root/bin/busybox"
cp /usr/sbin/usbip "$root/usr/sbin/usbip"
cp /usr/bin/rngtest "$root/usr/bin/rngtest"
cp "$neug" "$root/usr/bin/neug"
cp "$ngctl" "$root/usr/bin/ngctl"
for b in "${extra[@]}"; do
	cp "$b" "$root/usr/bin/$(basename "$b")"
	chmod 755 "$root/usr/bin/$(basename "$b")"
done
for b in /usr/sbin/usbip /usr/bin/rngtest "$neug" "${extra[@]}"; do
	for l in $(libs_of "$b"); do
		mkdir -p "$root$(dirname "$l")"
		cp -L "$l" "$root$l"
	done
done
[ -f /usr/share/misc/usb.ids ] && mkdir -p "$root/usr/share/misc" && cp /usr/share/misc/usb.ids "$root/usr/share/misc/"
cp "$vectors"/*.bin "$root/vectors/"
if [ -n "${NG_INITRAMFS_DATA:-}" ]; then
	mkdir -p "$root/data"
	cp "$NG_INITRAMFS_DATA"/* "$root/data/"
fi
cp "$top/COPYING" "$root/ref/COPYING"
cp "$here/init.sh" "$root/init"
chmod 755 "$root/init" "$root/usr/bin/neug" "$root/usr/bin/ngctl"

mkdir -p "$(dirname "$out")"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
echo "$stamp_now" >"$out.stamp"
echo "# initramfs built: $out ($(du -k "$out" | cut -f1) kB, ${#order[@]} modules)"
