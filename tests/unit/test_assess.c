/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SP 800-90B estimators on inputs with closed-form answers: constant data,
 * balanced binary and 8-bit data, a known Markov chain, periodic data; the
 * suffix array against a naive sort; the P_local figure of the reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "assess.h"
#include "check.h"

static const uint8_t *g_s;
static size_t g_n;
static int cmp_suf(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	size_t li = g_n - i, lj = g_n - j, m = li < lj ? li : lj;
	int c = memcmp(g_s + i, g_s + j, m);
	return c ? c : (li < lj ? -1 : 1);
}

static double mcv_closed(double p, size_t n)
{
	return -log2(p + NG_ASSESS_Z * sqrt(p * (1 - p) / (n - 1.0)));
}

int main(void)
{
	uint64_t seed = ng_test_seed();
	size_t n = 100000;
	uint8_t *s = malloc(n), *t = malloc(n);
	ng_est_result r, r2;

	/* constant data: every estimator says 0 */
	memset(s, 0, n);
	int bad = 0;
	ng_est_mcv(s, n, 1, &r); bad += !(r.ok && r.h == 0);
	ng_est_collision(s, n, &r); bad += !(r.ok && fabs(r.h) < 1e-12);
	ng_est_markov(s, n, &r); bad += !(r.ok && fabs(r.h) < 1e-12);
	ng_est_compression(s, n, &r); bad += !(r.ok && r.h < 1e-6);
	ng_est_tuple_lrs(s, n, 1, &r, &r2); bad += !(r.ok && fabs(r.h) < 1e-12);
	ng_est_multi_mcw(s, n, 1, &r); bad += !(r.ok && r.h < 1e-3);
	ng_est_lag(s, n, 1, &r); bad += !(r.ok && r.h < 1e-3);
	ng_est_multi_mmc(s, n, 1, &r); bad += !(r.ok && r.h < 1e-3);
	ng_est_lz78y(s, n, 1, &r); bad += !(r.ok && r.h < 1e-3);
	CHECK(bad == 0, "constant data: all estimators give 0 (%d wrong)", bad);

	/* balanced binary: MCV = closed form; others near 1 */
	for (size_t i = 0; i < n; i++)
		s[i] = i < n / 2;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = ng_test_rand(&seed) % (i + 1);
		uint8_t x = s[i]; s[i] = s[j]; s[j] = x;
	}
	ng_est_mcv(s, n, 2, &r);
	CHECK(r.h == mcv_closed(0.5, n), "balanced binary: MCV = -log2(0.5 + Z sqrt(0.25/(n-1))) = %.15f", r.h);
	ng_est_markov(s, n, &r);
	CHECK(r.h > 0.97 && r.h <= 1, "balanced binary: Markov %.4f in (0.97, 1]", r.h);
	ng_est_collision(s, n, &r);
	CHECK(r.h > 0.85 && r.h <= 1, "balanced binary: collision %.4f in (0.85, 1]", r.h);
	ng_est_lag(s, n, 2, &r);
	CHECK(r.h > 0.97 && r.h <= 1, "balanced binary: Lag %.4f in (0.97, 1]", r.h);

	/* uniform 8-bit, each value exactly n/256 times */
	size_t m = 256 * 400;
	uint8_t *u = malloc(m);
	for (size_t i = 0; i < m; i++)
		u[i] = (uint8_t)i;
	for (size_t i = m - 1; i > 0; i--) {
		size_t j = ng_test_rand(&seed) % (i + 1);
		uint8_t x = u[i]; u[i] = u[j]; u[j] = x;
	}
	ng_est_mcv(u, m, 256, &r);
	CHECK(r.mode == 400 && r.h == mcv_closed(1.0 / 256, m), "uniform 8-bit: MCV = closed form %.12f", r.h);
	ng_est_multi_mmc(u, m, 256, &r);
	CHECK(r.ok && r.h > 7.0 && r.h <= 8, "uniform 8-bit: MultiMMC %.3f in (7, 8]", r.h);
	ng_est_lz78y(u, m, 256, &r);
	CHECK(r.ok && r.h > 7.0 && r.h <= 8, "uniform 8-bit: LZ78Y %.3f in (7, 8]", r.h);

	/* Markov chain, P(stay) = 0.9: H = -(log2 0.5 + 127 log2 0.9)/128 */
	uint8_t b = 0;
	for (size_t i = 0; i < n; i++) {
		if (ng_test_rand(&seed) % 1000 >= 900)
			b ^= 1;
		s[i] = b;
	}
	double want = -(log2(0.5) + 127 * log2(0.9)) / 128;
	ng_est_markov(s, n, &r);
	CHECK(fabs(r.h - want) < 0.01, "Markov chain p=0.9: Markov estimate %.4f ~ %.4f", r.h, want);
	ng_est_multi_mmc(s, n, 2, &r);
	CHECK(r.h < -log2(0.9) + 0.01 && r.h > -log2(0.9) - 0.02, "Markov chain: MultiMMC %.4f ~ -log2(0.9) = %.4f", r.h, -log2(0.9));

	/* periodic data: the lag predictor is right almost always */
	for (size_t i = 0; i < n; i++)
		s[i] = (uint8_t)((i % 7) * 3);
	ng_est_lag(s, n, 7, &r);
	CHECK(r.C == r.N - 7 && r.h < 0.001, "period 7: Lag C = N - 7 (lag 7 wins after the 7th) (%llu of %llu)", (unsigned long long)r.C, (unsigned long long)r.N);

	/* binary Lag, MultiMMC and LZ78Y (bit-level paths, k = 2) against the
	 * general ones (taken for k = 3): same C and longest run on random, biased,
	 * periodic-with-noise and constant data of awkward lengths */
	{
		/* kind 5, 400,000 bits: 201,000 random ones (MultiMMC's order 16
		 * reaches its cap), then s[i] = s[i-16], 1% flipped (only order
		 * 16 predicts, from the pairs admitted before the cap) */
		static const size_t lens[] = {3, 4, 63, 64, 65, 127, 128, 129, 130, 200, 1000, 4097, 100003, 400000};
		unsigned diff = 0, cases = 0, mdiff = 0, tdiff = 0, ldiff = 0, lcases = 0, wdiff = 0, wcases = 0;
		uint8_t *b = malloc(400000);
		for (int kind = 0; kind < 6; kind++)
			for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
				size_t L = lens[li];
				if ((L == 400000) != (kind == 5))
					continue;
				for (size_t i = 0; i < L; i++) {
					uint32_t x = (uint32_t)ng_test_rand(&seed);
					b[i] = kind == 0 ? x & 1 : kind == 1 ? x % 100 < 80 : kind == 2 ? (uint8_t)(((i % 37) < 20) ^ (x % 100 < 5))
						: kind == 3 ? 1 : kind == 4 ? (uint8_t)((i / 3 + (x % 1000 < 2)) & 1)
						: (uint8_t)((i < 201000 ? x & 1 : b[i - 16] ^ (x % 1000 < 10)));
				}
				ng_est_result a, c;
				ng_est_lag(b, L, 2, &a);
				ng_est_lag(b, L, 3, &c);
				cases++;
				diff += a.ok != c.ok || a.C != c.C || a.N != c.N || a.r != c.r;
				ng_est_multi_mmc(b, L, 2, &a);
				ng_assess_general = kind & 1;
				ng_est_multi_mmc(b, L, 3, &c);
				ng_assess_general = false;
				mdiff += a.ok != c.ok || a.C != c.C || a.N != c.N || a.r != c.r;
				if (L > 65) {
					ng_est_multi_mcw(b, L, 2, &a);
					ng_est_multi_mcw(b, L, 3, &c);
					wcases++;
					wdiff += a.ok != c.ok || a.C != c.C || a.N != c.N || a.r != c.r;
				}
				ng_est_result ta, tl, ca, cl;
				ng_est_tuple_lrs(b, L, 2, &ta, &tl);
				ng_est_tuple_lrs(b, L, 3, &ca, &cl);
				tdiff += ta.ok != ca.ok || ta.t != ca.t || ta.lp_hat != ca.lp_hat || tl.ok != cl.ok
					|| tl.u != cl.u || tl.lrs_v != cl.lrs_v || tl.lp_hat != cl.lp_hat;
				if (L > 18) {
					ng_est_lz78y(b, L, 2, &a);
					ng_est_lz78y(b, L, 3, &c);
					lcases++;
					ldiff += a.ok != c.ok || a.C != c.C || a.N != c.N || a.r != c.r;
				}
			}
		free(b);
		CHECK(diff == 0, "binary Lag: word-level path = scalar loop (C, N, r) in %u of %u cases", cases - diff, cases);
		CHECK(mdiff == 0, "binary MultiMMC: direct-indexed path = hashed path (C, N, r) in %u of %u cases", cases - mdiff, cases);
		CHECK(tdiff == 0, "binary t-Tuple/LRS: 64-bit window sort = suffix array (t, u, v, p-hats) in %u of %u cases", cases - tdiff, cases);
		CHECK(ldiff == 0, "binary LZ78Y: direct-indexed path = hashed path (C, N, r) in %u of %u cases", lcases - ldiff, lcases);
		CHECK(wdiff == 0, "binary MultiMCW: window-sum path = count-table path (C, N, r) in %u of %u cases", wcases - wdiff, wcases);
	}

	/* binary t-Tuple/LRS with repeats past the 64-bit windows: a 100-bit
	 * pattern planted in random bits three times, the middle copy with bit
	 * 70 flipped, so that the copies' text order is not their suffix order
	 * (the two equal ones share 100 bits and more, not 70) */
	{
		size_t L = 200000;
		uint8_t *b = malloc(L), pat[100];
		unsigned pbad = 0;
		for (int round = 0; round < 4; round++) {
			for (size_t i = 0; i < L; i++)
				b[i] = (uint8_t)(ng_test_rand(&seed) & 1);
			for (size_t i = 0; i < sizeof pat; i++)
				pat[i] = (uint8_t)(ng_test_rand(&seed) & 1);
			static const size_t at[4] = {1000, 50000, 90000, 150000};
			for (int c = 0; c < 3 + (round & 1); c++) {
				memcpy(b + at[c], pat, sizeof pat);
				if (c == 1 + (round >> 1))
					b[at[c] + 70] ^= 1;
			}
			ng_est_result ta, tl, ca, cl;
			ng_est_tuple_lrs(b, L, 2, &ta, &tl);
			ng_est_tuple_lrs(b, L, 3, &ca, &cl);
			pbad += ta.t != ca.t || ta.lp_hat != ca.lp_hat || tl.lrs_v != cl.lrs_v || tl.lp_hat != cl.lp_hat
				|| tl.lrs_v < 100;
		}
		free(b);
		CHECK(pbad == 0, "binary t-Tuple/LRS: repeats longer than 64 bits in an order other than the text's = suffix array (%u of 4 differ)", pbad);
	}

	/* the bitstring's t-Tuple/LRS from the samples' suffix array (each
	 * phase of the b-bit blocks sorted by it, then merged) against the
	 * suffix array of the bits: b = 1..8, random, mostly-constant,
	 * repeating (with planted copies longer than 64 bits, one altered),
	 * counting and two-valued samples */
	{
		unsigned bbad = 0, bcases = 0;
		for (int round = 0; round < 120; round++) {
			unsigned b = 1 + (unsigned)(ng_test_rand(&seed) % 8), kind = (unsigned)(ng_test_rand(&seed) % 5);
			size_t L = 20 + (size_t)(ng_test_rand(&seed) % (round % 20 == 0 ? 60000 : 3000));
			uint8_t *raw = malloc(L), *sym = malloc(L), mask = (uint8_t)((1u << b) - 1);
			for (size_t i = 0; i < L; i++) {
				uint8_t v = (uint8_t)ng_test_rand(&seed);
				raw[i] = kind == 0 ? v & mask : kind == 1 ? (v % 10 ? 0 : v & mask)
					: kind == 2 ? (i > 50 && v % 10 < 8 ? raw[i - 37] : v & mask)
					: kind == 3 ? (uint8_t)((i / 5) & mask) : (v % 3 ? 0x5a & mask : v & mask);
			}
			if (kind == 2 && L > 600) {
				memmove(raw + L / 2, raw + 10, 150);
				memmove(raw + L / 4, raw + 10, 150);
				memmove(raw + 3 * L / 4, raw + 10, 150);
				raw[L / 4 + 100] ^= 1;
			}
			unsigned k = ng_assess_translate(raw, L, sym);
			uint32_t *bsa = malloc(L * sizeof *bsa);
			size_t nb;
			uint8_t *bs = ng_assess_bitstring(raw, L, b, &nb);
			ng_suffix_array(sym, L, k < 2 ? 2 : k, bsa);
			ng_est_result ta, tl, ca, cl;
			ng_est_tuple_lrs_blocks(bs, nb, b, bsa, &ta, &tl);
			ng_est_tuple_lrs(bs, nb, 3, &ca, &cl);
			bcases++;
			bbad += ta.ok != ca.ok || ta.t != ca.t || ta.lp_hat != ca.lp_hat || tl.ok != cl.ok
				|| tl.u != cl.u || tl.lrs_v != cl.lrs_v || tl.lp_hat != cl.lp_hat;
			free(raw); free(sym); free(bsa); free(bs);
		}
		CHECK(bbad == 0, "bitstring t-Tuple/LRS from the samples' suffix array = suffix array of the bits (t, u, v, p-hats) in %u of %u cases", bcases - bbad, bcases);
	}

	/* longest previous/next factor against a naive scan */
	{
		int fbad = 0;
		for (int round = 0; round < 20; round++) {
			size_t L = 1 + ng_test_rand(&seed) % 700;
			unsigned k = round % 4 == 0 ? 2 : round % 4 == 1 ? 3 : round % 4 == 2 ? 16 : 256;
			for (size_t i = 0; i < L; i++)
				t[i] = (uint8_t)(ng_test_rand(&seed) % k);
			if (round == 7)
				memset(t, 1, L);
			unsigned cap = round % 2 ? 16 : 255;
			uint8_t *pv = malloc(L), *nx = malloc(L);
			ng_repeat_lengths(t, L, k, cap, pv, nx);
			for (size_t p = 0; p < L; p++) {
				size_t bp = 0, bn = 0;
				for (size_t q = 0; q < L; q++) {
					size_t l = 0;
					while (p + l < L && q + l < L && t[p + l] == t[q + l])
						l++;
					if (q < p && l > bp)
						bp = l;
					if (q > p && l > bn)
						bn = l;
				}
				fbad += pv[p] != (bp < cap ? bp : cap) || nx[p] != (bn < cap ? bn : cap);
			}
			free(pv);
			free(nx);
		}
		CHECK(fbad == 0, "longest previous/next factor = naive scan on 20 strings (%d wrong)", fbad);
	}

	/* literal MultiMMC and LZ78Y: dictionaries of the repeating contexts
	 * only = every context (C, N, r), 8-bit, 4-bit, skewed and periodic
	 * data, and 8-bit data that repeats phrases with changes after the
	 * dictionaries fill, lengths across the caps */
	{
		static const size_t lens[] = {19, 300, 5000, 70000, 250000};
		unsigned pdiff = 0, pcases = 0;
		uint8_t *b = malloc(250000);
		for (int kind = 0; kind < 5; kind++)
			for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
				size_t L = lens[li];
				if (L == 250000 && kind != 0 && kind != 4)
					continue;
				for (size_t i = 0; i < L; i++) {
					uint32_t x = (uint32_t)ng_test_rand(&seed);
					b[i] = kind == 0 ? (uint8_t)x : kind == 1 ? (uint8_t)(x & 15)
						: kind == 2 ? (uint8_t)(x % 100 < 70 ? 0 : (x >> 8) % 50)
						: (uint8_t)((i % 29) * 7 + (x % 100 < 3));
				}
				/* kind 4: fresh bytes (the caps fill), then 30-byte
				 * phrases from a set of 50, 5% of the bytes changed */
				for (size_t i = L / 2; kind == 4 && i < L;) {
					size_t ph = ng_test_rand(&seed) % 50;
					for (size_t q = 0; q < 30 && i < L; q++, i++)
						b[i] = ng_test_rand(&seed) % 100 < 5 ? (uint8_t)ng_test_rand(&seed) : b[ph * 30 + q];
				}
				uint8_t *sym = malloc(L);
				unsigned k = ng_assess_translate(b, L, sym);
				ng_est_result a[2], c[2];
				for (int g = 0; g < 2; g++) {
					ng_assess_general = g;
					ng_est_multi_mmc(sym, L, k, &a[g]);
					ng_est_lz78y(sym, L, k, &c[g]);
				}
				ng_assess_general = false;
				pcases++;
				pdiff += a[0].ok != a[1].ok || a[0].C != a[1].C || a[0].N != a[1].N || a[0].r != a[1].r
					|| c[0].ok != c[1].ok || c[0].C != c[1].C || c[0].N != c[1].N || c[0].r != c[1].r;
				free(sym);
			}
		free(b);
		CHECK(pdiff == 0, "literal MultiMMC/LZ78Y: repeating-context dictionaries = full ones (C, N, r) in %u of %u cases", pcases - pdiff, pcases);
	}

	/* the reference's P_local case (rand8-1M literal MultiMCW) */
	ng_est_predict_finish(3817, 999937, 3, 256, &r);
	CHECK(r.local_used && r.h == 6.6383827354578617, "P_local: C=3817 N=999937 r=4 gives 6.6383827354578617 (%.17g)", r.h);

	/* suffix array against qsort on random strings, alphabets 2, 3, 256 */
	int sabad = 0;
	for (int round = 0; round < 30; round++) {
		size_t L = 1 + ng_test_rand(&seed) % 3000;
		unsigned k = round % 3 == 0 ? 2 : round % 3 == 1 ? 3 : 256;
		for (size_t i = 0; i < L; i++)
			t[i] = (uint8_t)(ng_test_rand(&seed) % k);
		if (round == 5)
			memset(t, 1, L);
		uint32_t *sa = malloc(L * 4), *nv = malloc(L * 4);
		ng_suffix_array(t, L, k, sa);
		for (uint32_t i = 0; i < L; i++)
			nv[i] = i;
		g_s = t;
		g_n = L;
		qsort(nv, L, 4, cmp_suf);
		sabad += memcmp(sa, nv, L * 4) != 0;
		free(sa);
		free(nv);
	}
	CHECK(sabad == 0, "suffix array = naive sort on 30 random strings (%d differ)", sabad);

	/* too few samples: skipped with a reason */
	ng_est_compression(s, 100, &r);
	CHECK(!r.ok && r.reason[0], "compression on 100 bits is skipped: %s", r.reason);
	ng_est_multi_mcw(s, 50, 2, &r);
	CHECK(!r.ok && r.reason[0], "MultiMCW on 50 samples is skipped: %s", r.reason);
	free(s);
	free(t);
	free(u);
	return ng_check_exit();
}
