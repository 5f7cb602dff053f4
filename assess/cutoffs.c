/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include "cutoffs.h"

#define NG_RCT_MAX_C 4294967294.0   /* ceil(a / H) at most this: 1 + C fits in 32 bits */

double ng_cutoffs_min_h(double a)
{
	return a / NG_RCT_MAX_C;
}

int ng_cutoffs_compute(double h, double a, uint32_t window, uint32_t *rct, uint32_t *apt)
{
	if (!(h > 0) || h > 32 || !(a > 0) || a > 1000 || window < 2 || window > 1u << 20)
		return -1;
	if (!(a / h <= NG_RCT_MAX_C))
		return -2;   /* the RCT cutoff would not fit (nor mean anything) */
	/* RCT */
	double hm = h * 1000, am = a * 1000;
	uint64_t c;
	if (hm >= 1 && fabs(hm - nearbyint(hm)) < 1e-6 && fabs(am - nearbyint(am)) < 1e-6) {
		uint64_t hi = (uint64_t)nearbyint(hm), ai = (uint64_t)nearbyint(am);
		c = (ai + hi - 1) / hi;
	} else
		c = (uint64_t)ceil(a / h - 1e-12);
	if (c > (uint64_t)NG_RCT_MAX_C)
		return -2;
	*rct = (uint32_t)(1 + c);
	/* APT: upper tail sum, smallest k with P(X > k) <= alpha */
	long double p = exp2l(-(long double)h), alpha = exp2l(-(long double)a);
	long double lp = logl(p), lq = log1pl(-p);
	long double tail = 0;
	uint32_t k = window;
	/* walk down from W while the tail including j stays <= alpha */
	for (uint32_t j = window; j >= 1; j--) {
		long double lb = lgammal(window + 1.0L) - lgammal(j + 1.0L) - lgammal(window - j + 1.0L);
		long double pmf = expl(lb + j * lp + (window - j) * lq);
		if (tail + pmf > alpha)
			break;
		tail += pmf;
		k = j - 1;
	}
	*apt = 1 + k;
	return 0;
}
