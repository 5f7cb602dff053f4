/* SPDX-License-Identifier: GPL-3.0-or-later */
/* FIPS 140-2 (change notice 2001-10-10) statistical tests on 20,000-bit
 * blocks, with the continuous run test on 32-bit words, counted the way
 * rngtest (rng-tools5) counts them: the first 32 bits of the input only
 * prime the continuous run test; each later 2500-byte block is one test.
 * As in rngtest, the runs count carries the previous block's last bit: a
 * block whose first bit differs gets one extra run (a 6+ run of ones if
 * that bit is 1, else one more nibble 15 for the poker test), and the run
 * open at a block's end counts with the other bit value's runs. */
#ifndef NG_FIPS_H
#define NG_FIPS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NG_FIPS_BLOCK 2500u /* bytes: 20,000 bits */

enum { NG_FIPS_MONOBIT, NG_FIPS_POKER, NG_FIPS_RUNS, NG_FIPS_LONGRUN, NG_FIPS_CONTINUOUS, NG_FIPS_TESTS };
extern const char *const ng_fips_name[NG_FIPS_TESTS];

typedef struct {
	uint64_t bits;           /* bits received */
	uint64_t ok, failed;     /* blocks */
	uint64_t fail[NG_FIPS_TESTS];
	/* private */
	uint32_t last;
	uint8_t prev_bit;        /* last bit of the previous block (rngtest's runs state) */
	bool primed;
	uint8_t buf[NG_FIPS_BLOCK + 8];
	size_t have;
} ng_fips_ctx;

void ng_fips_init(ng_fips_ctx *c);
/* Tests one 2500-byte block; returns a bit mask of the failed tests. */
unsigned ng_fips_block(ng_fips_ctx *c, const uint8_t blk[NG_FIPS_BLOCK]);
/* Streams bytes: primes, then tests whole blocks (a partial one waits). */
void ng_fips_update(ng_fips_ctx *c, const uint8_t *p, size_t n);

#endif
