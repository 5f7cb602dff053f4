#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The jitter source end to end: neug generate starts (its start-up
# self-assessment passes on this machine), produces the bytes asked for in
# each mode, refuses an impossible declared figure (exit 3), and its
# conditioned output passes FIPS 140-2 (rngtest, rng-tools5) on 2.5 MB.
set -u
N=${NEUG:-build/neug}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
ok() { if eval "$2"; then pass "$1"; else fail "$1"; fi; }
[ -x "$N" ] || { echo "FAIL: $N not built"; exit 1; }

"$N" generate -n 64K -o "$T/j.bin" --summary 2>"$T/err"
rc=$?
ok "jitter (default source): exit 0 (got $rc)" '[ $rc = 0 ]'
ok "jitter: exactly 65536 bytes written" '[ "$(stat -c %s "$T/j.bin" 2>/dev/null)" = 65536 ]'
ok "jitter: --summary shows the declared figure and the start-up estimate" \
	'grep -q "0.500 bits/sample declared; start-up MCV estimate" "$T/err"'
sed 's/^/# /' "$T/err"
for m in crc32 raw; do
	"$N" generate --source=jitter --mode=$m -n 4096 >"$T/$m.bin" 2>/dev/null
	rc=$?
	ok "jitter --mode=$m: exit 0 and 4096 bytes" '[ $rc = 0 ] && [ "$(stat -c %s "$T/$m.bin")" = 4096 ]'
done
ok "jitter: two runs give different output" '! cmp -s <("$N" generate -n 64 2>/dev/null) <("$N" generate -n 64 2>/dev/null)'

"$N" generate --source=jitter --min-entropy=16 -n 32 >"$T/x" 2>"$T/err"
rc=$?
ok "jitter declared at 16 bits/sample: refused with exit 3 and a clear message ($(head -c 200 "$T/err"))" \
	'[ $rc = 3 ] && grep -q "refusing to run" "$T/err" && [ ! -s "$T/x" ]'

"$N" generate --source=jitter --stats -n 1K >/dev/null 2>"$T/stats.json"
ok "jitter --stats: valid JSON with the start-up estimate" \
	'python3 -m json.tool "$T/stats.json" >/dev/null && grep -q startup_mcv_h_milli "$T/stats.json"'

if ! command -v rngtest >/dev/null; then
	echo "SKIP: FIPS 140-2 on jitter output (rngtest not installed: apt-get install rng-tools5)"
	exit 0
fi
# 2.5 MB = 1000 blocks of 20000 bits, plus rngtest's 32-bit start word.
"$N" generate -n 2500004 2>"$T/err" | rngtest -c 1000 >"$T/rngtest.out" 2>&1
succ=$(sed -n 's/.*FIPS 140-2 successes: \([0-9]*\).*/\1/p' "$T/rngtest.out")
failures=$(sed -n 's/.*FIPS 140-2 failures: \([0-9]*\).*/\1/p' "$T/rngtest.out")
sed 's/^/# /' "$T/rngtest.out" | grep -E "successes|failures|Monobit|Poker|Runs|Long run|Continuous"
# A perfect source fails about 0.08% of blocks; P(more than 6 of 1000) < 1e-4.
ok "rngtest on 2.5 MB of jitter output: ${succ:-?} of 1000 blocks pass, ${failures:-?} fail (at most 6 allowed)" \
	'[ -n "$succ" ] && [ $((succ + failures)) = 1000 ] && [ "$failures" -le 6 ]'
exit 0
