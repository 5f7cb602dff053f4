#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Failing closed with a device that is not what it claims: a pty that plays
# the device (tests/fakes/ptydev.py) sends zeros, or good bytes then zeros,
# in conditioned, crc32 and raw modes, to generate, feed and egd.
#  - A pty does not answer GET_INFO: generate warns (stderr and --summary);
#    feed and egd refuse it unless --credit=BITS is given, and say so.
#  - The host's continuous test stops every command at the first zero block:
#    generate exits 4 and leaves no file; feed exits 4 after its grace with
#    only bytes sent before the zeros written, credited at --credit and
#    nothing after; egd exits 4 by itself, with or without a client.
#    (egd reads its source while its buffer has room: with nobody reading, the
#    zeros come within its 16 KiB buffer here, as a failure must be read to
#    be seen.)
# Raw mode from a file source that latches (stuck.bin): feed and egd exit 4
# with nothing written or served, as in the other modes. --credit on a file
# source is refused; on jitter it replaces the declared figure.
set -u
. "$(dirname "$0")/../lib.sh"
ng_test_init fail-closed
N=$PWD/build/neug
dev=$tmp/ttyNEUG
GOOD=65536

# start PATTERN [GOOD]: a fake device behind $dev; its pid in $dpid.
start() {
	rm -f "$dev" "$tmp/sent" "$tmp/dev.out"
	python3 tests/fakes/ptydev.py "$1" "$dev" "${2:-$GOOD}" "$tmp/sent" >"$tmp/dev.out" &
	dpid=$!
	pids+=($dpid)
	for _ in $(seq 200); do [ -L "$dev" ] && grep -q ready "$tmp/dev.out" 2>/dev/null && break; sleep 0.05; done
}
stop() { kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; }
# within FILE SENT: FILE's bytes are one run of the good bytes sent
within() { python3 -c 'import sys; a=open(sys.argv[1],"rb").read(); b=open(sys.argv[2],"rb").read(); sys.exit(0 if a in b else 1)' "$1" "$2"; }

for mode in conditioned crc32 raw; do
	for pat in zeros good-then-zero; do
		# generate: a warning, then exit 4 and no file
		start $pat
		timeout 60 $N generate --source=device:"$dev" --mode=$mode -n 1M -o "$tmp/out.bin" --summary --stats 2>"$tmp/err"
		rc=$?
		stop
		if [ $rc = 4 ] && [ ! -e "$tmp/out.bin" ] && grep -q 'warning: device .* did not identify itself as a NeuG' "$tmp/err" &&
			grep -q '^  warning: *the device did not identify itself' "$tmp/err" &&
			grep -q 'continuous test failed on the host: .* is all zeros' "$tmp/err" &&
			tail -1 "$tmp/err" | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["identified"] is False and d["status"] == "failed" else 1)'; then
			pass "generate, $mode, $pat: warned (unidentified; --stats \"identified\": false), exit 4 at the first zero block, no file"
		else
			fail "generate, $mode, $pat: rc $rc, file $([ -e "$tmp/out.bin" ] && echo kept || echo absent): $(head -c 600 "$tmp/err")"
		fi

		# feed: refused without --credit
		start $pat
		: >"$tmp/pool"
		timeout 60 $N feed --foreground --source=device:"$dev" --mode=$mode --pool="$tmp/pool" 2>"$tmp/log"
		rc=$?
		stop
		[ $rc = 3 ] && [ ! -s "$tmp/pool" ] && grep -q 'did not identify itself as a NeuG' "$tmp/log" && grep -q -- '--credit=BITS' "$tmp/log" &&
			pass "feed, $mode, $pat: an unidentified device is refused (exit 3), the message names --credit=BITS" ||
			fail "feed refuses, $mode, $pat: rc $rc; $(head -c 400 "$tmp/log")"

		# feed --credit=8: exit 4 after the grace; what reached the pool was sent before the zeros
		start $pat
		: >"$tmp/pool"
		timeout 60 $N feed --foreground --source=device:"$dev" --mode=$mode --credit=8 --pool="$tmp/pool" \
			--max-rate=0 --grace=1 2>"$tmp/log"
		rc=$?
		stop
		bytes=$(stat -c %s "$tmp/pool")
		if [ $rc = 4 ] && grep -q 'crediting stopped, exiting in 1s' "$tmp/log" &&
			grep -q "stopped: wrote $bytes bytes, credited $((bytes * 8)) bits" "$tmp/log" &&
			{ [ $pat = zeros ] && [ "$bytes" = 0 ] || { [ "$bytes" -le $GOOD ] && within "$tmp/pool" "$tmp/sent"; }; }; then
			pass "feed --credit=8, $mode, $pat: exit 4 after the grace, $bytes bytes (all sent before the zeros) credited 8 bits each, nothing after"
		else
			fail "feed --credit=8, $mode, $pat: rc $rc, $bytes bytes; $(grep -E 'stopped|failure' "$tmp/log" | head -c 600)"
		fi

		# egd: refused without --credit; with it, exits 4 by itself (nobody reads)
		start $pat
		timeout 60 $N egd --listen="unix:$tmp/egd.sock" --source=device:"$dev" --mode=$mode 2>"$tmp/log"
		rc=$?
		stop
		[ $rc = 3 ] && grep -q -- '--credit=BITS' "$tmp/log" && [ ! -e "$tmp/egd.sock" ] &&
			pass "egd, $mode, $pat: an unidentified device is refused (exit 3, --credit=BITS named, the socket removed)" ||
			fail "egd refuses, $mode, $pat: rc $rc; $(head -c 400 "$tmp/log")"
		start $pat 8192
		timeout 60 $N egd --listen="unix:$tmp/egd.sock" --source=device:"$dev" --mode=$mode --credit=8 2>"$tmp/log"
		rc=$?
		stop
		[ $rc = 4 ] && grep -q 'persistent health failure: .*continuous test failed' "$tmp/log" &&
			pass "egd --credit=8, $mode, $pat: exits 4 by itself with nobody reading, the reason logged" ||
			fail "egd --credit=8, $mode, $pat: rc $rc; $(tail -3 "$tmp/log" | head -c 600)"
	done
done

# egd with a client reading, good then zeros: what it got was sent before the zeros.
start good-then-zero
$N egd --listen="unix:$tmp/egd.sock" --source=device:"$dev" --credit=8 2>"$tmp/log" &
epid=$!
pids+=($epid)
for _ in $(seq 200); do [ -S "$tmp/egd.sock" ] && break; sleep 0.05; done
python3 - "$tmp/egd.sock" "$tmp/got" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(30)
got = b""
try:
    while True:
        s.sendall(b"\x02\xff")
        want = 255
        while want:
            b = s.recv(want)
            if not b:
                raise EOFError
            got += b
            want -= len(b)
except (EOFError, OSError):
    pass
open(sys.argv[2], "wb").write(got)
PY
timeout 30 tail --pid=$epid -f /dev/null
wait $epid; rc=$?
stop
n=$(stat -c %s "$tmp/got")
[ $rc = 4 ] && [ "$n" -le $GOOD ] && within "$tmp/got" "$tmp/sent" &&
	pass "egd --credit=8, a client reading, good then zeros: $n bytes served, all sent before the zeros; exit 4" ||
	fail "egd with a reader: rc $rc, $n bytes; $(tail -2 "$tmp/log")"

# --credit elsewhere: a file source (a replay) takes none (usage error 2,
# 0 is accepted); on jitter it replaces the declared figure.
: >"$tmp/pool"
out=$($N feed --foreground --source="file:$V/adc.bin" --credit=1 --pool="$tmp/pool" 2>&1); rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/pool" ] && echo "$out" | grep -q 'replay.*--credit must be 0' &&
	pass "feed --credit=1 on a file source: exit 2, a replay earns no credit" || fail "feed --credit on a file: rc $rc $out"
out=$($N egd --source="file:$V/adc.bin" --credit=1 --listen="unix:$tmp/egd.sock" 2>&1); rc=$?
[ $rc = 2 ] && [ ! -e "$tmp/egd.sock" ] && echo "$out" | grep -q 'replay.*--credit must be 0' &&
	pass "egd --credit=1 on a file source: exit 2, no socket left" || fail "egd --credit on a file: rc $rc $out"
$N feed --foreground --source="file:$V/adc.bin" --credit=0 --pool="$tmp/pool" --max-rate=0 --count=4096 2>"$tmp/log"; rc=$?
[ $rc = 0 ] && grep -q 'wrote 4096 bytes, credited 0 bits' "$tmp/log" &&
	pass "feed --credit=0 on a file source: accepted, 0 bits" || fail "feed --credit=0 on a file: rc $rc $(tail -1 "$tmp/log")"
: >"$tmp/pool"
$N feed --foreground --source=jitter --credit=2.5 --pool="$tmp/pool" --max-rate=0 --count=4096 2>"$tmp/log"; rc=$?
[ $rc = 0 ] && grep -q 'crediting 2.500 bits/byte (--credit)' "$tmp/log" && grep -q 'wrote 4096 bytes, credited 10240 bits' "$tmp/log" &&
	pass "feed --credit=2.5 on jitter: 4096 bytes credit 10240 bits, the figure said at the start" ||
	fail "feed --credit=2.5 on jitter: rc $rc $(grep -E 'started|stopped' "$tmp/log" | tr '\n' ' ')"

# Raw mode is no exception: stuck.bin latches in its start-up test.
: >"$tmp/pool"
$N feed --foreground --source="file:$V/stuck.bin" --mode=raw --pool="$tmp/pool" --max-rate=0 --grace=0 2>"$tmp/log"; rc=$?
[ $rc = 4 ] && [ ! -s "$tmp/pool" ] && grep -q 'persistent health failure: health test failed' "$tmp/log" &&
	pass "feed --mode=raw on stuck.bin: exit 4, nothing written to the pool" ||
	fail "feed raw stuck.bin: rc $rc, $(stat -c %s "$tmp/pool") bytes; $(tail -2 "$tmp/log" | tr '\n' ' ')"
timeout 60 $N egd --source="file:$V/stuck.bin" --mode=raw --listen="unix:$tmp/egd.sock" 2>"$tmp/log"; rc=$?
[ $rc = 4 ] && grep -q 'persistent health failure' "$tmp/log" && grep -q ' 0 bytes served' "$tmp/log" &&
	pass "egd --mode=raw on stuck.bin: exit 4, 0 bytes served" || fail "egd raw stuck.bin: rc $rc; $(tail -2 "$tmp/log" | tr '\n' ' ')"
