#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What each of the boot loader's switches saves (firmware/module.mk,
# FW_LOADER_DEFS and FW_LOADER_LTO): the FST-01 loader built with all of
# them, then with each one left out in turn, in its own build directory
# (build/loader-flags/). Prints one line per switch: the loader's bytes
# without it and the difference; "does not build" when the loader needs it
# (the reason is in build/loader-flags/NAME.log). A figure over the area
# (NG_LOADER_KB KiB less the 64-byte key slot) is what the linker reports
# as the overflow. Slow (one LTO build per switch): not part of make check.
#   firmware/stm32f103/loader-flags.sh [BOARD]
set -u
cd "$(dirname "$0")/../.."
board=${1:-fst-01}
out=build/loader-flags
mkdir -p "$out"
defs=$(make --no-print-directory -s -p -n firmware 2>/dev/null | sed -n 's/^FW_LOADER_DEFS := //p' | head -n 1)
lto=$(make --no-print-directory -s -p -n firmware 2>/dev/null | sed -n 's/^FW_LOADER_LTO ?= //p;s/^FW_LOADER_LTO = //p' | head -n 1)
[ -n "$defs" ] && [ -n "$lto" ] || { echo "loader-flags.sh: cannot read FW_LOADER_DEFS / FW_LOADER_LTO from make" >&2; exit 1; }
area=$(($(sed -n 's/^#define NG_LOADER_KB *\([0-9]*\).*/\1/p' boot/layout.h) * 1024 - 64))
# build NAME DEFS LTO: prints the loader's bytes, or "-" when it does not build
build() {
	local d=$out/$1 log=$out/$1.log
	if make --no-print-directory -j2 B="$d" FW_LOADER_DEFS="$2" FW_LOADER_LTO="$3" \
		"$d/firmware/$board/loader.elf" >"$log" 2>&1; then
		arm-none-eabi-size "$d/firmware/$board/loader.elf" | awk 'NR == 2 { print $1 + $2 }'
	else
		local over
		over=$(sed -n "s/.*region \`FLASH' overflowed by \([0-9]*\) bytes.*/\1/p" "$log" | head -n 1)
		[ -n "$over" ] && echo $((area + over)) || echo -
	fi
}
all=$(build all "$defs" "$lto")
printf '%-34s %6s  %s\n' "the loader ($board), all switches" "$all" "(area $area bytes)"
for f in $defs $lto; do
	[ "$f" = -flto ] && continue
	n=${f#-D}; n=${n#-f}; n=${n%%=*}
	d=" $defs " l=" $lto "
	d=${d/ $f / } l=${l/ $f / }
	s=$(build "$n" "$d" "$l")
	if [ "$s" = - ]; then
		printf '%-34s %6s  %s\n' "without $f" - "does not build ($out/$n.log)"
	else
		printf '%-34s %6s  %+d\n' "without $f" "$s" $((s - all))
	fi
done
