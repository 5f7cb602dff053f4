#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The man pages (packaging/man/*.1) render without markup errors: man's own
# warnings (`man --warnings`, groff's) are empty for each page; no
# alternating-font macro (.BR, .IR, ...) glues prose together (its
# arguments are joined without spaces: `.BR \-\-seed ; the number` renders
# as "--seed;thenumber"); and neug(1)'s SEE ALSO names every other page.
set -u
cd "$(dirname "$0")/../.."
command -v man >/dev/null && command -v groff >/dev/null ||
	{ echo "SKIP: man-pages: man or groff missing (scripts/deps.sh check installs man-db and groff-base)"; exit 77; }
pages=(packaging/man/*.1)
[ -e "${pages[0]}" ] || { echo "FAIL: man-pages: no pages in packaging/man/"; exit 1; }
for p in "${pages[@]}"; do
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$p" 2>&1 >/dev/null)
	[ -z "$out" ] && echo "PASS: man-pages: $p renders without warnings" ||
		echo "FAIL: man-pages: $p: $(printf '%s' "$out" | head -3 | tr '\n' ' ')"
	# two plain words in a row among an alternating macro's arguments
	glued=$(awk '/^\.(BR|BI|IB|IR|RB|RI)[ \t]/ {
		run = 0
		for (i = 2; i <= NF; i++) {
			if ($i ~ /^[a-z][a-z]+[,.;:)]*$/) { if (++run == 2) { print FILENAME ":" FNR ": " $0; break } }
			else run = 0
		}
	}' "$p")
	[ -z "$glued" ] && echo "PASS: man-pages: $p: no prose glued by an alternating-font macro" ||
		echo "FAIL: man-pages: $glued (put the prose on its own line)"
done
see=$(sed -n '/^\.SH SEE ALSO/,/^\.SH/p' packaging/man/neug.1)
missing=
for p in "${pages[@]}"; do
	n=$(basename "$p" .1)
	[ "$n" = neug ] && continue
	grep -Eq "^\.BR ${n//-/\\\\?-} \(1\)" <<<"$see" || missing+=" $n"
done
[ -z "$missing" ] && echo "PASS: man-pages: neug(1)'s SEE ALSO lists all ${#pages[@]} pages" ||
	echo "FAIL: man-pages: neug(1)'s SEE ALSO misses:$missing (packaging/man/neug.1)"
