/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdint.h>
#include <string.h>
#include "ng/wipe.h"

/* 64-bit hosts: memset (the C library's is fast), then an empty asm that
 * claims to read the memory, so the stores cannot be removed as dead (GCC
 * and Clang). Elsewhere (the Cortex-M3 firmware, whose memset goes byte by
 * byte): volatile stores, a word at a time over the aligned middle. */
void ng_wipe(void *p, size_t n)
{
#if (defined(__GNUC__) || defined(__clang__)) && UINTPTR_MAX > 0xffffffffu
	memset(p, 0, n);
	__asm__ volatile("" : : "r"(p) : "memory");
#else
	volatile unsigned char *v = p;
	for (; n && ((uintptr_t)v & 3u); n--)
		*v++ = 0;
	volatile uint32_t *w = (volatile uint32_t *)(volatile void *)v;
	for (; n >= 16; n -= 16, w += 4) {
		w[0] = 0;
		w[1] = 0;
		w[2] = 0;
		w[3] = 0;
	}
	for (; n >= 4; n -= 4)
		*w++ = 0;
	for (v = (volatile unsigned char *)w; n; n--)
		*v++ = 0;
#if defined(__GNUC__) || defined(__clang__)
	__asm__ volatile("" : : "r"(p) : "memory");
#endif
#endif
}
