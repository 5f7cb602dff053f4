/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Suffix array (prefix doubling, radix sort), Kasai LCP, and from them the
 * t-Tuple (6.3.5) and LRS (6.3.6) estimates in one pass over the LCP
 * intervals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "assess.h"

bool ng_suffix_array(const uint8_t *s, size_t n, unsigned k, uint32_t *sa)
{
	if (n == 0)
		return true;
	if (n == 1) {
		sa[0] = 0;
		return true;
	}
	uint32_t *rank = malloc(n * sizeof *rank), *tmp = malloc(n * sizeof *tmp);
	uint32_t *ptr = NULL;
	if (!rank || !tmp)
		goto fail;
	/* initial key: the first m symbols, base k+1 (0 = past the end) */
	unsigned m = 1;
	uint64_t base = (uint64_t)k + 1, K = base;
	uint64_t lim = 4 * (uint64_t)n > 1024 ? 4 * (uint64_t)n : 1024;
	if (lim > (1u << 22))
		lim = 1u << 22;
	while (K * base <= lim && m < 32) {
		K *= base;
		m++;
	}
	if (m > n)
		m = (unsigned)n;
	K = 1;
	for (unsigned j = 0; j < m; j++)
		K *= base;
	size_t cn = K > n ? K : n;
	ptr = calloc(cn + 1, sizeof *ptr);
	if (!ptr)
		goto fail;
	/* rolling key */
	uint64_t key = 0, top = K / base;
	for (unsigned j = 0; j < m; j++)
		key = key * base + (j < n ? s[j] + 1u : 0);
	for (size_t i = 0; i < n; i++) {
		tmp[i] = (uint32_t)key;
		ptr[key + 1]++;
		uint64_t nx = i + m < n ? s[i + m] + 1u : 0;
		key = (key % top) * base + nx;
		if (m == 1)
			key = nx;
	}
	for (size_t c = 1; c <= K; c++)
		ptr[c] += ptr[c - 1];
	for (size_t i = 0; i < n; i++)
		sa[ptr[tmp[i]]++] = (uint32_t)i;
	/* ranks = start index of each group in sa */
	size_t groups = 0;
	for (size_t j = 0; j < n; j++) {
		if (j == 0 || tmp[sa[j]] != tmp[sa[j - 1]]) {
			groups++;
			rank[sa[j]] = (uint32_t)j;
		} else
			rank[sa[j]] = rank[sa[j - 1]];
	}
	size_t h = m;
	while (groups < n && h < n) {
		/* order by the second key: suffixes with i+h >= n first (they
		 * compare lowest), in increasing i ... they all differ in their
		 * first h symbols' group or are ordered by length; their own
		 * first-key sort keeps them apart */
		size_t t = 0;
		for (size_t i = n - h; i < n; i++)
			tmp[t++] = (uint32_t)i;
		for (size_t j = 0; j < n; j++)
			if (sa[j] >= h)
				tmp[t++] = sa[j] - (uint32_t)h;
		/* stable sort by first key (rank) */
		for (size_t j = 0; j < n; j++)
			ptr[j] = (uint32_t)j;
		for (size_t j = 0; j < n; j++) {
			uint32_t p = tmp[j];
			sa[ptr[rank[p]]++] = p;
		}
		/* new ranks into tmp, indexed by position */
		groups = 0;
		uint32_t prev_r1 = 0, prev_r2 = 0, g = 0;
		for (size_t j = 0; j < n; j++) {
			uint32_t p = sa[j];
			uint32_t r1 = rank[p];
			uint32_t r2 = p + h < n ? rank[p + h] + 1 : 0;
			if (j == 0 || r1 != prev_r1 || r2 != prev_r2) {
				g = (uint32_t)j;
				groups++;
			}
			tmp[p] = g;
			prev_r1 = r1;
			prev_r2 = r2;
		}
		uint32_t *sw = rank;
		rank = tmp;
		tmp = sw;
		h *= 2;
	}
	free(rank);
	free(tmp);
	free(ptr);
	return true;
fail:
	free(rank);
	free(tmp);
	free(ptr);
	return false;
}

bool ng_lcp_array(const uint8_t *s, size_t n, const uint32_t *sa, uint32_t *lcp)
{
	uint32_t *rank = malloc((n ? n : 1) * sizeof *rank);
	if (!rank)
		return false;
	for (size_t i = 0; i < n; i++)
		rank[sa[i]] = (uint32_t)i;
	size_t h = 0;
	if (n)
		lcp[0] = 0;
	for (size_t i = 0; i < n; i++) {
		if (rank[i] > 0) {
			size_t j = sa[rank[i] - 1];
			while (i + h < n && j + h < n && s[i + h] == s[j + h])
				h++;
			lcp[rank[i]] = (uint32_t)h;
			if (h > 0)
				h--;
		} else
			h = 0;
	}
	free(rank);
	return true;
}

static void fail(ng_est_result *r, const char *why)
{
	r->run = true;
	r->ok = false;
	r->h = -1;
	snprintf(r->reason, sizeof r->reason, "%s", why);
}

static long double upper(long double p, size_t n)
{
	long double pu = p + NG_ASSESS_ZL * sqrtl(p * (1 - p) / ((long double)n - 1));
	return pu > 1 ? 1 : pu;
}

void ng_est_tuple_lrs(const uint8_t *s, size_t n, unsigned k, ng_est_result *tt,
		      ng_est_result *lr)
{
	memset(tt, 0, sizeof *tt);
	memset(lr, 0, sizeof *lr);
	if (n < 2 || n >= UINT32_MAX) {
		fail(tt, "needs at least 2 samples");
		fail(lr, "needs at least 2 samples");
		return;
	}
	uint32_t *sa = malloc(n * sizeof *sa), *lcp = malloc(n * sizeof *lcp);
	if (!sa || !lcp || !ng_suffix_array(s, n, k, sa) || !ng_lcp_array(s, n, sa, lcp)) {
		free(sa);
		free(lcp);
		fail(tt, "out of memory");
		fail(lr, "out of memory");
		return;
	}
	free(sa);
	uint32_t vmax = 0;
	for (size_t i = 1; i < n; i++)
		if (lcp[i] > vmax)
			vmax = lcp[i];
	/* qlen[l] = largest interval with lcp exactly l; diff: pair counts */
	uint64_t *qlen = calloc((size_t)vmax + 2, sizeof *qlen);
	uint64_t *diff = calloc((size_t)vmax + 3, sizeof *diff);
	struct fr { uint32_t l; uint32_t lb; } *st = malloc((n + 1) * sizeof *st);
	if (!qlen || !diff || !st) {
		free(qlen); free(diff); free(st); free(lcp);
		fail(tt, "out of memory");
		fail(lr, "out of memory");
		return;
	}
	size_t sp = 0;
	st[sp++] = (struct fr){0, 0};
	for (size_t i = 1; i <= n; i++) {
		uint32_t cur = i < n ? lcp[i] : 0;
		uint32_t lb = (uint32_t)(i - 1);
		while (st[sp - 1].l > cur) {
			struct fr f = st[--sp];
			uint64_t c = i - f.lb;
			uint32_t pl = st[sp - 1].l > cur ? st[sp - 1].l : cur;
			if (c > qlen[f.l])
				qlen[f.l] = c;
			uint64_t pairs = c * (c - 1) / 2;
			diff[pl + 1] += pairs;
			diff[f.l + 1] -= pairs;
			lb = f.lb;
		}
		if (st[sp - 1].l < cur)
			st[sp++] = (struct fr){cur, lb};
	}
	free(st);
	free(lcp);
	/* Q[W] = max over intervals with lcp >= W */
	for (uint32_t l = vmax; l >= 1; l--)
		if (l < vmax && qlen[l + 1] > qlen[l])
			qlen[l] = qlen[l + 1];
	unsigned t = 0;
	for (uint32_t l = 1; l <= vmax; l++)
		if (qlen[l] >= 35)
			t = l;
	tt->t = t;
	if (t == 0) {
		fail(tt, "no tuple occurs 35 times");
	} else {
		long double pmax = 0;
		for (unsigned i = 1; i <= t; i++) {
			long double p = powl((long double)qlen[i] / (long double)(n - i + 1), 1.0L / i);
			if (p > pmax)
				pmax = p;
		}
		long double pu = upper(pmax, n);
		tt->run = tt->ok = true;
		tt->lp_hat = pmax;
		tt->lp_u = pu;
		tt->p_hat = (double)pmax;
		tt->p_u = (double)pu;
		tt->h = (double)-log2l(pu);
	}
	unsigned u = t + 1;
	lr->u = u;
	lr->lrs_v = vmax;
	lr->t = t;
	if (vmax < u) {
		fail(lr, "no repeated substring longer than the t-Tuple's t");
	} else {
		long double pmax = 0;
		uint64_t acc = 0;
		for (uint32_t w = 1; w <= vmax; w++) {
			acc += diff[w];
			if (w < u)
				continue;
			long double m = (long double)(n - w + 1);
			long double pw = (long double)acc / (m * (m - 1) / 2);
			long double p = powl(pw, 1.0L / w);
			if (p > pmax)
				pmax = p;
		}
		long double pu = upper(pmax, n);
		lr->run = lr->ok = true;
		lr->lp_hat = pmax;
		lr->lp_u = pu;
		lr->p_hat = (double)pmax;
		lr->p_u = (double)pu;
		lr->h = (double)-log2l(pu);
	}
	free(qlen);
	free(diff);
}
