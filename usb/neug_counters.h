/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The counter table: every figure a NeuG device reports, listed once.
 *
 * Each row names a field of ng_pipeline_stats (core/include/ng/pipeline.h),
 * which is also its JSON key; its GET_INFO index (usb/neug_device.h) and
 * width in bytes on the wire (little endian); who fills it; its kind; its
 * Prometheus metric, prefixed "neug_" (and suffixed "_total" for a counter;
 * "" would be the field's name), in Prometheus' style: no "neug" twice, the unit as a suffix (_bits,
 * _bytes), no "_count" (a histogram's suffix) and no "h" (hours to
 * promtool); and a label in words.
 *
 *   who:  P  the pipeline (ng_pipeline_get_stats)
 *         D  the device around it (usb/neug_fn.c: bytes handed to the host)
 *         A  the application (ng_neug_config.app_info: firmware or emulator)
 *   kind: C  a counter (only grows while the device runs)
 *         G  a gauge (a state, a maximum or a setting)
 *         E  an enumeration: a gauge labelled with each state's name, 1 for
 *            the present one (the names: host/daemons/metrics.c)
 *         M  a gauge in thousandths of its unit (exported as a number in
 *            the unit: millibits as bits)
 *
 * Every user expands the rows it needs with NG_COUNTERS(X): the GET_INFO
 * encoding (usb/neug_fn.c), its decoding in neug info and the device source
 * (host/base/counters.c, host/devtools/info.c, host/sources/device.c), neug generate --stats and
 * --summary (host/sources/gen.c), and the metrics file (host/daemons/metrics.c). Adding a
 * counter is one row here and one field in ng_pipeline_stats. */
#ifndef NG_NEUG_COUNTERS_H
#define NG_NEUG_COUNTERS_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "ng/pipeline.h"

/* X(field, GET_INFO index, width, who, kind, metric, label) */
#define NG_COUNTERS(X)                                                                              \
	X(mode, 0, 1, P, E, "output_mode", "output mode (0 conditioned, 1 crc32, 2 raw)")                  \
	X(neug_err, 1, 2, P, C, "crc_test_errors", "NeuG CRC-level test errors")                           \
	X(neug_err_rc, 2, 2, P, C, "crc_rct_errors", "NeuG repetition count errors")                       \
	X(neug_err_p64, 3, 2, P, C, "crc_apt64_errors", "NeuG proportion (64) errors")                     \
	X(neug_err_p4k, 4, 2, P, C, "crc_apt4096_errors", "NeuG proportion (4096) errors")                 \
	X(neug_rc_max, 5, 2, P, G, "crc_rct_max", "NeuG longest repetition")                               \
	X(neug_p64_max, 6, 2, P, G, "crc_apt64_max", "NeuG largest count in 64")                           \
	X(neug_p4k_max, 7, 2, P, G, "crc_apt4096_max", "NeuG largest count in 4096")                       \
	X(status, 16, 4, P, G, "status", "health status bits")                                             \
	X(rct_failures, 17, 4, P, C, "rct_failures", "repetition count failures")                          \
	X(apt_failures, 18, 4, P, C, "apt_failures", "adaptive proportion failures")                       \
	X(rct_max, 19, 4, P, G, "rct_max", "repetition count longest run")                                 \
	X(apt_max, 20, 4, P, G, "apt_max", "adaptive proportion largest count")                            \
	X(rct_cutoff, 21, 4, P, G, "rct_cutoff", "repetition count cutoff")                                \
	X(apt_cutoff, 22, 4, P, G, "apt_cutoff", "adaptive proportion cutoff")                             \
	X(h_milli, 23, 4, P, M, "min_entropy_bits", "declared min-entropy per sample (bits)")              \
	X(samples, 24, 8, P, C, "samples", "raw samples tested")                                           \
	X(blocks_out, 25, 8, P, C, "blocks_out", "32-byte blocks out")                                     \
	X(blocks_dropped, 26, 8, P, C, "blocks_dropped", "blocks dropped by a health test")                \
	X(fail_test, 27, 4, P, E, "failure_test", "latched failure: test (1 RCT, 2 APT)")                  \
	X(fail_index, 28, 8, P, G, "failure_sample_index", "latched failure: sample index")                \
	X(fail_count, 29, 4, P, G, "failure_test_statistic", "latched failure: the test's count")          \
	X(samples_per_block, 30, 4, P, G, "samples_per_block", "raw samples per conditioned block")        \
	X(apt_window, 31, 4, P, G, "apt_window", "adaptive proportion window")                             \
	X(bytes_sent, 32, 8, D, C, "sent_bytes", "bytes handed to the host")                               \
	X(source_errors, 33, 4, A, C, "source_errors", "noise-source errors (samples lost)")               \
	X(selftest, 34, 4, A, E, "selftest_result", "power-up self-test (0 passed)")                       \
	X(clock, 35, 4, A, E, "clock_source", "clock source (1 HSE, 2 HSI fallback, 3 PLL failed)")        \
	X(startup, 36, 4, A, G, "startup", "start-up estimate (0 passed; bits: ADC1, ADC2, no samples)")   \
	X(startup_mode1, 37, 4, A, G, "startup_mode1", "start-up estimate: ADC1's mode count")             \
	X(startup_mode2, 38, 4, A, G, "startup_mode2", "start-up estimate: ADC2's mode count")             \
	X(startup_n, 39, 4, A, G, "startup_n", "start-up estimate: samples per ADC")                       \
	X(adc_h_milli, 46, 4, P, M, "adc_min_entropy_bits", "declared min-entropy per ADC sample (bits)")  \
	X(adc_rct_cutoff, 47, 4, P, G, "adc_rct_cutoff", "per-ADC repetition count cutoff")                \
	X(adc_apt_cutoff, 48, 4, P, G, "adc_apt_cutoff", "per-ADC adaptive proportion cutoff")             \
	X(adc1_rct_failures, 49, 4, P, C, "adc1_rct_failures", "ADC1 repetition count failures")           \
	X(adc1_apt_failures, 50, 4, P, C, "adc1_apt_failures", "ADC1 adaptive proportion failures")        \
	X(adc1_rct_max, 51, 4, P, G, "adc1_rct_max", "ADC1 repetition count longest run")                  \
	X(adc1_apt_max, 52, 4, P, G, "adc1_apt_max", "ADC1 adaptive proportion largest count")             \
	X(adc2_rct_failures, 53, 4, P, C, "adc2_rct_failures", "ADC2 repetition count failures")           \
	X(adc2_apt_failures, 54, 4, P, C, "adc2_apt_failures", "ADC2 adaptive proportion failures")        \
	X(adc2_rct_max, 55, 4, P, G, "adc2_rct_max", "ADC2 repetition count longest run")                  \
	X(adc2_apt_max, 56, 4, P, G, "adc2_apt_max", "ADC2 adaptive proportion largest count")             \
	X(fail_stream, 57, 4, P, E, "failure_stream", "latched failure: stream (0 words, 1 ADC1, 2 ADC2)") \
	X(blocks_lost, 58, 8, P, C, "blocks_lost", "blocks lost to a full queue")                          

enum { NG_CTR_P, NG_CTR_D, NG_CTR_A };  /* who fills a row */
enum { NG_CTR_C, NG_CTR_G, NG_CTR_E, NG_CTR_M }; /* counter, gauge, enumeration, thousandths */

/* The highest GET_INFO index of a row. */
#define NG_COUNTERS_LAST_INFO 58u

/* A row's field, read or written through its offset and size. */
static inline uint64_t ng_counter_read(const ng_pipeline_stats *st, size_t off, size_t size)
{
	const unsigned char *p = (const unsigned char *)st + off;
	if (size == 2) {
		uint16_t v;
		memcpy(&v, p, 2);
		return v;
	}
	if (size == 4) {
		uint32_t v;
		memcpy(&v, p, 4);
		return v;
	}
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline void ng_counter_write(ng_pipeline_stats *st, size_t off, size_t size, uint64_t v)
{
	unsigned char *p = (unsigned char *)st + off;
	if (size == 2) {
		uint16_t w = (uint16_t)v;
		memcpy(p, &w, 2);
	} else if (size == 4) {
		uint32_t w = (uint32_t)v;
		memcpy(p, &w, 4);
	} else {
		memcpy(p, &v, 8);
	}
}

#define NG_COUNTER_SIZE(f) sizeof(((ng_pipeline_stats *)0)->f)

#endif
