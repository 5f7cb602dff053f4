#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The units' sandbox, measured offline: `systemd-analyze security
# --offline=true` on packaging/systemd/* (@BINDIR@ -> /usr/bin, the template
# as neug-feed@ttyACM0): exposure at most what it is (neug-feed@ 1.0,
# neug-feed 0.7, neug-egd 0.2), so a change that loosens a unit fails here. (tests/system checks the loaded units in a guest, and
# that they still work.)
set -u
cd "$(dirname "$0")/../.."
command -v systemd-analyze >/dev/null || { echo "SKIP: units-security: systemd-analyze not installed"; exit 0; }
systemd-analyze security --help 2>&1 | grep -q -- '--offline' ||
	{ echo "SKIP: units-security: this systemd-analyze has no --offline (systemd < 250)"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ng-units.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for u in packaging/systemd/*; do sed 's|@BINDIR@|/usr/bin|g' "$u" >"$tmp/${u##*/}"; done
mv "$tmp/neug-feed@.service" "$tmp/neug-feed@ttyACM0.service"
for um in neug-feed@ttyACM0.service:1.0 neug-feed.service:0.7 neug-egd.service:0.2; do
	u=${um%:*} max=${um#*:}
	e=$(cd "$tmp" && systemd-analyze security --offline=true --no-pager "$u" 2>&1 |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	if [ -n "$e" ] && awk -v e="$e" -v m="$max" 'BEGIN { exit !(e <= m) }'; then
		echo "PASS: units-security: $u exposure $e (at most $max)"
	else
		echo "FAIL: units-security: $u exposure '$e', more than $max: $(cd "$tmp" && systemd-analyze security --offline=true --no-pager "$u" 2>&1 | grep '✗' | head -5 | tr '\n' ' ')"
	fi
done
