/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The layout of ng_pipeline, so callers can own one (static, on the stack,
 * inside a device struct). Included by pipeline.h only; do not use the
 * fields: they change without notice. */
#ifndef NG_PIPELINE_IMPL_H
#define NG_PIPELINE_IMPL_H

/* Released blocks waiting for ng_pipeline_take, and blocks held back while
 * the start-up test runs (at most NG_STARTUP_SAMPLES / 32 in mode 1). */
#define NG_PIPELINE_QUEUE 40u
/* Mode 0's message ring: 3 SHA-256 blocks, so that NeuG's whole 161-byte
 * message, padded, is compressed in one call at the block's end. */
#define NG_PIPE_MSG 192u

struct ng_pipeline {
	uint32_t mode;            /* NG_MODE_* */
	uint32_t spb;             /* samples per conditioned block (multiple of 4) */
	uint32_t h_milli;
	ng_crc_fn crc;            /* NULL: software CRC */
	void *crc_user;
	ng_crc4_fn crc4;          /* NULL: crc word by word */
	volatile uint32_t *crc_dr; /* non-NULL: the unit's data register, used directly */
	uint32_t crc_reg;         /* the CRC register (software CRC) or its last value */
	ng_health_ctx health;
	ng_neug_tests_ctx neug;
	/* the block being built */
	uint32_t pend[4];         /* samples of an incomplete group of 4 */
	uint32_t pend_n;
	uint32_t grp;             /* groups of 4 samples done in this block */
	uint32_t blk_fail;        /* NG_HEALTH_* bits that fired during it */
	uint32_t skip;            /* samples to test but not use (raw-mode alignment) */
	uint32_t mh[8];           /* mode 0: SHA-256 chaining value before msg */
	uint32_t mfill;           /* mode 0: bytes in msg (a multiple of 4) */
	uint32_t msg[NG_PIPE_MSG / 4]; /* mode 0: the message's bytes not yet
				   * compressed, in memory order */
	uint8_t prev[16];         /* mode 0: first half of the previous output */
	uint8_t blk[NG_BLOCK_BYTES]; /* modes 1 and 2: the block so far */
	/* the output queue: ring of q_count blocks starting at q_head */
	uint32_t q_head, q_count;
	uint64_t blocks_out, blocks_dropped, blocks_lost;
	uint8_t q[NG_PIPELINE_QUEUE][NG_BLOCK_BYTES];
};

#endif
