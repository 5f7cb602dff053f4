/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug cutoffs: the RCT/APT cutoffs agree with the core's ng_health_cutoffs
 * for alpha = 2^-30 over a range of H, and with an independent binomial
 * computation (forward CDF sum) for other alphas. */
#include <math.h>
#include "check.h"
#include "cutoffs.h"
#include "ng/health.h"

/* P(X >= c) for X ~ Bin(w, p), summed from the top in long double */
static long double tail_ge(uint32_t w, long double p, uint32_t c)
{
	long double t = 0;
	for (uint32_t j = c; j <= w; j++)
		t += expl(lgammal(w + 1.0L) - lgammal(j + 1.0L) - lgammal(w - j + 1.0L) + j * logl(p) +
			  (w - j) * log1pl(-p));
	return t;
}

int main(void)
{
	/* independent check: C is the smallest with P(X >= C) <= alpha */
	int bad = 0, n = 0;
	static const double as[] = {20, 30, 40};
	static const uint32_t ws[] = {512, 1024};
	for (unsigned ai = 0; ai < 3; ai++)
		for (unsigned wi = 0; wi < 2; wi++)
			for (uint32_t hm = 250; hm <= 8000; hm += 250) {
				uint32_t rct, apt;
				double h = hm / 1000.0;
				if (ng_cutoffs_compute(h, as[ai], ws[wi], &rct, &apt)) {
					bad++;
					continue;
				}
				long double p = exp2l(-h), al = exp2l(-as[ai]);
				n++;
				if (!(tail_ge(ws[wi], p, apt) <= al && tail_ge(ws[wi], p, apt - 1) > al))
					bad++;
				if (rct != 1 + (uint32_t)ceil(as[ai] * 1000 / hm - 1e-9))
					bad++;
			}
	CHECK(bad == 0, "cutoffs: APT = smallest C with P(X >= C) <= alpha, RCT = 1 + ceil(a/H) (%d cases, %d bad)", n, bad);
	uint32_t r, a;
	CHECK(!ng_cutoffs_compute(3.7, 30, 512, &r, &a) && r == 10, "cutoffs: H = 3.7 gives RCT 10 (DESIGN.md)");
	CHECK(!ng_cutoffs_compute(1, 30, 1024, &r, &a) && r == 31 && a == 609, "cutoffs: binary H = 1, W = 1024: RCT 31, APT 609");
	CHECK(ng_cutoffs_compute(0, 30, 512, &r, &a) == -1 && ng_cutoffs_compute(1, 30, 1, &r, &a) == -1,
	      "cutoffs: H = 0 and W = 1 rejected");
	int diff = 0, cases = 0, err = 0;
	for (uint32_t w = 512; w <= 1024; w += 512)
		for (uint32_t hm = 100; hm <= 8000; hm += 13) {
			uint32_t r1, a1, r2, a2;
			if (ng_health_cutoffs(hm, w, &r1, &a1) != NG_OK) {
				err++;
				continue;
			}
			ng_cutoffs_compute(hm / 1000.0, 30, w, &r2, &a2);
			cases++;
			if (r1 != r2 || a1 != a2) {
				if (diff++ < 5)
					printf("# h_milli %u W %u: core %u/%u, assess %u/%u\n", hm, w, r1, a1, r2, a2);
			}
		}
	CHECK(diff == 0 && err == 0, "cutoffs: neug cutoffs = ng_health_cutoffs for alpha 2^-30 (%d cases, %d differ, %d errors)",
	      cases, diff, err);
	/* An H too small for its cutoffs: refused (-2), never a division by
	 * zero (h_milli rounds to 0) nor a cutoff that wraps 32 bits. */
	double hmin = ng_cutoffs_min_h(30);
	int r10 = ng_cutoffs_compute(1e-10, 30, 512, &r, &a), r9 = ng_cutoffs_compute(1e-9, 30, 512, &r, &a);
	int rlo = ng_cutoffs_compute(hmin * 0.999999, 30, 512, &r, &a);
	int rok = ng_cutoffs_compute(hmin * 1.000001, 30, 512, &r, &a);
	CHECK(r10 == -2 && r9 == -2 && rlo == -2 && rok == 0 && r >= 4294960000u && r <= 4294967295u,
	      "cutoffs: H below %.6g for alpha 2^-30 refused (1e-10: %d, 1e-9: %d), just above it: RCT %u",
	      hmin, r10, r9, r);
	int rm = ng_cutoffs_compute(1e-3, 30, 512, &r, &a);
	CHECK(rm == 0 && r == 30001 && a == 513,
	      "cutoffs: H = 0.001 (h_milli 1): RCT 30001, APT W + 1 (%u, %u)", r, a);
	return ng_check_exit();
}
