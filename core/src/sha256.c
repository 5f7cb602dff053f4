/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SHA-256 as specified by FIPS 180-4 (sections 4.1.2, 4.2.2, 5.1.1, 6.2):
 * the constants, the compression function, the start and the update step
 * (sha2.c has the padding and output). Portable C, no allocation;
 * ng_sha256_compress dispatches to the SHA-NI
 * code of sha256_x86.c when the CPU has it (x86-64 only), and to the
 * Thumb-2 assembly of sha256_armv7m.c on the Cortex-M3. */
#include <stddef.h>
#include <string.h>
#include "ng/sha256.h"
#include "sha256_impl.h"

/* FIPS 180-4 4.2.2: the first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes. */
const uint32_t ng_sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

const uint32_t ng_sha256_h0[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

/* (A function, not a macro: GCC turns it into one load and a byte swap.) */
static inline uint32_t ng_load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* FIPS 180-4 4.1.2 functions. Ch and Maj in equivalent forms with one
 * operation fewer: Ch(x,y,z) = (x & y) ^ (~x & z) = z ^ (x & (y ^ z)),
 * Maj(x,y,z) = (x & y) ^ (x & z) ^ (y & z) = (x & y) | (z & (x | y)). */
#define NG_CH(x, y, z)  ((z) ^ ((x) & ((y) ^ (z))))
#define NG_MAJ(x, y, z) (((x) & (y)) | ((z) & ((x) | (y))))
#define NG_ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define NG_BSIG0(x) (NG_ROR(x, 2) ^ NG_ROR(x, 13) ^ NG_ROR(x, 22))
#define NG_BSIG1(x) (NG_ROR(x, 6) ^ NG_ROR(x, 11) ^ NG_ROR(x, 25))
#define NG_SSIG0(x) (NG_ROR(x, 7) ^ NG_ROR(x, 18) ^ ((x) >> 3))
#define NG_SSIG1(x) (NG_ROR(x, 17) ^ NG_ROR(x, 19) ^ ((x) >> 10))

/* FIPS 180-4 6.2.2, the one portable compression function (on hosts
 * without SHA-NI, and the reference the fast paths are tested against; on
 * the Cortex-M3 only the QEMU tests link it), steps 2 to 4 unrolled by
 * eight: instead of moving a..h down one place per round, each round's
 * macro call names them rotated by one (the variable that would become `a`
 * is the one that held `h`), so a round costs only its arithmetic; after
 * eight rounds the names are back. */
#define NG_ROUND(a, b, c, d, e, f, g, h, t) do { \
		uint32_t t1_ = (h) + NG_BSIG1(e) + NG_CH(e, f, g) + ng_sha256_k[t] + w[t]; \
		(d) += t1_; \
		(h) = t1_ + NG_BSIG0(a) + NG_MAJ(a, b, c); \
	} while (0)
void ng_sha256_compress_portable(uint32_t h0[8], const uint8_t *blocks, size_t n)
{
	uint32_t w[64];
	for (; n--; blocks += 64) {
		for (unsigned t = 0; t < 16; t++)
			w[t] = ng_load_be32(blocks + 4 * t);
		for (unsigned t = 16; t < 64; t++)
			w[t] = NG_SSIG1(w[t - 2]) + w[t - 7] + NG_SSIG0(w[t - 15]) + w[t - 16];
		uint32_t a = h0[0], b = h0[1], c = h0[2], d = h0[3];
		uint32_t e = h0[4], f = h0[5], g = h0[6], h = h0[7];
		for (unsigned t = 0; t < 64; t += 8) {
			NG_ROUND(a, b, c, d, e, f, g, h, t);
			NG_ROUND(h, a, b, c, d, e, f, g, t + 1);
			NG_ROUND(g, h, a, b, c, d, e, f, t + 2);
			NG_ROUND(f, g, h, a, b, c, d, e, t + 3);
			NG_ROUND(e, f, g, h, a, b, c, d, t + 4);
			NG_ROUND(d, e, f, g, h, a, b, c, t + 5);
			NG_ROUND(c, d, e, f, g, h, a, b, t + 6);
			NG_ROUND(b, c, d, e, f, g, h, a, t + 7);
		}
		h0[0] += a; h0[1] += b; h0[2] += c; h0[3] += d;
		h0[4] += e; h0[5] += f; h0[6] += g; h0[7] += h;
	}
	ng_wipe(w, sizeof w);
}

#if NG_SHA256_HAVE_X86
/* 0 = not probed yet, 1 = portable, 2 = SHA-NI. Probing twice is harmless. */
static int ng_sha256_sel;
static bool ng_sha256_portable_only;

static int ng_sha256_select(void)
{
	int s = __atomic_load_n(&ng_sha256_sel, __ATOMIC_RELAXED);
	if (!s) {
		s = ng_sha256_x86_supported() ? 2 : 1;
		__atomic_store_n(&ng_sha256_sel, s, __ATOMIC_RELAXED);
	}
	if (__atomic_load_n(&ng_sha256_portable_only, __ATOMIC_RELAXED))
		return 1;
	return s;
}

void ng_sha256_compress(uint32_t h[8], const uint8_t *blocks, size_t n)
{
	if (ng_sha256_select() == 2)
		ng_sha256_compress_x86(h, blocks, n);
	else
		ng_sha256_compress_portable(h, blocks, n);
}

const char *ng_sha256_impl(void) { return ng_sha256_select() == 2 ? "sha-ni" : "portable"; }

void ng_sha256_force_portable(bool on)
{
	__atomic_store_n(&ng_sha256_portable_only, on, __ATOMIC_RELAXED);
}
#elif NG_SHA256_HAVE_ARMV7M
/* The assembly always: nothing on the firmware's path refers to the
 * portable code, so its link leaves it out (the power-up known answers,
 * ng_selftest, test the assembly; the QEMU tests compare it with the
 * portable code). */
void ng_sha256_compress(uint32_t h[8], const uint8_t *blocks, size_t n)
{
	ng_sha256_compress_armv7m(h, blocks, n);
}

const char *ng_sha256_impl(void) { return "armv7m"; }
void ng_sha256_force_portable(bool on) { (void)on; }
#else
void ng_sha256_compress(uint32_t h[8], const uint8_t *blocks, size_t n)
{
	ng_sha256_compress_portable(h, blocks, n);
}

const char *ng_sha256_impl(void) { return "portable"; }
void ng_sha256_force_portable(bool on) { (void)on; }
#endif

/* (The compression function as the shared streaming code calls it.) */
static void ng_sha256_kcompress(void *h, const uint8_t *blocks, size_t n, unsigned word)
{
	(void)word;
	ng_sha256_compress(h, blocks, n);
}

static const ng_sha2_kind ng_sha256_kind = {
	ng_sha256_kcompress, 64, 4, offsetof(ng_sha256_ctx, h), offsetof(ng_sha256_ctx, buf), sizeof(ng_sha256_ctx),
};

void ng_sha256_init(ng_sha256_ctx *ctx)
{
	ctx->s.kind = &ng_sha256_kind;
	ctx->s.len = 0;
	ctx->s.fill = 0;
	memcpy(ctx->h, ng_sha256_h0, sizeof ctx->h);
}

/* FIPS 180-4 6.2 / 6.4, for SHA-256 and SHA-512: whole blocks straight
 * from the input, the rest through the buffer (the boot loader has a
 * smaller one instead, in boot/sha2.c). */
void ng_sha2_update(ng_sha2_hdr *c, const void *data, size_t len)
{
	const ng_sha2_kind *k = c->kind;
	uint8_t *buf = (uint8_t *)c + k->buf_off;
	void *h = (uint8_t *)c + k->h_off;
	size_t bs = k->block;
	const uint8_t *p = data;
	c->len += len;
	while (len) {
		size_t n = bs - c->fill;
		if (c->fill == 0 && len >= bs) {
			n = len & ~(bs - 1u); /* (bs is a power of two) */
			k->compress(h, p, n / bs, k->word);
		} else {
			if (n > len)
				n = len;
			memcpy(buf + c->fill, p, n);
			c->fill += (uint32_t)n;
			if (c->fill == bs) {
				k->compress(h, buf, 1, k->word);
				c->fill = 0;
			}
		}
		p += n;
		len -= n;
	}
}
