#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# neug assess --report in a real browser: headless Chromium loads each page
# from a file:// URL and its DOM must hold the SVG plots with the expected
# bars and points (256 histogram bars for 8-bit samples, 64 autocorrelation
# points, 100 running-MCV points, each ADC's bars for raw-mode words, 1600
# heat-map cells for --restart) and the figures the JSON output gives. The
# page of 1,000,000 samples stays under 200 KB. Screenshots go to
# build/test-logs/assess-report*.png. A report that cannot be written, or a
# run that fails, leaves no file behind.
set -u
cd "$(dirname "$0")/../.."
neug=build/neug
logs=build/test-logs
mkdir -p "$logs"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok() { echo "PASS: assess-report $1"; }
no() { echo "FAIL: assess-report $1"; }
data=tests/data/sp800-90b/data
[ -f "$data/rand8-1M.bin" ] || { no "no $data/rand8-1M.bin (tests/data is part of the repository)"; exit 1; }

# ---- writing: no browser needed ----
"$neug" assess "$data/rand8-1M.bin" --json --threads=2 --report="$tmp/r.html" >"$tmp/r.json" 2>"$tmp/e"; rc=$?
size=$(stat -c %s "$tmp/r.html" 2>/dev/null || echo 0)
[ "$rc" = 0 ] && [ "$size" -gt 10000 ] && [ "$size" -lt 200000 ] && ! ls "$tmp"/r.html.tmp.* >/dev/null 2>&1 \
	&& ok "1,000,000 samples: report of $size bytes (< 200 KB), no temporary left" \
	|| no "1,000,000 samples: exit $rc, $size bytes ($(cat "$tmp/e"))"
grep -qiE '<script|https?://|src=' "$tmp/r.html" && no "the page loads or runs something: $(grep -oiE '<script|https?://[^"]*|src=' "$tmp/r.html" | head -3)" \
	|| ok "no script, no URL, no src= in the page"
"$neug" assess "$data/rand8-1M.bin" --threads=2 --report="$tmp/nodir/r.html" >/dev/null 2>"$tmp/e"; rc=$?
[ "$rc" = 3 ] && grep -q "nodir/r.html" "$tmp/e" && [ ! -e "$tmp/nodir" ] \
	&& ok "report in a missing directory: exit 3, '$(head -1 "$tmp/e")'" || no "report in a missing directory (exit $rc: $(cat "$tmp/e"))"
# a write that fails half-way (the file size limit) leaves neither the page nor its temporary
(trap '' XFSZ; ulimit -f 16; exec "$neug" assess "$data/rand8-1M.bin" --threads=2 --report="$tmp/big.html") >/dev/null 2>"$tmp/e"; rc=$?
left=$(ls "$tmp" | grep -c '^big\.html')
[ "$rc" = 3 ] && [ "$left" = 0 ] && grep -q "big.html" "$tmp/e" \
	&& ok "write failing half-way (ulimit -f 16): exit 3, no page, no temporary: '$(head -1 "$tmp/e")'" \
	|| no "write failing half-way (exit $rc, $left files left: $(cat "$tmp/e"))"
: >"$tmp/empty.bin"
"$neug" assess "$tmp/empty.bin" --report="$tmp/empty.html" 2>/dev/null; rc=$?
[ "$rc" = 3 ] && [ ! -e "$tmp/empty.html" ] && ok "failed assessment (empty input): exit 3, no report" \
	|| no "failed assessment wrote a report (exit $rc)"
"$neug" assess --help | grep -q -- "--report=FILE" && man -l packaging/man/neug-assess.1 2>/dev/null | grep -q -- "--report=HTML" \
	&& ok "--report in --help and the man page" || no "--report missing from --help or the man page"

# the other inputs: raw-mode words (a file of them, and the same through
# --source=file:), the restart matrix, the IID track
"$neug" assess --words tests/data/neug-1.0.6/adc.bin --report="$tmp/words.html" --json >"$tmp/words.json" 2>"$tmp/e" \
	&& "$neug" assess --source=file:tests/data/neug-1.0.6/adc.bin --samples=28000 --report="$tmp/source.html" >/dev/null 2>>"$tmp/e" \
	&& "$neug" assess --restart "$data/rand8-1M.bin" --h-initial=7 --threads=2 --report="$tmp/restart.html" --json >"$tmp/restart.json" 2>>"$tmp/e" \
	&& head -c 20000 "$data/rand8-1M.bin" >"$tmp/20k.bin" \
	&& "$neug" assess --iid --permutations=50 --seed=1 "$tmp/20k.bin" --report="$tmp/iid.html" --json >"$tmp/iid.json" 2>>"$tmp/e" \
	|| no "reports of words, a source, a restart matrix, the IID track: $(cat "$tmp/e")"
rsize=$(stat -c %s "$tmp/restart.html" 2>/dev/null || echo 0)
[ "$rsize" -gt 10000 ] && [ "$rsize" -lt 200000 ] && ok "restart matrix of 1,000,000 samples: report of $rsize bytes (< 200 KB)" \
	|| no "restart report of $rsize bytes"

# ---- reading: headless Chromium ----
browser=$(command -v chromium || command -v chromium-browser)
if [ -z "$browser" ]; then echo "SKIP: assess-report in a browser (chromium not installed: apt-get install chromium)"; exit 0; fi
if ! command -v python3 >/dev/null; then echo "SKIP: assess-report in a browser (python3 missing)"; exit 0; fi
chrome() { # chrome ARGS... URL: one headless run with its own profile, no network, no background work
	timeout 180 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync --disable-extensions \
		--hide-scrollbars --user-data-dir="$(mktemp -d -p "$tmp")" "$@" 2>>"$tmp/chrome.err"
}
check_dom() { # check_dom NAME HTML JSON EXPECTATIONS(python dict literal)
	local name=$1 page=$2 json=$3 want=$4
	if ! chrome --dump-dom "file://$(realpath "$page")" >"$tmp/$name.dom" || [ ! -s "$tmp/$name.dom" ]; then
		no "$name: chromium did not load the page: $(tail -3 "$tmp/chrome.err")"; return
	fi
	python3 - "$tmp/$name.dom" "$json" "$want" "$name" <<'PY'
import ast, collections, html.parser, json, sys
dom, jpath, want, name = sys.argv[1], sys.argv[2], ast.literal_eval(sys.argv[3]), sys.argv[4]
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.svg = None; s.n = collections.Counter(); s.text = []; s.svgs = []
    def handle_starttag(s, tag, a):
        a = dict(a)
        if tag == "svg":
            s.svg = a.get("id"); s.svgs.append(s.svg); return
        if s.svg:
            cls = (a.get("class") or "").split()
            s.n[(s.svg, tag)] += 1
            for c in cls: s.n[(s.svg, tag, c)] += 1
    def handle_endtag(s, tag):
        if tag == "svg": s.svg = None
    def handle_data(s, d):
        if not s.svg: s.text.append(d)
p = P(); p.feed(open(dom, encoding="utf-8").read())
text = " ".join(" ".join(p.text).split())
j = json.load(open(jpath)) if jpath != "-" else {}
bad = []
for key, n in want.items():
    if key == "text":
        for t in n:
            t = t.format(**j)
            if t not in text: bad.append(f"text {t!r} not on the page")
        continue
    got = p.n[key]
    if got != n: bad.append(f"{key}: {got}, want {n}")
if bad: print(f"FAIL: assess-report {name} in chromium: " + "; ".join(bad))
else: print(f"PASS: assess-report {name} in chromium: svg {', '.join(x for x in p.svgs if x)} with " +
           ", ".join(f"{n} {k[2] if len(k) > 2 else k[1]} in #{k[0]}" for k, n in want.items() if k != "text"))
PY
}
shot() { # shot NAME HTML HEIGHT
	chrome --window-size=1000,"$3" --screenshot="$(realpath "$logs")/$1.png" "file://$(realpath "$2")" >/dev/null
	local s; s=$(stat -c %s "$logs/$1.png" 2>/dev/null || echo 0)
	[ "$s" -gt 20000 ] && ok "screenshot $logs/$1.png ($s bytes)" || no "screenshot $1 ($s bytes: $(tail -3 "$tmp/chrome.err"))"
}

check_dom "1M samples" "$tmp/r.html" "$tmp/r.json" "{('histogram','rect','bar'): 256, ('autocorrelation','circle'): 64,
	('running-mcv','circle'): 100, ('running-mcv','polyline'): 1, ('adc1','rect','bar'): 0, ('restart-heatmap','rect'): 0,
	'text': ['Assessed min-entropy: {min_entropy:.17g} bits per 8-bit sample', 'Samples 1000000', 'Bits per sample 8',
	         'rand8-1M.bin', 'LZ78Y Prediction']}"
# the ADCs' bars: one per value of the range each occupies, at most 256; the
# samples' histogram: one bar per value from the smallest to the largest
want_adc=$(python3 -c '
import struct, sys
w = struct.unpack("<%dI" % (len(d := open(sys.argv[1], "rb").read()) // 4), d)
for k, sh in ((1, 0), (2, 16)):
    v = [x >> sh & 0xffff for x in w]; span = max(v) - min(v) + 1; wd = -(-span // 256)
    print(f"(\"adc{k}\",\"rect\",\"bar\"): {-(-span // wd)},", end=" ")
lo = [x & 0xff for x in w]  # the samples: the low 8 bits; one bar per value of their range
print(f"(\"histogram\",\"rect\",\"bar\"): {max(lo) - min(lo) + 1},", end=" ")' tests/data/neug-1.0.6/adc.bin)
check_dom "raw-mode words" "$tmp/words.html" "$tmp/words.json" "{$want_adc
	('autocorrelation','circle'): 64, ('running-mcv','circle'): 100,
	'text': ['Assessed min-entropy: {min_entropy:.17g} bits per 8-bit sample', 'raw-mode words']}"
check_dom "--source=file: words" "$tmp/source.html" - "{$want_adc}"
check_dom "restart" "$tmp/restart.html" "$tmp/restart.json" "{('histogram','rect','bar'): 256, ('autocorrelation','circle'): 64,
	('running-mcv','circle'): 100, ('restart-heatmap','rect','cell'): 1600,
	'text': ['Restart Sanity Check Passed', 'Validation Test Passed', 'X_max {x_max}']}"
check_dom "IID track" "$tmp/iid.html" "$tmp/iid.json" "{('histogram','rect','bar'): 256, ('autocorrelation','circle'): 64,
	('running-mcv','circle'): 100, 'text': ['excursion', 'compression', 'Chi square independence', '50 permutations']}"
shot assess-report "$tmp/r.html" 2300
shot assess-report-words "$tmp/words.html" 3100
shot assess-report-restart "$tmp/restart.html" 3100
