/* SPDX-License-Identifier: GPL-3.0-or-later */
/* FIPS 140-2 statistical tests (monobit, poker, runs, long run) and the
 * continuous run test, on 20,000-bit blocks. Bits are taken MSB first. */
#include <string.h>
#include "fips.h"

const char *const ng_fips_name[NG_FIPS_TESTS] = {
	"Monobit", "Poker", "Runs", "Long run", "Continuous run",
};

void ng_fips_init(ng_fips_ctx *c)
{
	memset(c, 0, sizeof *c);
}

static inline uint64_t load_be64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return __builtin_bswap64(v);
}

/* Runs interval table (FIPS 140-2 4.9.1): lengths 1..5 and 6+ */
static const int32_t run_lo[6] = {2315, 1114, 527, 240, 103, 103};
static const int32_t run_hi[6] = {2685, 1386, 723, 384, 209, 209};

unsigned ng_fips_block(ng_fips_ctx *c, const uint8_t blk[NG_FIPS_BLOCK])
{
	unsigned failed = 0;
	uint8_t b[NG_FIPS_BLOCK + 8];
	memcpy(b, blk, NG_FIPS_BLOCK);
	memset(b + NG_FIPS_BLOCK, 0, 8);
	/* monobit and poker */
	unsigned ones = 0;
	uint32_t nib[16] = {0};
	for (size_t i = 0; i < NG_FIPS_BLOCK; i++) {
		nib[b[i] >> 4]++;
		nib[b[i] & 15]++;
	}
	for (size_t i = 0; i < NG_FIPS_BLOCK; i += 8) /* the padding is zero */
		ones += (unsigned)__builtin_popcountll(load_be64(b + i));
	if (!(ones > 9725 && ones < 10275))
		failed |= 1u << NG_FIPS_MONOBIT;
	/* rngtest quirk 1: its run counter starts each block at "length 0"
	 * against the last bit of the previous block (0 before the first), so
	 * a block whose first bit differs from that bit records a run ending
	 * before it: with first bit 1 in its bucket of runs of ones of 6 or
	 * more, with first bit 0 one place before its run table, in the count
	 * of nibble 15 of the poker test. */
	unsigned first = b[0] >> 7, lastb = b[NG_FIPS_BLOCK - 1] & 1u;
	bool ghost = first != c->prev_bit;
	if (ghost && first == 0)
		nib[15]++;
	/* X = 16/5000 * sum f^2 - 5000, pass if 2.16 < X < 46.17; in integers:
	 * 16*sum - 25,000,000 against 10800 and 230850 (x5000) */
	uint64_t sq = 0;
	for (int i = 0; i < 16; i++)
		sq += (uint64_t)nib[i] * nib[i];
	int64_t x = 16 * (int64_t)sq - 25000000; /* = 5000 X */
	if (!(x > 10800 && x < 230850))
		failed |= 1u << NG_FIPS_POKER;
	/* runs, bit-parallel on 64-bit words (MSB first): a run of v of length
	 * >= L starts at p if bit p starts a run of v and bits p..p+L-1 are v */
	enum { NW = (20000 + 63) / 64 }; /* 313 words, the last one half used */
	uint64_t xw[NW + 1];
	for (size_t i = 0; i < NW; i++)
		xw[i] = load_be64(b + 8 * i);
	xw[NW] = 0;
	int32_t runs[2][6] = {{0}}; /* [bit value][length 1..5, 6+] */
	for (int v = 0; v < 2; v++) {
		uint64_t w[NW + 1];
		for (size_t i = 0; i < NW; i++)
			w[i] = v ? xw[i] : ~xw[i];
		w[NW - 1] &= ~0ull << 32;
		w[NW] = 0;
		uint32_t cnt[7] = {0};
		uint64_t r6[NW + 1];
		for (size_t i = 0; i < NW; i++) {
			uint64_t prev = (w[i] >> 1) | (i ? w[i - 1] << 63 : 0);
			uint64_t st = w[i] & ~prev, r = w[i];
			cnt[1] += (uint32_t)__builtin_popcountll(st);
			for (unsigned l = 1; l < 6; l++) {
				r &= (w[i] << l) | (w[i + 1] >> (64 - l));
				cnt[l + 1] += (uint32_t)__builtin_popcountll(st & r);
			}
			r6[i] = r;
		}
		r6[NW] = 0;
		for (int l = 0; l < 5; l++)
			runs[v][l] += (int32_t)(cnt[l + 1] - cnt[l + 2]);
		runs[v][5] += (int32_t)cnt[6];
		/* long run: 26 = 6 + 6 + 12 + 2 consecutive bits of v */
		if (cnt[6]) {
			uint64_t r12[NW + 1], any = 0;
			for (size_t i = 0; i < NW; i++)
				r12[i] = r6[i] & ((r6[i] << 6) | (r6[i + 1] >> 58));
			r12[NW] = 0;
			for (size_t i = 0; i < NW && !any; i++) {
				uint64_t r24 = r12[i] & ((r12[i] << 12) | (r12[i + 1] >> 52));
				/* r12 at p+12 needs no next-next word: 12 < 64 */
				uint64_t w24 = (w[i] << 24) | (w[i + 1] >> 40), w25 = (w[i] << 25) | (w[i + 1] >> 39);
				any |= r24 & w24 & w25;
			}
			if (any)
				failed |= 1u << NG_FIPS_LONGRUN;
		}
	}
	/* rngtest quirk 2: the run still open at the end of the block goes to
	 * the table of the other bit value (1..5 or 6+ by its length). */
	uint64_t y = load_be64(b + NG_FIPS_BLOCK - 8);
	if (lastb)
		y = ~y;
	unsigned tail = y ? (unsigned)__builtin_ctzll(y) : 64;
	tail = tail < 6 ? tail - 1 : 5;
	runs[lastb][tail]--;
	runs[!lastb][tail]++;
	if (ghost && first == 1)
		runs[1][5]++;
	c->prev_bit = (uint8_t)lastb;
	for (int v = 0; v < 2; v++)
		for (int l = 0; l < 6; l++)
			if (runs[v][l] < run_lo[l] || runs[v][l] > run_hi[l])
				failed |= 1u << NG_FIPS_RUNS;
	/* continuous run test on 32-bit words */
	for (size_t i = 0; i < NG_FIPS_BLOCK; i += 4) {
		uint32_t wv;
		memcpy(&wv, blk + i, 4);
		if (wv == c->last)
			failed |= 1u << NG_FIPS_CONTINUOUS;
		c->last = wv;
	}
	if (failed) {
		c->failed++;
		for (int t = 0; t < NG_FIPS_TESTS; t++)
			if (failed & (1u << t))
				c->fail[t]++;
	} else
		c->ok++;
	return failed;
}

void ng_fips_update(ng_fips_ctx *c, const uint8_t *p, size_t n)
{
	c->bits += 8 * (uint64_t)n;
	while (n) {
		if (!c->primed) {
			size_t t = 4 - c->have < n ? 4 - c->have : n;
			memcpy(c->buf + c->have, p, t);
			c->have += t;
			p += t;
			n -= t;
			if (c->have == 4) {
				memcpy(&c->last, c->buf, 4);
				c->primed = true;
				c->have = 0;
			}
			continue;
		}
		if (c->have == 0 && n >= NG_FIPS_BLOCK) {
			ng_fips_block(c, p);
			p += NG_FIPS_BLOCK;
			n -= NG_FIPS_BLOCK;
			continue;
		}
		size_t t = NG_FIPS_BLOCK - c->have < n ? NG_FIPS_BLOCK - c->have : n;
		memcpy(c->buf + c->have, p, t);
		c->have += t;
		p += t;
		n -= t;
		if (c->have == NG_FIPS_BLOCK) {
			ng_fips_block(c, c->buf);
			c->have = 0;
		}
	}
}
