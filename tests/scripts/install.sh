#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make install into a DESTDIR (PREFIX=/usr and the default /usr/local):
# the exact file list, modes, @BINDIR@ substituted in the units; the units
# pass `systemd-analyze verify` (SKIP without it), the AppStream metainfo
# `appstreamcli validate --pedantic` (SKIP without it), the man pages render
# without warnings; make uninstall leaves nothing behind.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ng-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }

mans=$(cd packaging/man && ls *.1 | sort)
units=$(cd packaging/systemd && ls *.service *.socket | sort)
docs=$(for f in README.md COPYING doc/*.md; do [ -f "$f" ] && basename "$f"; done | sort)

expect() { # prefix udevdir unitdir
	local p=$1 ud=$2 un=$3
	{
		echo ".$p/bin/neug"
		for m in $mans; do echo ".$p/share/man/man1/$m"; done
		for d in $docs; do echo ".$p/share/doc/neug/$d"; done
		echo ".$p/share/doc/neug/examples/rng-tools-debian"
		echo ".$p/share/doc/neug/examples/rngd.service.d-neug.conf"
		echo ".$ud/70-neug.rules"
		echo ".$p/share/bash-completion/completions/neug"
		echo ".$p/share/metainfo/org.example.neug.metainfo.xml"
		echo ".$p/share/neug/prometheus/neug-rules.yml"
		for u in $units; do echo ".$un/$u"; done
	} | sort
}

for prefix in /usr /usr/local; do
	d=$tmp/dest${prefix//\//_}
	if [ "$prefix" = /usr ]; then ud=/lib/udev/rules.d un=/lib/systemd/system
	else ud=$prefix/lib/udev/rules.d un=$prefix/lib/systemd/system; fi
	if ! make --no-print-directory -s install PREFIX="$prefix" DESTDIR="$d" >"$tmp/log" 2>&1; then
		fail "make install PREFIX=$prefix: $(tail -3 "$tmp/log")"
		continue
	fi
	got=$(cd "$d" && find . -type f | sort)
	want=$(expect "$prefix" "$ud" "$un")
	if [ "$got" = "$want" ]; then
		pass "make install PREFIX=$prefix DESTDIR=...: the $(echo "$got" | wc -l) expected files"
	else
		fail "make install PREFIX=$prefix file list differs: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | head -5 | tr '\n' ' ')"
	fi
	mode=$(stat -c %a "$d$prefix/bin/neug" 2>/dev/null)
	[ "$mode" = 755 ] && pass "PREFIX=$prefix: neug is mode 755" || fail "PREFIX=$prefix: neug mode '$mode'"
	if grep -rq '@BINDIR@' "$d$un"; then
		fail "PREFIX=$prefix: @BINDIR@ left in the units"
	elif grep -q "ExecStart=$prefix/bin/neug feed" "$d$un/neug-feed@.service"; then
		pass "PREFIX=$prefix: units run $prefix/bin/neug"
	else
		fail "PREFIX=$prefix: neug-feed@.service does not run $prefix/bin/neug"
	fi
	if [ "$prefix" = /usr ]; then
		if command -v systemd-analyze >/dev/null; then
			# the installed units, their binary pointed at build/neug (the
			# host has no /usr/bin/neug), the template as an instance
			mkdir -p "$tmp/verify"
			for u in "$d$un"/*; do
				sed "s|$prefix/bin/neug|$PWD/build/neug|g" "$u" >"$tmp/verify/${u##*/}"
			done
			mv "$tmp/verify/neug-feed@.service" "$tmp/verify/neug-feed@ttyACM0.service"
			out=$(cd "$tmp/verify" && systemd-analyze verify --man=no neug-feed.service neug-egd.socket \
				neug-egd.service neug-feed@ttyACM0.service 2>&1)
			if [ $? = 0 ] && [ -z "$out" ]; then
				pass "systemd-analyze verify: the 4 units (neug-feed@ttyACM0 as the template's instance)"
			else
				fail "systemd-analyze verify: $(echo "$out" | head -5 | tr '\n' ' ')"
			fi
		else
			echo "SKIP: systemd-analyze verify (systemd-analyze not installed)"
		fi
		if command -v appstreamcli >/dev/null; then
			m=$d$prefix/share/metainfo/org.example.neug.metainfo.xml
			if out=$(appstreamcli validate --no-net --pedantic "$m" 2>&1) &&
				grep -q '<id>org.example.neug</id>' "$m"; then
				pass "appstreamcli validate --pedantic: the metainfo (id org.example.neug, reverse-DNS, the file named after it)"
			else
				fail "appstreamcli validate $m: $(echo "$out" | grep -E '^[EWI]:' | head -5 | tr '\n' ' ')"
			fi
		else
			echo "SKIP: appstreamcli validate (appstream not installed)"
		fi
		if command -v udevadm >/dev/null && udevadm --help 2>&1 | grep -q verify; then
			udevadm verify "$d$ud/70-neug.rules" >/dev/null 2>&1 && pass "udevadm verify 70-neug.rules" ||
				fail "udevadm verify 70-neug.rules"
		else
			# older udev: the rule at least parses in udevadm test-builtin? check syntax by hand
			bad=$(grep -v '^#' packaging/udev/70-neug.rules | tr -d '\\' | grep -Ev '^\s*$' |
				grep -Ev '(==|\+=|=)"' | head -1)
			[ -z "$bad" ] && pass "70-neug.rules: every line is KEY op \"value\" (no udevadm verify here)" ||
				fail "70-neug.rules: odd line '$bad'"
		fi
	fi
	if ! make --no-print-directory -s uninstall PREFIX="$prefix" DESTDIR="$d" >"$tmp/log" 2>&1; then
		fail "make uninstall PREFIX=$prefix: $(tail -3 "$tmp/log")"
		continue
	fi
	left=$(cd "$d" && find . -type f | head -5)
	[ -z "$left" ] && pass "make uninstall PREFIX=$prefix removes every file" ||
		fail "make uninstall PREFIX=$prefix left: $left"
done

# The man pages render without warnings, and each subcommand of this area
# has one and a --help.
warn=""
command -v man >/dev/null || { echo "SKIP: man page rendering (man-db not installed)"; warn=skip; }
[ "$warn" = skip ] || for m in packaging/man/*.1; do
	w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$m" 2>&1 >/dev/null)
	[ -n "$w" ] && warn+="$m: $w "
done
if [ "$warn" != skip ]; then
	[ -z "$warn" ] && pass "man pages render without warnings" || fail "man warnings: $warn"
fi
for c in info feed egd sign; do
	if [ -f "packaging/man/neug-$c.1" ] && build/neug "$c" --help | grep -q "^Usage: neug $c"; then
		pass "neug $c: --help and packaging/man/neug-$c.1"
	else
		fail "neug $c: --help or its man page is missing"
	fi
done
