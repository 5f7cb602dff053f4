/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Health tests on the raw noise samples (SP 800-90B section 4.4) and NeuG
 * 1.0.x's own tests on the CRC output. */
#ifndef NG_HEALTH_H
#define NG_HEALTH_H
#include <stdbool.h>
#include <stdint.h>
#include "ng/status.h"

/* Status bits (ng_pipeline_stats.status). Once PERSISTENT is set, no input
 * clears any bit: only ng_pipeline_init does. */
#define NG_HEALTH_RCT        0x01u /* SP 800-90B 4.4.1 repetition count test fired */
#define NG_HEALTH_APT        0x02u /* SP 800-90B 4.4.2 adaptive proportion test fired */
#define NG_HEALTH_STARTUP    0x04u /* start-up test still running: nothing released yet */
#define NG_HEALTH_STARTUP_FAILED 0x08u /* the start-up test failed (always persistent) */
#define NG_HEALTH_NEUG       0x10u /* one of NeuG's CRC-level tests fired */
#define NG_HEALTH_PERSISTENT 0x80u /* latched: output stopped until re-initialisation */

#define NG_APT_WINDOW        512u  /* SP 800-90B 4.4.2: W for non-binary samples */
#define NG_STARTUP_SAMPLES   1024u /* SP 800-90B 4.3 (7): start-up test length */

/* Cutoffs for alpha = 2^-30 and declared min-entropy h_milli/1000 bits per sample.
 *   RCT: C = 1 + ceil(30 / H)                               (SP 800-90B 4.4.1)
 *   APT: C = 1 + CRITBINOM(W, 2^-H, 1 - 2^-30)              (SP 800-90B 4.4.2)
 * Returns NG_ERR_ARG when h_milli or window is out of range. */
ng_status ng_health_cutoffs(uint32_t h_milli, uint32_t window,
			    uint32_t *rct_cutoff, uint32_t *apt_cutoff);

#endif
