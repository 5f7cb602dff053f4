#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `make bench-assess`: neug assess next to NIST's SP 800-90B tool
# (ea_non_iid, ea_iid, ea_restart), both measured in this run on this machine.
# NIST's tool is built from NIST_EA_SRC (default ../shared/reference/nist-ea
# beside the repository, when it exists) into build/bench/nist; without it
# only our times are printed. Each case runs alternately, ours then NIST's,
# BENCH_REPS times (default 2); the table shows the best wall time of each,
# the ratio, peak memory (GNU time %M) and whether the assessed figures agree
# to every printed digit. NIST's runs are stopped after NIST_LIMIT seconds
# (default 900) and reported as "did not finish in N s". The jitter source's
# IID track runs once more with --all-rounds (every compression round, as
# NIST's tool runs them), ours only. BENCH_ONLY=REGEX runs the cases whose
# label matches.
# Then the IID track's per-round parts (build/bench/iid_parts: the
# compression statistic by libbz2 and by bz2len, the shuffles), the
# shuffle's parts (build/bench/shuffle_floor) and neug fips against rngtest
# on 100 MB.
set -u
cd "$(dirname "$0")/.."
ref=${NG_REFERENCE:-tests/data/sp800-90b}
neug=${NEUG:-build/neug}
reps=${BENCH_REPS:-2}
limit=${NIST_LIMIT:-900}
out=build/bench
mkdir -p "$out"
if [ ! -f "$ref/data/rand8-1M.bin" ]; then echo "bench-assess: $ref/data missing, skipped"; exit 0; fi
if [ ! -x /usr/bin/time ]; then echo "bench-assess: GNU time missing (apt-get install time), skipped"; exit 0; fi

src=${NIST_EA_SRC:-}
[ -z "$src" ] && [ -d ../shared/reference/nist-ea ] && src=../shared/reference/nist-ea
nist=
if [ -n "$src" ] && [ -x "$src/build.sh" ]; then
	if [ -x "$out/nist/ea_iid" ] && [ -x "$out/nist/ea_non_iid" ] && [ -x "$out/nist/ea_restart" ] &&
		[ -z "$(find "$src" -newer "$out/nist/ea_iid" -type f -print -quit)" ]; then
		nist=$out/nist
	elif bash "$src/build.sh" "$(pwd)/$out/nist" >"$out/nist-build.log" 2>&1; then
		nist=$out/nist
	else
		echo "   NIST's tool did not build from $src (see $out/nist-build.log): no same-run reference"
	fi
else
	echo "   no NIST source (set NIST_EA_SRC to NIST's SP800-90B_EntropyAssessment with build.sh):"
	echo "   no same-run reference, our times only"
fi

# The 1M non-IID source: raw samples from this machine's jitter, low 8 bits.
jit=$out/jitter-1M.bin
if [ ! -s "$jit" ]; then
	if "$neug" generate --mode=raw -n 4000000 -o "$out/jitter-raw.words" 2>/dev/null &&
		python3 -c 'import sys, struct
d = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(bytes(w & 255 for w in struct.unpack("<%dI" % (len(d) // 4), d)))' \
			"$out/jitter-raw.words" "$jit"; then :; else rm -f "$jit"; fi
fi

# run_one OUTFILE LIMIT cmd...: wall seconds, peak KiB and CPU seconds on
# one line in $out/t, "timeout" when stopped past LIMIT (0: none)
run_one() {
	local o=$1 lim=$2; shift 2
	if [ "$lim" -gt 0 ]; then
		/usr/bin/time -f "%e %M %U %S" -o "$out/t" timeout "$lim" "$@" >"$o" 2>/dev/null
		[ $? -eq 124 ] && echo timeout >"$out/t"
	else
		/usr/bin/time -f "%e %M %U %S" -o "$out/t" "$@" >"$o" 2>/dev/null
	fi
	tail -1 "$out/t"
}

best() { # "wall kib user sys" lines on stdin -> the fastest "wall kib cpu", or timeout
	awk '$1 == "timeout" { to = 1; next } NF == 4 && (b == "" || $1 < b) { b = $1; m = $2; c = $3 + $4 }
	     END { if (b != "") print b, m, c; else if (to) print "timeout"; else print "failed" }'
}

fig_ours() { python3 -c 'import json, sys
try: print("%.17g" % json.load(open(sys.argv[1]))["min_entropy"])
except Exception: print("?")' "$1"; }
fig_nist() { # NIST_JSON OUR_JSON: NIST's assessed figure (every digit, from its -o JSON)
	python3 -c 'import json, sys
try:
    tc = json.load(open(sys.argv[1]))["testCases"]
    bits = json.load(open(sys.argv[2]))["bits_per_sample"]
    o = [t for t in tc if t.get("testCaseDesc") == "Overall"]
    if o: print("%.17g" % o[0]["hAssessed"])
    else:  # ea_iid: its hAssessed is not the final figure; min(H_original, bits x H_bitstring) is
        t = tc[0]; h = t["hOriginal"]
        if bits > 1 and "hBitstring" in t: h = min(h, bits * t["hBitstring"])
        print("%.17g" % h)
except Exception: pass' "$1" "$2"; }

printf "   (%s CPUs, load %s; %s; best of %s, ours and NIST's alternately)\n" "$(nproc)" \
	"$(cut -d' ' -f1-3 /proc/loadavg)" "$("$neug" --version 2>/dev/null)" "$reps"
printf "   %-34s %15s %5s  %17s %5s  %6s %6s %5s  %s\n" case "ours wall (cpu)" MiB "NIST wall (cpu)" MiB ratio "cpu" mem figure
# case LABEL NIST_LIMIT "our args" "NIST command"
bench_case() {
	local label=$1 lim=$2 ours=$3 theirs=$4 a="" b="" i
	[[ -n ${BENCH_ONLY:-} && ! $label =~ $BENCH_ONLY ]] && return
	for ((i = 0; i < reps; i++)); do
		# shellcheck disable=SC2086
		a+="$(run_one "$out/ours.out" 0 "$neug" assess $ours --json)"$'\n'
		local oj=(-o "$out/nist.json")
		case $theirs in *ea_restart*) oj=() ;; esac  # ea_restart has no -o
		# shellcheck disable=SC2086
		[ -n "$nist" ] && [ "$theirs" != - ] && rm -f "$out/nist.json" && b+="$(run_one "$out/nist.out" "$lim" $theirs "${oj[@]}")"$'\n'
	done
	local ba bb fo fn same
	ba=$(printf '%s' "$a" | best)
	fo=$(fig_ours "$out/ours.out")
	if [ "$theirs" = - ]; then
		echo "$ba" | awk -v l="$label" -v f="$fo" '{ printf "   %-34s %6.2fs (%6.2fs) %5.0f  (NIST: the row above)  ours %s\n", l, $1, $3, $2 / 1024, f }'
		return
	fi
	if [ -z "$nist" ]; then
		echo "$ba" | awk -v l="$label" '{ printf "   %-34s %6.2fs (%6.2fs) %5.0f  (no same-run reference)\n", l, $1, $3, $2 / 1024 }'
		return
	fi
	bb=$(printf '%s' "$b" | best)
	fn=$(fig_nist "$out/nist.json" "$out/ours.out")
	[ -z "$fn" ] && fn=$(sed -n 's/^min(H_r, H_c, H_I): //p' "$out/nist.out" | tail -1)
	same=differs
	if [ "$bb" = timeout ]; then same="ours $fo"
	elif [ -n "$fn" ] && python3 -c 'import sys; a, b = sys.argv[1:]; sys.exit(0 if a == b or ("." in b and len(b.split(".")[1]) == 6 and "%.6f" % float(a) == b) else 1)' "$fo" "$fn" 2>/dev/null; then
		same="same ($fn)"
	fi
	awk -v l="$label" -v a="$ba" -v b="$bb" -v lim="$lim" -v s="$same" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		if (b == "timeout") printf "   %-34s %6.2fs (%6.2fs) %5.0f  %17s %5s  %6s %6s %5s  %s\n", l, x[1], x[3], x[2] / 1024,
			"> " lim " s", "-", "> " sprintf("%.0f", lim / x[1]) "x", "-", "-", "NIST did not finish in " lim " s; " s
		else printf "   %-34s %6.2fs (%6.2fs) %5.0f  %7.2fs (%7.2fs) %5.0f  %5.1fx %5.1fx %5.2f  %s\n", l, x[1], x[3], x[2] / 1024,
			y[1], y[3], y[2] / 1024, y[1] / x[1], (x[3] > 0 ? y[3] / x[3] : 0), x[2] / y[2], s }'
}
d=$ref/data
bench_case "non-IID rand8-1M (8-bit)" "$limit" "$d/rand8-1M.bin --bits=8" "$nist/ea_non_iid -v $d/rand8-1M.bin 8"
bench_case "non-IID biased-1M (8-bit)" "$limit" "$d/biased-1M.bin --bits=8" "$nist/ea_non_iid -v $d/biased-1M.bin 8"
bench_case "non-IID lowbit-1M (1-bit)" "$limit" "$d/lowbit-1M.bin --bits=1" "$nist/ea_non_iid -v $d/lowbit-1M.bin 1"
bench_case "IID rand8-1M" "$limit" "$d/rand8-1M.bin --bits=8 --iid" "$nist/ea_iid -v $d/rand8-1M.bin 8"
bench_case "IID biased-1M" "$limit" "$d/biased-1M.bin --bits=8 --iid" "$nist/ea_iid -v $d/biased-1M.bin 8"
bench_case "IID lowbit-1M" "$limit" "$d/lowbit-1M.bin --bits=1 --iid" "$nist/ea_iid -v $d/lowbit-1M.bin 1"
h=7.8764843952641446
bench_case "restart rand8-1M (IID, H_I 7.876)" "$limit" "--restart $d/rand8-1M.bin --bits=8 --iid --h-initial=$h --permutations=0" \
	"$nist/ea_restart -i -v $d/rand8-1M.bin 8 $h"
if [ -s "$jit" ]; then
	reps_save=$reps; reps=1
	bench_case "IID jitter-1M (not IID, low 8 bits)" "$limit" "$jit --bits=8 --iid" "$nist/ea_iid -v $jit 8"
	bench_case "IID jitter-1M, --all-rounds" "$limit" "$jit --bits=8 --iid --all-rounds" -
	reps=$reps_save
else
	echo "   IID jitter-1M: could not record the jitter source, skipped"
fi
echo "   (ratio: NIST's wall time / ours; cpu: NIST's CPU time / ours; mem: our peak / NIST's;"
echo "    figure: the assessed min-entropy, NIST's -o JSON against ours)"

# The IID track's parts per round, one thread, libbz2 beside bz2len.
if [ -z "${BENCH_ONLY:-}" ] && [ -x build/bench/iid_parts ]; then
	for f in rand8-1M lowbit-1M biased-1M; do
		echo "   IID round parts on $f (one thread, best of 5):"
		build/bench/iid_parts "$d/$f.bin" 5 || echo "   (bz2len and libbz2 differ on $f)"
	done
fi
# The shuffle's floor: the whole shuffle beside its draws and its swaps alone.
if [ -z "${BENCH_ONLY:-}" ] && [ -x build/bench/shuffle_floor ]; then
	echo "   The shuffle and its parts (one thread, best of 5):"
	build/bench/shuffle_floor 5
fi

if [ -z "${BENCH_ONLY:-}" ] && command -v rngtest >/dev/null; then
	f=$(mktemp); head -c 100000000 /dev/urandom >"$f"
	t0=$(date +%s.%N); "$neug" fips "$f" >/dev/null; t1=$(date +%s.%N)
	rngtest <"$f" 2>/dev/null; t2=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "   fips 100 MB: neug %.2f s (%.0f MB/s), rngtest %.2f s (%.0f MB/s): %.1fx\n", b-a, 100/(b-a), c-b, 100/(c-b), (c-b)/(b-a) }'
	rm -f "$f"
fi
