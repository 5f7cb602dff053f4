/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SP 800-90B 6.3.1-6.3.4 (MCV, collision, Markov, compression) and the
 * prediction-estimate finish shared by 6.3.7-6.3.10. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "assess.h"
#include "sort.h"

const char *const ng_est_key[NG_EST_COUNT] = {
	"most_common_value", "collision", "markov", "compression", "t_tuple",
	"lrs", "multi_mcw", "lag", "multi_mmc", "lz78y",
};
const char *const ng_est_name[NG_EST_COUNT] = {
	"Most Common Value", "Collision", "Markov", "Compression", "t-Tuple",
	"LRS", "MultiMCW Prediction", "Lag Prediction", "MultiMMC Prediction",
	"LZ78Y Prediction",
};

void ng_est_fail(ng_est_result *r, const char *why)
{
	memset(r, 0, sizeof *r);
	r->run = true;
	r->ok = false;
	r->h = -1;
	snprintf(r->reason, sizeof r->reason, "%s", why);
}

/* x and y agree within 4 units in the last place (relative). */
static bool near_ulps(double x, double y)
{
	if (x == y)
		return true;
	double m = fmax(fabs(x), fabs(y));
	return fabs(x - y) <= 4.0 * DBL_EPSILON * m;
}

static bool near_ulps_l(long double x, long double y)
{
	if (x == y)
		return true;
	long double m = fmaxl(fabsl(x), fabsl(y));
	return fabsl(x - y) <= 4.0L * LDBL_EPSILON * m;
}

/* 6.3.1 */
void ng_est_mcv(const uint8_t *s, size_t n, unsigned k, ng_est_result *r)
{
	uint64_t cnt[256] = {0};
	memset(r, 0, sizeof *r);
	if (n < 2) {
		ng_est_fail(r, "needs at least 2 samples");
		return;
	}
	(void)k;
	ng_byte_counts(s, n, cnt);
	uint64_t mode = 0;
	for (unsigned v = 0; v < 256; v++)
		if (cnt[v] > mode)
			mode = cnt[v];
	ng_est_mcv_finish(mode, n, r);
}

void ng_est_mcv_bits(const uint8_t *raw, size_t n, unsigned bits, ng_est_result *r)
{
	memset(r, 0, sizeof *r);
	size_t nb = n * bits;
	if (nb < 2) {
		ng_est_fail(r, "needs at least 2 samples");
		return;
	}
	/* the bitstring takes each sample's low bits (0s above bit 7) */
	unsigned mask = bits >= 8 ? 0xffu : (1u << bits) - 1;
	uint64_t cnt[256] = {0}, ones = 0;
	for (size_t i = 0; i < n; i++)
		cnt[raw[i] & mask]++;
	for (unsigned v = 0; v < 256; v++)
		ones += cnt[v] * (uint64_t)__builtin_popcount(v);
	ng_est_mcv_finish(ones > nb - ones ? ones : nb - ones, nb, r);
}

/* 6.3.1 steps 2-4: from the mode count of n >= 2 samples. */
void ng_est_mcv_finish(uint64_t mode, size_t n, ng_est_result *r)
{
	double p = (double)mode / (double)n;
	double pu = p + NG_ASSESS_Z * sqrt(p * (1.0 - p) / ((double)n - 1.0));
	if (pu > 1.0)
		pu = 1.0;
	r->run = r->ok = true;
	r->mode = mode;
	r->p_hat = p;
	r->p_u = pu;
	r->h = -log2(pu);
}

/* 6.3.2, binary input */
void ng_est_collision(const uint8_t *s, size_t n, ng_est_result *r)
{
	memset(r, 0, sizeof *r);
	uint64_t v = 0, sum = 0, sum2 = 0;
	size_t i = 0;
	while (i + 1 < n) {
		unsigned t;
		if (s[i] == s[i + 1])
			t = 2;
		else if (i + 2 < n)
			t = 3;
		else
			break;
		v++;
		sum += t;
		sum2 += t * t;
		i += t;
	}
	if (v < 2) {
		ng_est_fail(r, "too few samples for a collision");
		return;
	}
	double xbar = (double)sum / (double)v;
	double sig = sqrt(((double)sum2 - xbar * (double)sum) / ((double)v - 1.0));
	double xp = xbar - NG_ASSESS_Z * sig / sqrt((double)v);
	if (xp < 2.0)
		xp = 2.0;
	r->run = r->ok = true;
	r->v = v;
	r->sum_t = sum;
	r->xbar = xbar;
	r->sigma = sig;
	r->xbar_p = xp;
	if (xp < 2.5) {
		r->found_p = true;
		r->p_u = 0.5 + sqrt(1.25 - 0.5 * xp);
		r->h = -log2(r->p_u);
	} else {
		r->found_p = false;
		r->p_u = 0.5;
		r->h = 1.0;
	}
}

/* 6.3.3, binary input */
void ng_est_markov(const uint8_t *s, size_t n, ng_est_result *r)
{
	memset(r, 0, sizeof *r);
	if (n < 2) {
		ng_est_fail(r, "needs at least 2 samples");
		return;
	}
	/* from two sums over the 0/1 data: the ones, and the 1,1 pairs */
	uint64_t ones = 0, t11 = 0, t[2][2];
	for (size_t i = 0; i + 1 < n; i++) {
		ones += s[i];
		t11 += s[i] & s[i + 1];
	}
	uint64_t first = ones, second = ones - s[0] + s[n - 1]; /* s[0..n-2], s[1..n-1] */
	ones += s[n - 1];
	uint64_t c0 = n - ones;
	t[1][1] = t11;
	t[1][0] = first - t11;
	t[0][1] = second - t11;
	t[0][0] = (n - 1) - t11 - t[1][0] - t[0][1];
	double p0 = (double)c0 / (double)n, p1 = 1.0 - p0;
	double a = (double)(t[0][0] + t[0][1]), b = (double)(t[1][0] + t[1][1]);
	double p00 = a > 0 ? (double)t[0][0] / a : 0, p01 = a > 0 ? (double)t[0][1] / a : 0;
	double p10 = b > 0 ? (double)t[1][0] / b : 0, p11 = b > 0 ? (double)t[1][1] / b : 0;
	/* the six most likely 128-bit sequences (in log2; a zero factor means
	 * the sequence is impossible, and it is skipped) */
	double best = -INFINITY;
#define NG_TERM(cond, val) do { if (cond) { double v_ = (val); if (v_ > best) best = v_; } } while (0)
	NG_TERM(p0 > 0 && p00 > 0, log2(p0) + 127 * log2(p00));
	NG_TERM(p0 > 0 && p01 > 0 && p10 > 0, log2(p0) + 64 * log2(p01) + 63 * log2(p10));
	NG_TERM(p0 > 0 && p01 > 0 && p11 > 0, log2(p0) + log2(p01) + 126 * log2(p11));
	NG_TERM(p1 > 0 && p10 > 0 && p00 > 0, log2(p1) + log2(p10) + 126 * log2(p00));
	NG_TERM(p1 > 0 && p10 > 0 && p01 > 0, log2(p1) + 64 * log2(p10) + 63 * log2(p01));
	NG_TERM(p1 > 0 && p11 > 0, log2(p1) + 127 * log2(p11));
#undef NG_TERM
	r->run = r->ok = true;
	r->p0 = p0; r->p1 = p1;
	r->p00 = p00; r->p01 = p01; r->p10 = p10; r->p11 = p11;
	r->pmax = exp2(best);
	double h = -best / 128.0;
	r->h = h > 1.0 ? 1.0 : h;
}

/* log2(u) for u = 1..L, filled on demand: the series below usually stops
 * after a few thousand terms, far short of L */
typedef struct {
	long double *v;
	uint64_t filled;
} log_table;

/* 6.3.4: G(z) of the compression estimate, for L blocks and d warm-up. */
static long double compression_g(long double z, uint64_t L, uint64_t d, log_table *lg)
{
	long double s1 = 0, s2 = 0, pw = 1, z1 = 1 - z;
	for (uint64_t u = 1; u <= L; u++) {
		if (u > lg->filled)
			lg->v[lg->filled = u] = log2l((long double)u);
		long double a = lg->v[u] * pw;
		if (u < L)
			s1 += a * (long double)(L - (u > d ? u : d));
		if (u > d)
			s2 += a;
		pw *= z1;
		if (pw < 1e-40L) /* the rest adds less than 1e-25 */
			break;
	}
	return (z * z * s1 + z * s2) / (long double)(L - d);
}

static long double compression_e(long double p, uint64_t L, uint64_t d, log_table *lg)
{
	long double q = (1 - p) / 63.0L;
	return compression_g(p, L, d, lg) + 63.0L * compression_g(q, L, d, lg);
}

void ng_est_compression(const uint8_t *s, size_t n, ng_est_result *r)
{
	const uint64_t d = 1000;
	memset(r, 0, sizeof *r);
	uint64_t L = n / 6;
	if (L <= d + 1) {
		ng_est_fail(r, "needs more than 6006 bits");
		return;
	}
	uint64_t v = L - d;
	uint32_t dict[64];
	memset(dict, 0, sizeof dict);
	/* Kahan sums of log2(D) and log2(D)^2 */
	double sum = 0, c1 = 0, sum2 = 0, c2 = 0;
	for (uint64_t i = 1; i <= L; i++) {
		const uint8_t *b = s + (i - 1) * 6;
		unsigned x = (unsigned)(b[0] << 5 | b[1] << 4 | b[2] << 3 | b[3] << 2 | b[4] << 1 | b[5]);
		if (i > d) {
			uint64_t D = dict[x] ? i - dict[x] : i;
			double l = log2((double)D);
			double y = l - c1, t = sum + y;
			c1 = (t - sum) - y;
			sum = t;
			y = l * l - c2;
			t = sum2 + y;
			c2 = (t - sum2) - y;
			sum2 = t;
		}
		dict[x] = (uint32_t)i;
	}
	double xbar = sum / (double)v;
	double sig = 0.5907 * sqrt(sum2 / ((double)v - 1.0) - xbar * xbar);
	double xp = xbar - NG_ASSESS_Z * sig / sqrt((double)v);
	r->run = r->ok = true;
	r->xbar = xbar;
	r->sigma = sig;
	r->xbar_p = xp;
	log_table lt = {malloc((L + 1) * sizeof *lt.v), 0}, *lg = &lt;
	if (!lt.v) {
		ng_est_fail(r, "out of memory");
		return;
	}
	long double lo = 1.0L / 64, hi = 1, target = xp, p = 0;
	bool found = false;
	if (compression_e(lo, L, d, lg) > target) {
		for (int it = 0; it < 1076; it++) {
			long double mid = (lo + hi) / 2;
			long double e = compression_e(mid, L, d, lg);
			if (near_ulps((double)e, (double)target)) {
				p = mid;
				found = true;
				break;
			}
			if (e > target)
				lo = mid;
			else
				hi = mid;
			if (mid == lo && mid == hi)
				break;
			if ((lo + hi) / 2 == lo || (lo + hi) / 2 == hi) {
				p = (lo + hi) / 2;
				found = true;
				break;
			}
		}
	}
	free(lt.v);
	r->found_p = found;
	if (found) {
		r->p_u = (double)p;
		r->h = (double)(-log2l(p) / 6.0L);
		if (r->h > 1.0)
			r->h = 1.0;
	} else {
		r->p_u = 1.0 / 64;
		r->h = 1.0;
	}
}

/* 6.3.7 steps 3-4 with the local bound from the longest run. */
static long double local_f(long double p, long double r, long double n1)
{
	long double q = 1 - p, x = 1;
	for (int i = 0; i < 66; i++) {
		long double xn = 1 + q * powl(p, r) * powl(x, r + 1);
		if (xn == x)
			break;
		x = xn;
	}
	return logl(1 - p * x) - logl((r + 1 - r * x) * q) - n1 * logl(x);
}

void ng_est_predict_finish(uint64_t C, uint64_t N, uint64_t run, unsigned k, ng_est_result *r)
{
	r->run = r->ok = true;
	r->C = C;
	r->N = N;
	r->r = run + 1;
	double pg = (double)C / (double)N, pgu;
	if (C == 0)
		pgu = 1.0 - pow(0.01, 1.0 / (double)N);
	else {
		pgu = pg + NG_ASSESS_Z * sqrt(pg * (1.0 - pg) / ((double)N - 1.0));
		if (pgu > 1.0)
			pgu = 1.0;
	}
	r->pg = pg;
	r->pg_u = pgu;
	double cur = pgu;
	if (k > 0 && 1.0 / k > cur)
		cur = 1.0 / k;
	long double rr = (long double)(run + 1), n1 = (long double)N + 1;
	long double target = logl(0.99L);
	r->local_used = false;
	r->p_local = 0;
	if (cur < 1.0 && local_f(cur, rr, n1) > target) {
		long double lo = cur, hi = 1, mid = cur;
		for (int it = 0; it < 1076; it++) {
			mid = (lo + hi) / 2;
			long double f = local_f(mid, rr, n1);
			if (near_ulps_l(f, target))
				break;
			if (f > target)
				lo = mid;
			else
				hi = mid;
			long double m2 = (lo + hi) / 2;
			if (m2 == lo || m2 == hi) {
				mid = m2;
				break;
			}
		}
		r->local_used = true;
		r->p_local = (double)mid;
		if (r->p_local > cur)
			cur = r->p_local;
	}
	r->h = -log2(cur);
}
