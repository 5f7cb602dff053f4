/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The host's power-up self-tests (kat.h). */
#include "kat.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exit.h"
#include "ng/selftest.h"
#include "ng/sha256.h"

/* What each of core's self-tests checks, for the message. */
static const struct {
	const char *name, *what;
} ng_kat_what[] = {
	{"sha256", "FIPS 180-4 examples: known answer mismatch"},
	{"sha256-portable", "the portable compression: known answer mismatch"},
	{"crc", "the CRC-32 check value and word order: known answer mismatch"},
	{"pipeline", "the pipeline vector in modes 0 and 1: known answer mismatch"},
	{"rct", "a stuck source: the repetition count test did not fire at its known sample"},
	{"apt", "a too frequent value: the adaptive proportion test did not fire at its known sample"},
	{"adc", "a dead ADC: its stream's repetition count test did not fire at its known sample"},
	{"neug", "NeuG's CRC-output tests did not fire on their induced failures"},
};

int ng_kat_run(char *err, size_t errlen)
{
#ifdef NG_SELFTEST_HOOKS
	const char *wrong = getenv("NEUG_TEST_SELFTEST_FAIL");
	ng_selftest_inject(wrong && *wrong ? wrong : NULL);
#endif
	if (ng_selftest() == NG_OK)
		return 0;
	const char *name = ng_selftest_failed();
	const char *what = "known answer mismatch";
	if (!name)
		name = "?";
	for (size_t i = 0; i < sizeof ng_kat_what / sizeof ng_kat_what[0]; i++)
		if (!strcmp(ng_kat_what[i].name, name))
			what = ng_kat_what[i].what;
	if (!strncmp(name, "sha256", 6))   /* the SHA-256 the process would have used */
		snprintf(err, errlen, "self-test failed: %s (%s %s): %s", name, name[6] ? "against" : "on",
			 ng_sha256_impl(), what);
	else
		snprintf(err, errlen, "self-test failed: %s: %s", name, what);
	return NG_EXIT_HEALTH;
}
