#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Pipeline throughput on adc.bin repeated (modes 0, 1, 2), against OpenSSL
# SHA-256 on the same number of 161-byte messages, and the ratio (goal <= 2).
set -u
cd "$(dirname "$0")/.."
vec=${NG_VECTORS:-tests/data}/neug-1.0.6/adc.bin
[ -r "$vec" ] || { echo "bench-pipeline: $vec not readable (set NG_VECTORS)"; exit 1; }
make --no-print-directory -s build/bench/pipeline_bench >/dev/null || exit 1
build/bench/pipeline_bench "$vec" "${NG_BENCH_REPEATS:-40}"
