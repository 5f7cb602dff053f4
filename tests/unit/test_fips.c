/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ng_fips_block (bit-parallel) against a bit-by-bit implementation of the
 * FIPS 140-2 tests as rngtest (rng-tools5) counts them, on a chain of random,
 * biased, correlated and long-run blocks: rngtest's run counter starts each
 * block against the previous block's last bit (0 at first), so a block whose
 * first bit differs records one extra run, a 6+ run of ones if that bit is 1
 * or one more nibble 15 for the poker test if it is 0; and the run open at
 * the end of a block is counted with the other bit value's runs. */
#include <stdbool.h>
#include <string.h>
#include "check.h"
#include "fips.h"

static unsigned naive(const uint8_t *b, int *prev, bool quirks)
{
	static const int lo[6] = {2315, 1114, 527, 240, 103, 103}, hi[6] = {2685, 1386, 723, 384, 209, 209};
	unsigned f = 0, ones = 0, nib[16] = {0}, runs[2][6] = {{0}}, longest = 0;
	for (int i = 0; i < 2500; i++) {
		nib[b[i] >> 4]++;
		nib[b[i] & 15]++;
	}
	if (quirks && (b[0] >> 7) != *prev) {
		if (b[0] >> 7)
			runs[1][5]++;
		else
			nib[15]++;
	}
	int cur = -1, len = 0;
	for (int i = 0; i < 20000; i++) {
		int bit = b[i / 8] >> (7 - i % 8) & 1;
		ones += (unsigned)bit;
		if (bit != cur && cur >= 0) {
			runs[cur][len < 6 ? len - 1 : 5]++;
			if ((unsigned)len > longest)
				longest = (unsigned)len;
			len = 0;
		}
		cur = bit;
		len++;
	}
	runs[quirks ? !cur : cur][len < 6 ? len - 1 : 5]++;
	if ((unsigned)len > longest)
		longest = (unsigned)len;
	*prev = cur;
	if (!(ones > 9725 && ones < 10275))
		f |= 1u << NG_FIPS_MONOBIT;
	double sq = 0;
	for (int i = 0; i < 16; i++)
		sq += (double)nib[i] * nib[i];
	double X = 16.0 / 5000 * sq - 5000;
	if (!(X > 2.16 && X < 46.17))
		f |= 1u << NG_FIPS_POKER;
	for (int v = 0; v < 2; v++)
		for (int l = 0; l < 6; l++)
			if ((int)runs[v][l] < lo[l] || (int)runs[v][l] > hi[l])
				f |= 1u << NG_FIPS_RUNS;
	if (longest >= 26)
		f |= 1u << NG_FIPS_LONGRUN;
	return f;
}

int main(void)
{
	uint64_t seed = ng_test_seed();
	uint8_t b[2500];
	int bad = 0, n = 0, failing = 0, prev = 0, prev_plain = 0, sensitive = 0;
	ng_fips_ctx c;
	ng_fips_init(&c);
	for (int round = 0; round < 1600; round++) {
		int kind = round % 8;
		unsigned bit = 0;
		for (int i = 0; i < 2500; i++) {
			unsigned v = 0;
			for (int j = 0; j < 8; j++) {
				uint64_t r = ng_test_rand(&seed) % 1000;
				if (kind == 1)
					bit = r < 515;              /* biased */
				else if (kind == 2)
					bit ^= r < 480;             /* correlated */
				else if (kind == 7)
					bit ^= r < 480;             /* runs near their limits */
				else
					bit = r < 500;
				v = v << 1 | bit;
			}
			b[i] = (uint8_t)v;
		}
		if (kind == 3 || kind == 4) {
			/* a run of 25..27 equal bits at a word boundary or the end */
			int len = 25 + (int)(ng_test_rand(&seed) % 3), start = kind == 3 ? 64 * (1 + (int)(ng_test_rand(&seed) % 300)) - 13 : 20000 - len;
			int val = (int)(ng_test_rand(&seed) & 1);
			for (int i = start - 1; i <= start + len && i < 20000; i++) {
				if (i < 0)
					continue;
				int want = (i == start - 1 || i == start + len) ? !val : val;
				b[i / 8] = (uint8_t)((b[i / 8] & ~(0x80 >> (i % 8))) | (want ? 0x80 >> (i % 8) : 0));
			}
		}
		if (kind == 6) /* nibble 15 likelier: poker X near its upper limit */
			for (int i = 0; i < 2500; i++) {
				unsigned v = 0;
				for (int j = 0; j < 2; j++) {
					uint64_t r = ng_test_rand(&seed) % 1000;
					v = v << 4 | (r < 81 ? 15 : (unsigned)(ng_test_rand(&seed) % 15));
				}
				b[i] = (uint8_t)v;
			}
		if (kind == 5)
			memset(b + (ng_test_rand(&seed) % 2400), 0, 40);
		unsigned got = ng_fips_block(&c, b) & ~(1u << NG_FIPS_CONTINUOUS), want = naive(b, &prev, true);
		sensitive += naive(b, &prev_plain, false) != want;
		n++;
		failing += want != 0;
		if (got != want) {
			if (bad++ < 5)
				printf("# round %d kind %d: got 0x%x want 0x%x\n", round, kind, got, want);
		}
	}
	CHECK(bad == 0 && failing > 100 && sensitive > 0,
	      "fips: bit-parallel tests = bit-by-bit rngtest-style tests on %d blocks (%d failing, %d decided by the carried run state, %d differ)",
	      n, failing, sensitive, bad);
	/* continuous run: a repeated 32-bit word */
	ng_fips_init(&c);
	uint8_t s[4 + 2500];
	for (size_t i = 0; i < sizeof s; i++)
		s[i] = (uint8_t)ng_test_rand(&seed);
	memcpy(s + 4 + 400, s + 4 + 396, 4);
	ng_fips_update(&c, s, sizeof s);
	CHECK(c.failed == 1 && c.fail[NG_FIPS_CONTINUOUS] == 1 && c.bits == 8 * sizeof s, "fips: repeated word fails the continuous run test");
	return ng_check_exit();
}
