/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Power-up known-answer self-tests of core/, run by every path before its
 * first output byte (the firmware, and neug generate, emulate, feed, egd):
 *   sha256           FIPS 180-4 examples and longer messages (1 to 16
 *                    blocks) on the implementation in use
 *   sha256-portable  the portable compression against the one in use (not
 *                    on the Cortex-M3: the firmware has the assembly only)
 *   crc              the CRC-32 check value and word order
 *   pipeline         a short vector through modes 0 and 1
 *   rct, apt         each SP 800-90B test's induced failure, at the known sample
 *   adc              a dead ADC (a constant half-word) caught on its own stream
 *   neug             each of NeuG's CRC-output tests' induced failure
 * Uses one static ng_pipeline (about 2 KiB of RAM) as scratch. */
#ifndef NG_SELFTEST_H
#define NG_SELFTEST_H
#include "ng/status.h"

/* NG_OK, or NG_ERR_SELFTEST when any known answer differs. Not reentrant. */
ng_status ng_selftest(void);
/* The name (above) of the first test that failed in the last ng_selftest,
 * or NULL when all passed. */
const char *ng_selftest_failed(void);

#ifdef NG_SELFTEST_HOOKS
/* Test builds only: makes the named test's known answer wrong, so that a
 * test can prove that a path refuses to output when a self-test fails. */
void ng_selftest_inject(const char *name);
#endif

#endif
