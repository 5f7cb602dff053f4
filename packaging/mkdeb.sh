#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make deb: builds the Debian source package and the binary packages from a
# copy of this tree, as on a clean clone (no build/ carried over), and
# collects them.
#   packaging/mkdeb.sh OUTDIR
# The copy is the files git knows (tracked, and untracked ones not ignored),
# or the whole tree but build/ outside git; it is made outside build/ (the
# top Makefile includes every *.d under build/). OUTDIR gets the .debs, the
# .dsc and its tarball (native), the .changes, the .buildinfo and
# dpkg-buildpackage's log (build.log); lintian (when installed, and LINTIAN
# is not 0) checks the .changes, which lists them all, the source package
# included: lintian.log.
# Nothing is rebuilt when no file of the tree changed since the last build
# (a checksum of them all in OUTDIR/tree.sha256).
set -eu
cd "$(dirname "$0")/.."
out=$1
for t in dpkg-buildpackage dh; do
	command -v $t >/dev/null || { echo "make deb: $t not found: apt-get install dpkg-dev debhelper" >&2; exit 1; }
done
ver=$(dpkg-parsechangelog -S Version)
files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z -c -o --exclude-standard | while IFS= read -r -d '' f; do
			[ -f "$f" ] && printf '%s\0' "$f"; done
	else
		find . -path ./build -prune -o -type f -print0
	fi
}
sum=$(files | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [ "$(cat "$out/tree.sha256" 2>/dev/null)" = "$sum" ] && ls "$out"/neug_"$ver"_*.deb >/dev/null 2>&1; then
	echo "make deb: $out/ is up to date ($(cd "$out" && ls *.deb | tr '\n' ' '))"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/neug-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
src=$tmp/neug-$ver
mkdir "$src"
files | xargs -0 cp --parents -a -t "$src"
echo "make deb: dpkg-buildpackage -us -uc in $src (log: $out/build.log)"
mkdir -p "$out"
if ! (cd "$src" && dpkg-buildpackage -us -uc) >"$out/build.log" 2>&1; then
	tail -20 "$out/build.log" >&2
	echo "make deb: dpkg-buildpackage failed (full log: $out/build.log)" >&2
	exit 1
fi
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo "$out"/*.dsc "$out"/*.tar.* "$out/tree.sha256"
mv "$tmp"/*.deb "$tmp"/*.changes "$tmp"/*.buildinfo "$tmp"/*.dsc "$tmp"/*.tar.* "$out"/
changes=$(ls "$out"/neug_"$ver"_*.changes)
ls -l "$out"/*.deb "$out"/*.dsc
if [ "${LINTIAN:-1}" != 0 ] && command -v lintian >/dev/null; then
	if lintian --fail-on error,warning "$changes" >"$out/lintian.log" 2>&1; then
		echo "make deb: lintian: no error, no warning ($(wc -l <"$out/lintian.log") lines of info in $out/lintian.log)"
	else
		cat "$out/lintian.log" >&2
		echo "make deb: lintian reports errors or warnings (above)" >&2
		exit 1
	fi
fi
echo "$sum" >"$out/tree.sha256"
