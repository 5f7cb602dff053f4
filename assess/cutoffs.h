/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Health-test cutoffs (SP 800-90B 4.4.1, 4.4.2) for any alpha = 2^-a. */
#ifndef NG_CUTOFFS_H
#define NG_CUTOFFS_H
#include <stdint.h>

/* h: declared min-entropy per sample (0 < h <= 32); a: alpha = 2^-a (a > 0);
 * window: the APT window W. RCT: C = 1 + ceil(a / h). APT: C = 1 +
 * CRITBINOM(W, 2^-h, 1 - alpha), the smallest k with P(X <= k) >= 1 - alpha
 * for X ~ Binomial(W, 2^-h), from an exact binomial sum. When h*1000 is
 * whole, ceil(a / h) is taken in integers (as the core does for h_milli).
 * Returns 0, -1 for arguments out of range, or -2 when H is too small for
 * alpha: the RCT cutoff would not fit in 32 bits (H < ng_cutoffs_min_h(a)). */
int ng_cutoffs_compute(double h, double a, uint32_t window, uint32_t *rct, uint32_t *apt);
/* The least H whose RCT cutoff 1 + ceil(a / H) fits in 32 bits:
 * a / (2^32 - 2), e.g. about 6.985e-9 for alpha = 2^-30. */
double ng_cutoffs_min_h(double a);

#endif
