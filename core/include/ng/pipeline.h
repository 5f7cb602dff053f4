/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The NeuG noise pipeline: raw samples in, health-tested 32-byte blocks out.
 * Bit-exact with NeuG 1.0.x for H >= 3.66 bits/sample (140 samples per
 * conditioned block); see tests/data/neug-1.0.6/README.md. */
#ifndef NG_PIPELINE_H
#define NG_PIPELINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ng/health.h"
#include "ng/sha256.h"
#include "ng/status.h"

#define NG_MODE_CONDITIONED 0u /* SHA-256 Hash_df (line coding parity none) */
#define NG_MODE_CRC32       1u /* CRC32-filtered (parity odd) */
#define NG_MODE_RAW         2u /* raw samples (parity even): never blocks */

#define NG_BLOCK_BYTES      32u
#define NG_NEUG_SAMPLES     140u  /* samples per conditioned block at H >= 3.66 */
#define NG_DEFAULT_H_MILLI  3700u /* NeuG board profile and file source */
#define NG_MIN_H_MILLI      100u  /* 0.1 bit per sample */
#define NG_MAX_H_MILLI      32000u

#define NG_DEFAULT_ADC_H_MILLI 1000u /* each ADC's half-word of a dual-ADC word */
/* Their cutoffs (ng_health_limits_for; tests/unit/test_health.c checks
 * them): the firmware's health tests use these constants. */
#define NG_DEFAULT_RCT_CUTOFF     10u  /* 1 + ceil(30 / 3.7) */
#define NG_DEFAULT_APT_CUTOFF     81u  /* 1 + CRITBINOM(512, 2^-3.7, 1 - 2^-30) */
#define NG_DEFAULT_ADC_RCT_CUTOFF 31u  /* 1 + ceil(30 / 1) */
#define NG_DEFAULT_ADC_APT_CUTOFF 325u /* 1 + CRITBINOM(512, 2^-1, 1 - 2^-30) */
#define NG_DEFAULT_LIMITS { NG_DEFAULT_H_MILLI, NG_DEFAULT_RCT_CUTOFF, NG_DEFAULT_APT_CUTOFF }
#define NG_DEFAULT_ADC_LIMITS { NG_DEFAULT_ADC_H_MILLI, NG_DEFAULT_ADC_RCT_CUTOFF, NG_DEFAULT_ADC_APT_CUTOFF }

typedef struct {
	uint32_t mode;        /* NG_MODE_* */
	uint32_t uid[3];      /* unique device ID words, fed into the CRC after reset */
	ng_health_limits health; /* declared min-entropy per raw sample, in 1/1000
			       * bit, and its cutoffs (ng_health_limits_for, or
			       * NG_DEFAULT_LIMITS; ng_pipeline_config_h) */
	ng_health_limits adc_health; /* each ADC's half-word's when the samples are
			       * dual-ADC words ((adc2 << 16) | adc1); h_milli 0:
			       * they are not (one sample stream) */
	volatile uint32_t *crc_dr; /* NULL: the software CRC of crc32.h. Else the
			       * STM32 CRC unit's data register (a write shifts a
			       * word in, a read gives the register), reset by the
			       * caller; ng_pipeline_init feeds it the uid words. */
} ng_pipeline_config;

/* Everything a host tool or GET_INFO reports (the counter table,
 * usb/neug_counters.h, lists each field once). The raw-sample figures without a prefix are the whole
 * samples' stream; adc1_ and adc2_ are each ADC's half-word stream (zero
 * when the samples are not dual-ADC words). */
typedef struct {
	uint64_t samples;         /* raw samples tested */
	uint64_t blocks_out;      /* 32-byte blocks taken with ng_pipeline_take */
	uint64_t blocks_dropped;  /* blocks discarded because a test fired (with the
				   * queued ones discarded when a failure latched) */
	uint64_t blocks_lost;     /* completed blocks discarded because the queue was full */
	uint32_t h_milli, samples_per_block, rct_cutoff, apt_cutoff, apt_window;
	uint32_t rct_failures, apt_failures;  /* raw-sample test firings */
	uint32_t rct_max, apt_max;            /* largest run / window count seen */
	uint32_t adc_h_milli, adc_rct_cutoff, adc_apt_cutoff;
	uint32_t adc1_rct_failures, adc1_apt_failures, adc1_rct_max, adc1_apt_max;
	uint32_t adc2_rct_failures, adc2_apt_failures, adc2_rct_max, adc2_apt_max;
	uint32_t status;          /* NG_HEALTH_* bits */
	/* The persistent failure, when status has NG_HEALTH_PERSISTENT: */
	uint32_t fail_test;       /* NG_HEALTH_RCT or NG_HEALTH_APT */
	uint32_t fail_stream;     /* NG_STREAM_* */
	uint64_t fail_index;      /* 0-based index of the sample at which it latched */
	uint32_t fail_count;      /* the test's count at that sample */
	/* NeuG 1.0.x's CRC-level tests, as its GET_INFO reports them (indices 1..7) */
	uint16_t neug_err, neug_err_rc, neug_err_p64, neug_err_p4k;
	uint16_t neug_rc_max, neug_p64_max, neug_p4k_max;
	uint32_t mode;            /* NG_MODE_* */
	uint32_t ready;           /* blocks waiting for ng_pipeline_take */
	/* Filled by the device around the pipeline (0 where there is none): */
	uint64_t bytes_sent;      /* bytes handed to the host */
	uint32_t source_errors;   /* noise-source errors (samples lost) */
	uint32_t selftest;        /* 0: the known-answer self-tests passed; else failed */
	uint32_t clock;           /* firmware's clock source (usb/neug_counters.h) */
	uint32_t startup;         /* the board's start-up estimate: 0 passed, else refused */
	uint32_t startup_mode1, startup_mode2; /* its MCV mode count per ADC */
	uint32_t startup_n;       /* its samples per ADC */
} ng_pipeline_stats;

/* Do not rely on the size or contents of this type; the caller owns it. */
typedef struct ng_pipeline ng_pipeline;
#include "ng/pipeline_impl.h"

/* Resets everything (CRC, health state, counters, start-up test).
 * NG_ERR_ARG for a bad mode or limits (ng_health_start). */
ng_status ng_pipeline_init(ng_pipeline *p, const ng_pipeline_config *cfg);
/* cfg's health and adc_health for h_milli and adc_h_milli (0: one sample
 * stream) with ng_health_limits_for; NG_ERR_ARG (cfg untouched) when either
 * is out of range. */
ng_status ng_pipeline_config_h(ng_pipeline_config *cfg, uint32_t h_milli, uint32_t adc_h_milli);
/* Samples per conditioned (mode 0) block for a declared min-entropy:
 * max(140, ceil(512000 / h_milli)) rounded up to a multiple of 4
 * (doc/pipeline.md); 0 when h_milli is out of range. */
uint32_t ng_pipeline_block_samples(uint32_t h_milli);
/* Feeds raw samples, in order. Returns NG_OK, NG_ERR_HEALTH (a block was
 * dropped) or NG_ERR_PERSISTENT (latched; further samples are only counted).
 * Completed blocks are queued for ng_pipeline_take; a block completed while
 * NG_PIPELINE_QUEUE blocks wait is discarded (stats.blocks_lost), so feed at
 * most (NG_PIPELINE_QUEUE - ready) blocks' worth of samples between takes. */
ng_status ng_pipeline_put(ng_pipeline *p, uint32_t sample);
ng_status ng_pipeline_put_many(ng_pipeline *p, const uint32_t *s, size_t n);
/* Pops one released 32-byte block; false when none is ready. */
bool ng_pipeline_take(ng_pipeline *p, uint8_t out[NG_BLOCK_BYTES]);
/* Number of blocks ready to take. */
uint32_t ng_pipeline_ready(const ng_pipeline *p);
/* How many samples can be fed now without a completed block being lost to a
 * full queue (SIZE_MAX once output has stopped for good). */
size_t ng_pipeline_room(const ng_pipeline *p);
/* Switches mode: discards queued and partial output; the CRC register, the
 * mode 0 chaining value and the health tests run on. Ignores a bad mode. */
void ng_pipeline_set_mode(ng_pipeline *p, uint32_t mode);
uint32_t ng_pipeline_mode(const ng_pipeline *p);
/* Raw samples per 32-byte block in the current mode: the conditioned
 * block's (ng_pipeline_block_samples), 32 in CRC32 mode, 8 in raw mode. */
uint32_t ng_pipeline_samples_per_block(const ng_pipeline *p);
/* Fills the pipeline's fields of st (the device's own are left 0). */
void ng_pipeline_get_stats(const ng_pipeline *p, ng_pipeline_stats *st);
/* Copies NeuG's CRC-level counters (GET_INFO 1..7) into st. */
void ng_neug_tests_stats(const ng_neug_tests_ctx *t, ng_pipeline_stats *st);
/* The health tests' state (read only). */
const ng_health_ctx *ng_pipeline_health(const ng_pipeline *p);

#endif
