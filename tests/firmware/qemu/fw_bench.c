/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Instruction counts of the core on a Cortex-M3 model (QEMU mps2-an385 run
 * with -icount shift=0: one instruction per nanosecond of virtual time,
 * read through SysTick). A calibration loop of a known instruction count
 * gives instructions per tick. Prints "bench: NAME VALUE" lines that
 * bench/bench-firmware.sh turns into a table. */
#include <stdint.h>
#include <string.h>
#include "fw.h"     /* NG_NOISE_GROUP_MAX: the firmware feeds the pipeline an output's words at a time */
#include "mps2.h"
#include "ng/crc32.h"
#include "ng/pipeline.h"
#include "../../health_ref.h"
#include "ng/health.h"
#include "ng/sha256.h"
#include "ng/wipe.h"

static const uint32_t ng_uid[3] = { 0x12345678u, 0x9abcdef0u, 0x0fedcba9u };
static ng_pipeline ng_pipe;
/* The firmware path proper (main.c: cfg.crc_dr, the pipeline writing the
 * CRC unit's data register itself) needs a register whose read looks like
 * a CRC. This model has none: a RAM word reads back the last sample
 * written, so the samples are first mapped through a bijection (a sample
 * equals another exactly when it did before, so the raw-sample tests do the
 * same work) that mixes every bit of a sample into every byte (MurmurHash3's
 * 32-bit finaliser): the last sample of each group, which the pipeline then
 * takes as its CRC value, looks random to NeuG's byte tests as a real CRC
 * value does. (A multiplication alone, x * 0x9E3779B1 until 4 Dec 2026,
 * leaves the low byte a function of the sample's low byte, about 25 values
 * for adc.bin, so NeuG's word check stopped on about 2.6 values per output
 * instead of the 1.6 that random values give.) The instructions are those
 * of the real unit's path: one store per sample, one load per group. */
static volatile uint32_t ng_fake_dr;
static bool ng_vec_is_mixed;

static uint32_t ng_mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	return x ^ (x >> 16);
}

/* Its inverse: the multipliers' inverses modulo 2^32, and x ^= x >> 13
 * undone by x ^= x >> 13 ^ x >> 26. */
static uint32_t ng_unmix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7ed1b41du;
	x ^= x >> 13;
	x ^= x >> 26;
	x *= 0xa5cb9243u;
	return x ^ (x >> 16);
}

/* The embedded vector, mapped in place (the model's code memory is RAM and
 * the 20 KiB data RAM cannot hold a copy) or mapped back. */
static const uint32_t *ng_mixed(bool on)
{
	if (on != ng_vec_is_mixed) {
		uint32_t *v = (uint32_t *)(uintptr_t)ng_vec_adc;
		for (uint32_t i = 0; i < ng_vec_adc_words; i++)
			v[i] = on ? ng_mix(v[i]) : ng_unmix(v[i]);
		ng_vec_is_mixed = on;
	}
	return ng_vec_adc;
}

static uint64_t ng_calibrate(void)
{
	/* 2 instructions per iteration, 1,000,000 iterations (+3). */
	uint64_t t0 = ng_ticks();
	__asm__ volatile("ldr r0, =1000000\n1: subs r0, #1\n bne 1b" ::: "r0", "cc");
	return ng_ticks() - t0;
}

/* The firmware's groups (noise.c, main.c): the DMA batches of one output
 * (56 + 64 + 20 conditioned, 32 CRC32, 8 raw) gathered in one buffer, and
 * one pipeline call per group. */
static uint32_t ng_group_words(uint32_t mode)
{
	return mode == NG_MODE_CRC32 ? 32u : mode == NG_MODE_RAW ? 8u : NG_NOISE_GROUP_MAX;
}

/* Feeds n samples from s a group at a time, as the main loop does, taking
 * blocks after each; returns the blocks taken. */
static uint32_t ng_feed(uint32_t mode, const uint32_t *s, uint32_t n)
{
	uint32_t g = ng_group_words(mode), blocks = 0;
	uint8_t blk[NG_BLOCK_BYTES];
	for (uint32_t i = 0; i + g <= n; i += g) {
		ng_pipeline_put_many(&ng_pipe, s + i, g);
		while (ng_pipeline_take(&ng_pipe, blk))
			blocks++;
	}
	return blocks;
}

/* Runs a pipeline in `mode` over the embedded samples (after a warm-up that
 * covers the 1024-sample start-up test), returns milli-instructions per
 * released block. */
static uint32_t ng_measure(uint32_t mode, bool dr, bool adc, uint64_t ticks_2m, uint32_t *blocks_out)
{
	static const ng_health_limits adc_limits = NG_DEFAULT_ADC_LIMITS;
	ng_pipeline_config cfg = { .mode = mode, .health = NG_DEFAULT_LIMITS,
				   .crc_dr = dr ? &ng_fake_dr : NULL };
	if (adc)
		cfg.adc_health = adc_limits;
	const uint32_t *vec = ng_mixed(dr);
	memcpy(cfg.uid, ng_uid, sizeof cfg.uid);
	ng_pipeline_init(&ng_pipe, &cfg);
	const uint32_t warm = 1120; /* 8 conditioned outputs, 35 CRC32, 140 raw rounds */
	ng_feed(mode, vec, warm);
	uint32_t n = 0;
	uint64_t t0 = ng_ticks();
	for (uint32_t rep = 0; rep < 4; rep++)
		n += ng_feed(mode, vec + warm, (ng_vec_adc_words - warm) / 1120u * 1120u);
	uint64_t dt = ng_ticks() - t0;
	*blocks_out = n;
	/* instructions = dt * 2e6 / ticks_2m */
	return n ? (uint32_t)(dt * 2000000000ull / ticks_2m / n) : 0;
}

#ifdef NG_FW_PROFILE
volatile uint32_t ng_prof_mark;
__attribute__((noinline)) void ng_prof_begin(void) { ng_prof_mark = 1; }
__attribute__((noinline)) void ng_prof_end(void) { ng_prof_mark = 2; }
__attribute__((noinline)) void ng_prof_adc_begin(void) { ng_prof_mark = 3; }
__attribute__((noinline)) void ng_prof_adc_end(void) { ng_prof_mark = 4; }
#else
static inline void ng_prof_adc_begin(void) {}
static inline void ng_prof_adc_end(void) {}
#endif

/* ng_health_test alone, called as the conditioned path of ng_measure
 * calls it (the same warm-up, then 4 passes, in the groups of ng_feed:
 * 140 samples, one block's), on the
 * samples as mapped (mixed) or as the ADCs gave them. Returns the ticks of
 * the 4 passes. The mapping keeps every equality between whole samples but
 * none between half-words, so the per-ADC tests see ADC values only here:
 * the firmware path's figure is ng_measure's with this function's ticks on
 * the mapped samples replaced by its ticks on the ADCs' own. */
static uint64_t ng_health_path(bool mixed, bool adc)
{
	static ng_health_ctx h;
	const uint32_t g = ng_group_words(NG_MODE_CONDITIONED);
	const uint32_t *vec = ng_mixed(mixed), warm = 1120, n = (ng_vec_adc_words - warm) / 1120u * 1120u;
	uint64_t t0 = 0;
	ref_health_init(&h, NG_DEFAULT_H_MILLI, adc ? NG_DEFAULT_ADC_H_MILLI : 0);
	for (uint32_t rep = 0; rep < 5; rep++) {
		const uint32_t *s = rep ? vec + warm : vec;
		if (rep == 1) {
			ng_prof_adc_begin();
			t0 = ng_ticks();
		}
		for (uint32_t i = 0; i + g <= (rep ? n : warm); i += g) {
			for (uint32_t j = 0, fired; j < g;)
				j += (uint32_t)ng_health_test(&h, s + i + j, g - j, &fired) + (fired != 0);
		}
	}
	uint64_t dt = ng_ticks() - t0;
	ng_prof_adc_end();
	return dt;
}

#ifdef NG_FW_PROFILE
/* The profile build (fw_prof.elf, bench/bench-firmware.sh): the firmware's
 * conditioned path over 4480 samples (groups of 140) after the warm-up, between calls of
 * ng_prof_begin and ng_prof_end; QEMU's instruction trace (-singlestep
 * -d exec) between them gives the instructions per function. */
int main(void)
{
	ng_pipeline_config cfg = { .mode = NG_MODE_CONDITIONED, .health = NG_DEFAULT_LIMITS,
				   .adc_health = NG_DEFAULT_ADC_LIMITS, .crc_dr = &ng_fake_dr };
	const uint32_t *vec = ng_mixed(true);
	memcpy(cfg.uid, ng_uid, sizeof cfg.uid);
	ng_pipeline_init(&ng_pipe, &cfg);
	ng_feed(NG_MODE_CONDITIONED, vec, 1120);
	ng_prof_begin();
	uint32_t n = ng_feed(NG_MODE_CONDITIONED, vec + 1120, 4480);
	ng_prof_end();
	ng_sh_printf("prof: blocks %u\n", n);
	/* ng_health_test on the ADCs' own samples, called as the path calls
	 * it: what replaces its count above (ng_health_path) */
	ng_health_path(false, true);
	ng_sh_printf("prof: adc_blocks %u\n", 4u * ((ng_vec_adc_words - 1120u) / 1120u * 1120u) / 140u);
	(void)ng_measure;
	(void)ng_calibrate;
	return 0;
}
#else
int main(void)
{
	ng_ticks_start();
	uint64_t cal = ng_calibrate();
	ng_sh_printf("bench: calibration_ticks_per_2M_instructions %u\n", (uint32_t)cal);
	uint32_t n, v;

	/* The firmware path: the CRC unit's data register (main.c, cfg.crc_dr),
	 * with the raw tests on the words and on each ADC's half-word (the
	 * firmware's configuration), and on the words alone. */
	for (uint32_t k = 0; k < 2; k++) {
		const bool adc = k == 0;
		v = ng_measure(NG_MODE_CONDITIONED, true, adc, cal, &n);
		uint64_t hm = ng_health_path(true, adc), ha = ng_health_path(false, adc);
		uint32_t dm = (uint32_t)(hm * 2000000000ull / cal / n), da = (uint32_t)(ha * 2000000000ull / cal / n);
		ng_sh_printf("bench: conditioned_hwcrc%s_mixed_minstr_per_output %u (%u blocks)\n", adc ? "" : "_words", v, n);
		ng_sh_printf("bench: health_path%s_mixed_minstr_per_output %u\n", adc ? "" : "_words", dm);
		ng_sh_printf("bench: health_path%s_minstr_per_output %u\n", adc ? "" : "_words", da);
		ng_sh_printf("bench: conditioned_hwcrc%s_minstr_per_output %u\n", adc ? "" : "_words", v - dm + da);
	}
	v = ng_measure(NG_MODE_CONDITIONED, false, true, cal, &n);
	ng_sh_printf("bench: conditioned_swcrc_minstr_per_output %u (%u blocks)\n", v, n);
	v = ng_measure(NG_MODE_CRC32, true, true, cal, &n);
	ng_sh_printf("bench: crc32_hwcrc_minstr_per_output %u (%u blocks)\n", v, n);
	v = ng_measure(NG_MODE_CRC32, false, true, cal, &n);
	ng_sh_printf("bench: crc32_swcrc_minstr_per_output %u (%u blocks)\n", v, n);
	v = ng_measure(NG_MODE_RAW, true, true, cal, &n);
	ng_sh_printf("bench: raw_minstr_per_output %u (%u blocks)\n", v, n);
	/* The parts, so that the cost can be attributed. */
	ng_mixed(false);
	static ng_health_ctx h;
	uint32_t fired;
	for (uint32_t adc = 0; adc < 2; adc++) {
		ref_health_init(&h, NG_DEFAULT_H_MILLI, adc ? NG_DEFAULT_ADC_H_MILLI : 0);
		uint64_t t0 = ng_ticks();
		for (uint32_t i = 0; i + 128 <= 4480; i += 128)
			ng_health_test(&h, ng_vec_adc + i, 128, &fired);
		uint64_t dt = ng_ticks() - t0;
		ng_sh_printf("bench: health_test_%s_minstr_per_sample %u\n", adc ? "3streams" : "words",
			     (uint32_t)(dt * 2000000000ull / cal / 4480u));
	}
	uint64_t t0, dt;
	/* NeuG's word tests on the mapped samples, the values the conditioned
	 * path's CRC stand-in reads back (ng_mix, mapped before the timing) */
	static ng_neug_tests_ctx nt;
	ng_neug_tests_init(&nt);
	const uint32_t *mv = ng_mixed(true);
	t0 = ng_ticks();
	for (uint32_t i = 0; i < 4480; i++)
		ng_neug_tests_words(&nt, &mv[i], 1);
	dt = ng_ticks() - t0;
	ng_mixed(false);
	ng_sh_printf("bench: neug_tests_word_minstr %u\n", (uint32_t)(dt * 2000000000ull / cal / 4480u));
	t0 = ng_ticks();
	uint32_t r = 0xFFFFFFFFu;
	for (uint32_t i = 0; i < 4480; i += 4)
		r = ng_crc32_run(r, ng_vec_adc + i, 4);
	dt = ng_ticks() - t0;
	ng_sh_printf("bench: crc32_sw_minstr_per_word %u (0x%x)\n", (uint32_t)(dt * 2000000000ull / cal / 4480u), r);
	static uint8_t wbuf[256];
	t0 = ng_ticks();
	for (uint32_t i = 0; i < 100; i++)
		ng_wipe(wbuf, 256);
	dt = ng_ticks() - t0;
	ng_sh_printf("bench: wipe_minstr_per_byte %u\n", (uint32_t)(dt * 2000000000ull / cal / 25600u));
	/* SHA-256 of NeuG's 161-byte message alone. */
	static uint8_t msg[161], dig[32];
	t0 = ng_ticks();
	for (uint32_t i = 0; i < 200; i++) {
		msg[0] = (uint8_t)i;
		ng_sha256(dig, msg, sizeof msg);
	}
	dt = ng_ticks() - t0;
	ng_sh_printf("bench: sha256_161B_minstr %u\n", (uint32_t)(dt * 2000000000ull / cal / 200u));
	static uint8_t blk[64 * 8];
	ng_sha256_ctx sc;
	ng_sha256_init(&sc);
	t0 = ng_ticks();
	ng_sha256_update(&sc, blk, sizeof blk);
	dt = ng_ticks() - t0;
	ng_sha256_final(&sc, dig);
	ng_sh_printf("bench: sha256_minstr_per_64B_block %u\n", (uint32_t)(dt * 2000000000ull / cal / 8u));

	/* The portable C (core/src/sha256.c: the QEMU tests' cross-check, not
	 * linked into the firmware), checked first. */
	uint32_t h1[8], h2[8];
	int same = 1;
	for (uint32_t i = 0; i < 8; i++)
		h1[i] = h2[i] = 0x01234567u * (i + 1);
	for (uint32_t i = 0; i < sizeof blk; i++)
		blk[i] = (uint8_t)(ng_vec_adc[i] * 7);
	ng_sha256_compress(h1, blk, 8);
	ng_sha256_compress_portable(h2, blk, 8);
	for (uint32_t i = 0; i < 8; i++)
		same &= h1[i] == h2[i];
	t0 = ng_ticks();
	ng_sha256_compress_portable(h2, blk, 8);
	dt = ng_ticks() - t0;
	ng_sh_printf("bench: sha256_portable_minstr_per_64B_block %u (%s)\n",
		     same ? (uint32_t)(dt * 2000000000ull / cal / 8u) : 0u, same ? "same digest" : "WRONG");
	volatile uint32_t *v32 = (volatile uint32_t *)(void *)wbuf;
	t0 = ng_ticks();
	for (uint32_t r = 0; r < 100; r++)
		for (uint32_t i = 0; i < 64; i++)
			v32[i] = 0;
	dt = ng_ticks() - t0;
	ng_sh_printf("bench: wipe_words_minstr_per_byte %u\n", (uint32_t)(dt * 2000000000ull / cal / 25600u));
	return 0;
}
#endif
