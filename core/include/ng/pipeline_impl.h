/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The layout of ng_pipeline, so callers can own one (static, on the stack,
 * inside a device struct). Included by pipeline.h only; do not use the
 * fields: they change without notice. */
#ifndef NG_PIPELINE_IMPL_H
#define NG_PIPELINE_IMPL_H

/* Released blocks waiting for ng_pipeline_take, and blocks held back while
 * the start-up test runs (at most NG_STARTUP_SAMPLES / 32 in mode 1). */
#define NG_PIPELINE_QUEUE 40u

/* The CRC engine, chosen once by ng_pipeline_init: shifts g groups of 4
 * samples from w in (w[0] first), v[k] = the register after group k. */
typedef void (*ng_pipeline_crc_fn)(ng_pipeline *p, const uint32_t *w, size_t g, uint32_t *v);

struct ng_pipeline {
	uint32_t mode;            /* NG_MODE_* */
	uint32_t spb;             /* samples per conditioned block (multiple of 4) */
	ng_pipeline_crc_fn crc;
	volatile uint32_t *crc_dr; /* the CRC unit's data register, or NULL */
	uint32_t crc_reg;         /* the CRC register after the last group */
	ng_health_ctx health;
	/* the block being built */
	uint32_t pend[4];         /* samples of an incomplete group of 4 */
	uint32_t pend_n;
	uint32_t grp;             /* groups of 4 samples done in this block */
	uint32_t blk_fail;        /* NG_HEALTH_* bits that fired during it */
	uint32_t skip;            /* samples to test but not use (raw-mode alignment) */
	uint32_t mh[8];           /* mode 0: SHA-256 chaining value */
	uint32_t mfill;           /* mode 0: bytes in msg (a multiple of 4) */
	uint32_t msg[64];         /* mode 0: a ring of 3 message blocks being filled,
				   * and a 4th for the padding; modes 1 and 2: the
				   * block so far */
	uint8_t prev[16];         /* mode 0: first half of the previous output */
	/* the output queue: ring of q_count blocks starting at q_head */
	uint32_t q_head, q_count;
	uint64_t blocks_out, blocks_dropped, blocks_lost;
	uint8_t q[NG_PIPELINE_QUEUE][NG_BLOCK_BYTES];
};

#endif
