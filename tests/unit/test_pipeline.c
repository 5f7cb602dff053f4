/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The pipeline: NeuG 1.0.6 golden vectors byte for byte (modes 0, 1, 2),
 * NeuG's CRC-level counters, mode switches, and the extended mode 0 layout
 * (H < 3.66) against an independent re-computation with ng_sha256 and a
 * bit-at-a-time CRC. */
#include <string.h>
#include "check.h"
#include "ng/crc32.h"
#include "pipeline_hook.h"
#include "ng/pipeline.h"
#include "ng/selftest.h"

static const uint32_t UID[3] = { 0x12345678u, 0x9abcdef0u, 0x0fedcba9u };

static ng_pipeline pipe_;

/* Runs samples through a fresh pipeline in pieces of `piece` samples,
 * taking output after each; returns bytes written to out. */
static size_t run(uint32_t mode, uint32_t h_milli, const uint32_t *s, size_t n, size_t piece,
		  uint8_t *out, ng_pipeline_stats *st)
{
	ng_pipeline_config cfg = { .mode = mode };
	memcpy(cfg.uid, UID, sizeof UID);
	if (ng_pipeline_config_h(&cfg, h_milli, 0) != NG_OK || ng_pipeline_init(&pipe_, &cfg) != NG_OK)
		return (size_t)-1;
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t k = n - i < piece ? n - i : piece, room = ng_pipeline_room(&pipe_);
		if (k > room)
			k = room;
		ng_pipeline_put_many(&pipe_, s + i, k);
		i += k;
		while (ng_pipeline_take(&pipe_, out + o))
			o += NG_BLOCK_BYTES;
	}
	ng_pipeline_get_stats(&pipe_, st);
	return o;
}

/* ---- independent model of mode 0 (bit-wise CRC, one-shot SHA-256) ------ */
static uint32_t bit_word(uint32_t reg, uint32_t w)
{
	for (int i = 31; i >= 0; i--) {
		uint32_t top = reg >> 31;
		reg <<= 1;
		if (top ^ ((w >> i) & 1u))
			reg ^= 0x04C11DB7u;
	}
	return reg;
}

static size_t model_m0(uint32_t nper, const uint32_t *s, size_t n, uint8_t *out)
{
	uint32_t reg = 0xFFFFFFFFu;
	for (int i = 0; i < 3; i++)
		reg = bit_word(reg, UID[i]);
	uint8_t prev[16] = { 0 }, msg[8192];
	size_t o = 0;
	for (size_t b = 0; b + nper <= n; b += nper) {
		size_t L = 0;
		msg[L++] = 1; msg[L++] = 0; msg[L++] = 0; msg[L++] = 1; msg[L++] = 0;
		msg[L++] = (uint8_t)(reg >> 8); msg[L++] = (uint8_t)(reg >> 16); msg[L++] = (uint8_t)(reg >> 24);
		for (uint32_t g = 0; g < nper / 4; g++) {
			for (int j = 0; j < 4; j++)
				reg = bit_word(reg, s[b + 4 * g + j]);
			int nb = g + 1 < nper / 4 ? 4 : 1;
			for (int j = 0; j < nb; j++)
				msg[L++] = (uint8_t)(reg >> (8 * j));
		}
		memcpy(msg + L, prev, 16);
		L += 16;
		if (L != nper + 21)
			return (size_t)-1;
		ng_sha256(out + o, msg, L);
		memcpy(prev, out + o, 16);
		o += 32;
	}
	return o;
}

/* ---- CRC unit stand-ins (tests/pipeline_hook.h) ------------------------ */
static ng_crc32_ctx hw;
static unsigned long hw4_calls;
static uint32_t hw_word4(const uint32_t w[4])
{
	hw4_calls++;
	for (int i = 0; i < 4; i++)
		ng_crc32_word(&hw, w[i]);
	return hw.reg;
}
/* A data register that reads back the last word written (plain memory),
 * and the same "CRC" through the hook. */
static volatile uint32_t last_dr;
static uint32_t last_word4(const uint32_t w[4])
{
	return w[3];
}

/* w such that the CRC register goes from r to v: the word step is
 * f(r ^ w) with f linear and invertible over GF(2)^32; invert it by
 * Gaussian elimination on its columns. */
static uint32_t f_inv(uint32_t v)
{
	uint32_t col[32], id[32];
	for (int i = 0; i < 32; i++) {
		col[i] = bit_word(0, 1u << i);
		id[i] = 1u << i;
	}
	/* reduce: find x with sum of col[i] over bits of x = v */
	for (int b = 31, row = 0; b >= 0; b--) {
		int piv = -1;
		for (int i = row; i < 32; i++)
			if (col[i] >> b & 1) { piv = i; break; }
		if (piv < 0)
			continue;
		uint32_t t = col[piv]; col[piv] = col[row]; col[row] = t;
		t = id[piv]; id[piv] = id[row]; id[row] = t;
		for (int i = 0; i < 32; i++)
			if (i != row && (col[i] >> b & 1)) { col[i] ^= col[row]; id[i] ^= id[row]; }
		row++;
	}
	uint32_t x = 0;
	for (int i = 0; i < 32; i++)
		for (int b = 31; b >= 0; b--)
			if (col[i] == (1u << b)) { if (v >> b & 1) x ^= id[i]; }
	return x;
}

int main(void)
{
	size_t na, n0, n1;
	uint8_t *adc = ng_test_vector("adc.bin", &na), *m0 = ng_test_vector("out-adc-m0.bin", &n0), *m1 = ng_test_vector("out-adc-m1.bin", &n1);
	const uint32_t *s = (const uint32_t *)adc;   /* little-endian host */
	size_t ns = na / 4;
	uint8_t *out = malloc(na * 2 + 64);
	ng_pipeline_stats st;
	size_t pieces[] = { 1, 3, 8, 64, 1000, 28000 };

	CHECK(ng_selftest() == NG_OK, "ng_selftest() passes");

	/* A full queue: blocks beyond NG_PIPELINE_QUEUE are lost and counted;
	 * ng_pipeline_room says how much can be fed without that. */
	ng_pipeline_config rc = { .mode = NG_MODE_RAW, .health = NG_DEFAULT_LIMITS };
	ng_pipeline_init(&pipe_, &rc);
	size_t room = ng_pipeline_room(&pipe_);
	ng_pipeline_put_many(&pipe_, s, room);
	ng_pipeline_get_stats(&pipe_, &st);
	CHECK(room == NG_PIPELINE_QUEUE * 8 + 7 && st.ready == NG_PIPELINE_QUEUE && st.blocks_lost == 0 &&
	      ng_pipeline_room(&pipe_) == 0,
	      "raw: room %zu samples fills the %u-block queue without a loss", room, NG_PIPELINE_QUEUE);
	ng_pipeline_put_many(&pipe_, s + room, 1 + 16);
	ng_pipeline_get_stats(&pipe_, &st);
	CHECK(st.blocks_lost == 3 && st.ready == NG_PIPELINE_QUEUE, "raw: 3 more blocks into a full queue are lost and counted");
	uint8_t b0[32];
	CHECK(ng_pipeline_take(&pipe_, b0) && !memcmp(b0, s, 32), "the queue keeps the oldest blocks");

	int bad = 0;
	for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
		size_t o = run(NG_MODE_CONDITIONED, NG_DEFAULT_H_MILLI, s, ns, pieces[k], out, &st);
		bad += o != n0 || memcmp(out, m0, n0) != 0;
	}
	CHECK(!bad, "mode 0: adc.bin -> out-adc-m0.bin byte for byte (6 feeding patterns)");
	CHECK(st.blocks_out == 200 && st.blocks_dropped == 0 && st.status == 0 && st.samples == 28000,
	      "mode 0: 200 blocks out, none dropped, status 0 (out %llu dropped %llu status 0x%x)",
	      (unsigned long long)st.blocks_out, (unsigned long long)st.blocks_dropped, st.status);
	CHECK(st.neug_err == 0 && st.neug_err_rc == 0 && st.neug_err_p64 == 0 && st.neug_err_p4k == 0,
	      "mode 0: NeuG error counters 0");
	CHECK(st.neug_rc_max == 2 && st.neug_p64_max == 3 && st.neug_p4k_max == 22,
	      "mode 0: NeuG maxima rc 2, p64 3, p4k 22 (got %u %u %u)",
	      st.neug_rc_max, st.neug_p64_max, st.neug_p4k_max);
	CHECK(st.samples_per_block == 140 && st.rct_cutoff == 10, "mode 0 at H=3.7: 140 samples/block, RCT cutoff 10");

	bad = 0;
	for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
		size_t o = run(NG_MODE_CRC32, NG_DEFAULT_H_MILLI, s, ns, pieces[k], out, &st);
		bad += o != n1 || memcmp(out, m1, n1) != 0;
	}
	CHECK(!bad, "mode 1: adc.bin -> out-adc-m1.bin byte for byte (6 feeding patterns)");
	CHECK(st.blocks_out == 875 && st.neug_err == 0, "mode 1: 875 blocks, no NeuG error");

	bad = 0;
	for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
		size_t o = run(NG_MODE_RAW, NG_DEFAULT_H_MILLI, s, ns, pieces[k], out, &st);
		bad += o != na || memcmp(out, adc, na) != 0;
	}
	CHECK(!bad, "mode 2: the output is adc.bin itself");

	/* The model agrees with the vector (so it can judge the extended layout). */
	size_t o = model_m0(140, s, ns, out);
	CHECK(o == n0 && !memcmp(out, m0, n0), "independent mode 0 model reproduces out-adc-m0.bin");

	/* Extended layout for weaker declared H. */
	static const uint32_t hs[] = { 3650, 3000, 1000, 550 };
	uint8_t *ref = malloc(na + 64);
	for (size_t i = 0; i < sizeof hs / sizeof hs[0]; i++) {
		uint32_t nper = ng_pipeline_block_samples(hs[i]);
		size_t want = model_m0(nper, s, ns, ref);
		/* H = 0.55 declares too little for adc.bin's APT cutoff? no: the cutoffs
		 * only loosen as H falls, so the healthy source passes. */
		size_t got = run(NG_MODE_CONDITIONED, hs[i], s, ns, 77, out, &st);
		CHECK(got == want && !memcmp(out, ref, want) && st.status == 0,
		      "mode 0 at H=%u.%03u: %u samples/block, message %u bytes, %zu blocks == independent model",
		      hs[i] / 1000, hs[i] % 1000, nper, nper + 21, want / 32);
	}
	CHECK(ng_pipeline_block_samples(3660) == 140 && ng_pipeline_block_samples(3657) == 144 &&
	      ng_pipeline_block_samples(1000) == 512 && ng_pipeline_block_samples(100) == 5120 &&
	      ng_pipeline_block_samples(99) == 0 && ng_pipeline_block_samples(32001) == 0,
	      "samples per block: max(140, ceil(512/H)) rounded up to a multiple of 4");

	/* A CRC unit in place of the software CRC gives the same vectors, one
	 * call per group of 4, fed in pieces of 13 so that groups straddle the
	 * calls; and the data-register engine (cfg.crc_dr) writes each group's
	 * 4 words and reads the register once (a register that reads back the
	 * last word gives what that "CRC" through the hook gives). */
	for (uint32_t m = 0; m < 4; m++) {
		uint32_t mode = m & 1;
		ng_pipeline_config hc = { .mode = mode, .health = NG_DEFAULT_LIMITS,
					  .crc_dr = m >= 2 ? &last_dr : NULL };
		memcpy(hc.uid, UID, sizeof UID);
		ng_crc32_reset(&hw);
		for (int i = 0; i < 3; i++)
			ng_crc32_word(&hw, UID[i]);
		hw4_calls = 0;
		ng_pipeline_init(&pipe_, &hc);
		if (m < 2)
			ng_test_pipeline_crc(&pipe_, hw_word4, hw.reg);
		size_t o2 = 0, o3 = 0;
		for (size_t i = 0; i < ns; i += 13) {
			ng_pipeline_put_many(&pipe_, s + i, ns - i < 13 ? ns - i : 13);
			while (ng_pipeline_take(&pipe_, out + o2))
				o2 += 32;
		}
		const uint8_t *want = mode ? m1 : m0;
		size_t wn = mode ? n1 : n0;
		if (m < 2) {
			CHECK(o2 == wn && !memcmp(out, want, wn) && hw4_calls == ns / 4,
			      "mode %u through a CRC unit stand-in: the vector again, %lu calls", mode, hw4_calls);
			continue;
		}
		hc.crc_dr = NULL;
		ng_pipeline_init(&pipe_, &hc);
		ng_test_pipeline_crc(&pipe_, last_word4, UID[2]);
		uint8_t *out3 = malloc(wn + 64);
		for (size_t i = 0; i < ns; i += 64) {
			ng_pipeline_put_many(&pipe_, s + i, ns - i < 64 ? ns - i : 64);
			while (ng_pipeline_take(&pipe_, out3 + o3))
				o3 += 32;
		}
		CHECK(o2 > 0 && o3 == o2 && !memcmp(out, out3, o2) && last_dr == s[ns / 4 * 4 - 1],
		      "mode %u through cfg.crc_dr: 4 writes and 1 read per group (%zu bytes as the hook gives)",
		      mode, o2);
		free(out3);
	}

	/* The start-up hold: nothing before the 1024th sample, then all at once. */
	static const uint32_t held[3] = { 7, 32, 0 };
	for (uint32_t mode = 0; mode < 3; mode++) {
		ng_pipeline_config c = { .mode = mode, .health = NG_DEFAULT_LIMITS };
		ng_pipeline_init(&pipe_, &c);
		ng_pipeline_put_many(&pipe_, s, mode == 2 ? 16 : 1023);
		uint32_t r0 = ng_pipeline_ready(&pipe_);
		ng_pipeline_get_stats(&pipe_, &st);
		bool startup = st.status == NG_HEALTH_STARTUP;
		if (mode == 2)
			ng_pipeline_put_many(&pipe_, s + 16, 8);
		else
			ng_pipeline_put_many(&pipe_, s + 1023, 1);
		uint32_t r1 = ng_pipeline_ready(&pipe_);
		ng_pipeline_get_stats(&pipe_, &st);
		if (mode < 2)
			CHECK(startup && r0 == 0 && r1 == held[mode] && st.status == 0,
			      "mode %u: 0 blocks ready after 1023 samples, %u after the 1024th (start-up passed)", mode, held[mode]);
		else
			CHECK(startup && r0 == 2 && r1 == 3 && st.status == NG_HEALTH_STARTUP,
			      "raw mode: blocks flow during the start-up test (%u then %u)", r0, r1);
	}

	/* Mode switch: queued and partial output go, the CRC register runs on. */
	{
		ng_pipeline_config c = { .mode = NG_MODE_CONDITIONED, .health = NG_DEFAULT_LIMITS };
		memcpy(c.uid, UID, sizeof UID);
		ng_pipeline_init(&pipe_, &c);
		size_t a = 1024 + 140 * 3 + 10;     /* 10 into a block: 2 groups + 2 pending */
		ng_pipeline_put_many(&pipe_, s, a);
		uint32_t before = ng_pipeline_ready(&pipe_);
		ng_pipeline_set_mode(&pipe_, NG_MODE_CRC32);
		uint32_t after = ng_pipeline_ready(&pipe_);
		ng_pipeline_set_mode(&pipe_, 7);   /* ignored */
		ng_pipeline_put_many(&pipe_, s + a, 320);
		size_t o3 = 0;
		while (ng_pipeline_take(&pipe_, out + o3))
			o3 += 32;
		/* model: the CRC saw the uid, then every complete group fed before the
		 * switch (a - 2 samples), then the new samples */
		uint32_t reg = 0xFFFFFFFFu;
		for (int i = 0; i < 3; i++)
			reg = bit_word(reg, UID[i]);
		for (size_t i = 0; i < a - 2; i++)
			reg = bit_word(reg, s[i]);
		uint8_t exp[320];
		for (size_t g = 0; g < 80; g++) {
			for (int j = 0; j < 4; j++)
				reg = bit_word(reg, s[a + 4 * g + j]);
			for (int j = 0; j < 4; j++)
				exp[4 * g + j] = (uint8_t)(reg >> (8 * j));
		}
		CHECK(before == 10 && after == 0 && ng_pipeline_mode(&pipe_) == NG_MODE_CRC32 && o3 == 320 &&
		      !memcmp(out, exp, 320),
		      "mode 0 -> 1: the queue (%u blocks) and the partial block are discarded; the CRC runs on", before);
	}

	/* Switch to raw mode: raw blocks line up with the input (sample index a
	 * multiple of 8); the samples skipped to get there are still tested. */
	{
		ng_pipeline_config c = { .mode = NG_MODE_CONDITIONED, .health = NG_DEFAULT_LIMITS };
		memcpy(c.uid, UID, sizeof UID);
		ng_pipeline_init(&pipe_, &c);
		size_t a = 1024 + 140 + 13;          /* 1177: the next multiple of 8 is 1184 */
		ng_pipeline_put_many(&pipe_, s, a);
		ng_pipeline_set_mode(&pipe_, NG_MODE_RAW);
		size_t room = ng_pipeline_room(&pipe_);
		ng_pipeline_put_many(&pipe_, s + a, 7 + 64);
		size_t o4 = 0;
		while (ng_pipeline_take(&pipe_, out + o4))
			o4 += 32;
		ng_pipeline_get_stats(&pipe_, &st);
		CHECK(o4 == 256 && !memcmp(out, s + 1184, 256) && st.samples == a + 71 &&
		      room == 7 + 8 - 1 + NG_PIPELINE_QUEUE * 8,
		      "mode 0 -> 2: raw blocks start at sample 1184, a multiple of 8 (%zu bytes)", o4);
	}

	/* NeuG's CRC-level test fires: three CRC values 0x07070707 in a row are a
	 * run of 12 equal bytes (cutoff 9): that block is dropped, output goes on. */
	{
		ng_pipeline_config c = { .mode = NG_MODE_CRC32, .health = NG_DEFAULT_LIMITS };
		memcpy(c.uid, UID, sizeof UID);
		ng_pipeline_init(&pipe_, &c);
		ng_pipeline_put_many(&pipe_, s, 2048);
		uint32_t reg = pipe_.crc_reg, w[16];
		uint64_t x = 99;
		for (int g = 0; g < 4; g++) {
			for (int j = 0; j < 3; j++) {
				w[4 * g + j] = (uint32_t)ng_test_rand(&x);
				reg = bit_word(reg, w[4 * g + j]);
			}
			uint32_t target = g < 3 ? 0x07070707u : 0x12345678u;
			w[4 * g + 3] = f_inv(target) ^ reg;
			reg = bit_word(reg, w[4 * g + 3]);
		}
		while (ng_pipeline_take(&pipe_, out))
			;
		ng_pipeline_get_stats(&pipe_, &st);
		uint64_t d0 = st.blocks_dropped, o0 = st.blocks_out;
		ng_status r = ng_pipeline_put_many(&pipe_, w, 16);
		ng_status r2 = ng_pipeline_put_many(&pipe_, s + 2048, 16 + 32);
		size_t got = 0;
		while (ng_pipeline_take(&pipe_, out))
			got++;
		ng_pipeline_get_stats(&pipe_, &st);
		CHECK((r == NG_ERR_HEALTH || r2 == NG_ERR_HEALTH) && st.blocks_dropped == d0 + 1 && got == 1 &&
		      st.blocks_out == o0 + 1 && st.status == NG_HEALTH_NEUG && st.neug_err_rc >= 1 &&
		      st.neug_err >= 1 && st.neug_rc_max >= 9,
		      "NeuG RCT fires on crafted CRC output: block dropped, not persistent (rc errors %u, rc_max %u)",
		      st.neug_err_rc, st.neug_rc_max);
	}

	/* Configuration errors. */
	ng_pipeline_config badc = { .mode = 3, .health = NG_DEFAULT_LIMITS };
	ng_status e1 = ng_pipeline_init(&pipe_, &badc);
	badc.mode = 0;
	badc.health.h_milli = 99;
	ng_status e2 = ng_pipeline_init(&pipe_, &badc);
	badc.health.h_milli = NG_DEFAULT_H_MILLI;
	badc.adc_health = (ng_health_limits){ 99, 2, 2 };
	ng_status e3 = ng_pipeline_init(&pipe_, &badc);
	badc.adc_health = (ng_health_limits){ 32001, 2, 2 };
	ng_status e4 = ng_pipeline_init(&pipe_, &badc);
	badc.adc_health = (ng_health_limits){ NG_DEFAULT_ADC_H_MILLI, 1, NG_DEFAULT_ADC_APT_CUTOFF };
	ng_status e5 = ng_pipeline_init(&pipe_, &badc);
	badc.adc_health.rct_cutoff = NG_DEFAULT_ADC_RCT_CUTOFF;
	badc.adc_health.apt_cutoff = NG_APT_WINDOW + 1;
	ng_status e6 = ng_pipeline_init(&pipe_, &badc);
	badc.adc_health = (ng_health_limits){ 0, 0, 0 };
	CHECK(e1 == NG_ERR_ARG && e2 == NG_ERR_ARG && e3 == NG_ERR_ARG && e4 == NG_ERR_ARG && e5 == NG_ERR_ARG &&
	      e6 == NG_ERR_ARG && ng_pipeline_init(&pipe_, &badc) == NG_OK && ng_pipeline_init(NULL, &badc) == NG_ERR_ARG,
	      "ng_pipeline_init: bad mode, H, ADC H, or cutoffs -> NG_ERR_ARG");
	ng_pipeline_config hc = { .mode = 0 };
	CHECK(ng_pipeline_config_h(&hc, 99, 0) == NG_ERR_ARG && ng_pipeline_config_h(&hc, 3700, 32001) == NG_ERR_ARG &&
	      hc.health.h_milli == 0 && ng_pipeline_config_h(&hc, 3700, 1000) == NG_OK && hc.health.h_milli == 3700 &&
	      hc.health.rct_cutoff == 10 && hc.adc_health.h_milli == 1000 && hc.adc_health.rct_cutoff == 31,
	      "ng_pipeline_config_h: limits for H and ADC H, NG_ERR_ARG out of range");

	free(ref);
	free(out);
	free(adc);
	free(m0);
	free(m1);
	return ng_check_exit();
}
