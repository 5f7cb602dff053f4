#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# neug generate replays the NeuG 1.0.6 golden vectors byte for byte in all
# three modes, and refuses (exit 4, nothing written) the dead and degraded
# sources in modes 0 and 1. Run from the repo root after `make`.
set -u
N=${NEUG:-build/neug}
V=${NG_VECTORS:-tests/data}/neug-1.0.6
UID_ARG=--uid=12345678:9abcdef0:0fedcba9
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
ok() { if eval "$2"; then pass "$1"; else fail "$1"; fi; }
[ -x "$N" ] || { echo "FAIL: $N not built"; exit 1; }
[ -f "$V/adc.bin" ] || { echo "FAIL: vectors not found in $V"; exit 1; }

sha() { sha256sum <"$1" | cut -d' ' -f1; }
for m in raw:2:adc.bin conditioned:0:out-adc-m0.bin crc32:1:out-adc-m1.bin; do
	name=${m%%:*}; rest=${m#*:}; num=${rest%%:*}; want=$V/${rest#*:}
	"$N" generate --source=file:"$V/adc.bin" "$UID_ARG" --mode="$name" >"$T/m$num.bin" 2>"$T/m$num.err"
	rc=$?
	ok "mode $num ($name) on adc.bin exits 0 (got $rc)" '[ $rc = 0 ]'
	ok "mode $num ($name) on adc.bin == ${want##*/} (cmp)" 'cmp -s "$T/m$num.bin" "$want"'
	ok "mode $num ($name) on adc.bin == ${want##*/} (sha256sum)" '[ "$(sha "$T/m$num.bin")" = "$(sha "$want")" ]'
	ok "mode $num ($name) on adc.bin: nothing on stderr" '[ ! -s "$T/m$num.err" ]'
	# The mode number is accepted too, and -o gives the same bytes.
	"$N" generate --source=file:"$V/adc.bin" "$UID_ARG" --mode="$num" -o "$T/o$num.bin" 2>/dev/null
	ok "mode $num via --mode=$num -o FILE == ${want##*/}" 'cmp -s "$T/o$num.bin" "$want"'
done

# -n stops exactly, on a block boundary or not.
"$N" generate --source=file:"$V/adc.bin" "$UID_ARG" -n 1000 >"$T/n.bin"
ok "-n 1000 writes the first 1000 bytes of out-adc-m0.bin" 'cmp -s "$T/n.bin" <(head -c 1000 "$V/out-adc-m0.bin")'
"$N" generate --source=file:"$V/adc.bin" "$UID_ARG" -n 1K --mode=crc32 >"$T/n.bin"
ok "-n 1K --mode=crc32 writes the first 1024 bytes of out-adc-m1.bin" 'cmp -s "$T/n.bin" <(head -c 1024 "$V/out-adc-m1.bin")'

for f in stuck lowbit; do
	for m in 0 1; do
		"$N" generate --source=file:"$V/$f.bin" "$UID_ARG" --mode=$m >"$T/$f$m.bin" 2>"$T/$f$m.err"
		rc=$?
		ok "$f.bin mode $m exits 4 (got $rc)" '[ $rc = 4 ]'
		ok "$f.bin mode $m writes zero bytes" '[ ! -s "$T/$f$m.bin" ]'
		ok "$f.bin mode $m: message names the test and the sample index ($(head -c 200 "$T/$f$m.err"))" \
			'grep -Eq "health test failed.*(repetition count|adaptive proportion) test.*sample index [0-9]+" "$T/$f$m.err"'
		"$N" generate --source=file:"$V/$f.bin" "$UID_ARG" --mode=$m -o "$T/out-$f$m.bin" 2>/dev/null
		rc=$?
		ok "$f.bin mode $m -o FILE exits 4 and leaves no file (nor a temporary)" \
			'[ $rc = 4 ] && [ -z "$(ls "$T" | grep "^out-$f$m")" ]'
	done
done
ok "stuck.bin: the repetition count test fires at sample index 9 with the stuck word and the counts" \
	'grep -q "repetition count test: sample 0x0fdc05d2 repeated 10 times (cutoff 10) at sample index 9" "$T/stuck0.err"'

# A source that dies after a healthy start: what was released before is a
# prefix of the healthy output (whole blocks, none containing a stuck sample),
# then exit 4; with -o nothing at all is left.
{ head -c $((5600 * 4)) "$V/adc.bin"; head -c 8000 "$V/stuck.bin"; } >"$T/dies.bin"
"$N" generate --source=file:"$T/dies.bin" "$UID_ARG" >"$T/dies.out" 2>"$T/dies.err"
rc=$?
len=$(stat -c %s "$T/dies.out")
ok "healthy then stuck: exit 4 after $len bytes ($(head -c 240 "$T/dies.err"))" \
	'[ $rc = 4 ] && grep -q "repetition count test.*sample index 56[0-9][0-9]" "$T/dies.err"'
ok "healthy then stuck: the $len bytes are whole blocks, at most the 40 healthy ones, a prefix of out-adc-m0.bin" \
	'[ $((len % 32)) = 0 ] && [ "$len" -le 1280 ] && cmp -s "$T/dies.out" <(head -c "$len" "$V/out-adc-m0.bin")'
ok "healthy then stuck: the message says how much had been output" \
	'grep -q "$len bytes had been output before it" "$T/dies.err" || { [ "$len" = 0 ] && grep -q "no output was written" "$T/dies.err"; }'
"$N" generate --source=file:"$T/dies.bin" "$UID_ARG" -o "$T/dies-o.bin" 2>/dev/null
rc=$?
ok "healthy then stuck with -o: exit 4, no file" '[ $rc = 4 ] && [ -z "$(ls "$T" | grep "^dies-o")" ]'

# Raw mode does not block on single firings, but a latched failure stops it
# as it stops every mode: stuck.bin latches in its start-up test, so not one
# byte is written and the exit is 4; with -o no file.
"$N" generate --source=file:"$V/stuck.bin" "$UID_ARG" --mode=raw >"$T/stuck2.bin" 2>"$T/stuck2.err"
rc=$?
ok "stuck.bin raw mode: exit 4 at the latch, not one byte written ($(head -c 160 "$T/stuck2.err"))" \
	'[ $rc = 4 ] && [ ! -s "$T/stuck2.bin" ] && grep -q "repetition count test" "$T/stuck2.err"'
"$N" generate --source=file:"$V/stuck.bin" "$UID_ARG" --mode=raw -o "$T/stuck3.bin" 2>/dev/null
rc=$?
ok "stuck.bin raw mode with -o: exit 4, no file" '[ $rc = 4 ] && [ ! -e "$T/stuck3.bin" ]'
# Healthy then stuck, raw mode: a prefix of the samples (whole blocks, none
# from after the latch), then exit 4.
"$N" generate --source=file:"$T/dies.bin" "$UID_ARG" --mode=raw >"$T/dies-raw.out" 2>"$T/dies-raw.err"
rc=$?
len=$(stat -c %s "$T/dies-raw.out")
ok "healthy then stuck, raw mode: exit 4 after $len bytes, a prefix of the healthy samples" \
	'[ $rc = 4 ] && [ $((len % 32)) = 0 ] && [ "$len" -le $((5600 * 4)) ] && cmp -s "$T/dies-raw.out" <(head -c "$len" "$V/adc.bin")'
# Single firings in raw mode are counted and warned about, the samples written as they are.
perl -0777 -ne 'my @w = unpack "V*", $_; @w[3000..3009] = (0x05550555) x 10; print pack "V*", @w' "$V/adc.bin" >"$T/onerun.bin"
"$N" generate --source=file:"$T/onerun.bin" "$UID_ARG" --mode=raw >"$T/onerun.out" 2>"$T/onerun.err"
rc=$?
ok "one run of 10 equal samples, raw mode: exit 0, written as they are, warned" \
	'[ $rc = 0 ] && cmp -s "$T/onerun.out" "$T/onerun.bin" && grep -q "warning: raw mode: health tests fired" "$T/onerun.err"'
exit 0
