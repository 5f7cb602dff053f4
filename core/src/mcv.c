/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The most-common-value start-up estimate (ng/mcv.h). */
#include <string.h>
#include "ng/mcv.h"

void ng_mcv_reset(ng_mcv *m)
{
	memset(m, 0, sizeof *m);
}

uint32_t ng_mcv_mode(const ng_mcv *m)
{
	uint32_t best = 0;
	for (uint32_t i = 0; i < NG_MCV_BINS; i++)
		if (m->count[i] > best)
			best = m->count[i];
	return best;
}

/* p_u <= 2^-h with p^ = c / n:
 *   c / n + z sqrt(c (n - c) / n^2 / (n - 1)) <= 2^-h
 * times n:  z sqrt(c (n - c) / (n - 1)) <= n 2^-h - c = d 2^-h,
 * with d = n - c 2^h, which must be >= 0; squared, with z = 2576 / 1000,
 * times (n - 1) 10^6 4^h:
 *   2576^2 c (n - c) 4^h <= d^2 (n - 1) 10^6.
 * For n <= 8192 and h <= 8 both sides fit in 64 bits: the left is below
 * 2^23 * 2^24 * 2^16 = 2^63, the right below 2^26 * 2^13 * 2^20 = 2^59. */
bool ng_mcv_passes(uint32_t c, uint32_t n, uint32_t h_bits)
{
	if (n < 2u || n > 8192u || c > n || h_bits > 8u)
		return false;
	uint64_t cs = (uint64_t)c << h_bits;
	if (cs > n)
		return false;
	uint64_t d = (uint64_t)n - cs;
	uint64_t left = (6635776ull * c * (uint64_t)(n - c)) << (2u * h_bits);
	uint64_t right = d * d * (uint64_t)(n - 1u) * 1000000ull;
	return left <= right;
}

uint32_t ng_mcv_max_count(uint32_t n, uint32_t h_bits)
{
	/* ng_mcv_passes is monotone in c for c <= n / 2^h: binary search. */
	uint32_t lo = 1, hi = n >> (h_bits > 31u ? 31u : h_bits);
	if (!ng_mcv_passes(1, n, h_bits))
		return 0;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1u) / 2u;
		if (ng_mcv_passes(mid, n, h_bits))
			lo = mid;
		else
			hi = mid - 1u;
	}
	return lo;
}
