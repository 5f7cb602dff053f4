/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The SHA-512 constants (sha2.h), computed as FIPS 180-4 defines them:
 * fewer bytes of code than the 704 bytes of table; the compression function
 * SHA-512 and the boot loader's SHA-256 share; and, in the boot loader's
 * build (NG_SHA256_SMALL), that SHA-256's start and update. */
#include <stdbool.h>
#include "ng/wipe.h"
#include "sha2.h"

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
			 * words' products already (each word times all of r,
			 * zeros too: a shorter loop in code, about 1.5 times the
			 * time, once per boot) */
			for (int i = 6; i >= 0; i--) {
				uint32_t xi = x[i];
				uint64_t c = 0;
				x[i] = 0;
				for (int j = 0; i + j < 7; j++) {
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

/* FIPS 180-4 5.3.5 (or 5.3.3: the high halves for 32-bit words), with
 * an empty message. */
void ng_sha2_init(ng_sha2_hdr *c, const ng_sha2_kind *k)
{
	void *h = (uint8_t *)c + k->h_off;
	ng_sha2k_init();
	c->kind = k;
	c->len = 0;
	c->fill = 0;
	for (int i = 0; i < 8; i++) {
		if (k->word == 8u)
			((uint64_t *)h)[i] = ng_sha512_h0[i];
		else
			((uint32_t *)h)[i] = (uint32_t)(ng_sha512_h0[i] >> 32);
	}
}

/* FIPS 180-4 4.1.2 / 4.1.3: each sigma is the XOR of x rotated right by
 * r[0], r[1] and r[2], the last a plain shift when 64 is added to it;
 * SHA-256's counts, then SHA-512's. */
static const uint8_t ng_sha2_rot[2][4][3] = {
	{ { 2, 13, 22 }, { 6, 11, 25 }, { 7, 18, 64 + 3 }, { 17, 19, 64 + 10 } },
	{ { 28, 34, 39 }, { 14, 18, 41 }, { 1, 8, 64 + 7 }, { 19, 61, 64 + 6 } },
};

/* On the two 32-bit halves: a rotation by 32 or more swaps them first;
 * then each half takes the other's low bits (a shift: the high half takes
 * zeros). No count here is 0 modulo 32. A 32-bit word (w8 false) is the
 * low half; its rotations see it in the high half too, its shifts see
 * zeros there; the high half of the result is then of no use. */
static uint64_t ng_sha2_sig(uint64_t x, const uint8_t r[3], bool w8)
{
	uint64_t s = 0;
	for (int i = 0; i < 3; i++) {
		uint32_t hi = (uint32_t)(x >> 32), lo = (uint32_t)x, n = r[i] & 31u, t;
		if (!w8)
			hi = r[i] < 64u ? lo : 0;
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

/* FIPS 180-4 6.2.2 (word 4: SHA-256, 64 rounds, the constants' high
 * halves) and 6.4.2 (word 8: SHA-512, 80 rounds) on n blocks, in 64-bit
 * arithmetic: a 32-bit word's sums and logic keep their low 32 bits
 * exact whatever the high half holds, so only the state update truncates.
 * The whole schedule in w, the working variables a..h in v[0..7], moved
 * down one place per round. */
void ng_sha2_compress(void *h, const uint8_t *p, size_t n, unsigned word)
{
	uint64_t w[88], *v = w + 80; /* (one array: one wipe) */
	bool w8 = word == 8u;
	const uint8_t(*rot)[3] = ng_sha2_rot[w8];
	while (n--) {
		for (int i = 0; i < 8; i++)
			v[i] = w8 ? ((uint64_t *)h)[i] : ((uint32_t *)h)[i];
		for (unsigned t = 0; t < (w8 ? 80u : 64u); t++) {
			uint64_t *x = &w[t];
			if (t < 16) {
				*x = 0;
				for (unsigned i = 0; i < word; i++)
					*x = *x << 8 | *p++;
			} else {
				*x = ng_sha2_sig(x[-2], rot[3], w8) + x[-7] + ng_sha2_sig(x[-15], rot[2], w8) + x[-16];
			}
			uint64_t t1 = v[7] + ng_sha2_sig(v[4], rot[1], w8) + (v[6] ^ (v[4] & (v[5] ^ v[6]))) +
				      (w8 ? ng_sha512_k[t] : ng_sha512_k[t] >> 32) + *x;
			uint64_t t2 = ng_sha2_sig(v[0], rot[0], w8) + ((v[0] & v[1]) | (v[2] & (v[0] | v[1])));
			for (int i = 7; i > 0; i--)
				v[i] = v[i - 1];
			v[4] += t1;
			v[0] = t1 + t2;
		}
		for (int i = 0; i < 8; i++) {
			if (w8)
				((uint64_t *)h)[i] += v[i];
			else
				((uint32_t *)h)[i] += (uint32_t)v[i];
		}
	}
	ng_wipe(w, sizeof w);
}

#ifdef NG_SHA256_SMALL
/* The boot loader's SHA-256: the compression function, initial hash value
 * and constants above on 32-bit words, with the padding and output of
 * core/src/sha2.c. */
static const ng_sha2_kind ng_sha256_kind = {
	ng_sha2_compress, 64, 4, offsetof(ng_sha256_ctx, h), offsetof(ng_sha256_ctx, buf), sizeof(ng_sha256_ctx),
};

void ng_sha256_init(ng_sha256_ctx *ctx)
{
	ng_sha2_init(&ctx->s, &ng_sha256_kind);
}

/* FIPS 180-4 6.2 / 6.4 a byte at a time through the buffer: smaller code
 * than core/src/sha256.c's, which takes whole blocks from the input. */
void ng_sha2_update(ng_sha2_hdr *c, const void *data, size_t len)
{
	const ng_sha2_kind *k = c->kind;
	uint8_t *buf = (uint8_t *)c + k->buf_off;
	void *h = (uint8_t *)c + k->h_off;
	const uint8_t *p = data;
	c->len += len;
	while (len--) {
		buf[c->fill++] = *p++;
		if (c->fill == k->block) {
			k->compress(h, buf, 1, k->word);
			c->fill = 0;
		}
	}
}
#endif
