/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SHA-512 as FIPS 180-4 specifies it (sections 4.1.3, 4.2.3, 5.1.2, 5.3.5,
 * 6.4), written for size: one round function over a state array indexed
 * by the round number instead of eight moves per round, and a 16-word
 * rolling message schedule. */
#include <string.h>
#include "ng/wipe.h"
#include "sha512.h"

/* FIPS 180-4 4.2.3: the first 64 bits of the fractional parts of the cube
 * roots of the first 80 primes. */
static const uint64_t ng_sha512_k[80] = {
	0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
	0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
	0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
	0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
	0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
	0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
	0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
	0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
	0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
	0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
	0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
	0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
	0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
	0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
	0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
	0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
	0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
	0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
	0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
	0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
};

/* FIPS 180-4 5.3.5: the first 64 bits of the fractional parts of the
 * square roots of the first 8 primes. */
static const uint64_t ng_sha512_h0[8] = {
	0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
	0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
};

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
