#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The repository stands alone: a clone of HEAD placed where no ../shared exists
# holds every test data file, names no path outside itself, and passes the
# golden-vector test from its own tests/data. Run from the repo root after `make`.
set -u
N=$(pwd)/${NEUG:-build/neug}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
[ -x "$N" ] || { echo "FAIL: $N not built"; exit 1; }
if ! git rev-parse --git-dir >/dev/null 2>&1; then echo "SKIP: standalone: not a git checkout"; exit 77; fi
# The committed tree (what a user clones), plus the working tree's tests/data
# and scripts when run before a commit: copy tracked and new files alike.
mkdir -p "$T/solo/neug"
git ls-files -co --exclude-standard -z | tar --null -T - -cf - 2>/dev/null | tar -C "$T/solo/neug" -xf -
cd "$T/solo/neug" || exit 1
[ ! -e ../shared ] && pass "no ../shared beside the clone" || fail "../shared exists beside $T/solo/neug"
for f in neug-1.0.6/adc.bin neug-1.0.6/stuck.bin neug-1.0.6/lowbit.bin neug-1.0.6/out-adc-m0.bin \
	neug-1.0.6/out-adc-m1.bin neug-1.0.6/README.md sp800-90b/README.md sp800-90b/data/rand8-1M.bin; do
	[ -s "tests/data/$f" ] && pass "tests/data/$f present" || fail "tests/data/$f missing from the repository"
done
# bench/bench-assess.sh may name it: NIST's tool, built from there when it is
# present, is a same-run speed reference for `make bench-assess`, never test
# data, and the bench says so and runs without it.
refs=$(grep -rIl --exclude-dir=.git -e '\.\./shared' . 2>/dev/null |
	grep -v -e '^./tests/scripts/standalone.sh$' -e '^./bench/bench-assess.sh$')
[ -z "$refs" ] && pass "no file names ../shared" || fail "files still name ../shared: $refs"
unset NG_VECTORS NG_REFERENCE
out=$(NEUG="$N" bash tests/scripts/generate-vectors.sh 2>&1)
np=$(grep -c '^PASS' <<<"$out"); nf=$(grep -c '^FAIL' <<<"$out")
[ "$np" -gt 10 ] && [ "$nf" = 0 ] && pass "golden vectors from the clone's own tests/data ($np checks)" ||
	fail "golden vectors in the standalone clone: $np passed, $nf failed: $(grep '^FAIL' <<<"$out" | head -3)"
