#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A dead ADC behind a live one: NeuG's recorded samples (adc.bin) with one
# ADC's half-word held constant. The words still vary, so tests on whole
# words alone would pass them; the per-ADC streams must stop both modes that
# output conditioned data (conditioned, crc32) with exit 4, no output file,
# and a message naming the ADC, its half-word and its own cutoff. Raw mode
# (for assessment) writes the samples and warns.
set -u
cd "$(dirname "$0")/../.."
N=build/neug
V=tests/data/neug-1.0.6
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
ok() { echo "PASS: dead-adc $1"; }
no() { echo "FAIL: dead-adc $1"; }
# ADC2 (bits 16..31) stuck at full scale, as a pulled-up input with its
# sampling capacitor at VDD would read; then ADC1 stuck at mid-scale.
perl -0777 -ne 'print pack "V*", map { ($_ & 0xffff) | (0x0fff << 16) } unpack "V*", $_' "$V/adc.bin" >"$T/adc2dead.bin"
perl -0777 -ne 'print pack "V*", map { ($_ & 0xffff0000) | 0x0800 } unpack "V*", $_' "$V/adc.bin" >"$T/adc1dead.bin"
[ "$(stat -c %s "$T/adc2dead.bin")" = "$(stat -c %s "$V/adc.bin")" ] || no "test data not built"
# the words themselves still vary: the word stream alone would not fire
w=$(perl -0777 -ne 'my %h; $h{$_}++ for unpack "V*", $_; print scalar keys %h' "$T/adc2dead.bin")
[ "$w" -gt 10 ] && ok "ADC2 dead: the words still take $w distinct values" || no "distinct words: $w"
for dead in 1 2; do
	live=$((3 - dead))
	for mode in conditioned crc32; do
		"$N" generate --source=file:"$T/adc${dead}dead.bin" --mode=$mode -o "$T/out.bin" 2>"$T/err"; rc=$?
		if [ "$rc" = 4 ] && [ ! -e "$T/out.bin" ] && grep -q "ADC$dead's half-word" "$T/err" \
			&& grep -q "cutoff 31" "$T/err" && ! grep -q "ADC$live's" "$T/err"; then
			ok "ADC$dead constant, ADC$live live, mode $mode: exit 4, no output file, '$(head -n 1 "$T/err")'"
		else
			no "ADC$dead constant, mode $mode (exit $rc, output $( [ -e "$T/out.bin" ] && echo exists || echo absent)): $(cat "$T/err")"
		fi
		"$N" generate --source=file:"$T/adc${dead}dead.bin" --mode=$mode >"$T/stdout" 2>/dev/null; rc=$?
		[ "$rc" = 4 ] && [ ! -s "$T/stdout" ] && ok "ADC$dead constant, mode $mode to stdout: exit 4, not one byte" \
			|| no "ADC$dead constant, mode $mode to stdout (exit $rc, $(stat -c %s "$T/stdout") bytes)"
	done
done
# the same file with both ADCs live passes (the test data is the real thing)
"$N" generate --source=file:"$V/adc.bin" --mode=conditioned -o "$T/ok.bin" 2>"$T/err"; rc=$?
[ "$rc" = 0 ] && [ -s "$T/ok.bin" ] && ok "adc.bin itself: exit 0, $(stat -c %s "$T/ok.bin") bytes" || no "adc.bin (exit $rc): $(cat "$T/err")"
