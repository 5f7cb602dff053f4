#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Byte rate of the emulated NeuG through the real kernel: /dev/ttyACM0 in the
# QEMU guest of tests/guest (vhci-hcd + cdc_acm, `neug emulate` on the guest's
# loopback), conditioned and CRC32 modes, file and jitter sources; next to the
# NeuG FST-01 hardware (80 kB/s conditioned, 270 kB/s CRC32, NeuG's figures).
# Also: the same pipeline inside the guest without USB (`neug generate`), and
# the device process's CPU share, to show where the time goes.
# Under TCG every guest instruction is emulated: the figures are a floor.
set -u
cd "$(dirname "$0")/.."
v=${NG_VECTORS:-tests/data}/neug-1.0.6

# 1. Host, no kernel, no QEMU: neug emulate + usbip-client (cdc_acm's URB
#    pattern: 16 x 128-byte bulk-IN URBs) over TCP on 127.0.0.1.
hostr=()
host_rate() { # label source mode bytes
	local port=$((20000 + RANDOM % 20000)) pid r
	${NEUG:-build/neug} emulate --usbip=127.0.0.1:$port --source="$2" 2>/tmp/ng-bench-emu.$$ &
	pid=$!
	for _ in $(seq 50); do grep -q serving /tmp/ng-bench-emu.$$ 2>/dev/null && break; sleep 0.1; done
	r=$(build/guest/usbip-client 127.0.0.1:$port "$3" "$4" 60 2>&1 >/dev/null | sed -n 's/.*rate_kBps=\([0-9.]*\).*/\1/p')
	kill $pid 2>/dev/null; wait $pid 2>/dev/null
	rm -f /tmp/ng-bench-emu.$$
	echo "host (no kernel): $1 rate=${r:-?} kB/s"
	hostr+=("$1=${r:-0}")
}
big=$(mktemp)
for _ in $(seq 40); do cat "$v/adc.bin"; done >"$big"
host_rate "file conditioned" "file:$big" 0 131072
host_rate "file crc32" "file:$big" 1 524288
host_rate "jitter conditioned" jitter 0 131072
host_rate "jitter crc32" jitter 1 524288
rm -f "$big"

# 2. The guest: through vhci-hcd and cdc_acm to /dev/ttyACM0 (TCG).
out=$(NG_CHECKS=bench GUEST_TIMEOUT=600 bash tests/guest/check.sh 2>&1)
if echo "$out" | grep -q '^SKIP'; then
	echo "$out" | grep '^SKIP'
	exit 0
fi
echo "$out" | grep -E '^# (bench|qemu)' | sed 's/^# //'
rate() { echo "$out" | sed -n "s/^# bench: $1 [0-9].*rate=\([0-9.]*\) kB\/s.*/\1/p" | head -1; }
for m in conditioned:80 crc32:270; do
	mode=${m%%:*} ref=${m#*:}
	for s in file jitter; do
		r=$(rate "$s $mode")
		[ -n "$r" ] && printf 'ratio (guest kernel): %-20s %8s kB/s = %6.2fx FST-01 (%s kB/s)\n' "$s $mode" "$r" \
			"$(awk -v r="$r" -v f="$ref" 'BEGIN{print r / f}')" "$ref"
		for h in "${hostr[@]}"; do
			[ "${h%%=*}" = "$s $mode" ] && printf 'ratio (host, no kernel): %-16s %8s kB/s = %6.2fx FST-01\n' "$s $mode" "${h#*=}" \
				"$(awk -v r="${h#*=}" -v f="$ref" 'BEGIN{print r / f}')"
		done
	done
done
echo "where the time goes: 'host (no kernel)' is the device and USB/IP alone, natively;"
echo "'generate ... (no USB)' is the pipeline alone in the guest (the TCG factor);"
echo "the gap to the USB rate is the USB/IP + vhci + cdc_acm path (128-byte URBs, one"
echo "round trip each through the guest's loopback); device_cpu is the share of one CPU"
echo "the neug emulate process used (the rest: kernel and the reading dd)."
