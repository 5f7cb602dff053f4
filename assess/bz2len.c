/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The compression statistic (SP 800-90B 5.1.11) without compressing: the
 * exact size in bytes of what libbz2 (bzip2 1.0.x, BZ2_bzBuffToBuffCompress)
 * writes for the samples as decimal numbers separated by single spaces,
 * computed from the format's parts:
 *
 *   stream    "BZh" + level (32 bits) ... end marker and CRC (80 bits),
 *             padded to a byte;
 *   block     marker, CRC, randomised bit, origin pointer (105 bits), the
 *             bytes-in-use bitmap, the Huffman tables and the coded
 *             move-to-front symbols of the block's Burrows-Wheeler transform.
 *
 * Only the lengths are computed, never the bits. The transform is the one
 * costly part, and the text's shape makes it cheap: every rotation of a
 * block is (a digit string p, then a space, then whole tokens), and p
 * followed by its space is prefix-free, so rotations sort by (p, the rank
 * of the token rotation after it). The block is read as a cyclic sequence
 * of tokens (the block's tail and head joined into one), the ~140,000
 * token rotations of a 500 kB block are sorted (64-bit keys of the tokens
 * in an order-preserving code, short for frequent tokens; LSD radix on the
 * keys' top bits, then the rest of the key, then prefix doubling for the
 * rare equal keys), and each
 * token's 2 to 4 characters are dealt into the buckets of their p (a
 * bucket whose characters are all the same needs no order and is filled
 * at once): that replaces sorting 500,000 character rotations. The transform of a block
 * is unique (equal rotations give equal characters), so any correct sort
 * gives libbz2's. The text never has four equal characters in
 * a row (at most three digits, then a space), so bzip2's initial run-length
 * step never fires; a block ends at the first run boundary at or past
 * 100000 * level - 19 characters, as libbz2 fills it (and takes the text's
 * last character too when only that one is left).
 *
 * The Huffman stage is libbz2's, step for step, because the size depends on
 * its choices: the tables' starting partition of the symbol frequencies,
 * four rounds of choosing a table per group of 50 symbols (the first
 * cheapest) and rebuilding each table's code lengths from what chose it
 * (a heap-built Huffman tree whose weights carry the subtree depth in their
 * low 8 bits; a tree deeper than 17 halves the weights and is built again).
 * tests/unit/test_bz2len.c and fuzz_assess check every size against libbz2
 * itself. */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "assess.h"
#include "sort.h"

#define GROUP 50        /* symbols per table choice */
#define ITERS 4         /* table refinement rounds */
#define MAXLEN 17       /* longest code libbz2 accepts from its builder */
#define MERGED 256      /* the token type of a block's wrapped token */
#define NKEYS 11        /* 0 = end of string, 1..10 = '0'..'9' */
#define RADIX 11        /* most bits a radix pass sorts */
#define TOP32 13        /* most bits a digit of radix_top32 sorts */
#define MARGIN 5        /* bits of key information past log2(count) */

/* a thread's buffers, grown as needed: per token (m) and per character (l) */
struct ng_bz2_ws {
	size_t cap_m, cap_l;
	uint32_t *sa, *isa, *aux, *aux2;
	uint16_t *tok;
	uint64_t *a64, *b64, *c64;
	uint8_t *bwt, *mtf;
	uint8_t (*hist)[16];
	uint8_t *sel;
	const atomic_bool *cancel;
	uint32_t cnt[2 << TOP32];   /* radix_u64's counts, or radix_top32's */
};
_Static_assert((2 << TOP32) >= (6 << RADIX), "radix_u64 counts up to six digits of RADIX bits");

/* the decimal text of each value: length, digits, digit mask, and the
 * order key of each suffix T[o..] */
typedef struct {
	uint8_t len;
	char d[3];
	uint16_t mask;
	uint32_t skey[4];
} tok_info;

static tok_info vt[256];
static uint32_t skey_sorted[256 * 4];
static unsigned nskey;
static uint16_t sidx[256][4];   /* index of vt[v].skey[o] in skey_sorted */
static uint16_t vorder[256];    /* values in string order */
static uint64_t spread[256];    /* byte k = bit k of the index */

/* order key of a digit string (at most 6 digits): base 11, missing
 * positions 0, so a proper prefix sorts first, as its space does */
static uint32_t str_key(const char *s, unsigned len)
{
	uint32_t k = 0;
	for (unsigned i = 0; i < len; i++)
		k = k * NKEYS + (uint32_t)(s[i] - '0' + 1);
	for (unsigned i = len; i < 6; i++)
		k *= NKEYS;
	return k;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int cmp_vorder(const void *a, const void *b)
{
	uint32_t x = vt[*(const uint16_t *)a].skey[0], y = vt[*(const uint16_t *)b].skey[0];
	return (x > y) - (x < y);
}

static unsigned lower_bound(const uint32_t *a, unsigned n, uint32_t k)
{
	unsigned lo = 0, hi = n;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (a[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void tables_init(void)
{
	unsigned nk = 0;
	for (unsigned v = 0; v < 256; v++) {
		tok_info *t = &vt[v];
		char buf[4];
		unsigned l = v >= 100 ? 3 : v >= 10 ? 2 : 1, x = v;
		for (unsigned i = l; i-- > 0; x /= 10)
			buf[i] = (char)('0' + x % 10);
		t->len = (uint8_t)l;
		memcpy(t->d, buf, l);
		t->mask = 0;
		for (unsigned i = 0; i < l; i++)
			t->mask = (uint16_t)(t->mask | 1u << (buf[i] - '0'));
		for (unsigned o = 0; o <= l; o++)
			skey_sorted[nk++] = t->skey[o] = str_key(buf + o, l - o);
		vorder[v] = (uint16_t)v;
	}
	qsort(skey_sorted, nk, sizeof skey_sorted[0], cmp_u32);
	unsigned u = 0;
	for (unsigned i = 0; i < nk; i++)
		if (u == 0 || skey_sorted[u - 1] != skey_sorted[i])
			skey_sorted[u++] = skey_sorted[i];
	for (unsigned v = 0; v < 256; v++)
		for (unsigned o = 0; o <= vt[v].len; o++)
			sidx[v][o] = (uint16_t)lower_bound(skey_sorted, u, vt[v].skey[o]);
	qsort(vorder, 256, sizeof vorder[0], cmp_vorder);
	for (unsigned v = 0; v < 256; v++)
		for (unsigned k = 0; k < 8; k++)
			spread[v] |= (uint64_t)(v >> k & 1) << (8 * k);
	nskey = u;
}

ng_bz2_ws *ng_bz2_ws_new(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, tables_init);
	return calloc(1, sizeof(ng_bz2_ws));
}

void ng_bz2_ws_cancel_on(ng_bz2_ws *w, const atomic_bool *flag)
{
	w->cancel = flag;
}

/* the per-token and the per-character buffers */
static void free_m(ng_bz2_ws *w)
{
	free(w->sa);
	free(w->isa);
	free(w->aux);
	free(w->aux2);
	free(w->tok);
	free(w->a64);
	free(w->b64);
	free(w->c64);
	w->sa = w->isa = w->aux = w->aux2 = NULL;
	w->tok = NULL;
	w->a64 = w->b64 = w->c64 = NULL;
	w->cap_m = 0;
}

static void free_l(ng_bz2_ws *w)
{
	free(w->bwt);
	free(w->mtf);
	free(w->hist);
	free(w->sel);
	w->bwt = w->mtf = w->sel = NULL;
	w->hist = NULL;
	w->cap_l = 0;
}

void ng_bz2_ws_free(ng_bz2_ws *w)
{
	if (!w)
		return;
	free_m(w);
	free_l(w);
	free(w);
}

static bool ws_reserve(ng_bz2_ws *w, size_t m, size_t l)
{
	if (m > w->cap_m) {
		m += m / 4;
		free_m(w);
		w->sa = malloc(m * sizeof *w->sa);
		w->isa = malloc(m * sizeof *w->isa);
		w->aux = malloc(m * sizeof *w->aux);
		w->aux2 = malloc(m * sizeof *w->aux2);
		w->tok = malloc((m + 64) * sizeof *w->tok);
		w->a64 = malloc(m * sizeof *w->a64);
		w->b64 = malloc((m + 64) * sizeof *w->b64);
		w->c64 = malloc(m * sizeof *w->c64);
		if (!w->sa || !w->isa || !w->aux || !w->aux2 || !w->tok || !w->a64 || !w->b64 || !w->c64) {
			free_m(w);
			return false;
		}
		w->cap_m = m;
	}
	if (l > w->cap_l) {
		l += l / 4;
		size_t g = l / GROUP + 2;
		free_l(w);
		w->bwt = malloc(l + 64);
		w->mtf = malloc(l + 64);
		w->hist = malloc(g * sizeof *w->hist);
		w->sel = malloc(g);
		if (!w->bwt || !w->mtf || !w->hist || !w->sel) {
			free_l(w);
			return false;
		}
		w->cap_l = l;
	}
	return true;
}

/* ---- sorting the token rotations ---- */

/* u64 entries: a sort key in the high half, an index in the low half */
static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

static void sort_u64(uint64_t *a, size_t n)
{
	if (n <= 32)
		ng_insertion_sort_u64(a, n);
	else
		qsort(a, n, sizeof *a, cmp_u64);
}

/* An order-preserving prefix code for the token ranks 0..nr-1 (weights
 * wt[], each at least 1): the ranks lo..hi-1 split in two where the weights
 * balance best, the lower part's codes continue with a 0 bit, the upper's
 * with a 1, and each part splits again. Codes in rank order are in order as
 * bit strings, so strings of codes compare as the token sequences do, and
 * frequent tokens get short codes: a 64-bit key holds more tokens. False
 * when a code would be longer than MAXCODE bits. */
#define MAXCODE 24

static bool split_code(const uint64_t *cum, unsigned lo, unsigned hi, uint32_t c, unsigned d,
		       uint32_t *code, uint8_t *len)
{
	if (hi - lo == 1) {
		code[lo] = c;
		len[lo] = (uint8_t)d;
		return true;
	}
	if (d == MAXCODE)
		return false;
	/* the split s (lower part lo..s-1) with 2 cum[s] nearest cum[lo] + cum[hi] */
	uint64_t mid2 = cum[lo] + cum[hi];
	unsigned s = lo + 1;
	while (s + 1 < hi && 2 * cum[s + 1] <= mid2)
		s++;
	if (s + 1 < hi && 2 * cum[s] < mid2 && 2 * cum[s + 1] - mid2 < mid2 - 2 * cum[s])
		s++;
	return split_code(cum, lo, s, c << 1, d + 1, code, len) &&
	       split_code(cum, s, hi, c << 1 | 1, d + 1, code, len);
}

/* LSD radix sort of a[0..n) on bits lo..hi-1, stable, at most 11 bits a
 * pass (a digit with one value in every entry is skipped): returns a or
 * t, whichever holds the result. */
static uint64_t *radix_u64(uint64_t *a, uint64_t *t, size_t n, unsigned lo, unsigned hi, uint32_t *c)
{
	unsigned np = (hi - lo + RADIX - 1) / RADIX, wd = (hi - lo + np - 1) / np;
	uint32_t msk = (1u << wd) - 1;
	memset(c, 0, (np << RADIX) * sizeof *c);
	for (size_t i = 0; i < n; i++)
		for (unsigned p = 0; p < np; p++)
			c[(p << RADIX) + (a[i] >> (lo + wd * p) & msk)]++;
	for (unsigned p = 0; p < np; p++) {
		uint32_t *cp = c + (p << RADIX), sum = 0;
		unsigned sh = lo + wd * p;
		if (cp[a[0] >> sh & msk] == n)
			continue;
		for (unsigned d = 0; d <= msk; d++) {
			uint32_t x = cp[d];
			cp[d] = sum;
			sum += x;
		}
		for (size_t i = 0; i < n; i++)
			t[cp[a[i] >> sh & msk]++] = a[i];
		uint64_t *x = a;
		a = t;
		t = x;
	}
	return a;
}

/* The same on bits lo..63 (2 to 2 * TOP32 of them) in two passes, with
 * 32-bit entries (half the traffic): the low digit's pass carries the
 * high digit and j (the key's low ib bits), the high digit's pass reads
 * the low digit's buckets in order and writes (low digit << ib | j).
 * out[] is in order of the bits. Its digits may be wider than RADIX
 * bits: 23 to 26 bits (binary data with 30 % 1s takes 26) in two passes
 * instead of radix_u64's three on 64-bit entries. */
static void radix_top32(const uint64_t *a, uint32_t *t, uint32_t *out, size_t n, unsigned lo, unsigned ib,
			uint32_t *c)
{
	unsigned w1 = (64 - lo) / 2, sh2 = lo + w1, n2 = 1u << (64 - sh2);
	uint32_t m1 = (1u << w1) - 1, jm = (1u << ib) - 1, *c1 = c, *c2 = c + n2;
	memset(c, 0, 2 * n2 * sizeof *c);
	for (size_t i = 0; i < n; i++) {
		c1[a[i] >> lo & m1]++;
		c2[a[i] >> sh2]++;
	}
	for (uint32_t d = 0, s1 = 0, s2 = 0; d < n2; d++) {
		uint32_t x = c1[d];
		c1[d] = s1;
		s1 += d <= m1 ? x : 0;
		x = c2[d];
		c2[d] = s2;
		s2 += x;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t k = a[i];
		t[c1[k >> lo & m1]++] = (uint32_t)(k >> sh2) << ib | (uint32_t)(k & jm);
	}
	size_t i = 0;
	for (uint32_t d = 0; d <= m1; d++)
		for (uint32_t e = c1[d], dd = d << ib; i < e; i++) {
			uint32_t x = t[i];
			out[c2[x >> ib]++] = dd | (x & jm);
		}
}

/* Bit i of eqb[i / 64]: sa[i] and sa[i + 1] (i + 1 < m) alike above their
 * low ib bits; the bits from m - 1 on are clear. */
static void eq_bits_portable(const uint32_t *sa, size_t m, unsigned ib, uint64_t *eqb)
{
	for (size_t wi = 0; wi < (m + 63) / 64; wi++) {
		size_t b = wi * 64, e = m - 1 - b < 64 ? m - 1 - b : 64;
		uint64_t bits = 0;
		for (size_t k = 0; k < e; k++)
			bits |= (uint64_t)((sa[b + k] ^ sa[b + k + 1]) >> ib == 0) << k;
		eqb[wi] = bits;
	}
}

#if defined(__SSE2__)
#include <emmintrin.h>
/* the same four entries at a time, the last word as above */
static void eq_bits_sse2(const uint32_t *sa, size_t m, unsigned ib, uint64_t *eqb)
{
	__m128i sh = _mm_cvtsi32_si128((int)ib);
	size_t wi = 0;
	for (; wi * 64 + 64 < m; wi++) {
		const uint32_t *x = sa + wi * 64;
		uint64_t bits = 0;
		for (unsigned q = 0; q < 16; q++) {
			__m128i u = _mm_srl_epi32(_mm_loadu_si128((const __m128i *)(x + 4 * q)), sh);
			__m128i v = _mm_srl_epi32(_mm_loadu_si128((const __m128i *)(x + 4 * q + 1)), sh);
			bits |= (uint64_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(u, v))) << (4 * q);
		}
		eqb[wi] = bits;
	}
	if (wi * 64 < m)
		eq_bits_portable(sa + wi * 64, m - wi * 64, ib, eqb + wi);
}
#endif

static void eq_bits(const uint32_t *sa, size_t m, unsigned ib, uint64_t *eqb)
{
#if defined(__SSE2__)
	if (!ng_bz2_portable) {
		eq_bits_sse2(sa, m, ib, eqb);
		return;
	}
#endif
	eq_bits_portable(sa, m, ib, eqb);
}

/* Entries e[0..n) (key | j) equal in the radix-sorted bits, at sorted
 * positions base..: ordered by the rest of the key (bits ib..lo), then
 * by the key's low ib bits (lowk[j]); sets sa[] there and appends the
 * ranges of equal keys to gend (ngr entries so far): the new ngr. tmp
 * holds n entries. */
static size_t settle(uint64_t *e, uint64_t *tmp, size_t n, size_t base, unsigned lo, unsigned ib,
		     const uint32_t *lowk, uint32_t *sa, uint32_t *gend, size_t ngr, uint32_t *cnt)
{
	uint64_t jm = ((uint64_t)1 << ib) - 1;
	if (lo > ib) {
		if (n < 4096) {
			sort_u64(e, n);
		} else {
			uint64_t *x = radix_u64(e, tmp, n, ib, lo, cnt);
			if (x != e)
				memcpy(e, x, n * sizeof *e);
		}
	}
	/* equal tops: order by the key's low ib bits; equal keys open
	 * a group */
	for (size_t f = 0; f < n;) {
		size_t g = f + 1;
		while (g < n && (e[g] & ~jm) == (e[f] & ~jm))
			g++;
		if (g - f == 1) {
			sa[base + f] = (uint32_t)(e[f] & jm);
			f = g;
			continue;
		}
		for (size_t x = f; x < g; x++) {
			uint32_t jj = (uint32_t)(e[x] & jm);
			e[x] = (uint64_t)lowk[jj] << 32 | jj;
		}
		sort_u64(e + f, g - f);
		for (size_t x = f; x < g;) {
			size_t y = x + 1;
			while (y < g && e[y] >> 32 == e[x] >> 32)
				y++;
			if (y - x > 1) {
				gend[ngr++] = (uint32_t)(base + x);
				gend[ngr++] = (uint32_t)(base + y);
			}
			x = y;
		}
		for (size_t x = f; x < g; x++)
			sa[base + x] = (uint32_t)e[x];
		f = g;
	}
	return ngr;
}

/* The tokens' codes for the ranks rr[v] (0..nr-1) of the token types v
 * with wt[v] > 0 (MERGED included), from the ranks' weights (split_code;
 * fixed-length codes when the split would make one too long): tc[v] the
 * code on top of a word, tl[v] its bits. Returns the key bits a bit of
 * the tokens' entropy takes (the codes' mean length over the entropy);
 * *maxlen: the longest code. */
static double token_codes(const uint32_t *wt, const uint16_t *rr, unsigned nr, uint64_t *tc, uint8_t *tl,
			  unsigned *maxlen)
{
	uint64_t cum[258] = {0};
	uint32_t code[257];
	uint8_t len[257];
	for (unsigned v = 0; v <= MERGED; v++)
		if (wt[v])
			cum[rr[v] + 1] += wt[v];
	for (unsigned r = 0; r < nr; r++)
		cum[r + 1] += cum[r];
	if (nr == 1) {
		code[0] = 0;
		len[0] = 1;
	} else if (!split_code(cum, 0, nr, 0, 0, code, len)) {
		unsigned b = 1;
		while ((1u << b) < nr)
			b++;
		for (unsigned r = 0; r < nr; r++) {
			code[r] = r;
			len[r] = (uint8_t)b;
		}
	}
	double hbits = 0, lbits = 0, tot = (double)cum[nr];
	*maxlen = 0;
	for (unsigned r = 0; r < nr; r++) {
		double p = (double)(cum[r + 1] - cum[r]) / tot;
		hbits -= p * log2(p);
		lbits += p * len[r];
		*maxlen = len[r] > *maxlen ? len[r] : *maxlen;
	}
	for (unsigned v = 0; v <= MERGED; v++)
		if (wt[v]) {
			tl[v] = len[rr[v]];
			tc[v] = (uint64_t)code[rr[v]] << (64 - tl[v]);
		}
	return lbits / (hbits > 0.01 ? hbits : 0.01);
}

/* The rotations in the order of their keys, want bits of them by radix:
 * w->sa, with the ranges of equal keys in w->aux (returns their count
 * times two). The key of j is the first 64 bits of the codes tc, tl of
 * tok[j..], read on past m - 1 into tok[m..]; when MERGED's code has 0
 * bits, its tc is a whole key and the keys before it end in it. */
static size_t sort_keys(ng_bz2_ws *w, size_t m, const uint64_t *tc, const uint8_t *tl, double want)
{
	const uint16_t *tok = w->tok;
	uint64_t *a = w->a64, *t = w->b64;
	/* a[j]: the key of j (the codes of tok[j..], first in the top bits)
	 * above the ib bits that hold j, then j */
	unsigned ib = 1;
	while (ib < 32 && ((size_t)1 << ib) < m)
		ib++;
	uint64_t jm = ((uint64_t)1 << ib) - 1;
	unsigned lo = want < 64 - ib ? 64 - (unsigned)want : ib;
	uint32_t *lowk = w->isa;   /* the key's low ib bits, until the doubling */
	{
		/* from the end back: the key of j is the code of tok[j] (tc,
		 * on top; tl bits) followed by the key of j + 1; 64 tokens
		 * on from m - 1 (past the start again) fill every bit */
		uint64_t k = 0;
		if (tl[tok[m - 1]])
			for (size_t j = m + 64; j-- > m;)
				k = tc[tok[j]] | k >> tl[tok[j]];
		for (size_t j = m; j-- > 0;) {
			k = tc[tok[j]] | k >> tl[tok[j]];
			a[j] = (k & ~jm) | j;
			lowk[j] = (uint32_t)(k & jm);
		}
	}
	uint32_t *sa = w->sa, *gend = w->aux;
	size_t ngr = 0;
	if (lo <= 62 && 64 - lo <= 2 * TOP32 && ib + (64 - lo + 1) / 2 <= 32) {
		/* sa[] holds (low digit << ib | j) until a run of equal
		 * digits is settled; the runs' entries are read back from
		 * the keys */
		uint32_t *run = w->aux2;
		radix_top32(a, w->aux2, sa, m, lo, ib, w->cnt);
		/* the runs of equal top bits from a bitmap (eqb bit i: sa[i]
		 * and sa[i + 1] alike), so the scan does not branch per entry;
		 * a run may straddle two high digits' buckets, which does no
		 * harm (settle orders it by whole keys). The runs' keys are
		 * read first, all their loads in flight at once, then their
		 * order */
		uint64_t *eqb = w->c64;
		size_t nw = (m + 63) / 64, nrun = 0;
		eq_bits(sa, m, ib, eqb);
		for (size_t i = 0; i < m;) {
			size_t wi = i / 64;
			uint64_t bits = eqb[wi] & ~0ull << (i % 64);
			while (!bits && ++wi < nw)
				bits = eqb[wi];
			size_t st = bits ? wi * 64 + (size_t)__builtin_ctzll(bits) : m;
			for (; i < st; i++)
				sa[i] &= (uint32_t)jm;
			if (st == m)
				break;
			/* the run ends at the first clear bit (bit m - 1 is) */
			uint64_t z = ~eqb[wi] & ~0ull << (st % 64);
			while (!z)
				z = ~eqb[++wi];
			size_t g = wi * 64 + (size_t)__builtin_ctzll(z) + 1;
			for (size_t x = st; x < g; x++)
				t[x] = a[sa[x] & jm];
			run[nrun++] = (uint32_t)st;
			run[nrun++] = (uint32_t)g;
			i = g;
		}
		for (size_t k = 0; k < nrun; k += 2)
			ngr = settle(t + run[k], w->c64, run[k + 1] - run[k], run[k], lo, ib, lowk, sa, gend, ngr,
				     w->cnt);
	} else {
		uint64_t *r = radix_u64(a, t, m, lo, 64, w->cnt);
		t = r == a ? t : a;
		a = r;
		for (size_t i = 0; i < m;) {
			/* entries equal in the sorted bits: by the rest of the key */
			size_t e = i + 1;
			while (e < m && (a[e] ^ a[i]) >> lo == 0)
				e++;
			if (e - i == 1) {
				sa[i] = (uint32_t)(a[i] & jm);
				i = e;
				continue;
			}
			ngr = settle(a + i, t + i, e - i, i, lo, ib, lowk, sa, gend, ngr, w->cnt);
			i = e;
		}
	}
	return ngr;
}

/* the rotations j[0..n) that all reach MERGED (at m - 1) within 64
 * tokens, in order: by their tokens' ranks, which differ at the latest
 * where one of the two reaches MERGED */
static void order_near_end(const uint16_t *tok, const uint16_t *rk, uint32_t *j, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		uint32_t x = j[i], y = i;
		for (; y > 0; y--) {
			uint32_t p = j[y - 1], o = 0;
			while (rk[tok[p + o]] == rk[tok[x + o]])
				o++;
			if (rk[tok[p + o]] < rk[tok[x + o]])
				break;
			j[y] = p;
		}
		j[y] = x;
	}
}

/* Suffix order of the cyclic token sequence tok[0..m) (continued to
 * tok[m + 63]) with ranks rk[] (nr of them; the values with occ[v] > 0
 * and MERGED): w->sa. Rotations equal over all m tokens stay in any order
 * (their characters, and so the transform, are the same).
 *
 * Each rotation's key is the first 64 bits of its tokens' codes
 * (split_code). The radix sort orders the keys' top bits, as many as
 * make most keys distinct for the tokens' entropy (when two passes do,
 * on 32-bit entries: radix_top32); entries equal there are ordered by the
 * rest of the key, and entries with equal keys by prefix doubling.
 *
 * MERGED is at m - 1 only, and when no real token has its string, two
 * rotations differ at the latest where one of them reaches it: it needs
 * no code of its own. The codes are then the real tokens' (binary data:
 * a bit each, where MERGED's own code makes one of them 2 bits), and a
 * key that reaches m - 1 reads from there the code of the real token just
 * below MERGED, then 1 bits to its end (0 bits, when MERGED is below
 * every token). Where the other key has a real token u at that offset,
 * u above MERGED has a greater code, u below a smaller one or (the token
 * just below) the same one followed by bits that are not all 1s; so the
 * keys are in the rotations' order unless they are equal (two such keys
 * too, at the offset of the one that reaches m - 1 first). Keys of these
 * rotations alone are often equal (the lowest token's code is all 0
 * bits, so with MERGED below every token a run of it before m - 1 gives
 * equal keys; the highest's all 1 bits, likewise above every token):
 * such a group is put in order by the tokens themselves, and then each
 * of these rotations' place is its rank for the doubling. One equal to
 * another rotation's key leaves the order unknown: the block is sorted
 * again with MERGED's own code, as it is at once for a short block
 * (m < 128), a single real token or a MERGED with a real token's
 * string. */
static void sort_rotations(ng_bz2_ws *w, size_t m, const uint16_t *rk, unsigned nr, const uint32_t *occ)
{
	uint32_t wt[257];
	uint16_t rr[257];
	uint64_t tc[257] = {0};
	uint8_t tl[257] = {0};
	unsigned maxlen, mr = rk[MERGED], below = MERGED;
	bool alone = true;
	for (unsigned v = 0; v < 256; v++) {
		wt[v] = occ[v];
		if (!occ[v])
			continue;
		alone &= rk[v] != mr;
		below = rk[v] + 1u == mr ? v : below;
		rr[v] = (uint16_t)(rk[v] - (rk[v] > mr));
	}
	/* the bits the radix sort takes: log2(m) + 5 bits of information,
	 * at the code's bits per bit of entropy */
	double lg = log2((double)m) + MARGIN;
	size_t ngr = 0;
	bool sorted = false;
	if (alone && m >= 128 && nr >= 3) {
		wt[MERGED] = 0;
		rr[MERGED] = 0;
		double bits = token_codes(wt, rr, nr - 1, tc, tl, &maxlen);
		tc[MERGED] = below < MERGED ? tc[below] | ~0ull >> tl[below] : 0;
		tl[MERGED] = 0;
		ngr = sort_keys(w, m, tc, tl, lg * bits);
		/* the rotations whose keys reach m - 1: js.. */
		size_t js = m - 1;
		for (unsigned used = 0; (used += tl[w->tok[js - 1]]) < 64;)
			js--;
		/* a group of equal keys that holds only such rotations is
		 * put in order here, one that holds some of them is not */
		uint32_t *sa = w->sa, *gend = w->aux;
		size_t ng = 0;
		sorted = true;
		for (size_t g = 0; g < ngr && sorted; g += 2) {
			uint32_t s = gend[g], e = gend[g + 1], sp = 0;
			for (uint32_t x = s; x < e; x++)
				sp += sa[x] >= js;
			if (sp == e - s) {
				order_near_end(w->tok, rk, sa + s, sp);
			} else if (sp == 0) {
				gend[ng++] = s;
				gend[ng++] = e;
			} else {
				sorted = false;
			}
		}
		ngr = ng;
	}
	if (!sorted) {
		wt[MERGED] = 1;
		for (unsigned v = 0; v <= MERGED; v++)
			rr[v] = wt[v] ? rk[v] : 0;
		double bits = token_codes(wt, rr, nr, tc, tl, &maxlen);
		ngr = sort_keys(w, m, tc, tl, lg * bits);
	}
	uint32_t *sa = w->sa, *isa = w->isa, *gend = w->aux;
	uint64_t *q = w->b64;   /* (sort key << 32 | index) from here on */
	/* equal keys hold at least the first 64 / maxlen tokens alike */
	size_t h0 = 64 / maxlen;
	if (ngr == 0 || h0 >= m)
		return;
	/* prefix doubling on the groups of equal keys: rank = the group's
	 * first position; a group is split by the rank h tokens on */
	for (size_t i = 0; i < m; i++)
		isa[sa[i]] = (uint32_t)i;
	for (size_t g = 0; g < ngr; g += 2)
		for (uint32_t x = gend[g]; x < gend[g + 1]; x++)
			isa[sa[x]] = gend[g];
	uint32_t *nend = w->aux2;
	for (size_t h = h0; ngr > 0 && h < m; h *= 2) {
		/* every open group's keys from the ranks as they stand */
		for (size_t g = 0; g < ngr; g += 2)
			for (uint32_t k = gend[g]; k < gend[g + 1]; k++)
				q[k] = (uint64_t)isa[sa[k] + h < m ? sa[k] + h : sa[k] + h - m] << 32 | sa[k];
		size_t nn = 0;
		for (size_t g = 0; g < ngr; g += 2) {
			uint32_t s = gend[g], e = gend[g + 1];
			sort_u64(q + s, e - s);
			for (uint32_t k = s; k < e;) {
				uint32_t f = k + 1;
				while (f < e && q[f] >> 32 == q[k] >> 32)
					f++;
				for (uint32_t x = k; x < f; x++) {
					sa[x] = (uint32_t)q[x];
					isa[(uint32_t)q[x]] = k;
				}
				if (f - k > 1) {
					nend[nn++] = k;
					nend[nn++] = f;
				}
				k = f;
			}
		}
		uint32_t *sw = gend;
		gend = nend;
		nend = sw;
		ngr = nn;
	}
}

/* ---- the Huffman stage: libbz2's, for lengths only ---- */

static void heap_up(int *heap, const uint32_t *w, int z)
{
	int t = heap[z];
	while (w[t] < w[heap[z >> 1]]) {
		heap[z] = heap[z >> 1];
		z >>= 1;
	}
	heap[z] = t;
}

static void heap_down(int *heap, const uint32_t *w, int nh, int z)
{
	int t = heap[z];
	for (;;) {
		int y = z << 1;
		if (y > nh)
			break;
		if (y < nh && w[heap[y + 1]] < w[heap[y]])
			y++;
		if (w[t] < w[heap[y]])
			break;
		heap[z] = heap[y];
		z = y;
	}
	heap[z] = t;
}

/* Code lengths for n symbols (n <= 16) from their frequencies: a heap of
 * leaves 1..n, weights freq << 8 (0 counts as 1) with the subtree depth in
 * the low byte, the two lightest joined until one is left; deeper than
 * maxlen: every leaf weight w becomes 1 + w / 2 and the tree is built
 * again. */
static void code_lengths(uint8_t *len, const uint32_t *freq, int n, int maxlen)
{
	uint32_t w[2 * 16 + 2];
	int par[2 * 16 + 2], heap[16 + 2];
	for (int i = 0; i < n; i++)
		w[i + 1] = (freq[i] ? freq[i] : 1) << 8;
	for (;;) {
		int nodes = n, nh = 0;
		heap[0] = 0;
		w[0] = 0;
		par[0] = -2;
		for (int i = 1; i <= n; i++) {
			par[i] = -1;
			heap[++nh] = i;
			heap_up(heap, w, nh);
		}
		while (nh > 1) {
			int a = heap[1];
			heap[1] = heap[nh--];
			heap_down(heap, w, nh, 1);
			int b = heap[1];
			heap[1] = heap[nh--];
			heap_down(heap, w, nh, 1);
			nodes++;
			par[a] = par[b] = nodes;
			uint32_t da = w[a] & 255, db = w[b] & 255;
			w[nodes] = ((w[a] & ~255u) + (w[b] & ~255u)) | (1 + (da > db ? da : db));
			par[nodes] = -1;
			heap[++nh] = nodes;
			heap_up(heap, w, nh);
		}
		bool too_long = false;
		for (int i = 1; i <= n; i++) {
			int d = 0;
			for (int k = i; par[k] >= 0; k = par[k])
				d++;
			len[i - 1] = (uint8_t)d;
			too_long |= d > maxlen;
		}
		if (!too_long)
			return;
		for (int i = 1; i <= n; i++)
			w[i] = (1 + (w[i] >> 8) / 2) << 8;
	}
}

/* One round of table choice: each group of 50 symbols takes the first
 * table (t < ngr) that codes it in the fewest bits; sel[g] says which, and
 * rf[t] sums the symbol counts of the groups that took table t. */
static void choose_portable(const uint8_t (*hist)[16], size_t ng, const uint8_t len[6][16], int ngr,
			    int alpha, uint8_t *sel, uint32_t rf[6][16])
{
	memset(rf, 0, 6 * sizeof rf[0]);
	for (size_t g = 0; g < ng; g++) {
		const uint8_t *h = hist[g];
		unsigned best = 0;
		int bt = 0;
		for (int t = 0; t < ngr; t++) {
			unsigned c = 0;
			for (int v = 0; v < alpha; v++)
				c += (unsigned)h[v] * len[t][v];
			if (t == 0 || c < best) {
				best = c;
				bt = t;
			}
		}
		sel[g] = (uint8_t)bt;
		for (int v = 0; v < 16; v++)
			rf[bt][v] += h[v];
	}
}

#if defined(__SSE2__)
#include <emmintrin.h>
/* the same, the six costs of a group at once: lengths as 16-bit lanes,
 * multiply-add with the counts, the sums transposed into one vector, the
 * first smallest found by compare and mask. Unused tables cost 255 a
 * symbol, more than any real one (at most 17); costs stay below 2^15. */
static void choose_sse2(const uint8_t (*hist)[16], size_t ng, const uint8_t len[6][16], int ngr,
			int alpha, uint8_t *sel, uint32_t rf[6][16])
{
	__m128i lt[6][2], acc[6][4], z = _mm_setzero_si128();
	for (int t = 0; t < 6; t++) {
		uint16_t l[16];
		for (int v = 0; v < 16; v++)
			l[v] = (uint16_t)(t >= ngr ? 255 : v < alpha ? len[t][v] : 0);
		lt[t][0] = _mm_loadu_si128((const __m128i *)l);
		lt[t][1] = _mm_loadu_si128((const __m128i *)(l + 8));
		for (int k = 0; k < 4; k++)
			acc[t][k] = z;
	}
	for (size_t g = 0; g < ng; g++) {
		__m128i h = _mm_loadu_si128((const __m128i *)hist[g]);
		__m128i hl = _mm_unpacklo_epi8(h, z), hh = _mm_unpackhi_epi8(h, z), a[6];
		for (int t = 0; t < 6; t++)
			a[t] = _mm_add_epi32(_mm_madd_epi16(hl, lt[t][0]), _mm_madd_epi16(hh, lt[t][1]));
		__m128i s01 = _mm_add_epi32(_mm_unpacklo_epi32(a[0], a[1]), _mm_unpackhi_epi32(a[0], a[1]));
		__m128i s23 = _mm_add_epi32(_mm_unpacklo_epi32(a[2], a[3]), _mm_unpackhi_epi32(a[2], a[3]));
		__m128i s45 = _mm_add_epi32(_mm_unpacklo_epi32(a[4], a[5]), _mm_unpackhi_epi32(a[4], a[5]));
		__m128i c03 = _mm_add_epi32(_mm_unpacklo_epi64(s01, s23), _mm_unpackhi_epi64(s01, s23));
		__m128i c45 = _mm_add_epi32(_mm_unpacklo_epi64(s45, s45), _mm_unpackhi_epi64(s45, s45));
		__m128i c = _mm_packs_epi32(c03, c45);   /* c0..c5, c4, c5 */
		__m128i m = _mm_min_epi16(c, _mm_shuffle_epi32(c, 0x4e));
		m = _mm_min_epi16(m, _mm_shuffle_epi32(m, 0xb1));
		m = _mm_min_epi16(m, _mm_shufflehi_epi16(_mm_shufflelo_epi16(m, 0xb1), 0xb1));
		int bt = __builtin_ctz((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi16(c, m))) / 2;
		sel[g] = (uint8_t)bt;
		__m128i *r = acc[bt];
		r[0] = _mm_add_epi32(r[0], _mm_unpacklo_epi16(hl, z));
		r[1] = _mm_add_epi32(r[1], _mm_unpackhi_epi16(hl, z));
		r[2] = _mm_add_epi32(r[2], _mm_unpacklo_epi16(hh, z));
		r[3] = _mm_add_epi32(r[3], _mm_unpackhi_epi16(hh, z));
	}
	for (int t = 0; t < 6; t++)
		for (int k = 0; k < 4; k++)
			_mm_storeu_si128((__m128i *)(rf[t] + 4 * k), acc[t][k]);
}
#endif

bool ng_bz2_portable;

static void choose_tables(const uint8_t (*hist)[16], size_t ng, const uint8_t len[6][16], int ngr,
			  int alpha, uint8_t *sel, uint32_t rf[6][16])
{
#if defined(__SSE2__)
	if (!ng_bz2_portable) {
		choose_sse2(hist, ng, len, ngr, alpha, sel, rf);
		return;
	}
#endif
	choose_portable(hist, ng, len, ngr, alpha, sel, rf);
}

/* The bits of one block after its 105-bit header: the bytes-in-use map
 * (ranges: how many of its 16-byte ranges are in use), the tables, the
 * selectors and the coded symbols, from the move-to-front output's counts
 * per group of 50 (hist[g][s], g < ng) and in all (freq). */
static uint64_t huffman_bits(const uint8_t (*hist)[16], size_t ng, const uint32_t *freq,
			     size_t nmtf, int alpha, unsigned ranges, uint8_t *sel)
{
	int ngr = nmtf < 200 ? 2 : nmtf < 600 ? 3 : nmtf < 1200 ? 4 : nmtf < 2400 ? 5 : 6;
	uint8_t len[6][16];
	/* the starting tables: table p-1 cheap (0) on a run of symbols
	 * holding about its share of what is left, dear (15) elsewhere */
	{
		int gs = 0;
		size_t rem = nmtf;
		for (int part = ngr; part > 0; part--) {
			size_t target = rem / (size_t)part, a = 0;
			int ge = gs - 1;
			while (a < target && ge < alpha - 1)
				a += freq[++ge];
			if (ge > gs && part != ngr && part != 1 && (ngr - part) % 2 == 1)
				a -= freq[ge--];
			for (int v = 0; v < alpha; v++)
				len[part - 1][v] = v >= gs && v <= ge ? 0 : 15;
			gs = ge + 1;
			rem -= a;
		}
	}
	uint32_t rf[6][16];
	for (int it = 0; it < ITERS; it++) {
		choose_tables(hist, ng, (const uint8_t (*)[16])len, ngr, alpha, sel, rf);
		for (int t = 0; t < ngr; t++)
			code_lengths(len[t], rf[t], alpha, MAXLEN);
	}
	uint64_t bits = 16 + 16ull * ranges + 3 + 15;
	/* selectors, move-to-front coded in unary; the list as 4-bit
	 * fields, front in the low bits (as in mtf_portable) */
	uint32_t list = 0;
	for (int t = ngr; t-- > 0;)
		list = list << 4 | (uint32_t)t;
	for (size_t g = 0; g < ng; g++) {
		uint32_t c = sel[g], x = list ^ (0x11111111u * c);
		uint32_t z = (x - 0x11111111u) & ~x & 0x88888888u;
		unsigned j = (unsigned)__builtin_ctz(z) / 4;
		bits += (uint64_t)j + 1;
		list = (list & ~((1u << (4 * j + 4)) - 1)) | (list & ((1u << (4 * j)) - 1)) << 4 | c;
	}
	/* the tables: 5 bits, then per symbol 2 bits a step and a stop bit */
	for (int t = 0; t < ngr; t++) {
		int cur = len[t][0];
		bits += 5;
		for (int v = 0; v < alpha; v++) {
			int d = len[t][v] - cur;
			bits += 2u * (unsigned)(d < 0 ? -d : d) + 1;
			cur = len[t][v];
		}
	}
	/* the symbols: the last round's choices stand, and its sums per
	 * table count each table's symbols */
	for (int t = 0; t < ngr; t++)
		for (int v = 0; v < alpha; v++)
			bits += (uint64_t)rf[t][v] * len[t][v];
	return bits;
}

/* Move-to-front of bwt[0..l) (each byte's index among the bytes in use, at
 * most 11) into out[0..l): each one's position in the list before the move.
 * The list's order starts as the bytes' order. */
static void mtf_portable(const uint8_t *b, size_t l, unsigned nuse, uint8_t *out)
{
	/* the list as 4-bit fields, front in the low bits */
	uint64_t list = 0;
	for (unsigned i = nuse; i-- > 0;)
		list = list << 4 | i;
	for (size_t i = 0; i < l; i++) {
		unsigned c = b[i];
		uint64_t x = list ^ (0x1111111111111111ull * c);
		uint64_t z = (x - 0x1111111111111111ull) & ~x & 0x8888888888888888ull;
		unsigned j = (unsigned)__builtin_ctzll(z) / 4;
		uint64_t below = list & ((1ull << (4 * j)) - 1);
		list = (list & ~((1ull << (4 * j + 4)) - 1)) | below << 4 | c;
		out[i] = (uint8_t)j;
	}
}

#if defined(__x86_64__) || defined(__i386__)
#include <tmmintrin.h>
/* the same with a rank per symbol in a vector: j = rank[c]; ranks below
 * j move up one, rank[c] becomes 0 (a 4-instruction dependency chain,
 * against about 12 for the list) */
__attribute__((target("ssse3"))) static void mtf_ssse3(const uint8_t *b, size_t l, unsigned nuse,
						       uint8_t *out)
{
	uint8_t init[16];
	for (unsigned d = 0; d < 16; d++)
		init[d] = (uint8_t)(d < nuse ? d : 0x70);
	__m128i r = _mm_loadu_si128((const __m128i *)init);
	__m128i lane = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	for (size_t i = 0; i < l; i++) {
		__m128i cv = _mm_set1_epi8((char)b[i]);
		__m128i rj = _mm_shuffle_epi8(r, cv);
		__m128i lt = _mm_cmpgt_epi8(rj, r);
		r = _mm_sub_epi8(r, lt);
		r = _mm_andnot_si128(_mm_cmpeq_epi8(lane, cv), r);
		out[i] = (uint8_t)_mm_cvtsi128_si32(rj);
	}
}
#endif

#if defined(__x86_64__)
#include <immintrin.h>
#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt,lzcnt,bmi,bmi2")))

/* every CPU with AVX-512 VBMI2 has LZCNT too (which GCC cannot ask for
 * here); the rest of the target list is asked for */
static bool use_avx512(void)
{
	return !ng_bz2_portable && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vbmi2") &&
	       __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi") &&
	       __builtin_cpu_supports("bmi2");
}

/* the same as 8 independent chains, one per eighth of the block, each a
 * 16-byte lane of rank vectors (mtf_ssse3's step): the list at a chain's
 * start is the symbols by their last occurrence before it, then the
 * others in the previous chain's starting order. 8 steps of each chain
 * at a time: their symbols come in one 64-byte load of 8 words, their
 * positions leave in one. b and out (the same buffer or none shared) are
 * read and written up to l rounded up to 64. */
AVX512 static void mtf_avx512(uint8_t *b, size_t l, unsigned nuse, uint8_t *out)
{
	size_t L = (l + 63) / 64 * 8;   /* steps of a chain */
	memset(b + l, 0, 8 * L - l);
	uint8_t init[128], list[16], nl[16];
	for (unsigned d = 0; d < nuse; d++)
		list[d] = (uint8_t)d;
	for (unsigned k = 0; k < 8; k++) {
		if (k) {
			/* each symbol's last position in the previous chain's
			 * part, 64 positions at a time from its end */
			size_t last[16], lo = (k - 1) * L;
			unsigned found = 0, all = (1u << nuse) - 1, n = 0;
			for (size_t e = k * L; e > lo && found != all;) {
				size_t s0 = e - lo > 64 ? e - 64 : lo;
				uint64_t valid = _bzhi_u64(~0ull, (unsigned)(e - s0));
				__m512i x = _mm512_maskz_loadu_epi8(valid, b + s0);
				for (unsigned d = 0; d < nuse; d++) {
					uint64_t hit = _mm512_mask_cmpeq_epi8_mask(valid, x, _mm512_set1_epi8((char)d));
					if (!(found >> d & 1) && hit) {
						last[d] = s0 + 63 - (size_t)_lzcnt_u64(hit);
						found |= 1u << d;
						/* in order of last position, latest first */
						unsigned j = n++;
						for (; j > 0 && last[nl[j - 1]] < last[d]; j--)
							nl[j] = nl[j - 1];
						nl[j] = (uint8_t)d;
					}
				}
				e = s0;
			}
			for (unsigned j = 0; j < nuse; j++)
				if (!(found >> list[j] & 1))
					nl[n++] = list[j];
			memcpy(list, nl, nuse);
		}
		memset(init + 16 * k, 0x70, 16);
		for (unsigned j = 0; j < nuse; j++)
			init[16 * k + list[j]] = (uint8_t)j;
	}
	__m512i ra = _mm512_loadu_si512(init), rb = _mm512_loadu_si512(init + 64);
	const __m512i one = _mm512_set1_epi8(1), zero = _mm512_setzero_si512();
	uint8_t ia0[64], ib0[64], pick[64], o[64];
	for (unsigned k = 0; k < 4; k++)
		for (unsigned j = 0; j < 16; j++) {
			ia0[16 * k + j] = (uint8_t)(8 * k);          /* chain k's byte in the tile */
			ib0[16 * k + j] = (uint8_t)(8 * k + 32);     /* chain k + 4's */
		}
	for (unsigned k = 0; k < 8; k++)
		for (unsigned s = 0; s < 8; s++)
			pick[8 * k + s] = (uint8_t)(k < 4 ? 16 * k + s : 64 + 16 * (k - 4) + s);
	const __m512i lane = _mm512_set4_epi32(0x0f0e0d0c, 0x0b0a0908, 0x07060504, 0x03020100);
	const __m512i ia = _mm512_loadu_si512(ia0), ib = _mm512_loadu_si512(ib0), pk = _mm512_loadu_si512(pick);
	for (size_t i = 0; i < L; i += 8) {
		uint64_t wd[8];
		for (unsigned k = 0; k < 8; k++)
			memcpy(wd + k, b + k * L + i, 8);
		__m512i tile = _mm512_loadu_si512(wd), xa = ia, xb = ib, acca = zero, accb = zero;
		for (unsigned s = 0; s < 8; s++) {
			__m512i ca = _mm512_permutexvar_epi8(xa, tile), cb = _mm512_permutexvar_epi8(xb, tile);
			__m512i ja = _mm512_shuffle_epi8(ra, ca), jb = _mm512_shuffle_epi8(rb, cb);
			ra = _mm512_mask_add_epi8(ra, _mm512_cmpgt_epi8_mask(ja, ra), ra, one);
			rb = _mm512_mask_add_epi8(rb, _mm512_cmpgt_epi8_mask(jb, rb), rb, one);
			ra = _mm512_mask_mov_epi8(ra, _mm512_cmpeq_epi8_mask(ca, lane), zero);
			rb = _mm512_mask_mov_epi8(rb, _mm512_cmpeq_epi8_mask(cb, lane), zero);
			acca = _mm512_mask_mov_epi8(acca, 0x0001000100010001ull << s, ja);
			accb = _mm512_mask_mov_epi8(accb, 0x0001000100010001ull << s, jb);
			xa = _mm512_add_epi8(xa, one);
			xb = _mm512_add_epi8(xb, one);
		}
		_mm512_storeu_si512(o, _mm512_permutex2var_epi8(acca, pk, accb));
		for (unsigned k = 0; k < 8; k++)
			memcpy(out + k * L + i, o + 8 * k, 8);
	}
}
#else
static bool use_avx512(void)
{
	return false;
}
#endif

static void mtf(uint8_t *b, size_t l, unsigned nuse, uint8_t *out)
{
#if defined(__x86_64__)
	if (l >= 512 && use_avx512()) {
		mtf_avx512(b, l, nuse, out);
		return;
	}
#endif
#if defined(__x86_64__) || defined(__i386__)
	if (!ng_bz2_portable && __builtin_cpu_supports("ssse3")) {
		mtf_ssse3(b, l, nuse, out);
		return;
	}
#endif
	mtf_portable(b, l, nuse, out);
}

/* A zero run's code at out: zp + 1's bits below its top bit, least
 * significant first (0 = RUNA, 1 = RUNB); returns the new end. */
static size_t put_run(uint8_t *out, size_t wr, uint64_t zp)
{
	uint64_t v = zp + 1;
	unsigned nb = 63u - (unsigned)__builtin_clzll(v);
	for (unsigned k = 0; k < nb; k++)
		out[wr + k] = (uint8_t)(v >> k & 1);
	return wr + nb;
}

/* The zero-run code of the move-to-front positions js[0..l) into out
 * (position j as j + 1), without the end of block: its length. */
static size_t zero_runs_portable(const uint8_t *js, size_t l, uint8_t *out)
{
	size_t wr = 0;
	uint64_t zp = 0;
	/* branch-free: a position 0 extends the zero run; any other writes
	 * the run's code first (eight written, as many kept as there are),
	 * then the position + 1 */
	for (size_t i = 0; i < l; i++) {
		unsigned j = js[i];
		uint64_t v = zp + 1, nz = j != 0;
		unsigned nb = nz ? 63u - (unsigned)__builtin_clzll(v) : 0;
		if (__builtin_expect(nb > 8, 0)) {
			put_run(out, wr, zp);
		} else {
			uint64_t bytes = spread[v & 255];
			memcpy(out + wr, &bytes, 8);
		}
		wr += nb;
		out[wr] = (uint8_t)(j + 1);
		wr += nz;
		zp = nz ? 0 : zp + 1;
	}
	return zp ? put_run(out, wr, zp) : wr;
}

/* counts per group of 50 (the last one shorter): a byte per symbol in
 * two words */
static void histograms_portable(const uint8_t *out, size_t wr, uint8_t (*hist)[16])
{
	for (size_t g = 0; g * GROUP < wr; g++) {
		const uint8_t *o = out + g * GROUP;
		size_t e = wr - g * GROUP < GROUP ? wr - g * GROUP : GROUP;
		uint64_t lo = 0, hi = 0;
		for (size_t k = 0; k < e; k++) {
			unsigned v = o[k];
			uint64_t one = 1ull << (8 * (v & 7));
			lo += v < 8 ? one : 0;
			hi += v < 8 ? 0 : one;
		}
		memcpy(hist[g], &lo, 8);
		memcpy(hist[g] + 8, &hi, 8);
	}
}

#if defined(__x86_64__)
/* the zero-run code 64 positions at a time: the nonzero ones and the
 * symbols of the runs inside the chunk are picked out with one compress
 * (a run's symbols sit on its first zeros: bit k of its length + 1 on its
 * k-th zero); a run reaching the chunk's end is carried on and written
 * where it ends */
AVX512 static size_t zero_runs_avx512(const uint8_t *js, size_t l, uint8_t *out)
{
	size_t wr = 0;
	uint64_t zp = 0;   /* the zero run reaching the chunk's start */
	const __m512i one = _mm512_set1_epi8(1);
	for (size_t i = 0; i < l; i += 64) {
		uint64_t valid = _bzhi_u64(~0ull, (unsigned)(l - i < 64 ? l - i : 64));
		__m512i x = _mm512_maskz_loadu_epi8(valid, js + i);
		uint64_t nz = _mm512_test_epi8_mask(x, x), z = valid & ~nz;
		if (!nz) {
			zp += (uint64_t)_mm_popcnt_u64(valid);
			continue;
		}
		uint64_t lead = 0;
		if (zp) {
			unsigned t = (unsigned)_tzcnt_u64(nz);
			wr = put_run(out, wr, zp + t);
			lead = _bzhi_u64(~0ull, t);
		}
		/* zeros after the last nonzero go on into the next chunk */
		unsigned top = 63u - (unsigned)_lzcnt_u64(nz);
		uint64_t tail = z & ~_bzhi_u64(~0ull, top + 1);
		zp = (uint64_t)_mm_popcnt_u64(tail);
		uint64_t in = z & ~lead & ~tail, st = in & ~(in << 1);
		/* runs of 1 (RUNA) and 2 (RUNB) at once, longer ones each */
		uint64_t s1 = st & ~(in >> 1), s2 = st & (in >> 1) & ~(in >> 2);
		uint64_t em = s1 | s2, rb = s2;
		for (uint64_t sl = st & ~em; sl; sl &= sl - 1) {
			unsigned s = (unsigned)_tzcnt_u64(sl);
			uint64_t v = _tzcnt_u64(~(in >> s)) + 1, low = _bzhi_u64(~0ull, 63u - (unsigned)_lzcnt_u64(v));
			em |= low << s;
			rb |= (v & low) << s;
		}
		uint64_t keep = nz | em;
		__m512i sym = _mm512_maskz_add_epi8(nz | rb, x, one);
		_mm512_storeu_si512(out + wr, _mm512_maskz_compress_epi8(keep, sym));
		wr += (size_t)_mm_popcnt_u64(keep);
	}
	return zp ? put_run(out, wr, zp) : wr;
}

/* the counts of a group: a compare and a popcount per symbol value */
AVX512 static void histograms_avx512(const uint8_t *out, size_t wr, uint8_t (*hist)[16])
{
	for (size_t g = 0; g * GROUP < wr; g++) {
		size_t e = wr - g * GROUP < GROUP ? wr - g * GROUP : GROUP;
		uint64_t gm = _bzhi_u64(~0ull, (unsigned)e);
		__m512i x = _mm512_maskz_loadu_epi8(gm, out + g * GROUP);
		for (int v = 0; v < 16; v++)
			hist[g][v] = (uint8_t)_mm_popcnt_u64(_mm512_mask_cmpeq_epi8_mask(gm, x, _mm512_set1_epi8((char)v)));
	}
}
#endif

/* The zero-run code (RUNA 0, RUNB 1, position j as j + 1, end of block
 * nuse + 1) of a block's move-to-front positions, counted per group of 50
 * symbols; then the block's bits. */
static uint64_t block_bits(ng_bz2_ws *w, size_t l, unsigned nuse, unsigned ranges)
{
	uint8_t *js = w->bwt, *out = w->mtf;
	mtf(w->bwt, l, nuse, js);
	bool fast = use_avx512();
	size_t wr;
#if defined(__x86_64__)
	if (fast)
		wr = zero_runs_avx512(js, l, out);
	else
#endif
		wr = zero_runs_portable(js, l, out);
	out[wr++] = (uint8_t)(nuse + 1);
	size_t ng = (wr + GROUP - 1) / GROUP;
	int alpha = (int)nuse + 2;
	uint8_t (*hist)[16] = w->hist;
#if defined(__x86_64__)
	if (fast)
		histograms_avx512(out, wr, hist);
	else
#endif
		histograms_portable(out, wr, hist);
	uint32_t freq[16] = {0};
	for (size_t g = 0; g < ng; g++)
		for (int v = 0; v < 16; v++)
			freq[v] += hist[g][v];
	return 105 + huffman_bits((const uint8_t (*)[16])hist, ng, freq, wr, alpha, ranges, w->sel);
}

/* bytes in use: ' ' (0x20) and the digits in dmask; their ranks */
static unsigned use_map(uint16_t dmask, bool space, uint8_t rank[11], unsigned *ranges)
{
	unsigned k = 0;
	if (space)
		rank[10] = (uint8_t)k++;
	for (unsigned d = 0; d < 10; d++)
		if (dmask >> d & 1)
			rank[d] = (uint8_t)k++;
	*ranges = (unsigned)space + (dmask != 0);
	return k;
}

/* a short block's transform by comparing rotations directly */
static uint64_t small_block_bits(ng_bz2_ws *w, const char *s, size_t l)
{
	uint32_t idx[64];
	for (size_t i = 0; i < l; i++)
		idx[i] = (uint32_t)i;
	for (size_t i = 1; i < l; i++) {
		uint32_t x = idx[i];
		size_t j = i;
		for (; j > 0; j--) {
			int c = 0;
			for (size_t k = 0; k < l && !c; k++)
				c = (unsigned char)s[(idx[j - 1] + k) % l] - (unsigned char)s[(x + k) % l];
			if (c <= 0)
				break;
			idx[j] = idx[j - 1];
		}
		idx[j] = x;
	}
	uint16_t dmask = 0;
	bool space = false;
	for (size_t i = 0; i < l; i++) {
		if (s[i] == ' ')
			space = true;
		else
			dmask = (uint16_t)(dmask | 1u << (s[i] - '0'));
	}
	uint8_t rank[11];
	unsigned ranges, nuse = use_map(dmask, space, rank, &ranges);
	for (size_t i = 0; i < l; i++) {
		char c = s[(idx[i] + l - 1) % l];
		w->bwt[i] = rank[c == ' ' ? 10 : c - '0'];
	}
	return block_bits(w, l, nuse, ranges);
}

/* ---- one block, from the samples ---- */

/* The block that starts at character (*pi, *po) of the text (sample i,
 * offset o; o = the token's length: the space after it); advances the
 * position to the next block's start and sets *last at the text's end. */
static uint64_t next_block(ng_bz2_ws *w, const uint8_t *x, size_t n, size_t *pi, unsigned *po,
			   size_t bmax, bool *last, bool *ok)
{
	size_t a = *pi, i = a, c = 0, ei;
	unsigned oa = *po, o = oa, eo;
	/* the end: the run holding character bmax - 1 ends the block */
	for (;;) {
		const tok_info *t = &vt[x[i]];
		size_t digits = t->len - o;
		if (c + digits >= bmax) {
			unsigned q = o + (unsigned)(bmax - 1 - c);
			while (q + 1 < t->len && t->d[q + 1] == t->d[q])
				q++;
			c += q + 1 - o;
			ei = i;
			eo = q + 1;
			*last = i == n - 1 && eo == t->len;
			break;
		}
		c += digits;
		if (i == n - 1) {
			ei = i;
			eo = t->len;
			*last = true;
			break;
		}
		if (++c >= bmax) {
			ei = i + 1;
			eo = 0;
			*last = false;
			break;
		}
		i++;
		o = 0;
	}
	/* libbz2 stops filling once the block is full, with the next run's
	 * first character taken; when that was the text's last, the final
	 * flush puts it in this block */
	if (!*last && ei == n - 1 && vt[x[ei]].len - eo == 1) {
		eo++;
		c++;
		*last = true;
	}
	*pi = ei;
	*po = eo;
	size_t l = c;
	if (ei == a) {
		/* no space: at most a token's digits */
		char s[8];
		if (!ws_reserve(w, 1, 64)) {
			*ok = false;
			return 0;
		}
		memcpy(s, vt[x[a]].d + oa, l);
		return small_block_bits(w, s, l);
	}
	/* the cyclic tokens: samples a+1 .. ei-1, then the wrapped one (the
	 * block's tail T[ei][0..eo) followed by its head T[a][oa..]) */
	size_t m = ei - a;
	if (!ws_reserve(w, m, l)) {
		*ok = false;
		return 0;
	}
	char md[8];
	unsigned ml = 0;
	memcpy(md, vt[x[ei]].d, eo);
	ml = eo;
	memcpy(md + ml, vt[x[a]].d + oa, vt[x[a]].len - oa);
	ml += vt[x[a]].len - oa;
	/* the counts in 4 parts, so a run of equal values does not chain
	 * the increments through memory */
	uint32_t occ[256] = {0}, occ4[4][256] = {{0}};
	uint16_t *tok = w->tok;
	for (size_t j = 0; j + 1 < m; j++) {
		uint8_t v = x[a + 1 + j];
		tok[j] = v;
		occ4[j & 3][v]++;
	}
	for (unsigned v = 0; v < 256; v++)
		occ[v] = occ4[0][v] + occ4[1][v] + occ4[2][v] + occ4[3][v];
	tok[m - 1] = MERGED;
	/* and cyclically on, so a key reads tok[j .. j + 63] directly */
	for (size_t i = 0; i < 64; i++)
		tok[m + i] = tok[i % m];
	/* ranks of the whole tokens in string order (equal strings, equal ranks) */
	uint16_t rk[257];
	uint32_t mk[7];
	for (unsigned k = 0; k <= ml; k++)
		mk[k] = str_key(md + k, ml - k);
	unsigned nr = 0;
	bool placed = false;
	uint16_t dmask = 0;
	for (unsigned k = 0; k < ml; k++)
		dmask = (uint16_t)(dmask | 1u << (md[k] - '0'));
	for (unsigned r = 0; r < 256; r++) {
		unsigned v = vorder[r];
		uint32_t k = vt[v].skey[0];
		if (!placed && mk[0] < k) {
			rk[MERGED] = (uint16_t)nr++;
			placed = true;
		}
		if (!occ[v])
			continue;
		dmask |= vt[v].mask;
		if (!placed && mk[0] == k) {
			rk[MERGED] = (uint16_t)nr;
			placed = true;
		}
		rk[v] = (uint16_t)nr++;
	}
	if (!placed)
		rk[MERGED] = (uint16_t)nr++;
	sort_rotations(w, m, rk, nr, occ);
	/* the buckets: every suffix string of the tokens, in string order */
	uint32_t extra[7];
	unsigned ne = 0;
	for (unsigned k = 0; k <= ml; k++) {
		unsigned p = lower_bound(skey_sorted, nskey, mk[k]);
		if (p < nskey && skey_sorted[p] == mk[k])
			continue;
		bool dup = false;
		for (unsigned e = 0; e < ne; e++)
			dup |= extra[e] == mk[k];
		if (!dup)
			extra[ne++] = mk[k];
	}
	qsort(extra, ne, sizeof extra[0], cmp_u32);
	uint16_t sid[256 * 4];
	for (unsigned p = 0, e = 0; p < nskey; p++) {
		while (e < ne && extra[e] < skey_sorted[p])
			e++;
		sid[p] = (uint16_t)(p + e);
	}
	uint8_t rank[11];
	unsigned ranges, nuse = use_map(dmask, true, rank, &ranges);
	uint16_t ids[257][7];
	uint8_t ch[257][7];
	unsigned nb = nskey + ne;
	uint32_t pos[256 * 4 + 9 + 256 * 3] = {0};
	/* a bucket's character while all its rotations give the same one;
	 * NONE before the first, MIXED once two differ */
	enum { NONE = 0xfe, MIXED = 0xff };
	uint8_t only[256 * 4 + 9];
	memset(only, NONE, nb);
	for (unsigned v = 0; v < 256; v++) {
		if (!occ[v])
			continue;
		const tok_info *t = &vt[v];
		for (unsigned k = 0; k <= t->len; k++) {
			unsigned b = ids[v][k] = sid[sidx[v][k]];
			ch[v][k] = k ? rank[t->d[k - 1] - '0'] : rank[10];
			pos[b] += occ[v];
			if (k < t->len)
				only[b] = only[b] == NONE || only[b] == ch[v][k] ? ch[v][k] : MIXED;
		}
	}
	for (unsigned k = 0; k <= ml; k++) {
		unsigned e = 0;
		while (e < ne && extra[e] < mk[k])
			e++;
		unsigned b = ids[MERGED][k] = (uint16_t)(lower_bound(skey_sorted, nskey, mk[k]) + e);
		ch[MERGED][k] = k ? rank[md[k - 1] - '0'] : rank[10];
		pos[b]++;
		if (k < ml)
			only[b] = only[b] == NONE || only[b] == ch[MERGED][k] ? ch[MERGED][k] : MIXED;
	}
	/* the buckets of one character are filled now: they need no order
	 * (a 3-digit token's own bucket, all spaces; every bucket when no
	 * two tokens share a suffix, as with 0s and 1s) */
	uint8_t *bwt = w->bwt;
	uint32_t s = 0;
	for (unsigned k = 0; k < nb; k++) {
		uint32_t c2 = pos[k];
		pos[k] = s;
		if (k && only[k] < NONE)
			memset(bwt + s, only[k], c2);
		s += c2;
	}
	/* a value token's rotations that start with a digit in a bucket of
	 * mixed characters as K fixed steps, K the most a token has: a
	 * missing one writes past the block through a counter of its own
	 * that does not advance (a shared one would chain the steps through
	 * memory) */
	unsigned K = 0;
	uint16_t did[256][3];
	uint8_t dch[256][4], nd[256];
	uint32_t step[256][3];
	for (unsigned v = 0; v < 256; v++) {
		if (!occ[v])
			continue;
		unsigned n = 0;
		for (unsigned k = 0; k < vt[v].len; k++)
			if (only[ids[v][k]] == MIXED) {
				did[v][n] = ids[v][k];
				dch[v][n++] = ch[v][k];
			}
		dch[v][3] = ch[v][vt[v].len];
		nd[v] = (uint8_t)n;
		K = n > K ? n : K;
	}
	for (unsigned v = 0; v < 256; v++) {
		if (!occ[v])
			continue;
		for (unsigned k = 0; k < K; k++) {
			step[v][k] = k < nd[v];
			if (k < nd[v])
				continue;
			unsigned sink = nb + 3 * v + k;
			pos[sink] = (uint32_t)l;
			did[v][k] = (uint16_t)sink;
			dch[v][k] = 0;
		}
	}
	/* the rotations that start with the space after a token come first
	 * (bucket 0), in the order of the token rotation after that space:
	 * bwt[r] is the last character of the token before sa[r]. Those
	 * tokens are gathered first (the samples: tok[j] is x[a + 1 + j]),
	 * the wrapped one's place rm apart, so the dealing reads them in
	 * order (w->mtf is free until block_bits) */
	const uint32_t *sa = w->sa;
	uint8_t *pv = w->mtf;
	size_t rm = 0;
	for (size_t r = 0; r < m; r++) {
		uint32_t st = sa[r];
		pv[r] = x[a + st];
		rm = st ? rm : r;
	}
	for (size_t r = 0; r < m; r++) {
		if (r == rm) {
			/* its digits' buckets of one character take its
			 * character at their start again: no harm */
			const uint16_t *id = ids[MERGED];
			const uint8_t *c = ch[MERGED];
			bwt[r] = c[ml];
			for (unsigned k = 0; k < ml; k++)
				bwt[pos[id[k]]++] = c[k];
			continue;
		}
		unsigned t = pv[r];
		const uint16_t *id = did[t];
		const uint8_t *c = dch[t];
		bwt[r] = c[3];
		for (unsigned k = 0; k < K; k++) {
			bwt[pos[id[k]]] = c[k];
			pos[id[k]] += step[t][k];
		}
	}
	return block_bits(w, l, nuse, ranges);
}

int64_t ng_bz2_text_size(const uint8_t *x, size_t n, unsigned level, ng_bz2_ws *w)
{
	if (level < 1 || level > 9 || !w)
		return -1;
	uint64_t bits = 32 + 80;
	size_t bmax = 100000u * level - 19, i = 0;
	unsigned o = 0;
	bool last = n == 0, ok = true;
	while (!last && ok) {
		if (w->cancel && atomic_load_explicit(w->cancel, memory_order_relaxed))
			return -2;
		bits += next_block(w, x, n, &i, &o, bmax, &last, &ok);
	}
	return ok ? (int64_t)((bits + 7) / 8) : -1;
}
