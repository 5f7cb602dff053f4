/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdint.h>
#include <string.h>
#include "ng/wipe.h"

/* 64-bit hosts: memset (the C library's is fast), then an empty asm that
 * claims to read the memory, so the stores cannot be removed as dead (GCC
 * and Clang). Elsewhere (the Cortex-M3 firmware has no fast memset):
 * volatile stores, a word at a time over the aligned middle; on ARMv7-M
 * the middle's 16-byte chunks are stmia stores inside an asm volatile. */
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
#if defined(__ARM_ARCH_7M__) && defined(__GNUC__)
	/* The Cortex-M3: 16 bytes per stmia of four zeroed registers (4
	 * instructions per 16 bytes instead of 8). */
	if (n >= 16) {
		uint32_t *a = (uint32_t *)(uintptr_t)w;
		__asm__ volatile("movs r4, #0\n\t"
				 "movs r5, #0\n\t"
				 "movs r6, #0\n\t"
				 "movs r7, #0\n"
				 "1:\tstmia %0!, {r4, r5, r6, r7}\n\t"
				 "subs %1, %1, #16\n\t"
				 "cmp %1, #16\n\t"
				 "bhs 1b"
				 : "+r"(a), "+r"(n)
				 :
				 : "r4", "r5", "r6", "r7", "cc", "memory");
		w = a;
	}
#else
	for (; n >= 16; n -= 16, w += 4) {
		w[0] = 0;
		w[1] = 0;
		w[2] = 0;
		w[3] = 0;
	}
#endif
	for (; n >= 4; n -= 4)
		*w++ = 0;
	for (v = (volatile unsigned char *)w; n; n--)
		*v++ = 0;
#if defined(__GNUC__) || defined(__clang__)
	__asm__ volatile("" : : "r"(p) : "memory");
#endif
#endif
}
