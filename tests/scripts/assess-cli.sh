#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# neug assess / fips / cutoffs on bad and awkward input: a missing, a
# directory and an empty input (exit 3 with the file and the reason),
# --bits too small (names the first offending sample and its offset), too
# few samples for some estimators (skipped with a reason), --words, a
# restart matrix that fails the sanity check (exit 1).
set -u
cd "$(dirname "$0")/../.."
neug=build/neug
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok() { echo "PASS: assess-cli $1"; }
no() { echo "FAIL: assess-cli $1"; }
: >"$tmp/empty.bin"
mkdir "$tmp/dir"
# a missing, a directory and an empty input: exit 3 (NG_EXIT_IO) and a
# message naming the file and the reason, for assess and for fips
for cmd in assess fips; do
	"$neug" $cmd "$tmp/empty.bin" 2>"$tmp/e"; rc=$?
	[ "$rc" = 3 ] && grep -q "empty.bin.*empty" "$tmp/e" \
		&& ok "$cmd empty file: exit 3, '$(cat "$tmp/e")'" || no "$cmd empty file (exit $rc: $(cat "$tmp/e"))"
	"$neug" $cmd /dev/null 2>"$tmp/e"; rc=$?
	[ "$rc" = 3 ] && grep -q "/dev/null.*empty" "$tmp/e" && ok "$cmd /dev/null: exit 3" || no "$cmd /dev/null (exit $rc: $(cat "$tmp/e"))"
	"$neug" $cmd "$tmp/nonexistent.bin" 2>"$tmp/e"; rc=$?
	[ "$rc" = 3 ] && grep -q "nonexistent.bin.*No such file" "$tmp/e" && ok "$cmd missing file: exit 3, '$(cat "$tmp/e")'" \
		|| no "$cmd missing file (exit $rc: $(cat "$tmp/e"))"
	"$neug" $cmd "$tmp/dir" 2>"$tmp/e"; rc=$?
	[ "$rc" = 3 ] && grep -q "dir.*Is a directory" "$tmp/e" && ok "$cmd directory: exit 3, '$(cat "$tmp/e")'" \
		|| no "$cmd directory (exit $rc: $(cat "$tmp/e"))"
done
"$neug" fips - </dev/null 2>"$tmp/e"; rc=$?
[ "$rc" = 3 ] && grep -q "empty" "$tmp/e" && ok "fips on an empty standard input: exit 3" || no "fips empty stdin (exit $rc: $(cat "$tmp/e"))"
"$neug" assess --bogus-option 2>/dev/null; a=$?; "$neug" fips 2>/dev/null; b=$?; "$neug" cutoffs 2>/dev/null; c=$?
[ "$a$b$c" = 222 ] && ok "usage errors of assess, fips, cutoffs: exit 2" || no "usage errors: exit $a, $b, $c"
printf '\x01\x02\x03\x01\x35\x02' >"$tmp/wide.bin"
"$neug" assess --bits=4 "$tmp/wide.bin" 2>"$tmp/e"; rc=$?
[ "$rc" = 3 ] && grep -q "sample 4 (offset 4) is 0x35, wider than --bits=4" "$tmp/e" && ok "--bits too small names sample 4, exit 3" || no "--bits too small (exit $rc: $(cat "$tmp/e"))"
head -c 50 /dev/urandom >"$tmp/short.bin"
"$neug" assess --json "$tmp/short.bin" >"$tmp/o" 2>"$tmp/e"; rc=$?
if [ "$rc" = 0 ] && python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); e=d["estimators"]
assert e["multi_mcw"]["original"] is None and "64" in e["multi_mcw"]["skipped"], e["multi_mcw"]
assert e["compression"]["bitstring"] is None and "skipped" in e["compression"]
assert d["min_entropy"] is not None and d["samples"] == 50' "$tmp/o"; then ok "50 samples: MultiMCW and compression skipped with reasons"
else no "50 samples (exit $rc): $(head -c 600 "$tmp/o") $(cat "$tmp/e")"; fi
# --words: the low 8 bits of little-endian words = the same as the bytes
head -c 20000 /dev/urandom >"$tmp/b.bin"
python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); open(sys.argv[2],"wb").write(b"".join(bytes([x,0xaa,0x55,0x0f]) for x in d))' "$tmp/b.bin" "$tmp/w.bin"
a=$("$neug" assess --json "$tmp/b.bin" --bits=8 | grep min_entropy); b=$("$neug" assess --json --words "$tmp/w.bin" | grep min_entropy)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "--words: low 8 bits of each word = the byte file ($a)" || no "--words ($a vs $b)"
printf '\x01\x02\x03' >"$tmp/odd.bin"
# --adc=1|2: the low 8 bits of one ADC's half-word; the oracle splits the
# words with perl (little-endian half-words) and assesses the bytes
f=tests/data/neug-1.0.6/adc.bin
for adc in 1 2; do
	perl -0777 -ne 'my @h = unpack "v*", $_; print pack "C*", map { $h[2*$_+'"$((adc - 1))"'] & 0xff } 0..$#h/2' "$f" >"$tmp/adc$adc.bin"
	a=$("$neug" assess --json --bits=8 "$tmp/adc$adc.bin" | grep min_entropy); b=$("$neug" assess --json --adc=$adc "$f" | grep min_entropy)
	[ -n "$a" ] && [ "$a" = "$b" ] && ok "--adc=$adc: ADC$adc's half-word = perl's split ($a)" || no "--adc=$adc ($a vs $b)"
done
a=$("$neug" assess --json --adc=1 "$f" | grep min_entropy); b=$("$neug" assess --json --adc=2 "$f" | grep min_entropy)
[ "$a" != "$b" ] && ok "--adc=1 and --adc=2 assess different samples" || no "--adc=1 = --adc=2 ($a)"
"$neug" assess --adc=3 "$f" 2>"$tmp/e"; rc=$?
[ "$rc" = 2 ] && grep -q "adc=3: give 1" "$tmp/e" && ok "--adc=3: usage error" || no "--adc=3 (exit $rc: $(cat "$tmp/e"))"
"$neug" assess --adc=1 --source=jitter --samples=1000 2>"$tmp/e"; rc=$?
[ "$rc" = 2 ] && grep -q "no ADC half-words" "$tmp/e" && ok "--adc with the jitter source: usage error" || no "--adc jitter (exit $rc: $(cat "$tmp/e"))"
"$neug" assess --words "$tmp/odd.bin" 2>"$tmp/e"; rc=$?
[ "$rc" != 0 ] && grep -q "not a whole number of 32-bit words" "$tmp/e" && ok "--words on 3 bytes rejected" || no "--words odd size (exit $rc)"
"$neug" assess --restart "$tmp/b.bin" 2>"$tmp/e"; rc=$?
[ "$rc" = 2 ] && grep -q "h-initial" "$tmp/e" && ok "--restart without --h-initial: usage error" || no "--restart without H (exit $rc)"
"$neug" assess --restart --h-initial=7 "$tmp/b.bin" 2>"$tmp/e"; rc=$?
[ "$rc" = 3 ] && grep -q "exactly 1000000 samples" "$tmp/e" && ok "--restart on 20000 samples rejected (exit 3)" || no "--restart size (exit $rc)"
# restart 17 stuck at 0: its row's count (1000) is far above X_cutoff, a failed verdict
python3 -c 'import random,sys; r=random.Random(7); d=bytearray(r.getrandbits(8) for _ in range(10**6)); d[17000:18000]=bytes(1000); open(sys.argv[1],"wb").write(d)' "$tmp/stuckrow.bin"
"$neug" assess --restart --h-initial=7 "$tmp/stuckrow.bin" >"$tmp/o" 2>"$tmp/e"; rc=$?
[ "$rc" = 1 ] && grep -q "Restart Sanity Check Failed" "$tmp/o" && grep -q "X_max: 1000" "$tmp/o" \
	&& ok "--restart with a stuck restart: sanity check failed, exit 1" || no "--restart stuck row (exit $rc: $(cat "$tmp/o" "$tmp/e"))"
"$neug" assess --help | grep -q -- "--conditioned" && "$neug" fips --help | grep -q rngtest && "$neug" cutoffs --help | grep -q CRITBINOM \
	&& ok "--help of assess, fips, cutoffs" || no "--help"
"$neug" cutoffs --min-entropy=0 2>/dev/null; rc=$?
[ "$rc" = 2 ] && ok "cutoffs --min-entropy=0 rejected" || no "cutoffs H=0 (exit $rc)"
out=$("$neug" cutoffs --min-entropy=3.7 --json)
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["rct_cutoff"]==10' "$out" && ok "cutoffs H=3.7: RCT 10" || no "cutoffs json: $out"
# threads do not change the figures
a=$("$neug" assess --json --threads=1 "$tmp/b.bin" --bits=8 | md5sum); b=$("$neug" assess --json --threads=4 "$tmp/b.bin" --bits=8 | md5sum)
[ "$a" = "$b" ] && ok "--threads=1 and --threads=4 give the same report" || no "threads change the report"
# --source: the generator's own sources
a=$("$neug" assess --json --words "$tmp/w.bin" | grep -v '"track"'); b=$("$neug" assess --json --source="file:$tmp/w.bin" --samples=20000 | grep -v '"track"')
[ -n "$a" ] && [ "$a" = "$b" ] && ok "--source=file:PATH = --words on the same raw-mode file" || no "--source=file differs from --words"
"$neug" assess --source="file:$tmp/w.bin" --samples=100 --save="$tmp/saved.bin" --json >/dev/null 2>&1
[ "$(stat -c %s "$tmp/saved.bin" 2>/dev/null)" = 100 ] && ok "--save writes the 100 collected samples" || no "--save"
"$neug" assess --source=device:/dev/nonexistent-tty --samples=100 2>"$tmp/e"; rc=$?
[ "$rc" != 0 ] && grep -q "nonexistent-tty" "$tmp/e" && ok "--source=device:TTY on a missing tty: exit $rc, '$(head -1 "$tmp/e")'" || no "--source=device (exit $rc: $(cat "$tmp/e"))"
"$neug" assess --source=bogus --samples=100 2>"$tmp/e"; rc=$?
[ "$rc" != 0 ] && grep -qi "bogus" "$tmp/e" && ok "--source=bogus rejected" || no "--source=bogus (exit $rc)"
if out=$("$neug" assess --source=jitter --samples=20000 --json 2>"$tmp/e"); then
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["samples"]==20000 and d["min_entropy"] > 0' "$out" \
		&& ok "--source=jitter --samples=20000 assessed" || no "--source=jitter output: $out"
else
	echo "SKIP: assess-cli --source=jitter ($(head -1 "$tmp/e"))"
fi
# restart tests on the jitter source: 1000 opens of 1000 samples each; the
# saved matrix re-assessed from the file gives the same JSON
if "$neug" assess --restart --source=jitter --h-initial=0.5 --save="$tmp/restart.bin" --json >"$tmp/r1.json" 2>"$tmp/e"; then
	"$neug" assess --restart "$tmp/restart.bin" --h-initial=0.5 --json >"$tmp/r2.json" 2>>"$tmp/e"
	python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a == b, (a, b)
assert a["track"] == "restart" and a["sanity_passed"] and a["validation_passed"] and a["min_entropy"] == 0.5
' "$tmp/r1.json" "$tmp/r2.json" && [ "$(stat -c %s "$tmp/restart.bin")" = 1000000 ] \
		&& ok "--restart --source=jitter: 1000 x 1000 samples saved, sanity and validation passed, the same figures from the saved file" \
		|| no "--restart --source=jitter ($(cat "$tmp/e"))"
else
	echo "SKIP: assess-cli --restart --source=jitter ($(head -1 "$tmp/e"))"
fi
"$neug" assess --restart --source="file:$tmp/restart.bin" --h-initial=0.5 2>"$tmp/e"; rc=$?
[ "$rc" = 2 ] && grep -q "jitter source only" "$tmp/e" && ok "--restart --source=file: refused (exit 2)" || no "--restart --source=file (exit $rc: $(cat "$tmp/e"))"
