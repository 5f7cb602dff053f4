#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# neug keygen and neug sign: key files, images and .dfu files checked by
# the real tools (OpenSSL verifies the signature and the key over the bytes
# doc/firmware.md names, sha256sum the digest, dfu-util's dfu-suffix the
# DFU suffix), refusals with their exit statuses, no partial files.
# Run from the repo root after `make`.
set -u
N=$(pwd)/${NEUG:-build/neug}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
check() { local what=$1; shift; if "$@" >/dev/null; then pass "$what"; else fail "$what"; fi; }
res() { if [ "$1" = 0 ]; then pass "$2"; else fail "$2"; fi; }
check_not() { local what=$1; shift; if "$@" >/dev/null 2>&1; then fail "$what"; else pass "$what"; fi; }
[ -x "$N" ] || { echo "FAIL: $N not built"; exit 1; }
cd "$T" || exit 1

# ---- keygen
"$N" keygen owner >keygen.out 2>&1; rc=$?
check "neug keygen owner: exit 0" [ "$rc" = 0 ]
check "the secret key is 32 bytes, mode 0600" [ "$(stat -c '%s %a' owner)" = "32 600" ]
check "the public key owner.pub is 32 bytes" [ "$(stat -c %s owner.pub)" = 32 ]
pubhex=$(od -An -tx1 -v owner.pub | tr -d ' \n')
check "it prints the public key in hex" grep -q "public key (hex): $pubhex" keygen.out
kid=$(sha256sum <owner.pub | cut -c1-16)
check "it prints the key id, the first 8 bytes of SHA-256(public key) (sha256sum)" grep -q "key id: $kid" keygen.out
cp owner owner.orig
"$N" keygen owner >/dev/null 2>err; rc=$?
[ "$rc" = 3 ] && cmp -s owner owner.orig; res $? "keygen over an existing key: exit 3, key unchanged"
check "  and says to use --force" grep -q -- "--force" err
rm owner.pub
"$N" keygen --public owner >/dev/null; rc=$?
[ "$rc" = 0 ] && [ "$(od -An -tx1 -v owner.pub | tr -d ' \n')" = "$pubhex" ]; res $? "keygen --public remakes owner.pub from owner, identical"
"$N" keygen --public -o other.pub owner >/dev/null
check "keygen --public -o FILE writes the public key there" cmp -s other.pub owner.pub
"$N" keygen --force owner >/dev/null
check_not "keygen --force makes a new key" cmp -s owner owner.orig
cp owner.orig owner && "$N" keygen --public owner >/dev/null
# OpenSSL's public key for the same secret: PKCS#8 DER of the raw seed.
if command -v openssl >/dev/null; then
	{ printf '\x30\x2e\x02\x01\x00\x30\x05\x06\x03\x2b\x65\x70\x04\x22\x04\x20'; cat owner; } >sk.der
	openssl pkey -inform DER -in sk.der -pubout -outform DER 2>/dev/null | tail -c 32 >ossl.pub
	check "OpenSSL derives the same public key from the secret key" cmp -s ossl.pub owner.pub
else
	echo "SKIP: openssl not installed (key and signature cross-checks)"
fi
head -c 31 owner >short
"$N" sign --key short -o x.img owner.pub >/dev/null 2>err; rc=$?
[ "$rc" = 3 ] && grep -q "31 bytes, not 32" err; res $? "a 31-byte key file: exit 3, says it is not 32 bytes"
check "  and writes no image" [ ! -e x.img ]

# ---- sign
head -c 5001 /dev/urandom >neug.bin
"$N" sign --key owner --board fst-01 --version 1.2.3 --load-address 0x08002000 --dfu neug.dfu neug.bin 2>err; rc=$?
check "neug sign --key --dfu: exit 0 ($(cat err))" [ "$rc" = 0 ]
check "neug.img is neug.bin padded to 5004 bytes + the 192-byte trailer" [ "$(stat -c %s neug.img)" = $((5004 + 192)) ]
check "the image starts with neug.bin unchanged, padded with 0xFF" \
	cmp -s <(head -c 5004 neug.img) <(cat neug.bin; printf '\xff\xff\xff')
"$N" sign --check --public-key owner.pub neug.img >chk.out; rc=$?
[ "$rc" = 0 ] && grep -q '^result: *ok' chk.out; res $? "neug sign --check --public-key: exit 0, result ok"
grep -q '^board: *fst-01' chk.out && grep -q '^version: *1.2.3 (0x010203)' chk.out && grep -q '^load: *0x08002000' chk.out && grep -q '^length: *5004 bytes' chk.out; res $? "  board, version, load address, length"
check "  the SHA-256 is sha256sum's of the padded binary" grep -q "^sha256: *$(head -c 5004 neug.img | sha256sum | cut -c1-64)" chk.out
check "  signed by the key id" grep -q "^signed: *yes, key id $kid" chk.out
if command -v openssl >/dev/null; then
	{ printf '\x30\x2a\x30\x05\x06\x03\x2b\x65\x70\x03\x21\x00'; cat owner.pub; } >pk.der
	head -c $((5004 + 124)) neug.img >signed.part
	tail -c +$((5004 + 124 + 1)) neug.img | head -c 64 >sig.bin
	check "OpenSSL verifies the signature over image || trailer bytes 0..123" \
		openssl pkeyutl -verify -pubin -inkey pk.der -keyform DER -rawin -in signed.part -sigfile sig.bin
	flip_byte signed.part 100
	check_not "OpenSSL rejects it over a changed image" openssl pkeyutl -verify -pubin -inkey pk.der -keyform DER \
		-rawin -in signed.part -sigfile sig.bin >/dev/null 2>&1
fi
cp neug.img again.img
"$N" sign --key owner --board fst-01 --version 1.2.3 --load-address 0x08002000 --dfu again.dfu -o again.img neug.bin
cmp -s neug.img again.img && cmp -s neug.dfu again.dfu; res $? "signing again gives byte-identical .img and .dfu files"
"$N" keygen other >/dev/null
"$N" sign --check --public-key other.pub neug.img >/dev/null 2>err; rc=$?
[ "$rc" = 1 ] && grep -q "another key" err; res $? "--check under another key: exit 1, 'signed by another key'"
"$N" sign -o unsigned.img neug.bin
"$N" sign --check --public-key owner.pub unsigned.img >/dev/null 2>err; rc=$?
[ "$rc" = 1 ] && grep -q "not signed" err; res $? "an unsigned image under a key: exit 1, 'not signed'"
"$N" sign --check unsigned.img >/dev/null; rc=$?
check "an unsigned image, no key (integrity only): exit 0" [ "$rc" = 0 ]
cp neug.img flip.img
flip_byte flip.img 2000
"$N" sign --check flip.img >/dev/null 2>err; rc=$?
[ "$rc" = 1 ] && grep -q "SHA-256 does not match" err; res $? "a changed image byte: exit 1, 'SHA-256 does not match'"
head -c 5100 neug.img >trunc.img
"$N" sign --check trunc.img >/dev/null 2>err; rc=$?
[ "$rc" = 1 ] && grep -q "no image trailer" err; res $? "a truncated image: exit 1, 'no image trailer'"
"$N" sign --check /nonexistent.img >/dev/null 2>err; rc=$?
[ "$rc" = 3 ] && grep -q "/nonexistent.img" err; res $? "a missing file: exit 3, names it"

# ---- the DFU suffix
[ "$(stat -c %s neug.dfu)" = $((5196 + 16)) ] && cmp -s <(head -c 5196 neug.dfu) neug.img; res $? ".dfu = .img + 16 bytes"
suffix=$(tail -c 16 neug.dfu | od -An -tx1 -v | tr -d ' \n')
check "suffix: bcdDevice ffff, idProduct 0001, idVendor 234b, bcdDFU 0100, UFD, 16" \
	[ "${suffix:0:24}" = ffff01004b23000155464410 ]
if command -v dfu-suffix >/dev/null; then
	out=$(dfu-suffix --check neug.dfu 2>&1); rc=$?
	[ "$rc" = 0 ] && grep -q 'Vendor ID:.*0x234B' <<<"$out"; res $? "dfu-suffix --check accepts neug.dfu (dfu-util)"
	cp neug.img ref.dfu
	dfu-suffix -v 0x234b -p 0x0001 -d 0xffff -a ref.dfu >/dev/null 2>&1
	check "dfu-suffix -a on the image gives the identical .dfu file (CRC included)" cmp -s ref.dfu neug.dfu
else
	echo "SKIP: dfu-suffix not installed (apt-get install dfu-util)"
fi
"$N" sign --check --public-key owner.pub neug.dfu >chk.out; rc=$?
[ "$rc" = 0 ] && grep -q 'idVendor 234b idProduct 0001' chk.out; res $? "neug sign --check reads the .dfu (suffix stripped): ok"
cp neug.dfu bad.dfu
flip_byte bad.dfu 10
"$N" sign --check bad.dfu >/dev/null 2>err; rc=$?
[ "$rc" = 3 ] && grep -q "CRC does not match" err; res $? "a .dfu with a changed byte: exit 3, 'CRC does not match'"
"$N" sign --vid 0x1234 --pid 0x5678 --bcd-device 0x0200 --dfu ids.dfu -o ids.img neug.bin
check "--vid, --pid, --bcd-device go into the suffix" [ "$(tail -c 16 ids.dfu | head -c 6 | od -An -tx1 | tr -d ' \n')" = 000278563412 ]

# ---- usage errors and partial files
for args in "" "--load-address=nonsense neug.bin" "--load-address=0x08002001 neug.bin" \
	"--board=0123456789abcdef neug.bin" "--vid=0x10000 neug.bin" "--check --key owner neug.img" \
	"--public-key owner.pub neug.bin" "a.bin b.bin" "--bogus neug.bin"; do
	"$N" sign $args >/dev/null 2>&1; rc=$?
	check "neug sign $args: exit 2" [ "$rc" = 2 ]
done
"$N" sign --help | grep -q -- "--load-address"; check "neug sign --help lists --load-address" [ $? = 0 ]
"$N" keygen --help | grep -q -- "--public"; check "neug keygen --help lists --public" [ $? = 0 ]
mkdir ro && chmod 555 ro
if [ "$(id -u)" != 0 ]; then
	"$N" sign -o ro/x.img neug.bin >/dev/null 2>err; rc=$?
	check "an unwritable output directory: exit 3" [ "$rc" = 3 ]
fi
"$N" sign -o nodir/x.img neug.bin >/dev/null 2>err; rc=$?
[ "$rc" = 3 ] && grep -q "nodir/x.img" err; res $? "an output in a missing directory: exit 3, names it"
: >empty.bin
"$N" sign empty.bin >/dev/null 2>err; rc=$?
[ "$rc" = 3 ] && grep -q empty err && [ ! -e empty.img ]; res $? "an empty binary: exit 3, 'empty'"
left=$(ls | grep -c '\.tmp\.' || true)
check "no temporary file left behind" [ "$left" = 0 ]
