#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `neug emulate` as a process, over TCP on 127.0.0.1, without a kernel:
# build/guest/usbip-client plays vhci-hcd + cdc_acm. The golden vectors must
# come out of the emulated device byte for byte; bad options must be refused.
set -u
cd "$(dirname "$0")/../.."
neug=build/neug client=build/guest/usbip-client
v=${NG_VECTORS:-tests/data}/neug-1.0.6
uid=12345678:9abcdef0:0fedcba9
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
ok() { echo "PASS: $*"; }
no() { echo "FAIL: $*"; }
t() { local n=$1; shift; if "$@"; then ok "$n"; else no "$n"; fi; }
[ -x "$client" ] || { echo "SKIP: emulate ($client not built: make tests)"; exit 0; }

$neug emulate --help >"$tmp/help" 2>&1
t "emulate --help exits 0 and shows the usage" grep -q 'Usage: neug emulate' "$tmp/help"
$neug emulate --uid=xyz >/dev/null 2>"$tmp/e"; rc=$?
t "emulate --uid=xyz is a usage error (exit $rc)" [ $rc = 2 ]
$neug emulate --usbip=192.0.2.1:3240 >/dev/null 2>"$tmp/e"; rc=$?
t "emulate refuses a non-loopback address without --allow-remote (exit $rc: $(head -c 80 "$tmp/e"))" \
	sh -c "[ $rc = 2 ] && grep -q 'no authentication' '$tmp/e'"
$neug emulate --unplug-after=20 >/dev/null 2>"$tmp/e"; rc=$?
t "emulate --unplug-after without --flash: usage error (exit $rc: $(head -c 100 "$tmp/e"))" \
	sh -c "[ $rc = 2 ] && grep -q 'add --flash=FILE' '$tmp/e'"
$neug emulate --flash="$tmp/none.flash" --unplug-after=0 >/dev/null 2>"$tmp/e"; rc=$?
t "emulate --unplug-after=0: usage error (exit $rc: $(head -c 100 "$tmp/e"))" \
	sh -c "[ $rc = 2 ] && grep -q '1 to 65535' '$tmp/e' && [ ! -e '$tmp/none.flash' ]"
$neug emulate --source=file:/nonexistent/x.bin --usbip=127.0.0.1:1 >/dev/null 2>"$tmp/e"; rc=$?
t "emulate with a missing file: exit 3, the message names the file ($(head -c 100 "$tmp/e"))" \
	sh -c "[ $rc = 3 ] && grep -q '/nonexistent/x.bin' '$tmp/e'"

port=$((20000 + RANDOM % 20000))
start() { # source
	$neug emulate --usbip=127.0.0.1:$port --source="$1" --uid=$uid 2>>"$tmp/emu.log" &
	pids+=($!)
	for _ in $(seq 50); do grep -q serving "$tmp/emu.log" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}
stop() { kill "${pids[-1]}" 2>/dev/null; wait "${pids[-1]}" 2>/dev/null; stopped=$?; }

if start "file:$v/adc.bin"; then
	if command -v usbip >/dev/null; then
		usbip --tcp-port "$port" list -r 127.0.0.1 >"$tmp/list" 2>&1
		t "the usbip tool lists 1-1 as 234b:0001" grep -q '1-1:.*234b:0001' "$tmp/list"
	fi
	$client 127.0.0.1:$port 0 6400 10 >"$tmp/m0" 2>"$tmp/c"
	t "conditioned output over USB/IP = out-adc-m0.bin ($(cat "$tmp/c"))" cmp -s "$tmp/m0" "$v/out-adc-m0.bin"
	stop
	t "SIGTERM ends neug emulate with status 143 = 128 + 15 (got $stopped)" [ "$stopped" = 143 ]
else
	no "neug emulate started on 127.0.0.1:$port ($(tail -3 "$tmp/emu.log"))"
fi
: >"$tmp/emu.log"
port=$((port + 1))
if start "file:$v/adc.bin"; then
	$client 127.0.0.1:$port 1 28000 10 >"$tmp/m1" 2>"$tmp/c"
	t "CRC32 output over USB/IP = out-adc-m1.bin ($(cat "$tmp/c"))" cmp -s "$tmp/m1" "$v/out-adc-m1.bin"
	stop
else
	no "neug emulate started again on 127.0.0.1:$port"
fi
: >"$tmp/emu.log"
port=$((port + 1))
if start "file:$v/stuck.bin"; then
	$client 127.0.0.1:$port 0 32 3 >"$tmp/s" 2>"$tmp/c"
	t "stuck.bin: no output at all ($(wc -c <"$tmp/s") bytes)" [ ! -s "$tmp/s" ]
	stop
fi
