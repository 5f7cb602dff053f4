#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Self-tests before the first byte, on every host path. build/test-bin/neug
# (make tests) is build/neug with the self-test units compiled with
# -DNG_SELFTEST_HOOKS: NEUG_TEST_SELFTEST_FAIL=TEST makes that known answer
# wrong. Each path must then refuse: generate (exit 4, the test named, no
# file), feed (exit 4, nothing in the pool, also before it would detach),
# egd (exit 4, never listens), emulate (the device enumerates, reports 1 at
# GET_INFO 34 and sends no data, as the board does; exit 4 when stopped).
# The shipped build/neug has no hook: it ignores the variable.
set -u
. "$(dirname "$0")/../lib.sh"
ng_test_init selftest
N=build/neug T=build/test-bin/neug client=build/guest/usbip-client
[ -x "$T" ] || { echo "SKIP: self-test refusal ($T not built: make tests)"; exit 0; }
src="--source=file:$V/adc.bin"
impl=portable
grep -qw sha_ni /proc/cpuinfo && [ "$(uname -m)" = x86_64 ] && impl=sha-ni

# The hook is in the test build only.
if grep -q NEUG_TEST_SELFTEST_FAIL "$T" && ! grep -q NEUG_TEST_SELFTEST_FAIL "$N"; then
	pass "the hook's variable name is in $T and not in $N"
else
	fail "hook strings: test build $(grep -c NEUG_TEST_SELFTEST_FAIL "$T"), shipped build $(grep -c NEUG_TEST_SELFTEST_FAIL "$N")"
fi
NEUG_TEST_SELFTEST_FAIL=sha256 $N generate "$src" -n 4096 -o "$tmp/shipped" 2>"$tmp/e"; rc=$?
$N generate "$src" -n 4096 -o "$tmp/plain" 2>/dev/null
$T generate "$src" -n 4096 -o "$tmp/test" 2>/dev/null; rc2=$?
[ $rc = 0 ] && cmp -s "$tmp/shipped" "$tmp/plain" && [ $rc2 = 0 ] && cmp -s "$tmp/test" "$tmp/plain" &&
	pass "build/neug ignores NEUG_TEST_SELFTEST_FAIL=sha256 (exit 0, the usual bytes); the test build without it gives the same bytes" ||
	fail "shipped build with the variable: rc $rc, test build without: rc $rc2; $(head -c 200 "$tmp/e")"

# generate: every self-test, its name in the message, no file.
for t in sha256 sha256-portable crc pipeline rct apt adc neug; do
	rm -f "$tmp"/out*
	NEUG_TEST_SELFTEST_FAIL=$t $T generate "$src" -n 4096 -o "$tmp/out" 2>"$tmp/e"; rc=$?
	want="neug generate: self-test failed: $t[ :]"
	case $t in sha256) want="self-test failed: sha256 (on $impl): .*known answer mismatch; no output written" ;;
	sha256-portable) want="self-test failed: sha256-portable (against $impl): .*known answer mismatch" ;;
	esac
	if [ $rc = 4 ] && grep -q "$want" "$tmp/e" && [ -z "$(ls "$tmp" | grep '^out')" ]; then
		pass "generate, $t wrong: exit 4, '$(head -1 "$tmp/e" | cut -c1-110)', no file"
	else
		fail "generate, $t wrong: rc $rc, files: $(ls "$tmp" | grep '^out' | tr '\n' ' ') message: $(head -2 "$tmp/e")"
	fi
done
NEUG_TEST_SELFTEST_FAIL=crc $T generate "$src" -n 4096 >"$tmp/stdout" 2>/dev/null; rc=$?
[ $rc = 4 ] && [ ! -s "$tmp/stdout" ] && pass "generate to standard output, crc wrong: exit 4, 0 bytes out" ||
	fail "generate to stdout: rc $rc, $(stat -c %s "$tmp/stdout") bytes"

# feed: nothing reaches the (fake) pool, in the foreground or as a daemon.
: >"$tmp/pool"
NEUG_TEST_SELFTEST_FAIL=sha256 $T feed --foreground "$src" --pool="$tmp/pool" --max-rate=0 --count=4096 2>"$tmp/e"; rc=$?
[ $rc = 4 ] && [ ! -s "$tmp/pool" ] && grep -q "self-test failed: sha256 (on $impl): .*; nothing written to the pool" "$tmp/e" &&
	pass "feed --foreground, sha256 wrong: exit 4, the pool untouched, '$(head -1 "$tmp/e" | cut -c1-80)...'" ||
	fail "feed, sha256 wrong: rc $rc, pool $(stat -c %s "$tmp/pool") bytes; $(head -2 "$tmp/e")"
NEUG_TEST_SELFTEST_FAIL=apt timeout 20 $T feed "$src" --pool="$tmp/pool" --max-rate=0 --count=4096 2>"$tmp/e"; rc=$?
[ $rc = 4 ] && [ ! -s "$tmp/pool" ] && grep -q 'self-test failed: apt' "$tmp/e" &&
	pass "feed (daemon), apt wrong: exit 4 before detaching, message on stderr, the pool untouched" ||
	fail "feed daemon, apt wrong: rc $rc, pool $(stat -c %s "$tmp/pool") bytes; $(head -2 "$tmp/e")"
$T feed --foreground "$src" --pool="$tmp/pool" --max-rate=0 --count=4096 2>/dev/null; rc=$?
[ $rc = 0 ] && cmp -s "$tmp/pool" "$tmp/plain" && pass "feed with the test build, no variable: the 4096 bytes" ||
	fail "feed without the variable: rc $rc"

# egd: never listens.
port=$((20000 + RANDOM % 20000))
NEUG_TEST_SELFTEST_FAIL=neug timeout 20 $T egd --listen="unix:$tmp/egd.sock" --listen="127.0.0.1:$port" "$src" 2>"$tmp/e"; rc=$?
if [ $rc = 4 ] && [ ! -e "$tmp/egd.sock" ] && grep -q 'self-test failed: neug: .*; not serving' "$tmp/e" &&
	! (exec 5<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
	pass "egd, neug wrong: exit 4, no unix socket, nothing on 127.0.0.1:$port"
else
	fail "egd, neug wrong: rc $rc, socket $(ls "$tmp" | grep -c egd.sock); $(head -2 "$tmp/e")"
fi

# emulate: the emulated board reports its own result at GET_INFO 34.
if [ -x "$client" ]; then
	emu() { # label env-value binary
		: >"$tmp/emu.log"
		port=$((port + 1))
		NEUG_TEST_SELFTEST_FAIL=$2 $3 emulate --usbip=127.0.0.1:$port "$src" 2>"$tmp/emu.log" &
		pids+=($!)
		for _ in $(seq 50); do grep -q serving "$tmp/emu.log" && break; sleep 0.1; done
		info=$($client 127.0.0.1:$port info:34 0 2>>"$tmp/emu.log")
		$client 127.0.0.1:$port 0 64 3 >"$tmp/data" 2>>"$tmp/emu.log"
		kill -TERM "${pids[-1]}"; wait "${pids[-1]}"; stopped=$?
	}
	emu fail rct $T
	[ "$info" = 1 ] && [ ! -s "$tmp/data" ] && [ $stopped = 4 ] &&
		grep -q 'self-test failed: rct: .*reports it (GET_INFO 34) and sends no data' "$tmp/emu.log" &&
		pass "emulate, rct wrong: enumerates, GET_INFO 34 = 1, no data, the message, exit 4 on SIGTERM" ||
		fail "emulate, rct wrong: GET_INFO 34 '$info', $(stat -c %s "$tmp/data") bytes, exit $stopped; $(head -3 "$tmp/emu.log" | tr '\n' ' ')"
	emu ok "" $T
	[ "$info" = 0 ] && [ "$(stat -c %s "$tmp/data")" = 64 ] && [ $stopped = 143 ] &&
		pass "emulate (test build), all passed: GET_INFO 34 = 0, data flows, exit 143 (SIGTERM)" ||
		fail "emulate, passed: GET_INFO 34 '$info', $(stat -c %s "$tmp/data") bytes, exit $stopped"
	emu shipped sha256 $N
	[ "$info" = 0 ] && [ "$(stat -c %s "$tmp/data")" = 64 ] && [ $stopped = 143 ] &&
		pass "emulate (build/neug) ignores NEUG_TEST_SELFTEST_FAIL: GET_INFO 34 = 0, data flows" ||
		fail "emulate shipped: GET_INFO 34 '$info', $(stat -c %s "$tmp/data") bytes, exit $stopped"
else
	echo "SKIP: emulate's GET_INFO 34 ($client not built: make tests)"
fi
