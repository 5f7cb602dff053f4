#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The firmware images are byte-reproducible: two copies of the tree at
# different paths build identical neug.bin, neug.img and neug.dfu for two
# boards, signed with the test owner key (tests/data/keys: a throwaway key
# for tests only) through `make OWNER_KEY=...`; the signed image checks
# under that key's public key, and signing changes nothing before the
# trailer. Run from the repo root after `make`.
set -u
N=$(pwd)/${NEUG:-build/neug}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
[ -x "$N" ] || { echo "FAIL: $N not built"; exit 1; }
command -v arm-none-eabi-gcc >/dev/null || { echo "SKIP: firmware-reproducible: arm-none-eabi-gcc not installed"; exit 77; }
git rev-parse --git-dir >/dev/null 2>&1 || { echo "SKIP: firmware-reproducible: not a git checkout"; exit 77; }
boards="fst-01 blue-pill"
key=tests/data/keys/test-owner.key
for d in a/neug b/other/name; do
	mkdir -p "$T/$d"
	git ls-files -co --exclude-standard -z | tar --null -T - -cf - 2>/dev/null | tar -C "$T/$d" -xf -
	targets="$(for b in $boards; do for f in bin img dfu; do printf 'build/firmware/%s/neug.%s ' "$b" "$f"; done; done)
		build/firmware/fst-01/loader.bin build/firmware/fst-01/neug-full.bin"
	if ! make -C "$T/$d" --no-print-directory -j2 FW_SIGN_TOOL="$N" OWNER_KEY="$key" $targets \
		>"$T/build.log" 2>&1; then
		fail "make firmware images in $T/$d"; tail -n 20 "$T/build.log" | sed 's/^/# /'
		exit 1
	fi
done
# the boot loader (with the owner key in its key slot) and the full image
for f in loader.bin neug-full.bin; do
	x=$T/a/neug/build/firmware/fst-01/$f y=$T/b/other/name/build/firmware/fst-01/$f
	if [ -s "$x" ] && cmp -s "$x" "$y"; then
		pass "fst-01: $f identical from two trees at different paths ($(sha256sum <"$x" | cut -c1-16)...)"
	else
		fail "fst-01: $f differs between the two builds"
	fi
done
for b in $boards; do
	for f in bin img dfu; do
		x=$T/a/neug/build/firmware/$b/neug.$f y=$T/b/other/name/build/firmware/$b/neug.$f
		if [ -s "$x" ] && cmp -s "$x" "$y"; then
			pass "$b: neug.$f identical from two trees at different paths ($(sha256sum <"$x" | cut -c1-16)...)"
		else
			fail "$b: neug.$f differs between the two builds"
		fi
	done
	img=$T/a/neug/build/firmware/$b/neug.img
	if "$N" sign --check --public-key "$key.pub" "$img" >"$T/chk" 2>&1 && grep -q "^board: *$b" "$T/chk"; then
		pass "$b: make OWNER_KEY=... signed it: it checks under the key's public key, board $b"
	else
		fail "$b: the signed image does not check: $(tail -n 1 "$T/chk")"
	fi
	bin=$T/a/neug/build/firmware/$b/neug.bin
	if cmp -s <(head -c "$(stat -c %s "$bin")" "$img") "$bin"; then
		pass "$b: the image begins with neug.bin unchanged"
	else
		fail "$b: the image does not begin with neug.bin"
	fi
done
# A changed OWNER_KEY remakes the images (unsigned now).
make -C "$T/a/neug" --no-print-directory FW_SIGN_TOOL="$N" OWNER_KEY= build/firmware/fst-01/neug.img >/dev/null 2>&1
if "$N" sign --check "$T/a/neug/build/firmware/fst-01/neug.img" 2>/dev/null | grep -q '^signed: *no'; then
	pass "make without OWNER_KEY after a signed build remakes an unsigned image"
else
	fail "make without OWNER_KEY left the signed image in place"
fi
