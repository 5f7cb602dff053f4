/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Suffix array (prefix doubling, radix sort), Kasai LCP, and from them the
 * t-Tuple (6.3.5) and LRS (6.3.6) estimates in one pass over the LCP
 * intervals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "assess.h"
#include "sort.h"

typedef struct {
	uint32_t key, pos;
} sa_pair;

static int cmp_pair(const void *a, const void *b)
{
	const sa_pair *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

typedef struct {
	uint32_t start, len;
} sa_group;

/* The groups (runs of equal rank in sa order) of two or more suffixes. */
static size_t find_groups(const uint32_t *sa, const uint32_t *rank, size_t n, sa_group *g, size_t *members)
{
	size_t ng = 0, mem = 0;
	for (size_t j = 0; j < n;) {
		size_t e = j + 1;
		uint32_t r = rank[sa[j]];
		while (e < n && rank[sa[e]] == r)
			e++;
		if (e - j > 1) {
			g[ng++] = (sa_group){(uint32_t)j, (uint32_t)(e - j)};
			mem += e - j;
		}
		j = e;
	}
	*members = mem;
	return ng;
}

/* Suffix array by prefix doubling. The first round radix-sorts a packed key:
 * the first m symbols (m * bits <= 32) and the suffix length capped at m.
 * Later rounds refine only the groups that still hold several suffixes, by
 * the rank h positions on; when many remain, a full radix round runs. */
bool ng_suffix_array(const uint8_t *s, size_t n, unsigned k, uint32_t *sa)
{
	if (n == 0)
		return true;
	if (n == 1) {
		sa[0] = 0;
		return true;
	}
	unsigned b = 1;
	while ((1u << b) < k && b < 8)
		b++;
	unsigned m = 32 / b, kb = b * m + 6, ib = 1;
	while (ib < 32 && ((size_t)1 << ib) < n)
		ib++;
	uint32_t *rank = malloc(n * sizeof *rank), *tmp = malloc(n * sizeof *tmp);
	sa_group *grp = NULL, *ngrp = NULL;
	sa_pair *pr = NULL;
	uint64_t *v = NULL, *v2 = NULL;
	if (!rank || !tmp)
		goto fail;
	size_t ng, members;
	if (kb + ib <= 64) {
		/* (key << ib | position), LSD radix sort on the key bits */
		v = malloc(n * sizeof *v);
		v2 = malloc(n * sizeof *v2);
		uint32_t *cnt = malloc(4096 * sizeof *cnt);
		if (!v || !v2 || !cnt) {
			free(cnt);
			goto fail;
		}
		uint64_t w = 0, mask = (1ull << (b * m)) - 1;
		for (size_t j = 0; j < m; j++)
			w = (w << b) | (j < n ? s[j] : 0);
		for (size_t i = 0; i < n; i++) {
			size_t len = n - i;
			v[i] = (((w & mask) << 6 | (len < m ? len : m)) << ib) | i;
			w = (w << b) | (i + m < n ? s[i + m] : 0);
		}
		for (unsigned sh = ib; sh < ib + kb; sh += 12) {
			memset(cnt, 0, 4096 * sizeof *cnt);
			for (size_t i = 0; i < n; i++)
				cnt[(v[i] >> sh) & 4095]++;
			uint32_t sum = 0;
			for (size_t c = 0; c < 4096; c++) {
				uint32_t t = cnt[c];
				cnt[c] = sum;
				sum += t;
			}
			for (size_t i = 0; i < n; i++)
				v2[cnt[(v[i] >> sh) & 4095]++] = v[i];
			uint64_t *sw = v;
			v = v2;
			v2 = sw;
		}
		free(cnt);
		free(v2);
		v2 = NULL;
		uint64_t im = (1ull << ib) - 1;
		for (size_t j = 0; j < n; j++) {
			uint32_t p = (uint32_t)(v[j] & im);
			sa[j] = p;
			rank[p] = (j > 0 && (v[j] >> ib) == (v[j - 1] >> ib)) ? rank[sa[j - 1]] : (uint32_t)j;
		}
		free(v);
		v = NULL;
	} else {
		/* huge inputs: a stable counting sort on the first symbol */
		uint32_t cnt[257] = {0};
		for (size_t i = 0; i < n; i++)
			cnt[s[i] + 1]++;
		for (int c = 1; c <= 256; c++)
			cnt[c] += cnt[c - 1];
		for (size_t i = 0; i < n; i++)
			sa[cnt[s[i]]++] = (uint32_t)i;
		for (size_t j = 0; j < n; j++)
			rank[sa[j]] = (j > 0 && s[sa[j]] == s[sa[j - 1]]) ? rank[sa[j - 1]] : (uint32_t)j;
		m = 1;
	}
	grp = malloc((n / 2 + 1) * sizeof *grp);
	ngrp = malloc((n / 2 + 1) * sizeof *ngrp);
	if (!grp || !ngrp)
		goto fail;
	ng = find_groups(sa, rank, n, grp, &members);
	size_t h = m;
	while (ng > 0 && h < n) {
		if (members > n / 8) {
			/* full round: sort by (rank[i], rank[i+h]) */
			uint32_t *ptr = malloc(n * sizeof *ptr);
			if (!ptr)
				goto fail;
			size_t t = 0;
			for (size_t i = n - h; i < n; i++)
				tmp[t++] = (uint32_t)i;
			for (size_t j = 0; j < n; j++)
				if (sa[j] >= h)
					tmp[t++] = sa[j] - (uint32_t)h;
			for (size_t j = 0; j < n; j++)
				ptr[j] = (uint32_t)j;
			for (size_t j = 0; j < n; j++) {
				uint32_t p = tmp[j];
				sa[ptr[rank[p]]++] = p;
			}
			uint32_t pr1 = 0, pr2 = 0, g = 0;
			for (size_t j = 0; j < n; j++) {
				uint32_t p = sa[j], r1 = rank[p], r2 = p + h < n ? rank[p + h] + 1 : 0;
				if (j == 0 || r1 != pr1 || r2 != pr2)
					g = (uint32_t)j;
				tmp[p] = g;
				pr1 = r1;
				pr2 = r2;
			}
			free(ptr);
			uint32_t *sw = rank;
			rank = tmp;
			tmp = sw;
			ng = find_groups(sa, rank, n, grp, &members);
		} else {
			/* refine the groups; all keys from the old ranks first */
			free(pr);
			pr = malloc(members * sizeof *pr);
			if (!pr)
				goto fail;
			size_t off = 0;
			for (size_t gi = 0; gi < ng; gi++)
				for (uint32_t q = grp[gi].start; q < grp[gi].start + grp[gi].len; q++) {
					uint32_t p = sa[q];
					pr[off++] = (sa_pair){p + h < n ? rank[p + h] + 1 : 0, p};
				}
			size_t nng = 0, nmem = 0;
			off = 0;
			for (size_t gi = 0; gi < ng; gi++) {
				uint32_t st = grp[gi].start, len = grp[gi].len;
				sa_pair *a = pr + off;
				qsort(a, len, sizeof *a, cmp_pair);
				for (uint32_t q = 0; q < len;) {
					uint32_t e = q + 1;
					while (e < len && a[e].key == a[q].key)
						e++;
					for (uint32_t x = q; x < e; x++) {
						sa[st + x] = a[x].pos;
						rank[a[x].pos] = st + q;
					}
					if (e - q > 1) {
						ngrp[nng++] = (sa_group){st + q, e - q};
						nmem += e - q;
					}
					q = e;
				}
				off += len;
			}
			sa_group *sw = grp;
			grp = ngrp;
			ngrp = sw;
			ng = nng;
			members = nmem;
		}
		h *= 2;
	}
	free(pr);
	free(grp);
	free(ngrp);
	free(rank);
	free(tmp);
	return true;
fail:
	free(pr);
	free(grp);
	free(ngrp);
	free(v);
	free(v2);
	free(rank);
	free(tmp);
	return false;
}

/* Kasai's idea in text order (the permuted LCP, as Karkkainen, Manzini
 * and Puglisi arrange it): phi[p] = the suffix before p in suffix order,
 * then each suffix's LCP with it (at least the previous one's minus one)
 * in text order, then the LCPs put in suffix order. Fewer scattered
 * accesses than ranking first. */
bool ng_lcp_array(const uint8_t *s, size_t n, const uint32_t *sa, uint32_t *lcp)
{
	if (n == 0)
		return true;
	uint32_t *phi = malloc(n * sizeof *phi);
	if (!phi)
		return false;
	phi[sa[0]] = UINT32_MAX;
	for (size_t i = 1; i < n; i++)
		phi[sa[i]] = sa[i - 1];
	size_t h = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t j = phi[i];
		if (j == UINT32_MAX) {
			phi[i] = 0;
			h = 0;
			continue;
		}
		while (i + h < n && j + h < n && s[i + h] == s[j + h])
			h++;
		phi[i] = (uint32_t)h; /* the permuted LCP, in place */
		if (h > 0)
			h--;
	}
	lcp[0] = 0;
	for (size_t i = 1; i < n; i++)
		lcp[i] = phi[sa[i]];
	free(phi);
	return true;
}

/* Longest previous and next factor: prev[p] (next[p]) = the longest l such
 * that s[p..p+l) also starts at some q < p (q > p), capped at cap. From the
 * suffix array: the best earlier (later) suffix is the nearest one in suffix
 * order, on either side, with a smaller (larger) position, and its LCP is
 * the minimum of the LCPs in between; one stack pass per side finds both
 * neighbours. */
static void factor_pass(const uint32_t *sa, const uint32_t *lcp, size_t n, unsigned cap,
			bool later, uint32_t *st, uint32_t *stl, uint8_t *out)
{
	size_t sp = 0;
	for (size_t j = 0; j <= n; j++) {
		uint32_t m = j < n ? lcp[j] : 0;
		while (sp && (j == n || (later ? sa[st[sp - 1]] < sa[j] : sa[st[sp - 1]] > sa[j]))) {
			sp--;
			uint32_t left = stl[sp], v = left > m ? left : m;
			out[sa[st[sp]]] = (uint8_t)(v < cap ? v : cap);
			if (left < m)
				m = left;
		}
		if (j < n) {
			st[sp] = (uint32_t)j;
			stl[sp] = sp ? m : 0;
			sp++;
		}
	}
}

/* prev / next from the suffix and LCP arrays of s[0..n), n > 0 */
static bool repeat_from_sa(const uint32_t *sa, const uint32_t *lcp, size_t n, unsigned cap,
			   uint8_t *prev, uint8_t *next)
{
	if (cap > 255)
		cap = 255;
	uint32_t *st = malloc(n * sizeof *st), *stl = malloc(n * sizeof *stl);
	bool ok = st && stl;
	if (ok) {
		factor_pass(sa, lcp, n, cap, false, st, stl, prev);
		factor_pass(sa, lcp, n, cap, true, st, stl, next);
	}
	free(st);
	free(stl);
	return ok;
}

bool ng_repeat_lengths(const uint8_t *s, size_t n, unsigned k, unsigned cap,
		       uint8_t *prev, uint8_t *next)
{
	if (n == 0)
		return true;
	uint32_t *sa = malloc(n * sizeof *sa), *lcp = malloc(n * sizeof *lcp);
	bool ok = sa && lcp && ng_suffix_array(s, n, k, sa) && ng_lcp_array(s, n, sa, lcp) &&
		  repeat_from_sa(sa, lcp, n, cap, prev, next);
	free(sa);
	free(lcp);
	return ok;
}

/* The LCP intervals' statistics, fed the LCP array in suffix order (lcp[1],
 * lcp[2], ...; ng_lcp_acc_end feeds the closing 0), so that a producer can
 * hand its LCPs over as it finds them: qlen[l] = the size of the largest
 * interval with lcp exactly l, diff[] the pair counts by length as
 * differences (pairs sharing l or more symbols = the prefix sum to l), vmax
 * the largest LCP. The stack's lcps strictly increase, so it needs at most
 * vmax + 2 frames; the arrays grow with vmax. */
typedef struct {
	uint64_t *qlen, *diff;
	struct lcp_frame { uint32_t l, lb; } *st;
	size_t cap;     /* every array holds cap + 2 entries */
	size_t sp, i;   /* frames; LCPs fed so far + 1 */
	uint32_t vmax;
	bool oom;
} lcp_acc;

static bool lcp_acc_grow(lcp_acc *a, size_t cap)
{
	uint64_t *q = realloc(a->qlen, (cap + 2) * sizeof *q);
	if (q)
		a->qlen = q;
	uint64_t *d = realloc(a->diff, (cap + 2) * sizeof *d);
	if (d)
		a->diff = d;
	struct lcp_frame *f = realloc(a->st, (cap + 2) * sizeof *f);
	if (f)
		a->st = f;
	if (!q || !d || !f) {
		a->oom = true;
		return false;
	}
	memset(a->qlen + a->cap + 2, 0, (cap - a->cap) * sizeof *q);
	memset(a->diff + a->cap + 2, 0, (cap - a->cap) * sizeof *d);
	a->cap = cap;
	return true;
}

static bool lcp_acc_init(lcp_acc *a)
{
	memset(a, 0, sizeof *a);
	a->cap = 64;
	a->qlen = calloc(a->cap + 2, sizeof *a->qlen);
	a->diff = calloc(a->cap + 2, sizeof *a->diff);
	a->st = malloc((a->cap + 2) * sizeof *a->st);
	if (!a->qlen || !a->diff || !a->st)
		return false;
	a->st[a->sp++] = (struct lcp_frame){0, 0};
	a->i = 1;
	return true;
}

static void lcp_acc_free(lcp_acc *a)
{
	free(a->qlen);
	free(a->diff);
	free(a->st);
}

static inline void lcp_acc_feed(lcp_acc *a, uint32_t cur)
{
	if (cur + 1 >= a->cap && !lcp_acc_grow(a, 2 * ((size_t)cur + 1)))
		return;
	if (cur > a->vmax)
		a->vmax = cur;
	size_t i = a->i++, sp = a->sp;
	struct lcp_frame *st = a->st;
	uint32_t lb = (uint32_t)(i - 1);
	while (st[sp - 1].l > cur) {
		struct lcp_frame f = st[--sp];
		uint64_t c = i - f.lb;
		uint32_t pl = st[sp - 1].l > cur ? st[sp - 1].l : cur;
		if (c > a->qlen[f.l])
			a->qlen[f.l] = c;
		uint64_t pairs = c * (c - 1) / 2;
		a->diff[pl + 1] += pairs;
		a->diff[f.l + 1] -= pairs;
		lb = f.lb;
	}
	if (st[sp - 1].l < cur)
		st[sp++] = (struct lcp_frame){cur, lb};
	a->sp = sp;
}

/* lcp_acc_feed over v[0..m), the state in registers */
static void lcp_acc_feed_n(lcp_acc *a, const uint32_t *v, size_t m)
{
	uint32_t hi = 0;
	for (size_t x = 0; x < m; x++)
		hi = v[x] > hi ? v[x] : hi;
	if (hi + 1 >= a->cap && !lcp_acc_grow(a, 2 * ((size_t)hi + 1)))
		return;
	if (hi > a->vmax)
		a->vmax = hi;
	size_t i = a->i, sp = a->sp;
	struct lcp_frame *st = a->st;
	uint64_t *qlen = a->qlen, *diff = a->diff;
	for (size_t x = 0; x < m; x++, i++) {
		uint32_t cur = v[x], lb = (uint32_t)(i - 1), top = st[sp - 1].l;
		while (top > cur) {
			struct lcp_frame f = st[--sp];
			uint64_t c = i - f.lb;
			top = st[sp - 1].l;
			uint32_t pl = top > cur ? top : cur;
			qlen[f.l] = c > qlen[f.l] ? c : qlen[f.l];
			uint64_t pairs = c * (c - 1) / 2;
			diff[pl + 1] += pairs;
			diff[f.l + 1] -= pairs;
			lb = f.lb;
		}
		if (top < cur)
			st[sp++] = (struct lcp_frame){cur, lb};
	}
	a->i = i;
	a->sp = sp;
}

static void lcp_acc_end(lcp_acc *a)
{
	lcp_acc_feed(a, 0);
}

/* LCP array (in suffix order) of a 0/1 sequence from its 64-bit windows
 * (bit 63 = the suffix's first bit). Sorting the windows (zero-padded past
 * the end, equal windows shorter suffix first) orders the suffixes, except
 * among suffixes of 64 or more bits that share their first 64; each LCP
 * is then the common leading bits of neighbouring windows, capped by the
 * suffixes' lengths. The suffixes of such a run of equal windows are found
 * again by a scan, sorted by comparing their bits past the first 64, and
 * give the LCPs inside the run. Returns 1 done, 0 not applicable (not 0/1,
 * short, or too many or too long repeats: use the suffix array), -1 out of
 * memory. */
typedef struct {
	uint64_t key;
	uint32_t len;
} win64;

/* MSD radix sort of a[0..m) on key bits [0, shift) (the higher ones are
 * equal), tmp as scratch: 8-bit digits (256 write streams keep the
 * scatter within the TLB), digits every key shares skipped, insertion
 * sort below 33. */
void ng_msd_sort_u64(uint64_t *a, uint64_t *tmp, size_t m, unsigned shift)
{
	uint32_t cnt[257];
	while (m > 32 && shift > 0) {
		unsigned r = 8;
		if (r > shift)
			r = shift;
		unsigned sh = shift - r;
		uint32_t mask = (1u << r) - 1, nb = mask + 1;
		memset(cnt, 0, (nb + 1) * sizeof *cnt);
		for (size_t i = 0; i < m; i++)
			cnt[((a[i] >> sh) & mask) + 1]++;
		bool one = false;
		for (uint32_t c = 1; c <= nb; c++)
			one |= cnt[c] == m;
		shift = sh;
		if (one)
			continue;
		for (uint32_t c = 1; c <= nb; c++)
			cnt[c] += cnt[c - 1];
		for (size_t i = 0; i < m; i++)
			tmp[cnt[(a[i] >> sh) & mask]++] = a[i];
		memcpy(a, tmp, m * sizeof *a);
		/* cnt[c] is now the end of bucket c */
		size_t st = 0;
		for (uint32_t c = 0; c < nb; c++) {
			size_t e = cnt[c];
			if (e - st > 1)
				ng_msd_sort_u64(a + st, tmp + st, e - st, sh);
			st = e;
		}
		return;
	}
	if (shift == 0)
		return; /* all equal */
	ng_insertion_sort_u64(a, m);
}

/* Suffix comparison past a shared prefix, on bits packed MSB first. */
typedef struct {
	const uint64_t *w;
	size_t n, nw;
	size_t budget; /* words left to compare; 0: given up */
} bitsuf;

static inline uint64_t bitsuf_win(const bitsuf *b, size_t p)
{
	size_t q = p / 64;
	unsigned o = p % 64;
	uint64_t hi = q < b->nw ? b->w[q] : 0;
	if (!o)
		return hi;
	uint64_t lo = q + 1 < b->nw ? b->w[q + 1] : 0;
	return hi << o | lo >> (64 - o);
}

/* LCP of suffixes p != q (known to share their first off bits); *cmp < 0
 * if suffix p is the smaller. */
static size_t bitsuf_lcp(bitsuf *b, size_t p, size_t q, size_t off, int *cmp)
{
	for (size_t o = off;; o += 64) {
		if (!b->budget) {
			*cmp = 0;
			return o;
		}
		b->budget--;
		size_t lp = p + o < b->n ? b->n - p - o : 0, lq = q + o < b->n ? b->n - q - o : 0;
		size_t lim = lp < lq ? lp : lq;
		if (lim > 64)
			lim = 64;
		uint64_t wp = bitsuf_win(b, p + o), wq = bitsuf_win(b, q + o), x = wp ^ wq;
		size_t l = x ? (size_t)__builtin_clzll(x) : 64;
		if (l < lim) {
			*cmp = wp < wq ? -1 : 1;
			return o + l;
		}
		if (lim < 64) {
			*cmp = lp < lq ? -1 : 1;
			return o + lim;
		}
	}
}

static int bitsuf_cmp(const void *x, const void *y, void *ctx)
{
	int c;
	bitsuf_lcp(ctx, *(const uint32_t *)x, *(const uint32_t *)y, 64, &c);
	return c;
}

static inline size_t key_hash(uint64_t k, unsigned bits)
{
	k ^= k >> 31;
	k *= 0x94d049bb133111ebULL;
	return (size_t)(k >> (64 - bits));
}

/* The runs of equal windows in the sorted a[0..nf): their suffixes'
 * LCPs in suffix order, appended to *out (one per member after the
 * first). Returns 1, 0 (give up), -1 (out of memory). */
static int resolve_runs(const uint8_t *s, size_t n, const uint64_t *a, size_t nf, uint32_t **out)
{
	size_t nr = 0, mem = 0;
	for (size_t j = 1; j < nf; j++)
		if (a[j] == a[j - 1]) {
			mem++;
			if (j == 1 || a[j - 2] != a[j])
				nr++, mem++;
		}
	*out = NULL;
	if (!nr)
		return 1;
	if (mem > n / 64)
		return 0;
	unsigned hb = 1;
	while (((size_t)1 << hb) < 2 * nr)
		hb++;
	uint32_t *slot = calloc((size_t)1 << hb, sizeof *slot);  /* run + 1 */
	uint64_t *rkey = malloc(nr * sizeof *rkey);
	uint32_t *roff = malloc((nr + 1) * sizeof *roff), *fill = calloc(nr, sizeof *fill);
	uint32_t *pos = malloc(mem * sizeof *pos), *lc = malloc(mem * sizeof *lc);
	size_t nw = (n + 63) / 64;
	uint64_t *pk = calloc(nw, sizeof *pk);
	uint64_t *filt = calloc((1u << 20) / 64, sizeof *filt); /* 2^20-bit filter of the keys */
	int rc = -1;
	if (!slot || !rkey || !roff || !fill || !pos || !lc || !pk || !filt)
		goto out;
	size_t r = 0;
	roff[0] = 0;
	for (size_t j = 1; j < nf; j++) {
		if (a[j] != a[j - 1] || (j > 1 && a[j - 2] == a[j]))
			continue;
		size_t e = j + 1;
		while (e < nf && a[e] == a[j])
			e++;
		rkey[r] = a[j];
		roff[r + 1] = roff[r] + (uint32_t)(e - j + 1);
		size_t h = key_hash(a[j], hb);
		while (slot[h])
			h = (h + 1) & (((size_t)1 << hb) - 1);
		slot[h] = (uint32_t)(r + 1);
		size_t fb = (size_t)((a[j] * 0x9e3779b97f4a7c15ULL) >> 44);
		filt[fb / 64] |= 1ULL << (fb % 64);
		r++;
	}
	/* find the runs' suffixes */
	uint64_t w = 0;
	for (size_t j = 0; j < 64; j++)
		w = (w << 1) | s[j];
	for (size_t i = 0; i < nf; i++) {
		size_t fb = (size_t)((w * 0x9e3779b97f4a7c15ULL) >> 44);
		if (!(filt[fb / 64] >> (fb % 64) & 1)) {
			w = (w << 1) | (i + 64 < n ? s[i + 64] : 0);
			continue;
		}
		for (size_t h = key_hash(w, hb); slot[h]; h = (h + 1) & (((size_t)1 << hb) - 1))
			if (rkey[slot[h] - 1] == w) {
				size_t q = slot[h] - 1;
				pos[roff[q] + fill[q]++] = (uint32_t)i;
				break;
			}
		w = (w << 1) | (i + 64 < n ? s[i + 64] : 0);
	}
	for (size_t i = 0; i < n; i++)
		pk[i / 64] |= (uint64_t)s[i] << (63 - i % 64);
	bitsuf b = {pk, n, nw, 16 * (n / 64 + 1)};
	size_t o = 0;
	for (size_t q = 0; q < nr && b.budget; q++) {
		uint32_t *ps = pos + roff[q], c = roff[q + 1] - roff[q];
		/* found in text order: into suffix order, so that neighbours
		 * share the most (a budget run out makes cmp 0, and rc 0) */
		qsort_r(ps, c, sizeof *ps, bitsuf_cmp, &b);
		for (uint32_t x = 1; x < c; x++) {
			int cmp;
			size_t l = bitsuf_lcp(&b, ps[x - 1], ps[x], 64, &cmp);
			lc[o++] = l > UINT32_MAX ? UINT32_MAX : (uint32_t)l;
		}
	}
	rc = b.budget ? 1 : 0;
	if (rc == 1) {
		*out = lc;
		lc = NULL;
	}
out:
	free(slot); free(rkey); free(roff); free(fill); free(pos); free(lc); free(pk); free(filt);
	return rc;
}

static int lcp_binary(const uint8_t *s, size_t n, lcp_acc *acc)
{
	if (n < 128 || n >= UINT32_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] > 1)
			return 0;
	size_t nf = n - 63; /* suffixes 0..n-64 have 64 bits or more */
	/* The first MSD digit straight from the data: the windows' top bytes
	 * counted, then each window built and dropped into its bucket, so the
	 * windows are written once, and the deeper digits sort one bucket at
	 * a time with scratch of the largest bucket's size (cache-resident
	 * for spread-out data). */
	size_t cnt[257] = {0};
	unsigned top = 0;
	for (size_t j = 0; j < 8; j++)
		top = (top << 1) | s[j];
	for (size_t i = 0; i < nf; i++) {
		cnt[(top & 255) + 1]++;
		top = (top << 1) | s[i + 8];
	}
	size_t big = 0;
	for (unsigned c = 1; c <= 256; c++) {
		if (cnt[c] > big)
			big = cnt[c];
		cnt[c] += cnt[c - 1];
	}
	uint64_t *a = malloc(nf * sizeof *a), *b = malloc(big * sizeof *b);
	if (!a || !b) {
		free(a); free(b);
		return -1;
	}
	size_t fill[256];
	memcpy(fill, cnt, sizeof fill);
	uint64_t w = 0;
	for (size_t j = 0; j < 64; j++)
		w = (w << 1) | s[j];
	for (size_t i = 0; i < nf; i++) {
		a[fill[w >> 56]++] = w;
		w = (w << 1) | (i + 64 < n ? s[i + 64] : 0);
	}
	for (unsigned c = 0; c < 256; c++)
		ng_msd_sort_u64(a + cnt[c], b, cnt[c + 1] - cnt[c], 56);
	free(b);
	win64 sh[63];
	for (unsigned j = 0; j < 63; j++) {
		/* w holds the window of suffix nf + j here */
		win64 x = {w, 63 - j};
		unsigned q = j;
		while (q > 0 && (sh[q - 1].key > x.key || (sh[q - 1].key == x.key && sh[q - 1].len > x.len))) {
			sh[q] = sh[q - 1];
			q--;
		}
		sh[q] = x;
		w <<= 1;
	}
	uint32_t *runl;
	int rc = resolve_runs(s, n, a, nf, &runl);
	if (rc != 1) {
		free(a);
		return rc;
	}
	/* the LCPs in suffix order, straight into the interval statistics */
	size_t j = 0, q = 0, ri = 0;
	bool first = true;
	win64 prev = {0, 0};
	while (j < nf || q < 63) {
		win64 cur;
		if (q < 63 && (j == nf || sh[q].key <= a[j]))
			cur = sh[q++];
		else
			cur = (win64){a[j++], 64};
		if (!first) {
			uint64_t x = prev.key ^ cur.key;
			uint32_t l = x ? (uint32_t)__builtin_clzll(x) : 64;
			if (l == 64 && prev.len == 64 && cur.len == 64)
				l = runl[ri++];
			else {
				if (l > prev.len)
					l = prev.len;
				if (l > cur.len)
					l = cur.len;
			}
			lcp_acc_feed(acc, l);
		}
		first = false;
		prev = cur;
	}
	free(runl);
	free(a);
	return 1;
}

/* The same LCPs when s (n bits, 0/1) is a sequence of b-bit blocks
 * (b <= 8, n = b * nb) whose suffix order bsa is known: the suffixes
 * starting at a block boundary are in bsa's order, and those starting r
 * bits into block i in the order of (the block's last b - r bits, then
 * the suffix of block i + 1), so one counting pass over bsa sorts each
 * phase r. Then, one top byte at a time, each phase's part (contiguous,
 * as the phase is sorted) has its 64-bit windows loaded and the b sorted
 * runs are merged pairwise, in cache; suffixes sharing their window are
 * found in the runs by binary search and sorted by their further bits.
 * Positions, not windows, are kept: half the memory of the windows'
 * sort. Returns as lcp_binary. */
static inline uint64_t pk_win(const uint64_t *pk, size_t p)
{
	return pk[p / 64] << (p % 64) | (pk[p / 64 + 1] >> 1) >> (63 - p % 64);
}

/* Stable merge of the sorted x[0..nx) and y[0..ny) (x first among equal
 * keys) into o, cut by merge path into MERGE_K parts that are merged side
 * by side: each step of a branch-free merge waits on the one before, so
 * independent parts overlap. x[nx] and y[ny] must be readable. */
#define MERGE_K 4
static void merge2(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny, uint64_t *o)
{
	if (!nx || !ny || x[nx - 1] <= y[0]) { /* no overlap: one after the other */
		memcpy(o, x, nx * sizeof *o);
		memcpy(o + nx, y, ny * sizeof *o);
		return;
	}
	if (y[ny - 1] < x[0]) {
		memcpy(o, y, ny * sizeof *o);
		memcpy(o + ny, x, nx * sizeof *o);
		return;
	}
	size_t tot = nx + ny, i[MERGE_K + 1], j[MERGE_K + 1];
	for (unsigned k = 0; k <= MERGE_K; k++) {
		/* i: how many of the first d outputs come from x */
		size_t d = tot * k / MERGE_K, lo = d > ny ? d - ny : 0, hi = d < nx ? d : nx;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (x[mid] <= y[d - mid - 1])
				lo = mid + 1;
			else
				hi = mid;
		}
		i[k] = lo;
		j[k] = d - lo;
	}
	size_t ci[MERGE_K], cj[MERGE_K], co[MERGE_K], len[MERGE_K], common = SIZE_MAX;
	for (unsigned k = 0; k < MERGE_K; k++) {
		ci[k] = i[k];
		cj[k] = j[k];
		co[k] = i[k] + j[k];
		len[k] = i[k + 1] + j[k + 1] - co[k];
		common = len[k] < common ? len[k] : common;
	}
#define MERGE_STEP(k)                                                            \
	do {                                                                     \
		uint64_t a = x[ci[k]], c = y[cj[k]];                             \
		bool t = (cj[k] < j[k + 1]) & ((ci[k] >= i[k + 1]) | (c < a));   \
		o[co[k]++] = t ? c : a;                                          \
		ci[k] += !t;                                                     \
		cj[k] += t;                                                      \
	} while (0)
	for (size_t s = 0; s < common; s++) {
#pragma GCC unroll 4
		for (unsigned k = 0; k < MERGE_K; k++)
			MERGE_STEP(k);
	}
	for (unsigned k = 0; k < MERGE_K; k++)
		for (size_t s = common; s < len[k]; s++)
			MERGE_STEP(k);
#undef MERGE_STEP
}

/* first index in r[0..m) whose value is >= key */
static size_t lower(const uint64_t *r, size_t m, uint64_t key)
{
	size_t lo = 0;
	while (m > 0) {
		size_t h = m / 2;
		if (r[lo + h] < key) {
			lo += h + 1;
			m -= h + 1;
		} else
			m = h;
	}
	return lo;
}

static int lcp_blocks(const uint8_t *s, size_t n, unsigned b, const uint32_t *bsa, lcp_acc *acc)
{
	if (n < 128 || n >= UINT32_MAX || b < 1 || b > 8 || n % b)
		return 0;
	size_t nb = n / b, nf = n - 63, nw = (n + 63) / 64;
	uint64_t *pk = calloc(nw + 2, sizeof *pk), *g = NULL, *x = NULL, *y = NULL;
	uint8_t *blk = malloc(nb);
	uint32_t *ps = calloc(nf + 16, sizeof *ps), *grp = NULL; /* + 16: prefetch ahead */
	size_t (*bnd)[257] = calloc(b, sizeof *bnd); /* phase r's top byte c: from bnd[r][c] */
	size_t gcap = 0;
	int rc = -1;
	if (!pk || !blk || !ps || !bnd)
		goto out;
	/* the bits packed MSB first, 8 at a time (one multiply gathers the
	 * low bits of 8 bytes), checking on the way that they are 0/1 */
	uint64_t any = 0;
	size_t i8 = 0;
	for (; i8 + 8 <= n; i8 += 8) {
		uint64_t u;
		memcpy(&u, s + i8, 8);
		any |= u;
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
		u = __builtin_bswap64(u);
#endif
		pk[i8 / 64] |= (u * 0x0102040810204080ULL) >> 56 << (56 - i8 % 64);
	}
	for (; i8 < n; i8++) {
		any |= s[i8];
		pk[i8 / 64] |= (uint64_t)s[i8] << (63 - i8 % 64);
	}
	if (any & 0xfefefefefefefefeULL) {
		rc = 0; /* not 0/1 */
		goto out;
	}
	for (size_t i = 0; i < nb; i++)
		blk[i] = (uint8_t)(pk_win(pk, b * i) >> (64 - b));
	/* phase r holds the positions b * i + r <= n - 64, from off[r] */
	size_t off[9], fill[8][256];
	off[0] = 0;
	for (unsigned r = 0; r < b; r++) {
		size_t last = (n - 64 - r) / b; /* blocks 0..last */
		off[r + 1] = off[r] + last + 1;
		memset(fill[r], 0, sizeof fill[r]);
		if (r == 0) {
			fill[0][0] = off[0]; /* bsa's order as it is */
			continue;
		}
		unsigned mask = (1u << (b - r)) - 1;
		for (size_t i = 0; i <= last; i++)
			fill[r][blk[i] & mask]++;
		size_t sum = off[r];
		for (unsigned v = 0; v <= mask; v++) {
			size_t t = fill[r][v];
			fill[r][v] = sum;
			sum += t;
		}
	}
	size_t last0 = (n - 64) / b;
	for (size_t j = 0; j < nb; j++) {
		size_t i = bsa[j];
		if (i <= last0)
			ps[fill[0][0]++] = (uint32_t)(b * i);
		if (i == 0)
			continue;
		i--;
		unsigned v = blk[i];
		for (unsigned r = 1; r < b; r++)
			if (b * i + r <= n - 64)
				ps[fill[r][v & ((1u << (b - r)) - 1)]++] = (uint32_t)(b * i + r);
	}
	free(blk);
	blk = NULL;
	/* each phase's parts by top byte, by binary search in the sorted
	 * phase */
	size_t big = 0;
	for (unsigned r = 0; r < b; r++) {
		bnd[r][0] = off[r];
		for (unsigned c = 1; c <= 256; c++) {
			size_t lo = bnd[r][c - 1], hi = off[r + 1];
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (pk_win(pk, ps[mid]) >> 56 < c)
					lo = mid + 1;
				else
					hi = mid;
			}
			bnd[r][c] = lo;
		}
	}
	for (unsigned c = 0; c < 256; c++) {
		size_t m = 0;
		for (unsigned r = 0; r < b; r++)
			m += bnd[r][c + 1] - bnd[r][c];
		big = m > big ? m : big;
	}
	g = malloc((big + 1) * sizeof *g);
	x = malloc((big + 1) * sizeof *x);
	y = malloc((big + 1) * sizeof *y);
	if (!g || !x || !y)
		goto out;
	/* the suffixes shorter than 64 bits, sorted by their zero-padded
	 * windows, shorter first among equal ones */
	win64 sh[64];
	for (unsigned j = 0; j < 63; j++) {
		win64 w = {pk_win(pk, nf + j), 63 - j};
		unsigned t = j;
		while (t > 0 && (sh[t - 1].key > w.key || (sh[t - 1].key == w.key && sh[t - 1].len > w.len))) {
			sh[t] = sh[t - 1];
			t--;
		}
		sh[t] = w;
	}
	bitsuf bs = {pk, n, nw, 16 * (n / 64 + 1)};
	size_t gmem = 0, q = 0, nv = 0;
	uint32_t vb[1024]; /* LCPs on their way to acc */
	bool first = true;
	win64 prev = {0, 0};
	rc = 0;
	for (unsigned c = 0; c <= 256; c++) {
		/* the part of each phase with top byte c: windows, then merged */
		size_t rs[9], m = 0;
		const uint64_t *mg = g;
		if (c < 256) {
			for (unsigned r = 0; r < b; r++) {
				rs[r] = m;
				for (size_t j = bnd[r][c]; j < bnd[r][c + 1]; j++) {
					__builtin_prefetch(&pk[ps[j + 16] / 64]);
					g[m++] = pk_win(pk, ps[j]);
				}
			}
			rs[b] = m;
			size_t st[9], ns = b;
			memcpy(st, rs, sizeof st);
			const uint64_t *src = g;
			uint64_t *dst = x;
			while (ns > 1) {
				size_t k = 0;
				for (size_t t = 0; t + 1 < ns; t += 2) {
					merge2(src + st[t], st[t + 1] - st[t], src + st[t + 1], st[t + 2] - st[t + 1], dst + st[t]);
					st[k++] = st[t];
				}
				if (ns % 2) {
					memcpy(dst + st[ns - 1], src + st[ns - 1], (st[ns] - st[ns - 1]) * sizeof *dst);
					st[k++] = st[ns - 1];
				}
				st[k] = st[ns];
				ns = k;
				src = dst;
				dst = dst == x ? y : x;
			}
			mg = src;
		}
		/* into the LCPs, with the short suffixes (after the last part) */
		for (size_t j = 0; j < m || (c == 256 && q < 63);) {
			win64 cur;
			if (q < 63 && (j == m || sh[q].key <= mg[j]))
				cur = sh[q++];
			else
				cur = (win64){mg[j++], 64};
			if (first) {
				first = false;
				prev = cur;
				continue;
			}
			uint64_t xr = prev.key ^ cur.key;
			uint32_t l = xr ? (uint32_t)__builtin_clzll(xr) : 64;
			if (l == 64 && prev.len == 64 && cur.len == 64) {
				/* a run of one window (within this part): its
				 * suffixes from the phases' runs, sorted by the bits
				 * past 64, and their LCPs */
				uint64_t key = cur.key;
				while (j < m && mg[j] == key)
					j++;
				size_t gn = 0;
				for (unsigned r = 0; r < b; r++) {
					size_t a = rs[r] + lower(g + rs[r], rs[r + 1] - rs[r], key);
					for (; a < rs[r + 1] && g[a] == key; a++) {
						if (gn == gcap) {
							size_t ncap = gcap ? 2 * gcap : 64;
							uint32_t *t = realloc(grp, ncap * sizeof *t);
							if (!t) {
								rc = -1;
								goto out;
							}
							grp = t;
							gcap = ncap;
						}
						grp[gn++] = ps[bnd[r][c] + (a - rs[r])];
					}
				}
				gmem += gn;
				if (gmem > n / 64)
					goto out;
				qsort_r(grp, gn, sizeof *grp, bitsuf_cmp, &bs);
				lcp_acc_feed_n(acc, vb, nv);
				nv = 0;
				for (size_t t = 1; t < gn; t++) {
					int cmp;
					size_t lr = bitsuf_lcp(&bs, grp[t - 1], grp[t], 64, &cmp);
					lcp_acc_feed(acc, lr > UINT32_MAX ? UINT32_MAX : (uint32_t)lr);
				}
				if (!bs.budget)
					goto out;
				continue;
			}
			if (l > prev.len)
				l = prev.len;
			if (l > cur.len)
				l = cur.len;
			vb[nv++] = l;
			if (nv == sizeof vb / sizeof vb[0]) {
				lcp_acc_feed_n(acc, vb, nv);
				nv = 0;
			}
			prev = cur;
		}
	}
	lcp_acc_feed_n(acc, vb, nv);
	rc = 1;
out:
	free(pk);
	free(blk);
	free(ps);
	free(bnd);
	free(g);
	free(x);
	free(y);
	free(grp);
	return rc;
}

static long double upper(long double p, size_t n)
{
	long double pu = p + NG_ASSESS_ZL * sqrtl(p * (1 - p) / ((long double)n - 1));
	return pu > 1 ? 1 : pu;
}

/* A t-tuple or LRS result from its largest p-hat over n samples. */
static void set_result(ng_est_result *r, long double pmax, size_t n)
{
	long double pu = upper(pmax, n);
	r->run = r->ok = true;
	r->lp_hat = pmax;
	r->lp_u = pu;
	r->p_hat = (double)pmax;
	r->p_u = (double)pu;
	r->h = (double)-log2l(pu);
}

void ng_est_tuple_lrs(const uint8_t *s, size_t n, unsigned k, ng_est_result *tt,
		      ng_est_result *lr)
{
	ng_est_tuple_lrs_rep(s, n, k, tt, lr, 0, NULL, NULL, NULL);
}

static bool tuple_lrs(const uint8_t *s, size_t n, unsigned k, ng_est_result *tt, ng_est_result *lr,
		      unsigned cap, uint8_t *prev, uint8_t *next, uint32_t **sa_out, unsigned b,
		      const uint32_t *bsa);

bool ng_est_tuple_lrs_rep(const uint8_t *s, size_t n, unsigned k, ng_est_result *tt,
			  ng_est_result *lr, unsigned cap, uint8_t *prev, uint8_t *next, uint32_t **sa_out)
{
	return tuple_lrs(s, n, k, tt, lr, cap, prev, next, sa_out, 0, NULL);
}

void ng_est_tuple_lrs_blocks(const uint8_t *s, size_t n, unsigned b, const uint32_t *bsa,
			     ng_est_result *tt, ng_est_result *lr)
{
	tuple_lrs(s, n, 2, tt, lr, 0, NULL, NULL, NULL, b, bsa);
}

static bool tuple_lrs(const uint8_t *s, size_t n, unsigned k, ng_est_result *tt, ng_est_result *lr,
		      unsigned cap, uint8_t *prev, uint8_t *next, uint32_t **sa_out, unsigned b,
		      const uint32_t *bsa)
{
	if (sa_out)
		*sa_out = NULL;
	memset(tt, 0, sizeof *tt);
	memset(lr, 0, sizeof *lr);
	bool rep = false;
	if (n < 2 || n >= UINT32_MAX) {
		ng_est_fail(tt, "needs at least 2 samples");
		ng_est_fail(lr, "needs at least 2 samples");
		return rep;
	}
	lcp_acc acc;
	int fast = !lcp_acc_init(&acc) ? -1 : k == 2 && bsa ? lcp_blocks(s, n, b, bsa, &acc) : 0;
	if (fast == 0 && bsa) { /* given up part way: start again */
		lcp_acc_free(&acc);
		fast = !lcp_acc_init(&acc) ? -1 : 0;
	}
	if (fast == 0 && k == 2)
		fast = lcp_binary(s, n, &acc);
	if (fast == 0) {
		uint32_t *sa = malloc(n * sizeof *sa), *lcp = malloc(n * sizeof *lcp);
		fast = sa && lcp && ng_suffix_array(s, n, k, sa) && ng_lcp_array(s, n, sa, lcp) ? 1 : -1;
		for (size_t i = 1; fast == 1 && i < n; i++)
			lcp_acc_feed(&acc, lcp[i]);
		if (fast == 1 && prev && next)
			rep = repeat_from_sa(sa, lcp, n, cap, prev, next);
		if (fast == 1 && sa_out) {
			*sa_out = sa;
			sa = NULL;
		}
		free(sa);
		free(lcp);
	}
	if (fast == 1)
		lcp_acc_end(&acc);
	if (fast < 0 || acc.oom) {
		lcp_acc_free(&acc);
		ng_est_fail(tt, "out of memory");
		ng_est_fail(lr, "out of memory");
		return rep;
	}
	uint32_t vmax = acc.vmax;
	uint64_t *qlen = acc.qlen, *diff = acc.diff;
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
		ng_est_fail(tt, "no tuple occurs 35 times");
	} else {
		long double pmax = 0;
		for (unsigned i = 1; i <= t; i++) {
			long double p = powl((long double)qlen[i] / (long double)(n - i + 1), 1.0L / i);
			if (p > pmax)
				pmax = p;
		}
		set_result(tt, pmax, n);
	}
	unsigned u = t + 1;
	lr->u = u;
	lr->lrs_v = vmax;
	lr->t = t;
	if (vmax < u) {
		ng_est_fail(lr, "no repeated substring longer than the t-Tuple's t");
	} else {
		long double pmax = 0;
		uint64_t pairs = 0;
		for (uint32_t w = 1; w <= vmax; w++) {
			pairs += diff[w];
			if (w < u)
				continue;
			long double m = (long double)(n - w + 1);
			long double pw = (long double)pairs / (m * (m - 1) / 2);
			long double p = powl(pw, 1.0L / w);
			if (p > pmax)
				pmax = p;
		}
		set_result(lr, pmax, n);
	}
	lcp_acc_free(&acc);
	return rep;
}
