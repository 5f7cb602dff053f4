#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `make check-guest`: the emulated NeuG (`neug emulate`, USB/IP) under the real
# Linux kernel's vhci-hcd, cdc_acm, usb-storage and vfat drivers, in a QEMU
# guest (Debian's /boot/vmlinuz-*, TCG; no network device: all traffic stays on
# the guest's loopback). The checks run inside the guest (tests/guest/init.sh);
# this script builds the initramfs (cached under build/guest/), boots, and
# relays the guest's PASS/FAIL lines. SKIP when QEMU or a kernel is missing.
#   env: KVER (default: newest /boot/vmlinuz-*), NG_CHECKS ("1 2 3 4 5 6 7 8 9 10 11 12"),
#        NG_VECTORS, GUEST_TIMEOUT (seconds, default 900), ACCEL (tcg|kvm)
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
for t in /bin/busybox /usr/sbin/usbip /usr/bin/rngtest /usr/bin/dfu-util /usr/bin/dfu-suffix /bin/udevadm cpio; do
	command -v "$t" >/dev/null || { echo "SKIP: guest ($t missing: see scripts/deps.sh check)"; exit 0; }
done
file /bin/busybox 2>/dev/null | grep -q 'dynamically' && { echo "SKIP: guest (/bin/busybox is not static: apt-get install busybox-static)"; exit 0; }
[ -f "$vectors/adc.bin" ] || { echo "FAIL: guest: no golden vectors in $vectors (set NG_VECTORS)"; exit 1; }

neug=${NG_GUEST_NEUG:-build/neug}
make --no-print-directory -s "$neug" build/guest/ngctl build/guest/neug-check >"$out/make.log" 2>&1 || {
	echo "FAIL: guest: building $neug, build/guest/ngctl and build/guest/neug-check"; tail -20 "$out/make.log"; exit 1; }
# The update checks' images (checks 9-11, in /data): two applications for
# the emulated board (board "emulate": its string 5 starts so), each with a
# vector table its loader accepts (SP 0x20005000, reset 0x08002409) and
# 12000 bytes of tests/data, as neug.img and .dfu (A 0.1.0, B 0.1.1, C
# 0.1.2); signed by the test owner key and by another key; one bit flipped
# and one truncated (with a fresh DFU suffix, so that dfu-util sends them
# and the board must refuse them); one for another board, one linked for
# 0x08002000, and A with the downgrade flag (Adown). Signatures are deterministic (RFC 8032), the
# other key is made once: the files, and so the initramfs, stay the same.
data=$out/data
mkdir -p "$data"
mkapp() { # name version offset [sign options...]
	local n=$1 v=$2 off=$3; shift 3
	{ printf '\000\120\000\040\011\044\000\010'; dd if="$vectors/adc.bin" bs=1000 skip="$off" count=12 2>/dev/null; } >"$data/$n.bin"
	"$neug" sign --board=emulate --version="$v" --dfu="$data/$n.dfu" -o "$data/$n.img" "$@" "$data/$n.bin" >/dev/null
}
damaged() { # file: give it a DFU suffix of its own
	dfu-suffix -v 234b -p 0001 -a "$data/$1" >/dev/null 2>&1
}
{
	[ -s "$data/other.key" ] || "$neug" keygen "$data/other.key" >/dev/null
	mkapp A 0.1.0 0 && mkapp B 0.1.1 20 && mkapp C 0.1.2 40 && mkapp Adown 0.1.0 0 --allow-downgrade &&
		mkapp Aaddr 0.1.2 0 --load-address=0x08002000 &&
		mkapp Bsigned 0.1.1 20 --key=tests/data/keys/test-owner.key &&
		mkapp Bother 0.1.1 20 --key="$data/other.key" &&
		"$neug" sign --board=fst-01 --version=0.1.1 --dfu="$data/fst01.dfu" -o "$data/fst01.img" "$data/B.bin" >/dev/null &&
		cp "$data/B.img" "$data/Bflip.img" && printf '\001' | dd of="$data/Bflip.img" bs=1 seek=3000 conv=notrunc 2>/dev/null &&
		cp "$data/Bflip.img" "$data/Bflip.dfu" && damaged Bflip.dfu &&
		head -c 8000 "$data/B.img" >"$data/Btrunc.dfu" && damaged Btrunc.dfu &&
		cp tests/data/keys/test-owner.key.pub "$data/owner.pub" && rm -f "$data"/*.bin
} || { echo "FAIL: guest: making the update checks' images in $data"; exit 1; }
export NG_INITRAMFS_DATA=$data
bash tests/guest/mkinitramfs.sh "$KVER" "$neug" build/guest/ngctl "$vectors" "$out/initramfs.cpio.gz" \
	build/guest/neug-check /usr/bin/dfu-util /bin/udevadm || {
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
timeout "${GUEST_TIMEOUT:-900}" "$qemu" "${acc[@]}" -m 512 -smp 2 -kernel "$kernel" \
	-initrd "$out/initramfs.cpio.gz" -display none -monitor none -nic none -no-reboot \
	-serial "file:$out/console.txt" -serial "file:$out/results.txt" \
	-append "console=ttyS0 quiet panic=-1 NG_CHECKS=\"${NG_CHECKS:-1 2 3 4 5 6 7 8 9 10 11 12}\"" </dev/null
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
