/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The IID track: permutation tests (SP 800-90B 5.1), chi-square and LRS
 * tests (5.2), and the IID estimate (MCV, 6.3.1). */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "assess.h"
#include "sort.h"
#include "xoshiro.h"

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

/* The excursion's walk while Fisher-Yates fixes positions from the end:
 * s is S_hi, the sum of y[0..hi] for the highest position hi not yet
 * checked (total minus the fixed suffix, exact in integers), d its
 * |S_hi - (hi+1) mean|, best the largest |S_p - (p+1) mean| found so far;
 * step bounds |mean - y| (the values lie in [vmin, vmax]). */
typedef struct {
	double mean, step;
	int64_t s;
	double d, best;
} exc_walk;

/* The walk before any position of n (n >= 1) is checked */
static exc_walk exc_walk_start(size_t n, uint64_t total, unsigned vmin, unsigned vmax)
{
	double mean = (double)total / (double)n;
	return (exc_walk){mean, vmax - mean > mean - vmin ? vmax - mean : mean - vmin, (int64_t)total,
			  fabs((double)total - (double)n * mean), 0};
}

/* Positions hi down to lo, just fixed and still in the cache. Each one's
 * |S_p - (p+1) mean| is ng_perm_excursion's double expression, so a
 * maximum found here is bit-identical to its. The block is skipped when
 * none of its positions can reach tau: the walk moves by mean - y[q] <=
 * step a position, so |S_p - (p+1) mean| is within (hi - p) step of the
 * block's top end and within (p - lo + 1) step of its bottom end
 * (position lo - 1, the next block's top), at most half their sum plus
 * (hi - lo + 1) step / 2; the doubles' rounding stays below 2^-11 (sums
 * below 2^40), covered by the 2 added. */
static inline void exc_block(exc_walk *w, const uint8_t *y, size_t lo, size_t hi, double tau)
{
	uint32_t sum = 0;   /* hi - lo < 2^24 */
	for (size_t p = lo; p <= hi; p++)
		sum += y[p];
	int64_t s_lo = w->s - sum;   /* S_(lo-1) */
	double d_lo = fabs((double)s_lo - (double)lo * w->mean);
	if ((w->d + d_lo + (double)(hi - lo + 1) * w->step) / 2 + 2 >= tau) {
		int64_t s = w->s;
		for (size_t p = hi + 1; p-- > lo;) {
			double d = fabs((double)s - (double)(p + 1) * w->mean);
			w->best = d > w->best ? d : w->best;
			s -= y[p];
		}
	}
	w->s = s_lo;
	w->d = d_lo;
}

/* Fisher-Yates steps from position i down to stop or one below it (a
 * pair of steps a draw), stop >= 1; returns the next position to fix.
 *
 * The draws take the 32-bit halves of the xoshiro outputs in order, high
 * then low (ng_draw32), so both halves of one output usually serve two
 * consecutive steps. That common case runs on a local copy of the
 * generator (y's byte stores may alias *g, which would force its state
 * through memory every step); a rejection (probability bound / 2^32) goes
 * through ng_draw32 with the low half pending until the halves line up
 * again, so the stream is the same either way. Not inlined: the loop keeps
 * the generator in registers only when nothing else competes for them. */
static __attribute__((noinline)) size_t fy_steps(uint8_t *y, size_t i, size_t stop, ng_draw32 *dr)
{
#define STEP(kk)                        \
	do {                            \
		size_t k_ = (kk);       \
		uint8_t v_ = y[k_];     \
		y[k_] = y[i];           \
		y[i] = v_;              \
		i--;                    \
	} while (0)
	ng_xoshiro *g = dr->g, lg = *g;   /* a local no store through y can reach */
	while (i > stop) {
		uint64_t r = ng_xoshiro_step(&lg);
		uint32_t b1 = (uint32_t)(i + 1), b2 = (uint32_t)i;
		uint64_t m1 = (uint64_t)(uint32_t)(r >> 32) * b1, m2 = (uint64_t)(uint32_t)r * b2;
		if (__builtin_expect((uint32_t)m1 >= b1 && (uint32_t)m2 >= b2, 1)) {
			STEP(m1 >> 32);
			STEP(m2 >> 32);
			continue;
		}
		/* the general path, with the output's low half pending */
		*g = lg;
		dr->low = (uint32_t)r;
		dr->have = 1;
		uint32_t l = (uint32_t)m1;
		if (l < b1) {
			uint32_t t = (uint32_t)(-b1) % b1;
			while (l < t) {
				m1 = (uint64_t)ng_draw32_next(dr) * b1;
				l = (uint32_t)m1;
			}
		}
		STEP(m1 >> 32);
		while (dr->have && i > 0)
			STEP(ng_draw32_below(dr, (uint32_t)(i + 1)));
		lg = *g;
	}
	*g = lg;
	if (i == 1 && stop == 1)
		STEP(ng_draw32_below(dr, 2));
#undef STEP
	return i;
}

#define EXC_BLOCK 64
#define EXC_BLOCK_BAR 256

/* Fisher-Yates from the end with the excursion. The shuffle fixes y[n-1],
 * y[n-2], ... in that order, so the excursion's prefix sums come for free
 * as total minus the fixed suffix; they are checked a block of fixed
 * positions at a time, while those are in the cache (exc_block). Against a
 * finite bar, most blocks are far below it and the blocks are longer (fewer
 * checks); for the maximum itself, shorter (a tighter bound, fewer
 * positions scanned near the running maximum). With stop, a round ends, the
 * shuffle unfinished, once the excursion is above the bar. */
static double shuffle_excursion(uint8_t *y, size_t n, ng_xoshiro *g, uint64_t total, unsigned vmin,
				unsigned vmax, double bar, bool stop)
{
	if (n == 0)
		return 0;
	ng_draw32 dr = {g, 0, 0};
	exc_walk w = exc_walk_start(n, total, vmin, vmax);
	bool capped = bar < INFINITY;
	size_t hi = n - 1, i = n - 1;   /* positions above hi are checked */
	size_t blk = capped ? EXC_BLOCK_BAR : EXC_BLOCK;
	while (i > 0) {
		i = fy_steps(y, i, hi > blk + 1 ? hi - blk : 1, &dr);
		if (i == 0)
			break;
		exc_block(&w, y, i + 1, hi, capped ? bar : w.best);
		hi = i;
		if (stop && capped && w.best > bar)
			return w.best;
	}
	exc_block(&w, y, 0, hi, capped ? bar : w.best);
	return w.best;
}

static void fy_shuffle(uint8_t *y, size_t n, ng_xoshiro *g)
{
	ng_draw32 dr = {g, 0, 0};
	if (n > 0)
		fy_steps(y, n - 1, 1, &dr);
}

/* ---- a round's permutation ----
 * Rao and Sandelius's two-level shuffle: every sample is dealt to one of
 * 2^bits buckets, uniformly and independently; the buckets are laid out
 * in order, each keeping its samples in the order they were dealt; and
 * each bucket is shuffled by Fisher-Yates (fy_steps). Uniform buckets and
 * uniform shuffles within them make every arrangement equally likely, as
 * one Fisher-Yates over all the samples does, whatever order the samples
 * are dealt in. They are dealt in increasing order of value (the values'
 * counts are all the dealing needs), so a run of equal values adds one
 * increment to the tally below.
 *
 * Round seed s: the i'th sample in that order goes to the bucket in the
 * (i % per)'th bits-wide field, from the top, of output i / per of a
 * xoshiro256** stream seeded with s (per = 64 / bits fields an output); bucket b's
 * shuffle draws from a stream seeded with s + 4 (b + 1) golden, so every
 * stream has splitmix64 counters of its own. Buckets hold 128 to 255
 * samples on average, more past 2^20 samples (4096 buckets at most).
 *
 * Why: a round with the excursion alone need not lay the samples out. A
 * pass that deals them adds up each bucket's count and sum in a table
 * that stays in the L1 cache. That gives the walk S_p - (p + 1) mean
 * exactly at each bucket's last position and bounds it inside the
 * bucket; only a bucket whose bound reaches the unshuffled value is
 * gathered and shuffled. One Fisher-Yates over all the samples would
 * swap at random places in the whole buffer, bound by the L2 cache. */
#define RS_MAXBITS 12
#define RS_GOLDEN 0x9e3779b97f4a7c15ULL

struct rs_ws {
	uint64_t tab[1u << RS_MAXBITS];   /* count << 40 | sum, per bucket (rs_count, rs_sum) */
	uint32_t off[1u << RS_MAXBITS];   /* where a bucket's next sample goes */
	uint64_t want[(1u << RS_MAXBITS) / 64];
	double dend[1u << RS_MAXBITS];    /* the walk at a bucket's end */
};

static inline uint64_t rs_count(uint64_t e) { return e >> 40; }
static inline uint64_t rs_sum(uint64_t e) { return e & (((uint64_t)1 << 40) - 1); }

typedef struct {
	ng_xoshiro g;
	unsigned bits, per;
} rs_deal;

static void rs_deal_init(rs_deal *d, size_t n, uint64_t seed)
{
	unsigned b = 0;
	while (b < RS_MAXBITS && (n >> (b + 1)) >= 128)
		b++;
	ng_xoshiro_seed(&d->g, seed);
	d->bits = b;
	d->per = b ? 64 / b : 64;
}

/* Runs the statements after cnt with v, a value, and b, its bucket, for
 * the samples in increasing order of value (cnt[v] of value v). The
 * common shape (12 bits, 5 buckets an output) takes whole outputs five
 * buckets at a time; the rest, and every other shape, go field by field.
 * A macro: the statements are a table update or a store, and a call a
 * sample would cost more than they do. */
#define RS_ONE(vv, bb, ...)                  \
	do {                                 \
		unsigned v = (vv);           \
		(void)v;                     \
		unsigned b = (bb);           \
		__VA_ARGS__                  \
	} while (0)
#define RS_DEAL(dl, cnt, ...)                                                                    \
	do {                                                                                     \
		ng_xoshiro g_ = (dl)->g;                                                         \
		unsigned bits_ = (dl)->bits, per_ = (dl)->per, left_ = 0;                        \
		uint64_t r_ = 0;                                                                 \
		for (unsigned v_ = 0; v_ < 256; v_++) {                                          \
			size_t c_ = (cnt)[v_];                                                   \
			if (bits_ == 12 && c_ >= left_) {                                        \
				for (; left_ > 0; left_--, c_--, r_ <<= 12)                      \
					RS_ONE(v_, (unsigned)(r_ >> 52), __VA_ARGS__);           \
				for (; c_ >= 5; c_ -= 5) {                                       \
					uint64_t q_ = ng_xoshiro_step(&g_);                      \
					RS_ONE(v_, (unsigned)(q_ >> 52), __VA_ARGS__);           \
					RS_ONE(v_, (unsigned)(q_ >> 40) & 4095u, __VA_ARGS__);   \
					RS_ONE(v_, (unsigned)(q_ >> 28) & 4095u, __VA_ARGS__);   \
					RS_ONE(v_, (unsigned)(q_ >> 16) & 4095u, __VA_ARGS__);   \
					RS_ONE(v_, (unsigned)(q_ >> 4) & 4095u, __VA_ARGS__);    \
				}                                                                \
			}                                                                        \
			for (; c_ > 0; c_--) {                                                   \
				if (!left_) {                                                    \
					r_ = bits_ ? ng_xoshiro_step(&g_) : 0;                   \
					left_ = per_;                                            \
				}                                                                \
				RS_ONE(v_, bits_ ? (unsigned)(r_ >> (64 - bits_)) : 0u, __VA_ARGS__); \
				r_ = bits_ ? r_ << bits_ : 0;                                    \
				left_--;                                                         \
			}                                                                        \
		}                                                                                \
		(dl)->g = g_;                                                                    \
	} while (0)

void ng_perm_counts(const uint8_t *x, size_t n, uint64_t cnt[256])
{
	ng_byte_counts(x, n, cnt);
}

/* Fisher-Yates on bucket b's m samples z[0..m) */
static void rs_shuffle_bucket(uint8_t *z, size_t m, uint64_t seed, unsigned b)
{
	if (m < 2)
		return;
	ng_xoshiro h;
	ng_xoshiro_seed(&h, seed + 4 * RS_GOLDEN * (b + 1));
	ng_draw32 dr = {&h, 0, 0};
	fy_steps(z, m - 1, 1, &dr);
}

/* Each bucket's count and sum: false when a count passed 2^24 - 1 (it
 * would spill out of its field; not for buckets of a few hundred) */
static bool rs_tally(const uint64_t *cnt, size_t n, uint64_t seed, uint64_t *tab, unsigned *nb)
{
	rs_deal d;
	rs_deal_init(&d, n, seed);
	*nb = 1u << d.bits;
	memset(tab, 0, *nb * sizeof *tab);
	RS_DEAL(&d, cnt, tab[b] += (uint64_t)1 << 40 | v;);
	uint64_t got = 0;
	for (unsigned b = 0; b < *nb; b++)
		got += rs_count(tab[b]);
	return got == n;
}

/* The round's arrangement into y of the samples counted in cnt (n in
 * all): bucket sizes, the samples dealt to their buckets' places, each
 * bucket shuffled. */
static void rs_shuffle(const uint64_t *cnt, uint8_t *y, size_t n, uint64_t seed, uint32_t *off)
{
	rs_deal d;
	rs_deal_init(&d, n, seed);
	unsigned nb = 1u << d.bits;
	memset(off, 0, nb * sizeof *off);
	rs_deal c = d;
	RS_DEAL(&c, cnt, off[b]++;);
	uint32_t s = 0;
	for (unsigned b = 0; b < nb; b++) {
		uint32_t v = off[b];
		off[b] = s;
		s += v;
	}
	RS_DEAL(&d, cnt, y[off[b]++] = (uint8_t)v;);
	/* off[b] is now where bucket b ends */
	for (unsigned b = 0; b < nb; b++) {
		uint32_t lo = b ? off[b - 1] : 0;
		rs_shuffle_bucket(y + lo, off[b] - lo, seed, b);
	}
}

/* The excursion of y[0..n) against a bar (exc_block, a block at a time
 * from the end): the value itself, or with a finite bar a value at most
 * it that compares with bar as it does. */
static double excursion_bar(const uint8_t *y, size_t n, uint64_t total, unsigned vmin, unsigned vmax,
			    double bar)
{
	if (n == 0)
		return 0;
	exc_walk w = exc_walk_start(n, total, vmin, vmax);
	bool capped = bar < INFINITY;
	size_t blk = capped ? EXC_BLOCK_BAR : EXC_BLOCK;
	for (size_t hi = n - 1;; hi -= blk) {
		size_t lo = hi >= blk ? hi - blk + 1 : 0;
		exc_block(&w, y, lo, hi, capped ? bar : w.best);
		if (lo == 0)
			return w.best;
	}
}

/* The excursion of the round's arrangement of x, as excursion_bar gives
 * it, without laying the arrangement out: the walk at every bucket's end
 * from the tally, and inside only the buckets whose bound (exc_block's)
 * reaches the bar, gathered into buf (n bytes) and shuffled. With stop, it
 * returns as soon as the walk is above a finite bar. */
static double rs_excursion(const uint64_t *cnt, uint8_t *buf, size_t n, uint64_t seed, uint64_t total,
			   unsigned vmin, unsigned vmax, double bar, bool stop, struct rs_ws *ws)
{
	if (n == 0)
		return 0;
	unsigned nb;
	if (!rs_tally(cnt, n, seed, ws->tab, &nb)) {
		rs_shuffle(cnt, buf, n, seed, ws->off);
		return excursion_bar(buf, n, total, vmin, vmax, bar);
	}
	exc_walk w = exc_walk_start(n, total, vmin, vmax);
	double mean = w.mean, step = w.step;
	/* the walk at each bucket's last position (an empty bucket's: the
	 * one before), exactly as ng_perm_excursion computes it there */
	double best = 0;
	uint64_t s = 0, p = 0;
	for (unsigned b = 0; b < nb; b++) {
		s += rs_sum(ws->tab[b]);
		p += rs_count(ws->tab[b]);
		double d = fabs((double)s - (double)p * mean);
		ws->dend[b] = d;
		best = d > best ? d : best;
	}
	if (stop && bar < INFINITY && best > bar)
		return best;
	/* the buckets whose inside may reach the bar (without one, the
	 * largest end found so far) */
	double tau = bar < INFINITY ? bar : best;
	memset(ws->want, 0, sizeof ws->want);
	uint32_t wn = 0;
	for (unsigned b = 0; b < nb; b++) {
		uint64_t m = rs_count(ws->tab[b]);
		double d0 = b ? ws->dend[b - 1] : 0;
		if (m > 1 && (d0 + ws->dend[b] + (double)m * step) / 2 + 2 >= tau) {
			ws->want[b / 64] |= (uint64_t)1 << (b % 64);
			ws->off[b] = wn;
			wn += (uint32_t)m;
		}
	}
	if (!wn)
		return best;
	/* gather those buckets' samples in the order they are dealt */
	rs_deal dl;
	rs_deal_init(&dl, n, seed);
	RS_DEAL(&dl, cnt, if (ws->want[b / 64] >> (b % 64) & 1) buf[ws->off[b]++] = (uint8_t)v;);
	/* shuffle each and walk it: ws->off[b] is now where it ends in buf */
	s = p = 0;
	for (unsigned b = 0; b < nb; b++) {
		uint64_t m = rs_count(ws->tab[b]);
		if (ws->want[b / 64] >> (b % 64) & 1) {
			uint8_t *z = buf + ws->off[b] - m;
			rs_shuffle_bucket(z, m, seed, b);
			uint64_t t = s;
			for (uint64_t k = 0; k < m; k++) {
				t += z[k];
				double d = fabs((double)t - (double)(p + k + 1) * mean);
				best = d > best ? d : best;
			}
			if (stop && bar < INFINITY && best > bar)
				return best;
		}
		s += rs_sum(ws->tab[b]);
		p += m;
	}
	return best;
}

/* ---- which arrangement a round takes ----
 * Fisher-Yates (one stream, seeded with the round's seed) until a switch
 * point where the excursion is the one statistic left counting among the
 * cheap 18; from there on the two-level shuffle, if at least half the
 * excursion's rounds so far came out below its unpermuted value, else
 * Fisher-Yates to the end. Rounds run in parallel, so the switch is
 * decided where it does not depend on their timing: at round numbers 16,
 * 32, ..., 512, then 1024, 2048, ..., once every round before is counted
 * (a worker waits for that at most once a switch point, and not at all
 * once the choice is made or the excursion has stopped). A round's
 * arrangement then depends only on the seed and the data. */
bool ng_perm_switch_point(unsigned long r)
{
	return r >= 16 && r % 16 == 0 && (r <= 512 || (r & (r - 1)) == 0);
}

/* the last switch point at or before r, 0 if none */
static unsigned long last_switch_point(unsigned long r)
{
	if (r < 16)
		return 0;
	if (r <= 512)
		return r & ~15ul;
	unsigned long p = 512;
	while (p <= r / 2)
		p *= 2;
	return p;
}

void ng_perm_shuffle(const uint8_t *x, const uint64_t *cnt, uint8_t *y, size_t n, uint64_t seed, bool rs)
{
	if (rs) {
		uint32_t off[1u << RS_MAXBITS];
		uint64_t own[256];
		if (!cnt)
			ng_perm_counts(x, n, own);
		rs_shuffle(cnt ? cnt : own, y, n, seed, off);
		return;
	}
	memcpy(y, x, n);
	ng_xoshiro g;
	ng_xoshiro_seed(&g, seed);
	fy_shuffle(y, n, &g);
}

double ng_perm_shuffle_excursion(const uint8_t *x, const uint64_t *cnt, uint8_t *y, size_t n, uint64_t seed,
				 bool rs, uint64_t total, unsigned vmin, unsigned vmax, double bar)
{
	if (rs) {
		struct rs_ws ws;
		uint64_t own[256];
		if (!cnt)
			ng_perm_counts(x, n, own);
		return rs_excursion(cnt ? cnt : own, y, n, seed, total, vmin, vmax, bar, true, &ws);
	}
	memcpy(y, x, n);
	ng_xoshiro g;
	ng_xoshiro_seed(&g, seed);
	return shuffle_excursion(y, n, &g, total, vmin, vmax, bar, true);
}

/* Runs of equal bits in a bit sequence d_0, d_1, ..., fed 64 at a time
 * (bit j of a word is d_(64w + j)). s_i = [d_i = d_(i-1)], s_0 = 0: each
 * run starts at a 0 of s, so the runs are the 0s, and the longest run is
 * 1 + the longest stretch of 1s, carried across words. */
typedef struct {
	uint64_t zeros, ones, best, cur;  /* cur: the 1s at the top of the last word */
	uint64_t last;                     /* d's last bit, or ~d_0 at the start */
} bit_runs;

static void runs_word(bit_runs *r, uint64_t d, unsigned cnt)
{
	uint64_t valid = cnt == 64 ? ~(uint64_t)0 : ((uint64_t)1 << cnt) - 1;
	d &= valid;
	uint64_t s = ~(d ^ (d << 1 | r->last)) & valid;
	r->zeros += cnt - (unsigned)ng_popcount64(s);
	r->ones += (unsigned)ng_popcount64(d);
	r->last = d >> 63;
	if (s == ~(uint64_t)0) {
		r->cur += 64;
		return;
	}
	unsigned lead = (unsigned)__builtin_ctzll(~s);
	r->best = r->cur + lead > r->best ? r->cur + lead : r->best;
	/* the longest stretch inside: x &= x >> 1 removes one 1 from each */
	uint64_t x = s >> lead;
	if (ng_popcount64(x) > r->best) {
		uint64_t k = 0;
		while (x) {
			x &= x >> 1;
			k++;
		}
		r->best = k > r->best ? k : r->best;
	}
	r->cur = cnt == 64 ? (unsigned)__builtin_clzll(~s) : 0;
}

/* The bits of eight bytes that are each 0 or 1, the first byte lowest. */
static inline uint64_t pack8(const uint8_t *b)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;
	memcpy(&v, b, 8);
	return v * 0x0102040810204080ULL >> 56;
#else
	uint64_t v = 0;
	for (int j = 0; j < 8; j++)
		v |= (uint64_t)b[j] << j;
	return v;
#endif
}

/* 5.1.2-5.1.4 on the directional sequence d_i = [x_i <= x_(i+1)], and
 * 5.1.5-5.1.6 on d_i = [2 x_i < median2] (median2 = twice the median, so
 * it stays integral): the sequences are made 64 at a time as 0/1 bytes
 * (a loop the compiler vectorises) and counted as bits. */
static void runs_of(const uint8_t *x, size_t m, bool dir, unsigned median2, bit_runs *r)
{
	unsigned t = (median2 + 1) / 2;   /* 2 x < median2 <=> x < t */
	*r = (bit_runs){0};
	if (m > 0)   /* s_0 = 0: d_0 differs from what comes before it */
		r->last = !(dir ? x[0] <= x[1] : x[0] < t);
	uint8_t c[64];
	for (size_t i = 0; i < m; i += 64) {
		unsigned cnt = m - i < 64 ? (unsigned)(m - i) : 64;
		if (cnt == 64) {
			if (dir)
				for (unsigned j = 0; j < 64; j++)
					c[j] = x[i + j] <= x[i + j + 1];
			else
				for (unsigned j = 0; j < 64; j++)
					c[j] = x[i + j] < t;
		} else {
			memset(c, 0, sizeof c);
			for (unsigned j = 0; j < cnt; j++)
				c[j] = dir ? x[i + j] <= x[i + j + 1] : x[i + j] < t;
		}
		uint64_t d = 0;
		for (unsigned j = 0; j < 64; j += 8)
			d |= pack8(c + j) << j;
		runs_word(r, d, cnt);
	}
	r->best = r->cur > r->best ? r->cur : r->best;
}

static void st_directional(const uint8_t *x, size_t n, double *num, double *len, double *incdec)
{
	if (n < 2) {
		*num = *len = *incdec = 0;
		return;
	}
	bit_runs r;
	runs_of(x, n - 1, true, 0, &r);
	uint64_t down = (n - 1) - r.ones;
	*num = (double)r.zeros;
	*len = (double)(r.best + 1);
	*incdec = (double)(r.ones > down ? r.ones : down);
}

static void st_median_runs(const uint8_t *x, size_t n, unsigned median2, double *num, double *len)
{
	bit_runs r;
	runs_of(x, n, false, median2, &r);
	*num = (double)r.zeros;
	*len = (double)(r.best + 1);
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
 * numbers separated by spaces, computed exactly without compressing
 * (bz2len.c); *ws is made on first use and kept for the next rounds. */
static double st_compression(const uint8_t *x, size_t n, ng_bz2_ws **ws, const atomic_bool *cancel)
{
	if (!*ws)
		*ws = ng_bz2_ws_new();
	if (!*ws)
		return -1;
	ng_bz2_ws_cancel_on(*ws, cancel);
	return (double)ng_bz2_text_size(x, n, 5, *ws);
}

/* 5.1.9 and 5.1.10: sum over i of [a[i] == a[i+p]] and of a[i] a[i+p].
 * In blocks of 16,384 with 32-bit sums (255 * 255 * 16384 < 2^32), so the
 * compiler can vectorise the inner loops (iid.c is built with -O3). */
#define LAG_BLOCK 16384u
static uint64_t lag_matches(const uint8_t *a, size_t n, size_t p)
{
	uint64_t m = 0;
	size_t end = n > p ? n - p : 0;
	for (size_t b = 0; b < end; b += LAG_BLOCK) {
		size_t e = end - b < LAG_BLOCK ? end : b + LAG_BLOCK;
		uint32_t s = 0;
		for (size_t i = b; i < e; i++)
			s += a[i] == a[i + p];
		m += s;
	}
	return m;
}

static uint64_t lag_products(const uint8_t *a, size_t n, size_t p)
{
	uint64_t m = 0;
	size_t end = n > p ? n - p : 0;
	for (size_t b = 0; b < end; b += LAG_BLOCK) {
		size_t e = end - b < LAG_BLOCK ? end : b + LAG_BLOCK;
		uint32_t s = 0;
		for (size_t i = b; i < e; i++)
			s += (uint32_t)a[i] * a[i + p];
		m += s;
	}
	return m;
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
	ng_bz2_ws *bz;     /* the compression statistic's workspace */
	struct rs_ws *rs;  /* the round's arrangement (workers only) */
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
		if (active[8 + j])
			t[8 + j] = (double)lag_matches(a, na, lags[j]);
		if (active[13 + j])
			t[13 + j] = (double)lag_products(a, na, lags[j]);
	}
	if (active[18])
		t[18] = st_compression(x, n, &c->bz, NULL);
}

void ng_perm_stats(const uint8_t *sym, const uint8_t *raw, size_t n, bool binary, double median,
		   double out[NG_PERM_STATS])
{
	stat_ctx c = {binary, (unsigned)(2 * median + 0.5), NULL, NULL, NULL, NULL};
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
	ng_bz2_ws_free(c.bz);
}

/* ---- permutation rounds, in parallel ----
 * Round r (0-based) shuffles a copy of the sequence with its own xoshiro256**
 * stream seeded from seed ^ (golden * (r + 1)), so the results depend only
 * on the seed, not on the threads or on which thread ran which round.
 *
 * The rounds run as a stream: each worker takes the next round number,
 * runs it with the statistics still counting when it starts, and leaves
 * the results in a ring; whoever finishes a round counts every finished
 * round in round order and applies the early stop (5.1: a statistic stops
 * counting once C0 + C1 > 5 and C1 + C2 > 5). The set of statistics only
 * shrinks as rounds are counted, so a round started earlier computes a
 * superset of what its count needs; a round past the stopping point is
 * computed and thrown away, never counted. No worker waits for another's
 * round except when the ring is full (a round far slower than the rounds
 * after it). */
typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const uint8_t *x;
	size_t n;
	uint64_t seed, total;  /* total: sum of x, for the fused excursion */
	unsigned vmin, vmax;   /* the smallest and largest values in x */
	uint64_t cnt[256];     /* the count of each value in x (two-level rounds) */
	bool compression;      /* phase 2: the compression statistic alone */
	ng_iid_report *r;
	unsigned long rounds, next, counted;
	bool active[NG_PERM_STATS];
	unsigned nact;
	unsigned long sw_at;   /* the first two-level round (ULONG_MAX: none yet) */
	bool sw_closed;        /* no switch from here on (phase 2, or the excursion stopped) */
	unsigned long comp_end; /* phase 1: rounds before it compute the compression statistic too */
	unsigned long start;   /* the first round of the phase */
	atomic_bool stopped;   /* nact is 0: a compression round still running stops */
	atomic_bool comp_stop; /* phase 1: the compression statistic is no longer counted */
	unsigned ring;         /* slots: rounds started and not yet counted */
	double (*t)[NG_PERM_STATS];
	bool *ready;
	uint8_t **y;           /* one shuffle buffer per worker */
	stat_ctx *c;           /* one per worker (conversion buffers, bz2len) */
} round_stream;

/* Counts one round's results t for the statistics still counting, and
 * stops those that are done (5.1: C0 + C1 > 5 and C1 + C2 > 5). */
static void count_round(ng_iid_report *r, const double *t, bool *active, unsigned *nact)
{
	for (int i = 0; i < NG_PERM_STATS; i++) {
		if (!active[i])
			continue;
		unsigned *cc = r->perm_c[i];
		double v = t[i], u = r->perm_t[i];
		if (v > u)
			cc[0]++;
		else if (v == u)
			cc[1]++;
		else
			cc[2]++;
		r->perm_rounds[i]++;
		if (cc[0] + cc[1] > 5 && cc[1] + cc[2] > 5) {
			active[i] = false;
			(*nact)--;
		}
	}
}

/* The fewest further rounds before the compression statistic can stop. */
static unsigned compression_left(const unsigned c[3])
{
	unsigned a = c[0] + c[1], b = c[1] + c[2];
	unsigned na = a > 5 ? 0 : 6 - a, nb = b > 5 ? 0 : 6 - b;
	return na > nb ? na : nb;
}

/* Round rn into row t with worker j's buffers; act: the statistics
 * counting when it started (phase 1); rs: the two-level arrangement. */
static void run_round(round_stream *s, unsigned j, unsigned long rn, bool *act, bool rs, double *t)
{
	uint8_t *y = s->y[j];
	uint64_t seed = s->seed ^ (RS_GOLDEN * (rn + 1));
	stat_ctx *c = &s->c[j];
	if (s->compression) {
		/* the arrangement is the one phase 1 made for this round (the
		 * same seed and kind), so the counters are those of one loop
		 * computing all 19 statistics a round */
		ng_perm_shuffle(s->x, s->cnt, y, s->n, seed, rs);
		t[18] = st_compression(y, s->n, &c->bz, &s->stopped);
		return;
	}
	bool exc_only = true;
	for (int i = 1; i < NG_PERM_STATS; i++)
		exc_only &= !act[i];
	double bar = s->r->perm_t[0];
	/* the excursion is only compared with the unpermuted value, so it
	 * is computed against it; alone, a walk above the value decides the
	 * round ("greater"). After the switch the excursion is always alone
	 * (the switch waits for that), so the two-level arrangement is never
	 * laid out here. */
	if (rs) {
		if (act[0])
			t[0] = rs_excursion(s->cnt, y, s->n, seed, s->total, s->vmin, s->vmax, bar, true, c->rs);
		return;
	}
	memcpy(y, s->x, s->n);
	ng_xoshiro g;
	ng_xoshiro_seed(&g, seed);
	if (act[0])
		t[0] = shuffle_excursion(y, s->n, &g, s->total, s->vmin, s->vmax, bar, exc_only);
	else
		fy_shuffle(y, s->n, &g);
	if (exc_only)
		return;
	act[0] = false;
	bool comp = act[18];
	act[18] = false;
	perm_stats(c, y, s->n, act, t);
	if (comp)
		t[18] = st_compression(y, s->n, &c->bz, &s->comp_stop);
}

/* Whether round rn takes the two-level arrangement; false with *wait
 * when that is not known yet (a switch point before it not reached). */
static bool round_kind(const round_stream *s, unsigned long rn, bool *wait)
{
	*wait = false;
	if (rn >= s->sw_at)
		return true;
	if (s->sw_closed)
		return false;
	*wait = s->counted < last_switch_point(rn);
	return false;
}

static void run_stream(unsigned j, void *arg)
{
	round_stream *s = arg;
	pthread_mutex_lock(&s->mu);
	while (s->nact > 0 && s->next < s->rounds) {
		bool wait;
		bool rs = round_kind(s, s->next, &wait);
		if (wait || s->next - s->counted >= s->ring) {
			pthread_cond_wait(&s->cv, &s->mu);
			continue;
		}
		unsigned long rn = s->next++;
		bool act[NG_PERM_STATS];
		memcpy(act, s->active, sizeof act);
		/* phase 1: the compression statistic before comp_end only
		 * (Fisher-Yates rounds: a switch moves comp_end to its round) */
		act[18] &= s->compression || rn < s->comp_end;
		double *t = s->t[rn % s->ring];
		pthread_mutex_unlock(&s->mu);
		run_round(s, j, rn, act, rs, t);
		ng_progress_step();
		pthread_mutex_lock(&s->mu);
		s->ready[rn % s->ring] = true;
		while (s->nact > 0 && s->ready[s->counted % s->ring]) {
			unsigned slot = (unsigned)(s->counted % s->ring);
			s->ready[slot] = false;
			count_round(s->r, s->t[slot], s->active, &s->nact);
			s->counted++;
			if (s->compression)
				ng_progress_total((unsigned)(s->counted - s->start +
							     compression_left(s->r->perm_c[18])));
			else if (!s->sw_closed && ng_perm_switch_point(s->counted)) {
				/* the excursion alone: two-level rounds when
				 * at least half its rounds so far came out
				 * below the unpermuted value (a Fisher-Yates
				 * round above it stops early, and is cheaper) */
				const unsigned *c = s->r->perm_c[0];
				if (!s->active[0])
					s->sw_closed = true;
				else if (s->nact - s->active[18] == 1) {
					if (c[2] >= c[0])
						s->sw_at = s->comp_end = s->counted;
					s->sw_closed = true;
				}
			}
			/* phase 1's compression rounds end (NG_PERM_INLINE, or the
			 * switch): phase 2 takes the rest; a round still running
			 * it stops at its next block of text */
			if (!s->compression && s->active[18] && s->counted >= s->comp_end) {
				s->active[18] = false;
				s->nact--;
			}
			if (!s->active[18])
				atomic_store_explicit(&s->comp_stop, true, memory_order_relaxed);
		}
		if (s->nact == 0)
			atomic_store_explicit(&s->stopped, true, memory_order_relaxed);
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
}

/* Runs rounds 0 .. rounds-1 (fewer once every statistic in active has
 * stopped) on th workers; returns the rounds counted. */
static unsigned long run_rounds(round_stream *s, unsigned th, unsigned long start)
{
	s->next = s->counted = s->start = start;
	s->nact = 0;
	for (int i = 0; i < NG_PERM_STATS; i++)
		s->nact += s->active[i];
	memset(s->ready, 0, s->ring * sizeof *s->ready);
	atomic_store(&s->stopped, false);
	atomic_store(&s->comp_stop, !s->active[18]);
	ng_assess_parallel(th, th, run_stream, s);
	return s->counted;
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
					unsigned w = (unsigned)__builtin_popcount(v);
					double e = pow(p1, w) * pow(p0, m - w) * (double)nb;
					T += ((double)o[v] - e) * ((double)o[v] - e) / e;
				}
				free(o);
				r->chi_ind_t = T;
				r->chi_ind_df = (1ul << m) - 2;
				r->chi_ind_p = gamma_q((double)r->chi_ind_df / 2.0, T / 2);
			}
		} else {
			r->chi_ind_df = 0;
			r->chi_ind_p = 1;
		}
		size_t sub = n / 10;
		double T = 0, e1 = p1 * (double)sub, e0 = p0 * (double)sub;
		for (size_t d = 0; d < 10; d++) {
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
			r->chi_ind_p = r->chi_ind_df ? gamma_q((double)r->chi_ind_df / 2.0, T / 2) : 1;
			/* 5.2.2 goodness of fit over 10 subsets */
			bin_item si[256];
			unsigned sbin[256];
			double sexp[257];
			for (unsigned a = 0; a < k; a++)
				si[a] = (bin_item){(double)cnt[a] / 10.0, a};
			unsigned qs = make_bins(si, k, sbin, sexp);
			size_t sub = n / 10;
			double T2 = 0;
			for (size_t d = 0; d < 10; d++) {
				uint64_t o[257] = {0};
				for (size_t i = d * sub; i < (d + 1) * sub; i++)
					o[sbin[s[i]]]++;
				for (unsigned h = 0; h < qs; h++)
					T2 += ((double)o[h] - sexp[h]) * ((double)o[h] - sexp[h]) / sexp[h];
			}
			r->chi_gof_t = T2;
			r->chi_gof_df = 9ul * (qs - 1);
			r->chi_gof_p = r->chi_gof_df ? gamma_q((double)r->chi_gof_df / 2.0, T2 / 2) : 1;
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

/* a[0..m) in order (tmp: m entries of scratch): the top 24 bits by three
 * LSD radix passes of 8 bits (as fast here as two of 12), then each run of
 * equal top bits by the rest (ng_msd_sort_u64). Random windows rarely
 * share their top 24 bits, so this is the three passes and little more. */
static void sort_windows(uint64_t *a, uint64_t *tmp, size_t m)
{
	enum { D = 8, ND = 3, NB = 1 << D };
	if (m < 8 * NB) {
		ng_msd_sort_u64(a, tmp, m, 64);
		return;
	}
	uint32_t c[ND][NB] = {{0}};
	for (size_t i = 0; i < m; i++)
		for (unsigned p = 0; p < ND; p++)
			c[p][a[i] >> (64 - D * (ND - p)) & (NB - 1)]++;
	for (unsigned p = 0; p < ND; p++)
		for (uint32_t d = 0, sum = 0; d < NB; d++) {
			uint32_t x = c[p][d];
			c[p][d] = sum;
			sum += x;
		}
	uint64_t *from = a, *to = tmp;
	for (unsigned p = 0; p < ND; p++) {
		unsigned sh = 64 - D * (ND - p);
		for (size_t i = 0; i < m; i++)
			to[c[p][from[i] >> sh & (NB - 1)]++] = from[i];
		uint64_t *x = from;
		from = to;
		to = x;
	}
	if (from != a)
		memcpy(a, from, m * sizeof *a);
	for (size_t i = 0; i < m;) {
		size_t e = i + 1;
		while (e < m && (a[e] ^ a[i]) >> (64 - D * ND) == 0)
			e++;
		if (e - i > 1)
			ng_msd_sort_u64(a + i, tmp + i, e - i, 64 - D * ND);
		i = e;
	}
}

/* The length of the longest repeated substring of s[0..n) (symbols below
 * k), when it is shorter than a window of q symbols (b bits each, first
 * symbol on top, 64 / b of them). The suffixes with a whole window are
 * sorted by it: the longest common prefix of two of them, capped at q, is
 * their windows' common leading symbols, and its largest value over all
 * pairs is the largest over neighbours in sorted order. Each of the last
 * q - 1 suffixes (shorter than a window) meets its longest match among
 * those at the windows either side of where its own (zero-padded) would
 * sort, and is compared with the other short ones directly. Returns 1
 * with *w, 0 when two windows are equal (the repeat may be longer: the
 * suffix array decides) or n is too short, -1 out of memory. */
static int lrs_windows(const uint8_t *s, size_t n, unsigned k, uint32_t *w)
{
	unsigned b = 1;
	while ((1u << b) < k)
		b++;
	unsigned q = 64 / b;
	if (n <= q)
		return 0;
	size_t m = n - q + 1;   /* suffixes 0 .. m-1 have whole windows */
	uint64_t *a = malloc(m * sizeof *a), *tmp = malloc(m * sizeof *tmp);
	if (!a || !tmp) {
		free(a);
		free(tmp);
		return -1;
	}
	uint64_t win = 0;
	for (size_t i = 0; i + 1 < q; i++)
		win = win << b | s[i];
	for (size_t i = 0; i < m; i++) {
		win = win << b | s[i + q - 1];
		a[i] = win << (64 - b * q);
	}
	sort_windows(a, tmp, m);
	int res = 1;
	unsigned best = 0;
	for (size_t i = 1; i < m; i++) {
		uint64_t d = a[i] ^ a[i - 1];
		if (!d) {
			res = 0;
			break;
		}
		unsigned l = (unsigned)__builtin_clzll(d) / b;
		best = l > best ? l : best;
	}
	for (size_t j = m; res == 1 && j < n; j++) {
		unsigned len = (unsigned)(n - j);
		if (len <= best)
			break;   /* the later ones are shorter still */
		uint64_t p = 0;
		for (size_t i = j; i < n; i++)
			p = p << b | s[i];
		p <<= 64 - b * len;
		size_t lo = 0, hi = m;   /* the first window >= p */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (a[mid] < p)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t x = lo ? lo - 1 : 0; x <= lo && x < m; x++) {
			uint64_t d = a[x] ^ p;
			unsigned l = d ? (unsigned)__builtin_clzll(d) / b : len;
			l = l < len ? l : len;
			best = l > best ? l : best;
		}
		for (size_t j2 = j + 1; j2 < n; j2++) {
			unsigned l = 0;
			while (j2 + l < n && s[j + l] == s[j2 + l])
				l++;
			best = l > best ? l : best;
		}
	}
	free(a);
	free(tmp);
	*w = best;
	return res;
}

/* 5.2.5 length of the longest repeated substring: from the windows when
 * it is shorter than one, else from the suffix and LCP arrays */
static void lrs_test(ng_iid_report *r, const uint8_t *s, size_t n, unsigned k)
{
	r->lrs_ok = false;
	r->lrs_pass = true;
	uint32_t w = 0;
	int got = lrs_windows(s, n, k, &w);
	if (got == 0) {
		uint32_t *sa = malloc(n * sizeof *sa), *lcp = malloc(n * sizeof *lcp);
		if (sa && lcp && ng_suffix_array(s, n, k, sa) && ng_lcp_array(s, n, sa, lcp)) {
			for (size_t i = 1; i < n; i++)
				if (lcp[i] > w)
					w = lcp[i];
			got = 1;
		}
		free(sa);
		free(lcp);
	}
	if (got != 1)
		return;
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

/* Twice the median of n >= 1 values counted in cnt: the middle one for
 * odd n, the sum of the two middle ones for even n. */
static unsigned median2_of(const uint64_t cnt[256], size_t n)
{
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
	/* the longest first, so the two shortest end the setup */
	if (j == 0)
		lrs_test(r, s->sym, s->n, s->k);
	else if (j == 1)
		r->perm_t[18] = st_compression(s->x, s->n, &s->c0->bz, NULL);
	else if (j == 2)
		chi_square(r, s->sym, s->n, s->k);
	else if (j == 3) {
		/* the other unshuffled statistics */
		bool all[NG_PERM_STATS];
		for (int i = 0; i < NG_PERM_STATS; i++)
			all[i] = i != 18;
		perm_stats(s->c0, s->x, s->n, all, r->perm_t);
	} else {
		ng_est_mcv(s->sym, s->n, s->k, &r->mcv_lit);
		/* the bitstring's MCV (not for the restart rows and columns) */
		bool bits = s->o->bits > 1 && !r->binary;
		if ((bits || s->o->conditioned) && !s->o->literal_only)
			ng_est_mcv_bits(s->raw, s->n, s->o->bits, &r->mcv_bit);
	}
}

ng_status ng_assess_iid(const uint8_t *raw, size_t n, const ng_assess_opts *o, unsigned long rounds,
			uint64_t seed, ng_iid_report *r)
{
	memset(r, 0, sizeof *r);
	if (n > UINT32_MAX)
		return NG_ERR_ARG; /* the shuffles draw 32-bit indices */
	r->n = n;
	r->bits = o->bits;
	r->rounds_asked = rounds;
	uint8_t *sym = malloc(n ? n : 1);
	if (!sym)
		return NG_ERR_NOMEM;
	unsigned k = ng_assess_translate(raw, n, sym);
	r->k = k;
	r->binary = k == 2;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += raw[i];
	r->mean = sum / (double)n;
	/* permutation tests: the values (raw) for non-binary, 0/1 for
	 * binary; their counts give the runs test's median here and the
	 * rounds' extremes, sum and two-level dealing below */
	const uint8_t *x = r->binary ? sym : raw;
	uint64_t cnt[256];
	ng_byte_counts(x, n, cnt);
	if (r->binary)
		r->median = 0.5;
	else {
		uint64_t symc[256];
		ng_byte_counts(sym, n, symc);
		r->median = n ? median2_of(symc, n) / 2.0 : 0;
	}
	stat_ctx c = {r->binary, 0, NULL, NULL, NULL, NULL};
	/* the median of the values the runs test sees */
	if (r->binary)
		c.median2 = 1;
	else
		c.median2 = n ? median2_of(cnt, n) : 0;
	unsigned th = o->threads ? o->threads : 1;
	/* one shuffle buffer and statistics context per worker, one more
	 * context for the unpermuted statistics; a ring of 4 rounds a worker */
	unsigned ring = th <= 8 ? 4 * th : 2 * th;
	double (*t)[NG_PERM_STATS] = calloc(ring, sizeof *t);
	bool *ready = calloc(ring, sizeof *ready);
	uint8_t **y = calloc(th, sizeof *y);
	stat_ctx *sc = calloc(th + 1, sizeof *sc);
	bool ok = t && ready && y && sc;
	for (unsigned j = 0; ok && j <= th; j++) {
		sc[j] = (stat_ctx){r->binary, c.median2, NULL, NULL, NULL, NULL};
		if (r->binary) {
			sc[j].c1 = malloc(n / 8 + 1);
			sc[j].c2 = malloc(n / 8 + 1);
			ok = sc[j].c1 && sc[j].c2;
		}
		if (ok && j < th)
			ok = (y[j] = malloc(n ? n : 1)) != NULL && (sc[j].rs = malloc(sizeof *sc[j].rs)) != NULL;
	}
	/* the IID estimate (MCV), the chi-square and LRS tests and the
	 * unpermuted statistics are independent: in parallel */
	setup_job sj = {r, sym, raw, x, n, k, o, ok ? &sc[th] : NULL, !ok};
	if (ok) {
		ng_progress_start(o->progress, "IID setup: MCV, chi-square, LRS, unpermuted statistics", 5);
		ng_assess_parallel(th, 5, run_setup, &sj);
		ng_progress_end();
		/* the unpermuted compression's workspace is not needed again */
		ng_bz2_ws_free(sc[th].bz);
		sc[th].bz = NULL;
	}
	ok = !sj.failed;
	r->mcv_lit.h = ng_plus_zero(r->mcv_lit.h);
	r->mcv_bit.h = ng_plus_zero(r->mcv_bit.h);
	r->h_original = o->conditioned ? o->bits : (r->mcv_lit.h < o->bits ? r->mcv_lit.h : o->bits);
	r->h_bitstring = r->mcv_bit.run ? (r->mcv_bit.h < 1 ? r->mcv_bit.h : 1) : -1;
	r->h_assessed = r->h_original;
	if (r->mcv_bit.run && o->bits * r->h_bitstring < r->h_assessed)
		r->h_assessed = o->bits * r->h_bitstring;
	uint64_t total = 0;
	unsigned vmin = 255, vmax = 0;
	for (unsigned v = 0; v < 256; v++)
		if (cnt[v]) {
			total += v * cnt[v];
			vmin = v < vmin ? v : vmin;
			vmax = v;
		}
	round_stream rs = {.x = x, .n = n, .seed = seed, .total = total, .vmin = vmin, .vmax = vmax,
			   .r = r, .rounds = rounds, .ring = ring, .t = t, .ready = ready, .y = y, .c = sc,
			   .sw_at = ULONG_MAX, .comp_end = NG_PERM_INLINE};
	memcpy(rs.cnt, cnt, sizeof cnt);
	pthread_mutex_init(&rs.mu, NULL);
	pthread_cond_init(&rs.cv, NULL);
	/* Phase 1: the 18 cheap statistics round after round, and the
	 * compression statistic in its first Fisher-Yates rounds. */
	for (int i = 0; i < NG_PERM_STATS; i++)
		rs.active[i] = true;
	unsigned long done = 0;
	ng_progress_start(o->progress && ok && rounds > 0, "permutation rounds, 19 statistics",
			  (unsigned)rounds);
	if (ok && rounds > 0)
		done = run_rounds(&rs, th, 0);
	ng_progress_end();
	/* A statistic still counting after every round has failed, and so has
	 * the IID verdict; so has it if the chi-square or LRS test failed. */
	r->decided_by = -1;
	for (int i = 0; i < 18 && r->decided_by < 0; i++)
		if (ng_perm_failed(r->perm_c[i]) && rounds > 0)
			r->decided_by = i;
	if (r->decided_by < 0 && !r->chi_pass)
		r->decided_by = NG_DECIDED_CHI;
	if (r->decided_by < 0 && !r->lrs_pass)
		r->decided_by = NG_DECIDED_LRS;
	/* Phase 2: the compression statistic's remaining rounds, unless the
	 * verdict is decided and not every round was asked for (more: ok and
	 * rounds left). */
	unsigned long done2 = 0, from = r->perm_rounds[18];
	const unsigned *cc = r->perm_c[18];
	bool more = ok && from < rounds && ng_perm_failed(cc);
	if (more && r->decided_by >= 0 && !o->all_rounds)
		r->perm_stopped[18] = true;
	else if (more) {
		for (int i = 0; i < NG_PERM_STATS; i++)
			rs.active[i] = i == 18;
		rs.compression = true;
		rs.sw_closed = true;
		ng_progress_start(o->progress, "permutation rounds, compression (bzip2)",
				  compression_left(r->perm_c[18]));
		done2 = run_rounds(&rs, th, from);
		ng_progress_end();
	}
	pthread_cond_destroy(&rs.cv);
	pthread_mutex_destroy(&rs.mu);
	for (unsigned j = 0; sc && j <= th; j++) {
		free(sc[j].c1);
		free(sc[j].c2);
		free(sc[j].rs);
		ng_bz2_ws_free(sc[j].bz);
	}
	for (unsigned j = 0; y && j < th; j++)
		free(y[j]);
	free(sc);
	free(y);
	free(ready);
	free(t);
	if (!ok) {
		free(sym);
		return NG_ERR_NOMEM;
	}
	r->permutations = done > done2 ? done : done2;
	r->two_level_from = rs.sw_at == ULONG_MAX ? 0 : rs.sw_at;
	r->perm_pass = true;
	for (int i = 0; i < NG_PERM_STATS; i++) {
		if (!r->perm_stopped[i] && ng_perm_failed(r->perm_c[i]))
			r->perm_pass = false;
	}
	r->iid = r->chi_pass && r->lrs_pass && r->perm_pass;
	free(sym);
	return NG_OK;
}

bool ng_perm_failed(const unsigned c[3])
{
	return c[0] + c[1] <= 5 || c[1] + c[2] <= 5;
}
