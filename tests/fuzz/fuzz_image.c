/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer: the image trailer parser (boot/image.c) and the .dfu suffix
 * parser (host/devtools/dfu_file.c) on outside bytes. The first byte chooses:
 *   bit 0 clear: the rest is a flash region as it stands;
 *   bit 0 set:   the rest's first half is a binary, made into an image
 *                (signed with a fixed key when bit 1 is set), and the second
 *                half is (offset, xor) pairs flipping bytes of it: so the
 *                checks meet trailers that are almost right.
 * Bit 2 gives the owner key to ng_image_check. Invariants: no memory error;
 * an image left as made passes (with the key only when it was signed); with
 * the key, an image with any byte of it or its trailer changed never passes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "dfu_file.h"
#include "ed25519.h"
#include "image.h"

static const uint8_t secret[32] = {
	0x9d, 0x61, 0xb1, 0x9d, 0xef, 0xfd, 0x5a, 0x60, 0xba, 0x84, 0x4a, 0xf4, 0x92, 0xec, 0x2c, 0xc4,
	0x44, 0x49, 0xc5, 0x69, 0x7b, 0x32, 0x69, 0x19, 0x70, 0x3b, 0xac, 0x03, 0x1c, 0xae, 0x7f, 0x60,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t pub[32];
	static int have_pub;
	if (!have_pub) {
		ng_ed25519_public_key(pub, secret);
		have_pub = 1;
	}
	if (size < 1)
		return 0;
	unsigned sel = data[0];
	data++, size--;
	ng_dfu_suffix sfx;
	size_t payload;
	(void)ng_dfu_suffix_parse(data, size, &sfx, &payload);
	const uint8_t *key = (sel & 4) ? pub : NULL;
	ng_image_info info;
	if (!(sel & 1)) {
		(void)ng_image_check(data, size, key, &info);
		(void)ng_image_strerror(ng_image_check(data, size, key, NULL));
		return 0;
	}
	size_t bin = size / 2;
	if (bin == 0)
		return 0;
	size_t cap = ng_image_size(bin) + 64;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return 0;
	memset(buf, 0xFF, cap);
	memcpy(buf, data, bin);
	ng_image_params p = {.load_addr = 0x08002000u, .version = 0x000102u, .version_str = "0.1.2",
			     .board = "fuzz"};
	size_t len;
	if (ng_image_make(buf, cap, bin, &p, (sel & 2) ? secret : NULL, &len) == NG_OK) {
		uint8_t *made = malloc(len);
		if (!made) {
			free(buf);
			return 0;
		}
		memcpy(made, buf, len);
		for (const uint8_t *q = data + bin; q + 3 <= data + size; q += 3)
			buf[((size_t)q[0] << 8 | q[1]) % len] ^= q[2]; /* the region after it stays erased */
		int flipped = memcmp(made, buf, len) != 0;
		free(made);
		ng_status st = ng_image_check(buf, cap, key, &info);
		int want_ok = !flipped && (!key || (sel & 2));
		if (want_ok && st != NG_OK)
			abort(); /* an image as made must pass */
		if (flipped && key && st == NG_OK)
			abort(); /* a changed byte of a signed image never passes with the key */
	}
	free(buf);
	return 0;
}
