/* SPDX-License-Identifier: GPL-3.0-or-later */
/* assess/ internal: xoshiro256** (Blackman and Vigna) one step, and a
 * source of uniform integers below a 32-bit bound that uses both halves of
 * each 64-bit output (Lemire's multiply-and-reject). Inline: the
 * permutation rounds draw once per sample. */
#ifndef NG_ASSESS_XOSHIRO_H
#define NG_ASSESS_XOSHIRO_H
#include <stdint.h>
#include "assess.h"

static inline uint64_t ng_xoshiro_step(ng_xoshiro *x)
{
	uint64_t *s = x->s, v = s[1] * 5, r = ((v << 7) | (v >> 57)) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return r;
}

/* 32-bit draws: the high half of an output, then its low half. */
typedef struct {
	ng_xoshiro *g;
	uint32_t low;
	int have;
} ng_draw32;

static inline uint32_t ng_draw32_next(ng_draw32 *d)
{
	if (d->have) {
		d->have = 0;
		return d->low;
	}
	uint64_t r = ng_xoshiro_step(d->g);
	d->low = (uint32_t)r;
	d->have = 1;
	return (uint32_t)(r >> 32);
}

/* Uniform in [0, bound), 1 <= bound <= 2^32 - 1. */
static inline uint32_t ng_draw32_below(ng_draw32 *d, uint32_t bound)
{
	uint64_t m = (uint64_t)ng_draw32_next(d) * bound;
	uint32_t l = (uint32_t)m;
	if (__builtin_expect(l < bound, 0)) {
		uint32_t t = (uint32_t)(-bound) % bound;
		while (l < t) {
			m = (uint64_t)ng_draw32_next(d) * bound;
			l = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}

#endif
