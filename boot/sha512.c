/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SHA-512 as FIPS 180-4 specifies it (sections 4.1.3, 4.2.3, 5.1.2, 5.3.5,
 * 6.4), written for size: one round per loop pass, the four sigma
 * functions as one routine driven by a table of rotation counts. */
#include <string.h>
#include "ng/sha2k.h"
#include "ng/wipe.h"
#include "sha512.h"

static void ng_store_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* FIPS 180-4 4.1.3: each sigma is the XOR of x rotated right by r[0],
 * r[1] and r[2], the last a plain shift when 64 is added to it. */
static const uint8_t ng_sha512_rot[4][3] = {
	{ 28, 34, 39 },         /* SIGMA0 */
	{ 14, 18, 41 },         /* SIGMA1 */
	{ 1, 8, 64 + 7 },       /* sigma0 */
	{ 19, 61, 64 + 6 },     /* sigma1 */
};

static uint64_t ng_sha512_sig(uint64_t x, const uint8_t r[3])
{
	uint64_t s = 0;
	for (int i = 0; i < 3; i++) {
		unsigned n = r[i] & 63;
		uint64_t y = x >> n;
		if (r[i] < 64)
			y |= x << (64 - n);
		s ^= y;
	}
	return s;
}

/* FIPS 180-4 6.4.2 on one 128-byte block: the whole schedule W[0..79] in
 * w, the working variables a..h in v[0..7], moved down one place per round. */
static void ng_sha512_block(uint64_t h[8], const uint8_t *p)
{
	uint64_t w[80], v[8];
	memcpy(v, h, sizeof v);
	for (unsigned t = 0; t < 80; t++) {
		uint64_t *x = &w[t];
		if (t < 16) {
			*x = 0;
			for (int i = 0; i < 8; i++)
				*x = *x << 8 | *p++;
		} else {
			*x = ng_sha512_sig(x[-2], ng_sha512_rot[3]) + x[-7] +
			     ng_sha512_sig(x[-15], ng_sha512_rot[2]) + x[-16];
		}
		uint64_t t1 = v[7] + ng_sha512_sig(v[4], ng_sha512_rot[1]) + (v[6] ^ (v[4] & (v[5] ^ v[6]))) +
			      ng_sha512_k[t] + *x;
		uint64_t t2 = ng_sha512_sig(v[0], ng_sha512_rot[0]) + ((v[0] & v[1]) | (v[2] & (v[0] | v[1])));
		for (int i = 7; i > 0; i--)
			v[i] = v[i - 1];
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
	ng_wipe(w, sizeof w);
	ng_wipe(v, sizeof v);
}

void ng_sha512_init(ng_sha512_ctx *ctx)
{
	ng_sha2k_init();
	memcpy(ctx->h, ng_sha512_h0, sizeof ctx->h);
	ctx->len = 0;
	ctx->fill = 0;
}

void ng_sha512_update(ng_sha512_ctx *ctx, const void *data, size_t len)
{
	const uint8_t *p = data;
	ctx->len += len;
	while (len--) {
		ctx->buf[ctx->fill++] = *p++;
		if (ctx->fill == 128) {
			ng_sha512_block(ctx->h, ctx->buf);
			ctx->fill = 0;
		}
	}
}

/* FIPS 180-4 5.1.2: 0x80, zeros to 112 bytes into a block, and the
 * 128-bit length in bits. */
void ng_sha512_final(ng_sha512_ctx *ctx, uint8_t digest[64])
{
	static const uint8_t pad[1] = { 0x80 }, zero[1] = { 0 };
	uint8_t n[16];
	ng_store_be64(n, ctx->len >> 61);
	ng_store_be64(n + 8, ctx->len << 3);
	ng_sha512_update(ctx, pad, 1);
	while (ctx->fill != 112)
		ng_sha512_update(ctx, zero, 1);
	ng_sha512_update(ctx, n, 16);
	for (int i = 0; i < 8; i++)
		ng_store_be64(digest + 8 * i, ctx->h[i]);
	ng_wipe(ctx, sizeof *ctx);
}

void ng_sha512(uint8_t digest[64], const void *data, size_t len)
{
	ng_sha512_ctx c;
	ng_sha512_init(&c);
	ng_sha512_update(&c, data, len);
	ng_sha512_final(&c, digest);
}
