#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# neug generate on bad input: a clear message, the documented exit status
# (2 usage, 3 input/I-O), and never a partial output file. Also: --stats is
# one valid JSON object whose counters are right for adc.bin.
set -u
N=${NEUG:-build/neug}
V=${NG_VECTORS:-tests/data}/neug-1.0.6
UID_ARG=--uid=12345678:9abcdef0:0fedcba9
T=$(mktemp -d)
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
ok() { if eval "$2"; then pass "$1"; else fail "$1"; fi; }
[ -x "$N" ] || { echo "FAIL: $N not built"; exit 1; }
[ -f "$V/adc.bin" ] || { echo "FAIL: vectors not found in $V"; exit 1; }
# run ARGS...: sets rc, out (stdout file), err (stderr text)
run() { "$N" generate "$@" >"$T/out" 2>"$T/err" </dev/null; rc=$?; err=$(tr '\n' ' ' <"$T/err"); }

# Input errors: exit 3, the message names the file and the reason.
run --source=file:"$T/missing.bin"
ok "missing file: exit 3 (got $rc)" '[ $rc = 3 ]'
ok "missing file: message names it and says why ($err)" '[[ $err == *"$T/missing.bin"*"No such file or directory"* ]]'
ok "missing file: no output" '[ ! -s "$T/out" ]'
mkdir "$T/adir"
run --source=file:"$T/adir"
ok "a directory as the file: exit 3 and the reason ($err)" '[ $rc = 3 ] && [[ $err == *"$T/adir"*"Is a directory"* ]]'
cp "$V/adc.bin" "$T/noperm.bin"; chmod 000 "$T/noperm.bin"
# A file that opens but cannot be read, even by root: /proc/self/mem at offset 0.
run --source=file:/proc/self/mem
ok "a file that cannot be read: exit 3, names it and the reason ($err)" \
	'[ $rc = 3 ] && [[ $err == *"reading file"*/proc/self/mem*"Input/output error"* ]] && [ ! -s "$T/out" ]'
if [ "$(id -u)" = 0 ]; then
	echo "SKIP: file without read permission (running as root: permissions do not stop reading)"
else
	run --source=file:"$T/noperm.bin"
	ok "unreadable file: exit 3, names it, 'Permission denied' ($err)" \
		'[ $rc = 3 ] && [[ $err == *noperm.bin*"Permission denied"* ]]'
fi
run --source=file:"$T/missing.bin" -o "$T/never.bin"
ok "missing file with -o: exit 3 and no output file" '[ $rc = 3 ] && [ -z "$(ls "$T" | grep never)" ]'

# A source that ends before -n: an input error (3), the counts in the
# message, no file kept with -o; without -n the end of a file is the end.
run --source=file:"$V/adc.bin" -n 100M -o "$T/short.bin"
ok "a file source shorter than -n: exit 3, 'the source ended after 6400 of 104857600 bytes', no file ($err)" \
	'[ $rc = 3 ] && [[ $err == *"$V/adc.bin"*"the source ended after 6400 of 104857600 bytes"* ]] && [ ! -e "$T/short.bin" ]'
run --source=file:"$V/adc.bin" -n 6400 -o "$T/exact.bin"
ok "a file source exactly -n long: exit 0, 6400 bytes" '[ $rc = 0 ] && [ "$(stat -c %s "$T/exact.bin")" = 6400 ]'
run --source=file:"$V/adc.bin" -n 6401
ok "one byte short of -n to stdout: exit 3 (the 6400 bytes were written)" '[ $rc = 3 ] && [[ $err == *"ended after 6400 of 6401 bytes"* ]]'
# A file truncated while it is read: a big regular file, cut to 1,000,000
# bytes once neug has written 64 KiB of it (raw mode: bytes in = bytes out;
# its buffers and the pipe's hold far less than 1,000,000 bytes).
for _ in $(seq 4096); do cat "$V/adc.bin"; done >"$T/grow.bin"
size=$(stat -c %s "$T/grow.bin")
"$N" generate --source=file:"$T/grow.bin" --mode=raw 2>"$T/err" | {
	head -c 65536 >/dev/null    # neug has read the start of the file
	truncate -s 1000000 "$T/grow.bin"
	cat >/dev/null
}
rc=${PIPESTATUS[0]}
ok "a file truncated while read: exit 3, 'truncated while read' ($(head -c 200 "$T/err"))" \
	'[ $rc = 3 ] && grep -q "ended after 1000000 of its $size bytes (truncated while read)" "$T/err"'

# A length that is not a multiple of 4: a warning, and the tail is not used.
{ cat "$V/adc.bin"; printf '\x01\x02\x03'; } >"$T/tail.bin"
run --source=file:"$T/tail.bin" --mode=raw "$UID_ARG"
ok "length not a multiple of 4: exit 0 (got $rc)" '[ $rc = 0 ]'
ok "length not a multiple of 4: warning names the file and the 3 unused bytes ($err)" \
	'[[ $err == *warning*"$T/tail.bin"*"not a multiple of 4"*"3 byte(s) are not used"* ]]'
ok "length not a multiple of 4: the tail is not used (raw output == adc.bin)" 'cmp -s "$T/out" "$V/adc.bin"'
head -c 4099 "$V/adc.bin" | "$N" generate --source=file:/dev/stdin --mode=raw >"$T/out" 2>"$T/err"
rc=$?
ok "piped input, 4099 bytes: warning at the end, 4096 bytes out" \
	'[ $rc = 0 ] && grep -q "not a multiple of 4" "$T/err" && [ "$(stat -c %s "$T/out")" = 4096 ]'

# Usage errors: exit 2 and a message saying what is accepted.
usage() { # name expected-substring args...
	local name=$1 want=$2; shift 2
	run "$@"
	ok "$name: exit 2 (got $rc)" '[ $rc = 2 ]'
	ok "$name: message says what is accepted ($err)" '[[ $err == *"$want"* ]]'
	ok "$name: no output" '[ ! -s "$T/out" ]'
}
usage "--uid with two words" "three hex words" --source=file:"$V/adc.bin" --uid=12345678:9abcdef0
usage "--uid with a non-hex word" "three hex words" --source=file:"$V/adc.bin" --uid=12345678:9abcdefg:0
usage "--uid with a 9-digit word" "three hex words" --source=file:"$V/adc.bin" --uid=123456789:0:0
usage "--uid with four words" "three hex words" --source=file:"$V/adc.bin" --uid=1:2:3:4
usage "-n with a bad suffix" "4096, 64K, 1M" --source=file:"$V/adc.bin" -n 10X
usage "-n negative" "4096, 64K, 1M" --source=file:"$V/adc.bin" -n -5
usage "-n empty" "4096, 64K, 1M" --source=file:"$V/adc.bin" -n ''
usage "-n overflowing" "4096, 64K, 1M" --source=file:"$V/adc.bin" -n 99999999999999999999G
usage "--mode unknown" "conditioned, crc32, raw" --source=file:"$V/adc.bin" --mode=sha
usage "--mode=3" "conditioned, crc32, raw" --source=file:"$V/adc.bin" --mode=3
usage "--min-entropy not a number" "from 0.1 to 32" --source=file:"$V/adc.bin" --min-entropy=lots
usage "--min-entropy zero" "from 0.1 to 32" --source=file:"$V/adc.bin" --min-entropy=0
usage "--min-entropy above 32" "from 0.1 to 32" --source=file:"$V/adc.bin" --min-entropy=33
usage "--source unknown" "jitter, file:PATH, device" --source=usb
usage "an unknown option" "unknown option" --frobnicate
usage "a stray argument" "unexpected argument" --source=file:"$V/adc.bin" extra
"$N" generate --help >"$T/help" 2>&1
ok "--help exits 0 and lists every option" '[ $? = 0 ] && for o in --source --mode -n -o --uid --min-entropy --stats --summary; do grep -q -- "$o" "$T/help" || exit 1; done'

# Unwritable output: exit 3, a message naming it, no partial file.
run --source=file:"$V/adc.bin" -o "$T/nodir/out.bin"
ok "-o into a missing directory: exit 3, names it ($err)" '[ $rc = 3 ] && [[ $err == *"$T/nodir/out.bin"*"No such file or directory"* ]]'
mkdir "$T/ro"; chmod 555 "$T/ro"
if [ "$(id -u)" = 0 ]; then
	# root ignores directory modes; a read-only bind is not available
	# everywhere, so use a read-only file system when /proc is one.
	run --source=file:"$V/adc.bin" -o /proc/neug-test.bin
	ok "-o into a read-only place (/proc, as root): exit 3, no file ($err)" \
		'[ $rc = 3 ] && [ ! -e /proc/neug-test.bin ] && [[ $err == */proc/neug-test.bin* ]]'
else
	run --source=file:"$V/adc.bin" -o "$T/ro/out.bin"
	ok "-o into a read-only directory: exit 3, no file ($err)" \
		'[ $rc = 3 ] && [ -z "$(ls "$T/ro")" ] && [[ $err == *"Permission denied"* ]]'
fi
"$N" generate --source=file:"$V/adc.bin" >/dev/full 2>"$T/err"
rc=$?
ok "stdout on /dev/full: exit 3, 'No space left on device' ($(cat "$T/err"))" \
	'[ $rc = 3 ] && grep -q "standard output.*No space left on device" "$T/err"'
run --source=file:"$V/adc.bin" -o /dev/full
ok "-o /dev/full: exit 3, names it, no temporary file left in /dev ($err)" \
	'[ $rc = 3 ] && [[ $err == */dev/full*"No space left on device"* ]] && [ -z "$(ls /dev | grep "^full\.tmp")" ]'
echo old >"$T/keep.bin"
run --source=file:"$V/stuck.bin" -o "$T/keep.bin"
ok "a failed run leaves an existing -o FILE untouched" '[ $rc = 4 ] && [ "$(cat "$T/keep.bin")" = old ] && [ "$(ls "$T" | grep -c keep)" = 1 ]'

# A signal during an unlimited -o run: no file, no temporary, exit 128+signal.
"$N" generate --source=jitter -o "$T/sig.bin" 2>"$T/err" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
ok "SIGINT during -o: exit 130, message, no file nor temporary left (rc $rc)" \
	'[ $rc = 130 ] && grep -q "interrupted by signal 2" "$T/err" && [ -z "$(ls "$T" | grep "^sig")" ]'

# SIGPIPE/EPIPE on stdout: a normal, quiet end.
"$N" generate --source=file:"$V/adc.bin" --mode=raw 2>"$T/err" | head -c 100 >/dev/null
rc=${PIPESTATUS[0]}
ok "reader closing the pipe: exit 0 and no message (rc $rc, '$(cat "$T/err")')" '[ $rc = 0 ] && [ ! -s "$T/err" ]'

# --stats: one valid JSON object, counters right for adc.bin.
"$N" generate --source=file:"$V/adc.bin" "$UID_ARG" --stats >"$T/out" 2>"$T/stats.json"
rc=$?
ok "--stats: exit 0" '[ $rc = 0 ]'
ok "--stats: stderr is valid JSON (python3 -m json.tool)" 'python3 -m json.tool "$T/stats.json" >/dev/null'
check_json() { python3 - "$T/stats.json" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
for kv in sys.argv[2:]:
    k, v = kv.split("=", 1)
    got = d.get(k, d.get("counters", {}).get(k))  # top level, else a counter
    if str(got) != v:
        bad.append("%s=%r (want %s)" % (k, got, v))
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
}
ok "--stats for adc.bin mode 0: bytes 6400, 200 blocks, 28000 samples, 140/block, no failure, status ok ($(check_json bytes=6400 blocks_out=200 samples=28000 samples_per_block=140 h_milli=3700 rct_cutoff=10 blocks_dropped=0 rct_failures=0 apt_failures=0 status=ok))" \
	'check_json bytes=6400 blocks_out=200 samples=28000 samples_per_block=140 h_milli=3700 rct_cutoff=10 blocks_dropped=0 rct_failures=0 apt_failures=0 status=ok >/dev/null'
ok "--stats for adc.bin mode 0: NeuG's CRC counters as in the vectors README (errors 0, rc_max 2, p64_max 3, p4k_max 22) ($(check_json neug_err=0 neug_rc_max=2 neug_p64_max=3 neug_p4k_max=22))" \
	'check_json neug_err=0 neug_rc_max=2 neug_p64_max=3 neug_p4k_max=22 >/dev/null'
ok "--stats: the summary fields and every row of the counter table (usb/neug_counters.h) under counters" \
	'python3 -c "import json,re,sys; d=json.load(open(sys.argv[1])); rows=re.findall(r\"X\\((\\w+), \\d+,\", open(sys.argv[2]).read()); sys.exit(0 if len(rows) > 40 and all(k in d for k in \"source mode bytes status_names status reason counters\".split()) and sorted(d[\"counters\"]) == sorted(rows) else 1)" "$T/stats.json" usb/neug_counters.h'
"$N" generate --source=file:"$V/adc.bin" "$UID_ARG" --mode=raw --stats >"$T/out" 2>"$T/stats.json"
ok "--stats for adc.bin mode 2: bytes 112000, 3500 blocks ($(check_json bytes=112000 blocks_out=3500 samples=28000))" \
	'check_json bytes=112000 blocks_out=3500 samples=28000 >/dev/null'
"$N" generate --source=file:"$V/stuck.bin" "$UID_ARG" --stats >"$T/out" 2>"$T/err"
tail -n 1 "$T/err" >"$T/stats.json"
ok "--stats after a health failure: valid JSON, status failed, fail_index 9, reason names the test ($(check_json status=failed fail_index=9 bytes=0))" \
	'check_json status=failed fail_index=9 bytes=0 >/dev/null && grep -q "repetition count test" "$T/stats.json"'
"$N" generate --source=file:"$V/adc.bin" "$UID_ARG" -n 4K -o "$T/s.bin" --summary 2>"$T/err"
ok "--summary names the source, declared min-entropy, bytes, rate and health counters" \
	'grep -q "adc.bin" "$T/err" && grep -q "3.700 bits/sample" "$T/err" && grep -q "4096 bytes" "$T/err" && grep -q "KiB/s" "$T/err" && grep -q "repetition count" "$T/err"'
exit 0
