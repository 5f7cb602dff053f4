/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Health tests on the raw noise samples (SP 800-90B section 4.4) and NeuG
 * 1.0.x's own tests on the CRC output. The rules are in doc/health.md. */
#ifndef NG_HEALTH_H
#define NG_HEALTH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ng/status.h"

/* Status bits (ng_pipeline_stats.status). Every bit but STARTUP is sticky
 * until ng_pipeline_init / ng_health_init; STARTUP clears only when the
 * start-up test passes. Once PERSISTENT is set no input clears any bit. */
#define NG_HEALTH_RCT        0x01u /* SP 800-90B 4.4.1 repetition count test fired */
#define NG_HEALTH_APT        0x02u /* SP 800-90B 4.4.2 adaptive proportion test fired */
#define NG_HEALTH_STARTUP    0x04u /* start-up test still running: nothing released yet */
#define NG_HEALTH_STARTUP_FAILED 0x08u /* the start-up test failed (always persistent) */
#define NG_HEALTH_NEUG       0x10u /* one of NeuG's CRC-level tests fired */
#define NG_HEALTH_PERSISTENT 0x80u /* latched: output stopped until re-initialisation */

#define NG_APT_WINDOW        512u  /* SP 800-90B 4.4.2: W for non-binary samples */
#define NG_STARTUP_SAMPLES   1024u /* SP 800-90B 4.3 (7): start-up test length */
/* Repeated failure: a raw-sample test firing less than this many samples
 * after the previous firing latches NG_HEALTH_PERSISTENT (doc/health.md). */
#define NG_HEALTH_REPEAT_SPAN 4096u

/* Cutoffs for alpha = 2^-30 and declared min-entropy h_milli/1000 bits per sample.
 *   RCT: C = 1 + ceil(30 / H)                               (SP 800-90B 4.4.1)
 *   APT: C = 1 + CRITBINOM(W, 2^-H, 1 - 2^-30)              (SP 800-90B 4.4.2)
 * h_milli in [100, 32000], window in [2, 65536]; else NG_ERR_ARG. Either
 * output pointer may be NULL. */
ng_status ng_health_cutoffs(uint32_t h_milli, uint32_t window,
			    uint32_t *rct_cutoff, uint32_t *apt_cutoff);

/* The raw-sample tests with start-up and the repeated-failure rule.
 * Do not rely on the layout; read it through the fields documented here. */
typedef struct {
	uint32_t rct_cutoff, apt_cutoff, apt_window;
	uint32_t rct_a, rct_b;          /* 4.4.1: A and B */
	uint32_t apt_a, apt_b, apt_i;   /* 4.4.2: A, B, and samples seen in this window */
	uint32_t rct_max, apt_max;      /* largest B seen (monotone) */
	uint32_t rct_failures, apt_failures; /* firings (see doc/health.md) */
	uint32_t status;                /* NG_HEALTH_* bits */
	uint64_t samples;               /* samples tested */
	uint64_t last_fail;             /* index of the last firing + 1; 0 = none */
	uint32_t fail_test, fail_count; /* the firing that latched PERSISTENT */
	uint64_t fail_index;
} ng_health_ctx;

/* Starts the tests (and the start-up test) afresh. A cutoff of 0 is derived
 * from h_milli; explicit cutoffs must be >= 2. NG_ERR_ARG when out of range. */
ng_status ng_health_init(ng_health_ctx *h, uint32_t h_milli, uint32_t rct_cutoff,
			 uint32_t apt_cutoff);
/* Tests one sample. Returns the NG_HEALTH_RCT / NG_HEALTH_APT bits of the tests
 * whose count is at or above the cutoff after this sample (0 = healthy). */
uint32_t ng_health_insert(ng_health_ctx *h, uint32_t sample);
/* Tests n samples, in order; the same state as n calls of ng_health_insert.
 * Returns the OR of what those calls would return. */
uint32_t ng_health_insert_many(ng_health_ctx *h, const uint32_t *s, size_t n);

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

void ng_neug_tests_init(ng_neug_tests_ctx *t);
/* Tests the bytes of the CRC value v (low byte first). Returns true when a
 * test fired. */
bool ng_neug_tests_word(ng_neug_tests_ctx *t, uint32_t v);
/* Tests one byte. Returns true when a test fired. */
bool ng_neug_tests_byte(ng_neug_tests_ctx *t, uint8_t b);

#endif
