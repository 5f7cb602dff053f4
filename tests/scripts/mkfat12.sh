#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# usb/tools/mkfat12 on bad input: a clear message naming the file, exit 1,
# no output file left behind; and the same input gives the same output.
set -u
cd "$(dirname "$0")/../.."
make --no-print-directory -s build/gen/mkfat12 || { echo "FAIL: mkfat12: build"; exit 1; }
m=build/gen/mkfat12
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
res() { if eval "$2"; then echo "PASS: mkfat12: $1"; else echo "FAIL: mkfat12: $1"; fi; }

$m "$t/out.c" "$t/NOFILE" 2>"$t/err"; rc=$?
res "missing input: exit 1, names the file, no output" \
	'[ $rc = 1 ] && grep -q "NOFILE" "$t/err" && grep -q "No such file" "$t/err" && [ ! -e "$t/out.c" ] && [ ! -e "$t/out.c.tmp" ]'
echo x >"$t/toolongname.txt"
$m "$t/out.c" "$t/toolongname.txt" 2>"$t/err"; rc=$?
res "a name that is not 8.3: exit 1, says so, no output" \
	'[ $rc = 1 ] && grep -q "8.3" "$t/err" && [ ! -e "$t/out.c" ]'
head -c 200000 /dev/zero >"$t/BIG"
$m "$t/out.c" "$t/BIG" 2>"$t/err"; rc=$?
res "files larger than the volume: exit 1, says so, no output" \
	'[ $rc = 1 ] && grep -q "do not fit" "$t/err" && [ ! -e "$t/out.c" ]'
$m 2>"$t/err"; rc=$?
res "no arguments: usage, exit 2" '[ $rc = 2 ] && grep -q usage "$t/err"'
$m "$t/a.c" usb/disk/README COPYING 2>/dev/null && $m "$t/b.c" usb/disk/README COPYING 2>/dev/null
res "reproducible output" 'cmp -s "$t/a.c" "$t/b.c"'
$m "$t/nodir/out.c" usb/disk/README 2>"$t/err"; rc=$?
res "unwritable output: exit 1, names it" '[ $rc = 1 ] && grep -q "nodir/out.c" "$t/err"'
