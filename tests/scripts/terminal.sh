#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Terminal output: neug writes no colour and no escape sequence (ESC, 0x1b)
# whatever NO_COLOR says; its one piece of terminal control, the carriage
# return of `neug assess`'s progress line on standard error, appears only
# when standard error is a terminal (script(1) gives it a pty) and never in
# a redirected stream; `neug generate` refuses to write to a terminal.
set -u
cd "$(dirname "$0")/../.."
command -v script >/dev/null || { echo "SKIP: terminal: script(1) not installed (bsdutils)"; exit 0; }
[ -x build/neug ] || { echo "FAIL: terminal: build/neug missing (make)"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ng-term.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
data=tests/data/sp800-90b/data/adc-lo8.bin
count() { # BYTE FILE: how many times the byte (octal) occurs
	tr -cd "\\$1" <"$2" | wc -c
}
# on a terminal (stdout and stderr on the pty script(1) makes)
for env in "" "NO_COLOR=1" "TERM=dumb"; do
	script -qefc "env $env build/neug assess $data" "$tmp/tty.log" >/dev/null 2>&1 </dev/null
	esc=$(count 033 "$tmp/tty.log")
	grep -q '^Assessed min-entropy' "$tmp/tty.log" || { echo "FAIL: terminal: assess under script(1) ${env:+($env) }gave no result: $(tail -2 "$tmp/tty.log")"; continue; }
	if [ "$esc" = 0 ]; then
		echo "PASS: terminal: assess on a terminal${env:+ with $env}: no escape sequence"
	else
		echo "FAIL: terminal: assess on a terminal${env:+ with $env}: $esc ESC bytes"
	fi
done
# the progress line: on the terminal only
script -qefc "build/neug assess $data" "$tmp/tty.log" >/dev/null 2>&1 </dev/null
if grep -q $'\r[a-zA-Z -]* \[[#.]*\] [0-9]*/[0-9]*' "$tmp/tty.log"; then
	echo "PASS: terminal: assess draws its progress line (carriage returns) on a terminal"
else
	echo "FAIL: terminal: no progress line on a terminal: $(od -c "$tmp/tty.log" | head -3 | tr '\n' ' ')"
fi
script -qefc "build/neug assess $data 2>$tmp/err.log" "$tmp/tty2.log" >/dev/null 2>&1 </dev/null
build/neug assess "$data" >"$tmp/out.log" 2>&1
if [ "$(count 015 "$tmp/err.log")" = 0 ] && [ "$(count 033 "$tmp/err.log")" = 0 ] &&
	[ "$(count 015 "$tmp/out.log")" = 0 ] && [ "$(count 033 "$tmp/out.log")" = 0 ] &&
	grep -q '^Assessed min-entropy' "$tmp/out.log"; then
	echo "PASS: terminal: assess with standard error redirected (stdout a terminal, or both a file): no carriage return, no escape"
else
	echo "FAIL: terminal: redirected assess output has control bytes: CR $(count 015 "$tmp/err.log")+$(count 015 "$tmp/out.log"), ESC $(count 033 "$tmp/err.log")+$(count 033 "$tmp/out.log")"
fi
# generate never writes random bytes to a terminal
script -qefc "build/neug generate -n 16" "$tmp/gen.log" >/dev/null 2>&1 </dev/null
rc=$?
if [ "$rc" = 2 ] && grep -q 'standard output is a terminal' "$tmp/gen.log"; then
	echo "PASS: terminal: generate to a terminal refuses (status 2): $(grep -m1 'standard output is a terminal' "$tmp/gen.log" | tr -d '\r')"
else
	echo "FAIL: terminal: generate to a terminal: status $rc, $(tr -d '\r' <"$tmp/gen.log" | head -2)"
fi
