#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# neug fips against the real rngtest (rng-tools5): the same success/failure
# and per-test counts on random (small and 20 MB), biased, stuck, repeating
# and near-the-limit poker and runs inputs.
set -u
cd "$(dirname "$0")/../.."
neug=build/neug
if ! command -v rngtest >/dev/null; then echo "SKIP: fips-rngtest (rngtest not installed: apt-get install rng-tools5)"; exit 0; fi
if ! command -v python3 >/dev/null; then echo "SKIP: fips-rngtest (python3 missing)"; exit 0; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import os, random, sys
d = sys.argv[1]
r = random.Random(20261203)
def rb(n): return bytes(r.getrandbits(8) for _ in range(n))
open(f"{d}/random.bin", "wb").write(rb(2500 * 200 + 4))
open(f"{d}/random-odd.bin", "wb").write(rb(2500 * 37 + 1234))        # trailing partial block
open(f"{d}/stuck.bin", "wb").write(b"\x55" * (2500 * 4 + 4))
# biased: P(1) = 0.51 -> monobit (and some poker/runs) failures
out = bytearray()
for _ in range(2500 * 100 + 4):
    v = 0
    for _ in range(8): v = v << 1 | (r.random() < 0.51)
    out.append(v)
open(f"{d}/biased.bin", "wb").write(bytes(out))
# random data with a repeated 32-bit word in some blocks (continuous run test)
x = bytearray(rb(2500 * 50 + 4))
for b in (3, 17, 40):
    o = 4 + b * 2500 + 100
    x[o + 4:o + 8] = x[o:o + 4]
open(f"{d}/repeat.bin", "wb").write(bytes(x))
# near the limits, where rngtest's carried run state changes the verdict:
# nibble 15 a little likelier (poker X near 46.17; rngtest adds one nibble 15
# to a block that starts with 0 after a block that ended with 1), and bits
# that repeat the last with probability 0.52 (runs near their limits; the
# run open at a block's end goes to the other bit value's table)
n = 2500 * 400 + 4
nb = r.choices(range(16), weights=[1.0] * 15 + [1.32], k=2 * n)
open(f"{d}/poker-edge.bin", "wb").write(bytes(nb[2 * i] << 4 | nb[2 * i + 1] for i in range(n)))
out, bit = bytearray(), 0
for _ in range(n):
    v = 0
    for _ in range(8):
        bit ^= r.random() >= 0.52
        v = v << 1 | bit
    out.append(v)
open(f"{d}/runs-edge.bin", "wb").write(bytes(out))
open(f"{d}/tiny.bin", "wb").write(rb(3))
open(f"{d}/short.bin", "wb").write(rb(104))
PY
# 20 MB of reproducible random data (AES-128-CTR of zeros, fixed key)
if command -v openssl >/dev/null; then
	openssl enc -aes-128-ctr -nosalt -K 000102030405060708090a0b0c0d0e0f -iv 00000000000000000000000000000000 \
		</dev/zero 2>/dev/null | head -c 20000004 >"$tmp/random-20m.bin"
fi
cp "${NG_VECTORS:-tests/data}/neug-1.0.6/adc.bin" "$tmp/adc.bin" 2>/dev/null
for f in "$tmp"/*.bin; do
	n=$(basename "$f")
	want=$(rngtest <"$f" 2>&1 | sed -n 's/^rngtest: \(bits received.*\|FIPS 140-2.*\)$/\1/p')
	wrc=$(rngtest <"$f" >/dev/null 2>&1; echo $?)
	got=$("$neug" fips "$f" | sed -n 's/^neug fips: \(bits received.*\|FIPS 140-2.*\)$/\1/p')
	grc=$("$neug" fips "$f" >/dev/null; echo $?)
	if [ "$want" = "$got" ] && [ "$wrc" = "$grc" ]; then
		echo "PASS: fips-rngtest $n: $(echo "$got" | sed -n 's/FIPS 140-2 failures: //p') failures, same counts as rngtest"
	else
		echo "FAIL: fips-rngtest $n (exit $grc vs rngtest $wrc)"; diff <(echo "$want") <(echo "$got") | sed 's/^/    /'
	fi
done
# stdin and --json
a=$("$neug" fips - <"$tmp/biased.bin" | md5sum); b=$("$neug" fips "$tmp/biased.bin" | md5sum)
[ "$a" = "$b" ] && echo "PASS: fips-rngtest stdin = file" || echo "FAIL: fips-rngtest stdin differs from file"
j=$("$neug" fips --json "$tmp/stuck.bin")
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["failures"]==4 and d["blocks"]==4 and d["continuous_run"]==4' "$j" \
	&& echo "PASS: fips-rngtest --json" || echo "FAIL: fips-rngtest --json: $j"
"$neug" fips "$tmp/missing.bin" 2>"$tmp/err"; rc=$?
[ "$rc" = 3 ] && grep -q "missing.bin" "$tmp/err" && echo "PASS: fips-rngtest unreadable file: exit 3, names the file" \
	|| echo "FAIL: fips-rngtest unreadable file (exit $rc: $(cat "$tmp/err"))"
