#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The built boot loader and application images (doc/firmware.md, "Updates
# over USB"): loader.bin fills the loader's area (boot/layout.h:
# NG_LOADER_KB KiB from 0x08000000) with a vector table into RAM and
# itself, an erased key slot without OWNER_KEY; the application's vector
# table right behind it; neug-full.bin = loader.bin + neug.img; the loader
# holds the flash keys and no application image does (the application never
# unlocks the flash); and the host build of the loader's boot check
# (`neug emulate --flash`) accepts the real image and refuses it with one
# bit flipped; on a 64 KiB board (blue-pill) the loader, key slot included,
# fits its area and loader plus image fit the 64 KiB, and the boot
# check accepts them in a 64 KiB flash. Run from the repo root after `make`.
set -u
N=$(pwd)/${NEUG:-build/neug}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS: loader-image: $*"; }
fail() { echo "FAIL: loader-image: $*"; rc=1; }
rc=0
[ -x "$N" ] || { echo "FAIL: loader-image: $N not built"; exit 1; }
command -v arm-none-eabi-gcc >/dev/null || { echo "SKIP: loader-image: arm-none-eabi-gcc not installed"; exit 77; }
d=build/firmware/fst-01
kb=$(sed -n 's/^#define NG_LOADER_KB \([0-9]*\).*/\1/p' boot/layout.h)
area=$((kb * 1024)) app=$((0x08000000 + kb * 1024)) slot=$((0x08000000 + kb * 1024 - 64))
[ -n "$kb" ] || { echo "FAIL: loader-image: no NG_LOADER_KB in boot/layout.h"; exit 1; }
if ! make --no-print-directory -j2 FW_SIGN_TOOL="$N" OWNER_KEY= $d/loader.bin $d/neug-full.bin \
	build/firmware/blue-pill/neug.bin build/firmware/blue-pill/neug-full.bin >"$T/log" 2>&1; then
	fail "make the fst-01 loader and images"; tail -n 20 "$T/log" | sed 's/^# /'
	exit 1
fi
word() { od -A n -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }
sp=$(word $d/loader.bin 0) pc=$(word $d/loader.bin 4)
if [ "$(stat -c %s $d/loader.bin)" = $area ] && [ $((sp)) -gt $((0x20000080)) ] && [ $((sp)) -le $((0x20005000)) ] &&
	[ $((pc & 1)) = 1 ] && [ $((pc)) -lt $slot ] && [ $((pc)) -ge $((0x08000000)) ]; then
	pass "loader.bin: $area bytes, SP $(printf %#x $sp) in RAM, reset vector $(printf %#x $pc) in the loader (Thumb)"
else
	fail "loader.bin: size $(stat -c %s $d/loader.bin), SP $(printf %#x $sp), reset $(printf %#x $pc)"
fi
if [ "$(tail -c 64 $d/loader.bin | od -A n -v -t x1 | tr -d ' \n' | tr -d f)" = "" ]; then
	pass "without OWNER_KEY the key slot ($(printf %#x $slot), 64 bytes) is erased"
else
	fail "the key slot is not erased without OWNER_KEY"
fi
sp=$(word $d/neug.bin 0) pc=$(word $d/neug.bin 4)
if [ $((sp)) -le $((0x20005000)) ] && [ $((pc)) -ge $app ] && [ $((pc & 1)) = 1 ]; then
	pass "the application is linked for $(printf %#x $app) (reset vector $(printf %#x $pc))"
else
	fail "the application's vector table: SP $(printf %#x $sp), reset $(printf %#x $pc)"
fi
if cat $d/loader.bin $d/neug.img | cmp -s - $d/neug-full.bin; then
	pass "neug-full.bin = loader.bin + neug.img"
else
	fail "neug-full.bin is not loader.bin + neug.img"
fi
has() { od -A n -t x1 -v "$1" | tr -d ' \n' | grep -q "$2"; }
# KEY1 as a literal word, or its upper half built by a MOVT (the compiler
# may derive KEY2 from KEY1: in the loader KEY2 = KEY1 + 0x88888888).
key1=23016745
movt_key1() { arm-none-eabi-objdump -d "$1" | grep -qE 'movt.*@ 0x4567$'; }
if has $d/loader.bin $key1; then
	pass "the loader holds KEY1 (PM0075 §2.3.1): it programs the flash, and the search finds it"
else
	fail "the loader does not hold KEY1 as a word: the search below would prove nothing"
fi
for b in fst-01 blue-pill; do
	if has build/firmware/$b/neug.bin $key1 || movt_key1 build/firmware/$b/neug.elf; then
		fail "$b: the application image contains KEY1"
	else
		pass "$b: the application image does not contain KEY1: it cannot unlock the flash"
	fi
done
# boot_check FLASH BOARD: the host build of the loader's boot check (neug
# emulate --flash, its loader being BOARD's) on a flash file, until it has
# said what it found (5 s at most); what it said is in $T/emu.
boot_check() {
	rm -f "$T/emu"
	"$N" emulate --usbip=127.0.0.1:$((20000 + RANDOM % 20000)) --flash="$1" --board="$2" -v >"$T/emu" 2>&1 &
	local p=$! i=0
	while [ $i -lt 50 ] && ! grep -q 'loader: image .* -> ' "$T/emu" 2>/dev/null && kill -0 $p 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
	kill $p 2>/dev/null; wait $p 2>/dev/null
}
# the host build of the boot check against the real image
head -c $((128 * 1024)) /dev/zero | tr '\0' '\377' > "$T/flash"
dd if=$d/neug-full.bin of="$T/flash" conv=notrunc status=none
cp "$T/flash" "$T/flash-keep"
boot_check "$T/flash" fst-01
if grep -q "loader: image ok -> application" "$T/emu"; then
	pass "the loader's boot check (host build) accepts the real fst-01 image"
else
	fail "the boot check refused the real image: $(head -n 2 "$T/emu")"
fi
boot_check "$T/flash-keep" maple-mini
if grep -q "loader: image for another board: fst-01 -> DFU mode" "$T/emu"; then
	pass "a maple-mini loader (host build) refuses the real fst-01 image: DFU mode"
else
	fail "a maple-mini loader did not refuse the fst-01 image: $(head -n 2 "$T/emu")"
fi
printf '\x00' | dd of="$T/flash" bs=1 seek=$((area + 20000)) conv=notrunc status=none
boot_check "$T/flash" fst-01
if grep -q "loader: image digest.*-> DFU mode\|-> DFU mode" "$T/emu"; then
	pass "one byte changed in the image: DFU mode ($(grep -o 'loader: [^>]*' "$T/emu" | head -n 1))"
else
	fail "one byte changed in the image was not refused: $(head -n 2 "$T/emu")"
fi
# a 64 KiB board: the loader and the image in its 64 KiB
bp=build/firmware/blue-pill
bl=$(arm-none-eabi-size $bp/loader.elf | awk 'NR == 2 { print $1 + $2 }')
full=$(stat -c %s $bp/neug-full.bin)
if [ "$bl" -le $((area - 64)) ] && [ "$(stat -c %s $bp/loader.bin)" = $area ] && [ "$full" -le 65536 ]; then
	pass "blue-pill: loader $bl bytes + 64-byte key slot in $kb KiB, neug-full.bin $full bytes of 65536"
else
	fail "blue-pill: loader $bl bytes, neug-full.bin $full bytes: does not fit $kb KiB / 64 KiB"
fi
head -c $((64 * 1024)) /dev/zero | tr '\0' '\377' > "$T/flash64"
dd if=$bp/neug-full.bin of="$T/flash64" conv=notrunc status=none
boot_check "$T/flash64" blue-pill
if [ "$(stat -c %s "$T/flash64")" = 65536 ] && grep -q "loader: image ok -> application" "$T/emu"; then
	pass "the loader's boot check (host build) accepts the real blue-pill image in a 64 KiB flash"
else
	fail "the boot check refused the blue-pill image in 64 KiB: $(head -n 2 "$T/emu")"
fi
# the application's linker script refuses an image whose trailer would not
# fit: relink blue-pill with its flash cut to the image and trailer (links)
# and to 4 bytes less (must fail, with the script's message)
objs=$(awk '$1 == "LOAD" && $2 ~ /\.o$/ { print $2 }' $bp/neug.map)
read -r lma size < <(arm-none-eabi-objdump -h $bp/neug.elf | awk '$2 == ".data" { print $5, $3 }')
need=$(( ((0x$lma + 0x$size + 3) & ~3) - app + 192 ))
relink() { sed "s/LENGTH = (64 - $kb - 1) \* 1K/LENGTH = $1/" $bp/memory.ld > "$T/mem.ld" &&
	arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -nostdlib -nostartfiles -Wl,--gc-sections -Lfirmware/stm32f103 \
		-T"$T/mem.ld" -o "$T/t.elf" $objs -lgcc >"$T/ld" 2>&1; }
if grep -q "LENGTH = (64 - $kb - 1) \* 1K" $bp/memory.ld && relink $need && ! relink $((need - 4)) &&
	grep -q "neug.img (the image and its 192-byte trailer) does not fit" "$T/ld"; then
	pass "blue-pill links with $need bytes of flash between the loader and the floor's page (neug.img) and fails with 4 fewer"
else
	fail "the linker script's neug.img check: need $need; $(tail -n 2 "$T/ld")"
fi
exit $rc
