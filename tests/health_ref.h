/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A test oracle: SP 800-90B 4.4.1 and 4.4.2 as the standard writes them,
 * one sample at a time, for one stream (tests/unit/test_health.c and
 * tests/fuzz/fuzz_health.c check ng_health_test against it). */
#ifndef NG_HEALTH_REF_H
#define NG_HEALTH_REF_H
#include <stdint.h>
#include "ng/health.h"

/* The tests' shorthand: ng_health_start with the limits ng_health_limits_for
 * gives for h_milli and, unless it is 0 (one stream), adc_h_milli. */
static inline ng_status ref_health_init(ng_health_ctx *h, uint32_t h_milli, uint32_t adc_h_milli)
{
	ng_health_limits w, a;
	if (ng_health_limits_for(&w, h_milli) != NG_OK ||
	    (adc_h_milli && ng_health_limits_for(&a, adc_h_milli) != NG_OK))
		return NG_ERR_ARG;
	return ng_health_start(h, &w, adc_h_milli ? &a : NULL);
}

typedef struct {
	uint32_t rct_a, rct_b, apt_a, apt_b, rct_max, apt_max;
	uint32_t rct_failures, apt_failures;   /* counted as doc/health.md says */
	uint64_t n;
} ref_state;

/* The bits of the tests for which sample x is a failure (B >= C). */
static inline uint32_t ref_step(ref_state *r, uint32_t x, uint32_t rc, uint32_t ac)
{
	uint32_t f = 0;
	bool apt_match = false;
	if (r->n > 0 && x == r->rct_a) {   /* 4.4.1 step 2a */
		r->rct_b++;
	} else {                           /* step 1 / 2b */
		r->rct_a = x;
		r->rct_b = 1;
	}
	if (r->rct_b >= rc) {
		f |= NG_HEALTH_RCT;
		if ((r->rct_b - 1) % (rc - 1) == 0)   /* at C, 2C - 1, ... */
			r->rct_failures++;
	}
	if (r->n % NG_APT_WINDOW == 0) {   /* 4.4.2 steps 1-2 */
		r->apt_a = x;
		r->apt_b = 1;
	} else if (x == r->apt_a) {        /* step 3a */
		r->apt_b++;
		apt_match = true;
	}
	if (r->n % NG_APT_WINDOW != 0 && r->apt_b >= ac) {   /* step 3b */
		f |= NG_HEALTH_APT;
		if (apt_match && r->apt_b == ac)   /* once per window */
			r->apt_failures++;
	}
	if (r->rct_b > 1 && r->rct_b > r->rct_max)
		r->rct_max = r->rct_b;
	if (r->apt_b > 1 && r->apt_b > r->apt_max)
		r->apt_max = r->apt_b;
	r->n++;
	return f;
}

#endif
