/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz: the non-IID track, the IID statistics and the FIPS tests on short
 * arbitrary inputs; the literal predictors' fast dictionaries against their
 * general twins (same counts, bit-identical estimate); the bitstring's
 * t-Tuple/LRS from the samples' suffix array against the bits' own; the
 * IID LRS test's longest repeat against the suffix array's; the
 * compression statistic's size against libbz2. First byte: bits per sample
 * (1..8, bits 0-2), bz2len's portable paths (bit 6), level 1 or 5 (bit 7);
 * the rest: samples. */
#include <stdlib.h>
#include <string.h>
#include "assess.h"
#include "bz2_oracle.h"
#include "fips.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size > 4096)
		return 0;
	unsigned bits = 1 + data[0] % 8;
	size_t n = size - 1;
	uint8_t *s = malloc(n);
	for (size_t i = 0; i < n; i++)
		s[i] = (uint8_t)(data[1 + i] & ((1u << bits) - 1));
	ng_assess_opts o = {.bits = bits, .threads = 1};
	ng_noniid_report *r = malloc(sizeof *r);
	if (ng_assess_noniid(s, n, &o, r) == 0) {
		if (!(r->h_assessed >= 0 && r->h_assessed <= bits))
			abort();
	}
	free(r);
	/* the literal MultiMMC and LZ78Y dictionaries: the fast path (entries
	 * only for contexts that repeat) against the general twin (every
	 * context), on the translated symbols */
	{
		uint8_t *sym = malloc(n);
		unsigned k = ng_assess_translate(s, n, sym);
		ng_est_result a, b;
		for (int e = 0; e < 2; e++) {
			memset(&a, 0, sizeof a);
			memset(&b, 0, sizeof b);
			ng_assess_general = false;
			(e ? ng_est_lz78y : ng_est_multi_mmc)(sym, n, k, &a);
			ng_assess_general = true;
			(e ? ng_est_lz78y : ng_est_multi_mmc)(sym, n, k, &b);
			ng_assess_general = false;
			if (a.ok != b.ok || a.C != b.C || a.N != b.N || a.r != b.r ||
			    (a.ok && memcmp(&a.h, &b.h, sizeof a.h) != 0))
				abort();
		}
		/* the bitstring's t-Tuple/LRS from the samples' suffix array
		 * against the suffix array of the bits */
		uint32_t *bsa = malloc(n * sizeof *bsa);
		size_t nb;
		uint8_t *bs = ng_assess_bitstring(s, n, bits, &nb);
		if (bsa && bs && ng_suffix_array(sym, n, k < 2 ? 2 : k, bsa)) {
			ng_est_result ta, tl, ca, cl;
			ng_est_tuple_lrs_blocks(bs, nb, bits, bsa, &ta, &tl);
			ng_est_tuple_lrs(bs, nb, 3, &ca, &cl);
			if (ta.ok != ca.ok || ta.t != ca.t || ta.lp_hat != ca.lp_hat || tl.ok != cl.ok ||
			    tl.u != cl.u || tl.lrs_v != cl.lrs_v || tl.lp_hat != cl.lp_hat)
				abort();
		}
		free(bsa);
		free(bs);
		free(sym);
	}
	if (n >= 8) {
		ng_iid_report *ir = malloc(sizeof *ir);
		if (ng_assess_iid(s, n, &o, 20, 1, ir) == 0 && !(ir->h_assessed >= 0 && ir->h_assessed <= bits))
			abort();
		/* the LRS test's longest repeat (windows of symbols) against
		 * the suffix array's largest LCP */
		uint8_t *sym = malloc(n);
		uint32_t *sa = malloc(n * sizeof *sa), *lcp = malloc(n * sizeof *lcp), w = 0;
		unsigned k = ng_assess_translate(s, n, sym);
		if (sym && sa && lcp && ir->lrs_ok && ng_suffix_array(sym, n, k, sa) && ng_lcp_array(sym, n, sa, lcp)) {
			for (size_t i = 1; i < n; i++)
				w = lcp[i] > w ? lcp[i] : w;
			if (w != ir->lrs_w)
				abort();
		}
		free(sym);
		free(sa);
		free(lcp);
		free(ir);
	}
	/* the compression statistic's size against libbz2 itself (level 1
	 * and 5: one block at these lengths), by the SIMD or the portable
	 * paths (bit 6 of the first byte) */
	{
		ng_bz2_ws *w = ng_bz2_ws_new();
		int level = 1 + 4 * (data[0] >> 7);
		ng_bz2_portable = data[0] >> 6 & 1;
		if (ng_bz2_text_size(s, n, (unsigned)level, w) != ng_bz2_oracle(s, n, level))
			abort();
		ng_bz2_portable = false;
		ng_bz2_ws_free(w);
	}
	ng_fips_ctx f;
	ng_fips_init(&f);
	ng_fips_update(&f, data, size);
	free(s);
	return 0;
}
