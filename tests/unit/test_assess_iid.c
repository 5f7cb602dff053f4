/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The IID track's fast paths against the plain ones: both arrangements of
 * a round (Fisher-Yates, and the two-level shuffle) against their plain
 * definitions, the two-level one's uniformity, the excursion of a round
 * (fused with Fisher-Yates, from the two-level tally) against the
 * arrangement then the excursion, bit for bit, and against a bar; whole
 * permutation tests (rounds streamed on several threads, the switch to
 * two-level rounds, excursion-only rounds that stop early, skipped
 * statistics) against a naive loop that arranges, computes all 19
 * statistics and applies the 5.1 early stop round by round; the runs
 * statistics against plain loops and the LRS test's longest repeat against
 * the suffix array's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "assess.h"
#include "bz2_oracle.h"
#include "check.h"
#include "xoshiro.h"

static uint64_t sum_of(const uint8_t *x, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	return s;
}

static unsigned max_of(const uint8_t *x, size_t n)
{
	unsigned m = 0;
	for (size_t i = 0; i < n; i++)
		m = x[i] > m ? x[i] : m;
	return m;
}

static unsigned min_of(const uint8_t *x, size_t n)
{
	unsigned m = 255;
	for (size_t i = 0; i < n; i++)
		m = x[i] < m ? x[i] : m;
	return m;
}

static int cmp_u8(const void *a, const void *b)
{
	return *(const uint8_t *)a - *(const uint8_t *)b;
}

/* The plain runs counts of 5.1.2-5.1.6 on a 0/1 sequence: the number of
 * runs and the longest. */
static void plain_runs(const uint8_t *d, size_t m, double *num, double *len)
{
	size_t runs = m > 0, cur = 1, longest = m > 0;
	for (size_t i = 1; i < m; i++) {
		if (d[i] == d[i - 1])
			cur++;
		else {
			runs++;
			cur = 1;
		}
		longest = cur > longest ? cur : longest;
	}
	*num = (double)runs;
	*len = (double)longest;
}

/* The naive permutation test: the counters ng_assess_iid must produce. */
static unsigned long naive_perm(const uint8_t *raw, size_t n, unsigned long rounds, uint64_t seed,
				unsigned c[NG_PERM_STATS][3], double t0[NG_PERM_STATS], unsigned long *sw)
{
	uint8_t *sym = malloc(n), *y = malloc(n), *ys = malloc(n), *srt = malloc(n);
	unsigned k = ng_assess_translate(raw, n, sym);
	bool binary = k == 2;
	const uint8_t *x = binary ? sym : raw;
	memcpy(srt, x, n);
	qsort(srt, n, 1, cmp_u8);
	double median = binary ? 0.5 : n % 2 ? srt[n / 2] : (srt[n / 2 - 1] + srt[n / 2]) / 2.0;
	ng_perm_stats(sym, raw, n, binary, median, t0);
	bool active[NG_PERM_STATS];
	for (int i = 0; i < NG_PERM_STATS; i++)
		active[i] = true;
	memset(c, 0, sizeof(unsigned[NG_PERM_STATS][3]));
	unsigned long r = 0;
	int left = NG_PERM_STATS;
	bool rs = false, closed = false;
	*sw = 0;
	for (; r < rounds && left > 0; r++) {
		/* the switch to the two-level arrangement: at a switch point
		 * with the excursion the one cheap statistic left */
		if (!closed && ng_perm_switch_point(r)) {
			int cheap = 0;
			for (int i = 0; i < 18; i++)
				cheap += active[i];
			closed = !active[0] || cheap == 1;
			rs = active[0] && cheap == 1 && c[0][2] >= c[0][0];
			*sw = rs ? r : 0;
		}
		ng_perm_shuffle(x, NULL, y, n, seed ^ (0x9e3779b97f4a7c15ULL * (r + 1)), rs);
		double t[NG_PERM_STATS];
		/* ng_perm_stats reads sym for binary data, raw otherwise */
		memcpy(ys, y, n);
		ng_perm_stats(ys, y, n, binary, median, t);
		for (int i = 0; i < NG_PERM_STATS; i++) {
			if (!active[i])
				continue;
			c[i][t[i] > t0[i] ? 0 : t[i] == t0[i] ? 1 : 2]++;
			if (c[i][0] + c[i][1] > 5 && c[i][1] + c[i][2] > 5) {
				active[i] = false;
				left--;
			}
		}
	}
	free(sym);
	free(y);
	free(ys);
	free(srt);
	return r;
}

int main(void)
{
	uint64_t seed = ng_test_seed();

	/* ng_perm_shuffle (two draws per xoshiro output on its fast path) =
	 * the textbook Fisher-Yates on ng_draw32_below; 1,000,000 samples
	 * take about 116 rejected draws, which leave the fast path and come
	 * back */
	{
		static const size_t ns[] = {2, 3, 10, 1001, 65536, 1000000, 999999};
		int diff = 0;
		for (size_t si = 0; si < sizeof ns / sizeof *ns; si++) {
			size_t n = ns[si];
			uint8_t *x = malloc(n), *a = malloc(n), *b = malloc(n);
			for (size_t i = 0; i < n; i++)
				x[i] = b[i] = (uint8_t)ng_test_rand(&seed);
			uint64_t s0 = ng_test_rand(&seed);
			ng_perm_shuffle(x, NULL, a, n, s0, false);
			ng_xoshiro g2;
			ng_xoshiro_seed(&g2, s0);
			ng_draw32 d = {&g2, 0, 0};
			for (size_t i = n - 1; i > 0; i--) {
				size_t k = ng_draw32_below(&d, (uint32_t)(i + 1));
				uint8_t t = b[i];
				b[i] = b[k];
				b[k] = t;
			}
			diff += memcmp(a, b, n) != 0;
			free(x);
			free(a);
			free(b);
		}
		CHECK(diff == 0, "shuffle = textbook Fisher-Yates on the same draws, 2 to 1,000,000 samples (%d differ)", diff);
	}

	/* the two-level arrangement = its definition, written plainly: the
	 * samples in increasing order of value, their buckets from the dealing
	 * stream's fields, the buckets in order with their samples in dealt
	 * order, each shuffled by the textbook Fisher-Yates on its own stream;
	 * every bucket width from 0 to 12 bits and lengths that leave part of
	 * the last output unused */
	{
		static const size_t ns[] = {1, 2, 255, 256, 257, 1000, 4097, 65536, 65539, 300001, 524288,
					    1000000, 1000003};
		int diff = 0;
		for (size_t si = 0; si < sizeof ns / sizeof *ns; si++) {
			size_t n = ns[si];
			uint8_t *x = malloc(n), *a = malloc(n), *b = malloc(n), *xs = malloc(n);
			uint16_t *id = malloc(n * sizeof *id);
			for (size_t i = 0; i < n; i++)
				x[i] = (uint8_t)ng_test_rand(&seed);
			memcpy(xs, x, n);
			qsort(xs, n, 1, cmp_u8);
			uint64_t s0 = ng_test_rand(&seed);
			ng_perm_shuffle(x, NULL, a, n, s0, true);
			unsigned bits = 0;
			while (bits < 12 && n / ((size_t)2 << bits) >= 128)
				bits++;
			unsigned per = bits ? 64 / bits : 64;
			ng_xoshiro g;
			ng_xoshiro_seed(&g, s0);
			uint64_t r = 0;
			for (size_t i = 0; i < n; i++) {
				if (bits && i % per == 0)
					r = ng_xoshiro_step(&g);
				id[i] = bits ? (uint16_t)(r >> (64 - bits * (i % per + 1)) & ((1u << bits) - 1)) : 0;
			}
			size_t o = 0;
			for (unsigned bk = 0; bk < 1u << bits; bk++) {
				size_t lo = o;
				for (size_t i = 0; i < n; i++)
					if (id[i] == bk)
						b[o++] = xs[i];
				ng_xoshiro h;
				ng_xoshiro_seed(&h, s0 + 4 * 0x9e3779b97f4a7c15ULL * (bk + 1));
				ng_draw32 d = {&h, 0, 0};
				for (size_t i = o - lo; i-- > 1;) {
					size_t k = ng_draw32_below(&d, (uint32_t)(i + 1));
					uint8_t t = b[lo + i];
					b[lo + i] = b[lo + k];
					b[lo + k] = t;
				}
			}
			diff += o != n || memcmp(a, b, n) != 0;
			free(x);
			free(xs);
			free(a);
			free(b);
			free(id);
		}
		CHECK(diff == 0, "two-level arrangement = its plain definition, 1 to 1,000,003 samples (%d differ)", diff);
	}

	/* the two-level arrangement is uniform: where samples 0, 127 and 255
	 * of 256 (two buckets) land over 40,000 rounds, and how often sample
	 * 10 comes before 11 and 0 before 255, as chi-square and z scores
	 * with fixed seeds; buckets kept out of order, a bucket left
	 * unshuffled or a biased dealing show at once */
	{
		size_t n = 256;
		unsigned rounds = 40000;
		uint8_t x[256], a[256], at[256];
		static unsigned pos[3][256];
		unsigned before[2] = {0, 0};
		static const unsigned ks[3] = {0, 127, 255};
		for (size_t i = 0; i < n; i++)
			x[i] = (uint8_t)i;
		for (unsigned r = 0; r < rounds; r++) {
			ng_perm_shuffle(x, NULL, a, n, 0x5eed0000u + r, true);
			for (size_t i = 0; i < n; i++)
				at[a[i]] = (uint8_t)i;
			for (int q = 0; q < 3; q++)
				pos[q][at[ks[q]]]++;
			before[0] += at[10] < at[11];
			before[1] += at[0] < at[255];
		}
		int badu = 0;
		for (int q = 0; q < 3; q++) {
			double chi = 0, e = (double)rounds / (double)n;
			for (size_t i = 0; i < n; i++)
				chi += (pos[q][i] - e) * (pos[q][i] - e) / e;
			/* 255 degrees of freedom: mean 255, sd 22.6; 400 is 6.4 sd */
			badu += chi > 400;
		}
		for (int q = 0; q < 2; q++)
			badu += fabs(((double)before[q] - rounds / 2.0) / sqrt(rounds / 4.0)) > 5;
		CHECK(badu == 0, "two-level arrangement: samples 0, 127 and 255 of 256 land uniformly, and two pairs keep their order half the time (%d off)", badu);
	}

	/* fused shuffle+excursion = shuffle, then excursion, same stream; the
	 * kinds: 8-bit, binary, a shifted mean (a large excursion), rare
	 * peaks over zeros (a loose block bound), a constant, a narrow range
	 * far from zero (biased-1M's shape) */
	static const size_t sizes[] = {1, 2, 3, 7, 64, 65, 66, 129, 1000, 4097, 100000, 1000000};
	int bad = 0, badarr = 0, badstop = 0, badcnt = 0, cases = 0;
	for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
		size_t n = sizes[si];
		uint8_t *x = malloc(n), *a = malloc(n), *b = malloc(n);
		for (int kind = 0; kind < 6; kind++) {
			for (size_t i = 0; i < n; i++) {
				uint64_t v = ng_test_rand(&seed);
				x[i] = kind == 0 ? (uint8_t)v : kind == 1 ? (uint8_t)(v & 1)
					: kind == 2 ? (uint8_t)((v % 200) + (i < n / 2 ? 0 : 55))
					: kind == 3 ? (uint8_t)(v % 100 == 0 ? 255 : 0)
					: kind == 4 ? 7 : (uint8_t)(48 + (v & 15));
			}
			uint64_t s0 = ng_test_rand(&seed), sum = sum_of(x, n);
			unsigned vmin = min_of(x, n), vmax = max_of(x, n);
			/* the values' counts, as a round stream passes them */
			uint64_t cnt[256] = {0}, got_cnt[256];
			for (size_t i = 0; i < n; i++)
				cnt[x[i]]++;
			ng_perm_counts(x, n, got_cnt);
			badcnt += memcmp(cnt, got_cnt, sizeof cnt) != 0;
			for (int rs = 0; rs < 2; rs++) {
				ng_perm_shuffle(x, NULL, a, n, s0, rs);
				double want = ng_perm_excursion(a, n);
				double got = ng_perm_shuffle_excursion(x, NULL, b, n, s0, rs, sum, vmin, vmax, INFINITY);
				bad += memcmp(&want, &got, sizeof want) != 0;
				badarr += !rs && memcmp(a, b, n) != 0;
				/* a bar at the value itself gives the value (and the
				 * whole Fisher-Yates shuffle); just below it, a value
				 * above the bar, at most the value; just above it, a
				 * value below the bar */
				got = ng_perm_shuffle_excursion(x, cnt, b, n, s0, rs, sum, vmin, vmax, want);
				badstop += memcmp(&want, &got, sizeof want) != 0 || (!rs && memcmp(a, b, n) != 0);
				if (want > 0) {
					double bar = want * (1 - 1e-12);
					got = ng_perm_shuffle_excursion(x, cnt, b, n, s0, rs, sum, vmin, vmax, bar);
					badstop += !(got > bar && got <= want);
				}
				for (int up = 0; up < 2; up++) {
					double bar = up ? want * (1 + 1e-12) + 1e-300 : want * 0.9;
					got = ng_perm_shuffle_excursion(x, cnt, b, n, s0, rs, sum, vmin / (1u + (unsigned)up),
									vmax + 17u * (unsigned)up, bar);
					badstop += up ? !(got < bar) : !(got > bar || (want == 0 && got == 0)) || got > want;
				}
				cases++;
			}
		}
		free(x);
		free(a);
		free(b);
	}
	CHECK(badcnt == 0, "ng_perm_counts = a plain count of each value (%d differ)", badcnt);
	CHECK(bad == 0, "excursion of a round (Fisher-Yates fused, two-level from the tally) = arrangement then excursion, bit for bit (%d of %d differ)", bad, cases);
	CHECK(badarr == 0, "fused shuffle leaves the same permutation as the plain one (%d of %d differ)", badarr, cases);
	CHECK(badstop == 0, "fused excursion against a bar: at, just below, just above and well below the value, each compares as the value does (%d bad)", badstop);

	/* the compression statistic = bzip2 with the default work factor
	 * (binary data uses another, which must not change the size): random,
	 * biased and constant binary data, runs, and 8-bit data */
	{
		size_t n = 300000;
		uint8_t *x = malloc(n);
		int cbad = 0;
		for (int kind = 0; kind < 6; kind++) {
			for (size_t i = 0; i < n; i++) {
				uint64_t v = ng_test_rand(&seed);
				x[i] = kind == 0 ? (uint8_t)(v & 1) : kind == 1 ? (uint8_t)(v % 10 < 3)
					: kind == 2 ? 0 : kind == 3 ? (uint8_t)((i / 1000) & 1) : (uint8_t)v;
			}
			double st[NG_PERM_STATS];
			ng_perm_stats(x, x, n, kind < 4, kind < 4 ? 0.5 : 127.5, st);
			double want = (double)ng_bz2_oracle(x, n, 5);
			cbad += !(want > 0 && st[18] == want);
		}
		CHECK(cbad == 0, "compression statistic = bzip2 -5 size of the text, binary and 8-bit (%d of 5 differ)", cbad);
		free(x);
	}

	/* whole permutation tests against the naive loop: random 8-bit data
	 * (statistics settle early), binary data, and random data arranged so
	 * that its excursion sits high in the permutation distribution (the
	 * largest of 100 shuffles; fixed seeds): the later rounds are then
	 * excursion-only, and those above the original stop early */
	size_t n = 6000;
	uint8_t *x = malloc(n), *best = malloc(n), *y = malloc(n);
	for (int kind = 0; kind < 3; kind++) {
		for (size_t i = 0; i < n; i++) {
			uint64_t v = ng_test_rand(&seed);
			x[i] = kind == 2 ? (uint8_t)(v % 10 < 3) : (uint8_t)v;
		}
		if (kind == 1) {
			uint64_t fs = 1;
			for (size_t i = 0; i < n; i++)
				x[i] = (uint8_t)ng_test_rand(&fs);
			double e[100];
			for (int j = 0; j < 100; j++) {
				ng_perm_shuffle(x, NULL, y, n, fs + (uint64_t)j, false);
				e[j] = ng_perm_excursion(y, n);
			}
			int top = 0;
			for (int j = 1; j < 100; j++)
				if (e[j] > e[top])
					top = j;
			ng_perm_shuffle(x, NULL, best, n, fs + (uint64_t)top, false);
			memcpy(x, best, n);
		}
		unsigned long rounds = 400;
		unsigned c[NG_PERM_STATS][3];
		double t0[NG_PERM_STATS];
		uint64_t ps = ng_test_rand(&seed);
		if (kind == 1)
			ps = 0x6e657567; /* fixed, so the counts below are fixed */
		unsigned long sw;
		unsigned long nr = naive_perm(x, n, rounds, ps, c, t0, &sw);
		int diff = 0, tdiff = 0;
		unsigned long got_r = 0;
		bool exc_only = false;
		for (unsigned th = 1; th <= 3; th++) {
			ng_assess_opts o = {.bits = kind == 2 ? 1 : 8, .threads = th, .all_rounds = true};
			ng_iid_report *r = calloc(1, sizeof *r);
			ng_assess_iid(x, n, &o, rounds, ps, r);
			diff += memcmp(r->perm_c, c, sizeof c) != 0 || r->permutations != nr || r->two_level_from != sw;
			tdiff += memcmp(r->perm_t, t0, sizeof t0) != 0;
			got_r = r->permutations;
			unsigned others = 0;
			for (int i = 1; i < NG_PERM_STATS; i++) {
				unsigned s = r->perm_c[i][0] + r->perm_c[i][1] + r->perm_c[i][2];
				if (s > others)
					others = s;
			}
			exc_only = r->perm_c[0][0] + r->perm_c[0][1] + r->perm_c[0][2] > others;
			free(r);
		}
		CHECK(tdiff == 0, "permutation test %d: the unpermuted statistics equal ng_perm_stats", kind);
		CHECK(diff == 0, "permutation test %d: counters, rounds (%lu) and the switch to two-level rounds (%lu) equal the naive loop on 1, 2 and 3 threads",
		      kind, got_r, sw);
		if (kind == 1)
			CHECK(exc_only && c[0][0] > 0 && sw > 0 && sw < nr,
			      "high excursion: it outlasts the other statistics (%lu rounds, two-level from round %lu, C0 %u, C2 %u)",
			      nr, sw, c[0][0], c[0][2]);
	}
	free(x);
	free(best);
	free(y);

	/* A switch to two-level rounds before phase 1 has done its
	 * NG_PERM_INLINE compression rounds: random data arranged so that its
	 * excursion is the largest of 100 shuffles (the excursion outlasts the
	 * other cheap statistics), with a data seed and round seed found by
	 * search where the switch comes at round 48 and the compression
	 * statistic settles only after it. Phase 2 takes the compression
	 * statistic over from the switch round, two-level; the counters are
	 * the naive loop's. */
	{
		size_t m = 6000;
		uint8_t *z = malloc(m), *zy = malloc(m), *zb = malloc(m);
		uint64_t fs = 134;
		for (size_t i = 0; i < m; i++)
			z[i] = (uint8_t)ng_test_rand(&fs);
		double top = -1;
		for (uint64_t j = 0; j < 100; j++) {
			ng_perm_shuffle(z, NULL, zy, m, fs + j, false);
			double e = ng_perm_excursion(zy, m);
			if (e > top) {
				top = e;
				memcpy(zb, zy, m);
			}
		}
		unsigned long rounds = 200, sw;
		unsigned c[NG_PERM_STATS][3];
		double t0[NG_PERM_STATS];
		uint64_t ps = 2;
		unsigned long nr = naive_perm(zb, m, rounds, ps, c, t0, &sw);
		unsigned long cr = c[18][0] + c[18][1] + c[18][2];
		CHECK(sw > 0 && sw < NG_PERM_INLINE && cr > sw,
		      "early switch: two-level from round %lu, before phase 1's %d compression rounds end; compression settles after %lu",
		      sw, NG_PERM_INLINE, cr);
		int diff = 0;
		for (unsigned th = 1; th <= 3; th++) {
			ng_assess_opts o = {.bits = 8, .threads = th, .all_rounds = true};
			ng_iid_report *r = calloc(1, sizeof *r);
			ng_assess_iid(zb, m, &o, rounds, ps, r);
			diff += memcmp(r->perm_c, c, sizeof c) != 0 || r->permutations != nr || r->two_level_from != sw ||
				r->perm_rounds[18] != cr;
			o.all_rounds = false;
			ng_assess_iid(zb, m, &o, rounds, ps, r);
			/* decided (a statistic failed over all rounds): stopped at
			 * the switch; else to where it settles */
			diff += r->decided_by >= 0 ? !r->perm_stopped[18] || r->perm_rounds[18] != sw
						   : r->perm_stopped[18] || r->perm_rounds[18] != cr;
			diff += memcmp(r->perm_c, c, 18 * sizeof c[0]) != 0;
			free(r);
		}
		CHECK(diff == 0, "early switch: counters equal the naive loop's on 1, 2 and 3 threads, with and without all rounds");
		free(z);
		free(zb);
		free(zy);
	}

	/* Decide early: data that is plainly not IID (a slow ramp with noise:
	 * the excursion and the runs statistics fail over all rounds) stops the
	 * compression rounds after the NG_PERM_INLINE that phase 1 computes,
	 * says which statistic decided, and does not count the stopped
	 * statistic as failed; with all_rounds the counters are the naive
	 * loop's. */
	{
		size_t m = 4000;
		uint8_t *z = malloc(m);
		for (size_t i = 0; i < m; i++)
			z[i] = (uint8_t)(i * 200 / m + ng_test_rand(&seed) % 16);
		unsigned long rounds = 100;
		unsigned c[NG_PERM_STATS][3], c64[NG_PERM_STATS][3];
		double t0[NG_PERM_STATS];
		uint64_t ps = ng_test_rand(&seed);
		unsigned long sw;
		unsigned long nr = naive_perm(z, m, rounds, ps, c, t0, &sw);
		(void)naive_perm(z, m, NG_PERM_INLINE, ps, c64, t0, &sw);
		ng_iid_report *r = calloc(1, sizeof *r);
		ng_assess_opts o = {.bits = 8, .threads = 2};
		ng_status st = ng_assess_iid(z, m, &o, rounds, ps, r);
		CHECK(st == NG_OK && r->decided_by >= 0 && r->decided_by < 18 && r->perm_stopped[18] &&
		      r->perm_rounds[18] == NG_PERM_INLINE && !r->iid && !r->perm_pass &&
		      r->perm_rounds[r->decided_by] == rounds,
		      "decide early: compression stopped after %d of %lu rounds, decided by statistic %d, verdict not IID",
		      NG_PERM_INLINE, rounds, r->decided_by);
		bool same = memcmp(r->perm_c, c, 18 * sizeof c[0]) == 0;
		CHECK(same, "decide early: the 18 other statistics' counters equal the naive loop's");
		CHECK(memcmp(r->perm_c[18], c64[18], sizeof c64[18]) == 0 && c64[18][0] == NG_PERM_INLINE,
		      "decide early: the compression statistic's counters are the naive loop's over its first %d rounds (all above)",
		      NG_PERM_INLINE);
		/* fewer rounds than phase 1 computes it in: it runs them all */
		st = ng_assess_iid(z, m, &o, 40, ps, r);
		(void)naive_perm(z, m, 40, ps, c64, t0, &sw);
		CHECK(st == NG_OK && !r->perm_stopped[18] && r->perm_rounds[18] == 40 &&
		      memcmp(r->perm_c, c64, sizeof c64) == 0,
		      "decide early, 40 rounds: nothing stopped, every counter equals the naive loop's");
		o.all_rounds = true;
		st = ng_assess_iid(z, m, &o, rounds, ps, r);
		CHECK(st == NG_OK && !r->perm_stopped[18] && memcmp(r->perm_c, c, sizeof c) == 0 &&
		      r->permutations == nr && ng_perm_failed(r->perm_c[r->decided_by]),
		      "--all-rounds: every counter equals the naive loop's (%lu rounds)", nr);
		free(r);
		free(z);
	}

	/* the directional and median runs statistics (5.1.2-5.1.6, counted 64
	 * bits at a time) = plain loops, on every length to 300 and a few
	 * long ones: random, binary (the directional runs then see conversion
	 * I), constant, ramps and plateaus longer than a word, a zigzag */
	{
		static const size_t big[] = {1000, 4097, 65539, 100000};
		int bad = 0, cases = 0;
		for (size_t si = 0; si < 300 + sizeof big / sizeof *big; si++) {
			size_t n = si < 300 ? si + 2 : big[si - 300];
			uint8_t *x = malloc(n), *sym = malloc(n), *d = malloc(n), *a = malloc(n);
			for (int kind = 0; kind < 6; kind++) {
				for (size_t i = 0; i < n; i++) {
					uint64_t v = ng_test_rand(&seed);
					x[i] = kind == 0 ? (uint8_t)v : kind == 1 ? (uint8_t)(v & 1)
						: kind == 2 ? 9 : kind == 3 ? (uint8_t)((i / 150) % 2 ? 255 - i % 150 : i % 150)
						: kind == 4 ? (uint8_t)(i / 70 % 3 + (v % 23 == 0))
						: (uint8_t)(i % 2 ? 200 : 10 + i % 7);
				}
				unsigned k = ng_assess_translate(x, n, sym);
				bool binary = k == 2;
				const uint8_t *y = binary ? sym : x;
				size_t na = n;
				if (binary) {
					/* conversion I: the ones in each 8-bit block */
					na = (n + 7) / 8;
					for (size_t j = 0; j < na; j++) {
						a[j] = 0;
						for (size_t b = 8 * j; b < 8 * j + 8 && b < n; b++)
							a[j] = (uint8_t)(a[j] + y[b]);
					}
				} else
					memcpy(a, y, n);
				memcpy(d, y, n);
				qsort(d, n, 1, cmp_u8);
				double median = binary ? 0.5 : n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2.0;
				double want[6], got[NG_PERM_STATS];
				size_t up = 0;
				for (size_t i = 0; i + 1 < na; i++) {
					d[i] = a[i] <= a[i + 1];
					up += d[i];
				}
				if (na >= 2) {
					plain_runs(d, na - 1, &want[1], &want[2]);
					want[3] = (double)(up > na - 1 - up ? up : na - 1 - up);
				} else
					want[1] = want[2] = want[3] = 0;
				for (size_t i = 0; i < n; i++)
					d[i] = y[i] < median;
				plain_runs(d, n, &want[4], &want[5]);
				ng_perm_stats(sym, x, n, binary, median, got);
				for (int i = 1; i <= 5; i++)
					bad += got[i] != want[i];
				cases++;
			}
			free(x);
			free(sym);
			free(d);
			free(a);
		}
		CHECK(bad == 0, "directional and median runs = plain loops, 2 to 301 and up to 100,000 samples (%d of %d differ)",
		      bad, cases * 5);
	}

	/* the bitstring's MCV from its counts = ng_est_mcv on the bitstring,
	 * every field, for 1 to 9 bits a sample, 0 to 3 and 100,000 samples */
	{
		static const size_t ns[] = {0, 1, 2, 3, 100000};
		int bad = 0, cases = 0;
		for (size_t si = 0; si < sizeof ns / sizeof *ns; si++) {
			size_t n = ns[si];
			uint8_t *x = malloc(n + 1);
			for (unsigned bits = 1; bits <= 9; bits++) {
				for (int kind = 0; kind < 2; kind++) {
					for (size_t i = 0; i < n; i++) {
						uint64_t v = ng_test_rand(&seed);
						x[i] = kind ? (uint8_t)(v % 7 == 0 ? v >> 8 : 0xf0) : (uint8_t)v;
					}
					size_t nb;
					uint8_t *bs = ng_assess_bitstring(x, n, bits, &nb);
					ng_est_result a, b;
					ng_est_mcv(bs, nb, 2, &a);
					ng_est_mcv_bits(x, n, bits, &b);
					bad += memcmp(&a, &b, sizeof a) != 0;
					cases++;
					free(bs);
				}
			}
			free(x);
		}
		CHECK(bad == 0, "the bitstring's MCV from its counts = MCV of the bitstring (%d of %d differ)", bad, cases);
	}

	/* 5.2.5's longest repeated substring (the windows of symbols, and the
	 * suffix array past them) = the largest LCP of the suffix array, on
	 * 2 to 256 symbols, lengths around a window's (7 symbols of 256, 32
	 * of 2), periodic data, a long repeat planted in random data, and a
	 * repeat at the very end (where a window runs past it) */
	{
		static const size_t ns[] = {1, 2, 3, 9, 100, 4099, 300000};
		static const unsigned ks[] = {1, 2, 3, 5, 16, 255, 256};
		int bad = 0, cases = 0;
		for (size_t si = 0; si < sizeof ns / sizeof *ns; si++) {
			size_t n = ns[si];
			uint8_t *x = malloc(n), *sym = malloc(n);
			uint32_t *sa = malloc(n * sizeof *sa), *lcp = malloc(n * sizeof *lcp);
			for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++) {
				for (int shape = 0; shape < 6; shape++) {
					for (size_t i = 0; i < n; i++)
						x[i] = (uint8_t)(ng_test_rand(&seed) % ks[ki]);
					size_t len = shape == 1 ? 6 : shape == 2 ? 7 : shape == 3 ? 31 : shape == 4 ? 33 : 40;
					if (shape >= 1 && shape <= 4 && n > 2 * len + 10) {
						/* a planted repeat of len symbols */
						size_t from = ng_test_rand(&seed) % (n / 2 - len), to = n / 2 + ng_test_rand(&seed) % (n / 2 - len);
						memcpy(x + to, x + from, len);
					} else if (shape == 5 && n > 50) {
						/* the last 20 symbols repeat the first 20; then periodic */
						memcpy(x + n - 20, x, 20);
						if (ki % 2)
							for (size_t i = 37; i < n; i++)
								x[i] = x[i - 37];
					}
					unsigned k = ng_assess_translate(x, n, sym);
					uint32_t want = 0;
					if (ng_suffix_array(sym, n, k, sa) && ng_lcp_array(sym, n, sa, lcp))
						for (size_t i = 1; i < n; i++)
							want = lcp[i] > want ? lcp[i] : want;
					ng_iid_report *r = calloc(1, sizeof *r);
					ng_assess_opts o = {.bits = 8, .threads = 1};
					ng_status st = ng_assess_iid(x, n, &o, 0, 1, r);
					bad += st != NG_OK || !r->lrs_ok || r->lrs_w != want;
					cases++;
					free(r);
				}
			}
			free(x);
			free(sym);
			free(sa);
			free(lcp);
		}
		CHECK(bad == 0, "LRS: the longest repeat equals the suffix array's largest LCP (%d of %d differ)", bad,
		      cases);
	}

	/* restart sanity check (3.1.4.3): X_cutoff from the exact maximum-count
	 * distribution under the reference's worst case; the reference's
	 * simulated figures are 20 (H_I 7.876, 256 values), 31 (6.638) and
	 * 765 +- 1 (0.511, binary). A row with the most common value exactly
	 * X_cutoff times passes, one more fails. */
	{
		size_t rn = 1000000;
		uint8_t *m = malloc(rn);
		ng_restart_report *rr = calloc(1, sizeof *rr);
		ng_assess_opts o = {.bits = 8, .threads = 2};
		static const struct { double h; unsigned bits, want; } xc[] = {
			{7.8764843952641446, 8, 20}, {6.638, 8, 31}, {0.511, 1, 764}};
		for (int i = 0; i < 3; i++) {
			/* rows 0 constant: X_max = 1000 fails at once */
			for (size_t j = 0; j < rn; j++)
				m[j] = j < 1000 ? 0 : (uint8_t)(xc[i].bits == 1 ? (j * 7919 / 13) & 1 : j % 256);
			o.bits = xc[i].bits;
			ng_assess_restart(m, rn, xc[i].h, &o, true, 0, 1, rr);
			CHECK(rr->x_cutoff == xc[i].want && !rr->sanity_pass,
			      "restart: X_cutoff for H_I %.4f, %u-bit = %u (want %u)", xc[i].h, xc[i].bits,
			      rr->x_cutoff, xc[i].want);
		}
		o.bits = 8;
		for (unsigned reps = 20; reps <= 21; reps++) {
			for (size_t r = 0; r < 1000; r++)
				for (size_t c = 0; c < 1000; c++)
					m[r * 1000 + c] = (uint8_t)((r + c) % 256);
			/* row 5: value 7 reps times, then the other 255 values in turn */
			for (size_t c = 0, v = 0; c < 1000; c++) {
				if (c < reps) {
					m[5000 + c] = 7;
					continue;
				}
				if (v % 256 == 7)
					v++;
				m[5000 + c] = (uint8_t)(v++ % 256);
			}
			ng_assess_restart(m, rn, 7.8764843952641446, &o, true, 0, 1, rr);
			CHECK(rr->x_max == reps && rr->sanity_pass == (reps == 20),
			      "restart: X_max %u against X_cutoff %u: sanity %s", rr->x_max, rr->x_cutoff,
			      rr->sanity_pass ? "passed" : "failed");
		}
		free(rr);
		free(m);
	}
	return ng_check_exit();
}
