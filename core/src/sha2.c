/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The end of every SHA-2 hash (FIPS 180-4 5.1, 6.2, 6.4: padding and
 * output on 32- or 64-bit words) and SHA-256's entry points over it. The
 * update step is each build's own: sha256.c's takes whole blocks straight
 * from the input; the boot loader's, boot/sha2.c, is smaller. */
#include <stddef.h>
#include "ng/bytes.h"
#include "ng/sha256.h"
#include "ng/wipe.h"

/* FIPS 180-4 5.1.1 / 5.1.2 padding: 0x80, zeros up to the length field
 * (the last 8 bytes of a 64-byte block, the last 16 of a 128-byte one),
 * the message length in bits, big-endian; then the state's 8 words,
 * big-endian (6.2.2 / 6.4.2). */
void ng_sha2_final(ng_sha2_hdr *c, uint8_t *digest)
{
	const ng_sha2_kind *k = c->kind;
	uint8_t *buf = (uint8_t *)c + k->buf_off;
	void *h = (uint8_t *)c + k->h_off;
	uint32_t bs = k->block, end = bs - bs / 8u, f = c->fill;
	uint64_t bits = c->len << 3;
	buf[f++] = 0x80;
	while (f != end) {
		if (f == bs) { /* no room for the length: one more block */
			k->compress(h, buf, 1, k->word);
			f = 0;
		} else {
			buf[f++] = 0;
		}
	}
	for (f = bs; f-- > end; bits >>= 8) {
		buf[f] = (uint8_t)bits;
		if (f == bs - 8u)
			bits = (c->len >> 61) << 8; /* SHA-512's: the bits above 64 */
	}
	k->compress(h, buf, 1, k->word);
#if defined __BYTE_ORDER__ && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* each word's bytes in reverse order */
	for (f = 0; f < 8u * k->word; f++)
		digest[f] = ((const uint8_t *)h)[f ^ (k->word - 1u)];
#else
	for (f = 0; f < 8u * k->word; f++) {
		uint32_t i = f / k->word, sh = 8u * (k->word - 1u - f % k->word);
		uint64_t v = k->word == 8u ? ((const uint64_t *)h)[i] : ((const uint32_t *)h)[i];
		digest[f] = (uint8_t)(v >> sh);
	}
#endif
	ng_wipe(c, k->size);
}

/* 5.1.1 on a whole message in memory, word by word (the pipeline's mode 0,
 * one call per output): the same padding as above for SHA-256. */
size_t ng_sha256_pad(uint8_t *m, size_t f, uint64_t len)
{
	m[f++] = 0x80;
	while (f % 4u)
		m[f++] = 0;
	for (; f % 64u != 56u; f += 4)
		ng_put_le32(m + f, 0);
	ng_put_le32(m + f, __builtin_bswap32((uint32_t)(len >> 29)));   /* big endian */
	ng_put_le32(m + f + 4, __builtin_bswap32((uint32_t)(len << 3)));
	return f + 8;
}

void ng_sha256_update(ng_sha256_ctx *ctx, const void *data, size_t len)
{
	ng_sha2_update(&ctx->s, data, len);
}

void ng_sha256_final(ng_sha256_ctx *ctx, uint8_t digest[32])
{
	ng_sha2_final(&ctx->s, digest);
}

void ng_sha256(uint8_t digest[32], const void *data, size_t len)
{
	ng_sha256_ctx c;
	ng_sha256_init(&c);
	ng_sha256_update(&c, data, len);
	ng_sha256_final(&c, digest);
}
