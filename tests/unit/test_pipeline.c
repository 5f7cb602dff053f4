/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The pipeline: NeuG 1.0.6 golden vectors byte for byte (modes 0, 1, 2),
 * NeuG's CRC-level counters, mode switches, and the extended mode 0 layout
 * (H < 3.66) against an independent re-computation with ng_sha256 and a
 * bit-at-a-time CRC. */
#include <string.h>
#include "check.h"
#include "ng/pipeline.h"
#include "ng/selftest.h"

static const uint32_t UID[3] = { 0x12345678u, 0x9abcdef0u, 0x0fedcba9u };

static uint8_t *slurp(const char *name, size_t *n)
{
	char path[512];
	snprintf(path, sizeof path, "%s/neug-1.0.6/%s", ng_vectors_dir(), name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("FAIL: cannot open %s\n", path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	rewind(f);
	uint8_t *b = malloc((size_t)len + 1);
	if (fread(b, 1, (size_t)len, f) != (size_t)len) {
		printf("FAIL: short read %s\n", path);
		exit(1);
	}
	fclose(f);
	*n = (size_t)len;
	return b;
}

static ng_pipeline pipe_;

/* Runs samples through a fresh pipeline in pieces of `piece` samples,
 * taking output after each; returns bytes written to out. */
static size_t run(uint32_t mode, uint32_t h_milli, const uint32_t *s, size_t n, size_t piece,
		  uint8_t *out, ng_pipeline_stats *st)
{
	ng_pipeline_config cfg = { .mode = mode, .h_milli = h_milli };
	memcpy(cfg.uid, UID, sizeof UID);
	if (ng_pipeline_init(&pipe_, &cfg) != NG_OK)
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

int main(void)
{
	size_t na, n0, n1;
	uint8_t *adc = slurp("adc.bin", &na), *m0 = slurp("out-adc-m0.bin", &n0), *m1 = slurp("out-adc-m1.bin", &n1);
	const uint32_t *s = (const uint32_t *)adc;   /* little-endian host */
	size_t ns = na / 4;
	uint8_t *out = malloc(na * 2 + 64);
	ng_pipeline_stats st;
	size_t pieces[] = { 1, 3, 8, 64, 1000, 28000 };

	CHECK(ng_selftest() == NG_OK, "ng_selftest() passes");

	/* A full queue: blocks beyond NG_PIPELINE_QUEUE are lost and counted;
	 * ng_pipeline_room says how much can be fed without that. */
	ng_pipeline_config rc = { .mode = NG_MODE_RAW, .h_milli = NG_DEFAULT_H_MILLI };
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

	free(ref);
	free(out);
	free(adc);
	free(m0);
	free(m1);
	return ng_check_exit();
}
