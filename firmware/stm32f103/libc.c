/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The only C library functions the firmware uses (GCC may emit calls to
 * them even in freestanding code). Compiled with
 * -fno-tree-loop-distribute-patterns so that these loops are not turned
 * back into calls to themselves. Word-at-a-time when both pointers are
 * aligned, which is the common case (32-byte blocks, packet buffers). */
#include <stddef.h>
#include <stdint.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

#ifdef NG_LIBC_SMALL
/* The boot loader's build: a byte at a time, for size; memcpy is memmove. */
void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	return memmove(dst, src, n);
}

void *memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;
	while (n--)
		*d++ = (uint8_t)c;
	return dst;
}
#else
void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	if ((((uintptr_t)d | (uintptr_t)s) & 3u) == 0) {
#if defined(__ARM_ARCH_7M__) && defined(__GNUC__)
		/* 32 bytes, then 16, per ldm/stm pair on the Cortex-M3: 4
		 * instructions per 32 bytes instead of about 40 (the noise
		 * source copies a 512-byte DMA half per 128 samples). Forward,
		 * each chunk loaded before it is stored, so memmove's d < s
		 * case stays correct. */
		if (n >= 32) {
			size_t k = n / 32;   /* the loop in the asm: 4 instructions a pass */
			__asm__ volatile("1:\n\t"
					 "ldmia %0!, {r3, r4, r5, r6, r7, r8, r9, r10}\n\t"
					 "stmia %1!, {r3, r4, r5, r6, r7, r8, r9, r10}\n\t"
					 "subs %2, %2, #1\n\t"
					 "bne 1b"
					 : "+r"(s), "+r"(d), "+r"(k)
					 :
					 : "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "cc", "memory");
			n %= 32;
		}
		for (; n >= 16; n -= 16)
			__asm__ volatile("ldmia %0!, {r4, r5, r6, r7}\n\t"
					 "stmia %1!, {r4, r5, r6, r7}"
					 : "+r"(s), "+r"(d)
					 :
					 : "r4", "r5", "r6", "r7", "memory");
#endif
		for (; n >= 4; n -= 4, d += 4, s += 4)
			*(uint32_t *)(void *)d = *(const uint32_t *)(const void *)s;
	}
	while (n--)
		*d++ = *s++;
	return dst;
}
#endif

void *memmove(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
#ifdef NG_LIBC_SMALL
	if (d <= s || d >= s + n) {
		while (n--)
			*d++ = *s++;
		return dst;
	}
#else
	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
#endif
	while (n--)
		d[n] = s[n];
	return dst;
}

#ifndef NG_LIBC_SMALL
/* Bytes up to a word boundary, then 16 bytes per stmia on the Cortex-M3
 * (ng_wipe clears 64 bytes per conditioned output), two words per
 * pass, then the tail. */
void *memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;
	uint8_t b = (uint8_t)c;
	for (; n && ((uintptr_t)d & 3u); n--)
		*d++ = b;
	uint32_t w = b * 0x01010101u;
#if defined(__ARM_ARCH_7M__) && defined(__GNUC__)
	if (n >= 16) {
		__asm__ volatile("mov r4, %2\n\t"
				 "mov r5, %2\n\t"
				 "mov r6, %2\n\t"
				 "mov r7, %2\n"
				 "1:\tstmia %0!, {r4, r5, r6, r7}\n\t"
				 "subs %1, %1, #16\n\t"
				 "cmp %1, #16\n\t"
				 "bhs 1b"
				 : "+r"(d), "+r"(n)
				 : "r"(w)
				 : "r4", "r5", "r6", "r7", "cc", "memory");
	}
#endif
	for (; n >= 8; n -= 8, d += 8) {
		((uint32_t *)(void *)d)[0] = w;
		((uint32_t *)(void *)d)[1] = w;
	}
	if (n >= 4) {
		*(uint32_t *)(void *)d = w;
		d += 4;
		n -= 4;
	}
	while (n--)
		*d++ = b;
	return dst;
}
#endif

int memcmp(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y; /* the sign of the first difference (C11 7.24.4.1) */
	return 0;
}
