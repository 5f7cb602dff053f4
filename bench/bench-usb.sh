#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Host cost of usb/ (bench/usb_bench.c): output rate through the whole NeuG
# device over the fake dcd next to the pipeline alone, modes 0 and 2, and the
# full-speed bulk ceiling for comparison. BENCH_BYTES sets the amount
# (default 8 MiB per measurement). Figures, not tests.
set -u
cd "$(dirname "$0")/.."
b=build/bench/usb_bench
[ -x "$b" ] || make --no-print-directory -s "$b" || { echo "bench-usb: cannot build $b"; exit 1; }
"$b" "${BENCH_BYTES:-8388608}"
