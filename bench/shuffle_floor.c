/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Why the IID track's shuffle is at its floor: Fisher-Yates on 1,000,000
 * bytes (ng_perm_shuffle) beside its parts, each timed alone on this
 * machine: the generator and the index arithmetic without the swaps, the
 * swaps without the generator (the indices read from a table), and a byte
 * stored at a random place in buffers of 16 KB to 1 MB. The best of REPS
 * runs of each. One thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "assess.h"
#include "xoshiro.h"

#define N 1000000
#define TAB 4096
#define STORES ((N + TAB - 1) / TAB * TAB)

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* the shuffle's draws (two 32-bit halves an output, Lemire's multiply)
 * without a swap; the sum keeps them from being optimised away */
static __attribute__((noinline)) uint64_t draws_only(ng_xoshiro *g)
{
	uint64_t acc = 0;
	for (size_t i = N - 1; i > 1; i -= 2) {
		uint64_t r = ng_xoshiro_step(g);
		acc += ((uint64_t)(uint32_t)(r >> 32) * (i + 1)) >> 32;
		acc += ((uint64_t)(uint32_t)r * i) >> 32;
	}
	return acc;
}

/* the swaps of N - 1 steps, the indices from a table of TAB scaled below i */
static __attribute__((noinline)) void swaps_only(uint8_t *y, const uint32_t *tab)
{
	for (size_t i = N - 1, t = 0; i > 0; i--, t = (t + 1) % TAB) {
		size_t k = (uint64_t)tab[t] * (i + 1) >> 32;
		uint8_t v = y[k];
		y[k] = y[i];
		y[i] = v;
	}
}

/* STORES byte stores at the table's places in a buffer of 2^bits bytes */
static __attribute__((noinline)) void stores(uint8_t *y, const uint32_t *tab, unsigned bits)
{
	for (size_t s = 0; s < STORES; s += TAB)
		for (size_t t = 0; t < TAB; t++)
			y[tab[t] >> (32 - bits)] = (uint8_t)t;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	uint8_t *y = malloc(1 << 20), *z = malloc(1 << 20);
	uint32_t *tab = malloc(TAB * sizeof *tab);
	if (!y || !z || !tab)
		return 1;
	ng_xoshiro g;
	ng_xoshiro_seed(&g, 1);
	for (size_t i = 0; i < (1 << 20); i++)
		y[i] = (uint8_t)ng_xoshiro_step(&g);
	for (size_t t = 0; t < TAB; t++)
		tab[t] = (uint32_t)ng_xoshiro_step(&g);
	double b[7] = {1e9, 1e9, 1e9, 1e9, 1e9, 1e9, 1e9};
	static const unsigned range[4] = {14, 16, 18, 20};
	volatile uint64_t sink = 0;
	for (int r = 0; r < reps * 4; r++) {
		double t0 = now();
		ng_perm_shuffle(y, NULL, z, N, ng_xoshiro_step(&g), false);
		double t1 = now();
		sink += draws_only(&g);
		double t2 = now();
		swaps_only(y, tab);
		double t3 = now();
		double d[3] = {t1 - t0, t2 - t1, t3 - t2};
		for (int i = 0; i < 3; i++)
			b[i] = d[i] < b[i] ? d[i] : b[i];
		for (int i = 0; i < 4; i++) {
			stores(y, tab, range[i]);   /* the buffer's lines in the cache */
			double s0 = now();
			stores(y, tab, range[i]);
			double s = now() - s0;
			b[3 + i] = s < b[3 + i] ? s : b[3 + i];
		}
	}
	printf("   shuffle of 1,000,000 bytes (Fisher-Yates, copy) %6.2f ms\n", b[0] * 1e3);
	printf("   its draws alone, no swaps                   %6.2f ms\n", b[1] * 1e3);
	printf("   its swaps alone, indices from a table       %6.2f ms\n", b[2] * 1e3);
	for (int i = 0; i < 4; i++)
		printf("   a byte stored at a random place in %4u KB  %6.2f ns\n", (1u << range[i]) / 1024,
		       b[3 + i] * 1e9 / STORES);
	free(y);
	free(z);
	free(tab);
	return 0;
}
