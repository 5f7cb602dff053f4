/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internal to core/src: mode 0's group kernel (pipeline_run.c), the inner
 * loop of pipeline.c's fast path. It runs a stretch of groups of 4 samples
 * in which no test fires and no window of the raw-sample tests starts,
 * doing per group what the per-sample path does:
 *
 *   - the raw-sample tests: in a quiet group (the common case) no sample
 *     equals its predecessor (RCT) or the APT window's A, and the tests
 *     only move on (the caller guarantees that no APT window starts in
 *     these groups). A group with such hits goes through them as
 *     ng_health_step would: the RCT's B (rb, valid at the sample rb_at; 1
 *     elsewhere, as every quiet sample leaves it), the APT's B and the two
 *     maxima in the health context h. If either test would fire in the
 *     group, it stops before the group, touching nothing of it (a caller
 *     that has then tested the group itself runs the kernel on from it
 *     with `tested`);
 *   - the CRC: the 4 samples into the CRC unit's data register (or the
 *     software CRC), the CRC value read back;
 *   - the message: the CRC value stored at m, little endian;
 *   - NeuG's tests: no byte of the CRC value equals the byte before it or
 *     either window's A (ng_neug_plain); else it stops after the group, whose
 *     CRC value (at m - 4) the caller then takes through NeuG's word path.
 *     The caller bounds a run so that a 64-byte window can end only in its
 *     last word (and the 4096-byte one in none). With wrest >= 2, that last
 *     word ends the window and wrest - 1 more groups may follow: the kernel
 *     then takes the window's end itself when ng_neug_word_end would leave
 *     B = 0 (the new A, byte wsh / 8 of the value, equals no byte after
 *     it): a64 becomes the new A and it runs on, 16 groups to each next
 *     window end, as far as the caller allowed. Otherwise (wrest < 2, or a
 *     byte after the new A equals it) it returns NG_RUN_DONE with wrest
 *     left as it was, and the caller takes that last word itself.
 *
 * The caller keeps the health and NeuG contexts and brings them up to date
 * from what the kernel did (pipeline.c, ng_pipe_m0_fast_impl). */
#ifndef NG_PIPELINE_RUN_H
#define NG_PIPELINE_RUN_H
#include <stdbool.h>
#include <stdint.h>
#include "ng/health.h"

/* The field order is the assembly's: one ldm/stm of r4..r12 moves the first
 * nine (32-bit pointers), so do not reorder them. */
typedef struct {
	uint32_t prev;            /* raw: the last sample (the RCT's A) */
	uint32_t a;               /* raw: the APT window's A */
	volatile uint32_t *dr;    /* the CRC unit's data register; NULL: the
				   * software CRC in reg (the C kernel only) */
	uint8_t *m;               /* where the next CRC value goes (4-aligned) */
	uint32_t v;               /* NeuG: the last CRC value that passed; its
				   * top byte is the byte before the next value's */
	uint32_t a64, a4k;        /* NeuG: each window's A in every byte */
	uint32_t n;               /* groups still to do; at least 1 on entry */
	const uint32_t *s;        /* the next group's 4 samples */
	uint32_t reg;             /* the software CRC register (dr == NULL) */
	ng_health_ctx *h;         /* raw: cutoffs; apt_b, rct_max and apt_max
				   * are updated (its rct_a, rct_b, apt_i and
				   * samples are the caller's to bring up to date) */
	const uint32_t *rb_at;    /* raw: the RCT's B is rb before this sample */
	uint32_t rb;
	uint32_t wrest;           /* NeuG: 0, or the n-th group ends the 64-byte
				   * window and wrest - 1 groups may follow */
	uint32_t wsh;             /* NeuG: 8 x the window's end byte in that value */
} ng_m0_run;

#define NG_RUN_DONE 0u  /* n groups done */
#define NG_RUN_RAW  1u  /* stopped before the group at s: a raw-sample test
			 * would fire in it */
#define NG_RUN_NEUG 2u  /* stopped after a group whose CRC value (m - 4) is not plain */

/* The portable kernel: the reference, and the one hosts use. With
 * `tested`, the first group's samples have been through the raw-sample
 * tests already (the caller's slow path) and are not checked again. */
uint32_t ng_m0_run_c(ng_m0_run *r, bool tested);

/* The Thumb-2 kernel (data register only), ARMv7-M: the same, with the
 * first group checked (ng_m0_run_armv7m) or not (..._tested). */
#if defined(__ARM_ARCH_7M__) && defined(__thumb2__) && (defined(__GNUC__) || defined(__clang__))
#define NG_M0_RUN_HAVE_ARMV7M 1
uint32_t ng_m0_run_armv7m(ng_m0_run *r);
uint32_t ng_m0_run_armv7m_tested(ng_m0_run *r);
#else
#define NG_M0_RUN_HAVE_ARMV7M 0
#endif

#endif
