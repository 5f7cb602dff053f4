#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make check-system: a Debian bookworm guest (mmdebstrap: systemd, udev, kmod,
# rng-tools5, usbip, socat) booted with systemd under QEMU (TCG) on the host's
# Debian kernel and its modules. Inside (guest-test.sh): our package
# (build/deb/neug_*.deb, `make deb`, lintian-clean) installed with apt-get; neug emulate +
# usbip attach, udev's /dev/neug and neug-feed@ttyACMn, the sandbox's
# exposure scores (systemd-analyze security) and the services working in it,
# the journal, the pool's intake, neug info, rngd and rngtest on /dev/neug,
# detach/re-attach, the socket-activated neug-egd in the guest; then apt-get
# remove and purge leaving nothing behind; a board plugged in before the
# install (the postinst's udevadm trigger); an upgrade from the previous
# package (this one repacked as VERSION~prev) with the services running. And virtio-rng backed by
# `neug egd` on this host via QEMU's rng-egd. The Debian root is cached under build/system/ (mkbase.sh,
# about 30 s with the mirror); the disk image is rebuilt when an input changes.
# SKIPs (with the reason) without root, QEMU, a kernel, mmdebstrap or the
# mirror; NG_CHECK_SYSTEM=0 skips it on purpose.
set -u
cd "$(dirname "$0")/../.."
skip() { echo "SKIP: system: $*"; exit 0; }
[ "${NG_CHECK_SYSTEM:-}" = 0 ] && skip "NG_CHECK_SYSTEM=0"
[ "$(id -u)" = 0 ] || skip "needs root (mmdebstrap --mode=root, depmod into the image)"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (qemu-system-x86)"
command -v mke2fs >/dev/null || skip "mke2fs not installed (e2fsprogs)"
kver=${KVER:-$(ls /boot/vmlinuz-* 2>/dev/null | sed 's|.*/vmlinuz-||' | sort -V | tail -1)}
[ -n "$kver" ] && [ -r "/boot/vmlinuz-$kver" ] || skip "no /boot/vmlinuz-* (linux-image-amd64)"
[ -r "/boot/initrd.img-$kver" ] || skip "no /boot/initrd.img-$kver"
[ -d "/lib/modules/$kver" ] || skip "no /lib/modules/$kver"
[ -x build/neug ] || { echo "FAIL: system: build/neug missing (make tests)"; exit 1; }
build/neug emulate --help 2>&1 | grep -q '^Usage: neug emulate' || skip "this build has no neug emulate yet"
command -v dh >/dev/null && command -v dpkg-buildpackage >/dev/null || skip "debhelper/dpkg-dev not installed (make deb)"
dpkg-checkbuilddeps >/dev/null 2>&1 || skip "the package's build dependencies: $(dpkg-checkbuilddeps 2>&1 | sed 's/.*Unmet/Unmet/')"
out=build/system
mkdir -p "$out"
t0=$SECONDS
if ! bash tests/system/mkbase.sh >"$out/mkbase.log" 2>&1; then
	if ! command -v mmdebstrap >/dev/null; then skip "mmdebstrap not installed"; fi
	if grep -qiE 'could not resolve|temporary failure|unable to connect|failed to fetch|network is unreachable' "$out/mkbase.log"; then
		skip "mmdebstrap could not reach the Debian mirror ($(grep -m1 -iE 'resolve|connect|fetch|unreachable' "$out/mkbase.log"))"
	fi
	echo "FAIL: system: building the Debian root (mmdebstrap): $(tail -3 "$out/mkbase.log" | tr '\n' ' ')"
	exit 1
fi
if ! make --no-print-directory deb >"$out/deb.log" 2>&1; then   # lintian too: no error, no warning
	echo "FAIL: system: make deb: $(tail -3 "$out/deb.log" | tr '\n' ' ')"
	exit 1
fi
if grep -q 'lintian: no error, no warning' "$out/deb.log"; then
	echo "PASS: make deb: $(grep -o 'lintian: no error, no warning.*' "$out/deb.log")"
elif command -v lintian >/dev/null; then
	echo "FAIL: make deb: lintian did not report a clean result ($(tail -1 "$out/deb.log"))"
else
	echo "SKIP: lintian not installed"
fi
deb=$(ls build/deb/neug_*_"$(dpkg --print-architecture)".deb 2>/dev/null | tail -1)
[ -f "$deb" ] || { echo "FAIL: system: no build/deb/neug_*.deb after make deb"; exit 1; }
echo "# $(tail -1 "$out/deb.log")"
# The previous package for the upgrade test: this one repacked with a lower
# version (VERSION~prev) and its neug one byte longer (an ELF runs with a
# byte after its end), so that a process on the old binary and one on the
# new can be told apart by checksum. The maintainer scripts that run in an
# upgrade are the old prerm and postrm (unchanged in this package since
# 0.1.0: stop on remove only, daemon-reload) and the new preinst and
# postinst, so the repack upgrades as 0.1.0 would.
ver=$(dpkg-deb -f "$deb" Version)
prev=$out/prev
rm -rf "$prev"
mkdir -p "$prev/deb"
dpkg-deb -R "$deb" "$prev/root"
sed -i "s/^Version: .*/Version: $ver~prev/" "$prev/root/DEBIAN/control"
printf '\n' >>"$prev/root/usr/bin/neug"
(cd "$prev/root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | sort |
	xargs md5sum) >"$prev/root/DEBIAN/md5sums"
if ! dpkg-deb --root-owner-group -b "$prev/root" "$prev/deb/neug_${ver}~prev_$(dpkg --print-architecture).deb" >"$out/prev.log" 2>&1; then
	echo "FAIL: system: repacking the previous package: $(tail -2 "$out/prev.log" | tr '\n' ' ')"
	exit 1
fi
prevdeb=$(ls "$prev"/deb/*.deb)
if ! bash tests/system/mkimage.sh "$kver" "$out/disk.img" "$deb" "$prevdeb" >"$out/mkimage.log" 2>&1; then
	echo "FAIL: system: building the disk image: $(tail -3 "$out/mkimage.log" | tr '\n' ' ')"
	exit 1
fi
echo "# $(tail -1 "$out/mkimage.log"); $((SECONDS - t0)) s so far"

# The host side of EGD: neug egd on a unix socket for QEMU's rng-egd.
sock=$PWD/$out/egd.sock
rm -f "$sock"
build/neug egd --listen="unix:$sock" --source="${NG_EGD_SOURCE:-jitter}" 2>"$out/egd.log" &
egd=$!
trap 'kill $egd 2>/dev/null; wait $egd 2>/dev/null' EXIT
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || { echo "FAIL: system: neug egd did not listen: $(cat "$out/egd.log")"; exit 1; }

rm -f "$out/console.log" "$out/results.log"
t1=$SECONDS
timeout --kill-after=10 "${NG_SYSTEM_TIMEOUT:-1500}" qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 1 \
	-kernel "/boot/vmlinuz-$kver" -initrd "/boot/initrd.img-$kver" \
	-append "root=/dev/vda rw console=ttyS0 quiet panic=-1 systemd.show_status=0 net.ifnames=0" \
	-drive "file=$out/disk.img,if=virtio,format=raw,snapshot=on" \
	-chardev "socket,id=egd,path=$sock" -object rng-egd,id=rng0,chardev=egd \
	-device virtio-rng-pci,rng=rng0 \
	-display none -monitor none -nic none -no-reboot \
	-serial "file:$out/console.log" -serial "file:$out/results.log" </dev/null
rc=$?
echo "# QEMU exited with $rc after $((SECONDS - t1)) s (boot and test under TCG)"
kill $egd 2>/dev/null
wait $egd 2>/dev/null
grep -E '^(PASS|FAIL|SKIP|#)' "$out/results.log" 2>/dev/null | sed 's/^\(PASS\|FAIL\|SKIP\): /\1: system: /'
if ! grep -q '^# done' "$out/results.log" 2>/dev/null; then
	echo "FAIL: system: the guest test did not finish (QEMU status $rc); console tail:"
	tail -20 "$out/console.log" | sed 's/^/#   /'
fi
served=$(grep -o 'stopped[a-zA-Z ]*: [0-9]* clients, [0-9]* requests, [0-9]* bytes served' "$out/egd.log" | tail -1)
if [ -n "$served" ] && ! echo "$served" | grep -q ' 0 bytes served'; then
	echo "PASS: system: host neug egd served the guest's rng-egd ($served)"
else
	echo "FAIL: system: host neug egd: '$served' $(tail -2 "$out/egd.log" | tr '\n' ' ')"
fi
echo "# system check: $((SECONDS - t0)) s in all"
