#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# neug assess: the IID track deciding early (the compression rounds past the
# 64 of phase 1 stopped once the verdict is "not IID", and --all-rounds
# running them), inferred
# --bits with the full-width figure beside it (the oracle: an explicit
# --bits=8 run), no "-0" on constant data, progress on a terminal only, and
# the report's input digest (sha256sum as the oracle), version and date.
set -u
cd "$(dirname "$0")/../.."
neug=build/neug
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok() { echo "PASS: assess-iid $1"; }
no() { echo "FAIL: assess-iid $1"; }
if ! command -v python3 >/dev/null; then echo "SKIP: assess-iid (python3 missing)"; exit 0; fi
# a slow ramp with noise: plainly not IID (the excursion never settles)
python3 -c 'import random, sys
r = random.Random(5); n = 20000
open(sys.argv[1], "wb").write(bytes((i * 200 // n + r.randrange(16)) & 255 for i in range(n)))' "$tmp/ramp.bin"
"$neug" assess --iid --bits=8 --permutations=100 --seed=3 --json "$tmp/ramp.bin" >"$tmp/a.json" 2>"$tmp/e"; rc=$?
if [ "$rc" = 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); t = d["iid_tests"]
assert t["stopped"] == ["compression"], t["stopped"]
assert t["rounds"]["compression"] == 64 == sum(t["counts"]["compression"]), t["rounds"]
assert t["decided_by"] and "failed" in t["decided_by"], t["decided_by"]
assert not d["iid"] and not t["permutation_passed"]
' "$tmp/a.json"; then ok "not-IID data: compression stopped after 64 of 100 rounds, decided by '$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["iid_tests"]["decided_by"])' "$tmp/a.json")'"
else no "decide early (exit $rc): $(cat "$tmp/e") $(grep -A3 '"stopped"' "$tmp/a.json")"; fi
"$neug" assess --iid --bits=8 --permutations=100 --seed=3 "$tmp/ramp.bin" >"$tmp/a.txt" 2>&1
grep -q "compression: stopped after 64 of 100 rounds: the verdict was already \"not IID\"" "$tmp/a.txt" && grep -q -- "--all-rounds" "$tmp/a.txt" \
	&& ok "the text output says which test was stopped, after how many rounds, and how to run it" \
	|| no "text output of a stopped test: $(grep -i stopped "$tmp/a.txt")"
"$neug" assess --iid --bits=8 --permutations=100 --seed=3 --all-rounds --json "$tmp/ramp.bin" >"$tmp/b.json" 2>"$tmp/e"; rc=$?
if [ "$rc" = 0 ] && python3 -c '
import json, sys
a, b = (json.load(open(f))["iid_tests"] for f in sys.argv[1:3])
assert b["stopped"] == [], b["stopped"]
assert sum(b["counts"]["compression"]) == b["rounds"]["compression"] == 100
for k in a["counts"]:
    if k != "compression": assert a["counts"][k] == b["counts"][k], k
assert a["statistics"] == b["statistics"]
' "$tmp/a.json" "$tmp/b.json"; then ok "--all-rounds: compression counted ($(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["iid_tests"]["counts"]["compression"])' "$tmp/b.json")), the other counters unchanged"
else no "--all-rounds (exit $rc): $(cat "$tmp/e")"; fi

# inferred --bits: values 0x30..0x3f need 6 bits; the full-width figure is
# what an explicit --bits=8 run gives
python3 -c 'import random, sys
r = random.Random(9)
open(sys.argv[1], "wb").write(bytes(0x30 | r.randrange(16) for _ in range(30000)))' "$tmp/b6.bin"
for track in "" --iid; do
	"$neug" assess $track --permutations=5 --seed=1 --json "$tmp/b6.bin" >"$tmp/i.json" 2>"$tmp/e"
	"$neug" assess $track --permutations=5 --seed=1 --json --bits=8 "$tmp/b6.bin" >"$tmp/8.json" 2>>"$tmp/e"
	if python3 -c '
import json, sys
i, e = (json.load(open(f)) for f in sys.argv[1:3])
assert i["bits_inferred"] is True and i["bits_per_sample"] == 6 and i["full_width_bits"] == 8, i
assert i["min_entropy_full_width"] == e["min_entropy"], (i["min_entropy_full_width"], e["min_entropy"])
assert e["bits_inferred"] is False and "min_entropy_full_width" not in e
' "$tmp/i.json" "$tmp/8.json"; then ok "inferred --bits ${track:-(non-IID)}: 6 bits, full-width figure = the --bits=8 run's"
	else no "inferred --bits ${track:-(non-IID)}: $(cat "$tmp/e") $(grep -E 'bits|min_entropy' "$tmp/i.json" "$tmp/8.json")"; fi
done
"$neug" assess "$tmp/b6.bin" >"$tmp/t.txt" 2>&1
h8=$("$neug" assess --bits=8 "$tmp/b6.bin" | sed -n 's/^Assessed min-entropy: \([0-9.e-]*\) bits.*/\1/p')
grep -q "^\*\*\* --bits was not given: 6 bits per sample were inferred" "$tmp/t.txt" \
	&& [ -n "$h8" ] && grep -qF "*** With the file's full width, 8 bits per sample, the assessed min-entropy is $h8." "$tmp/t.txt" \
	&& ok "the text output says the width was inferred, with the full-width figure" || no "inferred --bits text: $(grep '\*\*\*' "$tmp/t.txt")"

# constant data: 0, never -0
head -c 3000 /dev/zero >"$tmp/zero.bin"
bad=0
for args in "" "--bits=8" "--iid --permutations=3" "--json" "--iid --json --permutations=3"; do
	"$neug" assess $args "$tmp/zero.bin" >"$tmp/z.out" 2>&1
	grep -qE -- '(^|[^0-9.e])-0(\.0+)?([^0-9.]|$)' "$tmp/z.out" && { bad=$((bad + 1)); echo "# -0 in: neug assess $args: $(grep -E -- '-0' "$tmp/z.out" | head -2)"; }
done
[ "$bad" = 0 ] && ok "constant data: no -0 in text or JSON, either track" || no "constant data printed -0 ($bad runs)"

# progress: nothing on standard error off a terminal; on one (script(1)
# gives a pseudo-terminal), the phases with rounds done and the time left
"$neug" assess --iid --bits=8 --permutations=100 --seed=3 "$tmp/ramp.bin" >/dev/null 2>"$tmp/e"
[ ! -s "$tmp/e" ] && ok "off a terminal: nothing on standard error" || no "off a terminal, stderr: $(head -c 200 "$tmp/e")"
if command -v script >/dev/null; then
	script -qec "$neug assess --iid --bits=8 --permutations=300 --seed=3 --threads=1 $tmp/ramp.bin >/dev/null" "$tmp/tty.log" >/dev/null 2>&1
	tr '\r' '\n' <"$tmp/tty.log" >"$tmp/tty.txt"
	grep -q "permutation rounds, 19 statistics \[.*\] [0-9]*/300, [0-9]* s" "$tmp/tty.txt" && grep -q "IID setup" "$tmp/tty.txt" \
		&& ok "on a terminal: the setup and the permutation phase with rounds done of 300" \
		|| no "on a terminal: $(grep -a -m3 . "$tmp/tty.txt" | head -c 300)"
else
	echo "SKIP: assess-iid progress on a terminal (script(1) missing)"
fi

# the report: the input's SHA-256 and size, version, date, the estimator
# that sets the figure
"$neug" assess "$tmp/b6.bin" --bits=8 --report="$tmp/r.html" >/dev/null 2>"$tmp/e"
sum=$(sha256sum "$tmp/b6.bin" | cut -d' ' -f1)
grep -q "SHA-256 of the file</th><td>$sum<" "$tmp/r.html" && grep -q "Size</th><td>30000 bytes<" "$tmp/r.html" \
	&& grep -q "neug version</th><td>$("$neug" --version | cut -d' ' -f2)<" "$tmp/r.html" \
	&& grep -qE "Date</th><td>20[0-9][0-9]-[01][0-9]-[0-3][0-9] [0-9:]{8} UTC<" "$tmp/r.html" \
	&& [ "$(grep -c 'sets the figure' "$tmp/r.html")" -ge 1 ] \
	&& ok "report: SHA-256 = sha256sum's, size, version, date, the estimator that sets the figure" \
	|| no "report header: $(grep -oE '(SHA-256|Size|version|Date)</th><td>[^<]*' "$tmp/r.html") $(cat "$tmp/e")"
"$neug" assess "$tmp/b6.bin" --report="$tmp/r6.html" >/dev/null 2>&1
grep -q "Bits per sample inferred" "$tmp/r6.html" && grep -q "(inferred: --bits was not given)" "$tmp/r6.html" \
	&& ok "report: the inferred width and the full-width figure" || no "report of inferred --bits"
grep -q "range the data uses, 48..63 (16 bars" "$tmp/r.html" \
	&& ok "report: the histogram spans the values the data uses (48..63)" || no "report histogram range: $(grep -o 'range the data uses[^)]*' "$tmp/r.html")"
