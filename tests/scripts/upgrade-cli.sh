#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `neug upgrade` and `neug info --verify` without a board: --help, usage
# errors (exit 2), a missing file (3), files that are not images or are
# damaged (5, nothing sent), and a valid image with no board to take it (3).
# The updates themselves run against the emulated board under the real
# kernel (tests/guest/check.sh, checks 9 to 11).
set -u
. "$(dirname "$0")/../lib.sh"
cd "$(dirname "$0")/../.."
neug=build/neug
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { echo "PASS: $*"; }
no() { echo "FAIL: $*"; }
t() { local n=$1; shift; if "$@"; then ok "$n"; else no "$n"; fi; }
run() { "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }

run $neug upgrade --help
t "upgrade --help exits 0 and names every option and exit status" \
	sh -c "[ $rc = 0 ] && grep -q 'Usage: neug upgrade IMAGE \[DEVICE\]' '$tmp/out' &&
		grep -q -- --timeout '$tmp/out' && grep -q -- --quiet '$tmp/out' && grep -q '7 the board did not' '$tmp/out'"
run $neug info --help
t "info --help names --verify" sh -c "[ $rc = 0 ] && grep -q -- '--verify=IMAGE' '$tmp/out'"
run $neug upgrade
t "upgrade without an image: exit 2 ($(cat "$tmp/err"))" [ $rc = 2 ]
run $neug upgrade a b c
t "upgrade with three arguments: exit 2 ($(cat "$tmp/err"))" [ $rc = 2 ]
run $neug upgrade --timeout=0 x
t "upgrade --timeout=0: exit 2 ($(cat "$tmp/err"))" [ $rc = 2 ]
run $neug info --verify=x --json
t "info --verify with --json: exit 2" [ $rc = 2 ]
run $neug upgrade /nonexistent/neug.dfu
t "upgrade with a missing file: exit 3, the file named ($(cat "$tmp/err"))" \
	sh -c "[ $rc = 3 ] && grep -q /nonexistent/neug.dfu '$tmp/err'"
head -c 5000 /dev/urandom >"$tmp/random.img"
run $neug upgrade "$tmp/random.img"
t "upgrade with random bytes: exit 5, not an image ($(cat "$tmp/err"))" \
	sh -c "[ $rc = 5 ] && grep -q 'not a NeuG firmware image' '$tmp/err'"
run $neug info --verify="$tmp/random.img"
t "info --verify with random bytes: exit 5 ($(cat "$tmp/err"))" [ $rc = 5 ]

# A real image (neug sign) and a .dfu whose suffix CRC no longer matches.
head -c 3000 /dev/urandom >"$tmp/app.bin"
$neug sign --board=fst-01 --dfu="$tmp/neug.dfu" -o "$tmp/neug.img" "$tmp/app.bin" >"$tmp/sign.out" 2>&1
if [ -s "$tmp/neug.img" ] && [ -s "$tmp/neug.dfu" ]; then
	flip_byte "$tmp/neug.dfu" 100
	run $neug upgrade "$tmp/neug.dfu"
	t "upgrade with a damaged .dfu: exit 5, the suffix CRC named ($(cat "$tmp/err"))" \
		sh -c "[ $rc = 5 ] && grep -q 'CRC does not match' '$tmp/err'"
	run $neug upgrade "$tmp/neug.img" 000000000000000000000000
	t "upgrade of a valid image with no such board: exit 3 ($(cat "$tmp/err"))" \
		sh -c "[ $rc = 3 ] && grep -qi 'no NeuG board\|libusb' '$tmp/err'"
else
	echo "SKIP: upgrade-cli: no image made (neug sign: $(head -c 200 "$tmp/sign.out" 2>/dev/null))"
fi
