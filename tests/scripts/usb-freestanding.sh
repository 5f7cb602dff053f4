#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# usb/ compiles for the firmware: arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb
# -ffreestanding, -Wconversion too, and needs nothing from a C library but
# memcpy/memmove/memset/memcmp (everything else it uses is ng_* code of
# core/, boot/ (the update machine) or usb/ itself, or the generated disk image).
set -u
cd "$(dirname "$0")/../.."
if ! command -v arm-none-eabi-gcc >/dev/null; then
	echo "SKIP: usb freestanding build (arm-none-eabi-gcc missing: apt-get install gcc-arm-none-eabi)"
	exit 0
fi
out=build/usb-freestanding
mkdir -p "$out"
gen=build/gen/disk_image.c
if [ ! -f "$gen" ]; then
	make --no-print-directory "$gen" >"$out/gen.log" 2>&1 || { echo "FAIL: generating $gen (see $out/gen.log)"; exit 1; }
fi
flags=(-std=c11 -Wall -Wextra -Werror -Wconversion -Os -mcpu=cortex-m3 -mthumb -ffreestanding
	-fno-common -Icore/include -Iboot -Iusb -Ibuild/gen)
objs=()
bad=0
for src in usb/*.c "$gen"; do
	o="$out/$(basename "$src" .c).o"
	if arm-none-eabi-gcc "${flags[@]}" -c "$src" -o "$o" 2>"$o.log"; then
		objs+=("$o")
	else
		echo "FAIL: $src does not compile freestanding for Cortex-M3"; sed 's/^/    /' "$o.log" | head -20
		bad=1
	fi
done
[ "$bad" = 0 ] && echo "PASS: usb/*.c and the disk image compile with arm-none-eabi-gcc -ffreestanding -Wconversion"
[ "$bad" = 0 ] || exit 1
defined=$(arm-none-eabi-nm --defined-only -g "${objs[@]}" | awk 'NF==3{print $3}' | sort -u)
undef=$(arm-none-eabi-nm -u "${objs[@]}" | awk 'NF==2{print $2}' | sort -u)
missing=$(comm -23 <(echo "$undef") <(echo "$defined") | grep -v -E '^(memcpy|memmove|memset|memcmp)$' |
	grep -v -E '^ng_(pipeline|health|update|boot)_' || true)
if [ -z "$missing" ]; then
	echo "PASS: usb/ needs only mem* from the C library (and ng_pipeline_* from core/, ng_update_*/ng_boot_* from boot/)"
else
	echo "FAIL: usb/ needs symbols no freestanding build has: $(echo $missing)"
fi
size=$(arm-none-eabi-size -t "${objs[@]}" | awk 'END{print $1 + $2}')
echo "# usb/ + disk image: $size bytes of flash (text + data)"
# The layering rule (usb/dcd.h): only usbd.c calls the driver.
calls=$(grep -n -E '(->|\.)ops->|ng_dcd_ops' usb/*.c | grep -v '^usb/usbd.c:' | grep -v 'const ng_dcd_ops \*ops' || true)
if [ -z "$calls" ]; then
	echo "PASS: only usb/usbd.c calls the dcd ops (class drivers use ng_usbd_*)"
else
	echo "FAIL: dcd ops called outside usb/usbd.c: $calls"
fi
