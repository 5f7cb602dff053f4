#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Figures for the system side (not tests):
#  1. neug feed into a fake pool (a file: bytes written, credit counted) and,
#     as root, into /dev/random (RNDADDENTROPY), unthrottled: bytes/s;
#  2. the same, throttled by the kernel's demand (feed's defaults), next to
#     rngd reading the same source from a pipe for the same time;
#  3. neug egd: bytes/s to one client over 127.0.0.1
#     (pipelined 255-byte blocking reads; bash /dev/tcp, so TCP only), against a file of random samples
#     (the server's cost) and the jitter source (the source's).
set -u
cd "$(dirname "$0")/.."
N=$PWD/build/neug
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ng-bench-system.XXXXXX")
pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT
rate() { awk -v b="$1" -v t="$2" 'BEGIN { if (t <= 0) t = 0.001; printf "%.0f", b / t }'; }
now() { date +%s.%N; }
dt() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# Random samples for the server-cost runs: conditioned output is 32 bytes per
# 140 words, so 32 MiB of words give about 1.9 MB.
head -c 32M /dev/urandom >"$tmp/samples.bin"
src_file="file:$tmp/samples.bin"

echo "-- neug feed, unthrottled (--max-rate=0; on /dev/random --threshold=1048576), conditioned output"
for src in "$src_file" jitter; do
	n=1048576; [ "$src" = jitter ] && n=262144
	: >"$tmp/pool"
	t0=$(now)
	$N feed --foreground --source="$src" --pool="$tmp/pool" --max-rate=0 --count=$n 2>/dev/null
	t1=$(now)
	printf '   %-26s fake pool    %9s B/s  (%d bytes in %s s)\n' "${src%%:*}" "$(rate $n "$(dt "$t0" "$t1")")" $n "$(dt "$t0" "$t1")"
	rm -f "$tmp/pool"
	# the real pool only from a real source (not credit for a file)
	if [ "$(id -u)" = 0 ] && [ "$src" = jitter ]; then
		t0=$(now)
		# --threshold above any count: write as if the kernel always asked
		$N feed --foreground --source="$src" --max-rate=0 --threshold=1048576 --count=$n 2>/dev/null
		t1=$(now)
		printf '   %-26s /dev/random  %9s B/s  (RNDADDENTROPY)\n' "${src%%:*}" "$(rate $n "$(dt "$t0" "$t1")")"
	fi
done

echo "-- the kernel's demand: 10 s each on /dev/random, jitter source"
if [ "$(id -u)" = 0 ] && command -v rngd >/dev/null; then
	$N feed --foreground --source=jitter 2>"$tmp/feed.log" &
	p=$!; pids+=($p); sleep 10; kill -TERM $p; wait $p 2>/dev/null
	fb=$(grep -o 'wrote [0-9]* bytes' "$tmp/feed.log" | tail -1 | grep -o '[0-9]*')
	# rngd reads a pipe of neug generate; /proc/PID/io counts what it read
	mkfifo "$tmp/fifo"
	$N generate --source=jitter -n 1G 2>/dev/null >"$tmp/fifo" &
	gp=$!; pids+=($gp)
	rngd -f -r "$tmp/fifo" -p "$tmp/rngd.pid" >"$tmp/rngd.log" 2>&1 &
	rp=$!; pids+=($rp)
	sleep 10
	rb=$(awk '/^rchar/ {print $2}' /proc/$rp/io 2>/dev/null)
	kill $rp 2>/dev/null; wait $rp 2>/dev/null
	kill $gp 2>/dev/null
	echo "   neug feed (defaults: 512 B per 10 s tick, more when asked): ${fb:-?} bytes in 10 s"
	echo "   rngd -r <pipe of neug generate> (defaults): read ${rb:-?} bytes of it in 10 s (/proc/PID/io rchar)"
	echo "   (kernel 6.x: /dev/random never asks for more once initialised, entropy_avail stays $(cat /proc/sys/kernel/random/entropy_avail))"
else
	echo "   skipped: needs root and rngd (rng-tools5)"
fi

echo "-- neug egd, one client, pipelined 255-byte blocking reads"
reqs=4112  # 4112 x 255 = 1048560 bytes
printf '\x02\xff%.0s' $(seq $reqs) >"$tmp/req"
for src in "$src_file" jitter; do
	want=$((reqs * 255)); [ "$src" = jitter ] && { want=$((1028 * 255)); head -c $((1028 * 2)) "$tmp/req" >"$tmp/req.j"; }
	port=$((20000 + RANDOM % 20000))
	$N egd --listen="127.0.0.1:$port" --source="$src" --buffer=65536 2>/dev/null &
	e=$!; pids+=($e); sleep 0.5
	exec 5<>"/dev/tcp/127.0.0.1/$port"
	t0=$(now)
	if [ "$src" = jitter ]; then cat "$tmp/req.j" >&5 & else cat "$tmp/req" >&5 & fi
	head -c $want <&5 >/dev/null
	t1=$(now)
	exec 5>&-
	kill $e; wait $e 2>/dev/null
	printf '   %-26s 127.0.0.1    %9s B/s  (%d bytes in %s s)\n' "${src%%:*}" "$(rate $want "$(dt "$t0" "$t1")")" $want "$(dt "$t0" "$t1")"
done
