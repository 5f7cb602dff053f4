#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Host jitter source output rate next to the other CPU-jitter generators on
# Debian, measured in the same run, with each tool's entropy claim:
#   neug generate (jitter, conditioned)   ${NEUG:-build/neug} generate -n N -o FILE
#   jitterentropy-rngd (libjitterentropy compiled in; Debian packages no
#     separate library): it only feeds the kernel pool, so it runs under an
#     LD_PRELOAD shim (bench/jent-shim.c) that gives it a fake, always-empty
#     pool and counts what it injects; the rate is taken from its first
#     injection to the N-th byte (its start-up self-test excluded)
#   haveged -n N -f -                     (scripts/deps.sh bench installs it)
# Figures, not tests. BENCH_BYTES sets N (default 4 MiB; jitterentropy-rngd
# gets N/64 because it is much slower; -v keeps it in the foreground).
set -u
cd "$(dirname "$0")/.."
N=${BENCH_BYTES:-4194304}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
now() { date +%s.%N; }
rate() { awk -v b="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.1f", b / s / 1024; else print "?" }'; }
declare -A R

t0=$(now)
${NEUG:-build/neug} generate -n "$N" -o "$T/neug.bin" --stats 2>"$T/neug.json" || { echo "neug generate failed: $(cat "$T/neug.json")"; exit 1; }
t1=$(now)
s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
R[neug]=$(rate "$N" "$s")
spb=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["samples_per_block"], d["h_milli"]/1000, d.get("startup_mcv_h_milli",0)/1000)' "$T/neug.json")
read -r spb h mcv <<<"$spb"
printf '  %-26s %10s KiB/s  (%d bytes in %.3f s, start-up included)\n' "neug generate (jitter)" "${R[neug]}" "$N" "$s"
echo "      claim: declared $h bit/sample (start-up MCV estimate $mcv); 512 bits declared per 256-bit"
echo "      output: $spb samples per 32 bytes, i.e. 256 bits credited per $spb timing samples"
NM=$((N / 2))
t0=$(now)
${NEUG:-build/neug} generate -n "$NM" --mode=raw -o "$T/raw.bin" 2>/dev/null
t1=$(now)
s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
printf '  %-26s %10s KiB/s  (raw samples, 4 bytes each: %s Msamples/s)\n' "neug generate --mode=raw" "$(rate "$NM" "$s")" \
	"$(awk -v b="$NM" -v s="$s" 'BEGIN { printf "%.2f", b / 4 / s / 1e6 }')"

if command -v jitterentropy-rngd >/dev/null; then
	gcc -O2 -shared -fPIC -o "$T/jent-shim.so" bench/jent-shim.c -ldl
	NJ=$((N / 64))
	out=$(cd "$T" && NG_SHIM_BYTES=$NJ LD_PRELOAD="$T/jent-shim.so" timeout 300 jitterentropy-rngd -v 2>&1 | grep '^shim:')
	if [ -n "$out" ]; then
		read -r _ jb _ jbits _ _ js _ <<<"$out"
		js=${js%% *}
		R[jent]=$(rate "$jb" "$js")
		printf '  %-26s %10s KiB/s  (%d bytes in %.3f s after its start-up)\n' "jitterentropy-rngd $(jitterentropy-rngd --version 2>&1 | grep -o '[0-9]\+\.[0-9]\+\.[0-9]\+' | head -1)" "${R[jent]}" "$jb" "$js"
		echo "      claim: credits $jbits bits for $jb bytes ($(awk -v a="$jbits" -v b="$jb" 'BEGIN { printf "%.2f", a / b / 8 }') bit per output bit);"
	else
		echo "  jitterentropy-rngd: the shim run failed"
	fi
else
	echo "  jitterentropy-rngd: not installed (bash scripts/deps.sh bench)"
fi

if command -v haveged >/dev/null; then
	t0=$(now)
	haveged -n "$N" -f - >"$T/haveged.bin" 2>/dev/null
	t1=$(now)
	s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
	hb=$(stat -c %s "$T/haveged.bin")
	R[haveged]=$(rate "$hb" "$s")
	printf '  %-26s %10s KiB/s  (%d bytes in %.3f s)\n' "haveged -n N -f -" "${R[haveged]}" "$hb" "$s"
	echo "      claim: none per sample; HAVEGE's output is treated as full entropy (8 bits/byte) when it feeds the kernel"
else
	echo "  haveged: not installed (bash scripts/deps.sh bench)"
fi

for k in jent haveged; do
	[ -n "${R[$k]:-}" ] && printf '  ratio neug/%s: %s\n' "$k" "$(awk -v a="${R[neug]}" -v b="${R[$k]}" 'BEGIN { printf "%.2f", a / b }')"
done
exit 0
