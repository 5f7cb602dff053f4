/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: arbitrary samples and operations into two pipelines, one
 * fed in the chunks the input asks for (the batch path), one a sample at a
 * time (the per-sample path), and checks:
 *   - both give the same blocks and the same stats (batch == streaming);
 *   - latched bits never clear; once PERSISTENT is set no bit clears;
 *   - counters stay inside their windows, maxima are monotone;
 *   - in modes 0 and 1 nothing comes out after PERSISTENT;
 *   - the queue never holds more than NG_PIPELINE_QUEUE blocks.
 * Input: byte 0 mode (bit 7: explicit cutoffs), bytes 1-2 declared H, then records: an opcode byte
 * (low 2 bits: 0 samples, 1 take, 2 set mode, 3 samples) followed by its
 * operands; sample values come from a small alphabet so tests fire. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ng/pipeline.h"

static ng_pipeline A, B;

#define ASSERT(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s (line %d)\n", #c, __LINE__); abort(); } } while (0)

static void check_pair(void)
{
	ng_pipeline_stats sa, sb;
	ng_pipeline_get_stats(&A, &sa);
	ng_pipeline_get_stats(&B, &sb);
	ASSERT(memcmp(&sa, &sb, sizeof sa) == 0);
	const ng_health_ctx *h = &A.health;
	ASSERT(h->apt_i < h->apt_window);
	ASSERT(h->apt_b <= h->apt_window && h->apt_max <= h->apt_window);
	ASSERT(A.neug.p64_i < 64 && A.neug.p4k_i < 4096);
	ASSERT(A.neug.p64_max <= 64 && A.neug.p4k_max <= 4096);
	ASSERT(sa.ready <= NG_PIPELINE_QUEUE);
	ASSERT(memcmp(&A.health, &B.health, sizeof A.health) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	ng_pipeline_config cfg = { .mode = data[0] % 3, .uid = { 1, 2, 3 } };
	cfg.h_milli = NG_MIN_H_MILLI + (uint32_t)((data[1] | data[2] << 8) % (8000 - NG_MIN_H_MILLI + 1));
	if (data[0] & 0x80) {   /* explicit cutoffs, some of them out of range */
		cfg.rct_cutoff = (data[0] >> 2) & 0x1f;
		cfg.apt_cutoff = data[2] & 1 ? (uint32_t)data[1] * 3 : 0;
	}
	ng_status ia = ng_pipeline_init(&A, &cfg), ib = ng_pipeline_init(&B, &cfg);
	ASSERT(ia == ib);
	if (ia != NG_OK) {
		ASSERT(cfg.rct_cutoff == 1 || cfg.apt_cutoff == 1 || cfg.apt_cutoff > NG_APT_WINDOW + 1);
		return 0;
	}
	ng_pipeline_stats prev;
	ng_pipeline_get_stats(&A, &prev);
	uint32_t buf[512];
	size_t i = 3;
	while (i < size) {
		uint8_t op = data[i++];
		if ((op & 3) == 1) {
			uint8_t x[32], y[32];
			bool ta = ng_pipeline_take(&A, x), tb = ng_pipeline_take(&B, y);
			ASSERT(ta == tb && (!ta || !memcmp(x, y, 32)));
			if (ta && (prev.status & NG_HEALTH_PERSISTENT))
				ASSERT(ng_pipeline_mode(&A) == NG_MODE_RAW);
		} else if ((op & 3) == 2) {
			uint32_t m = (op >> 2) % 4;   /* 3 is invalid: ignored */
			ng_pipeline_set_mode(&A, m);
			ng_pipeline_set_mode(&B, m);
		} else {
			/* op >> 2 = chunk length / 4 - 1 ... up to 64 words; each sample
			 * is one input byte: alphabet of (byte & mask) with mask from op */
			size_t n = (size_t)((op >> 2) + 1) * 8;
			uint32_t mask = (op & 3) == 3 ? 0x03u : 0xffu;
			size_t k = 0;
			while (k < n && k < sizeof buf / sizeof buf[0] && i < size)
				buf[k++] = (data[i++] & mask) * 0x9E3779B1u;
			ng_status ra = ng_pipeline_put_many(&A, buf, k), rb = NG_OK, r;
			for (size_t j = 0; j < k; j++)
				if ((r = ng_pipeline_put(&B, buf[j])) != NG_OK && (rb == NG_OK || r == NG_ERR_PERSISTENT))
					rb = r;
			if (k)
				ASSERT((ra == NG_ERR_PERSISTENT) == (rb == NG_ERR_PERSISTENT));
			ASSERT((ra == NG_ERR_HEALTH) <= (rb != NG_OK));
		}
		check_pair();
		ng_pipeline_stats st;
		ng_pipeline_get_stats(&A, &st);
		const uint32_t sticky = NG_HEALTH_RCT | NG_HEALTH_APT | NG_HEALTH_STARTUP_FAILED |
					NG_HEALTH_NEUG | NG_HEALTH_PERSISTENT;
		ASSERT((st.status & prev.status & sticky) == (prev.status & sticky));
		if (prev.status & NG_HEALTH_PERSISTENT) {
			ASSERT((st.status & prev.status) == prev.status);
			ASSERT(st.fail_test == prev.fail_test && st.fail_index == prev.fail_index &&
			       st.fail_count == prev.fail_count);
			if (st.mode != NG_MODE_RAW)
				ASSERT(st.ready == 0);
			if (st.mode != NG_MODE_RAW && prev.mode != NG_MODE_RAW)
				ASSERT(st.blocks_out == prev.blocks_out);
		}
		if (!(prev.status & NG_HEALTH_STARTUP))
			ASSERT(!(st.status & NG_HEALTH_STARTUP));
		ASSERT(st.rct_max >= prev.rct_max && st.apt_max >= prev.apt_max);
		ASSERT(st.neug_rc_max >= prev.neug_rc_max && st.neug_p64_max >= prev.neug_p64_max &&
		       st.neug_p4k_max >= prev.neug_p4k_max);
		ASSERT(st.samples >= prev.samples && st.blocks_out >= prev.blocks_out);
		prev = st;
	}
	return 0;
}
