/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Mode 0's fast path (core/src/pipeline.c, ng_pipe_m0_fast: whole groups
 * past the start-up test, the health state in locals) against the general
 * path: one pipeline is fed in pieces of random sizes (the fast path takes
 * every whole group it is given), the other a sample at a time (a piece of
 * one sample never takes it). Both must give the same blocks, the same
 * stats and the same health and NeuG test state, on streams built to hit
 * every branch: repeats of the predecessor, of the window's A, RCT and APT
 * firings, a persistent failure latched at each position in a group, and
 * NeuG's CRC-output tests firing, groups that straddle an APT window. The CRC is the software one, the four-word
 * function (the general path only), or a memory-mapped data register
 * (cfg.crc_dr). */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "ng/pipeline.h"

static const uint32_t UID[3] = { 0x12345678u, 0x9abcdef0u, 0x0fedcba9u };
static ng_pipeline A, B;

/* A stand-in for a CRC unit behind a data register: a read gives the last
 * word written. The four-word function below computes the same. */
static volatile uint32_t dr_a, dr_b;
static uint32_t last_word(void *user, uint32_t w) { (void)user; return w; }
static uint32_t last_of4(void *user, const uint32_t w[4]) { (void)user; return w[3]; }

enum { CRC_SOFT, CRC_FN4, CRC_DR, CRC_KINDS };

static void init_pair(uint32_t crc, uint32_t h_milli)
{
	ng_pipeline_config c = { .mode = NG_MODE_CONDITIONED, .h_milli = h_milli };
	memcpy(c.uid, UID, sizeof UID);
	if (crc == CRC_FN4) {
		c.crc = last_word;
		c.crc4 = last_of4;
	}
	if (crc == CRC_DR) {
		c.crc = last_word;
		c.crc_dr = &dr_a;
	}
	ng_pipeline_init(&A, &c);
	if (crc == CRC_DR)
		c.crc_dr = &dr_b;
	ng_pipeline_init(&B, &c);
}

/* Stream kinds. */
enum { S_RANDOM, S_REPEATS, S_RCT, S_APT, S_LATCH, S_NEUG, S_KINDS };
static const char *const kind_name[S_KINDS] = { "random", "repeats", "RCT firing", "APT firing",
						"latch", "NeuG test firing" };

/* rc: the RCT cutoff; latch_at: where S_LATCH's second run latches; g0: the
 * sample at which mode 0's groups start. */
static void make_stream(uint32_t *s, size_t n, int kind, uint64_t *x, uint32_t rc, size_t latch_at,
			size_t g0)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t r = (uint32_t)ng_test_rand(x);
		s[i] = r;
		if (kind == S_REPEATS && i > 0 && (r & 15u) == 0)
			s[i] = s[i - 1];                       /* a run grows */
		else if (kind == S_REPEATS && (r & 15u) == 1)
			s[i] = s[i - i % 512];                 /* the window's first sample */
	}
	if (kind == S_RCT) {                                   /* runs of rc + 2, far apart */
		for (size_t at = 3001; at + rc + 2 < n; at += 5003)
			for (size_t j = 1; j < rc + 2; j++)
				s[at + j] = s[at];
	}
	if (kind == S_APT) {                                   /* a value in every other sample */
		for (size_t at = 2048 + 512; at + 512 < n; at += 8192)
			for (size_t j = 2; j < 512; j += 2)
				s[at + j] = s[at];
	}
	if (kind == S_LATCH) {                                 /* two RCT firings close together */
		for (size_t j = 1; j < rc + 2; j++)
			s[latch_at - 100 + j] = s[latch_at - 100];
		for (size_t j = 1; j < rc; j++)
			s[latch_at - (rc - 1) + j] = s[latch_at - (rc - 1)];  /* the rc-th latches */
	}
	if (kind == S_NEUG) {   /* 3 groups whose last sample (the CRC value here) is 07070707 */
		for (size_t at = 3000 + g0; at + 12 < n; at += 5000)
			for (size_t j = 3; j < 12; j += 4)
				s[at + j] = 0x07070707u;
	}
}

static int same_state(void)
{
	ng_pipeline_stats sa, sb;
	ng_pipeline_get_stats(&A, &sa);
	ng_pipeline_get_stats(&B, &sb);
	return !memcmp(&sa, &sb, sizeof sa) && !memcmp(&A.health, &B.health, sizeof A.health) &&
	       !memcmp(&A.neug, &B.neug, sizeof A.neug) && A.crc_reg == B.crc_reg && A.grp == B.grp;
}

/* Feeds s[from, to) to A in random pieces of 1..piece samples (within its
 * room) and to B one sample at a time, taking the released blocks into
 * oa / ob at *na / *nb; returns the pieces after which the states differ. */
static int feed_pair(const uint32_t *s, size_t from, size_t to, size_t piece, uint64_t *x, uint8_t *oa,
		     size_t *na, uint8_t *ob, size_t *nb)
{
	int bad = 0;
	for (size_t i = from; i < to;) {
		size_t k = 1 + (size_t)(ng_test_rand(x) % piece);
		if (k > to - i)
			k = to - i;
		if (k > ng_pipeline_room(&A))
			k = ng_pipeline_room(&A);
		ng_pipeline_put_many(&A, s + i, k);
		for (size_t j = 0; j < k; j++)
			ng_pipeline_put(&B, s[i + j]);
		i += k;
		while (ng_pipeline_take(&A, oa + *na))
			*na += NG_BLOCK_BYTES;
		while (ng_pipeline_take(&B, ob + *nb))
			*nb += NG_BLOCK_BYTES;
		bad += !same_state();
	}
	return bad;
}

int main(void)
{
	const size_t n = 40000;
	uint32_t *s = malloc(n * sizeof *s);
	uint8_t *oa = malloc(n), *ob = malloc(n);
	uint64_t x = 20261203;
	const uint32_t hs[] = { NG_DEFAULT_H_MILLI, 2000 };  /* 140 and 256 samples per block */
	for (int kind = 0; kind < S_KINDS; kind++) {
		int bad = 0, runs = 0, fired = 0, latched = 0, hw = 0;
		uint64_t blocks = 0;
		for (uint32_t crc = 0; crc < CRC_KINDS; crc++) {
			for (size_t hi = 0; hi < sizeof hs / sizeof hs[0]; hi++) {
				for (size_t v = 0; v < (kind == S_LATCH ? 8u : 4u); v++) {
					size_t latch_at = 20000 + v + 4 * (v & 4u);  /* each offset in a group */
					init_pair(crc, hs[hi]);
					make_stream(s, n, kind, &x, A.health.rct_cutoff, latch_at, v % 4u);
					/* Blocks and groups restart at a mode switch, the APT
					 * windows do not: groups then straddle windows. */
					size_t na = 0, nb = 0, i = v % 4u;
					for (size_t j = 0; j < i; j++) {
						ng_pipeline_put(&A, s[j]);
						ng_pipeline_put(&B, s[j]);
					}
					ng_pipeline_set_mode(&A, NG_MODE_CONDITIONED);
					ng_pipeline_set_mode(&B, NG_MODE_CONDITIONED);
					bad += feed_pair(s, i, n, 300, &x, oa, &na, ob, &nb);
					ng_pipeline_stats st;
					ng_pipeline_get_stats(&A, &st);
					bad += na != nb || memcmp(oa, ob, na) != 0;
					fired += st.rct_failures + st.apt_failures + st.neug_err > 0;
					hw += crc != CRC_SOFT;
					latched += (st.status & NG_HEALTH_PERSISTENT) != 0;
					blocks += st.blocks_out;
					runs++;
				}
			}
		}
		CHECK(!bad, "mode 0 fast path == per-sample path on %s streams (%d runs, %llu blocks out)",
		      kind_name[kind], runs, (unsigned long long)blocks);
		if (kind == S_RCT || kind == S_APT)
			CHECK(fired == runs && !latched, "%s streams: a test fired in every run, none latched",
			      kind_name[kind]);
		if (kind == S_NEUG)   /* the fake CRCs pass the samples through, the real one does not */
			CHECK(fired == hw && !latched, "NeuG streams: NeuG's tests fired in the %d runs with a "
			      "pass-through CRC (%d), none latched", hw, fired);
		if (kind == S_LATCH)
			CHECK(latched == runs, "latch streams: a persistent failure in every run (%d of %d)",
			      latched, runs);
		if (kind == S_RANDOM)
			CHECK(fired == 0 && blocks > 0, "random streams: no test fired, blocks came out");
	}
	/* NeuG's 4096-byte window ending at every byte relative to the 64-byte
	 * one (the fast path runs the word that ends the 64-byte window in its
	 * kernel, and leaves the one that ends the 4096-byte window, or both, to
	 * the general path): after the start-up test both pipelines are put
	 * d bytes before the end of the 4096-byte window, d = 0..255. */
	int bad = 0, runs = 0;
	for (uint32_t crc = 0; crc < CRC_KINDS; crc += CRC_DR - CRC_SOFT) {
		for (uint32_t d = 0; d < 256; d++) {
			init_pair(crc, NG_DEFAULT_H_MILLI);
			make_stream(s, 2400, S_RANDOM, &x, A.health.rct_cutoff, 0, 0);
			ng_pipeline_put_many(&A, s, 1200);
			for (size_t j = 0; j < 1200; j++)
				ng_pipeline_put(&B, s[j]);
			A.neug.p4k_i = B.neug.p4k_i = 4095 - d;
			size_t na = 0, nb = 0;
			bad += feed_pair(s, 1200, 2400, 90, &x, oa, &na, ob, &nb);
			bad += na != nb || memcmp(oa, ob, na) != 0 || na == 0;
			runs++;
		}
	}
	CHECK(!bad, "mode 0 fast path == per-sample path with NeuG's 4096-byte window ending at each "
	      "of 256 bytes (%d runs)", runs);
	free(s);
	free(oa);
	free(ob);
	return ng_check_exit();
}
