#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# neug egd as a command, over 127.0.0.1 (bash's /dev/tcp): the bytes served
# are the generator's, in order; the pid command; systemd socket activation
# (systemd-socket-activate, SKIP without it); the entropy level is 0 for a
# file source (a replay) and 8 bits per byte ready for jitter; a persistent
# health failure of the source stops the server with status 4. The protocol and hostile
# clients in detail: tests/unit/test_egd.c.
set -u
. "$(dirname "$0")/../lib.sh"
ng_test_init egd
N=$PWD/build/neug
port=$((20000 + RANDOM % 20000))

$N generate --source="file:$V/adc.bin" -n 6400 -o "$tmp/gen" 2>/dev/null
$N egd --listen="127.0.0.1:$port" --listen="unix:$tmp/egd.sock" --source="file:$V/adc.bin" 2>"$tmp/log" &
egd=$!
pids+=($egd)
for _ in $(seq 100); do [ -S "$tmp/egd.sock" ] && break; sleep 0.1; done
if exec 5<>"/dev/tcp/127.0.0.1/$port"; then
	printf '\x02\xff\x02\xff' >&5
	head -c 510 <&5 >"$tmp/got"
	cmp -s "$tmp/got" <(head -c 510 "$tmp/gen") && pass "two blocking reads over 127.0.0.1: the generator's first 510 bytes, in order" ||
		fail "blocking reads: $(stat -c %s "$tmp/got") bytes, differ from neug generate"
	printf '\x04' >&5
	len=$(head -c 1 <&5 | od -An -tu1 | tr -d ' ')
	pid=$(head -c "$len" <&5)
	[ "$pid" = "$egd" ] && pass "0x04: the server's pid ($pid)" || fail "0x04: '$pid', want $egd"
	printf '\x00' >&5
	lvl=$(head -c 4 <&5 | od -An -tu1 | awk '{print ($1*16777216)+($2*65536)+($3*256)+$4}')
	[ "$lvl" = 0 ] && pass "0x00: entropy level 0 for a file source (a replay), with bytes ready" ||
		fail "0x00: $lvl for a file source, want 0"
	printf '\x02\xff' >&5
	head -c 255 <&5 >/dev/null
	exec 5>&-
else
	fail "connect to 127.0.0.1:$port"
fi
kill -TERM $egd; wait $egd; rc=$?
[ $rc = 143 ] && grep -q 'stopped by SIGTERM: .* bytes served' "$tmp/log" && [ ! -e "$tmp/egd.sock" ] &&
	pass "SIGTERM: exit 143 (128 + 15), counters logged, the unix socket removed" || fail "SIGTERM: rc $rc; $(tail -2 "$tmp/log")"

grep -q 'entropy level 0.000 bits/byte (a replay earns no credit)' "$tmp/log" &&
	pass "the start message says a file source earns no credit" || fail "start message: $(head -1 "$tmp/log")"

# jitter: the level counts 8 bits per byte ready (H 0.5 x 1024 samples per block).
port3=$((port + 2))
$N egd --listen="127.0.0.1:$port3" --source=jitter 2>"$tmp/jlog" &
pids+=($!)
for _ in $(seq 100); do grep -q serving "$tmp/jlog" && break; sleep 0.1; done
sleep 0.5
if exec 7<>"/dev/tcp/127.0.0.1/$port3"; then
	printf '\x00' >&7
	lvl=$(head -c 4 <&7 | od -An -tu1 | awk '{print ($1*16777216)+($2*65536)+($3*256)+$4}')
	exec 7>&-
	[ "$lvl" -gt 0 ] 2>/dev/null && [ $((lvl % 8)) = 0 ] && [ "$lvl" -le $((16384 * 8)) ] &&
		pass "0x00 for jitter: $lvl bits (8 per byte ready, at most the 16 KiB buffer)" || fail "0x00 for jitter: '$lvl'"
else
	fail "connect to the jitter egd on 127.0.0.1:$port3: $(tail -2 "$tmp/jlog")"
fi
kill -TERM "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null

# stuck.bin: the source fails at once; the server stops with status 4.
$N egd --listen="unix:$tmp/bad.sock" --source="file:$V/stuck.bin" 2>"$tmp/log"
rc=$?
[ $rc = 4 ] && grep -q 'persistent health failure' "$tmp/log" && pass "a failing source: exit 4, the reason logged" ||
	fail "stuck.bin: rc $rc; $(tail -2 "$tmp/log" | tr '\n' ' ')"

for bad in 10.1.2.3 :99999 unix: 127.0.0.1:-1 host.example:80; do
	out=$($N egd --listen=$bad 2>&1); rc=$?
	[ $rc = 2 ] && echo "$out" | grep -q -- "--listen=$bad" && pass "a bad --listen=$bad: a usage error (exit 2), named" ||
		fail "bad address $bad: rc $rc $out"
done
# Not loopback: refused without --allow-remote (EGD has no authentication).
out=$($N egd --listen=0.0.0.0:$((port + 3)) --source="file:$V/adc.bin" 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q 'no authentication' && echo "$out" | grep -q -- '--allow-remote' &&
	pass "--listen=0.0.0.0:PORT without --allow-remote: exit 2, says EGD has no authentication" ||
	fail "0.0.0.0 without --allow-remote: rc $rc $out"
$N egd --listen=0.0.0.0:$((port + 3)) --allow-remote --source="file:$V/adc.bin" 2>"$tmp/rlog" &
rpid=$!
pids+=($rpid)
for _ in $(seq 100); do grep -q serving "$tmp/rlog" && break; sleep 0.1; done
kill -TERM $rpid; wait $rpid; rc=$?
[ $rc = 143 ] && grep -q 'warning: listening on 0.0.0.0:.*no authentication' "$tmp/rlog" &&
	pass "--allow-remote: it listens on 0.0.0.0, with a warning that EGD has no authentication" ||
	fail "--allow-remote: rc $rc; $(head -3 "$tmp/rlog" | tr '\n' ' ')"

# Socket activation: systemd-socket-activate listens and passes the socket.
if command -v systemd-socket-activate >/dev/null; then
	port2=$((port + 1))
	systemd-socket-activate -l "127.0.0.1:$port2" $N egd --source="file:$V/adc.bin" 2>"$tmp/act.log" &
	pids+=($!)
	sleep 0.5
	if exec 6<>"/dev/tcp/127.0.0.1/$port2"; then
		printf '\x02\x40' >&6
		head -c 64 <&6 >"$tmp/act"
		exec 6>&-
		cmp -s "$tmp/act" <(head -c 64 "$tmp/gen") && grep -q 'from systemd' "$tmp/act.log" &&
			pass "socket activation (LISTEN_FDS): served 64 bytes on the passed socket" ||
			fail "socket activation: $(stat -c %s "$tmp/act") bytes; $(tail -2 "$tmp/act.log" | tr '\n' ' ')"
	else
		fail "socket activation: connect"
	fi
else
	echo "SKIP: socket activation (systemd-socket-activate not installed)"
fi
