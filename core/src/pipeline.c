/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The NeuG noise pipeline (doc/pipeline.md; tests/data/neug-1.0.6/README.md).
 *
 * Every sample goes through the health tests (health.c) before it is used.
 * Samples are then consumed in groups of 4: a group is shifted into the CRC
 * and the CRC value goes into the block in progress:
 *
 *   mode 0 (conditioned): n = ng_pipeline_block_samples(H) samples per block,
 *     G = n / 4 groups. The SHA-256 message, hashed as it is built, is
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
 * NeuG's tests run on the bytes of every CRC value a block uses. The CRC is
 * reset once (by ng_pipeline_init, or by the caller for the hardware unit),
 * fed the three uid words, and never reset again. */
#include <string.h>
#include "ng/bytes.h"
#include "ng/crc32.h"
#include "ng/pipeline.h"
#include "ng/wipe.h"
#include "crc32_impl.h"
#include "sha256_impl.h"

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

/* ---- the CRC engines ----------------------------------------------------- */

static void ng_pipe_crc_software(ng_pipeline *p, const uint32_t *w, size_t g, uint32_t *v)
{
	uint32_t r = p->crc_reg;
	for (size_t k = 0; k < g; k++, w += 4)
		v[k] = r = ng_crc32_step4(r, w);
	p->crc_reg = r;
}

/* The unit (RM0008 section 4): each DR write shifts a word in, a DR read
 * gives the register. (Words loaded in pairs: one ldrd each on the M3.) */
static void ng_pipe_crc_unit(ng_pipeline *p, const uint32_t *w, size_t g, uint32_t *v)
{
	volatile uint32_t *dr = p->crc_dr;
	for (size_t k = 0; k < g; k++, w += 4) {
		const uint32_t w0 = w[0], w1 = w[1];
		dr[0] = w0;
		dr[0] = w1;
		const uint32_t w2 = w[2], w3 = w[3];
		dr[0] = w2;
		dr[0] = w3;
		v[k] = dr[0];
	}
	p->crc_reg = v[g - 1];
}

/* ---- blocks and the queue ------------------------------------------------ */

/* Discards the queued blocks and the block in progress (its samples too), wiped. */
static void ng_pipe_discard(ng_pipeline *p)
{
	ng_wipe(p->q, sizeof p->q);
	p->q_head = p->q_count = 0;
	p->pend_n = p->grp = p->blk_fail = p->mfill = 0;
	ng_wipe(p->pend, sizeof p->pend);
	memcpy(p->mh, ng_sha256_h0, sizeof p->mh);   /* (the next block's start) */
	ng_wipe(p->msg, sizeof p->msg);
}

ng_status ng_pipeline_config_h(ng_pipeline_config *cfg, uint32_t h_milli, uint32_t adc_h_milli)
{
	ng_health_limits w, a = { 0 };
	if (ng_health_limits_for(&w, h_milli) != NG_OK ||
	    (adc_h_milli && ng_health_limits_for(&a, adc_h_milli) != NG_OK))
		return NG_ERR_ARG;
	cfg->health = w;
	cfg->adc_health = a;
	return NG_OK;
}

ng_status ng_pipeline_init(ng_pipeline *p, const ng_pipeline_config *cfg)
{
	if (!p || !cfg || cfg->mode > NG_MODE_RAW)
		return NG_ERR_ARG;
	uint32_t spb = ng_pipeline_block_samples(cfg->health.h_milli);
	ng_health_ctx h;
	if (!spb || ng_health_start(&h, &cfg->health, cfg->adc_health.h_milli ? &cfg->adc_health : NULL) != NG_OK)
		return NG_ERR_ARG;
	ng_wipe(p, sizeof *p);
	memcpy(p->mh, ng_sha256_h0, sizeof p->mh);
	p->health = h;
	p->mode = cfg->mode;
	p->spb = spb;
	p->crc_dr = cfg->crc_dr;
	if (p->crc_dr) {
		p->crc = ng_pipe_crc_unit;
		for (int i = 0; i < 3; i++)
			*p->crc_dr = cfg->uid[i];
		p->crc_reg = *p->crc_dr;
	} else {
		p->crc = ng_pipe_crc_software;
		p->crc_reg = ng_crc32_run(0xFFFFFFFFu, cfg->uid, 3);
	}
	return NG_OK;
}

/* A block is complete: its queue slot, or NULL when it is dropped (a test
 * fired during it, modes 0 and 1) or lost (the queue is full). */
static uint8_t *ng_pipe_block_done(ng_pipeline *p, bool *dropped)
{
	uint8_t *slot = NULL;
	if (p->mode != NG_MODE_RAW && p->blk_fail) {
		p->blocks_dropped++;
		*dropped = true;
	} else if (p->q_count == NG_PIPELINE_QUEUE) {
		p->blocks_lost++;
	} else {
		slot = p->q[(p->q_head + p->q_count++) % NG_PIPELINE_QUEUE];
	}
	p->blk_fail = 0;
	p->grp = 0;
	return slot;
}

/* NeuG's tests fired on a CRC value the block uses: it is dropped. */
static void ng_pipe_neug(ng_pipeline *p, bool fired)
{
	const uint32_t bit = fired ? NG_HEALTH_NEUG : 0u;
	p->blk_fail |= bit;
	p->health.status |= bit;
}

/* g groups from w through the CRC, their values into v; the first n of them
 * through NeuG's tests and little endian (as the message and the CRC32
 * output hold them). */
static void ng_pipe_crc_values(ng_pipeline *p, const uint32_t *w, size_t g, size_t n, uint32_t *v)
{
	p->crc(p, w, g, v);
	ng_pipe_neug(p, ng_neug_tests_words(&p->health.neug, v, n));
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	for (size_t k = 0; k < n; k++)
		ng_put_le32((uint8_t *)&v[k], v[k]);
#endif
}

/* ---- mode 0: the message -------------------------------------------------- */

/* The message ring's 3 blocks: NeuG's 161-byte message, padded, compressed
 * in one call (a longer message wraps; the padding may take a 4th block). */
#define NG_RING_BYTES 192u

/* The end of a block, v its last CRC value: v's low byte, the previous
 * output's first half, then FIPS 180-4's padding (ng_sha256_pad), all
 * compressed. The digest goes into the queue and its first half into prev;
 * H(0) replaces it, and the ring's first block is wiped: the digest cannot be recomputed from what is left. */
static void ng_pipe_m0_end(ng_pipeline *p, uint32_t v, bool *dropped)
{
	const uint8_t *h = p->prev;
	uint8_t *m = (uint8_t *)p->msg, tmp[NG_BLOCK_BYTES];
	uint32_t i = p->mfill;
	ng_pipe_neug(p, ng_neug_tests_byte(&p->health.neug, (uint8_t)v));
	ng_put_le32(m + i, (v & 0xffu) | ng_get_le32(h) << 8);
	for (int k = 3; k < 15; k += 4)
		ng_put_le32(m + i + 1 + k, ng_get_le32(h + k));
	m[i + 16] = h[15];
	ng_sha256_compress(p->mh, m, ng_sha256_pad(m, i + 17, (uint64_t)p->spb + 21) / 64);
	p->mfill = 0;
	uint8_t *slot = ng_pipe_block_done(p, dropped), *out = slot ? slot : tmp;
	for (int k = 0; k < 8; k++) {   /* big endian (FIPS 180-4) */
		ng_put_le32(out + 4 * k, __builtin_bswap32(p->mh[k]));
		p->mh[k] = ng_sha256_h0[k];
	}
	for (int k = 0; k < 16; k += 4)   /* chained even when not output */
		ng_put_le32(p->prev + k, ng_get_le32(out + k));
	ng_wipe(m, 64);
	if (!slot)
		ng_wipe(tmp, sizeof tmp);
}

/* ---- groups ---------------------------------------------------------------- */

/* Mode 0: up to g groups (1 <= g) from w into the block in progress, as
 * many as fit in the ring: its first group starts the message (01 00 00 01 |
 * 00 v>>8 v>>16 v>>24; p->mh is H(0)), its last ends it. Returns the groups
 * taken. */
static size_t ng_pipe_m0_groups(ng_pipeline *p, const uint32_t *w, size_t g, bool *dropped)
{
	const uint32_t left = p->spb / 4 - p->grp;
	if (p->grp == 0) {
		ng_put_le32((uint8_t *)p->msg, 0x01000001u);
		ng_put_le32((uint8_t *)p->msg + 4, p->crc_reg & 0xffffff00u);
		p->mfill = 8;
	}
	uint32_t *v = p->msg + p->mfill / 4, room = (NG_RING_BYTES - p->mfill) / 4;
	if (g > left)
		g = left;
	if (g > room)
		g = room;
	const bool last = g == left;   /* (its value is not a message word) */
	ng_pipe_crc_values(p, w, g, g - last, v);
	p->grp += (uint32_t)g;
	p->mfill += 4 * (uint32_t)(g - last);
	if (last) {
		ng_pipe_m0_end(p, v[g - 1], dropped);
	} else if (p->mfill == NG_RING_BYTES) {
		ng_sha256_compress(p->mh, (const uint8_t *)p->msg, NG_RING_BYTES / 64);
		p->mfill = 0;
	}
	return g;
}

/* Up to g groups (1 <= g) from w into the block in progress; returns the
 * groups taken. Modes 1 and 2 build their block in the ring too: 8 CRC
 * values, or 2 groups of samples, little endian. */
static size_t ng_pipe_groups(ng_pipeline *p, const uint32_t *w, size_t g, bool *dropped)
{
	if (p->mode == NG_MODE_CONDITIONED)
		return ng_pipe_m0_groups(p, w, g, dropped);
	const uint32_t per = p->mode == NG_MODE_CRC32 ? 8u : 2u;   /* groups per block */
	if (g > per - p->grp)
		g = per - p->grp;
	if (p->mode == NG_MODE_CRC32)
		ng_pipe_crc_values(p, w, g, g, p->msg + p->grp);
	else
		for (size_t k = 0; k < 4 * g; k++)
			ng_put_le32((uint8_t *)(p->msg + 4 * p->grp + k), w[k]);
	uint8_t *slot;
	if ((p->grp += (uint32_t)g) == per && (slot = ng_pipe_block_done(p, dropped)) != NULL)
		memcpy(slot, p->msg, NG_BLOCK_BYTES);
	return g;
}

/* m tested samples into the block in progress (never past its end). */
static void ng_pipe_build(ng_pipeline *p, const uint32_t *w, size_t m, bool *dropped)
{
	while (m) {
		if (p->pend_n == 0 && m >= 4) {   /* whole groups straight from the input */
			size_t g = ng_pipe_groups(p, w, m / 4, dropped);
			w += 4 * g;
			m -= 4 * g;
		} else {
			p->pend[p->pend_n++] = *w++;
			m--;
			if (p->pend_n == 4) {
				p->pend_n = 0;
				ng_pipe_groups(p, p->pend, 1, dropped);
			}
		}
	}
}

static inline bool ng_pipe_stopped(const ng_pipeline *p)
{
	return (p->health.status & NG_HEALTH_PERSISTENT) && p->mode != NG_MODE_RAW;
}

uint32_t ng_pipeline_samples_per_block(const ng_pipeline *p)
{
	return p->mode == NG_MODE_CONDITIONED ? p->spb : p->mode == NG_MODE_CRC32 ? 32u : 8u;
}

/* The input is tested up to the end of the block in progress at a time, so
 * what fires is charged to its sample's block. When a persistent failure
 * latches (modes 0 and 1), the samples before it still go through the CRC
 * and NeuG's tests, as when fed one at a time (the state never depends on
 * how the input was cut: tests/fuzz/fuzz_health.c); then the queue and the
 * block in progress are discarded and later samples are only tested. */
ng_status ng_pipeline_put_many(ng_pipeline *p, const uint32_t *s, size_t n)
{
	bool dropped = false;
	while (n) {
		size_t k = p->skip ? p->skip : ng_pipeline_samples_per_block(p) - (4u * p->grp + p->pend_n);
		if (k > n)
			k = n;
		bool stopped = ng_pipe_stopped(p);
		uint32_t fired;
		size_t i = ng_health_test(&p->health, s, k, &fired);
		size_t used = i < k ? i + 1 : k;
		p->blk_fail |= fired;
		if (p->skip) {   /* raw-mode alignment: tested, counted, not used */
			p->skip -= (uint32_t)used;
		} else if (!stopped && ng_pipe_stopped(p)) {
			ng_pipe_build(p, s, i, &dropped);
			p->blocks_dropped += p->q_count;
			ng_pipe_discard(p);
		} else if (!stopped) {
			ng_pipe_build(p, s, used, &dropped);
		}
		s += used;
		n -= used;
	}
	if (p->health.status & NG_HEALTH_PERSISTENT)
		return NG_ERR_PERSISTENT;
	return dropped ? NG_ERR_HEALTH : NG_OK;
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
	size_t per = ng_pipeline_samples_per_block(p);
	size_t rem = p->skip + per - (4u * p->grp + p->pend_n);   /* samples until this block completes */
	return rem - 1 + (size_t)(NG_PIPELINE_QUEUE - p->q_count) * per;
}

bool ng_pipeline_take(ng_pipeline *p, uint8_t out[NG_BLOCK_BYTES])
{
	if (!ng_pipeline_ready(p))
		return false;
	uint8_t *b = p->q[p->q_head];
	for (uint32_t i = 0; i < NG_BLOCK_BYTES; i += 4) {   /* moved out: copied, then cleared */
		ng_put_le32(out + i, ng_get_le32(b + i));
		ng_put_le32(b + i, 0);
	}
	p->q_head = (p->q_head + 1) % NG_PIPELINE_QUEUE;
	p->q_count--;
	p->blocks_out++;
	return true;
}

void ng_pipeline_set_mode(ng_pipeline *p, uint32_t mode)
{
	if (mode > NG_MODE_RAW)
		return;
	ng_pipe_discard(p);
	p->mode = mode;
	/* Raw blocks start at a sample index that is a multiple of 8: each is a
	 * 32-byte-aligned block of the input (records line up with the source). */
	p->skip = mode == NG_MODE_RAW ? (uint32_t)((8u - p->health.samples % 8u) % 8u) : 0u;
}

uint32_t ng_pipeline_mode(const ng_pipeline *p) { return p->mode; }

const ng_health_ctx *ng_pipeline_health(const ng_pipeline *p) { return &p->health; }

/* A largest B: at least 1 once any sample was tested. */
static uint32_t ng_pipe_max(uint32_t m, uint64_t samples)
{
	return m ? m : samples ? 1u : 0u;
}

void ng_pipeline_get_stats(const ng_pipeline *p, ng_pipeline_stats *st)
{
	const ng_health_ctx *h = &p->health;
	const ng_health_stream *w = &h->st[NG_STREAM_WORD], *a1 = &h->st[NG_STREAM_ADC1],
			       *a2 = &h->st[NG_STREAM_ADC2];
	memset(st, 0, sizeof *st);
	st->samples = h->samples;
	st->blocks_out = p->blocks_out;
	st->blocks_dropped = p->blocks_dropped;
	st->blocks_lost = p->blocks_lost;
	st->h_milli = w->h_milli;
	st->samples_per_block = ng_pipeline_samples_per_block(p);
	st->rct_cutoff = w->rct_cutoff;
	st->apt_cutoff = w->apt_cutoff;
	st->apt_window = NG_APT_WINDOW;
	st->rct_failures = w->rct_failures;
	st->apt_failures = w->apt_failures;
	st->rct_max = ng_pipe_max(w->rct_max, h->samples);
	st->apt_max = ng_pipe_max(w->apt_max, h->samples);
	if (h->nstreams > 1) {
		st->adc_h_milli = a1->h_milli;
		st->adc_rct_cutoff = a1->rct_cutoff;
		st->adc_apt_cutoff = a1->apt_cutoff;
		st->adc1_rct_failures = a1->rct_failures;
		st->adc1_apt_failures = a1->apt_failures;
		st->adc1_rct_max = ng_pipe_max(a1->rct_max, h->samples);
		st->adc1_apt_max = ng_pipe_max(a1->apt_max, h->samples);
		st->adc2_rct_failures = a2->rct_failures;
		st->adc2_apt_failures = a2->apt_failures;
		st->adc2_rct_max = ng_pipe_max(a2->rct_max, h->samples);
		st->adc2_apt_max = ng_pipe_max(a2->apt_max, h->samples);
	}
	st->status = h->status;
	st->fail_test = h->fail_test;
	st->fail_stream = h->fail_stream;
	st->fail_index = h->fail_index;
	st->fail_count = h->fail_count;
	ng_neug_tests_stats(&h->neug, st);
	st->mode = p->mode;
	st->ready = ng_pipeline_ready(p);
}

void ng_neug_tests_stats(const ng_neug_tests_ctx *t, ng_pipeline_stats *st)
{
	st->neug_err = t->err;
	st->neug_err_rc = t->err_rc;
	st->neug_err_p64 = t->err_p64;
	st->neug_err_p4k = t->err_p4k;
	st->neug_rc_max = t->rc_max;
	st->neug_p64_max = t->p64_max;
	st->neug_p4k_max = t->p4k_max;
}
