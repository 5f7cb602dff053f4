/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A start-up check of a noise source: the SP 800-90B 6.3.1 most-common-value
 * estimate of its min-entropy, on a board with little RAM.
 *
 * 6.3.1: with L samples and mode count c, p^ = c / L,
 *   p_u = min(1, p^ + 2.576 sqrt(p^ (1 - p^) / (L - 1))),  H = -log2(p_u).
 * Counting every value of a 12-bit ADC takes 4096 counters; a 20 KiB board
 * counts value mod NG_MCV_BINS instead (1 KiB of 16-bit counters). Values
 * that share a bin add up, so the largest bin count is at least the true
 * mode count: the estimate can only come out lower than 6.3.1's on the same
 * samples (conservative), never higher.
 *
 * No log2 on the board: H >= h_bits holds exactly when p_u <= 2^-h_bits,
 * which for an integer h_bits is an integer inequality in c and L
 * (ng_mcv_passes). ng_mcv_max_count gives the largest mode count that
 * passes, to compare against. Freestanding: no floating point. */
#ifndef NG_MCV_H
#define NG_MCV_H
#include <stdbool.h>
#include <stdint.h>

#define NG_MCV_BINS    512u  /* counters per source (value mod 512) */
#define NG_MCV_SAMPLES 4096u /* samples in the board's start-up estimate */

typedef struct {
	uint16_t count[NG_MCV_BINS];
	uint32_t n;      /* samples counted */
} ng_mcv;

void ng_mcv_reset(ng_mcv *m);
/* Counts one sample (any width; counted as value mod NG_MCV_BINS). */
static inline void ng_mcv_add(ng_mcv *m, uint32_t value)
{
	m->count[value % NG_MCV_BINS]++;
	m->n++;
}
/* The largest bin count (>= the mode count of the samples). */
uint32_t ng_mcv_mode(const ng_mcv *m);
/* True when a mode count c in n samples (2 <= n <= 8192) gives an MCV
 * estimate of at least h_bits bits (h_bits <= 8): p_u <= 2^-h_bits, exactly,
 * with 6.3.1's 2.576 as 2576/1000. */
bool ng_mcv_passes(uint32_t c, uint32_t n, uint32_t h_bits);
/* The largest mode count in n samples that passes (0 when none does). */
uint32_t ng_mcv_max_count(uint32_t n, uint32_t h_bits);

#endif
