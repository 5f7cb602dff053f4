/* SPDX-License-Identifier: GPL-3.0-or-later */
/* core/src/mcv.c, the board's start-up estimate (SP 800-90B 6.3.1 MCV with
 * value mod 512 bins and an integer threshold), against assess/'s MCV
 * estimator (ng_est_mcv) on the halves of adc.bin and on synthetic data:
 * the integer pass/fail equals -log2(p_u) >= h for every mode count, the
 * binned mode is never below the true mode (so never optimistic) and equals
 * it when the values span fewer than 512 codes, and adc.bin's ADCs pass the
 * firmware's bar of 2 bits while a constant ADC fails. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "assess.h"
#include "ng/mcv.h"

/* assess's MCV of 12-bit values (translated to symbols: at most 256). */
static int assess_mcv(const uint16_t *v, size_t n, ng_est_result *r)
{
	static uint8_t sym[NG_MCV_SAMPLES];
	uint16_t map[4096];
	unsigned k = 0;
	memset(map, 0xFF, sizeof map);
	for (size_t i = 0; i < n; i++) {
		if (map[v[i]] == 0xFFFFu) {
			if (k == 256)
				return 0;
			map[v[i]] = (uint16_t)k++;
		}
		sym[i] = (uint8_t)map[v[i]];
	}
	ng_est_mcv(sym, n, k, r);
	return 1;
}

static uint32_t board_mode(const uint16_t *v, size_t n)
{
	static ng_mcv m;
	ng_mcv_reset(&m);
	for (size_t i = 0; i < n; i++)
		ng_mcv_add(&m, v[i]);
	return ng_mcv_mode(&m);
}

/* 6.3.1 as SP 800-90B writes it (z = 2.576; assess uses the exact
 * quantile 2.5758..., which gives at most 0.0001 bit more). */
static double h_of(uint32_t c, uint32_t n)
{
	double p = (double)c / n, pu = p + 2.576 * sqrt(p * (1 - p) / (n - 1.0));
	return -log2(pu > 1 ? 1 : pu);
}

int main(void)
{
	size_t nw;
	uint32_t *adc = ng_test_vector_words("adc.bin", &nw);
	static uint16_t v[NG_MCV_SAMPLES];
	const uint32_t n = NG_MCV_SAMPLES;

	/* The integer test = the floating-point estimate, every mode count. */
	for (uint32_t h = 1; h <= 4; h++) {
		uint32_t wrong = 0, cmax = ng_mcv_max_count(n, h);
		for (uint32_t c = 1; c <= n; c++) {
			double e = h_of(c, n);
			if (fabs(e - h) > 1e-9 && ng_mcv_passes(c, n, h) != (e >= h))
				wrong++;
		}
		CHECK(wrong == 0 && ng_mcv_passes(cmax, n, h) && !ng_mcv_passes(cmax + 1, n, h) &&
		      h_of(cmax, n) >= h && h_of(cmax + 1, n) < h,
		      "h = %u: ng_mcv_passes = (-log2 p_u >= h) for all 4096 mode counts; largest passing count %u", h, cmax);
	}
	CHECK(ng_mcv_max_count(4096, 2) == 954, "the firmware's bar: 2 bits in 4096 samples = mode count <= 954");
	CHECK(!ng_mcv_passes(1, 1, 1) && !ng_mcv_passes(1, 9000, 1) && !ng_mcv_passes(1, 100, 9),
	      "out of range (n < 2, n > 8192, h > 8): refused");

	/* adc.bin's two ADCs, the first 4096 words as the board sees them. */
	for (int half = 0; half < 2; half++) {
		for (uint32_t i = 0; i < n; i++)
			v[i] = (uint16_t)((adc[i] >> (16 * half)) & 0xFFFu);
		ng_est_result r;
		int ok = assess_mcv(v, n, &r);
		uint32_t bm = board_mode(v, n);
		CHECK(ok && r.mode == bm && fabs(h_of(bm, n) - r.h) < 1e-3 && h_of(bm, n) <= r.h && r.h > 2.5 &&
		      ng_mcv_passes(bm, n, 2),
		      "adc.bin ADC%d: board mode %u = assess mode %llu, MCV %.3f bits: passes the 2-bit bar", half + 1, bm,
		      (unsigned long long)r.mode, r.h);
	}

	/* Synthetic: values over more than 512 codes. Bins merge v and v+512:
	 * the board's mode is at least assess's (never optimistic). */
	uint64_t s = ng_test_seed();
	int never_above = 1, merged = 0;
	for (int t = 0; t < 50; t++) {
		uint32_t spread = 2u + (uint32_t)(ng_test_rand(&s) % 200u), base = (uint32_t)(ng_test_rand(&s) % 3000u);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t r = (uint32_t)ng_test_rand(&s);
			v[i] = (uint16_t)(base + (r % spread) + ((r >> 20) & 1u) * 512u * (t & 1));
		}
		ng_est_result r;
		if (!assess_mcv(v, n, &r))
			continue;
		uint32_t bm = board_mode(v, n);
		never_above &= bm >= r.mode;
		merged += bm > r.mode;
		if (!(t & 1))
			never_above &= bm == r.mode; /* fewer than 512 codes: exact */
	}
	CHECK(never_above && merged > 0,
	      "50 synthetic streams: binned mode >= assess's mode always, equal within 512 codes (%d merged)", merged);

	/* A constant ADC and a live one of about 3 bits. */
	for (uint32_t i = 0; i < n; i++)
		v[i] = 4095;
	CHECK(!ng_mcv_passes(board_mode(v, n), n, 2), "a constant ADC (pin at VDD) fails the bar");
	for (uint32_t i = 0; i < n; i++)
		v[i] = (uint16_t)(1500u + (uint32_t)(ng_test_rand(&s) % 8u));
	ng_est_result r;
	assess_mcv(v, n, &r);
	CHECK(ng_mcv_passes(board_mode(v, n), n, 2) && r.h > 2.5 && r.h < 3.0,
	      "a live ADC of about 3 bits passes (assess %.3f bits)", r.h);
	free(adc);
	return ng_check_exit();
}
