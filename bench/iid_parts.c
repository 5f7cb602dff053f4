/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The IID track's per-round parts on one file, next to libbz2 in the same
 * run: the compression statistic by libbz2 (tests/bz2_oracle.h: the
 * decimal text made and compressed at level 5) and by
 * bz2len, Fisher-Yates with the excursion fused and alone (the round's
 * copy of the samples included), and the two-level arrangement laid out.
 * One thread; the best of REPS runs of each, alternately. Then the rounds
 * where the excursion is the only statistic left (measured against the
 * unpermuted value, which lets them skip most of the walk and stop once
 * above it), with either arrangement: the mean over 20 * REPS rounds, and
 * how many came out above. Prints one line per part. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "assess.h"
#include "bz2_oracle.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: iid_parts FILE [REPS]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 3;
	}
	static uint8_t x[1 << 24], y[1 << 24];
	size_t n = fread(x, 1, sizeof x, f);
	fclose(f);
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	uint64_t cnt[256];
	ng_perm_counts(x, n, cnt);
	uint64_t total = 0;
	unsigned vmin = 255, vmax = 0;
	for (size_t i = 0; i < n; i++) {
		total += x[i];
		vmin = x[i] < vmin ? x[i] : vmin;
		vmax = x[i] > vmax ? x[i] : vmax;
	}
	ng_bz2_ws *w = ng_bz2_ws_new();
	double best[5] = {1e9, 1e9, 1e9, 1e9, 1e9};
	long a = 0, b = 0;
	uint64_t seed = 1;
	for (int r = 0; r < reps; r++) {
		double t0 = now();
		a = ng_bz2_oracle(x, n, 5);
		double t1 = now();
		b = (long)ng_bz2_text_size(x, n, 5, w);
		double t2 = now();
		(void)ng_perm_shuffle_excursion(x, NULL, y, n, seed++, false, total, vmin, vmax, INFINITY);
		double t3 = now();
		ng_perm_shuffle(x, NULL, y, n, seed++, false);
		double t4 = now();
		ng_perm_shuffle(x, cnt, y, n, seed++, true);
		double t5 = now();
		double d[5] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4};
		for (int k = 0; k < 5; k++)
			best[k] = d[k] < best[k] ? d[k] : best[k];
	}
	printf("   compression statistic, libbz2      %8.1f ms  (%ld bytes)\n", best[0] * 1e3, a);
	printf("   compression statistic, bz2len      %8.1f ms  (%ld bytes; %.1fx)\n", best[1] * 1e3, b,
	       best[0] / best[1]);
	printf("   Fisher-Yates + excursion (copy)    %8.2f ms\n", best[2] * 1e3);
	printf("   Fisher-Yates alone (copy)          %8.2f ms\n", best[3] * 1e3);
	printf("   two-level arrangement laid out     %8.2f ms\n", best[4] * 1e3);
	double exc0 = ng_perm_excursion(x, n);
	int rounds = 20 * (reps > 0 ? reps : 1);
	for (int rs = 0; rs < 2; rs++) {
		int above = 0;
		double t0 = now();
		for (int r = 0; r < rounds; r++)
			above += ng_perm_shuffle_excursion(x, cnt, y, n, seed++, rs, total, vmin, vmax, exc0) > exc0;
		printf("   excursion-only round, %s %6.2f ms  (mean of %d, %d above the unpermuted)\n",
		       rs ? "two-level   " : "Fisher-Yates", (now() - t0) / rounds * 1e3, rounds, above);
	}
	ng_bz2_ws_free(w);
	return a == b ? 0 : 1;
}
