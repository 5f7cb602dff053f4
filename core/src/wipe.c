/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ng/wipe.h"

void ng_wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;
	while (n--)
		*v++ = 0;
}
