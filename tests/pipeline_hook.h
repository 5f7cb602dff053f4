/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests only: a hook into the pipeline that production code does not have.
 * ng_test_pipeline_crc replaces the CRC engine that ng_pipeline_init chose
 * (the layout in ng/pipeline_impl.h) by word4, a stand-in for a CRC unit
 * (one call of word4 per group of 4 samples, returning the register after
 * them).
 * The stand-in must already have taken the three uid words; reg is its
 * register then. */
#ifndef NG_TEST_PIPELINE_HOOK_H
#define NG_TEST_PIPELINE_HOOK_H
#include "ng/pipeline.h"

static uint32_t (*ng_test_word4)(const uint32_t w[4]);

static void ng_test_engine(ng_pipeline *p, const uint32_t *w, size_t g, uint32_t *v)
{
	for (size_t k = 0; k < g; k++, w += 4)
		v[k] = p->crc_reg = ng_test_word4(w);
}

static inline void ng_test_pipeline_crc(ng_pipeline *p, uint32_t (*word4)(const uint32_t w[4]), uint32_t reg)
{
	ng_test_word4 = word4;
	p->crc_reg = reg;
	p->crc = ng_test_engine;
}

#endif
