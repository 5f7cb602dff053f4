/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Power-up known-answer self-tests of core/: SHA-256 (FIPS 180-4 examples,
 * on every implementation this CPU has), the CRC check value and word order,
 * a short pipeline vector in modes 0 and 1, and the health tests on a stuck
 * source. Uses one static ng_pipeline (about 2 KiB of RAM) as scratch. */
#ifndef NG_SELFTEST_H
#define NG_SELFTEST_H
#include "ng/status.h"

/* NG_OK, or NG_ERR_SELFTEST when any known answer differs. Not reentrant. */
ng_status ng_selftest(void);

#endif
