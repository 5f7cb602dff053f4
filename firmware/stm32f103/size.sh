#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Prints the firmware size table and fails when an image does not fit its
# board (the linker already refuses overflow; this is the readable summary).
# The last column is the SHA-256 of the image (neug.img without its
# 192-byte trailer: neug.bin padded to a multiple of 4), the digest the
# trailer carries.
#   firmware/stm32f103/size.sh BOARD...
set -u
cd "$(dirname "$0")/../.."
rc=0
printf '%-18s %8s %8s %8s %9s %9s  %s\n' board text data bss flash/KiB ram/KiB 'sha256 (image)'
for b in "$@"; do
	h=firmware/stm32f103/boards/$b.h elf=build/firmware/$b/neug.elf
	fk=$(sed -n 's/^#define NG_BOARD_FLASH_KB *\([0-9]*\).*/\1/p' "$h")
	rk=$(sed -n 's/^#define NG_BOARD_RAM_KB *\([0-9]*\).*/\1/p' "$h")
	read -r text data bss _ < <(arm-none-eabi-size "$elf" | tail -n 1)
	stack=$(arm-none-eabi-nm "$elf" | awk '$3 == "NG_STACK_SIZE" { print $1 }')
	stack=$((16#${stack:-0}))
	flash=$((text + data)) ram=$((data + bss + ${stack:-0}))
	img=build/firmware/$b/neug.img sum=-
	if [ -f "$img" ]; then
		sum=$(head -c $(($(stat -c %s "$img") - 192)) "$img" | sha256sum | cut -c1-64)
	fi
	awk -v b="$b" -v t="$text" -v d="$data" -v s="$bss" -v f="$flash" -v r="$ram" \
		-v fk="$fk" -v rk="$rk" -v h="$sum" 'BEGIN { printf "%-18s %8d %8d %8d %5.1f/%-3d %5.1f/%-3d  %s\n",
			b, t, d, s, f / 1024, fk, r / 1024, rk, h }'
	if [ "$flash" -gt $((fk * 1024)) ] || [ "$ram" -gt $((rk * 1024)) ]; then
		echo "size.sh: $elf does not fit $b ($fk KiB flash, $rk KiB RAM)" >&2
		rc=1
	fi
done
echo "(ram includes the ${stack:-0}-byte reserved stack)"
# The boot loader (every board; its area is the first NG_LOADER_KB KiB,
# boot/layout.h, with the 64-byte owner key slot at the end): its size,
# loader + the floor's page + neug.img against the board, and loader.bin's SHA-256.
kb=$(sed -n 's/^#define NG_LOADER_KB *\([0-9]*\).*/\1/p' boot/layout.h)
area=$((kb * 1024))
floor=$(sed -n 's/^#define NG_FLOOR_KB *\([0-9]*\).*/\1/p' boot/layout.h)
floor=$((${floor:-0} * 1024)) # the version floor's page at the end of flash
printf '\n%-18s %8s %10s %12s  %s\n' board loader loader/KiB 'with img/KiB' 'sha256 (loader.bin)'
for b in "$@"; do
	h=firmware/stm32f103/boards/$b.h elf=build/firmware/$b/loader.elf
	fk=$(sed -n 's/^#define NG_BOARD_FLASH_KB *\([0-9]*\).*/\1/p' "$h")
	read -r text data _ < <(arm-none-eabi-size "$elf" | tail -n 1)
	img=$(stat -c %s build/firmware/$b/neug.img 2>/dev/null || echo 0)
	sum=$(sha256sum < build/firmware/$b/loader.bin | cut -c1-64)
	awk -v b="$b" -v l=$((text + data)) -v i="$img" -v fk="$fk" -v h="$sum" -v kb="$kb" -v fl="$floor" 'BEGIN {
		printf "%-18s %8d %5.1f/%-4d %6.1f/%-3d  %s\n", b, l, l / 1024, kb, (kb * 1024 + fl + i) / 1024, fk, h }'
	if [ "$text" -gt $((area - 64)) ] || [ $((area + floor + img)) -gt $((fk * 1024)) ]; then
		echo "size.sh: the loader and neug.img do not fit $b" >&2
		rc=1
	fi
done
exit $rc
