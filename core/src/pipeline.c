/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The NeuG noise pipeline (doc/pipeline.md; ../shared/vectors/neug-1.0.6/README.md).
 *
 * Samples are consumed in groups of 4 (one CRC value per group). Every
 * sample goes through the raw-sample health tests as it arrives; a group is
 * then shifted into the CRC and its CRC value goes into the block in progress:
 *
 *   mode 0 (conditioned): n = ng_pipeline_block_samples(H) samples per block,
 *     G = n / 4 groups. The SHA-256 message, streamed as it is built (no
 *     sample buffer), is
 *       01 00 00 01 00            Hash_df counter 1, 256 output bits (BE32)
 *       v>>8 v>>16 v>>24          v = the CRC register when the block starts
 *       G - 1 CRC values, 4 bytes each, little endian
 *       the low byte of the G-th CRC value (its upper three bytes are the
 *         v>>8.. bytes of the next block, since v is then that value)
 *       the first 16 bytes of the previous mode 0 output (zeros at first)
 *     n + 21 bytes: 161 for NeuG's n = 140, the same layout extended for
 *     larger n (a weaker declared H). Output = SHA-256(message).
 *   mode 1 (CRC32): 8 groups per block, the 8 CRC values little endian.
 *   mode 2 (raw): 2 groups per block, the 8 samples little endian; the CRC
 *     is not used (its register is left as it is).
 *
 * The CRC is reset once (by ng_pipeline_init, or by the caller for a hardware
 * unit), fed the three uid words, and never reset again. */
#include <string.h>
#include "ng/pipeline.h"
#include "ng/wipe.h"
#include "crc32_impl.h"
#include "health_impl.h"

#define NG_FAIL_BITS (NG_HEALTH_RCT | NG_HEALTH_APT | NG_HEALTH_NEUG)

uint32_t ng_pipeline_block_samples(uint32_t h_milli)
{
	if (h_milli < NG_MIN_H_MILLI || h_milli > NG_MAX_H_MILLI)
		return 0;
	/* 512 bits of declared entropy per 256-bit output (NeuG's rule). */
	uint32_t n = (512000u + h_milli - 1) / h_milli;
	if (n < NG_NEUG_SAMPLES)
		n = NG_NEUG_SAMPLES;
	return (n + 3) & ~3u;
}

static void ng_pipe_reset_block(ng_pipeline *p)
{
	p->pend_n = 0;
	p->grp = 0;
	p->blk_fail = 0;
	ng_wipe(p->pend, sizeof p->pend);
	ng_wipe(&p->sha, sizeof p->sha);
	ng_wipe(p->blk, sizeof p->blk);
}

static void ng_pipe_flush_queue(ng_pipeline *p)
{
	ng_wipe(p->q, sizeof p->q);
	p->q_head = p->q_count = 0;
}

ng_status ng_pipeline_init(ng_pipeline *p, const ng_pipeline_config *cfg)
{
	if (!p || !cfg || cfg->mode > NG_MODE_RAW)
		return NG_ERR_ARG;
	uint32_t spb = ng_pipeline_block_samples(cfg->h_milli);
	if (!spb)
		return NG_ERR_ARG;
	ng_health_ctx h;
	if (ng_health_init(&h, cfg->h_milli, cfg->rct_cutoff, cfg->apt_cutoff) != NG_OK)
		return NG_ERR_ARG;
	ng_wipe(p, sizeof *p);
	p->health = h;
	p->mode = cfg->mode;
	p->spb = spb;
	p->h_milli = cfg->h_milli;
	p->crc = cfg->crc;
	p->crc_user = cfg->crc_user;
	p->crc4 = cfg->crc ? cfg->crc4 : NULL;
	ng_neug_tests_init(&p->neug);
	if (p->crc) {
		for (int i = 0; i < 3; i++)
			p->crc_reg = p->crc(p->crc_user, cfg->uid[i]);
	} else {
		p->crc_reg = ng_crc32_run(0xFFFFFFFFu, cfg->uid, 3);
	}
	return NG_OK;
}

NG_HEALTH_INLINE void ng_put_le32(uint8_t *d, uint32_t v)
{
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	__builtin_memcpy(d, &v, 4);   /* one store (memcpy is no builtin when freestanding) */
#else
	d[0] = (uint8_t)v;
	d[1] = (uint8_t)(v >> 8);
	d[2] = (uint8_t)(v >> 16);
	d[3] = (uint8_t)(v >> 24);
#endif
}

/* One of NeuG's tests fired: drop this block; the status bit is sticky. */
static void ng_pipe_neug_fired(ng_pipeline *p)
{
	p->blk_fail |= NG_HEALTH_NEUG;
	p->health.status |= NG_HEALTH_NEUG;
}

/* A block is complete: drop it if a test fired during it (modes 0 and 1),
 * else queue it (held back while the start-up test runs, except in raw mode). */
static void ng_pipe_block_done(ng_pipeline *p, const uint8_t *data, bool *dropped)
{
	if (p->mode != NG_MODE_RAW && (p->blk_fail & NG_FAIL_BITS)) {
		p->blocks_dropped++;
		*dropped = true;
	} else if (p->q_count == NG_PIPELINE_QUEUE) {
		p->blocks_lost++;
	} else {
		memcpy(p->q[(p->q_head + p->q_count) % NG_PIPELINE_QUEUE], data, NG_BLOCK_BYTES);
		p->q_count++;
	}
	p->blk_fail = 0;
	p->grp = 0;
}

/* Mode 0: the block's last CRC value v: its low byte, the previous output's
 * first half, then SHA-256. */
static void ng_pipe_m0_last(ng_pipeline *p, uint32_t v, bool *dropped)
{
	uint8_t lo = (uint8_t)v, out[32];
	if (ng_neug_tests_byte(&p->neug, lo))
		ng_pipe_neug_fired(p);
	ng_sha256_update(&p->sha, &lo, 1);
	ng_sha256_update(&p->sha, p->prev, sizeof p->prev);
	ng_sha256_final(&p->sha, out);
	memcpy(p->prev, out, sizeof p->prev);
	ng_pipe_block_done(p, out, dropped);
	ng_wipe(out, sizeof out);
}

/* Mode 0: the message header, at the start of a block. */
static inline void ng_pipe_header(ng_pipeline *p)
{
	uint32_t v = p->crc_reg;
	ng_sha256_init(&p->sha);
	uint8_t *b = p->sha.buf;
	b[0] = 0x01; b[1] = 0x00; b[2] = 0x00; b[3] = 0x01; b[4] = 0x00;
	b[5] = (uint8_t)(v >> 8); b[6] = (uint8_t)(v >> 16); b[7] = (uint8_t)(v >> 24);
	p->sha.fill = 8;
	p->sha.len = 8;
}

/* The CRC register after shifting in the 4 samples of w (reg: before). */
NG_HEALTH_INLINE uint32_t ng_pipe_crc_group(const ng_pipeline *p, uint32_t reg, const uint32_t *w)
{
	if (p->crc4)
		return p->crc4(p->crc_user, w);
	if (p->crc) {
		for (int i = 0; i < 4; i++)
			reg = p->crc(p->crc_user, w[i]);
		return reg;
	}
	return ng_crc32_step4(reg, w);
}

/* Mode 0: ng groups of 4 samples from w into the block in progress (never
 * past its end). Locals keep the CRC register, the group count and the
 * message fill out of memory that the stores could alias. The message
 * length is set only before the last byte goes in (nothing reads it
 * sooner): 8 header bytes and G - 1 CRC values. */
static void ng_pipe_m0(ng_pipeline *p, const uint32_t *w, size_t ng, bool *dropped)
{
	const uint32_t G = p->spb / 4;
	uint32_t reg = p->crc_reg, grp = p->grp, fill = p->sha.fill;
	for (; ng; ng--, w += 4) {
		if (grp == 0) {
			p->crc_reg = reg;
			ng_pipe_header(p);
			fill = 8;
		}
		reg = ng_pipe_crc_group(p, reg, w);
		if (++grp < G) {
			/* A CRC value at a 4-byte-aligned offset: never straddles a block. */
			ng_put_le32(p->sha.buf + fill, reg);
			if ((fill += 4) == 64) {
				ng_sha256_compress(p->sha.h, p->sha.buf, 1);
				fill = 0;
			}
			if (ng_neug_word(&p->neug, reg))
				ng_pipe_neug_fired(p);
		} else {
			p->crc_reg = reg;
			p->grp = grp;
			p->sha.fill = fill;
			p->sha.len = 8 + 4 * (uint64_t)(G - 1);
			ng_pipe_m0_last(p, reg, dropped);
			grp = 0;
		}
	}
	p->crc_reg = reg;
	p->grp = grp;
	p->sha.fill = fill;
}

/* Groups of 4 samples (already health-tested) into the block in progress. */
static void ng_pipe_groups(ng_pipeline *p, const uint32_t *w, size_t ng, bool *dropped)
{
	if (p->mode == NG_MODE_CONDITIONED) {
		ng_pipe_m0(p, w, ng, dropped);
	} else if (p->mode == NG_MODE_CRC32) {
		uint32_t reg = p->crc_reg, grp = p->grp;
		for (; ng; ng--, w += 4) {
			reg = ng_pipe_crc_group(p, reg, w);
			if (ng_neug_word(&p->neug, reg))
				ng_pipe_neug_fired(p);
			ng_put_le32(p->blk + 4 * grp, reg);
			if (++grp == 8) {
				p->crc_reg = reg;
				ng_pipe_block_done(p, p->blk, dropped);
				grp = 0;
			}
		}
		p->crc_reg = reg;
		p->grp = grp;
	} else {
		for (; ng; ng--, w += 4) {
			for (int i = 0; i < 4; i++)
				ng_put_le32(p->blk + 16 * p->grp + 4 * i, w[i]);
			if (++p->grp == 2)
				ng_pipe_block_done(p, p->blk, dropped);
		}
	}
}

/* The health status moved: the start-up test passed (release what was held)
 * or a persistent failure latched (modes 0 and 1: discard everything). */
static void ng_pipe_status(ng_pipeline *p)
{
	uint32_t st = p->health.status;
	if ((st & NG_HEALTH_PERSISTENT) && p->mode != NG_MODE_RAW) {
		p->blocks_dropped += p->q_count;
		ng_pipe_flush_queue(p);
		ng_pipe_reset_block(p);
	}
}

static inline bool ng_pipe_stopped(const ng_pipeline *p)
{
	return (p->health.status & NG_HEALTH_PERSISTENT) && p->mode != NG_MODE_RAW;
}

static ng_status ng_pipe_result(const ng_pipeline *p, bool dropped)
{
	if (p->health.status & NG_HEALTH_PERSISTENT)
		return NG_ERR_PERSISTENT;
	return dropped ? NG_ERR_HEALTH : NG_OK;
}

static inline uint32_t ng_pipe_per_block(const ng_pipeline *p)
{
	return p->mode == NG_MODE_CONDITIONED ? p->spb : p->mode == NG_MODE_CRC32 ? 32u : 8u;
}

/* m tested samples into the block in progress (never past its end). */
static void ng_pipe_build(ng_pipeline *p, const uint32_t *w, size_t m, bool *dropped)
{
	while (p->pend_n && m) {   /* complete a pending group */
		p->pend[p->pend_n++] = *w++;
		m--;
		if (p->pend_n == 4) {
			p->pend_n = 0;
			ng_pipe_groups(p, p->pend, 1, dropped);
		}
	}
	if (m >= 4) {
		ng_pipe_groups(p, w, m / 4, dropped);
		w += m & ~(size_t)3;
		m &= 3;
	}
	while (m--)
		p->pend[p->pend_n++] = *w++;
}

/* The input is cut at block boundaries: each piece is health-tested as a
 * whole (ng_health_insert_many), so what fired is charged to the block the
 * piece belongs to, and then goes into that block. When a persistent
 * failure latches inside a piece (modes 0 and 1), the samples before the
 * latching one still go through the CRC and NeuG's tests, exactly as when
 * they are fed one at a time, so the state never depends on how the input
 * was cut (tests/fuzz/fuzz_health.c checks this); then all output stops. */
ng_status ng_pipeline_put_many(ng_pipeline *p, const uint32_t *s, size_t n)
{
	bool dropped = false;
	while (n && p->skip) {  /* raw-mode alignment: tested, counted, not used */
		size_t k = p->skip < n ? p->skip : n;
		uint32_t seen = p->health.status;
		(void)ng_health_insert_many(&p->health, s, k);
		s += k;
		n -= k;
		p->skip -= (uint32_t)k;
		if (p->health.status != seen)
			ng_pipe_status(p);
	}
	while (n) {
		size_t k = ng_pipe_per_block(p) - (4u * p->grp + p->pend_n);
		if (k > n)
			k = n;
		uint32_t seen = p->health.status;
		uint64_t base = p->health.samples;
		p->blk_fail |= ng_health_insert_many(&p->health, s, k);
		const uint32_t *w = s;
		s += k;
		n -= k;
		if (p->health.status != seen) {
			if (!(seen & NG_HEALTH_PERSISTENT) && ng_pipe_stopped(p)) {
				ng_pipe_build(p, w, (size_t)(p->health.fail_index - base), &dropped);
				ng_pipe_status(p);
				continue;
			}
			ng_pipe_status(p);
		}
		if (!ng_pipe_stopped(p))
			ng_pipe_build(p, w, k, &dropped);
	}
	return ng_pipe_result(p, dropped);
}

ng_status ng_pipeline_put(ng_pipeline *p, uint32_t sample)
{
	return ng_pipeline_put_many(p, &sample, 1);
}

/* Blocks completed during the start-up test are held (modes 0 and 1). */
uint32_t ng_pipeline_ready(const ng_pipeline *p)
{
	if (p->mode != NG_MODE_RAW && (p->health.status & NG_HEALTH_STARTUP))
		return 0;
	return p->q_count;
}

size_t ng_pipeline_room(const ng_pipeline *p)
{
	if (ng_pipe_stopped(p))
		return SIZE_MAX;
	size_t per = ng_pipe_per_block(p);
	size_t rem = p->skip + per - (4u * p->grp + p->pend_n);   /* samples until this block completes */
	return rem - 1 + (size_t)(NG_PIPELINE_QUEUE - p->q_count) * per;
}

bool ng_pipeline_take(ng_pipeline *p, uint8_t out[NG_BLOCK_BYTES])
{
	if (!ng_pipeline_ready(p))
		return false;
	uint8_t *b = p->q[p->q_head];
	memcpy(out, b, NG_BLOCK_BYTES);
	ng_wipe(b, NG_BLOCK_BYTES);
	p->q_head = (p->q_head + 1) % NG_PIPELINE_QUEUE;
	p->q_count--;
	p->blocks_out++;
	return true;
}

void ng_pipeline_set_mode(ng_pipeline *p, uint32_t mode)
{
	if (mode > NG_MODE_RAW)
		return;
	ng_pipe_flush_queue(p);
	ng_pipe_reset_block(p);
	p->mode = mode;
	/* Raw blocks start at a sample index that is a multiple of 8, so that
	 * each 32-byte raw block is a 32-byte-aligned block of the input (the
	 * device's raw mode is for evaluation: records line up with the source). */
	p->skip = mode == NG_MODE_RAW ? (uint32_t)((8u - p->health.samples % 8u) % 8u) : 0u;
}

uint32_t ng_pipeline_mode(const ng_pipeline *p) { return p->mode; }

void ng_pipeline_get_stats(const ng_pipeline *p, ng_pipeline_stats *st)
{
	const ng_health_ctx *h = &p->health;
	memset(st, 0, sizeof *st);
	st->samples = h->samples;
	st->blocks_out = p->blocks_out;
	st->blocks_dropped = p->blocks_dropped;
	st->blocks_lost = p->blocks_lost;
	st->h_milli = p->h_milli;
	st->samples_per_block = p->mode == NG_MODE_CONDITIONED ? p->spb
				: p->mode == NG_MODE_CRC32 ? 32u : 8u;
	st->rct_cutoff = h->rct_cutoff;
	st->apt_cutoff = h->apt_cutoff;
	st->apt_window = h->apt_window;
	st->rct_failures = h->rct_failures;
	st->apt_failures = h->apt_failures;
	st->rct_max = h->rct_max ? h->rct_max : (h->samples ? 1u : 0u);
	st->apt_max = h->apt_max;
	st->status = h->status;
	st->fail_test = h->fail_test;
	st->fail_index = h->fail_index;
	st->fail_count = h->fail_count;
	st->neug_err = p->neug.err;
	st->neug_err_rc = p->neug.err_rc;
	st->neug_err_p64 = p->neug.err_p64;
	st->neug_err_p4k = p->neug.err_p4k;
	st->neug_rc_max = p->neug.rc_max;
	st->neug_p64_max = p->neug.p64_max;
	st->neug_p4k_max = p->neug.p4k_max;
	st->mode = p->mode;
	st->ready = ng_pipeline_ready(p);
}

const char *ng_health_name(uint32_t bit)
{
	switch (bit) {
	case NG_HEALTH_RCT: return "repetition count test";
	case NG_HEALTH_APT: return "adaptive proportion test";
	case NG_HEALTH_STARTUP: return "start-up test (running)";
	case NG_HEALTH_STARTUP_FAILED: return "start-up test";
	case NG_HEALTH_NEUG: return "NeuG CRC-output test";
	case NG_HEALTH_PERSISTENT: return "persistent failure";
	default: return "no test";
	}
}
