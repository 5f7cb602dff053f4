/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The freestanding proof's whole environment: the four mem* functions GCC
 * may call, and an entry point that runs the self-tests. Linked with
 * -nostdlib, so anything else core/ needed would be an undefined symbol. */
#include <stddef.h>
#include "ng/selftest.h"

void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *dd = d;
	const unsigned char *ss = s;
	while (n--)
		*dd++ = *ss++;
	return d;
}

void *memmove(void *d, const void *s, size_t n)
{
	unsigned char *dd = d;
	const unsigned char *ss = s;
	if (dd < ss) {
		while (n--)
			*dd++ = *ss++;
	} else {
		while (n--)
			dd[n] = ss[n];
	}
	return d;
}

void *memset(void *d, int c, size_t n)
{
	unsigned char *dd = d;
	while (n--)
		*dd++ = (unsigned char)c;
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (; n--; x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

volatile int ng_stub_result;

/* The kernel enters with the stack 16-byte aligned, not as after a call. */
#if defined(__x86_64__)
#define NG_ENTRY __attribute__((force_align_arg_pointer, used))
#else
#define NG_ENTRY __attribute__((used))
#endif

void _start(void);
NG_ENTRY void _start(void)
{
	ng_stub_result = ng_selftest();
#if defined(__x86_64__)
	/* exit(status) without libc: 0 when the self-tests passed */
	__asm__ volatile("syscall" : : "a"(60), "D"(ng_stub_result != 0) : "rcx", "r11", "memory");
#endif
	for (;;)
		;
}
