/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The assessment as one self-contained HTML page: the data's description,
 * the results of the track that ran (the same report structures the text
 * and JSON output print) and plots drawn as inline SVG. No script, no
 * external resource: the page reads the same offline in any browser. */
#ifndef NG_REPORT_H
#define NG_REPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "assess.h"

#define NG_REPORT_LAGS     64u   /* autocorrelation over lags 1..64 */
#define NG_REPORT_RUN_MAX  100u  /* points of the running MCV estimate */
#define NG_REPORT_HIST_MAX 256u  /* bars of a half-word histogram */
#define NG_REPORT_GRID     40u   /* restart heat map: 40 x 40 cells */

typedef struct {
	const char *input;      /* what was assessed: "'x.bin'", a source's description */
	const char *kind;       /* how the samples were read ("file, one sample per byte") */
	const char *command;    /* the command line, or NULL */
	const uint8_t *s;       /* the samples as assessed (masked to bits) */
	size_t n;
	unsigned bits;
	bool conditioned;
	/* Raw-mode words of a device, (adc2 << 16) | adc1, n of them (s[i] is
	 * taken from words[i]), or NULL: adds each ADC's histogram. */
	const uint32_t *words;
	const char *sha256;     /* the input's SHA-256 (hex), or NULL */
	const char *sha_of;     /* what it covers ("the file") */
	uint64_t size;          /* the input's bytes */
	const char *version;    /* neug's version, or NULL */
	const char *date;       /* when the assessment ran, or NULL */
	bool bits_inferred;     /* bits was inferred (not given) */
	unsigned bits_full;     /* with bits_inferred: the full width, and */
	double h_full;          /* the assessed figure at that width */
	/* The track that ran: exactly one is set. */
	const ng_noniid_report *noniid;
	const ng_iid_report *iid;
	const ng_restart_report *restart;  /* s is the 1000 x 1000 matrix, row major */
} ng_report_data;

/* Writes the page to f. Returns 0, or -1 when out of memory or when a
 * write failed (ferror(f)); f is not closed. */
int ng_report_html(FILE *f, const ng_report_data *d);

/* ---- the plots' figures (exposed for the tests) ---- */
/* r[k-1] = the lag-k autocorrelation, sum_{i<n-k} (x_i - m)(x_{i+k} - m) /
 * sum_i (x_i - m)^2, m the mean. Returns how many lags it filled: 0 when
 * the samples are constant (undefined), at most n - 1. */
unsigned ng_report_autocorr(const uint8_t *s, size_t n, double r[NG_REPORT_LAGS]);
/* The MCV estimate (6.3.1) of the first at[j] samples, at[j] evenly spaced
 * up to at[last] = n. Returns the count of points (0 when n < 2). */
unsigned ng_report_running_mcv(const uint8_t *s, size_t n, uint64_t at[NG_REPORT_RUN_MAX],
			       double h[NG_REPORT_RUN_MAX]);

/* A histogram of a 16-bit half-word, (w >> shift) & 0xffff, over the range
 * the data occupies: bins of width values from lo, at most 256 of them. */
typedef struct {
	uint32_t lo, width;
	unsigned bins;
	uint64_t count[NG_REPORT_HIST_MAX];
} ng_report_hist;
void ng_report_halfword_hist(const uint32_t *w, size_t n, unsigned shift, ng_report_hist *h);

/* The restart heat map: the matrix's most common value (returned) counted
 * in each of 40 x 40 blocks of 25 restarts x 25 samples. */
unsigned ng_report_restart_grid(const uint8_t *s, uint16_t grid[NG_REPORT_GRID][NG_REPORT_GRID]);

#endif
