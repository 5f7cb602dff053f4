/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Health tests: cutoffs against an exact binomial computation done here in
 * long double (log domain), induced failures that trip exactly one test
 * during and after start-up, the dead and degraded vectors, raw mode, and
 * the latch property. */
#include <math.h>
#include <string.h>
#include "check.h"
#include "health_ref.h"
#include "ng/pipeline.h"

/* ---- independent cutoffs ---------------------------------------------- */
static long double log_pmf(int n, int k, long double lp, long double lq)
{
	return lgammal(n + 1.0L) - lgammal(k + 1.0L) - lgammal(n - k + 1.0L) + k * lp + (n - k) * lq;
}

/* 1 + the least k with P(X > k) <= 2^-30, X ~ B(n, 2^-H). */
static uint32_t ref_apt(uint32_t h_milli, int n)
{
	long double p = powl(2.0L, -(long double)h_milli / 1000.0L), lp = logl(p), lq = log1pl(-p);
	long double eps = ldexpl(1.0L, -30), tail = 0.0L;
	for (int k = n; k >= 0; k--) {
		long double t = expl(log_pmf(n, k, lp, lq));
		if (tail + t > eps)
			return (uint32_t)k + 1;   /* P(X > k) = tail <= eps */
		tail += t;
	}
	return 1;
}

/* The APT's false-alarm rate per window for cutoff c: B = 1 + the matches
 * of A among the window's other W - 1 samples, so P(X >= c - 1) for
 * X ~ B(W - 1, 2^-H). */
static long double apt_false_alarm(uint32_t h_milli, int w, int c)
{
	long double p = powl(2.0L, -(long double)h_milli / 1000.0L), lp = logl(p), lq = log1pl(-p), s = 0.0L;
	for (int k = w - 1; k >= c - 1; k--)
		s += expl(log_pmf(w - 1, k, lp, lq));
	return s;
}

static uint32_t ref_rct(uint32_t h_milli)
{
	return 1 + (uint32_t)ceill(30.0L / ((long double)h_milli / 1000.0L) - 1e-12L);
}

static ng_pipeline P;

static void init(uint32_t mode, uint32_t h_milli)
{
	ng_pipeline_config c = { .mode = mode, .uid = { 1, 2, 3 } };
	if (ng_pipeline_config_h(&c, h_milli, 0) != NG_OK || ng_pipeline_init(&P, &c) != NG_OK) {
		printf("FAIL: ng_pipeline_init\n");
		exit(1);
	}
}

/* xorshift samples: healthy for any declared H <= 8 (no repeats in practice). */
static uint64_t rs = 0x1234567;
static uint32_t good(void) { return (uint32_t)ng_test_rand(&rs); }

static size_t drain(void)
{
	uint8_t b[32];
	size_t n = 0;
	while (ng_pipeline_take(&P, b))
		n++;
	return n;
}

static ng_status feed_good(size_t n)
{
	ng_status r = NG_OK, x;
	for (size_t i = 0; i < n; i++)
		if ((x = ng_pipeline_put(&P, good())) != NG_OK && r == NG_OK)
			r = x;
	return r;
}

static ng_pipeline_stats stats(void)
{
	ng_pipeline_stats st;
	ng_pipeline_get_stats(&P, &st);
	return st;
}

/* `reps` copies of v (an RCT run): v is fresh, so no APT window counts it. */
static ng_status feed_run(uint32_t v, uint32_t reps)
{
	ng_status r = NG_OK, x;
	for (uint32_t i = 0; i < reps; i++)
		if ((x = ng_pipeline_put(&P, v)) != NG_OK && r == NG_OK)
			r = x;
	return r;
}

/* Starting at a window boundary: A, then A at every other sample until A
 * has been seen `count` times (no two equal samples in a row: RCT stays 1). */
static ng_status feed_apt(uint32_t count)
{
	uint32_t a = good();
	ng_status r = ng_pipeline_put(&P, a), x;
	for (uint32_t i = 1; i < count; i++) {
		if ((x = ng_pipeline_put(&P, good())) != NG_OK && r == NG_OK)
			r = x;
		if ((x = ng_pipeline_put(&P, a)) != NG_OK && r == NG_OK)
			r = x;
	}
	return r;
}

static void induced(uint32_t mode)
{
	const char *mn = mode == 0 ? "mode 0" : mode == 1 ? "mode 1" : "raw";
	ng_pipeline_stats st;
	/* RCT during start-up: 100 good, then a run of exactly C = 10. */
	init(mode, 3700);
	feed_good(100);
	ng_status r = feed_run(0xabcdef01u, 10);
	st = stats();
	CHECK(r == NG_ERR_PERSISTENT && st.status == (NG_HEALTH_RCT | NG_HEALTH_STARTUP | NG_HEALTH_STARTUP_FAILED | NG_HEALTH_PERSISTENT) &&
	      st.fail_test == NG_HEALTH_RCT && st.fail_index == 109 && st.fail_count == 10 &&
	      st.rct_failures == 1 && st.apt_failures == 0,
	      "%s: a run of 10 at sample 100 trips RCT only, during start-up: latched at index 109, count 10 (status 0x%x index %llu)",
	      mn, st.status, (unsigned long long)st.fail_index);
	/* A run of 9 is fine. */
	init(mode, 3700);
	feed_good(100);
	feed_run(0xabcdef01u, 9);
	feed_good(2000);
	st = stats();
	CHECK(st.status == 0 && st.rct_max == 9 && st.rct_failures == 0,
	      "%s: a run of 9 (C - 1) trips nothing (status 0x%x)", mn, st.status);
	/* APT during start-up: A seen C = 81 times in the first window. */
	init(mode, 3700);
	r = feed_apt(81);
	st = stats();
	CHECK(r == NG_ERR_PERSISTENT && st.status == (NG_HEALTH_APT | NG_HEALTH_STARTUP | NG_HEALTH_STARTUP_FAILED | NG_HEALTH_PERSISTENT) &&
	      st.fail_test == NG_HEALTH_APT && st.fail_index == 160 && st.fail_count == 81 && st.rct_failures == 0,
	      "%s: A 81 times in a window trips APT only, during start-up (index %llu, status 0x%x)",
	      mn, (unsigned long long)st.fail_index, st.status);
	init(mode, 3700);
	feed_apt(80);
	feed_good(2000);
	st = stats();
	CHECK(st.status == 0 && st.apt_max == 80, "%s: A 80 times (C - 1) trips nothing", mn);
	CHECK(drain() > 0 || mode == 2, "%s: output flows after a clean start-up", mn);

	/* After start-up: one RCT firing is intermittent. */
	init(mode, 3700);
	feed_good(2048);
	drain();
	st = stats();
	uint64_t out0 = st.blocks_out, drop0 = st.blocks_dropped;
	r = feed_run(0x55aa55aau, 10);
	ng_status r2 = feed_good(mode == 0 ? 300 : 70);
	size_t got = drain();
	st = stats();
	bool dropped_ok = mode == 2 ? st.blocks_dropped == drop0 : st.blocks_dropped == drop0 + 1;
	CHECK(st.status == NG_HEALTH_RCT && st.rct_failures == 1 && st.apt_failures == 0 && dropped_ok &&
	      (mode == 2 || r == NG_ERR_HEALTH || r2 == NG_ERR_HEALTH) && got > 0 && st.blocks_out == out0 + got,
	      "%s: after start-up a run of 10 trips RCT only, not persistent; %s (status 0x%x dropped %llu)",
	      mn, mode == 2 ? "raw outputs anyway" : "one block dropped, output goes on",
	      st.status, (unsigned long long)(st.blocks_dropped - drop0));
	/* A second firing within NG_HEALTH_REPEAT_SPAN latches. */
	r = feed_run(0x66aa55aau, 10);
	st = stats();
	CHECK(r == NG_ERR_PERSISTENT && (st.status & NG_HEALTH_PERSISTENT) && !(st.status & NG_HEALTH_STARTUP_FAILED) &&
	      st.fail_test == NG_HEALTH_RCT && st.fail_count == 10,
	      "%s: a second RCT firing within %u samples latches persistent", mn, NG_HEALTH_REPEAT_SPAN);
	uint64_t before = st.blocks_out;
	uint32_t bits = st.status;
	feed_good(20000);
	drain();
	ng_pipeline_set_mode(&P, mode == 2 ? 0 : 2);
	ng_pipeline_set_mode(&P, mode);
	feed_good(5000);
	size_t more = drain();
	st = stats();
	CHECK((st.status & bits) == bits && (mode == 2 ? more > 0 : st.blocks_out == before && more == 0),
	      "%s: after the latch, good input and mode switches clear nothing%s", mn,
	      mode == 2 ? " (raw still outputs)" : " and release nothing");

	/* A firing more than NG_HEALTH_REPEAT_SPAN after the previous one is intermittent again. */
	init(mode, 3700);
	feed_good(2048);
	feed_run(0x55aa55aau, 10);
	feed_good(NG_HEALTH_REPEAT_SPAN);
	feed_run(0x77aa55aau, 10);
	st = stats();
	CHECK(st.status == NG_HEALTH_RCT && st.rct_failures == 2,
	      "%s: two RCT firings %u+ samples apart stay intermittent", mn, NG_HEALTH_REPEAT_SPAN);

	/* After start-up: one APT firing (aligned to a window start). */
	init(mode, 3700);
	feed_good(2048);
	drain();
	drop0 = stats().blocks_dropped;
	feed_apt(81);
	feed_good(400);
	got = drain();
	st = stats();
	dropped_ok = mode == 2 ? st.blocks_dropped == drop0 : st.blocks_dropped >= drop0 + 1;
	CHECK(st.status == NG_HEALTH_APT && st.apt_failures == 1 && st.rct_failures == 0 && dropped_ok && got > 0,
	      "%s: after start-up A 81 times in a window trips APT only, not persistent (status 0x%x)", mn, st.status);
}

static void vector_fail(const char *name, uint32_t mode)
{
	size_t n;
	uint8_t *b = ng_test_vector(name, &n);
	init(mode, 3700);
	ng_status r = NG_OK;
	size_t got = 0;
	for (size_t i = 0; i < n / 4; i += 64) {
		r = ng_pipeline_put_many(&P, (const uint32_t *)b + i, n / 4 - i < 64 ? n / 4 - i : 64);
		got += drain();
	}
	ng_pipeline_stats st = stats();
	printf("# %s mode %u: status 0x%x test %s index %llu count %u; rct %u apt %u failures\n", name, mode,
	       st.status, ng_health_name(st.fail_test), (unsigned long long)st.fail_index, st.fail_count,
	       st.rct_failures, st.apt_failures);
	if (mode == NG_MODE_RAW) {
		CHECK(r == NG_ERR_PERSISTENT && got == n / 32 && (st.status & NG_HEALTH_PERSISTENT) && st.rct_failures > 0,
		      "%s raw: all %zu blocks output anyway, failure counted and latched (got %zu, r %d)", name, n / 32, got, r);
	} else {
		CHECK(r == NG_ERR_PERSISTENT && got == 0 && st.blocks_out == 0 &&
		      (st.status & (NG_HEALTH_PERSISTENT | NG_HEALTH_STARTUP_FAILED)) == (NG_HEALTH_PERSISTENT | NG_HEALTH_STARTUP_FAILED) &&
		      st.fail_test != 0 && st.fail_index < NG_STARTUP_SAMPLES && st.fail_count > 1,
		      "%s mode %u: zero blocks out, start-up failure latched (%s at %llu, count %u)", name, mode,
		      ng_health_name(st.fail_test), (unsigned long long)st.fail_index, st.fail_count);
	}
	free(b);
}

int main(void)
{
	uint32_t rc = 0, ac = 0;
	/* RCT(3.7) = 10 and the APT cutoffs against the exact computation. */
	CHECK(ng_health_cutoffs(3700, 512, &rc, &ac) == NG_OK && rc == 10,
	      "RCT cutoff at H=3.7 is 1 + ceil(30/3.7) = 10 (got %u)", rc);
	static const uint32_t hs[] = { 500, 700, 1000, 1500, 2000, 2500, 3000, 3500, 3700, 4000,
				       4200, 5000, 6000, 7000, 8000, 100, 12345, 32000 };
	int bad = 0;
	for (size_t i = 0; i < sizeof hs / sizeof hs[0]; i++) {
		ng_health_cutoffs(hs[i], 512, &rc, &ac);
		uint32_t er = ref_rct(hs[i]), ea = ref_apt(hs[i], 512);
		printf("# H=%u.%03u: RCT %u (ref %u) APT %u (ref %u)\n", hs[i] / 1000, hs[i] % 1000, rc, er, ac, ea);
		bad += rc != er || ac != ea;
	}
	CHECK(!bad, "cutoffs for H in 0.1..32 == exact binomial (lgammal, long double)");
	bad = 0;
	for (uint32_t h = 100; h <= 32000; h += 37) {
		ng_health_cutoffs(h, 512, &rc, &ac);
		bad += rc != ref_rct(h) || ac != ref_apt(h, 512);
	}
	CHECK(!bad, "cutoffs on a 0.037-bit grid of H in 0.1..32 == exact (%d differ)", bad);
	bad = 0;
	static const int ws[] = { 2, 16, 64, 1024, 4096 };
	for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++) {
		ng_health_cutoffs(3700, (uint32_t)ws[i], &rc, &ac);
		bad += ac != ref_apt(3700, ws[i]);
	}
	CHECK(!bad, "APT cutoffs for windows 2..4096 == exact");
	CHECK(ng_health_cutoffs(99, 512, &rc, &ac) == NG_ERR_ARG && ng_health_cutoffs(32001, 512, &rc, &ac) == NG_ERR_ARG &&
	      ng_health_cutoffs(1000, 1, &rc, &ac) == NG_ERR_ARG, "cutoffs: out-of-range H or window -> NG_ERR_ARG");
	ng_health_cutoffs(3700, 512, &rc, &ac);
	CHECK(ac == 81, "APT cutoff at H=3.7, W=512 is 81 (the induced tests assume it)");
	/* The formula chosen (doc/health.md, "Cutoffs"): SP 800-90B's as printed,
	 * 81, whose false-alarm rate (about 1.383e-9 = 2^-29.43) is above alpha;
	 * the count that takes the window's first sample as given would be 82
	 * (6.067e-10 = 2^-30.62). Both rates within SP 800-90B's 2^-40 .. 2^-20. */
	{
		long double f81 = apt_false_alarm(3700, 512, 81), f82 = apt_false_alarm(3700, 512, 82);
		long double a = ldexpl(1.0L, -30);
		printf("# APT false alarms per window at H=3.7: C=81 %.4Le, C=82 %.4Le\n", f81, f82);
		CHECK(fabsl(f81 / 1.38282e-9L - 1) < 1e-4L && fabsl(f82 / 6.06668e-10L - 1) < 1e-4L && f82 <= a && f81 > a &&
		      f81 < ldexpl(1.0L, -20) && f82 > ldexpl(1.0L, -40),
		      "APT at H=3.7: C=81 (printed formula) fails a healthy window with P=%.4Le (> alpha), C=82 with %.4Le",
		      f81, f82);
		bad = 0;   /* the corrected count is 1 + the least k with P(B(W-1) >= k) <= alpha */
		for (uint32_t h = 100; h <= 32000; h += 37) {
			ng_health_cutoffs(h, 512, &rc, &ac);
			bad += apt_false_alarm(h, 512, (int)ac + 1) > a * (1 + 1e-9L);
		}
		CHECK(!bad, "APT: cutoff + 1 always meets alpha = 2^-30 (the printed formula is at most one short; %d not)",
		      bad);
	}

	/* The firmware's constants (ng/pipeline.h: it computes no cutoffs) are
	 * what ng_health_cutoffs gives for its board profile's H: 3.7 bits per
	 * word, 1 bit per ADC half-word. */
	{
		uint32_t wr = 0, wa = 0, ar = 0, aa = 0;
		ng_health_cutoffs(NG_DEFAULT_H_MILLI, NG_APT_WINDOW, &wr, &wa);
		ng_health_cutoffs(NG_DEFAULT_ADC_H_MILLI, NG_APT_WINDOW, &ar, &aa);
		const ng_health_limits dw = NG_DEFAULT_LIMITS, da = NG_DEFAULT_ADC_LIMITS;
		CHECK(dw.h_milli == 3700 && dw.rct_cutoff == wr && dw.apt_cutoff == wa && da.h_milli == 1000 &&
		      da.rct_cutoff == ar && da.apt_cutoff == aa,
		      "firmware cutoffs NG_DEFAULT_LIMITS (%u, %u) and NG_DEFAULT_ADC_LIMITS (%u, %u) == ng_health_cutoffs "
		      "(%u, %u) and (%u, %u)", dw.rct_cutoff, dw.apt_cutoff, da.rct_cutoff, da.apt_cutoff, wr, wa, ar, aa);
		ng_health_limits l = { 0 };
		CHECK(ng_health_limits_for(&l, 99) == NG_ERR_ARG && l.h_milli == 0 && ng_health_limits_for(&l, 3700) == NG_OK &&
		      l.h_milli == 3700 && l.rct_cutoff == wr && l.apt_cutoff == wa,
		      "ng_health_limits_for: ng_health_cutoffs's figures; NG_ERR_ARG out of range");
		ng_health_ctx a, b;
		ng_health_limits bad1 = { 3700, 1, 81 }, bad2 = { 3700, 10, 513 }, bad3 = { 99, 10, 81 };
		CHECK(ng_health_start(&a, &dw, &da) == NG_OK && ref_health_init(&b, 3700, 1000) == NG_OK &&
		      memcmp(&a, &b, sizeof a) == 0 && ng_health_start(&a, &bad1, NULL) == NG_ERR_ARG &&
		      ng_health_start(&a, &dw, &bad2) == NG_ERR_ARG && ng_health_start(&a, &bad3, NULL) == NG_ERR_ARG &&
		      ng_health_start(&a, NULL, NULL) == NG_ERR_ARG,
		      "ng_health_start with the constants == with ng_health_limits_for(3.7, 1); impossible limits -> NG_ERR_ARG");
	}

	/* ng_health_test against SP 800-90B 4.4.1 and 4.4.2 as the standard
	 * writes them (ref_* below: one sample at a time, no shared state), on
	 * sequences from small alphabets so that both tests fire often, cut
	 * into random pieces: the same samples fail, with the same bits. */
	uint64_t seed = ng_test_seed();
	int diff = 0, fires = 0;
	for (int trial = 0; trial < 400; trial++) {
		ng_health_ctx h;
		uint32_t hm = 500 + (uint32_t)(ng_test_rand(&seed) % 7500), rc3, ac3;
		ref_health_init(&h, hm, 0);
		ng_health_cutoffs(hm, NG_APT_WINDOW, &rc3, &ac3);
		ref_state r = { 0 };
		uint32_t alpha = 1 + (uint32_t)(ng_test_rand(&seed) % 40), buf[700];
		for (int chunk = 0; chunk < 20; chunk++) {
			size_t n = (size_t)(ng_test_rand(&seed) % 700);
			uint32_t run = 0, v = 0;
			for (size_t i = 0; i < n; i++) {
				if (!run) {   /* runs of random length, values from a small alphabet
					       * (on some trials spread over all 32 bits) */
					v = (uint32_t)(ng_test_rand(&seed) % alpha) * (trial & 2 ? 0x9e3779b1u : 0x01000193u);
					run = 1 + (uint32_t)(ng_test_rand(&seed) % (trial & 1 ? 3 : 14));
				}
				buf[i] = v;
				run--;
			}
			for (size_t i = 0; i < n;) {
				uint32_t f, want = 0;
				size_t k = ng_health_test(&h, buf + i, n - i, &f);
				for (size_t j = i; j < i + k; j++)   /* the samples that passed */
					diff += ref_step(&r, buf[j], rc3, ac3) != 0;
				if (i + k < n)
					want = ref_step(&r, buf[i + k], rc3, ac3);
				diff += i + k < n && (f != want || !f);
				fires += f != 0;
				i += k + (i + k < n);
			}
		}
		diff += h.st[0].rct_max != r.rct_max || h.st[0].apt_max != r.apt_max || h.samples != r.n;
	}
	CHECK(!diff && fires > 1000, "ng_health_test == SP 800-90B 4.4.1/4.4.2 written out sample by sample "
	      "(8000 pieces, %d failing samples, %d differ)", fires, diff);

	/* The same with the ADC streams: each half-word of the words is a
	 * stream of its own (its own reference, H = 1 bit), the halves drawn
	 * from small alphabets and repeated independently, so that a sample
	 * often equals its predecessor or the window's first on one half only
	 * (on some trials near the top of the half-word's range). */
	diff = 0;
	fires = 0;
	for (int trial = 0; trial < 200; trial++) {
		ng_health_ctx h;
		uint32_t hm = 2000 + (uint32_t)(ng_test_rand(&seed) % 6000), rcw, acw, rch, ach;
		ref_health_init(&h, hm, 1000);
		ng_health_cutoffs(hm, NG_APT_WINDOW, &rcw, &acw);
		ng_health_cutoffs(1000, NG_APT_WINDOW, &rch, &ach);
		ref_state r[3] = { { 0 } };
		uint32_t alpha = 1 + (uint32_t)(ng_test_rand(&seed) % 12), buf[700], lo = 0, hi = 0, rlo = 0, rhi = 0;
		for (int chunk = 0; chunk < 20; chunk++) {
			size_t n = (size_t)(ng_test_rand(&seed) % 700);
			for (size_t i = 0; i < n; i++) {
				if (!rlo) {
					lo = (uint32_t)(ng_test_rand(&seed) % (alpha + 30)) + (trial & 4 ? 0xffc0u : 1000u);
					rlo = 1 + (uint32_t)(ng_test_rand(&seed) % (trial & 1 ? 3 : 20));
				}
				if (!rhi) {
					hi = (uint32_t)(ng_test_rand(&seed) % (alpha + 30)) + (trial & 8 ? 0xffc0u : 1000u);
					rhi = 1 + (uint32_t)(ng_test_rand(&seed) % (trial & 2 ? 3 : 20));
				}
				buf[i] = hi << 16 | lo;
				rlo--;
				rhi--;
			}
			for (size_t i = 0; i < n;) {
				uint32_t f, want = 0;
				size_t k = ng_health_test(&h, buf + i, n - i, &f);
				for (size_t j = i; j < i + k; j++)
					diff += (ref_step(&r[0], buf[j], rcw, acw) | ref_step(&r[1], buf[j] & 0xffffu, rch, ach) |
						 ref_step(&r[2], buf[j] >> 16, rch, ach)) != 0;
				if (i + k < n) {
					uint32_t x = buf[i + k];
					want = ref_step(&r[0], x, rcw, acw) | ref_step(&r[1], x & 0xffffu, rch, ach) |
					       ref_step(&r[2], x >> 16, rch, ach);
				}
				diff += i + k < n && (f != want || !f);
				fires += f != 0;
				i += k + (i + k < n);
			}
		}
		for (int k = 0; k < 3; k++)
			diff += h.st[k].rct_max != r[k].rct_max || h.st[k].apt_max != r[k].apt_max;
		diff += h.samples != r[0].n;
	}
	CHECK(!diff && fires > 500, "ng_health_test on 3 streams == SP 800-90B 4.4.1/4.4.2 on the word and each half-word "
	      "(4000 pieces, %d failing samples, %d differ)", fires, diff);

	/* NeuG's tests a word at a time == a byte at a time (low byte first),
	 * on bytes from small alphabets in random pieces: the same state after
	 * every piece and the same firings. */
	{
		int bad = 0, nf = 0;
		for (int trial = 0; trial < 100; trial++) {
			ng_neug_tests_ctx a, b;
			ng_neug_tests_init(&a);
			ng_neug_tests_init(&b);
			uint32_t alpha = trial & 1 ? 2 + (uint32_t)(ng_test_rand(&seed) % 14) : 16 + (uint32_t)(ng_test_rand(&seed) % 240), w[64];
			for (int chunk = 0; chunk < 200; chunk++) {
				size_t n = (size_t)(ng_test_rand(&seed) % 65);
				for (size_t i = 0; i < n; i++) {
					w[i] = 0;
					for (int k = 0; k < 4; k++)
						w[i] |= (uint32_t)(ng_test_rand(&seed) % alpha) << (8 * k);
				}
				bool fw = ng_neug_tests_words(&a, w, n), fb = false;
				for (size_t i = 0; i < n; i++)
					for (int k = 0; k < 4; k++)
						fb |= ng_neug_tests_byte(&b, (uint8_t)(w[i] >> (8 * k)));
				bad += fw != fb || memcmp(&a, &b, sizeof a) != 0;
				nf += fw;
			}
		}
		CHECK(!bad && nf > 100, "NeuG's tests on words == on their bytes one at a time (20000 pieces, %d firing, %d differ)",
		      nf, bad);
	}

	/* Each ADC's half-word is a stream of its own (H = 1 bit: C = 31). */
	{
		ng_health_ctx h;
		uint32_t w[64], f;
		for (int dead = 1; dead <= 2; dead++) {
			ref_health_init(&h, 3700, 1000);
			for (uint32_t i = 0; i < 64; i++) {   /* the live ADC cycles through 40 codes */
				uint32_t live = 1480u + i % 40u, stuck = 4060u;
				w[i] = dead == 2 ? stuck << 16 | live : live << 16 | stuck;
			}
			size_t k = ng_health_test(&h, w, 64, &f);
			CHECK(k == 30 && f == NG_HEALTH_RCT && h.fail_stream == (dead == 2 ? NG_STREAM_ADC2 : NG_STREAM_ADC1) &&
			      (h.status & NG_HEALTH_STARTUP_FAILED) && h.st[0].rct_failures == 0,
			      "ADC%d constant, ADC%d live: its own stream's RCT fires at sample 30 (k=%zu, stream %u)",
			      dead, 3 - dead, k, h.fail_stream);
			ref_health_init(&h, 3700, 0);
			k = ng_health_test(&h, w, 64, &f);
			CHECK(k == 64 && f == 0, "the same words with the word stream alone pass (what the ADC streams add)");
		}
	}

	{
		ng_neug_tests_ctx t;
		ng_neug_tests_init(&t);
		bool f = false;
		for (int i = 0; i < 8; i++)
			f |= ng_neug_tests_byte(&t, 7);
		uint16_t e8 = t.err_rc;
		f = ng_neug_tests_byte(&t, 7);
		CHECK(!e8 && f && t.err_rc == 1 && t.rc_max == 9 && t.err >= 1,
		      "NeuG RCT on bytes: a run of 8 passes, the 9th equal byte fires (cutoff 9)");
	}

	for (uint32_t m = 0; m < 3; m++)
		induced(m);
	for (uint32_t m = 0; m < 3; m++) {
		vector_fail("stuck.bin", m);
		vector_fail("lowbit.bin", m);
	}
	return ng_check_exit();
}
