#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The boot loader's own code on a Cortex-M3: the FST-01 loader (the same
# objects, relinked for 8 KiB of RAM) on QEMU's stm32vldiscovery, whose
# STM32F100 model has no RCC, USB or unique-ID registers (reads of the
# first return 0: every clock wait times out, the loader's fallbacks run).
#   1. With neug.img behind it, the loader checks the image (SHA-256 of the
#      whole image in the loader's code) and jumps to its reset handler.
#   2. With another board's image (blue-pill's neug.img, intact) it stays
#      out of the application, as without an image (below): the loader
#      compares the trailer's board with its own.
#   3. Without an image it stays out of the application and sets DFU mode
#      up: it reads the unique ID for the serial number, which this model
#      lacks (a bus fault at 0x1FFFF7E8), and the fault goes to the
#      loader's own HardFault entry in its flash vector table (0xC): the
#      loader enables no exception and has no other table.
# Prints PASS/FAIL lines; run from the repository root (tests/firmware/check.sh).
set -u
cd "$(dirname "$0")/../.."
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
log=build/test-logs/firmware-loader.log
elf=build/firmware/qemu/loader-vl.elf img=build/firmware/fst-01/neug.img bp=build/firmware/blue-pill/neug.img
if ! make --no-print-directory $elf $img $bp >"$log" 2>&1; then
	echo "FAIL: loader on QEMU: build $elf and $img (see $log)"
	exit 0
fi
arm-none-eabi-objcopy -O binary -j .text $elf "$T/loader.bin"
kb=$(sed -n 's/^#define NG_LOADER_KB \([0-9]*\).*/\1/p' boot/layout.h)
app=$((0x08000000 + kb * 1024))
# run FLASH-CONTENT...: the 128 KiB flash (erased: 0xFF) with the files one
# after the other from 0x08000000; QEMU's log of translated blocks and
# exceptions in $T/q.log
run() {
	head -c $((128 * 1024)) /dev/zero | tr '\0' '\377' >"$T/flash"
	cat "$@" | dd of="$T/flash" conv=notrunc status=none
	rm -f "$T/q.log"
	timeout 10 qemu-system-arm -M stm32vldiscovery -nographic -monitor none -serial none \
		-kernel "$T/flash" -d in_asm,int -D "$T/q.log" >/dev/null 2>&1
}
entry=$(od -An -tu4 -j4 -N4 "$img" | tr -d ' ')
entry=$(printf '0x%08x' $((entry & ~1)))
# the addresses of the code QEMU translated, at or above the application's base
in_app() { grep -oE '^0x[0-9a-f]{8}' "$T/q.log" | sort -u | while read -r a; do [ $((a)) -ge $app ] && echo "$a"; done; }
head -c $((kb * 1024 - $(stat -c %s "$T/loader.bin"))) /dev/zero | tr '\0' '\377' >"$T/pad"
run "$T/loader.bin" "$T/pad" "$img"
if grep -q "^$entry:" "$T/q.log"; then
	echo "PASS: loader on QEMU: the FST-01 image checked and started (its reset handler at $entry ran)"
else
	echo "FAIL: loader on QEMU: the application's reset handler ($entry) never ran"
	grep -v '^0x\|^IN\|^$\|^--' "$T/q.log" | head -n 8 | sed 's/^/# /'
fi
run "$T/loader.bin" "$T/pad" "$bp"
uid=$(grep -c 'fault address 0x1ffff7e8' "$T/q.log")
if [ -s "$T/q.log" ] && [ -z "$(in_app)" ] && [ "$uid" -gt 0 ]; then
	echo "PASS: loader on QEMU: blue-pill's intact image behind the FST-01 loader: not started, DFU mode set up (its unique-ID read)"
else
	echo "FAIL: loader on QEMU: blue-pill's image: code above $(printf %#x $app) ran: $(in_app | head -n 1); unique-ID reads $uid"
fi
run "$T/loader.bin"
uid=$(grep -c 'fault address 0x1ffff7e8' "$T/q.log")
hf=$(grep -c 'element 3 of non-secure vector table at 0xc$' "$T/q.log")
if [ -s "$T/q.log" ] && [ -z "$(in_app)" ] && [ "$uid" -gt 0 ] && [ "$hf" -gt 0 ]; then
	echo "PASS: loader on QEMU: no image: DFU mode set up (its unique-ID read), the fault through the loader's own HardFault entry"
else
	echo "FAIL: loader on QEMU: no image: code above $(printf %#x $app) ran: $(in_app | head -n 1); unique-ID reads $uid, HardFault entries from 0xc $hf"
	grep -v '^0x\|^IN\|^$\|^--' "$T/q.log" | head -n 8 | sed 's/^/# /'
fi

# 3. With an owner key in the slot (the loader's last 64 bytes: "NGKEY1\0\0"
#    and the public key): Ed25519 verification on the Cortex-M3. An image
#    signed by the key starts; with the identity (a point of small order)
#    in the slot, an image forged for it (R = the identity, S = 0, which
#    every lenient verifier accepts for any image) does not.
hexbytes() { printf "$(printf '%s' "$1" | sed 's/../\\x&/g')"; }
slot() { # key file -> the flash with the key slot written
	{ printf 'NGKEY1\0\0'; cat "$1"; } | dd of="$T/flash" bs=1 seek=$((kb * 1024 - 64)) conv=notrunc status=none
}
run_keyed() { # key file, image
	head -c $((128 * 1024)) /dev/zero | tr '\0' '\377' >"$T/flash"
	cat "$T/loader.bin" "$T/pad" "$2" | dd of="$T/flash" conv=notrunc status=none
	slot "$1"
	rm -f "$T/q.log"
	timeout 10 qemu-system-arm -M stm32vldiscovery -nographic -monitor none -serial none \
		-kernel "$T/flash" -d in_asm,int -D "$T/q.log" >/dev/null 2>&1
}
key=tests/data/keys/test-owner.key
if ! make --no-print-directory build/neug >>"$log" 2>&1 ||
	! build/neug sign --key "$key" --board fst-01 -o "$T/signed.img" build/firmware/fst-01/neug.bin >>"$log" 2>&1; then
	echo "FAIL: loader on QEMU: sign neug.bin with $key (see $log)"
	exit 0
fi
run_keyed "$key.pub" "$T/signed.img"
if grep -q "^$entry:" "$T/q.log"; then
	echo "PASS: loader on QEMU: owner key in the slot, an image it signed: the signature verified, the image started"
else
	echo "FAIL: loader on QEMU: owner key in the slot: the signed image's reset handler ($entry) never ran"
fi
# The forgery: the trailer's key id = SHA-256(identity)'s first 8 bytes,
# its check word redone, the signature 01 00..00 || 0.
hexbytes 0100000000000000000000000000000000000000000000000000000000000000 >"$T/id.pub"
tr=$(($(stat -c %s "$T/signed.img") - 192))
cp "$T/signed.img" "$T/forged.img"
hexbytes "$(sha256sum <"$T/id.pub" | cut -c1-16)" | dd of="$T/forged.img" bs=1 seek=$((tr + 108)) conv=notrunc status=none
hexbytes "$(head -c $((tr + 120)) "$T/forged.img" | tail -c 120 | sha256sum | cut -c1-8)" |
	dd of="$T/forged.img" bs=1 seek=$((tr + 120)) conv=notrunc status=none
{ printf '\1'; head -c 63 /dev/zero; } | dd of="$T/forged.img" bs=1 seek=$((tr + 124)) conv=notrunc status=none
if command -v openssl >/dev/null; then
	{ printf '\x30\x2a\x30\x05\x06\x03\x2b\x65\x70\x03\x21\x00'; cat "$T/id.pub"; } >"$T/id.der"
	head -c $((tr + 124)) "$T/forged.img" >"$T/msg"
	tail -c $((192 - 124)) "$T/forged.img" | head -c 64 >"$T/sig"
	if openssl pkeyutl -verify -pubin -keyform DER -inkey "$T/id.der" -rawin -in "$T/msg" \
		-sigfile "$T/sig" >/dev/null 2>&1; then
		echo "PASS: loader on QEMU: the forged image's signature verifies in OpenSSL (the forgery is right)"
	else
		echo "FAIL: loader on QEMU: OpenSSL does not accept the forged signature (the test's forgery is wrong)"
	fi
fi
run_keyed "$T/id.pub" "$T/forged.img"
if [ -s "$T/q.log" ] && [ -z "$(in_app)" ]; then
	echo "PASS: loader on QEMU: the identity in the key slot, the image forged for it (R = identity, S = 0): not started"
else
	echo "FAIL: loader on QEMU: the identity in the key slot: code of the forged image ran ($(in_app | head -n 1))"
fi
