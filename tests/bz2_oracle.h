/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libbz2 itself as the oracle for the compression statistic (5.1.11): the
 * size BZ2_bzBuffToBuffCompress writes for the samples as decimal numbers
 * separated by single spaces, at a level of 1..9 (the statistic's is 5,
 * default work factor). Used by test_bz2len, test_assess_iid, fuzz_assess
 * and bench/iid_parts. */
#ifndef NG_TESTS_BZ2_ORACLE_H
#define NG_TESTS_BZ2_ORACLE_H
#include <bzlib.h>
#include <stdint.h>
#include <stdlib.h>

/* bytes, or -1 when libbz2 fails or memory runs out */
static inline long ng_bz2_oracle(const uint8_t *x, size_t n, int level)
{
	char *txt = malloc(4 * n + 1);
	size_t t = 0;
	for (size_t i = 0; txt && i < n; i++) {
		unsigned v = x[i];
		if (i)
			txt[t++] = ' ';
		if (v >= 100)
			txt[t++] = (char)('0' + v / 100);
		if (v >= 10)
			txt[t++] = (char)('0' + v / 10 % 10);
		txt[t++] = (char)('0' + v % 10);
	}
	unsigned dl = (unsigned)(t + t / 100 + 600);
	char *out = malloc(dl);
	long r = txt && out && BZ2_bzBuffToBuffCompress(out, &dl, txt, (unsigned)t, level, 0, 0) == BZ_OK
			 ? (long)dl
			 : -1;
	free(txt);
	free(out);
	return r;
}
#endif
