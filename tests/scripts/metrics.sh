#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The metrics file (host/daemons/metrics.c) as node_exporter's textfile collector
# reads it: `promtool check metrics` accepts neug feed --metrics, neug egd
# --metrics and neug info --prometheus's format (the unit test's expositions
# from decoded GET_INFO answers, NG_METRICS_DUMP); while feed runs the file
# is replaced (a new inode each time), never seen partial by a reader
# polling it, and its figures move (bytes written, entropy_avail); the last
# write says not running; a persistent failure shows during the grace
# period; egd counts the bytes it served; bad paths are errors. promtool's
# one objection let through: entropy is counted in bits (the _bits families
# below), which its linter would have in bytes. The alert rules:
# tests/scripts/prometheus-rules.sh. No step depends on a sleep being long
# enough: each waits for what it checks, with a deadline.
set -u
. "$(dirname "$0")/../lib.sh"
ng_test_init metrics
N=$PWD/build/neug
command -v promtool >/dev/null || { echo "SKIP: metrics: promtool not installed (Debian package prometheus)"; exit 0; }
echo 123 >"$tmp/entropy_avail"
# wait_until SECONDS COMMAND...: true as soon as COMMAND is, false after SECONDS.
wait_until() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.05; done
}
export NEUG_ENTROPY_AVAIL=$tmp/entropy_avail
# promtool check metrics on stdin: nothing to report but "use base unit
# bytes instead of bits" on the entropy families, counted in bits.
check_metrics() {
	local out
	out=$(promtool check metrics 2>&1)
	case $? in 0|3) ;; *) echo "$out"; return 1 ;; esac
	out=$(echo "$out" | grep -v -E '^neug_(min_entropy_bits|adc_min_entropy_bits|kernel_entropy_avail_bits|feed_entropy_credited_bits_total) use base unit "bytes" instead of "bits"$' | grep .)
	[ -z "$out" ] || { echo "$out"; return 1; }
}
if printf '# HELP neug_x_bits x\n# TYPE neug_x_bits gauge\nneug_x_bits 1\n' | check_metrics >/dev/null; then
	fail "check_metrics lets through a _bits family that neug does not write"
fi

# neug info --prometheus needs a device: the formatter from decoded answers.
mkdir "$tmp/info"
NG_METRICS_DUMP=$tmp/info build/tests/test_metrics >"$tmp/info/log" 2>&1
for f in info-neug1 info-fw; do
	if [ -s "$tmp/info/$f.prom" ] && out=$(check_metrics <"$tmp/info/$f.prom" 2>&1); then
		pass "promtool check metrics accepts neug info --prometheus's format ($f: $(grep -c '^# TYPE' "$tmp/info/$f.prom") families)"
	else
		fail "promtool on $f.prom: $out $(grep FAIL "$tmp/info/log")"
	fi
done

# feed: a file pool, jitter, the file rewritten every 0.2 s.
m=$tmp/neug.prom
: >"$tmp/pool"
$N feed --foreground --source=jitter --pool="$tmp/pool" --max-rate=8192 --chunk=256 --metrics="$m" \
	--metrics-interval=0.2 2>"$tmp/log" &
pid=$!
pids+=($pid)
wait_until 60 test -s "$m" -a -s "$tmp/pool"
lines=$(wc -l <"$m")
cp "$m" "$tmp/first.prom"
b0=$(sed -n 's/^neug_feed_written_bytes_total{.*} //p' "$tmp/first.prom")
echo 200 >"$tmp/entropy_avail"
# Read the file while feed rewrites it, until it has been replaced 5 times
# and shows both new figures (or 60 s): every read must be complete.
partial=0 reads=0 changes=0 ino=$(stat -c %i "$m") moved=0
end=$((SECONDS + 60))
while [ $SECONDS -lt $end ]; do
	snap=$(cat "$m")
	reads=$((reads + 1))
	# complete: every line, ending with the last family's sample
	if [ "$(printf '%s\n' "$snap" | wc -l)" != "$lines" ] || ! printf '%s\n' "$snap" | tail -1 | grep -q '^neug_start_timestamp_seconds{'; then
		partial=$((partial + 1))
	fi
	i=$(stat -c %i "$m")
	[ "$i" != "$ino" ] && changes=$((changes + 1)) ino=$i
	b=$(printf '%s\n' "$snap" | sed -n 's/^neug_feed_written_bytes_total{.*} //p')
	if [ $changes -ge 5 ] && [ -n "$b" ] && [ -n "$b0" ] && [ "$b" -gt "$b0" ] &&
		printf '%s\n' "$snap" | grep -q '^neug_kernel_entropy_avail_bits{.*} 200$'; then
		printf '%s\n' "$snap" >"$tmp/mid.prom"
		moved=1
		break
	fi
done
[ $moved = 1 ] || cp "$m" "$tmp/mid.prom"
if out=$(check_metrics <"$tmp/first.prom" 2>&1) && out=$(check_metrics <"$tmp/mid.prom" 2>&1); then
	pass "promtool check metrics accepts neug feed --metrics (twice while it runs, $lines lines)"
else
	fail "promtool on feed's metrics: $out"
fi
[ $partial = 0 ] && [ $changes -ge 5 ] &&
	pass "$reads reads while feed runs: none partial; the file replaced (another inode) $changes times" ||
	fail "atomic replacement: $partial of $reads reads partial, $changes inode changes"
b1=$(sed -n 's/^neug_feed_written_bytes_total{.*} //p' "$tmp/mid.prom")
[ -n "$b0" ] && [ -n "$b1" ] && [ "$b1" -gt "$b0" ] && grep -q '^neug_kernel_entropy_avail_bits{.*} 123$' "$tmp/first.prom" &&
	grep -q '^neug_kernel_entropy_avail_bits{.*} 200$' "$tmp/mid.prom" &&
	pass "the figures move while feed runs: bytes written $b0 -> $b1, entropy_avail 123 -> 200" ||
	fail "updates: bytes written '$b0' -> '$b1'; $(grep entropy_avail_bits{ "$tmp/first.prom" "$tmp/mid.prom" | tr '\n' ' ')"
t=$(sed -n 's/^neug_last_output_timestamp_seconds{.*} //p' "$tmp/mid.prom")
grep -q '^neug_info{program="feed",source="jitter",serial="",mode="conditioned"} 1$' "$tmp/mid.prom" &&
	grep -q '^neug_device_present{program="feed",source="jitter"} 1$' "$tmp/mid.prom" &&
	[ -n "$t" ] && [ $((t - $(date +%s))) -le 0 ] && [ $(($(date +%s) - t)) -le 5 ] &&
	pass "identity labels, device present, last output within 5 s ($t)" ||
	fail "identity/last output: $(grep -E '^neug_(info|device_present|last_output)' "$tmp/mid.prom" | tr '\n' ' ')"
kill -TERM $pid
wait $pid
rc=$?
w=$(grep -o 'wrote [0-9]* bytes' "$tmp/log" | tail -1 | tr -dc 0-9)
if [ $rc = 143 ] && grep -q '^neug_running{program="feed",source="jitter"} 0$' "$m" &&
	grep -q "^neug_feed_written_bytes_total{program=\"feed\",source=\"jitter\"} $w\$" "$m" &&
	[ -z "$(ls "$tmp" | grep '\.tmp\.')" ] && check_metrics <"$m" >/dev/null 2>&1; then
	pass "at exit: the last write says not running and $w bytes written, as the log; no temporary file left"
else
	fail "at exit: rc $rc, log '$w' bytes; $(grep -E '^neug_(running|feed_bytes)' "$m" | tr '\n' ' '); $(ls "$tmp")"
fi

# A persistent failure: visible during the grace period, then exit 4.
$N feed --foreground --source="file:$V/stuck.bin" --pool="$tmp/pool" --max-rate=0 --grace=5 --metrics="$m" \
	--metrics-interval=0.2 2>"$tmp/log" &
pid=$!
pids+=($pid)
# while it waits out the grace: the file shows the failure, still running
grace() { cp "$m" "$tmp/grace.prom" 2>/dev/null && grep -q '^neug_persistent_failure{.*} 1$' "$tmp/grace.prom"; }
wait_until 60 grace
wait $pid
rc=$?
grep -q '^neug_persistent_failure{.*} 1$' "$tmp/grace.prom" && grep -q '^neug_running{.*} 1$' "$tmp/grace.prom" &&
	[ $rc = 4 ] && grep -q '^neug_persistent_failure{.*} 1$' "$m" && grep -q '^neug_running{.*} 0$' "$m" &&
	grep -q '^neug_status{.*} [0-9]' "$m" &&
	pass "stuck.bin: persistent failure 1 while it waits out the grace, then running 0; exit 4" ||
	fail "persistent failure: rc $rc; $(grep -E '^neug_(persistent|running)' "$tmp/grace.prom" "$m" | tr '\n' ' ')"

# egd: bytes served, clients, last output; not running at exit.
port=$((20000 + RANDOM % 20000))
: >"$tmp/elog"
$N egd --listen="127.0.0.1:$port" --source="file:$V/adc.bin" --metrics="$tmp/egd.prom" --metrics-interval=0.2 \
	2>"$tmp/elog" &
egd=$!
pids+=($egd)
wait_until 60 grep -q serving "$tmp/elog"
grep -q '^neug_egd_served_bytes_total{program="egd",source="file:.*adc.bin"} 0$' "$tmp/egd.prom" &&
	grep -q '^neug_last_output_timestamp_seconds{.*} 0$' "$tmp/egd.prom" &&
	pass "egd at start: 0 bytes served, no output yet (last output 0)" ||
	fail "egd at start: $(grep -E '^neug_(egd|last)' "$tmp/egd.prom" | tr '\n' ' ')"
if exec 5<>"/dev/tcp/127.0.0.1/$port"; then
	printf '\x02\xff' >&5
	head -c 255 <&5 >/dev/null
	# the next rewrite after the answer (a round of the event loop and the interval)
	wait_until 60 grep -q '^neug_egd_served_bytes_total{.*} 255$' "$tmp/egd.prom"
	cp "$tmp/egd.prom" "$tmp/egd-mid.prom"
	exec 5>&-
	grep -q '^neug_egd_served_bytes_total{.*} 255$' "$tmp/egd-mid.prom" &&
		grep -q '^neug_egd_clients_total{.*} 1$' "$tmp/egd-mid.prom" &&
		! grep -q '^neug_last_output_timestamp_seconds{.*} 0$' "$tmp/egd-mid.prom" &&
		out=$(check_metrics <"$tmp/egd-mid.prom" 2>&1) &&
		pass "promtool check metrics accepts neug egd --metrics: 255 bytes served to 1 client, last output set" ||
		fail "egd metrics: $out $(grep -E '^neug_(egd|last)' "$tmp/egd-mid.prom" | tr '\n' ' ')"
else
	fail "connect to egd on 127.0.0.1:$port"
fi
kill -TERM $egd
wait $egd
rc=$?
[ $rc = 143 ] && grep -q '^neug_running{program="egd",.*} 0$' "$tmp/egd.prom" &&
	pass "egd at exit: not running" || fail "egd exit: rc $rc; $(grep running "$tmp/egd.prom")"

# Detached (daemon(3) changes to /): a relative PATH is still the one given.
: >"$tmp/pool"
(cd "$tmp" && $N feed --source=jitter --pool="$tmp/pool" --count=1024 --max-rate=0 --metrics=rel.prom 2>/dev/null)
wait_until 60 grep -qs '^neug_running{.*} 0$' "$tmp/rel.prom"
grep -q '^neug_running{.*} 0$' "$tmp/rel.prom" && grep -q '^neug_feed_written_bytes_total{.*} 1024$' "$tmp/rel.prom" &&
	[ ! -e /rel.prom ] && pass "detached feed, --metrics=rel.prom: written where it was started, 1024 bytes, then not running" ||
	fail "relative --metrics: $(ls "$tmp") $(grep -E 'running|bytes_written' "$tmp/rel.prom" 2>&1 | tr '\n' ' ')"

# Bad input: the directory must exist; nothing is created.
out=$($N feed --foreground --source="file:$V/adc.bin" --pool="$tmp/pool" --metrics="$tmp/missing/neug.prom" 2>&1)
rc=$?
[ $rc = 3 ] && echo "$out" | grep -q "missing/neug.prom" && [ ! -e "$tmp/missing" ] &&
	pass "feed --metrics in a missing directory: exit 3, the path named" || fail "feed missing directory: rc $rc $out"
out=$($N egd --source="file:$V/adc.bin" --listen="unix:$tmp/x.sock" --metrics="$tmp/missing/neug.prom" 2>&1)
rc=$?
[ $rc = 3 ] && echo "$out" | grep -q "missing/neug.prom" && [ ! -e "$tmp/missing" ] &&
	pass "egd --metrics in a missing directory: exit 3, the path named" || fail "egd missing directory: rc $rc $out"
mkfifo "$tmp/fifo.prom"
out=$(timeout 60 $N feed --foreground --source="file:$V/adc.bin" --pool="$tmp/pool" --metrics="$tmp/fifo.prom" 2>&1)
rc=$?
[ $rc = 3 ] && echo "$out" | grep -q "fifo.prom.*FIFO" && [ -p "$tmp/fifo.prom" ] &&
	pass "feed --metrics on a FIFO (it would block the daemon): exit 3, named, still a FIFO" ||
	fail "feed --metrics FIFO: rc $rc $out"
out=$($N feed --metrics-interval=0 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "bad --metrics-interval '0'" && pass "usage error: --metrics-interval=0 (exit 2)" ||
	fail "--metrics-interval=0: rc $rc $out"
