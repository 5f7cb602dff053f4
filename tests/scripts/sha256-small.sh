#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The boot loader's SHA-256 (boot/sha2.c built with NG_SHA256_SMALL:
# SHA-512's compression function on 32-bit words and a byte-at-a-time
# update, with core/src/sha2.c's padding and output, for size) against
# sha256sum, on lengths around the block and padding boundaries and a large
# random input.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/drv.c" <<'C'
#include <stdio.h>
#include "ng/sha256.h"
static unsigned char buf[1 << 20];
int main(void)
{
	size_t n = fread(buf, 1, sizeof buf, stdin);
	unsigned char d[32];
	ng_sha256(d, buf, n);
	for (int i = 0; i < 32; i++)
		printf("%02x", d[i]);
	printf("\n");
	return 0;
}
C
if ! gcc -std=c11 -O2 -Wall -Wextra -Werror -Icore/include -Iboot -DNG_SHA256_SMALL "$tmp/drv.c" boot/sha2.c core/src/sha2.c \
	core/src/wipe.c -o "$tmp/sha"; then
	echo "FAIL: sha256-small: the NG_SHA256_SMALL build does not compile"
	exit 1
fi
rc=0
for n in 0 1 55 56 63 64 65 119 120 128 1000 65537; do
	head -c "$n" /dev/urandom > "$tmp/in"
	a=$("$tmp/sha" < "$tmp/in") b=$(sha256sum < "$tmp/in" | cut -c1-64)
	if [ "$a" = "$b" ]; then
		echo "PASS: sha256-small: $n bytes = sha256sum"
	else
		echo "FAIL: sha256-small: $n bytes: $a, sha256sum $b"
		rc=1
	fi
done
exit $rc
