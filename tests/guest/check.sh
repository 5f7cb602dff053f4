#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `make check-guest`: the emulated NeuG (`neug emulate`, USB/IP) under the real
# Linux kernel's vhci-hcd, cdc_acm, usb-storage and vfat drivers, in a QEMU
# guest (Debian's /boot/vmlinuz-*, TCG; no network device: all traffic stays on
# the guest's loopback). The checks run inside the guest (tests/guest/init.sh);
# this script builds the initramfs (cached under build/guest/), boots, and
# relays the guest's PASS/FAIL lines. SKIP when QEMU or a kernel is missing.
#   env: KVER (default: newest /boot/vmlinuz-*), NG_CHECKS ("1 2 3 4 5 6 7 8"),
#        NG_VECTORS, GUEST_TIMEOUT (seconds, default 420), ACCEL (tcg|kvm)
set -u
cd "$(dirname "$0")/../.."
out=build/guest
mkdir -p "$out"
vectors=${NG_VECTORS:-tests/data}/neug-1.0.6

qemu=$(command -v qemu-system-x86_64) || { echo "SKIP: guest (qemu-system-x86_64 not installed: apt-get install qemu-system-x86)"; exit 0; }
if [ -z "${KVER:-}" ]; then
	k=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
	KVER=${k#/boot/vmlinuz-}
fi
kernel=/boot/vmlinuz-$KVER
[ -n "$KVER" ] && [ -r "$kernel" ] || { echo "SKIP: guest (no readable kernel image /boot/vmlinuz-*: apt-get install linux-image-amd64)"; exit 0; }
[ -f "/lib/modules/$KVER/modules.dep" ] || { echo "SKIP: guest (no /lib/modules/$KVER/modules.dep for $kernel)"; exit 0; }
for t in /bin/busybox /usr/sbin/usbip /usr/bin/rngtest cpio; do
	command -v "$t" >/dev/null || { echo "SKIP: guest ($t missing: see scripts/deps.sh check)"; exit 0; }
done
file /bin/busybox 2>/dev/null | grep -q 'dynamically' && { echo "SKIP: guest (/bin/busybox is not static: apt-get install busybox-static)"; exit 0; }
[ -f "$vectors/adc.bin" ] || { echo "FAIL: guest: no golden vectors in $vectors (set NG_VECTORS)"; exit 1; }

neug=${NG_GUEST_NEUG:-build/neug}
make --no-print-directory -s "$neug" build/guest/ngctl build/guest/neug-check >"$out/make.log" 2>&1 || {
	echo "FAIL: guest: building $neug, build/guest/ngctl and build/guest/neug-check"; tail -20 "$out/make.log"; exit 1; }
bash tests/guest/mkinitramfs.sh "$KVER" "$neug" build/guest/ngctl "$vectors" "$out/initramfs.cpio.gz" \
	build/guest/neug-check || {
	echo "FAIL: guest: building the initramfs"; exit 1; }

# KVM only where it is real hardware virtualisation (kvm_intel/kvm_amd, not
# kvm_pvm, which cannot boot the stock kernel: see doc notes); otherwise TCG.
accel=${ACCEL:-}
if [ -z "$accel" ]; then
	accel=tcg
	if [ -w /dev/kvm ] && grep -qE '^kvm_(intel|amd) ' /proc/modules 2>/dev/null && ! grep -q '^kvm_pvm ' /proc/modules 2>/dev/null; then
		accel=kvm
	fi
fi
case $accel in
kvm) acc=(-enable-kvm -cpu host) ;;
*) acc=(-accel tcg -cpu max) ;;
esac

rm -f "$out/console.txt" "$out/results.txt"
t0=$(date +%s.%N)
timeout "${GUEST_TIMEOUT:-420}" "$qemu" "${acc[@]}" -m 512 -smp 2 -kernel "$kernel" \
	-initrd "$out/initramfs.cpio.gz" -display none -monitor none -nic none -no-reboot \
	-serial "file:$out/console.txt" -serial "file:$out/results.txt" \
	-append "console=ttyS0 quiet panic=-1 NG_CHECKS=\"${NG_CHECKS:-1 2 3 4 5 6 7 8}\"" </dev/null
rc=$?
t1=$(date +%s.%N)
tr -d '\r' <"$out/results.txt" 2>/dev/null | grep -E '^(PASS|FAIL|SKIP|#)' || true
boot=$(tr -d '\r' <"$out/results.txt" 2>/dev/null | sed -n 's/^# guest \/init at \([0-9.]*\) s.*/\1/p')
printf '# qemu (%s) ran %.1f s wall; guest reached /init after %s s of uptime; exit status %d\n' \
	"$accel" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b - a}')" "${boot:-?}" "$rc"
if ! tr -d '\r' <"$out/results.txt" 2>/dev/null | grep -q '^# done'; then
	echo "FAIL: guest: the guest did not finish (status $rc; console: $out/console.txt)"
	tail -20 "$out/console.txt" 2>/dev/null | sed 's/^/# console: /'
	exit 1
fi
tr -d '\r' <"$out/results.txt" | grep -q '^FAIL' && exit 1
exit 0
