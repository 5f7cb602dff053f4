/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Clearing secrets: a memset the compiler may not remove. */
#ifndef NG_WIPE_H
#define NG_WIPE_H
#include <stddef.h>

/* Sets n bytes at p to zero with stores the compiler may not remove
 * (memset where the compiler can be told so). */
void ng_wipe(void *p, size_t n);

#endif
