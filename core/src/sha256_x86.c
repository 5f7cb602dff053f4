/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SHA-256 compression (FIPS 180-4 6.2.2) with the x86 SHA extensions
 * (SHA256RNDS2, SHA256MSG1, SHA256MSG2), for x86-64 only. Selected at run time
 * by sha256.c when CPUID reports SHA, SSSE3 and SSE4.1; the portable C is the
 * reference it is tested against (tests/unit/test_sha256.c).
 *
 * Register layout: SHA256RNDS2 wants the state as two vectors, ABEF and CDGH
 * (most significant dword first), and consumes two rounds' W+K from the low
 * 64 bits of its implicit operand; four rounds are two calls with the
 * high half moved down. */
#include "sha256_impl.h"

#if NG_SHA256_HAVE_X86
#include <immintrin.h>

#define NG_TARGET __attribute__((target("sha,ssse3,sse4.1")))

bool ng_sha256_x86_supported(void)
{
	uint32_t a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
	if (a < 7)
		return false;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	if (!(c & (1u << 9)) || !(c & (1u << 19)))
		return false;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
	return (b & (1u << 29)) != 0;
}

/* Four rounds t..t+3 with message words m (W[t] in the low dword). */
#define NG_ROUNDS4(m, t)                                                              \
	do {                                                                          \
		__m128i wk = _mm_add_epi32(m, _mm_loadu_si128((const __m128i *)(ng_sha256_k + (t)))); \
		cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);                         \
		abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0e)); \
	} while (0)

/* W[t..t+3] from m0 = W[t-16..t-13], m1, m2, m3 = W[t-4..t-1] (FIPS 180-4 6.2.2 step 1). */
#define NG_SCHED(m0, m1, m2, m3)                                                  \
	_mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(m0, m1),             \
					   _mm_alignr_epi8(m3, m2, 4)), m3)

NG_TARGET void ng_sha256_compress_x86(uint32_t h[8], const uint8_t *blocks, size_t n)
{
	const __m128i bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
	/* h[0..3] = A B C D, h[4..7] = E F G H (dword 0 first in memory). */
	__m128i abcd = _mm_loadu_si128((const __m128i *)h);
	__m128i efgh = _mm_loadu_si128((const __m128i *)(h + 4));
	/* abef = [A B E F] with A most significant, cdgh = [C D G H]. */
	__m128i t = _mm_shuffle_epi32(abcd, 0x1b);  /* D C B A -> dwords: A? see below */
	__m128i u = _mm_shuffle_epi32(efgh, 0x1b);
	/* t = (dw0..3) = D C B A, u = H G F E */
	__m128i abef = _mm_unpackhi_epi64(u, t);    /* dw0..3 = F E B A: A is msd */
	__m128i cdgh = _mm_unpacklo_epi64(u, t);    /* dw0..3 = H G D C */

	while (n--) {
		__m128i sa = abef, sc = cdgh;
		__m128i m0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)blocks), bswap);
		__m128i m1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 16)), bswap);
		__m128i m2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 32)), bswap);
		__m128i m3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 48)), bswap);
		NG_ROUNDS4(m0, 0);
		NG_ROUNDS4(m1, 4);
		NG_ROUNDS4(m2, 8);
		NG_ROUNDS4(m3, 12);
		for (int r = 16; r < 64; r += 16) {
			m0 = NG_SCHED(m0, m1, m2, m3); NG_ROUNDS4(m0, r);
			m1 = NG_SCHED(m1, m2, m3, m0); NG_ROUNDS4(m1, r + 4);
			m2 = NG_SCHED(m2, m3, m0, m1); NG_ROUNDS4(m2, r + 8);
			m3 = NG_SCHED(m3, m0, m1, m2); NG_ROUNDS4(m3, r + 12);
		}
		abef = _mm_add_epi32(abef, sa);
		cdgh = _mm_add_epi32(cdgh, sc);
		blocks += 64;
	}
	/* Back to A B C D / E F G H. */
	t = _mm_unpackhi_epi64(cdgh, abef);            /* dw0..3 = D C B A */
	u = _mm_unpacklo_epi64(cdgh, abef);            /* dw0..3 = H G F E */
	_mm_storeu_si128((__m128i *)h, _mm_shuffle_epi32(t, 0x1b));
	_mm_storeu_si128((__m128i *)(h + 4), _mm_shuffle_epi32(u, 0x1b));
}
#endif
