#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every output file goes through one writer (host/base/outfile.c), seen from the
# commands: a device node (root: mknod of a null device in the scratch
# directory; the real /dev/null is never touched) given to generate -o,
# assess --save and --report, keygen and sign stays the same device; a FIFO
# with a reader gets the bytes and stays a FIFO; a symbolic link is followed
# (the link stays, its file is replaced; sha256sum as the oracle) and a
# dangling one refused; a 0600 target stays 0600; new files are 0600 for
# random bytes and keys, 0644 for reports; after SIGKILL of generate in the
# middle of its output, the target is as it was and no temporary is left;
# messages name the path given.
set -u
. "$(dirname "$0")/../lib.sh"
ng_test_init outfile
N=$PWD/build/neug
umask 022
src=(--source="file:$V/adc.bin")

# A device node: written in place, never replaced.
if [ "$(id -u)" = 0 ] && mknod "$tmp/null" c 1 3 2>/dev/null && chmod 666 "$tmp/null"; then
	before=$(stat -c '%F %t:%T %a %i' "$tmp/null")
	"$N" generate "${src[@]}" -n 4096 -o "$tmp/null"; r1=$?
	"$N" assess "${src[@]}" --samples=2000 --save="$tmp/null" --report="$tmp/null" >/dev/null 2>&1; r2=$?
	after=$(stat -c '%F %t:%T %a %i' "$tmp/null")
	[ $r1 = 0 ] && [ $r2 = 0 ] && [ "$before" = "$after" ] &&
		pass "a null device node as generate -o, assess --save and --report: written in place, still '$after'" ||
		fail "device node: generate $r1, assess $r2; '$before' -> '$after'"
	mknod "$tmp/full" c 1 7 && chmod 666 "$tmp/full"
	err=$("$N" assess "${src[@]}" --samples=2000 --save="$tmp/full" 2>&1 >/dev/null); rc=$?
	[ $rc = 3 ] && [[ $err == *"$tmp/full"*"No space left"* ]] && [[ $err != *.tmp* ]] && [ -c "$tmp/full" ] &&
		pass "assess --save on a full device node: exit 3, the path named, still a device ($err)" ||
		fail "assess --save full: rc $rc $err"
else
	echo "SKIP: device nodes (needs root and mknod)"
fi

# A FIFO with a reader: the bytes arrive, the FIFO stays.
mkfifo "$tmp/fifo"
sha256sum <"$tmp/fifo" >"$tmp/fifo.sum" &
reader=$!
pids+=($reader)
"$N" generate "${src[@]}" -n 6400 -o "$tmp/fifo"; rc=$?
wait $reader
"$N" generate "${src[@]}" -n 6400 | sha256sum >"$tmp/want.sum"
[ $rc = 0 ] && [ -p "$tmp/fifo" ] && cmp -s "$tmp/fifo.sum" "$tmp/want.sum" &&
	pass "generate -o FIFO: the reader's sha256sum is that of the same run to stdout; still a FIFO" ||
	fail "FIFO: rc $rc $(cat "$tmp/fifo.sum" "$tmp/want.sum" | tr '\n' ' ')"

# A symbolic link: followed; a dangling one refused; a 0600 target stays 0600.
"$N" generate "${src[@]}" -n 1000 -o "$tmp/real"
chmod 600 "$tmp/real"
ln -s real "$tmp/link"
"$N" generate "${src[@]}" -n 5000 -o "$tmp/link"; rc=$?
"$N" generate "${src[@]}" -n 5000 | sha256sum | cut -d' ' -f1 >"$tmp/want"
[ $rc = 0 ] && [ -L "$tmp/link" ] && [ "$(stat -c '%a %s' "$tmp/real")" = "600 5000" ] &&
	[ "$(sha256sum <"$tmp/real" | cut -d' ' -f1)" = "$(cat "$tmp/want")" ] &&
	pass "generate -o a symbolic link: the link stays, its 0600 file replaced (5000 bytes, same sha256), 0600 kept" ||
	fail "symlink: rc $rc $(ls -l "$tmp")"
ln -s missing "$tmp/dangling"
err=$("$N" generate "${src[@]}" -n 10 -o "$tmp/dangling" 2>&1); rc=$?
[ $rc = 3 ] && [[ $err == *"$tmp/dangling"*"symbolic link to a missing file"* ]] && [ ! -e "$tmp/missing" ] &&
	pass "generate -o a dangling symbolic link: exit 3, refused, nothing created" || fail "dangling: rc $rc $err"

# New files: 0600 for random bytes and keys, 0644 for reports and .pub;
# an existing report's 0600 kept.
"$N" generate "${src[@]}" -n 100 -o "$tmp/new.bin"
"$N" assess "${src[@]}" --samples=2000 --save="$tmp/s.bin" --report="$tmp/r.html" >/dev/null 2>&1
: >"$tmp/r600.html"
chmod 600 "$tmp/r600.html"
"$N" assess "${src[@]}" --samples=2000 --report="$tmp/r600.html" >/dev/null 2>&1
"$N" keygen "$tmp/k" >/dev/null
m=$(stat -c '%a' "$tmp/new.bin" "$tmp/s.bin" "$tmp/r.html" "$tmp/r600.html" "$tmp/k" "$tmp/k.pub" | tr '\n' ' ')
[ "$m" = "600 600 644 600 600 644 " ] && [ -s "$tmp/r600.html" ] &&
	pass "modes: generate -o 600, --save 600, --report 644, an existing 0600 report 600, key 600, .pub 644" ||
	fail "modes: $m"

# SIGKILL while generate writes: the old file whole, no temporary left.
"$N" generate "${src[@]}" -n 1000 -o "$tmp/out"
old=$(sha256sum <"$tmp/out")
mkfifo "$tmp/slow"
exec 7<>"$tmp/slow"
head -c 40000 "$V/adc.bin" >&7  # some input, then none: generate waits
"$N" generate --source="file:$tmp/slow" -n 1M -o "$tmp/out" 2>/dev/null &
g=$!
pids+=($g)
# wait until it is blocked on its source, past its first output
for _ in $(seq 600); do grep -q 'pipe_read\|fifo' "/proc/$g/wchan" 2>/dev/null && break; sleep 0.05; done
kill -KILL $g
wait $g 2>/dev/null
exec 7>&-
left=$(ls -A "$tmp" | grep -c '\.tmp\.')
[ "$(sha256sum <"$tmp/out")" = "$old" ] && [ "$left" = 0 ] &&
	pass "SIGKILL in the middle of generate -o: the old file unchanged, no temporary file left" ||
	fail "SIGKILL: $(ls -A "$tmp")"
# a dead writer's leftover PATH.tmp.PID is removed by the next run
sh -c 'exit 0' &
dead=$!
wait $dead
echo stale >"$tmp/out.tmp.$dead"
"$N" generate "${src[@]}" -n 1000 -o "$tmp/out"; rc=$?
[ $rc = 0 ] && [ ! -e "$tmp/out.tmp.$dead" ] &&
	pass "a killed writer's out.tmp.$dead is removed by the next generate -o out" || fail "stale: rc $rc $(ls -A "$tmp")"
exit 0
