/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SHA-512 as FIPS 180-4 specifies it (sections 4.1.3, 4.2.3, 5.1.2, 5.3.5,
 * 6.4), written for size: one round function over a state array indexed
 * by the round number instead of eight moves per round, and a 16-word
 * rolling message schedule. */
#include <string.h>
#include "ng/sha2k.h"
#include "ng/wipe.h"
#include "sha512.h"

static uint64_t ng_ror64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

static uint64_t ng_load_be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void ng_store_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* FIPS 180-4 6.4.2 on one 128-byte block. Round t keeps working variable j
 * (a = 0 ... h = 7) in v[(j - t) & 7]: the new a lands in the old h's
 * place and the new e in the old d's, the others stay where they are. */
static void ng_sha512_block(uint64_t h[8], const uint8_t *p)
{
	uint64_t w[16], v[8];
	memcpy(v, h, sizeof v);
	for (unsigned t = 0; t < 80; t++) {
		uint64_t x;
		if (t < 16) {
			x = w[t] = ng_load_be64(p + 8 * t);
		} else {
			uint64_t a = w[(t - 15) & 15], b = w[(t - 2) & 15];
			x = w[t & 15] += (ng_ror64(b, 19) ^ ng_ror64(b, 61) ^ (b >> 6)) + w[(t - 7) & 15] +
					 (ng_ror64(a, 1) ^ ng_ror64(a, 8) ^ (a >> 7));
		}
#define NG_V(j) v[((j) - t) & 7]
		uint64_t e = NG_V(4), a = NG_V(0);
		uint64_t t1 = NG_V(7) + (ng_ror64(e, 14) ^ ng_ror64(e, 18) ^ ng_ror64(e, 41)) +
			      (NG_V(6) ^ (e & (NG_V(5) ^ NG_V(6)))) + ng_sha512_k[t] + x;
		uint64_t t2 = (ng_ror64(a, 28) ^ ng_ror64(a, 34) ^ ng_ror64(a, 39)) +
			      ((a & NG_V(1)) | (NG_V(2) & (a | NG_V(1))));
		NG_V(3) += t1;
		NG_V(7) = t1 + t2;
#undef NG_V
	}
	/* After 80 rounds (a multiple of 8) every variable is back in its place. */
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
	ng_wipe(w, sizeof w);
	ng_wipe(v, sizeof v);
}

void ng_sha512_init(ng_sha512_ctx *ctx)
{
	memcpy(ctx->h, ng_sha512_h0, sizeof ctx->h);
	ctx->len = 0;
	ctx->fill = 0;
}

void ng_sha512_update(ng_sha512_ctx *ctx, const void *data, size_t len)
{
	const uint8_t *p = data;
	ctx->len += len;
	while (len) {
		size_t n = 128 - ctx->fill;
		if (n > len)
			n = len;
		if (ctx->fill == 0 && len >= 128) {
			ng_sha512_block(ctx->h, p);
			n = 128;
		} else {
			memcpy(ctx->buf + ctx->fill, p, n);
			ctx->fill += (uint32_t)n;
			if (ctx->fill == 128) {
				ng_sha512_block(ctx->h, ctx->buf);
				ctx->fill = 0;
			}
		}
		p += n;
		len -= n;
	}
}

/* FIPS 180-4 5.1.2: 0x80, zeros, and the 128-bit length in bits. */
void ng_sha512_final(ng_sha512_ctx *ctx, uint8_t digest[64])
{
	uint64_t bits = ctx->len << 3;
	uint32_t f = ctx->fill;
	ctx->buf[f++] = 0x80;
	if (f > 112) {
		memset(ctx->buf + f, 0, 128 - f);
		ng_sha512_block(ctx->h, ctx->buf);
		f = 0;
	}
	memset(ctx->buf + f, 0, 120 - f);
	ctx->buf[119] = (uint8_t)(ctx->len >> 61);
	ng_store_be64(ctx->buf + 120, bits);
	ng_sha512_block(ctx->h, ctx->buf);
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
