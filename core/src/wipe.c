/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>
#include "ng/wipe.h"

/* memset (the host's C library's, or the firmware's in
 * firmware/stm32f103/libc.c), then an empty asm that claims to read the
 * memory, so that the stores cannot be removed as dead. */
void ng_wipe(void *p, size_t n)
{
	memset(p, 0, n);
	__asm__ volatile("" : : "r"(p) : "memory");
}
