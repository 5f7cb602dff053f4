/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The power-up self-tests of a host path: core's known-answer tests
 * (ng/selftest.h) run in this process, on the code it outputs with: the
 * SHA-256 that CPUID selected (SHA-NI or portable) and the portable one
 * against it, the software CRC, the pipeline vector, each health test's
 * induced failure. neug generate, feed and egd run them before their first
 * byte, the emulated device at each of its boots (GET_INFO 34). */
#ifndef NG_KAT_H
#define NG_KAT_H
#include <stddef.h>

/* 0 when every known answer matched; else NG_EXIT_HEALTH with
 * "self-test failed: TEST (detail): what differed" in err, TEST being the
 * name ng_selftest_failed gives (sha256, sha256-portable, crc, pipeline,
 * rct, apt, adc, neug).
 * Test builds only (-DNG_SELFTEST_HOOKS, build/test-bin/neug): the
 * environment variable NEUG_TEST_SELFTEST_FAIL=TEST makes that test's known
 * answer wrong first. The shipped build has no such code. */
int ng_kat_run(char *err, size_t errlen);

#endif
