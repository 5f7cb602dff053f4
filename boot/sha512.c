/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SHA-512 as FIPS 180-4 specifies it (sections 4.1.3, 4.2.3, 5.1.2, 5.3.5,
 * 6.4), written for size: one round per loop pass, the four sigma
 * functions as one routine driven by a table of rotation counts. */
#include <stddef.h>
#include <string.h>
#include "ng/sha2k.h"
#include "ng/wipe.h"
#include "sha512.h"

/* FIPS 180-4 4.1.3: each sigma is the XOR of x rotated right by r[0],
 * r[1] and r[2], the last a plain shift when 64 is added to it. */
static const uint8_t ng_sha512_rot[4][3] = {
	{ 28, 34, 39 },         /* SIGMA0 */
	{ 14, 18, 41 },         /* SIGMA1 */
	{ 1, 8, 64 + 7 },       /* sigma0 */
	{ 19, 61, 64 + 6 },     /* sigma1 */
};

/* On the two 32-bit halves: a rotation by 32 or more swaps them first;
 * then each half takes the other's low bits (a shift: the high half takes
 * zeros). No count here is 0 modulo 32. */
static uint64_t ng_sha512_sig(uint64_t x, const uint8_t r[3])
{
	uint64_t s = 0;
	for (int i = 0; i < 3; i++) {
		uint32_t hi = (uint32_t)(x >> 32), lo = (uint32_t)x, n = r[i] & 31u, t;
		if (r[i] & 32u) {
			t = hi;
			hi = lo;
			lo = t;
		}
		t = lo >> n | hi << (32u - n);
		hi = hi >> n | (r[i] < 64u ? lo << (32u - n) : 0);
		s ^= (uint64_t)hi << 32 | t;
	}
	return s;
}

/* FIPS 180-4 6.4.2 on n 128-byte blocks: the whole schedule W[0..79] in
 * w, the working variables a..h in v[0..7], moved down one place per round. */
static void ng_sha512_compress(void *hv, const uint8_t *p, size_t n)
{
	uint64_t w[80], v[8], *h = hv;
	while (n--) {
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
	}
	ng_wipe(w, sizeof w);
	ng_wipe(v, sizeof v);
}

static const ng_sha2_kind ng_sha512_kind = {
	ng_sha512_compress, 128, 8, offsetof(ng_sha512_ctx, h), offsetof(ng_sha512_ctx, buf), sizeof(ng_sha512_ctx),
};

void ng_sha512_init(ng_sha512_ctx *ctx)
{
	ng_sha2k_init();
	ctx->s.kind = &ng_sha512_kind;
	ctx->s.len = 0;
	ctx->s.fill = 0;
	memcpy(ctx->h, ng_sha512_h0, sizeof ctx->h);
}

void ng_sha512_update(ng_sha512_ctx *ctx, const void *data, size_t len)
{
	ng_sha2_update(&ctx->s, data, len);
}

/* FIPS 180-4 5.1.2 padding (0x80, zeros to 112 bytes into a block, the
 * 128-bit length in bits) and the digest: the code SHA-256 has (core). */
void ng_sha512_final(ng_sha512_ctx *ctx, uint8_t digest[64])
{
	ng_sha2_final(&ctx->s, digest);
}

void ng_sha512(uint8_t digest[64], const void *data, size_t len)
{
	ng_sha512_ctx c;
	ng_sha512_init(&c);
	ng_sha512_update(&c, data, len);
	ng_sha512_final(&c, digest);
}
