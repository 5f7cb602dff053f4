#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# One version everywhere: NG_VERSION (core/include/ng/version.h), what
# `neug --version` prints, the Debian package's version (debian/changelog;
# the upstream part if it ever gets a Debian revision) and the man pages'
# footers (.TH ... "neug X").
set -u
cd "$(dirname "$0")/../.."
[ -x build/neug ] || { echo "FAIL: version: build/neug missing (make)"; exit 1; }
v=$(sed -n 's/^#define NG_VERSION "\(.*\)"$/\1/p' core/include/ng/version.h)
[ -n "$v" ] || { echo "FAIL: version: no NG_VERSION in core/include/ng/version.h"; exit 1; }
out=$(build/neug --version)
[ "$out" = "neug $v" ] && echo "PASS: version: neug --version prints 'neug $v' (NG_VERSION)" ||
	echo "FAIL: version: neug --version prints '$out', NG_VERSION is $v"
deb=$(sed -n '1s/^neug (\([^)]*\)).*/\1/p' debian/changelog)
up=${deb%-*}
[ "$up" = "$v" ] && echo "PASS: version: debian/changelog's $deb is NG_VERSION" ||
	echo "FAIL: version: debian/changelog says $deb, NG_VERSION is $v (add a changelog entry: dch -v $v)"
bad=$(grep -L "^\.TH .* \"neug $v\"" packaging/man/*.1 | tr '\n' ' ')
[ -z "$bad" ] && echo "PASS: version: every man page's footer says neug $v" ||
	echo "FAIL: version: man pages with another version in .TH: $bad"
