/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>
#include "ng/wipe.h"

/* memset (the host's C library's, or the firmware's word-wise one in
 * firmware/stm32f103/libc.c), then an empty asm that claims to read the
 * memory, so that the stores cannot be removed as dead (GCC and Clang);
 * other compilers: volatile byte stores. */
void ng_wipe(void *p, size_t n)
{
#if defined(__GNUC__) || defined(__clang__)
	memset(p, 0, n);
	__asm__ volatile("" : : "r"(p) : "memory");
#else
	volatile unsigned char *v = p;
	while (n--)
		*v++ = 0;
#endif
}
