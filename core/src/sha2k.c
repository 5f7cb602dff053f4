/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The SHA-512 constants (ng/sha2k.h), computed as FIPS 180-4 defines them:
 * fewer bytes of code than the 704 bytes of table. */
#include <stdbool.h>
#include "ng/sha2k.h"

uint64_t ng_sha512_k[80];
uint64_t ng_sha512_h0[8];

/* The first 64 bits of the fractional part of the e-th root of the prime
 * p: the low 64 bits of the largest r with r^e < p 2^(64 e), found one bit
 * at a time from the top. As p^(1/e) < 8 here, r < 2^67 and r^e < 2^201:
 * r^e < p 2^(64 e) exactly when its word 2 e (bits 64 e and up) is below p.
 * Numbers as seven 32-bit words, least significant first. */
static uint64_t ng_sha2k_root(uint32_t p, unsigned e)
{
	uint32_t r[7] = { 0 }, x[7];
	for (int b = 66; b >= 0; b--) {
		r[b / 32] |= 1u << (b % 32);
		for (int i = 0; i < 7; i++)
			x[i] = r[i];
		for (unsigned k = 1; k < e; k++) {
			/* x = x r, in place from the top word down: word i's
			 * products go into words i and up, which hold the higher
			 * words' products already */
			for (int i = 6; i >= 0; i--) {
				uint32_t xi = x[i];
				uint64_t c = 0;
				x[i] = 0;
				for (int j = 0; xi && i + j < 7 && (j < 3 || c); j++) {
					c += (uint64_t)xi * r[j] + x[i + j];
					x[i + j] = (uint32_t)c;
					c >>= 32;
				}
			}
		}
		if (x[2 * e] >= p)
			r[b / 32] &= ~(1u << (b % 32));
	}
	return (uint64_t)r[1] << 32 | r[0];
}

/* FIPS 180-4 4.2.3 (cube roots of the first 80 primes) and 5.3.5 (square
 * roots of the first 8). */
/* (inlined: one copy in the code) */
static inline __attribute__((always_inline)) void ng_sha2k_fill(void)
{
	unsigned n = 0;
	for (uint32_t p = 2; n < 80; p++) {
		uint32_t d = 2;
		while (d * d <= p && p % d)
			d++;
		if (d * d <= p)
			continue; /* not a prime: d divides it */
		if (n < 8)
			ng_sha512_h0[n] = ng_sha2k_root(p, 2);
		ng_sha512_k[n++] = ng_sha2k_root(p, 3);
	}
}

/* The tables, once. The boot loader's build (NG_SHA256_SMALL) has one
 * thread: a flag. Elsewhere: state 0 = not yet, 1 = being computed (by
 * another thread, which this one waits for), 2 = ready. */
void ng_sha2k_init(void)
{
#ifdef NG_SHA256_SMALL
	static bool done;
	if (!done) {
		done = true;
		ng_sha2k_fill();
	}
#else
	static int state;
	int s = 0;
	if (__atomic_compare_exchange_n(&state, &s, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
		ng_sha2k_fill();
		__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
	}
	while (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2)
		;
#endif
}
