/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The IID track: permutation tests (SP 800-90B 5.1), chi-square and LRS
 * tests (5.2), and the IID estimate (MCV, 6.3.1). */
#include <bzlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "assess.h"

const char *const ng_perm_name[NG_PERM_STATS] = {
	"excursion", "numDirectionalRuns", "lenDirectionalRuns", "numIncreasesDecreases",
	"numRunsMedian", "lenRunsMedian", "avgCollision", "maxCollision",
	"periodicity(1)", "periodicity(2)", "periodicity(8)", "periodicity(16)", "periodicity(32)",
	"covariance(1)", "covariance(2)", "covariance(8)", "covariance(16)", "covariance(32)",
	"compression",
};
const char *const ng_perm_key[NG_PERM_STATS] = {
	"excursion", "numDirectionalRuns", "lenDirectionalRuns", "numIncreasesDecreases",
	"numRunsMedian", "lenRunsMedian", "avgCollision", "maxCollision",
	"periodicity1", "periodicity2", "periodicity8", "periodicity16", "periodicity32",
	"covariance1", "covariance2", "covariance8", "covariance16", "covariance32",
	"compression",
};
static const unsigned lags[5] = {1, 2, 8, 16, 32};

/* ---- the statistics of 5.1 ---- */
double ng_perm_excursion(const uint8_t *x, size_t n)
{
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	double mean = sum / (double)n, run = 0, best = 0;
	for (size_t i = 0; i < n; i++) {
		run += x[i];
		double d = fabs(run - (double)(i + 1) * mean);
		if (d > best)
			best = d;
	}
	return best;
}

void ng_perm_shuffle(uint8_t *y, size_t n, ng_xoshiro *g)
{
	for (size_t i = n ? n - 1 : 0; i > 0; i--) {
		size_t k = (size_t)ng_xoshiro_below(g, i + 1);
		uint8_t tmp = y[i];
		y[i] = y[k];
		y[k] = tmp;
	}
}

/* Fisher-Yates from the end fixes y[n-1], y[n-2], ... in that order, so the
 * excursion's prefix sums come for free as total minus the fixed suffix:
 * S_i = total - (y[i+1] + ... + y[n-1]), exact in integers, and the same
 * double expression |S_i - (i+1) mean| as ng_perm_excursion, so the maximum
 * is bit-identical. With stop_above finite, the shuffle stops as soon as
 * the running maximum exceeds it (the caller then only needs "greater"). */
double ng_perm_shuffle_excursion(uint8_t *y, size_t n, ng_xoshiro *g, uint64_t total,
				 double stop_above)
{
	if (n == 0)
		return 0;
	double mean = (double)total / (double)n, best = 0;
	uint64_t suf = 0;
	for (size_t i = n - 1; i > 0; i--) {
		size_t k = (size_t)ng_xoshiro_below(g, i + 1);
		uint8_t v = y[k];
		y[k] = y[i];
		y[i] = v;
		double d = fabs((double)(total - suf) - (double)(i + 1) * mean);
		if (d > best) {
			best = d;
			if (best > stop_above)
				return best;
		}
		suf += v;
	}
	double d = fabs((double)(total - suf) - mean);
	return d > best ? d : best;
}

/* 5.1.2-5.1.4 on the directional sequence */
static void st_directional(const uint8_t *x, size_t n, double *num, double *len, double *incdec)
{
	if (n < 2) {
		*num = *len = *incdec = 0;
		return;
	}
	uint64_t runs = 1, cur = 1, longest = 1, up = 0;
	int prev = x[0] <= x[1] ? 1 : -1;
	up += prev > 0;
	for (size_t i = 1; i + 1 < n; i++) {
		int d = x[i] <= x[i + 1] ? 1 : -1;
		up += d > 0;
		if (d == prev) {
			if (++cur > longest)
				longest = cur;
		} else {
			runs++;
			cur = 1;
		}
		prev = d;
	}
	uint64_t down = (n - 1) - up;
	*num = (double)runs;
	*len = (double)longest;
	*incdec = (double)(up > down ? up : down);
}

/* 5.1.5-5.1.6; median2 = twice the median (so it stays integral) */
static void st_median_runs(const uint8_t *x, size_t n, unsigned median2, double *num, double *len)
{
	uint64_t runs = 1, cur = 1, longest = 1;
	int prev = 2u * x[0] < median2 ? -1 : 1;
	for (size_t i = 1; i < n; i++) {
		int d = 2u * x[i] < median2 ? -1 : 1;
		if (d == prev) {
			if (++cur > longest)
				longest = cur;
		} else {
			runs++;
			cur = 1;
		}
		prev = d;
	}
	*num = (double)runs;
	*len = (double)longest;
}

/* 5.1.7-5.1.8 */
static void st_collision(const uint8_t *x, size_t n, double *avg, double *max)
{
	uint32_t seen[256];
	uint32_t gen = 1;
	memset(seen, 0, sizeof seen);
	uint64_t count = 0, sum = 0, mx = 0;
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		if (seen[x[i]] == gen) {
			uint64_t l = i - start + 1;
			count++;
			sum += l;
			if (l > mx)
				mx = l;
			start = i + 1;
			gen++;
			continue;
		}
		seen[x[i]] = gen;
	}
	*avg = count ? (double)sum / (double)count : 0;
	*max = (double)mx;
}

/* 5.1.11: the bzip2 (level 5) size of the samples written as decimal
 * numbers separated by spaces. work_factor only picks libbz2's sorting
 * algorithm for the Burrows-Wheeler transform, whose output (and so the
 * size) does not depend on it: 1 (straight to the fallback sort) is ~30%
 * faster on the long repeats of binary data's "0 1 1 0 ..." text, the
 * default 0 (30) is best on 8-bit data. */
static double st_compression(const uint8_t *x, size_t n, int work_factor)
{
	size_t cap = n * 4 + 1;
	char *txt = malloc(cap);
	if (!txt)
		return -1;
	size_t t = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned v = x[i];
		if (i)
			txt[t++] = ' ';
		if (v >= 100)
			txt[t++] = (char)('0' + v / 100);
		if (v >= 10)
			txt[t++] = (char)('0' + v / 10 % 10);
		txt[t++] = (char)('0' + v % 10);
	}
	unsigned dl = (unsigned)(t + t / 100 + 600);
	char *out = malloc(dl);
	double r = -1;
	if (out && BZ2_bzBuffToBuffCompress(out, &dl, txt, (unsigned)t, 5, 0, work_factor) == BZ_OK)
		r = dl;
	free(out);
	free(txt);
	return r;
}

/* Conversion I (ones per 8-bit block) and II (8-bit block value). */
static size_t convert(const uint8_t *b, size_t n, uint8_t *out, bool weight)
{
	size_t m = (n + 7) / 8;
	for (size_t j = 0; j < m; j++) {
		unsigned v = 0;
		for (size_t i = 0; i < 8; i++) {
			unsigned bit = 8 * j + i < n ? b[8 * j + i] : 0;
			v = weight ? v + bit : (v << 1) | bit;
		}
		out[j] = (uint8_t)v;
	}
	return m;
}

typedef struct {
	bool binary;
	unsigned median2;
	uint8_t *c1, *c2;  /* conversion buffers (binary) */
} stat_ctx;

/* Computes the statistics with active[i] set. x: values (raw for
 * non-binary; 0/1 for binary). */
static void perm_stats(stat_ctx *c, const uint8_t *x, size_t n, const bool *active, double *t)
{
	const uint8_t *a = x, *b = x;
	size_t na = n, nb = n;
	if (c->binary) {
		na = convert(x, n, c->c1, true);
		nb = convert(x, n, c->c2, false);
		a = c->c1;
		b = c->c2;
	}
	if (active[0])
		t[0] = ng_perm_excursion(x, n);
	if (active[1] || active[2] || active[3])
		st_directional(a, na, &t[1], &t[2], &t[3]);
	if (active[4] || active[5])
		st_median_runs(x, n, c->median2, &t[4], &t[5]);
	if (active[6] || active[7])
		st_collision(b, nb, &t[6], &t[7]);
	for (int j = 0; j < 5; j++) {
		unsigned p = lags[j];
		if (active[8 + j]) {
			uint64_t m = 0;
			for (size_t i = 0; i + p < na; i++)
				m += a[i] == a[i + p];
			t[8 + j] = (double)m;
		}
		if (active[13 + j]) {
			uint64_t m = 0;
			for (size_t i = 0; i + p < na; i++)
				m += (uint64_t)a[i] * a[i + p];
			t[13 + j] = (double)m;
		}
	}
	if (active[18])
		t[18] = st_compression(x, n, c->binary ? 1 : 0);
}

void ng_perm_stats(const uint8_t *sym, const uint8_t *raw, size_t n, bool binary, double median,
		   double out[NG_PERM_STATS])
{
	stat_ctx c = {binary, (unsigned)(2 * median + 0.5), NULL, NULL};
	bool all[NG_PERM_STATS];
	for (int i = 0; i < NG_PERM_STATS; i++)
		all[i] = true;
	if (binary) {
		c.c1 = malloc(n / 8 + 1);
		c.c2 = malloc(n / 8 + 1);
	}
	perm_stats(&c, binary ? sym : raw, n, all, out);
	free(c.c1);
	free(c.c2);
}

/* ---- permutation rounds, in parallel ----
 * Round r (0-based) shuffles a copy of the sequence with its own xoshiro256**
 * stream seeded from seed ^ (golden * (r + 1)), so the results depend only
 * on the seed, not on the threads or the batch sizes. Rounds run in batches
 * on the worker pool; the caller consumes them in round order and applies
 * the early stop (5.1: a statistic stops counting once C0 + C1 > 5 and
 * C1 + C2 > 5), so rounds past the stopping point are computed and thrown
 * away, never counted. */
typedef struct {
	const uint8_t *x;
	size_t n;
	uint64_t seed, total;  /* total: sum of x, for the fused excursion */
	double exc0;           /* the unpermuted excursion */
	unsigned long first;   /* round number of job 0 */
	const bool *active;
	bool exc_only;         /* the excursion is the only statistic left */
	double (*t)[NG_PERM_STATS];
	uint8_t **y;           /* one shuffle buffer per job of a batch */
	stat_ctx *c;           /* one per job (conversion buffers) */
} round_job;

static void run_round(unsigned j, void *arg)
{
	round_job *r = arg;
	uint8_t *y = r->y[j];
	memcpy(y, r->x, r->n);
	ng_xoshiro g;
	ng_xoshiro_seed(&g, r->seed ^ (0x9e3779b97f4a7c15ULL * (r->first + j + 1)));
	bool act[NG_PERM_STATS];
	memcpy(act, r->active, sizeof act);
	if (act[0]) {
		/* when only the excursion is left, a running maximum above the
		 * unpermuted value decides the round ("greater") */
		r->t[j][0] = ng_perm_shuffle_excursion(y, r->n, &g, r->total,
						       r->exc_only ? r->exc0 : INFINITY);
		act[0] = false;
	} else
		ng_perm_shuffle(y, r->n, &g);
	if (!r->exc_only)
		perm_stats(&r->c[j], y, r->n, act, r->t[j]);
	ng_progress_step();
}

/* ---- chi-square ---- */
/* regularised upper incomplete gamma Q(a, x) */
static double gamma_q(double a, double x)
{
	if (x <= 0)
		return 1;
	double lg = lgamma(a);
	if (x < a + 1) {
		double sum = 1 / a, term = sum, ap = a;
		for (int i = 0; i < 100000; i++) {
			ap += 1;
			term *= x / ap;
			sum += term;
			if (fabs(term) < fabs(sum) * 1e-17)
				break;
		}
		return 1 - sum * exp(-x + a * log(x) - lg);
	}
	/* Lentz continued fraction */
	double b = x + 1 - a, cc = 1 / 1e-300, d = 1 / b, h = d;
	for (int i = 1; i < 100000; i++) {
		double an = -i * (i - a);
		b += 2;
		d = an * d + b;
		if (fabs(d) < 1e-300)
			d = 1e-300;
		cc = b + an / cc;
		if (fabs(cc) < 1e-300)
			cc = 1e-300;
		d = 1 / d;
		double del = d * cc;
		h *= del;
		if (fabs(del - 1) < 1e-17)
			break;
	}
	return exp(-x + a * log(x) - lg) * h;
}

typedef struct {
	double e;
	unsigned idx;
} bin_item;

static int cmp_item(const void *a, const void *b)
{
	const bin_item *x = a, *y = b;
	if (x->e < y->e)
		return -1;
	if (x->e > y->e)
		return 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Groups items (sorted by expected count, smallest first) into bins of
 * expected >= 5; a short last bin merges into the one before. Writes each
 * item's bin to binof and returns the number of bins. */
static unsigned make_bins(bin_item *it, unsigned m, unsigned *binof, double *bexp)
{
	qsort(it, m, sizeof *it, cmp_item);
	unsigned q = 0;
	double acc = 0;
	for (unsigned i = 0; i < m; i++) {
		binof[it[i].idx] = q;
		acc += it[i].e;
		if (acc >= 5) {
			bexp[q++] = acc;
			acc = 0;
		}
	}
	if (acc > 0 || q == 0) {
		/* the last bin is short */
		if (q > 0) {
			for (unsigned i = 0; i < m; i++)
				if (binof[it[i].idx] == q)
					binof[it[i].idx] = q - 1;
			bexp[q - 1] += acc;
		} else
			bexp[q++] = acc;
	}
	return q;
}

static void chi_square(ng_iid_report *r, const uint8_t *s, size_t n, unsigned k)
{
	r->chi_pass = true;
	if (k == 2) {
		/* 5.2.3 and 5.2.4 (binary) */
		uint64_t ones = 0;
		for (size_t i = 0; i < n; i++)
			ones += s[i];
		double p1 = (double)ones / (double)n, p0 = 1 - p1, pm = p0 < p1 ? p0 : p1;
		unsigned m = 0;
		for (unsigned t = 1; t <= 11; t++)
			if (pow(pm, t) * (double)(n / t) >= 5)
				m = t;
		if (m >= 2) {
			size_t nb = n / m;
			uint64_t *o = calloc((size_t)1 << m, sizeof *o);
			if (o) {
				for (size_t j = 0; j < nb; j++) {
					unsigned v = 0;
					for (unsigned b = 0; b < m; b++)
						v = v << 1 | s[j * m + b];
					o[v]++;
				}
				double T = 0;
				for (unsigned v = 0; v < (1u << m); v++) {
					int w = __builtin_popcount(v);
					double e = pow(p1, w) * pow(p0, m - w) * (double)nb;
					T += ((double)o[v] - e) * ((double)o[v] - e) / e;
				}
				free(o);
				r->chi_ind_t = T;
				r->chi_ind_df = (1ul << m) - 2;
				r->chi_ind_p = gamma_q(r->chi_ind_df / 2.0, T / 2);
			}
		} else {
			r->chi_ind_df = 0;
			r->chi_ind_p = 1;
		}
		size_t sub = n / 10;
		double T = 0, e1 = p1 * (double)sub, e0 = p0 * (double)sub;
		for (int d = 0; d < 10; d++) {
			uint64_t c1 = 0;
			for (size_t i = d * sub; i < (d + 1) * sub; i++)
				c1 += s[i];
			double o1 = (double)c1, o0 = (double)sub - o1;
			T += (o0 - e0) * (o0 - e0) / e0 + (o1 - e1) * (o1 - e1) / e1;
		}
		r->chi_gof_t = T;
		r->chi_gof_df = 9;
		r->chi_gof_p = gamma_q(4.5, T / 2);
	} else {
		/* 5.2.1 independence on overlapping pairs? non-overlapping? */
		uint64_t cnt[256] = {0};
		for (size_t i = 0; i < n; i++)
			cnt[s[i]]++;
		unsigned m = k * k;
		bin_item *it = malloc(m * sizeof *it);
		unsigned *binof = malloc(m * sizeof *binof);
		double *bexp = malloc((m + 1) * sizeof *bexp);
		uint64_t *obs = calloc(m + 1, sizeof *obs);
		if (it && binof && bexp && obs) {
			double np = (double)(n / 2);
			for (unsigned a = 0; a < k; a++)
				for (unsigned b = 0; b < k; b++)
					it[a * k + b] = (bin_item){(double)cnt[a] / (double)n * ((double)cnt[b] / (double)n) * np, a * k + b};
			unsigned q = make_bins(it, m, binof, bexp);
			for (size_t j = 0; j + 1 < n; j += 2)
				obs[binof[s[j] * k + s[j + 1]]]++;
			double T = 0;
			for (unsigned h = 0; h < q; h++)
				T += ((double)obs[h] - bexp[h]) * ((double)obs[h] - bexp[h]) / bexp[h];
			r->chi_ind_t = T;
			r->chi_ind_df = q > k ? q - k : 0;
			r->chi_ind_p = r->chi_ind_df ? gamma_q(r->chi_ind_df / 2.0, T / 2) : 1;
			/* 5.2.2 goodness of fit over 10 subsets */
			bin_item si[256];
			unsigned sbin[256];
			double sexp[257];
			for (unsigned a = 0; a < k; a++)
				si[a] = (bin_item){(double)cnt[a] / 10.0, a};
			unsigned qs = make_bins(si, k, sbin, sexp);
			size_t sub = n / 10;
			double T2 = 0;
			for (int d = 0; d < 10; d++) {
				uint64_t o[257] = {0};
				for (size_t i = d * sub; i < (d + 1) * sub; i++)
					o[sbin[s[i]]]++;
				for (unsigned h = 0; h < qs; h++)
					T2 += ((double)o[h] - sexp[h]) * ((double)o[h] - sexp[h]) / sexp[h];
			}
			r->chi_gof_t = T2;
			r->chi_gof_df = 9ul * (qs - 1);
			r->chi_gof_p = r->chi_gof_df ? gamma_q(r->chi_gof_df / 2.0, T2 / 2) : 1;
		}
		free(it);
		free(binof);
		free(bexp);
		free(obs);
	}
	if (r->chi_ind_df && r->chi_ind_p < 0.001)
		r->chi_pass = false;
	if (r->chi_gof_df && r->chi_gof_p < 0.001)
		r->chi_pass = false;
}

/* 5.2.5 length of the longest repeated substring */
static void lrs_test(ng_iid_report *r, const uint8_t *s, size_t n, unsigned k)
{
	r->lrs_ok = false;
	r->lrs_pass = true;
	uint32_t *sa = malloc(n * sizeof *sa), *lcp = malloc(n * sizeof *lcp);
	if (sa && lcp && ng_suffix_array(s, n, k, sa) && ng_lcp_array(s, n, sa, lcp)) {
		uint32_t w = 0;
		for (size_t i = 1; i < n; i++)
			if (lcp[i] > w)
				w = lcp[i];
		uint64_t cnt[256] = {0};
		for (size_t i = 0; i < n; i++)
			cnt[s[i]]++;
		long double pcol = 0;
		for (unsigned i = 0; i < 256; i++) {
			long double p = (long double)cnt[i] / (long double)n;
			pcol += p * p;
		}
		long double m = (long double)(n - w + 1), N = m * (m - 1) / 2;
		long double pr = 1 - expl(N * log1pl(-powl(pcol, w)));
		r->lrs_w = w;
		r->lrs_pcol = pcol;
		r->lrs_prx = pr;
		r->lrs_ok = true;
		r->lrs_pass = pr >= 0.001L;
	}
	free(sa);
	free(lcp);
}

/* Twice the median of x[0..n) (n >= 1), from a histogram: the middle
 * element for odd n, the sum of the two middle ones for even n. */
static unsigned median2_of(const uint8_t *x, size_t n)
{
	size_t cnt[256] = {0};
	for (size_t i = 0; i < n; i++)
		cnt[x[i]]++;
	/* the values at sorted positions lo and hi */
	size_t lo = n % 2 ? n / 2 : n / 2 - 1, hi = n / 2, acc = 0;
	unsigned vlo = 0, vhi = 0;
	bool got_lo = false;
	for (unsigned v = 0; v < 256; v++) {
		acc += cnt[v];
		if (!got_lo && acc > lo) {
			vlo = v;
			got_lo = true;
		}
		if (acc > hi) {
			vhi = v;
			break;
		}
	}
	return vlo + vhi;
}

typedef struct {
	ng_iid_report *r;
	const uint8_t *sym, *raw, *x;
	size_t n;
	unsigned k;
	const ng_assess_opts *o;
	stat_ctx *c0;
	bool failed;
} setup_job;

static void run_setup(unsigned j, void *arg)
{
	setup_job *s = arg;
	ng_iid_report *r = s->r;
	if (j == 0) {
		/* the bzip2 one is the longest: first */
		bool all[NG_PERM_STATS];
		for (int i = 0; i < NG_PERM_STATS; i++)
			all[i] = true;
		perm_stats(s->c0, s->x, s->n, all, r->perm_t);
	} else if (j == 1)
		lrs_test(r, s->sym, s->n, s->k);
	else if (j == 2)
		chi_square(r, s->sym, s->n, s->k);
	else {
		ng_est_mcv(s->sym, s->n, s->k, &r->mcv_lit);
		/* the bitstring's MCV (not for the restart rows and columns) */
		bool bits = s->o->bits > 1 && !r->binary;
		if ((bits || s->o->conditioned) && !s->o->literal_only) {
			size_t nb;
			uint8_t *bs = ng_assess_bitstring(s->raw, s->n, s->o->bits, &nb);
			if (!bs) {
				s->failed = true;
				return;
			}
			ng_est_mcv(bs, nb, 2, &r->mcv_bit);
			free(bs);
		}
	}
}

int ng_assess_iid(const uint8_t *raw, size_t n, const ng_assess_opts *o, unsigned long rounds,
		  uint64_t seed, ng_iid_report *r)
{
	memset(r, 0, sizeof *r);
	r->n = n;
	r->bits = o->bits;
	uint8_t *sym = malloc(n ? n : 1);
	if (!sym)
		return -1;
	unsigned k = ng_assess_translate(raw, n, sym);
	r->k = k;
	r->binary = k == 2;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += raw[i];
	r->mean = sum / (double)n;
	if (r->binary)
		r->median = 0.5;
	else
		r->median = n ? median2_of(sym, n) / 2.0 : 0;
	/* permutation tests: the values (raw) for non-binary, 0/1 for binary */
	const uint8_t *x = r->binary ? sym : raw;
	stat_ctx c = {r->binary, 0, NULL, NULL};
	/* the median of the values the runs test sees */
	if (r->binary)
		c.median2 = 1;
	else
		c.median2 = n ? median2_of(x, n) : 0;
	bool active[NG_PERM_STATS];
	for (int i = 0; i < NG_PERM_STATS; i++)
		active[i] = true;
	unsigned th = o->threads ? o->threads : 1;
	/* Batches: while the compression statistic (bzip2, ~0.2 s a round on
	 * 1M samples) is counted, one round per thread, so at most threads-1
	 * compressions are thrown away when it stops; then 4 per thread. */
	unsigned maxb = th <= 8 ? 4 * th : th;
	double (*t)[NG_PERM_STATS] = calloc(maxb, sizeof *t);
	uint8_t **y = calloc(maxb, sizeof *y);
	stat_ctx *sc = calloc(maxb + 1, sizeof *sc);
	bool ok = t && y && sc;
	for (unsigned j = 0; ok && j <= maxb; j++) {
		sc[j] = (stat_ctx){r->binary, c.median2, NULL, NULL};
		if (r->binary) {
			sc[j].c1 = malloc(n / 8 + 1);
			sc[j].c2 = malloc(n / 8 + 1);
			ok = sc[j].c1 && sc[j].c2;
		}
		if (ok && j < maxb)
			ok = (y[j] = malloc(n ? n : 1)) != NULL;
	}
	/* the IID estimate (MCV), the chi-square and LRS tests and the
	 * unpermuted statistics are independent: in parallel */
	setup_job sj = {r, sym, raw, x, n, k, o, ok ? &sc[maxb] : NULL, !ok};
	if (ok)
		ng_assess_parallel(th, 4, run_setup, &sj);
	ok = !sj.failed;
	r->h_original = o->conditioned ? o->bits : (r->mcv_lit.h < o->bits ? r->mcv_lit.h : o->bits);
	r->h_bitstring = r->mcv_bit.run ? (r->mcv_bit.h < 1 ? r->mcv_bit.h : 1) : -1;
	r->h_assessed = r->h_original;
	if (r->mcv_bit.run && o->bits * r->h_bitstring < r->h_assessed)
		r->h_assessed = o->bits * r->h_bitstring;
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += x[i];
	ng_progress_start(o->progress && ok, "permutations", (unsigned)rounds);
	unsigned long done = 0;
	unsigned nact = NG_PERM_STATS;
	while (ok && done < rounds && nact > 0) {
		unsigned want = active[18] ? th : maxb;
		unsigned b = rounds - done < want ? (unsigned)(rounds - done) : want;
		round_job job = {x, n, seed, total, r->perm_t[0], done, active,
				 active[0] && nact == 1, t, y, sc};
		ng_assess_parallel(th, b, run_round, &job);
		for (unsigned j = 0; j < b && nact > 0; j++) {
			for (int i = 0; i < NG_PERM_STATS; i++) {
				if (!active[i])
					continue;
				unsigned *cc = r->perm_c[i];
				double v = t[j][i], u = r->perm_t[i];
				if (v > u)
					cc[0]++;
				else if (v == u)
					cc[1]++;
				else
					cc[2]++;
				if (cc[0] + cc[1] > 5 && cc[1] + cc[2] > 5) {
					active[i] = false;
					nact--;
				}
			}
			done++;
		}
	}
	ng_progress_end();
	for (unsigned j = 0; sc && j <= maxb; j++) {
		free(sc[j].c1);
		free(sc[j].c2);
	}
	for (unsigned j = 0; y && j < maxb; j++)
		free(y[j]);
	free(sc);
	free(y);
	free(t);
	if (!ok) {
		free(sym);
		return -1;
	}
	r->permutations = done;
	r->perm_pass = true;
	for (int i = 0; i < NG_PERM_STATS; i++) {
		if (ng_perm_failed(r->perm_c[i]))
			r->perm_pass = false;
	}
	r->iid = r->chi_pass && r->lrs_pass && r->perm_pass;
	free(sym);
	return 0;
}

bool ng_perm_failed(const unsigned c[3])
{
	return c[0] + c[1] <= 5 || c[1] + c[2] <= 5;
}

/* ---- report ---- */
static void jnum_(double v)
{
	if (isnan(v) || v < 0)
		printf("null");
	else
		printf("%.17g", v);
}

void ng_assess_print_iid(const ng_iid_report *r, bool json, int verbose, bool conditioned)
{
	if (json) {
		printf("{\n  \"track\": \"iid\",\n  \"conditioned\": %s,\n  \"min_entropy\": ", conditioned ? "true" : "false");
		jnum_(r->h_assessed);
		printf(",\n  \"h_original\": ");
		jnum_(r->h_original);
		printf(",\n  \"h_bitstring\": ");
		jnum_(r->h_bitstring);
		printf(",\n  \"samples\": %zu,\n  \"bits_per_sample\": %u,\n  \"symbols\": %u,\n", r->n, r->bits, r->k);
		printf("  \"iid\": %s,\n  \"estimators\": {\n", r->iid ? "true" : "false");
		for (int e = 0; e < NG_EST_COUNT; e++) {
			printf("    \"%s\": {\"original\": ", ng_est_key[e]);
			jnum_(e == NG_EST_MCV && !conditioned ? r->mcv_lit.h : -1);
			printf(", \"bitstring\": ");
			jnum_(e == NG_EST_MCV && r->mcv_bit.run ? r->mcv_bit.h : -1);
			printf("}%s\n", e + 1 < NG_EST_COUNT ? "," : "");
		}
		printf("  },\n  \"iid_tests\": {\n    \"mean\": %.17g,\n    \"median\": %.17g,\n", r->mean, r->median);
		printf("    \"chi_square_passed\": %s,\n    \"lrs_passed\": %s,\n    \"permutation_passed\": %s,\n",
		       r->chi_pass ? "true" : "false", r->lrs_pass ? "true" : "false", r->perm_pass ? "true" : "false");
		printf("    \"chi_independence_t\": %.17g,\n    \"chi_independence_df\": %lu,\n    \"chi_independence_p\": %.17g,\n",
		       r->chi_ind_t, r->chi_ind_df, r->chi_ind_p);
		printf("    \"chi_goodness_t\": %.17g,\n    \"chi_goodness_df\": %lu,\n    \"chi_goodness_p\": %.17g,\n",
		       r->chi_gof_t, r->chi_gof_df, r->chi_gof_p);
		printf("    \"lrs_w\": %u,\n    \"lrs_p_col\": %.22Lg,\n    \"lrs_pr\": %.22Lg,\n", r->lrs_w, r->lrs_pcol, r->lrs_prx);
		printf("    \"permutations\": %lu,\n    \"statistics\": {\n", r->permutations);
		for (int i = 0; i < NG_PERM_STATS; i++)
			printf("      \"%s\": %.17g%s\n", ng_perm_name[i], r->perm_t[i], i + 1 < NG_PERM_STATS ? "," : "");
		printf("    },\n    \"counts\": {\n");
		for (int i = 0; i < NG_PERM_STATS; i++)
			printf("      \"%s\": [%u, %u, %u]%s\n", ng_perm_key[i], r->perm_c[i][0], r->perm_c[i][1],
			       r->perm_c[i][2], i + 1 < NG_PERM_STATS ? "," : "");
		printf("    }\n  }\n}\n");
		return;
	}
	printf("Loaded %zu samples of %u distinct %u-bit-wide symbols\n", r->n, r->k, r->bits);
	if (r->n < 1000000)
		printf("\n*** Warning: data contains less than 1000000 samples ***\n\n");
	printf("Raw Mean = %.17g\nMedian = %.17g\nBinary = %s\n", r->mean, r->median, r->binary ? "true" : "false");
	if (!conditioned) {
		if (verbose)
			printf("Literal Most Common Value Estimate: Mode count = %llu\n"
			       "Literal Most Common Value Estimate: p-hat = %.17g\n"
			       "Literal Most Common Value Estimate: p_u = %.17g\n",
			       (unsigned long long)r->mcv_lit.mode, r->mcv_lit.p_hat, r->mcv_lit.p_u);
		printf("Literal Most Common Value Estimate: min entropy = %.17g\n", r->mcv_lit.h);
	}
	if (r->mcv_bit.run) {
		if (verbose)
			printf("Bitstring Most Common Value Estimate: Mode count = %llu\n"
			       "Bitstring Most Common Value Estimate: p-hat = %.17g\n"
			       "Bitstring Most Common Value Estimate: p_u = %.17g\n",
			       (unsigned long long)r->mcv_bit.mode, r->mcv_bit.p_hat, r->mcv_bit.p_u);
		printf("Bitstring Most Common Value Estimate: min entropy = %.17g\n", r->mcv_bit.h);
		printf("H_bitstring = %.17g\nH_bitstring Per Symbol = %.17g\n", r->h_bitstring, r->bits * r->h_bitstring);
	}
	if (!conditioned)
		printf("H_original = %.17g\n", r->h_original);
	printf("Assessed min entropy: %.17g\n", r->h_assessed);
	printf("Chi square independence: T = %.17g\nChi square independence: df = %lu\n"
	       "Chi square independence: P-value = %.17g\n", r->chi_ind_t, r->chi_ind_df, r->chi_ind_p);
	printf("Chi square goodness of fit: T = %.17g\nChi square goodness of fit: df = %lu\n"
	       "Chi square goodness of fit: P-value = %.17g\n", r->chi_gof_t, r->chi_gof_df, r->chi_gof_p);
	printf("Chi square tests: %s\n", r->chi_pass ? "Passed" : "Failed");
	if (r->lrs_ok)
		printf("Literal Longest Repeated Substring results: P_col = %.22Lg\n"
		       "Literal Longest Repeated Substring results: W = %u\n"
		       "Literal Longest Repeated Substring results: Pr(X >= 1) = %.22Lg\n",
		       r->lrs_pcol, r->lrs_w, r->lrs_prx);
	printf("Length of longest repeated substring test: %s\n", r->lrs_pass ? "Passed" : "Failed");
	for (int i = 0; i < NG_PERM_STATS; i++)
		printf("Permutation testing: Unpermuted result %s = %.17g\n", ng_perm_name[i], r->perm_t[i]);
	printf("\n\n                statistic  C[i][0]  C[i][1]  C[i][2]\n");
	printf("----------------------------------------------------\n");
	for (int i = 0; i < NG_PERM_STATS; i++) {
		const unsigned *cc = r->perm_c[i];
		printf("%24s%s %7u %7u %7u\n", ng_perm_name[i], ng_perm_failed(cc) ? "*" : " ", cc[0], cc[1], cc[2]);
	}
	printf("(* denotes failed test; %lu permutations)\n\n", r->permutations);
	printf("IID permutation tests: %s\n", r->perm_pass ? "Passed" : "Failed");
	printf("\nVerdict: %s\nAssessed min-entropy (IID track): %.17g bits per %u-bit sample\n",
	       r->iid ? "the data passes the IID tests" : "the data is NOT IID: use the non-IID track",
	       r->h_assessed, r->bits);
}


