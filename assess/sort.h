/* SPDX-License-Identifier: GPL-3.0-or-later */
/* assess/ internal: the insertion sort the radix sorts finish small
 * buckets with (bz2len.c, tuple.c), tuple.c's MSD radix sort, a popcount
 * that is not a library call, and a byte histogram. */
#ifndef NG_ASSESS_SORT_H
#define NG_ASSESS_SORT_H
#include <stddef.h>
#include <stdint.h>

static inline void ng_insertion_sort_u64(uint64_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t x = a[i];
		size_t j = i;
		while (j > 0 && a[j - 1] > x) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
}

/* Bits set in x: the popcnt instruction where the target has it, else a
 * few shifts and one multiply inline (the libgcc call __builtin_popcountll
 * becomes without it was 2% of a non-IID run). */
static inline uint64_t ng_popcount64(uint64_t x)
{
#ifdef __POPCNT__
	return (uint64_t)__builtin_popcountll(x);
#else
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (x * 0x0101010101010101ULL) >> 56;
#endif
}

/* The count of each byte value in x[0..n): four tables in turn, so that
 * a run of one value does not wait on its own counter. */
static inline void ng_byte_counts(const uint8_t *x, size_t n, uint64_t cnt[256])
{
	uint64_t c4[4][256] = {{0}};
	size_t i = 0;
	for (; i + 4 <= n; i += 4) {
		c4[0][x[i]]++;
		c4[1][x[i + 1]]++;
		c4[2][x[i + 2]]++;
		c4[3][x[i + 3]]++;
	}
	for (; i < n; i++)
		c4[0][x[i]]++;
	for (unsigned v = 0; v < 256; v++)
		cnt[v] = c4[0][v] + c4[1][v] + c4[2][v] + c4[3][v];
}

/* MSD radix sort of a[0..m) on key bits [0, shift) (the higher ones are
 * equal; 64 for whole keys), tmp[0..m) as scratch. */
void ng_msd_sort_u64(uint64_t *a, uint64_t *tmp, size_t m, unsigned shift);
#endif
