/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Every health test of NeuG, in one place (core/src/health.c; the rules in
 * doc/health.md):
 *   - SP 800-90B 4.4.1 (repetition count) and 4.4.2 (adaptive proportion) on
 *     the raw samples, on each sample stream: the whole samples and, for
 *     dual-ADC words ((adc2 << 16) | adc1), each ADC's half-word;
 *   - the start-up test (the first NG_STARTUP_SAMPLES samples);
 *   - the repeated-failure rule that latches a persistent failure;
 *   - NeuG 1.0.x's tests on the bytes of the CRC output (GET_INFO 1..7). */
#ifndef NG_HEALTH_H
#define NG_HEALTH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ng/status.h"

/* Status bits (ng_health_ctx.status). Every bit but STARTUP is sticky until
 * ng_health_start; STARTUP clears only when the start-up test passes. Once
 * PERSISTENT is set no input clears any bit. */
#define NG_HEALTH_RCT        0x01u /* SP 800-90B 4.4.1 repetition count test fired */
#define NG_HEALTH_APT        0x02u /* SP 800-90B 4.4.2 adaptive proportion test fired */
#define NG_HEALTH_STARTUP    0x04u /* start-up test still running: nothing released yet */
#define NG_HEALTH_STARTUP_FAILED 0x08u /* the start-up test failed (always persistent) */
#define NG_HEALTH_NEUG       0x10u /* one of NeuG's CRC-level tests fired */
#define NG_HEALTH_ESTIMATE   0x20u /* a start-up min-entropy estimate was too low: refused */
#define NG_HEALTH_SELFTEST   0x40u /* a known-answer self-test failed: refused */
#define NG_HEALTH_PERSISTENT 0x80u /* latched: output stopped until re-initialisation */

#define NG_APT_WINDOW        512u  /* SP 800-90B 4.4.2: W for non-binary samples */
#define NG_STARTUP_SAMPLES   1024u /* SP 800-90B 4.3 (7): start-up test length */
/* Repeated failure: a raw-sample test firing less than this many samples
 * after the previous firing latches NG_HEALTH_PERSISTENT (doc/health.md). */
#define NG_HEALTH_REPEAT_SPAN 4096u

/* The sample streams the raw tests watch. */
#define NG_STREAM_WORD 0u  /* the whole sample */
#define NG_STREAM_ADC1 1u  /* bits 0..15 of a dual-ADC word: ADC1 */
#define NG_STREAM_ADC2 2u  /* bits 16..31: ADC2 */
#define NG_STREAMS     3u

/* Cutoffs for alpha = 2^-30 and declared min-entropy h_milli/1000 bits per sample.
 *   RCT: C = 1 + ceil(30 / H)                               (SP 800-90B 4.4.1)
 *   APT: C = 1 + CRITBINOM(W, 2^-H, 1 - 2^-30)              (SP 800-90B 4.4.2)
 * h_milli in [100, 32000], window in [2, 65536]; else NG_ERR_ARG. */
ng_status ng_health_cutoffs(uint32_t h_milli, uint32_t window,
			    uint32_t *rct_cutoff, uint32_t *apt_cutoff);

/* One stream's SP 800-90B tests. */
typedef struct {
	uint32_t h_milli, rct_cutoff, apt_cutoff;  /* declared H and its cutoffs */
	uint32_t rct_b, apt_b;          /* B of 4.4.1 and of 4.4.2 (A: ng_health_ctx) */
	uint32_t rct_max, apt_max;      /* largest B seen (monotone) */
	uint32_t rct_lim, apt_lim;      /* min(max + 1, C): the least B to note */
	uint32_t rct_failures, apt_failures; /* firings (see doc/health.md) */
	const uint32_t *run_end;        /* in ng_health_test: just past the last sample equal to A of 4.4.1 */
} ng_health_stream;

/* NeuG 1.0.x's tests on the bytes of the CRC output (doc/health.md):
 * repetition count (cutoff 9), adaptive proportion on 64 (cutoff 18) and on
 * 4096 bytes (cutoff 315), for a declared 4.2 bits per byte. */
#define NG_NEUG_RCT_CUTOFF  9u
#define NG_NEUG_APT64_CUTOFF 18u
#define NG_NEUG_APT4K_CUTOFF 315u

typedef struct {
	uint32_t rc_a, rc_b;
	uint32_t p64_a, p64_b, p64_i;
	uint32_t p4k_a, p4k_b, p4k_i;
	uint16_t err, err_rc, err_p64, err_p4k;   /* GET_INFO 1..4 (saturating) */
	uint16_t rc_max, p64_max, p4k_max;        /* GET_INFO 5..7 */
} ng_neug_tests_ctx;

/* All the health-test state of one noise source. Read the fields; change
 * them only through the functions below. */
typedef struct {
	ng_health_stream st[NG_STREAMS];
	uint32_t nstreams;      /* 1: whole samples; 3: also each ADC's half-word */
	uint32_t prev;          /* the previous sample: its lanes are each stream's A of 4.4.1 */
	uint32_t apt_a;         /* the APT window's first sample: its lanes are A of 4.4.2 */
	uint32_t apt_i;         /* the next sample's position in the APT window (all streams) */
	uint32_t status;        /* NG_HEALTH_* bits */
	uint64_t samples;       /* samples tested */
	uint64_t last_fail;     /* index of the last firing + 1; 0 = none */
	/* the firing that latched PERSISTENT: */
	uint32_t fail_test;     /* NG_HEALTH_RCT or NG_HEALTH_APT */
	uint32_t fail_stream;   /* NG_STREAM_* */
	uint32_t fail_count;    /* the test's B at that sample */
	uint64_t fail_index;    /* 0-based index of that sample */
	ng_neug_tests_ctx neug; /* NeuG's CRC-level tests */
} ng_health_ctx;

/* One stream's declared min-entropy (h_milli/1000 bits per sample) and its
 * cutoffs, as ng_health_limits_for computes them. The firmware passes the
 * board profile's as constants (NG_DEFAULT_LIMITS, ng/pipeline.h), so that
 * it carries no floating-point code. */
typedef struct {
	uint32_t h_milli, rct_cutoff, apt_cutoff;
} ng_health_limits;

/* h_milli and its cutoffs (ng_health_cutoffs with W = NG_APT_WINDOW) into
 * *l; NG_ERR_ARG (l untouched) when h_milli is out of range. */
ng_status ng_health_limits_for(ng_health_limits *l, uint32_t h_milli);

/* Starts every test afresh, with the start-up test. word: the limits of a
 * whole sample; adc: of each ADC's half-word of a dual-ADC word, NULL when
 * the samples are not such words (one stream). NG_ERR_ARG for limits that
 * no H in range gives (an H outside [100, 32000], an RCT cutoff below 2, an
 * APT cutoff below 2 or above NG_APT_WINDOW). */
ng_status ng_health_start(ng_health_ctx *h, const ng_health_limits *word, const ng_health_limits *adc);

/* The raw-sample tests on s[0..n), in order: returns n when no test fired,
 * else the index i of the first sample at which one did (samples 0..i are
 * tested, the rest not) with the NG_HEALTH_RCT / NG_HEALTH_APT bits of what
 * fired at it in *fired. Counts, latches and ends the start-up test as it
 * goes. */
size_t ng_health_test(ng_health_ctx *h, const uint32_t *s, size_t n, uint32_t *fired);

/* NeuG's tests on one byte, or on the four bytes of each of v[0..n) in
 * order (low byte first). True when a test fired. */
void ng_neug_tests_init(ng_neug_tests_ctx *t);
bool ng_neug_tests_byte(ng_neug_tests_ctx *t, uint8_t b);
bool ng_neug_tests_words(ng_neug_tests_ctx *t, const uint32_t *v, size_t n);

/* "repetition count test", "adaptive proportion test", ... for one NG_HEALTH_* bit;
 * "samples", "ADC1", "ADC2" for one NG_STREAM_*. */
const char *ng_health_name(uint32_t bit);
const char *ng_health_stream_name(uint32_t stream);

#endif
