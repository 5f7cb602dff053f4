/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The prediction estimators of SP 800-90B 6.3.7-6.3.10: MultiMCW, Lag,
 * MultiMMC and LZ78Y. Each walks the sequence once, keeping its sub-
 * predictors' state incrementally. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "assess.h"
#include "sort.h"

/* ---- running count of correct predictions ---- */
typedef struct {
	uint64_t C, run, longest;
} ng_score;

static inline void score_add(ng_score *s, bool hit)
{
	if (hit) {
		s->C++;
		if (++s->run > s->longest)
			s->longest = s->run;
	} else
		s->run = 0;
}

/* Bit sh of each of 64 bytes (the other bits may be anything) to one word,
 * byte t to bit t: each 8 bytes by one multiply, whose partial products
 * land on distinct bits. */
static inline uint64_t pack64_bit(const uint8_t *b, unsigned sh)
{
	uint64_t w = 0;
	for (unsigned g = 0; g < 8; g++) {
		uint64_t u;
		memcpy(&u, b + 8 * g, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		u = __builtin_bswap64(u);
#endif
		u = (u >> sh) & 0x0101010101010101ULL;
		w |= (u * 0x0102040810204080ULL) >> 56 << (8 * g);
	}
	return w;
}

/* 64 bytes of 0/1 to one word */
static inline uint64_t pack64(const uint8_t *b)
{
	return pack64_bit(b, 0);
}

/* Whether every byte of s[0..n) is 0 or 1 (8 at a time). */
static bool all01(const uint8_t *s, size_t n)
{
	uint64_t any = 0;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t u;
		memcpy(&u, s + i, 8);
		any |= u;
	}
	for (; i < n; i++)
		any |= s[i];
	return !(any & 0xfefefefefefefefeULL);
}

/* score_add for a block of 64 predictions at once: bit t of won says
 * whether prediction t was right; only the bits in valid are predictions,
 * and they are contiguous (only the first and last blocks have others). */
static void score_word(ng_score *s, uint64_t won, uint64_t valid)
{
	if (valid != ~0ULL) {
		for (unsigned t = 0; t < 64; t++)
			if ((valid >> t) & 1)
				score_add(s, (won >> t) & 1);
		return;
	}
	s->C += ng_popcount64(won);
	if (won == ~0ULL) {
		s->run += 64;
		if (s->run > s->longest)
			s->longest = s->run;
		return;
	}
	/* the run carried in ends at the first miss; the longest run inside
	 * the word (the carried one's part included) by repeated shrinking;
	 * the run at the top carries on */
	uint64_t first = s->run + (uint64_t)__builtin_ctzll(~won);
	if (first > s->longest)
		s->longest = first;
	uint64_t inner = 0;
	for (uint64_t x = won; x; x &= x << 1)
		inner++;
	if (inner > s->longest)
		s->longest = inner;
	s->run = (uint64_t)__builtin_clzll(~won);
}

/* One block of up to 64 predictions of the predictors 1..D, scored as the
 * scalar loops score them one at a time: the current winner's prediction
 * is scored, then every predictor that was right gains a point and takes
 * over when its score reaches the winner's. hit[(d - 1) * stride] holds
 * predictor d's hits in the block (bit t: prediction t was right); only the
 * bits in valid are predictions. The winner always holds the highest score
 * (scores only grow, and a predictor takes over only by reaching it), so
 * within the block only the predictors whose score at its end reaches the
 * highest at its start can take over; the others just add their popcount,
 * and the few candidates are replayed bit by bit in the scalar loop's
 * order, so ties resolve as there. The replay is branch-free (the hits are
 * random for good data), with the highest score kept at hand: the winner's
 * own point raises it, and any other predictor reaching it takes over.
 * sb[1..D] are the scores, D <= 128. hw: count bits with the popcnt
 * instruction (score_block picks it when the CPU has one). */
static inline __attribute__((always_inline)) void score_block_body(uint64_t *sb, unsigned D, const uint64_t *hit,
								    size_t stride, uint64_t valid, unsigned *winner,
								    ng_score *sc, bool hw)
{
	uint64_t cs[128], ch[128];
	unsigned cand[128], nc = 0, w = *winner;
	uint64_t top = sb[w];
	for (unsigned d = 1; d <= D; d++) {
		uint64_t h = hit[(size_t)(d - 1) * stride] & valid;
		uint64_t add = hw ? (uint64_t)__builtin_popcountll(h) : ng_popcount64(h);
		if (sb[d] + add >= top) {
			cs[nc] = sb[d];
			ch[nc] = h;
			cand[nc++] = d;
		}
		sb[d] += add;
	}
	unsigned wi = 0; /* the winner is a candidate: its score is top */
	while (cand[wi] != w)
		wi++;
	uint64_t won = 0;
	if (nc == 1) /* the winner alone: it stays, its hits are scored */
		won = ch[0];
	else
		for (unsigned t = 0; t < 64; t++) {
			won |= ((ch[wi] >> t) & 1) << t;
			for (unsigned c = 0; c < nc; c++) {
				uint64_t b = (ch[c] >> t) & 1, v = cs[c] + b;
				bool take = b & (v >= top);
				cs[c] = v;
				wi = take ? c : wi;
				top = take ? v : top;
			}
		}
	*winner = cand[wi];
	score_word(sc, won, valid);
}

#if (defined(__x86_64__) || defined(__i386__)) && !defined(__POPCNT__) && (defined(__GNUC__) || defined(__clang__))
/* x86 without popcnt assumed at build time: a twin built for it, chosen
 * when the CPU has it (Lag counts 128 words per block) */
__attribute__((target("popcnt"))) static void score_block_popcnt(uint64_t *sb, unsigned D, const uint64_t *hit,
								   size_t stride, uint64_t valid, unsigned *winner,
								   ng_score *sc)
{
	score_block_body(sb, D, hit, stride, valid, winner, sc, true);
}

static void score_block(uint64_t *sb, unsigned D, const uint64_t *hit, size_t stride, uint64_t valid,
			unsigned *winner, ng_score *sc)
{
	if (__builtin_cpu_supports("popcnt"))
		score_block_popcnt(sb, D, hit, stride, valid, winner, sc);
	else
		score_block_body(sb, D, hit, stride, valid, winner, sc, false);
}
#else
static void score_block(uint64_t *sb, unsigned D, const uint64_t *hit, size_t stride, uint64_t valid,
			unsigned *winner, ng_score *sc)
{
	score_block_body(sb, D, hit, stride, valid, winner, sc, true);
}
#endif

/* ---- 6.3.7 MultiMCW ---- */
#define MCW_N 4
static const uint32_t mcw_w[MCW_N] = {63, 255, 1023, 4095};

typedef struct {
	uint32_t cnt[256];
	uint32_t maxcnt;
	int mode;
} mcw_win;

/* MultiMCW on 0/1 data. Every window is odd, so a full window's mode is its
 * majority (no ties): running window sums replace the count tables. Each
 * window's hits (its prediction right, the window full) are found 64
 * positions at a time and scored by score_block, which replays them as the
 * scalar loop does. Returns false (nothing done) if the data is not 0/1. */
static bool mcw_binary(const uint8_t *s, size_t n, ng_est_result *r)
{
	if (!all01(s, n))
		return false;
	uint32_t c[MCW_N] = {0};
	uint64_t sb[MCW_N + 1] = {0}, hw[MCW_N];
	uint8_t hb[MCW_N][64];
	unsigned winner = 1;
	ng_score sc = {0, 0, 0};
	for (size_t lo = 0; lo < n; lo += 64) {
		size_t hi = n - lo < 64 ? n : lo + 64;
		if (lo >= mcw_w[MCW_N - 1]) /* every window full */
			for (size_t i = lo; i < hi; i++) {
				unsigned x = s[i];
#pragma GCC unroll 4
				for (unsigned j = 0; j < MCW_N; j++) {
					hb[j][i % 64] = (2 * c[j] > mcw_w[j]) == x;
					c[j] += x - s[i - mcw_w[j]];
				}
			}
		else
			for (size_t i = lo; i < hi; i++) {
				unsigned x = s[i];
#pragma GCC unroll 4
				for (unsigned j = 0; j < MCW_N; j++) {
					if (i < mcw_w[j]) { /* filling */
						hb[j][i % 64] = 0;
						c[j] += x;
						continue;
					}
					hb[j][i % 64] = (2 * c[j] > mcw_w[j]) == x;
					c[j] += x - s[i - mcw_w[j]];
				}
			}
		uint64_t valid = hi - lo == 64 ? ~0ULL : (1ULL << (hi - lo)) - 1;
		if (lo < mcw_w[0]) /* predictions from the first full window on */
			valid &= ~0ULL << mcw_w[0];
		for (unsigned j = 0; j < MCW_N; j++)
			hw[j] = pack64(hb[j]);
		score_block(sb, MCW_N, hw, 1, valid, &winner, &sc);
	}
	ng_est_predict_finish(sc.C, n - mcw_w[0], sc.longest, 2, r);
	return true;
}

void ng_est_multi_mcw(const uint8_t *s, size_t n, unsigned k, ng_est_result *r)
{
	if (n <= mcw_w[0] + 1) {
		ng_est_fail(r, "needs more than 64 samples");
		return;
	}
	memset(r, 0, sizeof *r);
	if (k == 2 && mcw_binary(s, n, r))
		return;
	mcw_win *w = calloc(MCW_N, sizeof *w);
	size_t *last = calloc(256, sizeof *last);
	if (!w || !last) {
		free(w); free(last);
		ng_est_fail(r, "out of memory");
		return;
	}
	for (int j = 0; j < MCW_N; j++)
		w[j].mode = -1;
	uint64_t sb[MCW_N] = {0};
	int winner = 0;
	ng_score sc = {0, 0, 0};
	for (size_t i = 0; i < n; i++) {
		unsigned x = s[i];
		if (i >= mcw_w[0]) {
			int pred = w[winner].mode;
			score_add(&sc, pred == (int)x);
			for (int j = 0; j < MCW_N; j++) {
				if (i < mcw_w[j])
					break;
				if (w[j].mode == (int)x) {
					sb[j]++;
					if (sb[j] >= sb[winner])
						winner = j;
				}
			}
		}
		/* slide the windows */
		for (int j = 0; j < MCW_N; j++) {
			mcw_win *v = &w[j];
			if (i >= mcw_w[j]) {
				unsigned y = s[i - mcw_w[j]];
				v->cnt[y]--;
				if ((int)y == v->mode) {
					/* rescan: highest count, ties to the latest seen */
					uint32_t best = 0;
					int bm = -1;
					for (unsigned c = 0; c < 256 && c < k + 0u; c++) {
						if (!v->cnt[c])
							continue;
						if (v->cnt[c] > best || (v->cnt[c] == best && bm >= 0 && last[c] > last[bm])) {
							best = v->cnt[c];
							bm = (int)c;
						}
					}
					v->maxcnt = best;
					v->mode = bm;
				}
			}
			if (++v->cnt[x] >= v->maxcnt) {
				v->maxcnt = v->cnt[x];
				v->mode = (int)x;
			}
		}
		last[x] = i;
	}
	free(w);
	free(last);
	ng_est_predict_finish(sc.C, n - mcw_w[0], sc.longest, k, r);
}

/* ---- 6.3.8 Lag ---- */
#define LAG_D 128

/* Bits [pos, pos + 64) of the packed sequence w (nw words), LSB first;
 * bits before 0 or past the end read as 0. */
static inline uint64_t bits_at(const uint64_t *w, size_t nw, long long pos)
{
	if (pos < -63)
		return 0;
	if (pos < 0)
		return w[0] << (unsigned)(-pos);
	size_t q = (size_t)pos / 64;
	unsigned o = (unsigned)pos % 64;
	uint64_t lo = q < nw ? w[q] : 0;
	if (!o)
		return lo;
	uint64_t hi = q + 1 < nw ? w[q + 1] : 0;
	return (lo >> o) | (hi << (64 - o));
}

/* Lag on a binary sequence, 64 positions at a time. The winner always holds
 * the highest score (scores only grow, and a lag takes over only by
 * reaching the winner's), so within a block only lags whose score at the
 * block's end reaches the highest score at its start can take over; the
 * others just add the popcount of their match word. The few candidates
 * are replayed position by position in the order of the scalar loop, so
 * ties resolve exactly as they do there. Returns false (nothing done) if
 * the data is not 0/1 or memory runs out. */
static bool lag_binary(const uint8_t *s, size_t n, ng_est_result *r)
{
	size_t nw = (n + 63) / 64;
	uint64_t *w = calloc(nw, sizeof *w);
	if (!w)
		return false;
	if (!all01(s, n)) {
		free(w);
		return false;
	}
	for (size_t j = 0; j < n / 64; j++)
		w[j] = pack64(s + 64 * j);
	for (size_t i = n / 64 * 64; i < n; i++)
		w[i / 64] |= (uint64_t)s[i] << (i % 64);
	uint64_t sb[LAG_D + 1] = {0}, mw[LAG_D];
	unsigned winner = 1;
	ng_score sc = {0, 0, 0};
	for (size_t j = 0; j < nw; j++) {
		size_t b = j * 64;
		uint64_t valid = n - b >= 64 ? ~0ULL : (1ULL << (n - b)) - 1;
		if (b == 0)
			valid &= ~1ULL; /* no prediction for the first sample */
		if (j >= 2) {
			/* s[i - d] for the block's i: the words before it, shifted
			 * by the lag, with no edge to mind */
			uint64_t cur = w[j], p1 = w[j - 1], p2 = w[j - 2];
			mw[63] = ~(cur ^ p1) & valid;
			mw[127] = ~(cur ^ p2) & valid;
#pragma GCC unroll 8
			for (unsigned d = 1; d < 64; d++) {
				mw[d - 1] = ~(cur ^ (cur << d | p1 >> (64 - d))) & valid;
				mw[d + 63] = ~(cur ^ (p1 << d | p2 >> (64 - d))) & valid;
			}
		} else
			for (unsigned d = 1; d <= LAG_D; d++) {
				uint64_t m = ~(w[j] ^ bits_at(w, nw, (long long)b - d)) & valid;
				if (b < d) /* s[i - d] exists only from i = d */
					m &= d - b >= 64 ? 0 : ~0ULL << (d - b);
				mw[d - 1] = m;
			}
		score_block(sb, LAG_D, mw, 1, valid, &winner, &sc);
	}
	free(w);
	ng_est_predict_finish(sc.C, n - 1, sc.longest, 2, r);
	return true;
}

void ng_est_lag(const uint8_t *s, size_t n, unsigned k, ng_est_result *r)
{
	if (n < 3) {
		ng_est_fail(r, "needs at least 3 samples");
		return;
	}
	memset(r, 0, sizeof *r);
	if (k == 2 && lag_binary(s, n, r))
		return;
	/* per symbol: ring of its last LAG_D positions */
	uint32_t *ring = malloc(256 * LAG_D * sizeof *ring);
	unsigned *fill = calloc(256, sizeof *fill), *head = calloc(256, sizeof *head);
	uint64_t *sb = calloc(LAG_D + 1, sizeof *sb);
	if (!ring || !fill || !head || !sb) {
		free(ring); free(fill); free(head); free(sb);
		ng_est_fail(r, "out of memory");
		return;
	}
	unsigned winner = 1;
	ng_score sc = {0, 0, 0};
	for (size_t i = 0; i < n; i++) {
		unsigned x = s[i];
		if (i >= 1) {
			score_add(&sc, s[i - winner] == x);
			/* matching lags, ascending: x's positions, most recent first */
			unsigned f = fill[x], h = head[x];
			for (unsigned m = 0; m < f; m++) {
				uint32_t p = ring[x * LAG_D + ((h + LAG_D - 1 - m) % LAG_D)];
				size_t d = i - p;
				if (d > LAG_D)
					break;
				sb[d]++;
				if (sb[d] >= sb[winner])
					winner = (unsigned)d;
			}
		}
		ring[x * LAG_D + head[x]] = (uint32_t)i;
		head[x] = (head[x] + 1) % LAG_D;
		if (fill[x] < LAG_D)
			fill[x]++;
	}
	free(ring); free(fill); free(head); free(sb);
	ng_est_predict_finish(sc.C, n - 1, sc.longest, k, r);
}

/* ---- hash tables for the dictionaries of MultiMMC and LZ78Y ----
 * Contexts (a run of d symbols) are named by where they first occurred in
 * the data; (context, y) pairs by a 64-bit key. Both grow on demand. */
typedef struct {
	uint32_t pos;
	uint8_t d;
	uint8_t best_y;
	uint32_t best_cnt;
} ctx_ent;

typedef struct {
	const uint8_t *s;
	uint32_t *slot;     /* id + 1, 0 = empty */
	size_t mask;
	ctx_ent *ent;
	size_t n, cap;
	uint64_t *bloom;    /* one bit per hash: clear = surely absent */
	unsigned bloom_bits;
	uint32_t *dir;      /* orders 1 and 2 indexed directly: id + 1, 0 = absent */
} ctx_map;
#define CTX_DIR (256 + 65536)

static inline size_t ctx_dir_ix(const uint8_t *p, unsigned d)
{
	return d == 1 ? p[0] : 256 + ((size_t)p[0] << 8 | p[1]);
}
/* The filter has about one bit per sample (2^16 to 2^25): 128 KiB for 1M
 * samples stays in the L2 cache, where 4 MiB missed it on most lookups
 * (literal MultiMMC on biased-1M: 0.107 -> 0.087 s) */
static unsigned ctx_bloom_bits(size_t n)
{
	unsigned b = 16;
	while (b < 25 && ((size_t)1 << b) < n)
		b++;
	return b;
}

/* The hash of a context folds its symbols from the last one backwards, so
 * the contexts ending at one position are hashed incrementally (ctx_step). */
#define CTX_SEED 0xcbf29ce484222325ULL
static inline uint64_t ctx_step(uint64_t raw, uint8_t sym)
{
	return (raw ^ sym) * 0x100000001b3ULL;
}

static inline uint64_t ctx_fin(uint64_t raw, unsigned d)
{
	uint64_t h = raw ^ (d * 0x9e3779b97f4a7c15ULL);
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return h;
}

static uint64_t ctx_hash(const uint8_t *p, unsigned d)
{
	uint64_t raw = CTX_SEED;
	for (unsigned i = d; i-- > 0;)
		raw = ctx_step(raw, p[i]);
	return ctx_fin(raw, d);
}

static bool ctx_init(ctx_map *m, const uint8_t *s, size_t n)
{
	memset(m, 0, sizeof *m);
	m->s = s;
	m->mask = (1u << 16) - 1;
	m->slot = calloc(m->mask + 1, sizeof *m->slot);
	m->cap = 1u << 14;
	m->ent = malloc(m->cap * sizeof *m->ent);
	m->bloom_bits = ctx_bloom_bits(n);
	m->bloom = calloc((size_t)1 << (m->bloom_bits - 6), sizeof *m->bloom);
	m->dir = calloc(CTX_DIR, sizeof *m->dir);
	return m->slot && m->ent && m->bloom && m->dir;
}

static void ctx_free(ctx_map *m)
{
	free(m->slot);
	free(m->ent);
	free(m->bloom);
	free(m->dir);
}

/* Find the context s[pos..pos+d); returns its id or -1. */
static long ctx_find(const ctx_map *m, size_t pos, unsigned d, uint64_t h)
{
	const uint8_t *p = m->s + pos;
	if (d <= 2)
		return (long)m->dir[ctx_dir_ix(p, d)] - 1;
	uint64_t b = h >> (64 - m->bloom_bits);
	if (!(m->bloom[b >> 6] >> (b & 63) & 1))
		return -1;
	for (size_t i = h & m->mask;; i = (i + 1) & m->mask) {
		uint32_t v = m->slot[i];
		if (!v)
			return -1;
		const ctx_ent *e = &m->ent[v - 1];
		if (e->d == d && !memcmp(m->s + e->pos, p, d))
			return (long)(v - 1);
	}
}

static long ctx_add(ctx_map *m, size_t pos, unsigned d, uint64_t h)
{
	if (m->n == m->cap) {
		ctx_ent *ne = realloc(m->ent, 2 * m->cap * sizeof *ne);
		if (!ne)
			return -1;
		m->ent = ne;
		m->cap *= 2;
	}
	if (2 * (m->n + 1) > m->mask + 1) {
		size_t nm = 2 * (m->mask + 1) - 1;
		uint32_t *ns = calloc(nm + 1, sizeof *ns);
		if (!ns)
			return -1;
		for (size_t j = 0; j < m->n; j++) {
			const ctx_ent *e = &m->ent[j];
			size_t i = ctx_hash(m->s + e->pos, e->d) & nm;
			while (ns[i])
				i = (i + 1) & nm;
			ns[i] = (uint32_t)(j + 1);
		}
		free(m->slot);
		m->slot = ns;
		m->mask = nm;
	}
	size_t i = h & m->mask;
	while (m->slot[i])
		i = (i + 1) & m->mask;
	uint64_t b = h >> (64 - m->bloom_bits);
	m->bloom[b >> 6] |= 1ull << (b & 63);
	m->ent[m->n] = (ctx_ent){(uint32_t)pos, (uint8_t)d, 0, 0};
	if (d <= 2)
		m->dir[ctx_dir_ix(m->s + pos, d)] = (uint32_t)(m->n + 1);
	m->slot[i] = (uint32_t)(m->n + 1);
	return (long)m->n++;
}

typedef struct {
	uint64_t *key;   /* key + 1, 0 = empty */
	uint32_t *val;
	size_t mask, n;
} pair_map;

static bool pair_init(pair_map *m)
{
	m->mask = (1u << 16) - 1;
	m->n = 0;
	m->key = calloc(m->mask + 1, sizeof *m->key);
	m->val = calloc(m->mask + 1, sizeof *m->val);
	return m->key && m->val;
}

static void pair_free(pair_map *m)
{
	free(m->key);
	free(m->val);
}

static inline size_t pair_h(uint64_t k)
{
	k ^= k >> 31;
	k *= 0x94d049bb133111ebULL;
	k ^= k >> 29;
	return (size_t)k;
}

/* Returns the slot of key k (existing or empty). */
static size_t pair_slot(const pair_map *m, uint64_t k)
{
	for (size_t i = pair_h(k) & m->mask;; i = (i + 1) & m->mask)
		if (!m->key[i] || m->key[i] == k + 1)
			return i;
}

static bool pair_grow(pair_map *m)
{
	if (2 * (m->n + 1) <= m->mask + 1)
		return true;
	size_t nm = 2 * (m->mask + 1) - 1;
	uint64_t *nk = calloc(nm + 1, sizeof *nk);
	uint32_t *nv = calloc(nm + 1, sizeof *nv);
	if (!nk || !nv) {
		free(nk); free(nv);
		return false;
	}
	for (size_t j = 0; j <= m->mask; j++) {
		if (!m->key[j])
			continue;
		size_t i = pair_h(m->key[j] - 1) & nm;
		while (nk[i])
			i = (i + 1) & nm;
		nk[i] = m->key[j];
		nv[i] = m->val[j];
	}
	free(m->key); free(m->val);
	m->key = nk; m->val = nv; m->mask = nm;
	return true;
}

/* Count y after context id; returns the new count, 0 if not added. */
static uint32_t pair_bump(pair_map *m, uint64_t id, unsigned y, bool may_add, bool *added)
{
	uint64_t k = id << 8 | y;
	size_t i = pair_slot(m, k);
	*added = false;
	if (m->key[i])
		return ++m->val[i];
	if (!may_add)
		return 0;
	if (!pair_grow(m))
		return 0;
	i = pair_slot(m, k);
	m->key[i] = k + 1;
	m->val[i] = 1;
	m->n++;
	*added = true;
	return 1;
}

/* The dictionaries only matter for contexts that occur more than once: a
 * context's counts are read only by a later occurrence, and its lookup
 * finds something only after an earlier one. lp[p] / rp[p]: how long a
 * context starting at p may be and still occur before / after p (see
 * ng_repeat_lengths); with ng_assess_general, every length (cap). */
bool ng_assess_general = false;

static bool repeats(const uint8_t *s, size_t n, unsigned k, unsigned cap, uint8_t **lp, uint8_t **rp)
{
	*lp = malloc(n);
	*rp = malloc(n);
	if (!*lp || !*rp)
		return false;
	if (ng_assess_general || !ng_repeat_lengths(s, n, k, cap, *lp, *rp)) {
		memset(*lp, (int)cap, n);
		memset(*rp, (int)cap, n);
	}
	return true;
}

/* ---- 6.3.9 MultiMMC ---- */
#define MMC_D 16
#define MMC_MAX 100000u

/* Direct tables for the low orders of MultiMMC and LZ78Y on literal data:
 * with b bits per symbol, the context of order d is the number its d
 * symbols spell (b bits each, the latest lowest), so order d indexes its
 * counts [context][y] and its best prediction [context] without hashing;
 * a context is present iff its best count is non-zero, as a stored one
 * always has a pair. Orders up to dd are direct, dd the highest whose
 * count table holds at most DIR_CELLS cells (calloc'd: only the contexts
 * the data uses are touched). */
#define DIR_CELLS ((size_t)1 << 22)
typedef struct {
	uint32_t cnt;
	uint8_t y;
} dir_best;

typedef struct {
	unsigned b, dd;
	bool big;           /* the top order's counts outgrow the L2 cache */
	uint32_t *cnt[MMC_D + 1];
	dir_best *best[MMC_D + 1];
} dir_tab;

static bool dir_init(dir_tab *t, unsigned k, unsigned maxd)
{
	memset(t, 0, sizeof *t);
	if (ng_assess_general)
		return true;
	while ((1u << t->b) < k)
		t->b++;
	while (t->dd < maxd && ((size_t)1 << (t->b * (t->dd + 2))) <= DIR_CELLS)
		t->dd++;
	t->big = t->dd && ((size_t)1 << (t->b * (t->dd + 1))) > ((size_t)1 << 18);
	for (unsigned d = 1; d <= t->dd; d++) {
		t->cnt[d] = calloc((size_t)1 << (t->b * (d + 1)), sizeof *t->cnt[d]);
		t->best[d] = calloc((size_t)1 << (t->b * d), sizeof *t->best[d]);
		if (!t->cnt[d] || !t->best[d])
			return false;
	}
	return true;
}

/* The top direct order's table, when big, is the one that misses the
 * caches (k=16: 4 MiB of counts); the data is all known, so the row that MultiMMC's step
 * q will train (the context ending at q-2, y = s[q-1]) is fetched
 * DIR_AHEAD steps early. (LZ78Y, whose dictionary is full after 65,536
 * prefixes, measured no faster with it.) */
#define DIR_AHEAD 16
static inline void dir_prefetch(const dir_tab *t, const uint8_t *s, size_t q)
{
	size_t c = 0;
	for (unsigned d = 1; d <= t->dd; d++)
		c |= (size_t)s[q - 1 - d] << (t->b * (d - 1));
	__builtin_prefetch(&t->cnt[t->dd][c << t->b | s[q - 1]]);
	__builtin_prefetch(&t->best[t->dd][c]);
}

static void dir_free(dir_tab *t)
{
	for (unsigned d = 1; d <= t->dd; d++) {
		free(t->cnt[d]);
		free(t->best[d]);
	}
}


/* One 64-position block of binary MultiMMC's orders 1 to MMC_D - 1, all in
 * one pass over the block: their tables (order d at tab + (1 << d)) fit
 * the caches together, and the orders' loads and stores are independent,
 * so they overlap. These orders never fill (2^(d+1) pairs), so a context's
 * state is one int32: 0 unseen, else 2 (c1 - c0) + 1, whose sign is the
 * prediction (negative: 0; ties predict 1, as e[1] >= e[0] does); a seen
 * state is odd. Per position and order it leaves one byte, the state
 * rotated left by one: bit 0 the sign, bit 1 whether the context was seen,
 * packed to words by the caller. first: the block holds positions below
 * MMC_D, where only the lower orders have a context; positions before d
 * leave st[d - 1] as it is (0: unseen). */
static inline __attribute__((always_inline)) void mmc_low_block(int32_t *tab, const uint8_t *s, size_t lo, size_t hi,
								 uint8_t (*st)[64], bool first)
{
	uint32_t hist = 0;
	for (size_t i = lo >= 16 ? lo - 16 : 0; i < lo; i++)
		hist = (hist << 1) | s[i];
	for (size_t i = lo; i < hi; i++) {
		unsigned x = s[i], t = i % 64;
		int32_t dx = x ? 2 : -2;
#pragma GCC unroll 15
		for (unsigned d = 1; d < MMC_D; d++) {
			if (first && i < d)
				continue;
			int32_t *e = tab + (1u << d) + (hist & ((1u << d) - 1)), v = *e;
			/* one rotate: bit 0 the sign, bit 1 "seen" (v odd) */
			st[d - 1][t] = (uint8_t)((uint32_t)v << 1 | (uint32_t)v >> 31);
			*e = v + (v == 0) + dx;
		}
		hist = (hist << 1) | x;
	}
}

/* Binary MultiMMC. Order d's counts depend only on the data, so passes
 * over the data (the orders below MMC_D together, then MMC_D) give, per
 * position, whether its context has been seen (nz) and whether its
 * prediction is right (eq); as in the scalar loop, the context an order
 * predicts from at i is the one it trains with s[i] right after. Orders
 * are used only while every lower one has a prediction (alive). Then a
 * scoreboard pass over the hit words, 64 positions at a time: the winner
 * always holds the highest score (scores only grow, and an order takes
 * over only by reaching it), so only the orders whose score at a block's
 * end reaches the highest at its start can take over; the others just add
 * their popcount, and the few candidates are replayed in the scalar
 * loop's order, so ties resolve as there. Returns false (nothing done) on
 * data too long for the int32 states or out of memory. */
static bool mmc_binary(const uint8_t *s, size_t n, ng_score *sc)
{
	if (n >= (size_t)1 << 30)
		return false;
	size_t nw = (n + 63) / 64;
	uint64_t *hit = malloc((size_t)MMC_D * nw * sizeof *hit);
	uint64_t *alive = malloc(nw * sizeof *alive);
	int32_t *tab = calloc((size_t)1 << MMC_D, sizeof *tab);
	/* order MMC_D, which can fill: [context][next bit] */
	uint32_t (*top)[2] = calloc((size_t)1 << MMC_D, sizeof *top);
	if (!hit || !alive || !tab || !top) {
		free(hit); free(alive); free(tab); free(top);
		return false;
	}
	memset(alive, 0xff, nw * sizeof *alive);
	alive[0] &= ~3ULL; /* predictions from i = 2 */
	if (n % 64)
		alive[nw - 1] &= (1ULL << (n % 64)) - 1;
	uint8_t st[MMC_D - 1][64], xb[64];
	memset(st, 0, sizeof st); /* bytes never written: unseen */
	for (size_t j = 0; j < nw; j++) {
		size_t lo = j * 64, hi = n - lo < 64 ? n : lo + 64;
		if (j == 0)
			mmc_low_block(tab, s, lo, hi, st, true);
		else
			mmc_low_block(tab, s, lo, hi, st, false);
		memset(xb, 0, sizeof xb);
		memcpy(xb, s + lo, hi - lo);
		uint64_t xw = pack64(xb);
		for (unsigned d = 1; d < MMC_D; d++) {
			alive[j] &= pack64_bit(st[d - 1], 1);
			hit[(size_t)(d - 1) * nw + j] = alive[j] & (pack64_bit(st[d - 1], 0) ^ xw);
		}
	}
	free(tab);
	uint32_t mask = (1u << MMC_D) - 1, entries = 0, hist = 0;
	uint64_t *h = hit + (size_t)(MMC_D - 1) * nw;
	for (size_t i = 0; i < MMC_D && i < n; i++)
		hist = (hist << 1) | s[i];
	for (size_t j = 0; j < nw; j++) {
		/* positions before MMC_D have no context of order MMC_D */
		size_t lo = j * 64 > MMC_D ? j * 64 : MMC_D, hi = n - j * 64 < 64 ? n : j * 64 + 64;
		uint64_t nzw = 0, eqw = 0;
		for (size_t i = lo; i < hi; i++) {
			unsigned x = s[i];
			uint32_t *e = top[hist & mask];
			uint64_t nzb = (e[0] | e[1]) != 0, eq = (e[1] >= e[0]) == x;
			nzw |= nzb << (i % 64);
			eqw |= eq << (i % 64);
			if (e[x])
				e[x]++;
			else if (entries < MMC_MAX) {
				e[x] = 1;
				entries++;
			}
			hist = (hist << 1) | x;
		}
		alive[j] &= nzw;
		h[j] = alive[j] & eqw;
	}
	free(top);
	free(alive);
	uint64_t sb[MMC_D + 1] = {0};
	unsigned winner = 1;
	for (size_t j = 0; j < nw; j++) {
		size_t b = j * 64;
		uint64_t valid = n - b >= 64 ? ~0ULL : (1ULL << (n - b)) - 1;
		if (b == 0)
			valid &= ~3ULL; /* the first prediction is for s[2] */
		score_block(sb, MMC_D, hit + j, nw, valid, &winner, sc);
	}
	free(hit);
	return true;
}

void ng_est_multi_mmc(const uint8_t *s, size_t n, unsigned k, ng_est_result *r)
{
	ng_est_multi_mmc_rep(s, n, k, NULL, NULL, r);
}

_Static_assert(MMC_D == NG_REPEAT_CAP, "shared repeat lengths");
void ng_est_multi_mmc_rep(const uint8_t *s, size_t n, unsigned k, const uint8_t *prev,
		     const uint8_t *next, ng_est_result *r)
{
	if (n < 3) {
		ng_est_fail(r, "needs at least 3 samples");
		return;
	}
	memset(r, 0, sizeof *r);
	ng_score sc = {0, 0, 0};
	if (k <= 2 && mmc_binary(s, n, &sc)) {
		ng_est_predict_finish(sc.C, n - 2, sc.longest, k, r);
		return;
	}
	ctx_map cm;
	pair_map pm;
	uint8_t *lpo = NULL, *rpo = NULL;
	dir_tab dt;
	bool ok1 = ctx_init(&cm, s, n), ok2 = pair_init(&pm), ok3 = prev && next ? true : repeats(s, n, k, MMC_D, &lpo, &rpo);
	bool ok4 = dir_init(&dt, k, MMC_D), ok = ok1 && ok2 && ok3 && ok4;
	const uint8_t *lp = prev && next ? prev : lpo, *rp = prev && next ? next : rpo;
	uint32_t entries[MMC_D + 1] = {0};
	uint64_t sb[MMC_D + 1] = {0};
	unsigned winner = 1;
	/* the contexts the last prediction looked up (ending at i-2): their
	 * ids (-1 missing, -2 not looked up) and hashes */
	long cid[MMC_D + 1];
	uint64_t chh[MMC_D + 1];
	for (unsigned d = 0; d <= MMC_D; d++)
		cid[d] = -2;
	/* mixed[d]: at some step order d was full (entries[d] at MMC_MAX) while
	 * order d+1 was not. Until then every context of order d+1 that was
	 * added had its suffix of order d present or added in the same step,
	 * so a missing context of a full order d means its extensions are
	 * missing too, and (order d+1 being full as well) nothing above d is
	 * trained: those lookups are skipped. */
	bool mixed[MMC_D + 1] = {false};
	for (size_t i = 2; ok && i < n; i++) {
		if (dt.big && i + DIR_AHEAD < n)
			dir_prefetch(&dt, s, i + DIR_AHEAD);
		unsigned y = s[i - 1];
		for (unsigned d = 1; d < MMC_D; d++)
			if (entries[d] >= MMC_MAX && entries[d + 1] < MMC_MAX)
				mixed[d] = true;
		/* train with contexts ending at i-2 */
		uint64_t raw = CTX_SEED;
		size_t dix = 0;
		bool absent = false; /* this order's context is surely missing */
		unsigned dmax = i - 1 < MMC_D ? (unsigned)(i - 1) : MMC_D;
		for (unsigned d = 1; d <= dmax; d++) {
			size_t pos = i - 1 - d;
			if (d > lp[pos] && d > rp[pos]) {
				/* occurs only here, and so do the longer ones: new
				 * pairs that nothing will look up; only counted */
				for (unsigned e = d; e <= dmax; e++)
					entries[e] += entries[e] < MMC_MAX;
				break;
			}
			bool may = entries[d] < MMC_MAX, added;
			raw = ctx_step(raw, s[pos]);
			if (d <= dt.dd)
				dix |= (size_t)s[pos] << (dt.b * (d - 1));
			if (absent && !may) {
				absent = !mixed[d];
				continue;
			}
			if (d <= dt.dd) {
				dir_best *e = &dt.best[d][dix];
				if (!e->cnt && !may) {
					absent = !mixed[d];
					continue;
				}
				uint32_t *cp = &dt.cnt[d][dix << dt.b | y], c;
				if (*cp)
					c = ++*cp;
				else if (may) {
					c = *cp = 1;
					entries[d]++;
				} else
					continue;
				if (c > e->cnt || (c == e->cnt && y > e->y)) {
					e->cnt = c;
					e->y = (uint8_t)y;
				}
				continue;
			}
			uint64_t hh = cid[d] == -2 ? ctx_fin(raw, d) : chh[d];
			long id = cid[d] == -2 ? ctx_find(&cm, pos, d, hh) : cid[d];
			if (id < 0) {
				if (!may) {
					absent = !mixed[d];
					continue;
				}
				id = ctx_add(&cm, pos, d, hh);
				if (id < 0) {
					ok = false;
					break;
				}
			}
			uint32_t c = pair_bump(&pm, (uint64_t)id, y, may, &added);
			if (added)
				entries[d]++;
			if (!c)
				continue;
			ctx_ent *e = &cm.ent[id];
			if (c > e->best_cnt || (c == e->best_cnt && y > e->best_y)) {
				e->best_cnt = c;
				e->best_y = (uint8_t)y;
			}
		}
		int pred[MMC_D + 1];
		for (unsigned d = 1; d <= MMC_D; d++)
			pred[d] = -1;
		for (unsigned d = 0; d <= MMC_D; d++)
			cid[d] = -2;
		raw = CTX_SEED;
		dix = 0;
		for (unsigned d = 1; d <= MMC_D && d <= i; d++) {
			size_t pos = i - d;
			if (d > lp[pos]) /* not seen before: missing */
				break;
			raw = ctx_step(raw, s[pos]);
			if (d <= dt.dd) {
				dix |= (size_t)s[pos] << (dt.b * (d - 1));
				const dir_best *e = &dt.best[d][dix];
				if (!e->cnt)
					break;
				pred[d] = e->y;
				continue;
			}
			chh[d] = ctx_fin(raw, d);
			long id = ctx_find(&cm, pos, d, chh[d]);
			cid[d] = id;
			if (id < 0 || !cm.ent[id].best_cnt)
				break;
			pred[d] = cm.ent[id].best_y;
		}
		unsigned x = s[i];
		score_add(&sc, pred[winner] == (int)x);
		for (unsigned d = 1; d <= MMC_D; d++) {
			if (pred[d] < 0)
				break;
			if (pred[d] == (int)x) {
				sb[d]++;
				if (sb[d] >= sb[winner])
					winner = d;
			}
		}
	}
	ctx_free(&cm);
	pair_free(&pm);
	dir_free(&dt);
	free(lpo);
	free(rpo);
	if (!ok) {
		ng_est_fail(r, "out of memory");
		return;
	}
	ng_est_predict_finish(sc.C, n - 2, sc.longest, k, r);
}

/* ---- 6.3.10 LZ78Y ---- */
#define LZ_B 16
#define LZ_MAX 65536u

/* One step of binary LZ78Y: the prediction from the prefixes of hist (the
 * last LZ_B bits), then their training with x. As in mmc_binary, the
 * prefixes the prediction at i reads are the ones the training of step i+1
 * updates (with s[i]), so each is read and then trained in one visit; a
 * prefix is in the dictionary iff its slot is non-zero. A slot holds both
 * counts, 2 c0 low and 2 c1 + 1 high (0 when absent), so one load gives
 * the prediction and one store the training: the larger half is 2 v + the
 * prediction (v = the larger count; c1 >= c0 predicts 1), and a shorter
 * prefix takes over when its 2 v + p exceeds the best's 2 v + 1. A
 * present prefix's counts never exceed a present suffix's (the suffix was
 * admitted no later, else the dictionary was full when it came, and it is
 * trained whenever the prefix is), so when order 2 is present with a
 * smaller v than order 1, order 1 predicts and the others need no look.
 * The orders are unrolled and branch-free:
 * their loads and stores are independent, and which prefixes are new is
 * data-dependent. The dictionary's state picks the step: LZ_ROOM, room
 * for all LZ_B prefixes (every one is admitted, so their order does not
 * matter); LZ_FULL, only the present ones are trained; LZ_EXACT, for the
 * steps in between, admits new ones longest first, as the reference. */
enum { LZ_ROOM, LZ_FULL, LZ_EXACT };

static inline __attribute__((always_inline)) int lz_step(uint64_t *cnt, uint32_t hist, unsigned x,
							  size_t *dsize, int state)
{
	const uint64_t one = 1ULL << 32; /* a new slot: c1's half starts at 1 */
	uint64_t inc = x ? 2ULL << 32 : 2, ev[LZ_B + 1];
	unsigned fresh = 0;
#pragma GCC unroll 16
	for (unsigned j = LZ_B; j >= 1; j--) {
		uint64_t *p = cnt + (1u << j) + (hist & ((1u << j) - 1)), e = *p;
		ev[j] = e;
		if (state == LZ_ROOM) {
			fresh += !e;
			*p = (e | one) + inc; /* a present slot's high half is odd */
		} else if (state == LZ_FULL)
			*p = e + (e ? inc : 0);
		else if (e || *dsize < LZ_MAX) {
			*dsize += !e;
			*p = (e | one) + inc;
		}
	}
	*dsize += fresh;
	uint32_t k1 = (uint32_t)(ev[1] >> 32) > (uint32_t)ev[1] ? (uint32_t)(ev[1] >> 32) : (uint32_t)ev[1];
	uint32_t k2 = (uint32_t)(ev[2] >> 32) > (uint32_t)ev[2] ? (uint32_t)(ev[2] >> 32) : (uint32_t)ev[2];
	/* a present prefix's counts are at most its present suffixes' (the
	 * suffix was admitted no later, and is trained whenever it is): when
	 * order 2 is present with a smaller v than order 1, every longer one
	 * is too, and order 1 predicts */
	if (ev[2] && (k2 >> 1) < (k1 >> 1))
		return (int)(k1 & 1);
	uint32_t best = 0;
#pragma GCC unroll 16
	for (unsigned j = LZ_B; j >= 1; j--) {
		uint32_t lo = (uint32_t)ev[j], hi = (uint32_t)(ev[j] >> 32), key = hi > lo ? hi : lo;
		/* longest first: a shorter prefix takes over only with more */
		best = key > (best | 1) ? key : best;
	}
	return best ? (int)(best & 1) : -1;
}

/* Binary LZ78Y (prefix of length j, value c: slot (1 << j) + c). */
static void lz_binary(const uint8_t *s, size_t n, ng_score *sc)
{
	uint64_t *cnt = calloc((size_t)2 << LZ_B, sizeof *cnt);
	size_t dsize = 0;
	if (!cnt)
		return;
	uint32_t hist = 0;
	for (size_t i = 0; i < LZ_B; i++)
		hist = (hist << 1) | s[i];
	for (size_t i = LZ_B; i < n; i++) {
		unsigned x = s[i];
		int pred = dsize + LZ_B <= LZ_MAX ? lz_step(cnt, hist, x, &dsize, LZ_ROOM)
			 : dsize == LZ_MAX ? lz_step(cnt, hist, x, &dsize, LZ_FULL)
			 : lz_step(cnt, hist, x, &dsize, LZ_EXACT);
		if (i > LZ_B)
			score_add(sc, pred == (int)x);
		hist = (hist << 1) | x;
	}
	free(cnt);
}

void ng_est_lz78y(const uint8_t *s, size_t n, unsigned k, ng_est_result *r)
{
	ng_est_lz78y_rep(s, n, k, NULL, NULL, r);
}

_Static_assert(LZ_B == NG_REPEAT_CAP, "shared repeat lengths");
void ng_est_lz78y_rep(const uint8_t *s, size_t n, unsigned k, const uint8_t *prev,
		 const uint8_t *next, ng_est_result *r)
{
	if (n <= LZ_B + 2) {
		ng_est_fail(r, "needs more than 18 samples");
		return;
	}
	memset(r, 0, sizeof *r);
	ng_score sc = {0, 0, 0};
	if (k <= 2 && n < (size_t)1 << 31) { /* each count's 2 c + 1 fits 32 bits */
		lz_binary(s, n, &sc);
		ng_est_predict_finish(sc.C, n - LZ_B - 1, sc.longest, k, r);
		return;
	}
	ctx_map cm;
	pair_map pm;
	uint8_t *lpo = NULL, *rpo = NULL;
	dir_tab dt;
	bool ok1 = ctx_init(&cm, s, n), ok2 = pair_init(&pm), ok3 = prev && next ? true : repeats(s, n, k, LZ_B, &lpo, &rpo);
	bool ok4 = dir_init(&dt, k, LZ_B), ok = ok1 && ok2 && ok3 && ok4, added;
	const uint8_t *lp = prev && next ? prev : lpo, *rp = prev && next ? next : rpo;
	size_t dix[LZ_B + 1];
	size_t dsize = 0; /* prefixes in the dictionary, stored or not */
	/* the prefixes the last prediction looked up (ending at i-2) */
	long cid[LZ_B + 1];
	uint64_t chh[LZ_B + 1];
	bool cached = false;
	for (size_t i = LZ_B + 1; ok && i < n; i++) {
		unsigned y = s[i - 1];
		if (!cached) {
			uint64_t raw = CTX_SEED;
			for (unsigned j = 1; j <= LZ_B; j++) {
				raw = ctx_step(raw, s[i - 1 - j]);
				chh[j] = ctx_fin(raw, j);
				cid[j] = j > lp[i - 1 - j] ? -1 : ctx_find(&cm, i - 1 - j, j, chh[j]);
			}
		}
		dix[0] = 0;
		for (unsigned j = 1; j <= dt.dd; j++)
			dix[j] = dix[j - 1] | (size_t)s[i - 1 - j] << (dt.b * (j - 1));
		for (unsigned j = LZ_B; j >= 1; j--) {
			size_t pos = i - 1 - j;
			if (j <= dt.dd) {
				dir_best *e = &dt.best[j][dix[j]];
				if (!e->cnt) {
					if (dsize >= LZ_MAX)
						continue;
					dsize++;
					if (j > rp[pos])
						continue;
				}
				uint32_t c = ++dt.cnt[j][dix[j] << dt.b | y];
				if (c > e->cnt || (c == e->cnt && y > e->y)) {
					e->cnt = c;
					e->y = (uint8_t)y;
				}
				continue;
			}
			uint64_t hh = chh[j];
			long id = cid[j];
			if (id < 0) {
				if (dsize >= LZ_MAX)
					continue;
				dsize++;
				if (j > rp[pos]) /* added, but never looked up */
					continue;
				id = ctx_add(&cm, pos, j, hh);
				if (id < 0) {
					ok = false;
					break;
				}
			}
			uint32_t c = pair_bump(&pm, (uint64_t)id, y, true, &added);
			if (!c) {
				ok = false;
				break;
			}
			ctx_ent *e = &cm.ent[id];
			/* ties within a prefix go to the larger symbol */
			if (c > e->best_cnt || (c == e->best_cnt && y > e->best_y)) {
				e->best_cnt = c;
				e->best_y = (uint8_t)y;
			}
		}
		int pred = -1;
		uint32_t maxc = 0;
		uint64_t raw = CTX_SEED;
		dix[0] = 0;
		for (unsigned j = 1; j <= LZ_B; j++) {
			raw = ctx_step(raw, s[i - j]);
			if (j <= dt.dd) {
				dix[j] = dix[j - 1] | (size_t)s[i - j] << (dt.b * (j - 1));
				continue;
			}
			chh[j] = ctx_fin(raw, j);
			cid[j] = j > lp[i - j] ? -1 : ctx_find(&cm, i - j, j, chh[j]);
		}
		cached = true;
		for (unsigned j = LZ_B; j >= 1; j--) {
			if (j <= dt.dd) {
				const dir_best *e = &dt.best[j][dix[j]];
				if (e->cnt > maxc) {
					maxc = e->cnt;
					pred = e->y;
				}
				continue;
			}
			long id = cid[j];
			if (id < 0)
				continue;
			if (cm.ent[id].best_cnt > maxc) {
				maxc = cm.ent[id].best_cnt;
				pred = cm.ent[id].best_y;
			}
		}
		score_add(&sc, pred == (int)s[i]);
	}
	ctx_free(&cm);
	pair_free(&pm);
	dir_free(&dt);
	free(lpo);
	free(rpo);
	if (!ok) {
		ng_est_fail(r, "out of memory");
		return;
	}
	ng_est_predict_finish(sc.C, n - LZ_B - 1, sc.longest, k, r);
}
