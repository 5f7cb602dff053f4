#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `make bench-assess`: wall time and peak memory of neug assess on 1,000,000
# 8-bit samples (non-IID, IID, restart) next to NIST's reference tool
# (figures from tests/data/sp800-90b/README.md, same machine kind),
# and neug fips against rngtest on 100 MB.
set -u
cd "$(dirname "$0")/.."
ref=${NG_REFERENCE:-tests/data/sp800-90b}
neug=build/neug
d=$ref/data/rand8-1M.bin
if [ ! -f "$d" ]; then echo "bench-assess: $d missing, skipped"; exit 0; fi
if [ ! -x /usr/bin/time ]; then echo "bench-assess: GNU time missing (apt-get install time), skipped"; exit 0; fi
one() { # label reference_seconds reference_MiB args...
	local label=$1 rs=$2 rm=$3; shift 3
	/usr/bin/time -v "$neug" "$@" >/dev/null 2>/tmp/bench-assess.$$ || { echo "   $label: failed"; return; }
	local w m u
	u=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' /tmp/bench-assess.$$)
	w=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' /tmp/bench-assess.$$ | awk -F: '{ print ($1 * 60) + $2 }')
	m=$(sed -n 's/.*Maximum resident set size (kbytes): //p' /tmp/bench-assess.$$)
	awk -v l="$label" -v w="$w" -v m="$m" -v rs="$rs" -v rm="$rm" -v u="$u" 'BEGIN {
		if (rs > 0) printf "   %-38s %6.2f s (cpu %6.2f s) %4.0f MiB   reference %5.1f s %4d MiB   %5.1fx faster\n", l, w, u, m / 1024, rs, rm, rs / w
		else printf "   %-38s %6.2f s (cpu %6.2f s) %4.0f MiB   (no reference figure)\n", l, w, u, m / 1024 }'
	rm -f /tmp/bench-assess.$$
}
echo "   ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $("$neug" --version 2>/dev/null); wall times suffer when the machine is shared)"
one "non-IID rand8-1M (8-bit)" 15.6 290 assess "$d" --bits=8 --json
one "non-IID biased-1M (8-bit)" 16.0 253 assess "$ref/data/biased-1M.bin" --bits=8 --json
one "non-IID lowbit-1M (1-bit)" 0.7 21 assess "$ref/data/lowbit-1M.bin" --bits=1 --json
one "IID rand8-1M" 7.5 38 assess "$d" --bits=8 --iid --json
one "restart rand8-1M (IID, H_I 7.876)" 27.0 41 assess --restart "$d" --bits=8 --iid --h-initial=7.8764843952641446 --json
one "restart rand8-1M (non-IID rows/cols)" 0 0 assess --restart "$d" --bits=8 --h-initial=7.8764843952641446 --json
if command -v rngtest >/dev/null; then
	f=$(mktemp); head -c 100000000 /dev/urandom >"$f"
	t0=$(date +%s.%N); "$neug" fips "$f" >/dev/null; t1=$(date +%s.%N)
	rngtest <"$f" 2>/dev/null; t2=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "   fips 100 MB: neug %.2f s (%.0f MB/s), rngtest %.2f s (%.0f MB/s): %.1fx\n", b-a, 100/(b-a), c-b, 100/(c-b), (c-b)/(b-a) }'
	rm -f "$f"
fi
