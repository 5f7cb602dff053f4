/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The NeuG noise pipeline (doc/pipeline.md; tests/data/neug-1.0.6/README.md).
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
 *     larger n (a weaker declared H). Output = SHA-256(message). The
 *     message goes into a ring of 3 SHA-256 blocks (msg), compressed when
 *     it is full and at the block's end: NeuG's message, padded, is exactly
 *     the 3 blocks, so it is compressed in one call.
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
#include "pipeline_run.h"
#include "sha256_impl.h"

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
	ng_wipe(p->mh, sizeof p->mh);
	ng_wipe(p->msg, sizeof p->msg);
	p->mfill = 0;
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
	p->crc_dr = cfg->crc ? cfg->crc_dr : NULL;
	ng_neug_tests_init(&p->neug);
	if (p->crc_dr) {
		for (int i = 0; i < 3; i++)
			*p->crc_dr = cfg->uid[i];
		p->crc_reg = *p->crc_dr;
	} else if (p->crc) {
		for (int i = 0; i < 3; i++)
			p->crc_reg = p->crc(p->crc_user, cfg->uid[i]);
	} else {
		p->crc_reg = ng_crc32_run(0xFFFFFFFFu, cfg->uid, 3);
	}
	return NG_OK;
}

/* One of NeuG's tests fired: drop this block; the status bit is sticky. */
static void ng_pipe_neug_fired(ng_pipeline *p)
{
	p->blk_fail |= NG_HEALTH_NEUG;
	p->health.status |= NG_HEALTH_NEUG;
}

/* Where a completed block goes: the queue's next free slot, or NULL when
 * it is dropped (a test fired during it, modes 0 and 1) or lost (the queue
 * is full); counts the drop or loss. ng_pipe_block_queued then commits. */
static uint8_t *ng_pipe_block_slot(ng_pipeline *p, bool *dropped)
{
	if (p->mode != NG_MODE_RAW && (p->blk_fail & NG_FAIL_BITS)) {
		p->blocks_dropped++;
		*dropped = true;
		return NULL;
	}
	if (p->q_count == NG_PIPELINE_QUEUE) {
		p->blocks_lost++;
		return NULL;
	}
	return p->q[(p->q_head + p->q_count) % NG_PIPELINE_QUEUE];
}

static void ng_pipe_block_queued(ng_pipeline *p, const uint8_t *slot)
{
	if (slot)
		p->q_count++;
	p->blk_fail = 0;
	p->grp = 0;
}

/* A block is complete: queued, dropped or lost (ng_pipe_block_slot). */
static void ng_pipe_block_done(ng_pipeline *p, const uint8_t *data, bool *dropped)
{
	uint8_t *slot = ng_pipe_block_slot(p, dropped);
	if (slot)
		memcpy(slot, data, NG_BLOCK_BYTES);
	ng_pipe_block_queued(p, slot);
}

/* Mode 0: the word w at byte k of the message ring, which is compressed
 * when full (the general path's; the fast path keeps its own position). */
NG_HEALTH_INLINE void ng_pipe_msg_word(ng_pipeline *p, uint32_t *k, uint32_t w)
{
	uint8_t *b = (uint8_t *)p->msg;
	ng_put_le32(b + *k, w);
	if ((*k += 4) == NG_PIPE_MSG) {
		ng_sha256_compress(p->mh, b, NG_PIPE_MSG / 64);
		*k = 0;
	}
}

/* The same out of line, for the block end's general case. */
static void ng_pipe_msg_put(ng_pipeline *p, uint32_t *k, uint32_t w)
{
	ng_pipe_msg_word(p, k, w);
}

/* The digest h[0..7] as 32 bytes, big endian, at out, and its first half
 * at half. */
NG_HEALTH_INLINE void ng_pipe_digest(const uint32_t h[8], uint8_t *out, uint8_t *half)
{
	uint32_t x0 = ng_bswap32(h[0]), x1 = ng_bswap32(h[1]), x2 = ng_bswap32(h[2]), x3 = ng_bswap32(h[3]);
	ng_put_le32(out, x0);
	ng_put_le32(out + 4, x1);
	ng_put_le32(out + 8, x2);
	ng_put_le32(out + 12, x3);
	ng_put_le32(half, x0);
	ng_put_le32(half + 4, x1);
	ng_put_le32(half + 8, x2);
	ng_put_le32(half + 12, x3);
	ng_put_le32(out + 16, ng_bswap32(h[4]));
	ng_put_le32(out + 20, ng_bswap32(h[5]));
	ng_put_le32(out + 24, ng_bswap32(h[6]));
	ng_put_le32(out + 28, ng_bswap32(h[7]));
}

/* Mode 0: the block's last CRC value v: its low byte, the previous output's
 * first half, FIPS 180-4's padding (0x80, zeros, the length in bits as 64
 * bits big endian), the compression of what the ring holds, and the digest,
 * straight into the queue slot when the block is kept. The message is at a
 * word boundary (8 header bytes and 4-byte CRC values), so all of it goes
 * in as words: the 17 bytes and the 0x80 as 5 words, then z zero words.
 * When that all fits in the ring (NeuG's message: k = 144, z = 5, 192
 * bytes), the stores need no check of the ring's end. The ring's first
 * block is wiped after: without it, what is left cannot give the digest
 * again (for NeuG's message it is the block after H(0); the chaining value
 * before it is gone for longer ones). */
static void ng_pipe_m0_last(ng_pipeline *p, uint32_t v, bool *dropped)
{
	uint8_t tmp[32], *b = (uint8_t *)p->msg;
	if (ng_neug_byte(&p->neug, (uint8_t)v))
		ng_pipe_neug_fired(p);
	uint32_t k = p->mfill, w0 = ng_get_le32(p->prev), w1 = ng_get_le32(p->prev + 4),
		 w2 = ng_get_le32(p->prev + 8), w3 = ng_get_le32(p->prev + 12);
	uint32_t z = ((56u - (k + 20u)) & 63u) / 4u;
	uint64_t bits = 8 * ((uint64_t)p->spb + 21);
	/* the 5 words, then (after the zeros) the length's two */
	const uint32_t t[7] = { (v & 0xffu) | w0 << 8, w0 >> 24 | w1 << 8, w1 >> 24 | w2 << 8,
				w2 >> 24 | w3 << 8, w3 >> 24 | 0x80u << 8,
				ng_bswap32((uint32_t)(bits >> 32)), ng_bswap32((uint32_t)bits) };
	if (k + 28u + 4u * z <= NG_PIPE_MSG) {
		ng_put_le32(b + k, t[0]);
		ng_put_le32(b + k + 4, t[1]);
		ng_put_le32(b + k + 8, t[2]);
		ng_put_le32(b + k + 12, t[3]);
		ng_put_le32(b + k + 16, t[4]);
		for (k += 20; z; z--, k += 4)
			ng_put_le32(b + k, 0);
		ng_put_le32(b + k, t[5]);
		ng_put_le32(b + k + 4, t[6]);
		ng_sha256_compress(p->mh, b, (k + 8) / 64);
	} else {
		for (uint32_t i = 0; i < 7; i++) {
			ng_pipe_msg_put(p, &k, t[i]);
			if (i == 4)   /* after the 0x80, the zero words */
				for (; z; z--)
					ng_pipe_msg_put(p, &k, 0);
		}
		if (k)
			ng_sha256_compress(p->mh, b, k / 64);
	}
	uint8_t *slot = ng_pipe_block_slot(p, dropped);
	ng_pipe_digest(p->mh, slot ? slot : tmp, p->prev);
	ng_wipe(b, 64);
	ng_pipe_block_queued(p, slot);
	if (!slot)
		ng_wipe(tmp, sizeof tmp);
}

/* Mode 0: the chaining value and the message header, at the start of a
 * block (01 00 00 01 | 00 v>>8 v>>16 v>>24, as two little-endian words). */
static inline void ng_pipe_header(ng_pipeline *p)
{
	for (int i = 0; i < 8; i++)
		p->mh[i] = ng_sha256_h0[i];
	ng_put_le32((uint8_t *)p->msg, 0x01000001u);
	ng_put_le32((uint8_t *)p->msg + 4, p->crc_reg & 0xffffff00u);
	p->mfill = 8;
}

/* The CRC register after shifting in the 4 samples of w (reg: before). */
NG_HEALTH_INLINE uint32_t ng_pipe_crc_group(const ng_pipeline *p, uint32_t reg, const uint32_t *w)
{
	volatile uint32_t *dr = p->crc_dr;
	if (dr) {
		dr[0] = w[0];
		dr[0] = w[1];
		dr[0] = w[2];
		dr[0] = w[3];
		return dr[0];
	}
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
 * message fill out of memory that the stores could alias. */
static void ng_pipe_m0(ng_pipeline *p, const uint32_t *w, size_t ng, bool *dropped)
{
	const uint32_t G = p->spb / 4;
	uint32_t reg = p->crc_reg, grp = p->grp, fill = p->mfill;
	for (; ng; ng--, w += 4) {
		if (grp == 0) {
			p->crc_reg = reg;
			ng_pipe_header(p);
			fill = 8;
		}
		reg = ng_pipe_crc_group(p, reg, w);
		if (++grp < G) {
			ng_pipe_msg_word(p, &fill, reg);
			if (ng_neug_word(&p->neug, reg))
				ng_pipe_neug_fired(p);
		} else {
			p->crc_reg = reg;
			p->grp = grp;
			p->mfill = fill;
			ng_pipe_m0_last(p, reg, dropped);
			grp = 0;
		}
	}
	p->crc_reg = reg;
	p->grp = grp;
	p->mfill = fill;
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

/* ng_pipe_m0_fast's raw-sample state back into the context: `quiet`
 * samples went by since the last commit, in groups where no test fired and
 * no window started (the kernel's groups, and the quiet samples of a
 * group's head), leaving the RCT's A = prev and B = rb and the window at
 * position ai (the APT's B and the maxima are in the context already). */
static inline void ng_pipe_fast_commit(ng_health_ctx *h, uint32_t prev, uint32_t rb, uint32_t ai,
				       uint32_t quiet)
{
	if (quiet) {
		h->rct_a = prev;
		h->rct_b = rb;
		h->apt_i = ai;
		h->samples += quiet;
	}
}

/* The RCT's B before the sample at s: rb where the kernel or the slow path
 * left it, else 1 (a quiet sample leaves B = 1). */
NG_HEALTH_INLINE uint32_t ng_pipe_rb(const ng_m0_run *r, const uint32_t *s)
{
	return r->rb_at == s ? r->rb : 1u;
}

/* The groups from the next one that the kernel may run as far as the raw
 * tests and the block go: before the block's last group (G groups, grp
 * done), within the input (left samples) and with no APT window starting
 * (ai: the next sample's window position). */
NG_HEALTH_INLINE uint32_t ng_pipe_free_groups(uint32_t G, uint32_t grp, ptrdiff_t left, uint32_t ai)
{
	const uint32_t W = NG_APT_WINDOW;
	uint32_t k = G - 1 - grp;
	if ((uint32_t)(left / 4) < k)
		k = (uint32_t)(left / 4);
	if (!(ai - 1u < W - 4u))
		return 0;   /* a window starts in the next group */
	return (W - 4u - ai) / 4u + 1u < k ? (W - 4u - ai) / 4u + 1u : k;
}

/* Sets the kernel's NeuG fields from t and NeuG's limits on the kernel's
 * runs from s: *wl is just past the next word in which the 64-byte window
 * ends (a word at window position i ends it when i + 4 >= 64; r->wsh: 8 x
 * its byte that is the next window's A), and the words after it end the
 * windows after, every 16 words; *n4 is the start of the word in which the
 * 4096-byte window ends (the general path takes that one). Both are s
 * before any byte was tested (the word path then sets the state up). */
NG_HEALTH_INLINE void ng_pipe_run_neug(ng_m0_run *r, const ng_neug_tests_ctx *t, const uint32_t *s,
				       const uint32_t **wl, const uint32_t **n4)
{
	r->v = t->rc_a << 24;
	r->a64 = t->p64_a * 0x01010101u;
	r->a4k = t->p4k_a * 0x01010101u;
	uint32_t k = t->p64_i < 60u ? (59u - t->p64_i) / 4u + 2u : 1u;
	uint32_t k4 = t->p4k_i < 4092u ? (4091u - t->p4k_i) / 4u + 1u : 0u;
	r->wsh = 8u * (63u - t->p64_i - 4u * (k - 1u));
	if (!t->rc_max)
		k = k4 = 0;
	*wl = s + 4 * k;
	*n4 = s + 4 * k4;
}

/* The group kernel: the Thumb-2 one with a data register on ARMv7-M, else
 * the portable one. */
NG_HEALTH_INLINE uint32_t ng_pipe_run(ng_m0_run *r, bool use_dr, bool tested)
{
#if NG_M0_RUN_HAVE_ARMV7M
	if (use_dr)
		return tested ? ng_m0_run_armv7m_tested(r) : ng_m0_run_armv7m(r);
#else
	(void)use_dr;
#endif
	return ng_m0_run_c(r, tested);
}

/* The fast path's message position m in buf (p->msg): when the ring is
 * full, it is compressed and m starts it again. */
NG_HEALTH_INLINE void ng_pipe_full(ng_pipeline *p, uint8_t *buf, uint8_t **m)
{
	if (*m == buf + NG_PIPE_MSG) {
		ng_sha256_compress(p->mh, buf, NG_PIPE_MSG / 64);
		*m = buf;
	}
}

/* The APT window position of the sample at s, when the samples in [qs, s)
 * were quiet and ai was the position at qs (no window starts among them). */
NG_HEALTH_INLINE uint32_t ng_pipe_pos(uint32_t ai, const uint32_t *qs, const uint32_t *s)
{
	uint32_t a = ai + (uint32_t)(s - qs);
	return a >= NG_APT_WINDOW ? a - NG_APT_WINDOW : a;
}

/* NeuG's state brought up to the groups in [*ns, s), whose CRC values the
 * kernel found plain (each moves both windows by 4 and leaves a run of 1
 * ending in the top byte of the last one, v). When 64-byte windows ended
 * among them, the kernel took their ends (with B = 0): the last one's A is
 * in a64. */
NG_HEALTH_INLINE void ng_pipe_neug_sync(ng_neug_tests_ctx *t, const uint32_t **ns, const uint32_t *s,
					uint32_t v, uint32_t a64)
{
	if (s != *ns) {
		uint32_t b = (uint32_t)(s - *ns);   /* 4 samples a group, 4 bytes a word */
		uint32_t i = t->p64_i + b;
		if (i >= 64u) {
			i &= 63u;
			t->p64_a = a64 & 0xffu;
			t->p64_b = 0;
		}
		t->p64_i = i;
		t->p4k_i += b;
		t->rc_a = v >> 24;
		t->rc_b = 1;
		*ns = s;
	}
}

/* Mode 0 past the start-up test, whole groups of 4 from a group boundary:
 * the raw-sample tests, the CRC, the message and NeuG's tests in one pass.
 * Stretches of groups go through the group kernel (pipeline_run.h) up to
 * three limits: alim (before the block's last group, the input's end or an
 * APT window's start), n4 (before the word that ends NeuG's 4096-byte
 * window) and the message ring's end. On the way the kernel takes the raw
 * tests' hits (a repeat of the predecessor or of the window's A) and the
 * ends of NeuG's 64-byte windows (wl: just past the next one) itself when
 * it can. It stops before a group in which a raw test would fire, after a
 * group whose CRC value is not plain for NeuG's tests (that value goes
 * through NeuG's word path) and after a window's end that it leaves (that
 * one goes through ng_neug_word_end). Everything else takes one group the
 * general way: its quiet samples as the kernel would, from the first one
 * that is not, ng_health_step sample by sample; the CRC; the message or the
 * block's end; ng_neug_word. The limits are worked out again when a group
 * the general path takes reaches them (wl moves on 64 samples at a time
 * past the window ends the kernel took).
 *
 * The contexts are brought up to date lazily, from sample pointers: the
 * samples in [qs, s) went through the kernel or were quiet (the raw tests'
 * context has their RCT state, window position and count not yet; ai is
 * the window position at qs; r.rb is the RCT's B at r.rb_at, and 1 at any
 * other sample), the groups in [ns, s) gave plain CRC values (NeuG's
 * context has them not yet; ng_pipe_neug_sync), and grp counts the block's
 * groups before gs. Blocks may end and begin anywhere in s.
 *
 * Returns the samples consumed: all whole groups, or those up to and
 * including the group in which a persistent failure latched (whose samples
 * then reach neither the CRC nor the message, as in the general path; the
 * output is then stopped). */
NG_HEALTH_INLINE size_t ng_pipe_m0_fast_impl(ng_pipeline *p, const uint32_t *s, size_t n,
					     bool *dropped, bool use_dr)
{
	ng_health_ctx *h = &p->health;
	ng_neug_tests_ctx *t = &p->neug;
	const uint32_t W = NG_APT_WINDOW, G = p->spb / 4;
	const uint32_t *s0 = s, *end = s + (n & ~(size_t)3);
	const uint32_t *qs = s, *ns = s, *gs = s, *alim, *wl, *n4;
	uint8_t *buf = (uint8_t *)p->msg;
	uint32_t grp = p->grp, ai = h->apt_i;
	bool tested = false;
	ng_m0_run r;
	r.prev = h->rct_a;
	r.a = h->apt_a;
	r.dr = use_dr ? p->crc_dr : NULL;
	r.reg = p->crc_reg;
	r.h = h;
	r.rb_at = s;
	r.rb = h->rct_b;
	r.m = buf + p->mfill;
	if (grp == 0 && s < end) {
		ng_pipe_header(p);
		r.m = buf + 8;
	}
	alim = s + 4 * ng_pipe_free_groups(G, grp, end - s, ai);
	ng_pipe_run_neug(&r, t, s, &wl, &n4);
	while (s < end) {
		uint32_t k = (uint32_t)((alim < n4 ? alim : n4) - s) / 4,
			 b = (uint32_t)(buf + NG_PIPE_MSG - r.m) / 4;
		if (b < k)
			k = b;
		r.wrest = 0;
		if (wl <= s + 4 * k) {   /* a 64-byte window ends in the run */
			r.wrest = 1 + k - (uint32_t)(wl - s) / 4;
			k = (uint32_t)(wl - s) / 4;
		}
		if (k) {
			r.s = s;
			r.n = k;
			uint32_t st = ng_pipe_run(&r, use_dr, tested);
			tested = false;
			if (r.s != s) {
				s = r.s;
				r.reg = ng_get_le32(r.m - 4);
				if (st == NG_RUN_NEUG || (st == NG_RUN_DONE && r.wrest)) {
					/* the last value is not plain, or ends the 64-byte
					 * window and the kernel left it */
					ng_pipe_neug_sync(t, &ns, s - 4, r.v, r.a64);
					if (st == NG_RUN_DONE)
						ng_neug_word_end(t, r.reg);
					else if (ng_neug_tests_word_mid(t, r.reg))
						ng_pipe_neug_fired(p);
					ns = s;
					r.v = r.reg;
					r.a64 = t->p64_a * 0x01010101u;
				}
				while (wl <= s)   /* the windows' ends move on 64 bytes */
					wl += 64;
				ng_pipe_full(p, buf, &r.m);
			}
			if (st != NG_RUN_RAW && s != alim && s != n4)
				continue;
			if (s == end)
				break;
		}
		/* One group the general way. */
		const bool at_alim = s == alim;   /* its limit moves on with this group */
		uint32_t an = ng_pipe_pos(ai, qs, s), j = 0;
		if (an - 1u < W - 4u)   /* no window starts in the group */
			for (; j < 4 && s[j] != r.prev && s[j] != r.a; j++)
				r.prev = s[j];
		if (j < 4) {
			/* sample j is not quiet: it and the rest of the group one by one */
			ng_pipe_fast_commit(h, r.prev, j ? 1u : ng_pipe_rb(&r, s), an + j, (uint32_t)(s - qs) + j);
			uint32_t f = 0;
			for (uint32_t i = j; i < 4; i++)
				f |= ng_health_step(h, s[i]);
			p->blk_fail |= f;
			if (h->status & NG_HEALTH_PERSISTENT) {
				ng_pipe_neug_sync(t, &ns, s, r.v, r.a64);
				p->crc_reg = r.reg;
				p->grp = grp + (uint32_t)(s - gs) / 4;
				p->mfill = (uint32_t)(r.m - buf);
				ng_pipe_status(p);
				return (size_t)(s + 4 - s0);
			}
			r.prev = h->rct_a;
			r.a = h->apt_a;
			r.rb = h->rct_b;
			r.rb_at = s + 4;
			ai = h->apt_i;
			qs = s + 4;
			if (!at_alim && s < n4) {
				tested = true;   /* the kernel does the rest of this group */
				continue;
			}
		}
		r.reg = ng_pipe_crc_group(p, r.reg, s);
		ng_pipe_neug_sync(t, &ns, s, r.v, r.a64);   /* before the word path */
		grp += (uint32_t)(s - gs) / 4 + 1;
		s += 4;
		gs = ns = s;
		r.v = r.reg;
		if (grp < G) {
			ng_put_le32(r.m, r.reg);
			if (ng_neug_word(t, r.reg))
				ng_pipe_neug_fired(p);
			r.m += 4;
			ng_pipe_full(p, buf, &r.m);
			if (s >= wl || s >= n4)   /* a NeuG window ended in it */
				ng_pipe_run_neug(&r, t, s, &wl, &n4);
			if (at_alim)
				alim = s + 4 * ng_pipe_free_groups(G, grp, end - s, ng_pipe_pos(ai, qs, s));
		} else {
			p->crc_reg = r.reg;
			p->grp = grp;
			p->mfill = (uint32_t)(r.m - buf);
			ng_pipe_m0_last(p, r.reg, dropped);
			grp = 0;
			r.m = buf;
			if (s < end) {
				ng_pipe_header(p);
				r.m = buf + 8;
			}
			alim = s + 4 * ng_pipe_free_groups(G, grp, end - s, ng_pipe_pos(ai, qs, s));
			ng_pipe_run_neug(&r, t, s, &wl, &n4);
		}
	}
	ng_pipe_fast_commit(h, r.prev, ng_pipe_rb(&r, s), ng_pipe_pos(ai, qs, s), (uint32_t)(s - qs));
	ng_pipe_neug_sync(t, &ns, s, r.v, r.a64);
	p->crc_reg = r.reg;
	p->grp = grp + (uint32_t)(s - gs) / 4;
	p->mfill = (uint32_t)(r.m - buf);
	return (size_t)(s - s0);
}

/* The instances: a CRC data register (the firmware) and, on 64-bit hosts
 * (the Linux device and the generator), the software CRC. 32-bit targets
 * keep the flash: there the software CRC takes the general path. */
#if UINTPTR_MAX > 0xffffffffu
#define NG_PIPE_FAST_SOFT 1
#else
#define NG_PIPE_FAST_SOFT 0
#endif

static inline bool ng_pipe_fast_ok(const ng_pipeline *p)
{
	return p->mode == NG_MODE_CONDITIONED && (p->crc_dr || (NG_PIPE_FAST_SOFT && !p->crc)) &&
	       !(p->health.status & (NG_HEALTH_STARTUP | NG_HEALTH_PERSISTENT));
}

/* Out of line, so that its loop has the registers to itself, and at -O2
 * under GCC (the firmware is built -Os; -O2 spills less here: about 100
 * fewer instructions per output on the Cortex-M3). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((noinline, optimize("O2")))
#elif defined(__clang__)
__attribute__((noinline))
#endif
static size_t ng_pipe_m0_fast(ng_pipeline *p, const uint32_t *s, size_t n, bool *dropped)
{
#if NG_PIPE_FAST_SOFT
	if (!p->crc_dr)
		return ng_pipe_m0_fast_impl(p, s, n, dropped, false);
#endif
	return ng_pipe_m0_fast_impl(p, s, n, dropped, true);
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
		bool fast = ng_pipe_fast_ok(p);
		if (fast && !p->pend_n && n >= 4) {
			size_t c = ng_pipe_m0_fast(p, s, n, &dropped);
			s += c;
			n -= c;
			continue;
		}
		size_t k = ng_pipe_per_block(p) - (4u * p->grp + p->pend_n);
		if (fast && p->pend_n)
			k = 4u - p->pend_n;   /* to the group boundary, then the fast path */
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
