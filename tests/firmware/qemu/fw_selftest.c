/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The core's self-tests on a Cortex-M3 (QEMU mps2-an385, semihosting):
 * ng_selftest() (SHA-256 and CRC known answers), the pipeline on the head of
 * adc.bin against out-adc-m0.bin and out-adc-m1.bin, and each raw-sample
 * health test's induced failure. Prints PASS/FAIL lines; the exit code is
 * the number of failures. Everything runs in 20 KiB of RAM like the STM32. */
#include <stdint.h>
#include <string.h>
#include "mps2.h"
#include "ng/crc32.h"
#include "ng/health.h"
#include "ng/pipeline.h"
#include "ng/selftest.h"
#include "ng/sha256.h"
#include "ng/wipe.h"
#include "health_impl.h"
#include "pipeline_run.h"

static const uint32_t ng_uid[3] = { 0x12345678u, 0x9abcdef0u, 0x0fedcba9u };
static ng_pipeline ng_pipe;

static void ng_init(uint32_t mode)
{
	ng_pipeline_config cfg = { .mode = mode, .h_milli = NG_DEFAULT_H_MILLI };
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
#define NG_WORK 2944u
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

/* The batch path of the raw-sample tests (ng_health_insert_many: on this
 * target the scalar scan) leaves the same state and fires the same bits as
 * one ng_health_insert per sample, on runs from small alphabets so that
 * both tests fire (the host's test_health does the same for its vector
 * path); and NeuG's word path equals four byte calls. */
static uint32_t ng_rng_state = 0x6e657567u;
static uint32_t ng_rng(void)
{
	uint32_t x = ng_rng_state;   /* xorshift32 */
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return ng_rng_state = x;
}

static void ng_test_batch(void)
{
	static ng_health_ctx a, b;
	uint32_t diff = 0, fires = 0, *buf = ng_work;
	for (uint32_t trial = 0; trial < 120; trial++) {
		uint32_t hm = 500 + ng_rng() % 7500;
		ng_health_init(&a, hm, 0, 0);
		ng_health_init(&b, hm, 0, 0);
		uint32_t alpha = 1 + ng_rng() % 40;
		for (uint32_t chunk = 0; chunk < 12; chunk++) {
			uint32_t n = ng_rng() % 700, run = 0, v = 0;
			for (uint32_t i = 0; i < n; i++) {
				if (!run) {
					v = (ng_rng() % alpha) * 0x01000193u;
					run = 1 + ng_rng() % (trial & 1 ? 3 : 14);
				}
				buf[i] = v;
				run--;
			}
			uint32_t fa = 0, fb = ng_health_insert_many(&b, buf, n);
			for (uint32_t i = 0; i < n; i++)
				fa |= ng_health_insert(&a, buf[i]);
			fires += fa != 0;
			diff += fa != fb || memcmp(&a, &b, sizeof a) != 0;
		}
	}
	ng_sh_printf("# batch vs per sample: %u chunks fired, %u differ\n", fires, diff);
	ng_sh_check(!diff && fires > 50, "ng_health_insert_many == ng_health_insert per sample (1440 chunks)");

	static ng_neug_tests_ctx na, nb;
	diff = 0;
	for (uint32_t trial = 0; trial < 60; trial++) {
		ng_neug_tests_init(&na);
		ng_neug_tests_init(&nb);
		uint32_t alpha = 1 + ng_rng() % 256;
		for (uint32_t i = 0; i < 1500; i++) {
			uint32_t v = 0;
			for (int k = 0; k < 4; k++)
				v |= (ng_rng() % alpha) << (8 * k);
			bool fa = ng_neug_tests_byte(&na, (uint8_t)v);
			fa |= ng_neug_tests_byte(&na, (uint8_t)(v >> 8));
			fa |= ng_neug_tests_byte(&na, (uint8_t)(v >> 16));
			fa |= ng_neug_tests_byte(&na, (uint8_t)(v >> 24));
			diff += fa != ng_neug_tests_word(&nb, v) || memcmp(&na, &nb, sizeof na) != 0;
		}
	}
	ng_sh_printf("# NeuG word vs bytes: %u of 90000 words differ\n", diff);
	ng_sh_check(!diff, "ng_neug_tests_word == four ng_neug_tests_byte (90000 words)");
}

/* ng_neug_word_end (core/src/health_impl.h: the fast path's word in which
 * NeuG's 64-byte window ends, plain against the state) leaves what four
 * ng_neug_tests_byte calls leave, from states after 60..63 bytes of small
 * alphabets (so that the new window's A repeats within the word and the
 * maxima are still small), on 20000 plain words. */
static void ng_test_word_end(void)
{
	ng_neug_tests_ctx ta, tb;
	uint32_t diff = 0, counted = 0;
	for (uint32_t trial = 0; trial < 20000; trial++) {
		uint32_t alpha = 2 + ng_rng() % 6, nb = 60 + ng_rng() % 4 + 64 * (ng_rng() % 3), v;
		ng_neug_tests_init(&ta);
		for (uint32_t i = 0; i < nb; i++)
			ng_neug_tests_byte(&ta, (uint8_t)(1 + ng_rng() % alpha));
		do {   /* a plain word (a few tries at most: 6 values beyond the alphabet) */
			v = 0;
			for (int k = 0; k < 4; k++)
				v |= (1 + ng_rng() % (alpha + 6)) << (8 * k);
		} while (!ng_neug_plain(v, (v << 8) | (ta.rc_a & 0xffu), ta.p64_a * 0x01010101u,
					ta.p4k_a * 0x01010101u));
		tb = ta;
		ng_neug_word_end(&ta, v);
		for (int k = 0; k < 4; k++)
			ng_neug_tests_byte(&tb, (uint8_t)(v >> (8 * k)));
		diff += memcmp(&ta, &tb, sizeof ta) != 0;
		counted += ta.p64_b != 0;
	}
	ng_sh_printf("# ng_neug_word_end: %u of 20000 differ (%u with the new A repeated)\n", diff, counted);
	ng_sh_check(!diff && counted > 500, "ng_neug_word_end == four ng_neug_tests_byte (20000 window ends)");
}

/* Mode 0's group kernel (core/src/pipeline_run.c): the Thumb-2 one equals
 * the portable C (the reference) on 6000 runs of 1..24 groups (a quarter of
 * them through the entry whose first group is taken as tested), from streams
 * that stop it at every position: random words; repeats of the predecessor
 * or of the window's A from a small alphabet (hits, which the kernel takes,
 * with cutoffs low enough and counts near enough to them that some fire: raw
 * stops); CRC values (here the data register, a RAM word, reads back the
 * last sample written) whose bytes repeat or equal a NeuG window's A (NeuG
 * stops); NeuG's 64-byte window ending after the n-th group with groups to
 * follow (which the kernel takes on, every 16 groups) or not, at each byte,
 * sometimes with a later byte equal to the new A (which it leaves to the
 * caller). Both must return the same, leave the same state and health
 * context, write the same message bytes (and none past them) and leave the
 * same word in the data register. */
static volatile uint32_t ng_dr_a, ng_dr_b;

static void ng_test_run_kernel(void)
{
	/* the samples, then the two messages, in ng_work (the RAM is 20 KiB) */
	uint32_t *s = ng_work, *msg_a = ng_work + 96, *msg_b = ng_work + 124, diff = 0, stops[3] = { 0, 0, 0 };
	uint32_t hits = 0, ends = 0, left = 0;
	static ng_health_ctx ha, hb;
	for (uint32_t trial = 0; trial < 6000; trial++) {
		uint32_t ng = 1 + ng_rng() % 24, kind = ng_rng() % 3, ab = ng_rng() & 0xffu;
		/* the groups to the first window end, and the groups the caller
		 * allows after it (within the ng of the stream) */
		uint32_t wsh = 8 * (ng_rng() % 4), first = 1 + ng_rng() % ng;
		uint32_t wrest = ng_rng() % 3 ? 1 + ng_rng() % (ng - first + 1) : 0;
		for (uint32_t i = 0; i < 4 * ng; i++) {
			uint32_t x = ng_rng();
			if (kind == 1 && ng_rng() % 40 == 0)
				x = ng_rng() % 3;                        /* repeats now and then */
			if (kind == 2 && i % 4 == 3 && ng_rng() % 8 == 0)
				x = (x & ~0xffu) | (ng_rng() % 2 ? ab : (x >> 8) & 0xffu); /* a byte = A or its neighbour */
			if (i % 4 == 3 && wsh < 16 && ng_rng() % 12 == 0)   /* a byte two after A equal to it */
				x = (x & ~(0xffu << (wsh + 16))) | ((x >> wsh) & 0xffu) << (wsh + 16);
			s[i] = x;
		}
		ng_health_init(&ha, 500 + ng_rng() % 7500, 2 + ng_rng() % 4, 0);
		ha.apt_b = ng_rng() % ha.apt_cutoff;
		ha.apt_cutoff = ha.apt_b + 1 + ng_rng() % 6;
		ha.rct_max = ng_rng() % 5;
		ha.apt_max = ha.apt_b + ng_rng() % 3;
		hb = ha;
		ng_m0_run ra = {
			.prev = ng_rng() % 7 ? ng_rng() : s[0], .a = ng_rng() % 7 ? ng_rng() % 3 : s[1],
			.dr = &ng_dr_a, .m = (uint8_t *)msg_a, .v = ng_rng(), .a64 = ab * 0x01010101u,
			.a4k = (ng_rng() & 0xffu) * 0x01010101u, .n = ng, .s = s, .reg = 0,
			.h = &ha, .rb_at = s + 4 * (ng_rng() % 3), .rb = 1 + ng_rng() % 3,
			.wrest = wrest, .wsh = wsh,
		}, rb = ra;
		if (wrest)
			ra.n = rb.n = first;
		rb.dr = &ng_dr_b;
		rb.m = (uint8_t *)msg_b;
		rb.h = &hb;
		for (uint32_t i = 0; i < 28; i++)
			msg_a[i] = msg_b[i] = 0xa5a5a5a5u;
		ng_dr_a = ng_dr_b = 0;
		bool tested = trial % 4 == 3;   /* the first group taken as tested */
		uint32_t sa = tested ? ng_m0_run_armv7m_tested(&ra) : ng_m0_run_armv7m(&ra),
			 sb = ng_m0_run_c(&rb, tested);
		diff += sa != sb || ra.prev != rb.prev || ra.a != rb.a || ra.v != rb.v || ra.n != rb.n ||
			ra.s != rb.s || ra.m - (uint8_t *)msg_a != rb.m - (uint8_t *)msg_b ||
			ra.a64 != rb.a64 || ra.a4k != rb.a4k || ra.dr != &ng_dr_a ||
			ra.rb_at != rb.rb_at || ra.rb != rb.rb || ra.h != &ha || ra.wrest != rb.wrest ||
			memcmp(&ha, &hb, sizeof ha) != 0 ||
			memcmp(msg_a, msg_b, 28 * 4) != 0 || ng_dr_a != ng_dr_b;
		hits += ra.rb_at > s + 4;
		ends += ra.a64 != ab * 0x01010101u;
		left += sa == NG_RUN_DONE && ra.wrest >= 2;
		stops[sa < 3 ? sa : 0]++;
	}
	ng_sh_printf("# group kernel: %u differ; stops: %u done, %u raw, %u NeuG; %u took hits, %u took a "
		     "window's end, %u left one\n",
		     diff, stops[0], stops[1], stops[2], hits, ends, left);
	ng_sh_check(!diff && stops[0] > 100 && stops[1] > 100 && stops[2] > 100 && hits > 100 && ends > 100 &&
			    left > 20,
		    "group kernel: Thumb-2 = portable C (6000 runs, every kind of stop, a quarter from a tested group)");
}

/* Mode 0's fast path on this target (the group kernel in Thumb-2, the data
 * register written directly) against the general path: one pipeline fed in
 * pieces of 1..300 samples, the other one sample at a time; both must
 * release the same blocks and end with the same stats, on samples mapped
 * from adc.bin (so that the register reads back CRC-like values) with runs,
 * repeats of the window's first sample and bytes that trip NeuG's tests. */
static uint32_t ng_last_word(void *user, uint32_t w)
{
	(void)user;
	return w;
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

static void ng_test_fast_path(void)
{
	static ng_pipeline pb;
	uint32_t *s = ng_work, n = sizeof ng_work / sizeof ng_work[0], diff = 0, blocks = 0, drops = 0;
	for (uint32_t trial = 0; trial < 6; trial++) {
		for (uint32_t i = 0; i < n; i++) {
			uint32_t x = ng_vec_adc[(i + 977 * trial) % ng_vec_adc_words] * 0x9E3779B1u;
			if (trial % 3 == 1 && i > 1100 && ng_rng() % 16 == 0)
				x = s[i - 1];                           /* runs */
			if (trial % 3 == 2 && i > 1100 && ng_rng() % 24 == 0)
				x = s[i - i % 512];                     /* the window's first sample */
			if (trial >= 3 && i % 4 == 3 && ng_rng() % 6 == 0)
				x = (x & 0xffffff00u) | ((x >> 8) & 0xffu); /* a byte like its neighbour */
			if (trial % 3 == 1 && i >= 1500 + 100 * trial && i < 1511 + 100 * trial)
				x = s[i - 1];                           /* a run that fires the RCT */
			if (trial >= 3 && i >= 2000 && i < 2040 && i % 4 == 3)
				x = 0x5a5a5a5au;                        /* CRC values that fire NeuG's RCT */
			s[i] = x;
		}
		ng_pipeline_config ca = { .mode = NG_MODE_CONDITIONED, .h_milli = NG_DEFAULT_H_MILLI,
					  .crc = ng_last_word, .crc_dr = &ng_dr_a },
				   cb = ca;
		cb.crc_dr = &ng_dr_b;
		memcpy(ca.uid, ng_uid, sizeof ca.uid);
		memcpy(cb.uid, ng_uid, sizeof cb.uid);
		ng_pipeline_init(&ng_pipe, &ca);
		ng_pipeline_init(&pb, &cb);
		uint32_t ha = 0x811c9dc5u, hb = ha, na = 0, nb = 0;
		for (uint32_t i = 0; i < n;) {
			uint32_t k = 1 + ng_rng() % 300;
			if (k > n - i)
				k = n - i;
			ng_pipeline_put_many(&ng_pipe, s + i, k);
			ha = ng_hash_blocks(&ng_pipe, ha, &na);
			for (uint32_t j = 0; j < k; j++) {
				ng_pipeline_put(&pb, s[i + j]);
				hb = ng_hash_blocks(&pb, hb, &nb);
			}
			i += k;
		}
		ng_pipeline_stats sa, sb;
		ng_pipeline_get_stats(&ng_pipe, &sa);
		ng_pipeline_get_stats(&pb, &sb);
		diff += ha != hb || na != nb || memcmp(&sa, &sb, sizeof sa) != 0;
		blocks += na;
		drops += (uint32_t)sa.blocks_dropped;
	}
	ng_sh_printf("# fast path vs general path: %u of 6 runs differ; %u blocks out, %u dropped\n", diff,
		     blocks, drops);
	ng_sh_check(!diff && blocks > 40 && drops > 0,
		    "mode 0 fast path (Thumb-2 group kernel) == general path, per-sample feed (6 runs)");
}

/* ng_sha256_compress (on this target the Thumb-2 assembly of
 * core/src/sha256_armv7m.c) equals the portable C for 0..4 blocks at every
 * source alignment, and leaves the bytes around h alone. */
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
	ng_crc32_ctx c;
	ng_crc32_reset(&c);
	ng_sh_check(ng_crc32_bytes(&c, (const uint8_t *)"123456789", 9) == 0x0376E6E7u,
		    "CRC-32/MPEG-2 check value 0x0376e6e7");
	ng_test_vectors();
	ng_test_health();
	ng_test_batch();
	ng_test_word_end();
	ng_test_run_kernel();
	ng_test_fast_path();
	ng_sh_printf("# %u failed\n", (uint32_t)ng_sh_failed());
	return ng_sh_failed();
}
