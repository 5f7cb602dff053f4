#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every fuzz target (tests/fuzz/*.c, `make fuzz`) builds with libFuzzer and
# ASan+UBSan and runs its seed corpus and up to 2000 fresh inputs (10 s at most) without a
# finding, so that a change to a parser or a struct cannot leave a target
# broken until someone runs `make fuzz`. Long runs are `make fuzz`'s.
# Run from the repository root.
set -u
cd "$(dirname "$0")/../.."
log=build/test-logs/fuzz-smoke.log
mkdir -p build/test-logs
if ! command -v clang >/dev/null; then
	echo "SKIP: fuzz targets: clang not installed (scripts/deps.sh installs it)"
	exit 0
fi
if ! make --no-print-directory -j2 fuzz-build >"$log" 2>&1; then
	echo "FAIL: fuzz targets build (make fuzz-build; see $log)"
	exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for src in tests/fuzz/fuzz_*.c; do
	n=$(basename "$src" .c)
	mkdir -p "$T/$n"
	[ -d "tests/fuzz/corpus/$n" ] && cp tests/fuzz/corpus/"$n"/* "$T/$n"/ 2>/dev/null
	if timeout 300 "build/fuzz/$n" -runs=2000 -max_total_time=10 -seed=1 "$T/$n" >"$T/$n.log" 2>&1; then
		echo "PASS: $n: its seed corpus and up to 2000 inputs, no finding"
	else
		echo "FAIL: $n: $(grep -m1 -E 'ERROR|runtime error|fuzz target exited' "$T/$n.log")"
		tail -20 "$T/$n.log" | sed 's/^/# /'
	fi
done
