#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# core/ is freestanding: every core/src/*.c compiles with -ffreestanding
# -Werror and links with -nostdlib into core/freestanding/stub.c (which
# supplies only mem*; libgcc is linked), and the stub runs ng_selftest() and
# exits 0; and it compiles for Cortex-M3 with arm-none-eabi-gcc, needing
# nothing but mem* and libgcc.
set -u
cd "$(dirname "$0")/../.."
log=build/test-logs/core-freestanding.build.log
mkdir -p build/test-logs
if make --no-print-directory build/freestanding/core-host.elf >"$log" 2>&1; then
	echo "PASS: core/src/*.c links with -ffreestanding -nostdlib (host gcc, stub supplies only mem*)"
	if ./build/freestanding/core-host.elf; then
		echo "PASS: the freestanding stub runs ng_selftest() and exits 0"
	else
		echo "FAIL: the freestanding stub exited with status $?"
	fi
else
	echo "FAIL: freestanding host link (see $log)"; tail -20 "$log"
fi
if ! command -v arm-none-eabi-gcc >/dev/null; then
	echo "SKIP: core for Cortex-M3 (arm-none-eabi-gcc not installed)"
	exit 0
fi
if make --no-print-directory build/freestanding/core-arm.o >>"$log" 2>&1; then
	echo "PASS: core/src/*.c compiles with arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -Os -ffreestanding -Werror"
	# libgcc's helpers (__aeabi_*: soft-float doubles for the APT cutoff) are
	# the compiler's own runtime, not libc.
	und=$(arm-none-eabi-nm -u build/freestanding/core-arm.o | awk '{print $2}' |
		grep -Ev '^(memcpy|memmove|memset|memcmp|__aeabi_[a-z0-9]+)$' | tr '\n' ' ')
	if [ -z "$und" ]; then
		echo "PASS: the Cortex-M3 objects need no symbol but mem* and libgcc's __aeabi_*"
	else
		echo "FAIL: the Cortex-M3 objects need: $und"
	fi
else
	echo "FAIL: Cortex-M3 build (see $log)"; tail -20 "$log"
fi
