/* SPDX-License-Identifier: GPL-3.0-or-later */
/* assess/bz2len.c against libbz2 itself: the size ng_bz2_text_size computes
 * must be the length BZ2_bzBuffToBuffCompress writes, for every level,
 * every kind of data (8-bit, binary, few values, one value, periodic, long
 * repeats, one value with another now and then: long zero runs), and
 * blocks that end at every kind of place: after a space, inside a run
 * of equal digits ("111"), at the text's end, and a last block too
 * short to hold a space; 8-bit data with a period, whose
 * sort meets long runs of equal keys; binary data past a million samples
 * and with runs before the block ends (where the sort's keys of the
 * rotations that reach the wrapped token tie), and two to four other
 * values whose wrapped tokens fall below, between and above them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "assess.h"
#include "bz2_oracle.h"
#include "check.h"

static void one(ng_bz2_ws *w, const uint8_t *x, size_t n, int level, const char *what, int *bad)
{
	long want = ng_bz2_oracle(x, n, level);
	long got = (long)ng_bz2_text_size(x, n, (unsigned)level, w);
	if (want != got || want < 0) {
		if (*bad < 5)
			printf("# %s: n=%zu level %d: libbz2 %ld, bz2len %ld\n", what, n, level, want, got);
		(*bad)++;
	}
}

#define KINDS 9
static uint8_t gen(int kind, size_t i, uint64_t *seed, unsigned p);

/* n samples of the given kind, compared at the given level */
static void one_kind(ng_bz2_ws *w, size_t n, int kind, int level, uint64_t *seed, const char *what, int *bad)
{
	unsigned p = (unsigned)ng_test_rand(seed);
	uint8_t *x = malloc(n);
	for (size_t i = 0; i < n; i++)
		x[i] = gen(kind, i, seed, p);
	one(w, x, n, level, what, bad);
	free(x);
}

static uint8_t gen(int kind, size_t i, uint64_t *seed, unsigned p)
{
	uint64_t v = ng_test_rand(seed);
	switch (kind) {
	case 0: return (uint8_t)v;                                   /* 8-bit */
	case 1: return (uint8_t)(v & 1);                             /* binary */
	case 2: return (uint8_t)(v % 10 < 2 ? v : 7);                /* biased */
	case 3: return 0;                                            /* one value */
	case 4: return (uint8_t)(i / (p % 50 + 1) % 3 * 111);        /* runs of 0, 111, 222 */
	case 5: return (uint8_t)(v % 4 * 37);                        /* four values */
	case 6: return (uint8_t)(i % 7 * (i % 3));                   /* periodic */
	case 7: return (uint8_t)(v % 3 ? 111 : v % 2 ? 11 : 1);      /* many 1 digits */
	default: return (uint8_t)(v % (p % 300 + 2) ? 5 : v);        /* one value, another now and then */
	}
}

/* Binary samples (0 with probability pct0 %) and where their text's
 * blocks end: no two equal characters stand in a row, so block k of the
 * text is characters k * bmax .. (k + 1) * bmax - 1. The last whole token
 * before block k's wrapped token (the tail and head joined) is sample
 * last_tok(k); an even block's tail is sample last_tok(k) + 1 (and its
 * head sample k * bmax / 2), an odd block's tail and head are empty. */
static uint8_t *binary(size_t n, unsigned pct0, uint64_t *seed)
{
	uint8_t *x = malloc(n);
	for (size_t i = 0; i < n; i++)
		x[i] = ng_test_rand(seed) % 100 >= pct0;
	return x;
}

static size_t last_tok(size_t k, unsigned level)
{
	size_t end = (k + 1) * (100000u * level - 19) - 1;
	return end % 2 ? (end - 1) / 2 : end / 2 - 1;
}

int main(void)
{
	uint64_t seed = ng_test_seed();
	ng_bz2_ws *w = ng_bz2_ws_new();
	CHECK(w != NULL, "workspace");
	int bad = 0, cases = 0;
	/* one block: short inputs of every kind, level 1 */
	for (int it = 0; it < 1600; it++, cases++)
		one_kind(w, 1 + ng_test_rand(&seed) % 3000, it % KINDS, 1, &seed, "short", &bad);
	CHECK(bad == 0, "bz2len = libbz2 on %d single-block inputs of %d kinds (%d differ)", cases, KINDS, bad);
	/* several blocks, levels 1 to 9 */
	bad = cases = 0;
	for (int it = 0; it < 64; it++, cases++) {
		int level = 1 + it % 9;
		size_t n = 20000 + ng_test_rand(&seed) % (60000u * (unsigned)(level < 3 ? level : 3));
		one_kind(w, n, it % KINDS, level, &seed, "blocks", &bad);
	}
	CHECK(bad == 0, "bz2len = libbz2 on %d multi-block inputs, levels 1-9 (%d differ)", cases, bad);
	/* block ends at each place: a constant token of 1, 2 or 3 digits
	 * (runs of 1, 2 or 3 equal digits at the end) and lengths around
	 * the level-1 block (99,981 characters), so the last block is
	 * empty-of-spaces, a lone space and token, or nothing */
	bad = cases = 0;
	static const uint8_t toks[] = {5, 55, 155, 111, 12, 100, 1, 11, 211, 122};
	for (unsigned t = 0; t < sizeof toks; t++) {
		unsigned len = toks[t] >= 100 ? 4 : toks[t] >= 10 ? 3 : 2;
		size_t base = 99981 / len;
		for (size_t n = base - 2; n <= base + 3; n++) {
			uint8_t *x = malloc(n);
			memset(x, toks[t], n);
			one(w, x, n, 1, "boundary", &bad);
			/* and with one other token near the end */
			x[n - 2] = 7;
			one(w, x, n, 1, "boundary+7", &bad);
			/* a one-digit last token: one character left after a space */
			x[n - 1] = 3;
			one(w, x, n, 1, "boundary+7+3", &bad);
			cases += 3;
			free(x);
		}
	}
	CHECK(bad == 0, "bz2len = libbz2 when the block ends after a space, inside a run, at the end (%d cases, %d differ)",
	      cases, bad);
	/* the statistic's own case: 1,000,000 8-bit samples at level 5 */
	{
		size_t n = 1000000;
		uint8_t *x = malloc(n);
		for (size_t i = 0; i < n; i++)
			x[i] = (uint8_t)ng_test_rand(&seed);
		bad = 0;
		one(w, x, n, 5, "1M", &bad);
		CHECK(bad == 0, "bz2len = libbz2 on 1,000,000 random 8-bit samples at level 5 (7 blocks)");
		free(x);
	}
	/* skewed token counts: value 3 + k (k < 17) 2^k times, shuffled,
	 * so the sort's codes run from 1 to 17 bits; and a few values in
	 * one 900 kB block (level 9) */
	{
		size_t n = (1u << 17) - 1;
		uint8_t *x = malloc(n);
		for (size_t i = 0; i < n; i++)
			x[i] = (uint8_t)(3 + (63 - __builtin_clzll(i + 1)));
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = ng_test_rand(&seed) % (i + 1);
			uint8_t c = x[i];
			x[i] = x[j];
			x[j] = c;
		}
		bad = 0;
		one(w, x, n, 9, "geometric", &bad);
		one(w, x, n, 1, "geometric", &bad);
		CHECK(bad == 0, "bz2len = libbz2 on 2^17 - 1 samples with counts 1, 2, 4, ... 2^16 (levels 9 and 1)");
		free(x);
	}
	/* 8-bit values repeating with a period of 20, 97 or 1009 random
	 * values: rotations a period apart have equal keys, so the
	 * two-pass radix meets runs of thousands of entries equal in its
	 * bits (ordered by their whole keys, then by prefix doubling); and
	 * the same on the portable paths */
	{
		size_t n = 300000;
		uint8_t *x = malloc(n), base[1009];
		static const unsigned periods[] = {20, 97, 1009};
		bad = cases = 0;
		for (unsigned k = 0; k < 3; k++) {
			for (unsigned i = 0; i < periods[k]; i++)
				base[i] = (uint8_t)ng_test_rand(&seed);
			for (size_t i = 0; i < n; i++)
				x[i] = base[i % periods[k]];
			for (int level = 1; level <= 9; level += 4, cases++)
				one(w, x, n, level, "periodic", &bad);
			ng_bz2_portable = true;
			one(w, x, n, 5, "periodic, portable", &bad);
			ng_bz2_portable = false;
			cases++;
		}
		CHECK(bad == 0, "bz2len = libbz2 on periodic 8-bit data, periods 20, 97 and 1009 (%d cases, %d differ)",
		      cases, bad);
		free(x);
	}
	/* binary data at level 5, more than a million samples: blocks that
	 * start at a digit (the wrapped token two digits: "01", "00" between
	 * the tokens in the first input, "10", "11" above them in the second)
	 * and at a space (the wrapped token empty, below them), a last block
	 * of 94 and of 96 characters; even and biased */
	{
		size_t n = 1250000;
		bad = cases = 0;
		for (unsigned k = 0; k < 2; k++, cases++) {
			uint8_t *x = binary(n + k, k ? 30 : 50, &seed);
			x[last_tok(0, 5) + 1] = x[last_tok(2, 5) + 1] = (uint8_t)k;
			x[0] = (uint8_t)!k;
			x[2 * (100000 * 5 - 19) / 2] = (uint8_t)k;
			one(w, x, n + k, 5, "binary 1.25M", &bad);
			free(x);
		}
		CHECK(bad == 0, "bz2len = libbz2 on 1,250,000 and 1,250,001 binary samples at level 5 (%d cases, %d differ)",
		      cases, bad);
	}
	/* binary data at level 1 with runs before the block ends, where the
	 * sort's keys of the rotations that reach the wrapped token tie: with
	 * each other (a run of 0s before an empty wrapped token, of 1s before
	 * one above the tokens) or with another rotation's key too (runs of 64
	 * and more, or a run of 1s elsewhere in the block, or "0 1 1 ..." in a
	 * block whose wrapped token is "01") */
	{
		size_t n = 450000;
		bad = cases = 0;
		for (unsigned pct0 = 30; pct0 <= 70; pct0 += 40) {
			uint8_t *x = binary(n, pct0, &seed);
			static const struct {
				uint8_t k, v, tail, head;
				uint16_t run, far;
			} runs[] = {
				{1, 0, 0, 0, 40, 0},   /* empty: 0s, ties among themselves */
				{3, 0, 0, 0, 100, 0},  /* empty: 0s, and an earlier key */
				{5, 0, 0, 0, 63, 0},   /* empty: the longest run that ties alone */
				{7, 0, 0, 0, 64, 0},   /* and the shortest that does not */
				{0, 1, 1, 0, 40, 0},   /* "10": 1s, among themselves */
				{2, 1, 1, 1, 30, 80},  /* "11": 1s, and 80 1s mid-block */
				{4, 1, 0, 1, 0, 70},   /* "01": 0 and 70 1s mid-block */
				{6, 1, 1, 1, 70, 0},   /* "11": 70 1s */
			};
			for (unsigned r = 0; r < sizeof runs / sizeof runs[0]; r++) {
				size_t e = last_tok(runs[r].k, 1), mid = e - 20000;
				for (size_t i = 0; i < runs[r].run; i++)
					x[e - i] = runs[r].v;
				x[e - runs[r].run] = (uint8_t)!runs[r].v;
				if (runs[r].k % 2 == 0) {
					x[e + 1] = runs[r].tail;
					x[runs[r].k * (100000 - 19) / 2] = runs[r].head;
				}
				for (size_t i = 0; i < runs[r].far; i++)
					x[mid + i] = 1;
				if (runs[r].far)
					x[mid - 1] = 0;
			}
			/* block 8 ("01"): for each d of 33..63, its last d - 1
			 * tokens again mid-block, then 0, 64 - d 1s, 0, 1s: that
			 * copy's key is the key of the rotation d tokens before
			 * the block's end, whose rotation is greater; 64 tokens
			 * on, 0s at the block's start make the copy look greater
			 * to a doubling that trusted the tie (and the tokens
			 * before the two differ, so the order shows) */
			size_t e = last_tok(8, 1), h = 8 * (100000 - 19) / 2;
			x[e + 1] = 0;
			x[h] = 1;
			memset(x + h + 1, 0, 40);
			for (unsigned d = 33; d < 64; d++) {
				size_t c = e - 20000 + 100 * d;
				x[c - 1] = !x[e - d + 1];
				memcpy(x + c, x + e - d + 2, d - 1);
				x[c + d - 1] = 0;
				memset(x + c + d, 1, 64 - d);
				x[c + 64] = 0;
				memset(x + c + 65, 1, 20);
			}
			one(w, x, n, 1, "binary runs", &bad);
			cases++;
			free(x);
		}
		CHECK(bad == 0, "bz2len = libbz2 on binary data with runs of 0s and 1s before the block ends (%d cases, %d differ)",
		      cases, bad);
	}
	/* two and three values other than 0 and 1, level 1: wrapped tokens
	 * between the tokens, above and below them, and the same string as a
	 * token */
	{
		static const uint8_t sets[][3] = {{3, 7, 7}, {9, 10, 10}, {0, 255, 255}, {25, 30, 30},
						  {0, 1, 2}, {7, 10, 100}, {1, 11, 111}};
		bad = cases = 0;
		for (unsigned t = 0; t < sizeof sets / sizeof sets[0]; t++)
			for (unsigned k = 0; k < 3; k++, cases++) {
				size_t n = 100000 + ng_test_rand(&seed) % 150000;
				uint8_t *x = malloc(n);
				for (size_t i = 0; i < n; i++)
					x[i] = sets[t][ng_test_rand(&seed) % (k + 2) % 3];
				one(w, x, n, 1, "few values", &bad);
				free(x);
			}
		/* 25s and 30s after one 7: level 1's blocks end after a
		 * token's first digit, so sample 33327 = 30 makes block 0's
		 * wrapped token "37" (above the tokens) and block 1's head
		 * "0", sample 66654 = 25 its tail "2": "20", below them; with
		 * 26s and 31s too (four tokens, codes of 2 bits and more), and
		 * with 50 25s before block 1's end */
		for (unsigned k = 0; k < 4; k++, cases++) {
			size_t n = 80000;
			uint8_t *x = malloc(n);
			for (size_t i = 0; i < n; i++)
				x[i] = sets[3][ng_test_rand(&seed) % 2] + (uint8_t)(k & 1 && ng_test_rand(&seed) % 3 == 0);
			x[0] = 7;
			x[33327] = 30;
			x[66654] = 25;
			if (k & 2)
				for (size_t i = 66654 - 50; i < 66654; i++)
					x[i] = 25;
			one(w, x, n, 1, "20 below", &bad);
			free(x);
		}
		CHECK(bad == 0, "bz2len = libbz2 on two and three values, several blocks (%d cases, %d differ)", cases, bad);
	}
	/* the portable paths (CPUs without SSSE3, SSE2 or AVX-512: the
	 * move-to-front, zero runs, group counts and table choice) on the
	 * same kinds */
	bad = cases = 0;
	ng_bz2_portable = true;
	for (int it = 0; it < 200; it++, cases++)
		one_kind(w, 1 + ng_test_rand(&seed) % 40000, it % KINDS, 1, &seed, "portable", &bad);
	ng_bz2_portable = false;
	CHECK(bad == 0, "bz2len with the portable paths = libbz2 on %d inputs (%d differ)", cases, bad);
	CHECK(ng_bz2_text_size(NULL, 0, 5, w) == ng_bz2_oracle(NULL, 0, 5), "empty input: the stream's header and end only (%ld bytes)",
	      ng_bz2_oracle(NULL, 0, 5));
	CHECK(ng_bz2_text_size((const uint8_t *)"\1", 1, 0, w) == -1 && ng_bz2_text_size((const uint8_t *)"\1", 1, 10, w) == -1,
	      "levels outside 1..9 are refused (-1)");
	{
		/* a set cancel flag stops the next call before its first block
		 * (-2); cleared, the same workspace gives the exact size again */
		uint8_t x[3000];
		for (size_t i = 0; i < sizeof x; i++)
			x[i] = (uint8_t)ng_test_rand(&seed);
		atomic_bool stop;
		atomic_init(&stop, true);
		ng_bz2_ws_cancel_on(w, &stop);
		int64_t c = ng_bz2_text_size(x, sizeof x, 1, w);
		atomic_store(&stop, false);
		int64_t e = ng_bz2_text_size(x, sizeof x, 1, w);
		ng_bz2_ws_cancel_on(w, NULL);
		CHECK(c == -2 && e == ng_bz2_oracle(x, sizeof x, 1), "cancel flag: -2 while set, libbz2's size once cleared");
	}
	ng_bz2_ws_free(w);
	return ng_check_exit();
}
