/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A measurement aid for bench-firmware, not used by the firmware: the
 * SHA-256 compression function (FIPS 180-4 6.2.2) written for a 13-register
 * Cortex-M3: rounds unrolled by 8 with the working variables renamed instead
 * of moved, the first 16 rounds (message words loaded) separate from the 48
 * that expand the schedule, so every ring index is a constant. fw_bench
 * checks it against core's ng_sha256_compress before timing it, to show
 * what such a structure costs on this CPU next to the portable one. */
#include <stddef.h>
#include <stdint.h>
#include "sha_unrolled.h"

extern const uint32_t ng_sha256_k[64];

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define S0(x) (ROR(x, 2) ^ ROR(x, 13) ^ ROR(x, 22))
#define S1(x) (ROR(x, 6) ^ ROR(x, 11) ^ ROR(x, 25))
#define s0(x) (ROR(x, 7) ^ ROR(x, 18) ^ ((x) >> 3))
#define s1(x) (ROR(x, 17) ^ ROR(x, 19) ^ ((x) >> 10))
#define CH(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define MAJ(x, y, z) (((x) & (y)) | ((z) & ((x) | (y))))

/* One round with message word wt: T1, T2, then d += T1, h = T1 + T2. */
#define RND(a, b, c, d, e, f, g, h, k, wt)                                   \
	do {                                                                 \
		uint32_t t1 = (h) + S1(e) + CH(e, f, g) + (k) + (wt);       \
		(d) += t1;                                                   \
		(h) = t1 + S0(a) + MAJ(a, b, c);                             \
	} while (0)

#define LOAD(i) (w[i] = (uint32_t)p[4 * (i)] << 24 | (uint32_t)p[4 * (i) + 1] << 16 | \
			(uint32_t)p[4 * (i) + 2] << 8 | p[4 * (i) + 3])
#define EXP(i) (w[(i) & 15] += s1(w[((i) - 2) & 15]) + w[((i) - 7) & 15] + s0(w[((i) - 15) & 15]))

#define EIGHT(j, W)                                                          \
	do {                                                                 \
		RND(a, b, c, d, e, f, g, h, k[(j) + 0], W((j) + 0));         \
		RND(h, a, b, c, d, e, f, g, k[(j) + 1], W((j) + 1));         \
		RND(g, h, a, b, c, d, e, f, k[(j) + 2], W((j) + 2));         \
		RND(f, g, h, a, b, c, d, e, k[(j) + 3], W((j) + 3));         \
		RND(e, f, g, h, a, b, c, d, k[(j) + 4], W((j) + 4));         \
		RND(d, e, f, g, h, a, b, c, k[(j) + 5], W((j) + 5));         \
		RND(c, d, e, f, g, h, a, b, k[(j) + 6], W((j) + 6));         \
		RND(b, c, d, e, f, g, h, a, k[(j) + 7], W((j) + 7));         \
	} while (0)

void ng_bench_sha256_compress8(uint32_t st[8], const uint8_t *p, size_t n)
{
	uint32_t w[16];
	for (; n; n--, p += 64) {
		uint32_t a = st[0], b = st[1], c = st[2], d = st[3];
		uint32_t e = st[4], f = st[5], g = st[6], h = st[7];
		const uint32_t *k = ng_sha256_k;
		EIGHT(0, LOAD);
		EIGHT(8, LOAD);
		for (k = ng_sha256_k + 16; k < ng_sha256_k + 64; k += 16) {
			/* i + 16 keeps (i - 15) & 15 etc. constant-folded per slot */
#define EXPK(i) EXP((i) + 16)
			EIGHT(0, EXPK);
			EIGHT(8, EXPK);
#undef EXPK
		}
		st[0] += a; st[1] += b; st[2] += c; st[3] += d;
		st[4] += e; st[5] += f; st[6] += g; st[7] += h;
	}
	volatile uint32_t *v = w;
	for (int i = 0; i < 16; i++)
		v[i] = 0;
}
