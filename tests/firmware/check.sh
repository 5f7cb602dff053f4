#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Firmware tests: every board image builds and fits (make firmware), the
# boot loader checks and starts an image on a Cortex-M3 (loader.sh, QEMU's
# stm32vldiscovery), and the core's self-tests, the golden vectors and the
# health tests' induced failures pass on a Cortex-M3 (qemu-system-arm -M
# mps2-an385, semihosting).
# Prints PASS/FAIL/SKIP lines; run from the repository root.
set -u
cd "$(dirname "$0")/../.."
vec=${NG_VECTORS:-tests/data}
if ! command -v arm-none-eabi-gcc >/dev/null; then
	echo "SKIP: firmware (arm-none-eabi-gcc not installed: apt-get install gcc-arm-none-eabi)"
	exit 77
fi
if [ -z "$(ls core/src/*.c 2>/dev/null)" ]; then
	echo "SKIP: firmware (core/src not there yet: nothing to build)"
	exit 77
fi
mkdir -p build/test-logs
log=build/test-logs/firmware-build.log
if ! grep -qs '^ng_status ng_neug_init' usb/*.c; then
	echo "SKIP: board images (usb/ has no ng_neug_* implementation yet)"
else
	if make --no-print-directory firmware >"$log" 2>&1; then
		echo "PASS: make firmware: every board builds and fits its flash and RAM"
		sed -n '/^board /,$p' "$log" | sed 's/^/# /'
	else
		echo "FAIL: make firmware (see $log)"
		tail -n 20 "$log" | sed 's/^/# /'
	fi
	for b in firmware/stm32f103/boards/*.h; do
		b=$(basename "$b" .h)
		for f in elf bin hex; do
			[ -s "build/firmware/$b/neug.$f" ] || echo "FAIL: build/firmware/$b/neug.$f missing"
		done
		# The vector table: initial SP at the top of the board's RAM, reset
		# handler in flash with the Thumb bit.
		if [ -s "build/firmware/$b/neug.bin" ]; then
			read -r sp rv < <(od -An -tx4 -N8 "build/firmware/$b/neug.bin")
			rk=$(sed -n 's/^#define NG_BOARD_RAM_KB *\([0-9]*\).*/\1/p' "firmware/stm32f103/boards/$b.h")
			want=$(printf '%08x' $((0x20000000 + rk * 1024)))
			if [ "$sp" = "$want" ] && [ $((0x$rv & 1)) = 1 ] && [ $((0x$rv >> 24)) = 8 ]; then
				echo "PASS: $b: vector table (SP 0x$sp, reset 0x$rv)"
			else
				echo "FAIL: $b: vector table SP 0x$sp (want 0x$want), reset 0x$rv"
			fi
		fi
	done
fi

if ! command -v qemu-system-arm >/dev/null; then
	echo "SKIP: Cortex-M3 self-tests (qemu-system-arm not installed)"
	exit 0
fi
bash tests/firmware/loader.sh
if [ ! -r "$vec/neug-1.0.6/adc.bin" ]; then
	echo "FAIL: Cortex-M3 self-tests (no vectors in $vec: tests/data is part of the repository)"
	exit 1
fi
if ! make --no-print-directory NG_VECTORS="$vec" firmware-qemu >"$log" 2>&1; then
	echo "FAIL: build the QEMU self-test image (see $log)"
	tail -n 20 "$log" | sed 's/^/# /'
	exit 1
fi
out=build/test-logs/firmware-qemu.out
timeout 120 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
	-semihosting-config enable=on,target=native -icount shift=0 \
	-kernel build/firmware/qemu/fw_selftest.elf >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" = 0 ] && grep -q '^PASS' "$out" && ! grep -q '^FAIL' "$out"; then
	echo "PASS: Cortex-M3 self-test image exited 0"
else
	echo "FAIL: Cortex-M3 self-test image exited with status $rc"
fi
