/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Restart tests (SP 800-90B 3.1.4): the sanity check on the 1000 x 1000
 * restart matrix and the row / column entropy estimates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "assess.h"

#define RS NG_RESTART_ROWS /* restarts = samples per restart (a square matrix) */
_Static_assert(NG_RESTART_ROWS == NG_RESTART_COLS, "restart.c assumes a square matrix");

/* The sanity check's worst case (the model the reference tool simulates):
 * of the k distinct sample values, as many as possible, kp = floor(1/p),
 * have the highest probability p = 2^-H_I, and the other k - kp share the
 * rest equally (q each). If kp >= k (H_I >= log2 k), all k are taken as
 * equally likely. */
typedef struct {
	double p, q;
	unsigned kp, k;
} rs_model;

static rs_model rs_model_of(double h, unsigned k)
{
	rs_model md = {exp2(-h), 0, 0, k ? k : 1};
	double kp = floor(1 / md.p);
	if (kp >= md.k) {
		md.kp = md.k;
		md.p = 1.0 / md.k;
	} else {
		md.kp = (unsigned)kp;
		md.q = (1 - md.p * md.kp) / (md.k - md.kp);
	}
	return md;
}

/* P(the largest symbol count in RS draws >= c) under the model. Exact: a
 * DP over the symbols, each count binomial given the draws left. */
static double p_max_at_least(const rs_model *md, unsigned c)
{
	double *cur = calloc(RS + 1, sizeof *cur), *nx = calloc(RS + 1, sizeof *nx);
	double *lf = malloc((RS + 1) * sizeof *lf);
	if (!cur || !nx || !lf) {
		free(cur); free(nx); free(lf);
		return -1;
	}
	for (unsigned i = 0; i <= RS; i++)
		lf[i] = lgamma(i + 1.0);
	cur[0] = 1; /* cur[u] = P(u draws used so far, all counts < c) */
	double left = 1;
	unsigned m = md->k;
	for (unsigned s = 0; s < m; s++) {
		double ps = s < md->kp ? md->p : md->q;
		double pc = s + 1 == m ? 1.0 : ps / left; /* conditional probability */
		if (pc > 1)
			pc = 1;
		memset(nx, 0, (RS + 1) * sizeof *nx);
		for (unsigned u = 0; u <= RS; u++) {
			if (cur[u] == 0)
				continue;
			unsigned rem = RS - u;
			if (s + 1 == m) {
				/* the last symbol takes the rest */
				if (rem < c)
					nx[RS] += cur[u];
				continue;
			}
			double lp = pc > 0 ? log(pc) : -INFINITY, lq = pc < 1 ? log1p(-pc) : -INFINITY;
			double l0 = rem ? rem * lq : 0;
			if (l0 > -700 && pc < 1) {
				/* binomial pmf by its ratio recurrence from (1-pc)^rem:
				 * one exp per state instead of one per term */
				double b = exp(l0), ratio = pc / (1 - pc);
				for (unsigned j = 0; j < c && j <= rem; j++) {
					nx[u + j] += cur[u] * b;
					b *= (double)(rem - j) / (j + 1) * ratio;
				}
				continue;
			}
			/* (1-pc)^rem underflows: each term from its logarithm */
			for (unsigned j = 0; j < c && j <= rem; j++) {
				double lb = lf[rem] - lf[j] - lf[rem - j];
				double t = (j ? j * lp : 0) + (rem - j ? (rem - j) * lq : 0);
				nx[u + j] += cur[u] * exp(lb + t);
			}
		}
		double *sw = cur;
		cur = nx;
		nx = sw;
		left -= ps;
		if (left < 1e-300)
			left = 1e-300;
	}
	double all_below = cur[RS];
	free(cur); free(nx); free(lf);
	return 1 - all_below;
}

/* The union bound of P(max >= c): the sum over the symbols of
 * P(count >= c), binomial tails; written to ub[c] for c = 0..RS+1. It is
 * never below the exact value and close to it at small alpha (the events
 * are nearly disjoint there), so it guides the exact search. */
static void union_bound(const rs_model *md, double *ub)
{
	double lp = log(md->p), lnp = log1p(-md->p);
	double lq = md->q > 0 ? log(md->q) : -INFINITY, lnq = log1p(-md->q);
	unsigned nq = md->k - md->kp;
	ub[RS + 1] = 0;
	double tp = 0, tq = 0;
	const int rs = (int)RS;
	for (int j = rs; j >= 0; j--) {
		double lb = lgamma(rs + 1.0) - lgamma(j + 1.0) - lgamma(rs - j + 1.0);
		tp += md->p >= 1 ? (j == rs) : exp(lb + (j ? j * lp : 0) + (rs - j ? (rs - j) * lnp : 0));
		if (nq)
			tq += exp(lb + (j ? j * lq : 0) + (rs - j ? (rs - j) * lnq : 0));
		ub[j] = md->kp * tp + nq * tq;
	}
}

/* X_cutoff: the largest count that passes, the smallest v with
 * P(max > v) <= alpha (the reference takes the 1 - alpha quantile of 5
 * million simulated maxima, so its figure can differ by one). P is
 * non-increasing; the exact DP costs ~0.05 s, so instead of bisecting
 * [1, RS+1] (10 DPs) the search starts where the union bound crosses alpha
 * (the exact crossing is at most there) and steps down while the exact P
 * stays <= alpha: usually two DPs. */
static unsigned x_cutoff(double h, unsigned k, double alpha)
{
	rs_model md = rs_model_of(h, k);
	double ub[RS + 2];
	union_bound(&md, ub);
	unsigned c = 1; /* the smallest c with P(max >= c) <= alpha */
	while (c <= RS && ub[c] > alpha)
		c++;
	/* the exact P at c should be <= alpha; step up if rounding says not */
	while (c <= RS && p_max_at_least(&md, c) > alpha)
		c++;
	while (c > 1 && p_max_at_least(&md, c - 1) <= alpha)
		c--;
	return c - 1;
}

ng_status ng_assess_restart(const uint8_t *raw, size_t n, double h_i, const ng_assess_opts *o, bool iid,
		      unsigned long rounds, uint64_t seed, ng_restart_report *r)
{
	memset(r, 0, sizeof *r);
	if (n != (size_t)RS * RS)
		return NG_ERR_ARG;
	r->h_i = h_i;
	r->iid = iid;
	r->alpha = 1 - pow(0.99, 1.0 / (2 * RS));
	uint8_t *col = malloc(n);
	if (!col)
		return NG_ERR_NOMEM;
	/* k: the distinct values in the data, as the reference counts them */
	bool seen[256] = {false};
	unsigned k = 0;
	for (size_t i = 0; i < n; i++)
		if (!seen[raw[i]]) {
			seen[raw[i]] = true;
			k++;
		}
	r->x_cutoff = x_cutoff(h_i, k, r->alpha);
	for (size_t i = 0; i < RS; i++)
		for (size_t j = 0; j < RS; j++)
			col[j * RS + i] = raw[i * RS + j];
	unsigned xmax = 0;
	for (int pass = 0; pass < 2; pass++) {
		const uint8_t *m = pass ? col : raw;
		for (size_t i = 0; i < RS; i++) {
			unsigned cnt[256] = {0};
			for (size_t j = 0; j < RS; j++) {
				unsigned c = ++cnt[m[i * RS + j]];
				if (c > xmax)
					xmax = c;
			}
		}
	}
	r->x_max = xmax;
	r->sanity_pass = xmax <= r->x_cutoff; /* counts equal to the cutoff pass */
	if (r->sanity_pass) {
		ng_assess_opts lo = *o;
		lo.literal_only = true;
		lo.conditioned = false;
		if (iid) {
			if (ng_assess_iid(raw, n, &lo, rounds, seed, &r->irows) ||
			    ng_assess_iid(col, n, &lo, rounds, seed + 1, &r->icols)) {
				free(col);
				return NG_ERR_NOMEM;
			}
			r->h_r = r->irows.mcv_lit.h;
			r->h_c = r->icols.mcv_lit.h;
		} else {
			if (ng_assess_noniid(raw, n, &lo, &r->rows) || ng_assess_noniid(col, n, &lo, &r->cols)) {
				free(col);
				return NG_ERR_NOMEM;
			}
			r->h_r = r->rows.h_original;
			r->h_c = r->cols.h_original;
		}
		r->valid = (r->h_r < r->h_c ? r->h_r : r->h_c) >= h_i / 2;
		r->h_min = h_i;
		if (r->h_r < r->h_min)
			r->h_min = r->h_r;
		if (r->h_c < r->h_min)
			r->h_min = r->h_c;
	}
	free(col);
	return NG_OK;
}
