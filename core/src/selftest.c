/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Known-answer self-tests (see selftest.h). The pipeline vector: 1304
 * samples from xorshift32 seeded with 0x6e657567, uid 1 2 3, H = 3.7; the
 * expected digests of its mode 0 and mode 1 output were cross-checked by an
 * independent re-computation (tests/unit/test_pipeline.c). The induced
 * failures' sample indices follow from the cutoffs (doc/health.md). */
#include <string.h>
#include "ng/crc32.h"
#include "ng/health.h"
#include "ng/pipeline.h"
#include "ng/selftest.h"
#include "ng/sha256.h"
#include "sha256_impl.h"

static ng_pipeline ng_st_pipe;

/* FIPS 180-4 example "abc" (one block) and the 448-bit message (two blocks). */
static const uint8_t ng_st_abc[32] = {
	0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
	0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
};
static const char ng_st_448_msg[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const uint8_t ng_st_448[32] = {
	0x24, 0x8d, 0x6a, 0x61, 0xd2, 0x06, 0x38, 0xb8, 0xe5, 0xc0, 0x26, 0x93, 0x0c, 0x3e, 0x60, 0x39,
	0xa3, 0x3c, 0xe4, 0x59, 0x64, 0xff, 0x21, 0x67, 0xf6, 0xec, 0xed, 0xd4, 0x19, 0xdb, 0x06, 0xc1,
};

/* 1000 bytes 'a' (15 blocks in one compression call, then the last
 * 40 bytes and the padding): coreutils' sha256sum gives this. */
#define NG_ST_A_LEN 1000u
static const uint8_t ng_st_a1000[32] = {
	0x41, 0xed, 0xec, 0xe4, 0x2d, 0x63, 0xe8, 0xd9, 0xbf, 0x51, 0x5a, 0x9b, 0xa6, 0x93, 0x2e, 0x1c,
	0x20, 0xcb, 0xc9, 0xf5, 0xa5, 0xd1, 0x34, 0x64, 0x5a, 0xdb, 0x5d, 0xb1, 0xb9, 0x73, 0x7e, 0xa3,
};

static const char *ng_st_first;   /* the first test that failed */
#ifdef NG_SELFTEST_HOOKS
static const char *ng_st_wrong;   /* its known answer is made wrong */

void ng_selftest_inject(const char *name)
{
	ng_st_wrong = name;
}
#endif

static bool ng_st_ok(const char *name, bool ok)
{
#ifdef NG_SELFTEST_HOOKS
	if (ng_st_wrong && !strcmp(ng_st_wrong, name))
		ok = false;
#endif
	if (!ok && !ng_st_first)
		ng_st_first = name;
	return ok;
}

/* The known answers on ng_sha256, with the compression this CPU uses
 * (on the Cortex-M3 the assembly alone): one, two and sixteen blocks, a
 * multi-block compression call, and padding that fits in the last block and
 * that needs a block of its own. The 1000 bytes are the scratch pipeline's. */
static bool ng_st_sha(void)
{
	_Static_assert(sizeof ng_st_pipe >= NG_ST_A_LEN, "the scratch pipeline holds the 1000-byte message");
	uint8_t d[32];
	bool ok = true;
	ng_sha256(d, "abc", 3);
	ok &= memcmp(d, ng_st_abc, 32) == 0;
	ng_sha256(d, ng_st_448_msg, sizeof ng_st_448_msg - 1);
	ok &= memcmp(d, ng_st_448, 32) == 0;
	memset(&ng_st_pipe, 'a', NG_ST_A_LEN);
	ng_sha256(d, &ng_st_pipe, NG_ST_A_LEN);
	ok &= memcmp(d, ng_st_a1000, 32) == 0;
	ok = ng_st_ok("sha256", ok);
#if NG_SHA256_HAVE_ARMV7M
	/* The firmware carries no portable compression to compare with (the
	 * QEMU tests compare the two, tests/firmware/qemu/fw_selftest.c). */
	return ok;
#else
	/* the portable path too, when a faster one is in use */
	uint32_t h[8], h2[8];
	uint8_t blk[64] = { 'a', 'b', 'c', 0x80 };
	blk[63] = 24;
	memcpy(h, ng_sha256_h0, sizeof h);
	memcpy(h2, h, sizeof h);
	ng_sha256_compress_portable(h, blk, 1);
	ng_sha256_compress(h2, blk, 1);
	return ng_st_ok("sha256-portable", memcmp(h, h2, sizeof h) == 0 && h[0] == 0xba7816bfu &&
				     h[7] == 0xf20015adu) && ok;
#endif
}

/* The check value, and word order: the word 0x31323334 is the bytes "1234". */
static bool ng_st_crc(void)
{
	ng_crc32_ctx c, w, b;
	ng_crc32_reset(&c);
	ng_crc32_reset(&w);
	ng_crc32_reset(&b);
	bool ok = ng_crc32_bytes(&c, (const uint8_t *)"123456789", 9) == 0x0376E6E7u;
	ok &= ng_crc32_word(&w, 0x31323334u) == ng_crc32_bytes(&b, (const uint8_t *)"1234", 4);
	return ng_st_ok("crc", ok);
}

/* The pipeline vector: xorshift32 from 0x6e657567, sample i of a run. */
static uint32_t ng_st_xorshift(uint32_t i)
{
	static uint32_t x;
	if (i == 0)
		x = 0x6e657567u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

/* n samples gen(0), gen(1), ... through the scratch pipeline in `mode`
 * (uid 1 2 3, H = 3.7; dual-ADC words when adc), 8 at a time, taking the
 * output as it comes: SHA-256 of it into digest, the blocks into *blocks.
 * False when a put was not NG_OK. */
static bool ng_st_run(uint32_t mode, bool adc, uint32_t (*gen)(uint32_t), uint32_t n,
		      uint8_t digest[32], uint32_t *blocks)
{
	static const ng_health_limits adc_limits = NG_DEFAULT_ADC_LIMITS;
	ng_pipeline_config cfg = { .mode = mode, .uid = { 1, 2, 3 }, .health = NG_DEFAULT_LIMITS };
	uint32_t w[8];
	uint8_t out[NG_BLOCK_BYTES];
	ng_sha256_ctx sc;
	bool ok = true;
	if (adc)
		cfg.adc_health = adc_limits;
	if (ng_pipeline_init(&ng_st_pipe, &cfg) != NG_OK)
		return false;
	ng_sha256_init(&sc);
	*blocks = 0;
	for (uint32_t i = 0; i < n; i += 8) {
		for (uint32_t j = 0; j < 8; j++)
			w[j] = gen(i + j);
		ok &= ng_pipeline_put_many(&ng_st_pipe, w, 8) == NG_OK;
		for (; ng_pipeline_take(&ng_st_pipe, out); (*blocks)++)
			ng_sha256_update(&sc, out, sizeof out);
	}
	ng_sha256_final(&sc, digest);
	return ok;
}

/* SHA-256 of the 9 blocks of mode 0 and the 40 blocks of mode 1 of the
 * 1304-sample vector. */
static const uint8_t ng_st_m0[32] = {
	0xfa, 0xa1, 0xcd, 0x59, 0xce, 0xdc, 0x15, 0x13, 0x30, 0x46, 0xb4, 0xe8, 0x27, 0xb0, 0xea, 0x6f,
	0x60, 0x4b, 0x71, 0xba, 0x7d, 0xe3, 0x60, 0x23, 0x01, 0x33, 0xdf, 0x73, 0x80, 0x38, 0x05, 0x10 };
static const uint8_t ng_st_m1[32] = {
	0x7d, 0xa9, 0x32, 0x92, 0x21, 0x7a, 0x49, 0x08, 0xe1, 0x48, 0xd2, 0x08, 0xd0, 0x72, 0x0b, 0x68,
	0xa5, 0xa0, 0x47, 0x59, 0x38, 0x23, 0xbe, 0x34, 0x90, 0x59, 0x5d, 0xf1, 0x67, 0xe5, 0xfe, 0x31 };

static bool ng_st_pipeline(void)
{
	uint8_t d[32];
	uint32_t nb;
	bool ok = ng_st_run(NG_MODE_CONDITIONED, false, ng_st_xorshift, 1304, d, &nb) && nb == 9 &&
		  !memcmp(d, ng_st_m0, 32);
	return ok && ng_st_run(NG_MODE_CRC32, false, ng_st_xorshift, 1304, d, &nb) && nb == 40 &&
	       !memcmp(d, ng_st_m1, 32);
}

/* n samples from gen(i) in mode 0 (dual-ADC words when adc); true when the
 * first persistent failure latched at sample `index` on `stream` by
 * `test`, during the start-up test, and nothing came out. */
static bool ng_st_latch(uint32_t (*gen)(uint32_t), uint32_t n, bool adc, uint32_t test,
			uint32_t stream, uint64_t index)
{
	uint8_t d[32];
	uint32_t nb;
	ng_st_run(NG_MODE_CONDITIONED, adc, gen, n, d, &nb);
	const ng_health_ctx *h = ng_pipeline_health(&ng_st_pipe);
	return (h->status & NG_HEALTH_PERSISTENT) && (h->status & NG_HEALTH_STARTUP_FAILED) &&
	       h->fail_test == test && h->fail_stream == stream && h->fail_index == index && nb == 0;
}

/* A stuck source: the RCT (C = 10 at H = 3.7) fires at its 10th sample. */
static uint32_t ng_st_stuck(uint32_t i)
{
	(void)i;
	return 0x0FDC05D2u;
}

/* A value every other sample, never twice in a row: the APT (C = 81 at
 * H = 3.7, W = 512) fires at the window's 81st A, sample 160. */
static uint32_t ng_st_often(uint32_t i)
{
	return i % 2 ? 0x05D00000u + i : 0x0FDC05D2u;
}

/* ADC2 dead (constant), ADC1 cycling through 64 values: only ADC2's stream
 * sees it; its RCT (C = 31 at H = 1) fires at sample 30. */
static uint32_t ng_st_dead_adc(uint32_t i)
{
	return 0x0FDC0000u | (1400u + i % 64u);
}

/* NeuG's tests: a run of 9 equal bytes fires the repetition count test at
 * its 9th byte; 18 equal bytes in a 64-byte window (none in a row) the
 * 64-byte adaptive proportion test; 315 in a 4096-byte window the other. */
static bool ng_st_neug(void)
{
	ng_neug_tests_ctx t;
	bool ok = true;
	ng_neug_tests_init(&t);
	for (int i = 0; i < 9; i++)
		ok &= ng_neug_tests_byte(&t, 0x5a) == (i == 8);
	ok &= t.err_rc == 1 && t.rc_max == 9;
	ng_neug_tests_init(&t);
	for (uint32_t i = 0; i < 4096; i++)
		ng_neug_tests_byte(&t, (uint8_t)(i % 2 ? 1 + i % 200 : 0));
	ok &= t.err_p64 > 0 && t.err_p4k > 0 && t.err_rc == 0 && t.p64_max + 1u >= NG_NEUG_APT64_CUTOFF &&
	      t.p4k_max + 1u >= NG_NEUG_APT4K_CUTOFF;
	return ok;
}

ng_status ng_selftest(void)
{
	ng_st_first = NULL;
	bool ok = ng_st_sha();
	ok = ng_st_crc() && ok;
	ok = ng_st_ok("pipeline", ng_st_pipeline()) && ok;
	ok = ng_st_ok("rct", ng_st_latch(ng_st_stuck, 64, false, NG_HEALTH_RCT, NG_STREAM_WORD, 9)) && ok;
	ok = ng_st_ok("apt", ng_st_latch(ng_st_often, 512, false, NG_HEALTH_APT, NG_STREAM_WORD, 160)) && ok;
	ok = ng_st_ok("adc", ng_st_latch(ng_st_dead_adc, 64, true, NG_HEALTH_RCT, NG_STREAM_ADC2, 30)) && ok;
	ok = ng_st_ok("neug", ng_st_neug()) && ok;
	memset(&ng_st_pipe, 0, sizeof ng_st_pipe);
	return ok ? NG_OK : NG_ERR_SELFTEST;
}

const char *ng_selftest_failed(void)
{
	return ng_st_first;
}
