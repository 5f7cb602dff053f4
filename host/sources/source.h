/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Raw noise sources on the host: each yields 32-bit raw samples, the same
 * words the device's raw mode carries. A source only delivers samples; the
 * health tests and conditioning are the pipeline's (ng/pipeline.h). */
#ifndef NG_SOURCE_H
#define NG_SOURCE_H
#include <stddef.h>
#include <stdint.h>

/* The jitter source's declared min-entropy per sample (bits x 1000), and the
 * factor by which its start-up estimate must exceed the declared figure.
 * See doc/jitter.md for why these numbers. */
#define NG_JITTER_H_MILLI        500u
#define NG_JITTER_MARGIN         2u
#define NG_JITTER_ASSESS_SAMPLES 50000u

typedef struct ng_source ng_source;
struct ng_source {
	const char *kind;      /* "jitter", "file" */
	char desc[320];        /* for messages: "file 'x.bin'", "jitter (rdtsc)" */
	uint32_t h_milli;      /* this source's declared min-entropy per sample */
	uint32_t adc_h_milli;  /* per ADC half-word when the samples are dual-ADC
				* words (file, device); 0 when they are not (jitter) */
	/* Start-up self-assessment (jitter): SP 800-90B 6.3.1 most-common-value
	 * estimate over assess_samples samples, bits x 1000; 0 = not assessed. */
	uint32_t measured_h_milli;
	uint32_t assess_samples;
	/* Reads up to n samples. Returns the count (> 0), 0 at the end of the
	 * input, -1 on error with the reason in err. */
	long (*read)(ng_source *s, uint32_t *buf, size_t n);
	void (*close)(ng_source *s);
	char err[512];
	void *priv;
};

/* spec: "jitter" | "file:PATH" | "device[:TTY]" (a board in raw mode,
 * host/sources/device.c). On failure returns NULL with the reason in
 * err (which names the file and the cause). The jitter source assesses the
 * machine at open and fails when its estimate is below NG_JITTER_MARGIN x
 * its declared figure. Every failure here is an input error (exit 3), except
 * an unknown spec (a usage error: test with ng_source_spec_known first). */
ng_source *ng_source_open(const char *spec, char *err, size_t errlen);
/* The same, with the min-entropy the caller will declare (h_milli, 0 = the
 * source's default): the jitter source checks itself against that figure. */
ng_source *ng_source_open_h(const char *spec, uint32_t h_milli, char *err, size_t errlen);
/* true when spec names a kind of source that ng_source_open knows. */
int ng_source_spec_known(const char *spec);
static inline void ng_source_close(ng_source *s) { if (s) s->close(s); }

/* The jitter source on its own (host/sources/jitter.c): h_milli as above. */
ng_source *ng_jitter_open(uint32_t h_milli, char *err, size_t errlen);
/* SP 800-90B 6.3.1 most-common-value estimate of n samples (bits x 1000);
 * sorts s in place. *p_hat_ppm (may be NULL) gets p-hat in parts per million. */
uint32_t ng_mcv_estimate_milli(uint32_t *s, size_t n, uint32_t *p_hat_ppm);

#endif
