/* SPDX-License-Identifier: GPL-3.0-or-later */
/* assess/ internal: the insertion sort the radix sorts finish small
 * buckets with (bz2len.c, tuple.c). */
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
#endif
