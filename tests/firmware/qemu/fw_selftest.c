/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The core's self-tests on a Cortex-M3 (QEMU mps2-an385, semihosting):
 * ng_selftest() (SHA-256 and CRC known answers), the pipeline on the head of
 * adc.bin against out-adc-m0.bin and out-adc-m1.bin, and each raw-sample
 * health test's induced failure. Prints PASS/FAIL lines; the exit code is
 * the number of failures. Everything runs in 20 KiB of RAM like the STM32. */
#include <stdint.h>
#include <string.h>
#include "mps2.h"
#include "../../pipeline_hook.h"
#include "ng/crc32.h"
#include "../../health_ref.h"
#include "ng/health.h"
#include "ng/pipeline.h"
#include "ng/selftest.h"
#include "ng/sha256.h"
#include "ng/wipe.h"

static const uint32_t ng_uid[3] = { 0x12345678u, 0x9abcdef0u, 0x0fedcba9u };
static ng_pipeline ng_pipe;

static void ng_init(uint32_t mode)
{
	ng_pipeline_config cfg = { .mode = mode, .health = NG_DEFAULT_LIMITS };
	memcpy(cfg.uid, ng_uid, sizeof cfg.uid);
	ng_sh_check(ng_pipeline_init(&ng_pipe, &cfg) == NG_OK, "pipeline init");
}

/* Feeds n words in chunks of 64 (the firmware's DMA half), comparing every
 * released block with want; returns the number of matching bytes. */
static uint32_t ng_run(const uint32_t *w, uint32_t n, const uint8_t *want, uint32_t want_len)
{
	uint8_t blk[NG_BLOCK_BYTES];
	uint32_t got = 0, bad = 0;
	for (uint32_t i = 0; i < n; i += 64) {
		ng_pipeline_put_many(&ng_pipe, w + i, n - i < 64 ? n - i : 64);
		while (ng_pipeline_take(&ng_pipe, blk)) {
			if (got + NG_BLOCK_BYTES > want_len || memcmp(blk, want + got, NG_BLOCK_BYTES))
				bad++;
			got += NG_BLOCK_BYTES;
		}
	}
	return bad ? 0 : got;
}

static void ng_test_vectors(void)
{
	ng_init(NG_MODE_CONDITIONED);
	uint32_t got = ng_run(ng_vec_adc, ng_vec_adc_words, ng_vec_m0, ng_vec_m0_bytes);
	ng_sh_printf("# mode 0: %u of %u bytes match out-adc-m0.bin\n", got, ng_vec_m0_bytes);
	ng_sh_check(got == ng_vec_m0_bytes, "pipeline mode 0 (conditioned) = out-adc-m0.bin head");

	ng_init(NG_MODE_CRC32);
	got = ng_run(ng_vec_adc, ng_vec_adc_words, ng_vec_m1, ng_vec_m1_bytes);
	ng_sh_printf("# mode 1: %u of %u bytes match out-adc-m1.bin\n", got, ng_vec_m1_bytes);
	ng_sh_check(got == ng_vec_m1_bytes, "pipeline mode 1 (CRC32) = out-adc-m1.bin head");

	ng_init(NG_MODE_RAW);
	got = ng_run(ng_vec_adc, ng_vec_adc_words, (const uint8_t *)ng_vec_adc, ng_vec_adc_words * 4);
	ng_sh_check(got == ng_vec_adc_words * 4, "pipeline mode 2 (raw) = adc.bin head");
}

/* A copy of the healthy head of adc.bin that a test then damages (its
 * size: what the 20 KiB RAM leaves beside two pipelines). */
#define NG_WORK 2816u
static uint32_t ng_work[NG_WORK];

static void ng_expect(const char *what, uint32_t want_bit, uint32_t not_bit)
{
	ng_pipeline_stats st;
	ng_pipeline_get_stats(&ng_pipe, &st);
	ng_sh_printf("# %s: status 0x%x rct_failures %u apt_failures %u blocks_out %u\n", what,
		     st.status, st.rct_failures, st.apt_failures, (uint32_t)st.blocks_out);
	ng_sh_check((want_bit == 0 || (st.status & want_bit)) && !(st.status & not_bit), what);
}

static void ng_test_health(void)
{
	ng_pipeline_stats st;
	uint8_t blk[NG_BLOCK_BYTES];

	/* A dead source (stuck.bin): the start-up test fails, nothing is output,
	 * and further healthy input clears nothing. */
	ng_init(NG_MODE_CONDITIONED);
	ng_pipeline_put_many(&ng_pipe, ng_vec_stuck, ng_vec_stuck_words);
	ng_expect("stuck.bin trips the repetition count test at start-up", NG_HEALTH_RCT, 0);
	ng_pipeline_get_stats(&ng_pipe, &st);
	ng_sh_check((st.status & NG_HEALTH_PERSISTENT) && st.blocks_out == 0 && !ng_pipeline_take(&ng_pipe, blk),
		    "stuck.bin: persistent, no block released");
	uint32_t before = st.status;
	ng_pipeline_put_many(&ng_pipe, ng_vec_adc, 2048);
	ng_pipeline_get_stats(&ng_pipe, &st);
	ng_sh_check((st.status & before) == before && !ng_pipeline_take(&ng_pipe, blk),
		    "stuck.bin: healthy input afterwards clears no bit, releases nothing");

	/* A degraded source (lowbit.bin, about 1 bit per word). */
	ng_init(NG_MODE_CONDITIONED);
	ng_pipeline_put_many(&ng_pipe, ng_vec_lowbit, ng_vec_lowbit_words);
	ng_expect("lowbit.bin trips the adaptive proportion test", NG_HEALTH_APT, 0);

	/* Induced RCT failure after start-up: one run of exactly the cutoff. */
	ng_init(NG_MODE_CONDITIONED);
	ng_pipeline_get_stats(&ng_pipe, &st);
	uint32_t c = st.rct_cutoff;
	memcpy(ng_work, ng_vec_adc, sizeof ng_work);
	for (uint32_t i = 0; i < c; i++)
		ng_work[2100 + i] = 0x0FDC05D2u;
	ng_pipeline_put_many(&ng_pipe, ng_work, 2100 + c - 1);
	ng_expect("a run of cutoff-1 equal samples passes", 0, NG_HEALTH_RCT | NG_HEALTH_APT);
	ng_pipeline_put_many(&ng_pipe, ng_work + 2100 + c - 1, NG_WORK - (2100 + c - 1));
	ng_expect("a run of cutoff equal samples trips the repetition count test only",
		  NG_HEALTH_RCT, NG_HEALTH_APT);

	/* Induced APT failure after start-up: two values alternating (runs of
	 * one, so the RCT stays quiet) over two windows. */
	ng_init(NG_MODE_CONDITIONED);
	memcpy(ng_work, ng_vec_adc, sizeof ng_work);
	for (uint32_t i = 1536; i < 1536 + 1024; i++)
		ng_work[i] = (i & 1u) ? 0x0FDC05D2u : 0x0FDB05D3u;
	ng_pipeline_put_many(&ng_pipe, ng_work, 1536);
	ng_expect("healthy head passes the start-up test", 0, NG_HEALTH_RCT | NG_HEALTH_APT | NG_HEALTH_STARTUP_FAILED);
	ng_pipeline_put_many(&ng_pipe, ng_work + 1536, NG_WORK - 1536);
	ng_expect("a value in half of a window trips the adaptive proportion test only",
		  NG_HEALTH_APT, NG_HEALTH_RCT);
}

/* firmware/stm32f103/libc.c, which this image and the firmware link:
 * every alignment and length 0..72 against byte loops (the M3's
 * 16-byte ldm/stm memcpy path up to 4 times, with every tail). */
static void ng_test_libc(void)
{
	static uint8_t a[96], b[96], ref[96];
	int ok = 1;
	for (uint32_t so = 0; so < 4; so++)
		for (uint32_t dof = 0; dof < 4; dof++)
			for (uint32_t n = 0; n <= 72; n++) {
				for (uint32_t i = 0; i < 96; i++) {
					a[i] = (uint8_t)(i * 13 + 1);
					b[i] = ref[i] = 0xEE;
				}
				for (uint32_t i = 0; i < n; i++)
					ref[dof + i] = a[so + i];
				memcpy(b + dof, a + so, n);
				ok &= memcmp(b, ref, 96) == 0;
				/* overlapping moves, both directions */
				memcpy(ref, a, 96);
				for (uint32_t i = n; i-- > 0;)
					ref[dof + 8 + i] = a[so + i];
				memcpy(b, a, 96);
				memmove(b + dof + 8, b + so, n);
				ok &= memcmp(b, ref, 96) == 0;
				memcpy(ref, a, 96);
				for (uint32_t i = 0; i < n; i++)
					ref[so + i] = a[dof + 8 + i];
				memcpy(b, a, 96);
				memmove(b + so, b + dof + 8, n);
				ok &= memcmp(b, ref, 96) == 0;
				/* memset writes exactly [dof, dof + n) */
				for (uint32_t i = 0; i < 96; i++)
					b[i] = ref[i] = (uint8_t)(i * 7 + 3);
				for (uint32_t i = 0; i < n; i++)
					ref[dof + so + i] = 0x5A;
				memset(b + dof + so, 0x5A, n);
				ok &= memcmp(b, ref, 96) == 0;
			}
	a[50] = 1;
	b[50] = 2;
	memcpy(b, a, 50);
	ok &= memcmp(a, b, 50) == 0 && memcmp(a, b, 51) < 0 && memcmp(b, a, 51) > 0 && memcmp(a, b, 0) == 0;
	ng_sh_check(ok, "libc.c: memcpy, memmove, memset, memcmp at every alignment, lengths 0..72");
}

/* ng_wipe (core/src/wipe.c; 16 bytes per stmia on the M3): clears exactly
 * [off, off + n) at every alignment, lengths 0..72. */
static void ng_test_wipe(void)
{
	static uint8_t b[96], ref[96];
	int ok = 1;
	for (uint32_t off = 0; off < 4; off++)
		for (uint32_t n = 0; n <= 72; n++) {
			for (uint32_t i = 0; i < 96; i++)
				b[i] = ref[i] = (uint8_t)(i * 11 + 5);
			for (uint32_t i = 0; i < n; i++)
				ref[off + i] = 0;
			ng_wipe(b + off, n);
			ok &= memcmp(b, ref, 96) == 0;
		}
	ng_sh_check(ok, "ng_wipe clears exactly its range at every alignment, lengths 0..72");
}

/* ng_health_test on this target: a stream from a small alphabet (both tests
 * fire often) tested in pieces of 1..300 samples and one sample at a time
 * gives the same failing samples and the same state. */
static uint32_t ng_rng_state = 0x6e657567u;
static uint32_t ng_rng(void)
{
	uint32_t x = ng_rng_state;   /* xorshift32 */
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return ng_rng_state = x;
}

static void ng_test_pieces(void)
{
	static ng_health_ctx a, b;
	uint32_t diff = 0, fires = 0, *buf = ng_work, n = NG_WORK;
	for (uint32_t trial = 0; trial < 20; trial++) {
		uint32_t alpha = 1 + ng_rng() % 24, run = 0, v = 0;
		ref_health_init(&a, 500 + ng_rng() % 7500, trial & 1 ? 1000 : 0);
		b = a;
		for (uint32_t i = 0; i < n; i++) {
			if (!run) {
				v = (ng_rng() % alpha) * 0x00010001u;
				run = 1 + ng_rng() % (trial & 2 ? 3 : 14);
			}
			buf[i] = v;
			run--;
		}
		for (uint32_t i = 0; i < n;) {
			uint32_t fa, fb = 0, k = 1 + ng_rng() % 300;
			if (k > n - i)
				k = n - i;
			size_t ka = ng_health_test(&a, buf + i, k, &fa), kb = 0;
			for (; kb < k && !fb; kb++)
				if (ng_health_test(&b, buf + i + kb, 1, &fb) == 0)
					break;
			diff += ka != kb || fa != fb;
			fires += fa != 0;
			i += (uint32_t)ka + (ka < k);
		}
		diff += memcmp(&a, &b, sizeof a) != 0;
	}
	ng_sh_check(!diff && fires > 50, "ng_health_test in pieces == one sample at a time (20 streams)");
}

/* The CRC data-register engine on this target: a register that reads back
 * the last word written (plain memory) gives what that "CRC" gives through
 * the test hook, in modes 0 and 1, fed in pieces. */
static volatile uint32_t ng_dr;
static uint32_t ng_last_word4(const uint32_t w[4])
{
	return w[3];
}

static uint32_t ng_hash_blocks(ng_pipeline *p, uint32_t h, uint32_t *count)
{
	uint8_t blk[NG_BLOCK_BYTES];
	while (ng_pipeline_take(p, blk)) {
		for (uint32_t i = 0; i < NG_BLOCK_BYTES; i++)
			h = (h ^ blk[i]) * 0x01000193u;
		(*count)++;
	}
	return h;
}

static void ng_test_crc_dr(void)
{
	static ng_pipeline pb;
	for (uint32_t mode = 0; mode < 2; mode++) {
		ng_pipeline_config ca = { .mode = mode, .health = NG_DEFAULT_LIMITS, .crc_dr = &ng_dr };
		ng_pipeline_config cb = { .mode = mode, .health = NG_DEFAULT_LIMITS };
		ng_pipeline_init(&ng_pipe, &ca);
		ng_pipeline_init(&pb, &cb);
		ng_test_pipeline_crc(&pb, ng_last_word4, 0);
		uint32_t ha = 0, hb = 0, na = 0, nb = 0, n = ng_vec_adc_words;
		for (uint32_t i = 0; i < n;) {
			uint32_t k = 1 + ng_rng() % 200;
			if (k > n - i)
				k = n - i;
			ng_pipeline_put_many(&ng_pipe, ng_vec_adc + i, k);
			ng_pipeline_put_many(&pb, ng_vec_adc + i, k);
			ha = ng_hash_blocks(&ng_pipe, ha, &na);
			hb = ng_hash_blocks(&pb, hb, &nb);
			i += k;
		}
		ng_sh_check(ha == hb && na == nb && na > 0, mode ? "cfg.crc_dr: mode 1 as the hook gives"
							  : "cfg.crc_dr: mode 0 as the hook gives");
	}
}

/* The firmware has no portable compression to compare the assembly with at
 * power-up: its known answers must catch a broken assembly alone. Here the
 * code is in RAM, so the test breaks the assembly for real: one bit of one
 * round constant in its in-code copy of K (FIPS 180-4 4.2.2: K[0], K[31],
 * K[63] in turn), and ng_selftest must fail on "sha256"; then it is put
 * back and ng_selftest passes again. */
void ng_sha256_compress_armv7m(uint32_t h[8], const uint8_t *blocks, size_t n);
static void ng_test_sha_kat_catches(void)
{
	static const uint32_t k[3] = { 0x428a2f98u, 0x106aa070u, 0xc67178f2u }; /* K[0], K[31], K[63] */
	volatile uint32_t *code = (volatile uint32_t *)((uintptr_t)ng_sha256_compress_armv7m & ~(uintptr_t)3);
	int caught = 0, found = 0;
	for (int j = 0; j < 3; j++) {
		for (uint32_t i = 0; i < 8192 / 4; i++) {
			if (code[i] != k[j])
				continue;
			found++;
			code[i] = k[j] ^ 0x00010000u;
			bool changed = code[i] != k[j];
			ng_status st = ng_selftest();
			const char *f = ng_selftest_failed();
			code[i] = k[j];
			caught += changed && st == NG_ERR_SELFTEST && f && !memcmp(f, "sha256", 7);
			break;
		}
	}
	ng_sh_check(found == 3 && caught == 3 && ng_selftest() == NG_OK,
		    "ng_selftest's SHA-256 known answers catch the assembly with K[0], K[31] or K[63] wrong (3 of 3)");
}

static void ng_test_sha_impl(void)
{
	static uint8_t msg[4 * 64 + 3];
	int ok = 1;
	for (uint32_t i = 0; i < sizeof msg; i++)
		msg[i] = (uint8_t)(ng_vec_adc[i] ^ (i * 29));
	for (uint32_t off = 0; off < 4; off++)
		for (uint32_t n = 0; n <= 4; n++) {
			uint32_t h1[10], h2[10];
			for (uint32_t i = 0; i < 10; i++)
				h1[i] = h2[i] = 0x9e3779b9u * (i + off + 1);
			ng_sha256_compress(h1 + 1, msg + off, n);
			ng_sha256_compress_portable(h2 + 1, msg + off, n);
			for (uint32_t i = 0; i < 10; i++)
				ok &= h1[i] == h2[i];
			ok &= n == 0 || h1[1] != 0x9e3779b9u * (off + 2);
		}
	ng_sh_printf("# ng_sha256_impl: %s\n", ng_sha256_impl());
	ng_sh_check(ok, "ng_sha256_compress = the portable C, 0..4 blocks at every alignment");
}

int main(void)
{
	ng_test_libc();
	ng_test_wipe();
	ng_test_sha_impl();
	ng_sh_puts("# NeuG core self-tests on Cortex-M3 (qemu mps2-an385)\n");
	ng_sh_check(ng_selftest() == NG_OK, "ng_selftest (SHA-256, CRC32 and health known answers)");
	ng_test_sha_kat_catches();
	ng_crc32_ctx c;
	ng_crc32_reset(&c);
	ng_sh_check(ng_crc32_bytes(&c, (const uint8_t *)"123456789", 9) == 0x0376E6E7u,
		    "CRC-32/MPEG-2 check value 0x0376e6e7");
	ng_test_vectors();
	ng_test_health();
	ng_test_pieces();
	ng_test_crc_dr();
	ng_sh_printf("# %u failed\n", (uint32_t)ng_sh_failed());
	return ng_sh_failed();
}
