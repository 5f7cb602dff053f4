/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Monotonic seconds (CLOCK_MONOTONIC), for timeouts and periods. */
#ifndef NG_MONO_H
#define NG_MONO_H
#include <time.h>

static inline double ng_mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
