/* SPDX-License-Identifier: GPL-3.0-or-later */
/* assess/ internal: the insertion sort the radix sorts finish small
 * buckets with (bz2len.c, tuple.c), and tuple.c's MSD radix sort. */
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

/* MSD radix sort of a[0..m) on key bits [0, shift) (the higher ones are
 * equal; 64 for whole keys), tmp[0..m) as scratch. */
void ng_msd_sort_u64(uint64_t *a, uint64_t *tmp, size_t m, unsigned shift);
#endif
