#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# neug feed on fake pools (a file: bytes written, credit counted): the bytes
# are the generator's, a file source (a replay) credits nothing and says so
# once, the jitter source's credit follows the accounting in every mode, the
# end of a file source, a persistent health failure (exit 4 after the grace
# period, nothing written), sd-daemon level prefixes under JOURNAL_STREAM,
# SIGUSR1 and SIGTERM, usage and I/O errors; as root, real RNDADDENTROPY.
set -u
. "$(dirname "$0")/../lib.sh"
ng_test_init feed
N=build/neug
: >"$tmp/pool"   # a fake pool must exist: feed does not create files

$N feed --foreground --source="file:$V/adc.bin" --pool="$tmp/pool" --max-rate=0 --count=4096 2>"$tmp/log"
rc=$?
$N generate --source="file:$V/adc.bin" -n 4096 -o "$tmp/gen" 2>/dev/null
if [ $rc = 0 ] && cmp -s "$tmp/pool" "$tmp/gen"; then
	pass "conditioned: 4096 bytes into a file pool, the same bytes as neug generate"
else
	fail "conditioned 4096 bytes: rc $rc, $(stat -c %s "$tmp/pool" 2>/dev/null) bytes; $(tail -2 "$tmp/log")"
fi
grep -q 'wrote 4096 bytes, credited 0 bits (counted, not credited: not a random device)' "$tmp/log" &&
	pass "a file source (a replay): 4096 bytes written, 0 bits credited" ||
	fail "file source credit: $(grep stopped "$tmp/log")"
[ "$(grep -c 'warning: .*replay.*credit 0 bits' "$tmp/log")" = 1 ] && grep -q 'crediting 0.000 bits/byte (a replay earns no credit)' "$tmp/log" &&
	pass "a file source: one warning that a replay earns no credit, crediting 0.000 bits/byte" ||
	fail "file source warning: $(head -3 "$tmp/log" | tr '\n' ' ')"
grep -q 'not a random device: counting only' "$tmp/log" && pass "the start message says the pool only counts" ||
	fail "start message: $(head -1 "$tmp/log")"

for m in crc32 raw; do
	: >"$tmp/pool"
	$N feed --foreground --source="file:$V/adc.bin" --mode=$m --min-entropy=8 --pool="$tmp/pool" --max-rate=0 --count=3200 2>"$tmp/log"
	rc=$?
	if [ $rc = 0 ] && [ "$(stat -c %s "$tmp/pool")" = 3200 ] && grep -q "wrote 3200 bytes, credited 0 bits" "$tmp/log"; then
		pass "file source, $m mode, --min-entropy=8: 3200 bytes, still 0 bits credited"
	else
		fail "file source $m mode: rc $rc; $(grep stopped "$tmp/log")"
	fi
done

# The jitter source is credited at its declared H (0.5 bits per sample):
# conditioned min(8, 1024 x 0.5 / 32) = 8 bits per byte, crc32 32 x 0.5 / 32
# = 0.5, raw 8 x 0.5 / 32 = 0.125 (host/daemons/feed.h).
for m in "conditioned 4096 32768" "crc32 3200 1600" "raw 3200 400"; do
	set -- $m
	: >"$tmp/pool"
	$N feed --foreground --source=jitter --mode=$1 --pool="$tmp/pool" --max-rate=0 --count=$2 2>"$tmp/log"
	rc=$?
	if [ $rc = 0 ] && [ "$(stat -c %s "$tmp/pool")" = $2 ] && grep -q "wrote $2 bytes, credited $3 bits" "$tmp/log" &&
		! grep -q replay "$tmp/log"; then
		pass "jitter, $1 mode: $2 bytes credit $3 bits (H 0.5 x samples), no replay warning"
	else
		fail "jitter $1 mode: rc $rc; $(grep -E 'stopped|replay' "$tmp/log" | tr '\n' ' ')"
	fi
done

: >"$tmp/pool"
$N feed --foreground --source="file:$V/adc.bin" --pool="$tmp/pool" --max-rate=0 2>"$tmp/log"
rc=$?
[ $rc = 0 ] && [ "$(stat -c %s "$tmp/pool")" = 6400 ] && grep -q 'end of source' "$tmp/log" &&
	pass "the end of a file source stops feed (6400 bytes, exit 0)" ||
	fail "end of source: rc $rc, $(stat -c %s "$tmp/pool") bytes; $(tail -2 "$tmp/log")"

: >"$tmp/pool"
s0=$SECONDS
$N feed --foreground --source="file:$V/stuck.bin" --pool="$tmp/pool" --max-rate=0 --grace=1 2>"$tmp/log"
rc=$?
if [ $rc = 4 ] && [ ! -s "$tmp/pool" ] && grep -q 'persistent health failure' "$tmp/log" &&
	grep -q 'crediting stopped, exiting in 1s' "$tmp/log" && [ $((SECONDS - s0)) -ge 1 ]; then
	pass "stuck.bin: persistent health failure logged, nothing written, exit 4 after the 1 s grace"
else
	fail "stuck.bin: rc $rc, $(stat -c %s "$tmp/pool" 2>/dev/null) bytes; $(tail -3 "$tmp/log" | tr '\n' ' ')"
fi

JOURNAL_STREAM=8:1234 $N feed --foreground --source="file:$V/stuck.bin" --pool="$tmp/pool" --grace=0 2>"$tmp/log"
head -1 "$tmp/log" | grep -q '^<4>warning: .*replay' && sed -n 2p "$tmp/log" | grep -q '^<5>started: source' &&
	grep -q '^<3>persistent health failure' "$tmp/log" &&
	pass "under systemd (JOURNAL_STREAM): <4> warning (a replay), <5> notice and <3> err prefixes" ||
	fail "journal prefixes: $(head -3 "$tmp/log" | tr '\n' ' ')"

# SIGUSR1 then SIGTERM, jitter source, a file pool written at a bounded rate.
: >"$tmp/pool"
$N feed --foreground --source=jitter --pool="$tmp/pool" --max-rate=4096 --chunk=512 2>"$tmp/log" &
pid=$!
for _ in $(seq 300); do [ -s "$tmp/pool" ] && break; sleep 0.1; done
sleep 1
kill -USR1 $pid; sleep 0.5
kill -TERM $pid
wait $pid
rc=$?
if [ $rc = 143 ] && grep -q 'status: wrote [1-9][0-9]* bytes' "$tmp/log" && grep -q 'stopped by SIGTERM' "$tmp/log"; then
	pass "jitter: SIGUSR1 logs the counters, SIGTERM stops it with status 143 (128 + 15) ($(grep -o 'wrote [0-9]* bytes' "$tmp/log" | tail -1))"
else
	fail "SIGUSR1/SIGTERM: rc $rc; $(tail -3 "$tmp/log" | tr '\n' ' ')"
fi

out=$($N feed --chunk=0 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "bad --chunk '0'" && pass "usage error: --chunk=0 (exit 2)" || fail "--chunk=0: rc $rc $out"
out=$($N feed --foreground --pool=/nonexistent/pool 2>&1); rc=$?
[ $rc = 3 ] && echo "$out" | grep -q "/nonexistent/pool" && pass "a missing pool: exit 3, named" || fail "missing pool: rc $rc $out"
out=$($N feed --foreground --source=file:/nonexistent.bin --pool="$tmp/pool" 2>&1); rc=$?
[ $rc = 3 ] && echo "$out" | grep -q "nonexistent.bin" && pass "a missing source file: exit 3, named" || fail "missing source: rc $rc $out"

# The real pool, as root: jitter output credited with RNDADDENTROPY.
if [ "$(id -u)" = 0 ]; then
	$N feed --foreground --source=jitter --count=1024 --max-rate=0 --threshold=1048576 2>"$tmp/log"
	rc=$?
	[ $rc = 0 ] && grep -q 'wrote 1024 bytes, credited 8192 bits$' "$tmp/log" &&
		pass "/dev/random as root: 1024 jitter bytes credited 8192 bits by RNDADDENTROPY" ||
		fail "/dev/random: rc $rc; $(tail -2 "$tmp/log" | tr '\n' ' ')"
	$N feed --foreground --source="file:$V/adc.bin" --count=1024 --max-rate=0 --threshold=1048576 2>"$tmp/log"
	rc=$?
	[ $rc = 0 ] && grep -q 'wrote 1024 bytes, credited 0 bits$' "$tmp/log" &&
		pass "/dev/random as root: 1024 bytes of a file source added with 0 bits credited" ||
		fail "/dev/random, file source: rc $rc; $(tail -2 "$tmp/log" | tr '\n' ' ')"
else
	echo "SKIP: feed on /dev/random (RNDADDENTROPY needs root)"
fi
