/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The host jitter source: raw samples from CPU timing variation.
 *
 * One sample = the duration of one measurement: a walk of j->walk (from
 * NG_JITTER_WALK, doubled at open until the counter resolves it: see the
 * calibration below) dependent, data-driven loads and stores over a 64 KiB
 * buffer (larger than
 * a typical L1 data cache), timed with a serialised TSC read (lfence; rdtsc;
 * lfence) on x86, or clock_gettime(CLOCK_MONOTONIC_RAW) elsewhere or when
 * NG_JITTER_TIMER=clock. The sample is the 32-bit delta between consecutive
 * counter reads, one walk apart; nothing is whitened here, so the
 * pipeline's health tests see the raw variation.
 *
 * Declared min-entropy: NG_JITTER_H_MILLI (0.5 bit per sample) unless the
 * caller declares another figure. At open, NG_JITTER_ASSESS_SAMPLES samples
 * are taken and the SP 800-90B 6.3.1 most-common-value estimate computed; the
 * source refuses to run when that is below NG_JITTER_MARGIN x the declared
 * figure. Design, reasons and limits: doc/jitter.md.
 * Tested on: x86_64 (Intel Xeon and AMD EPYC, Firecracker VMs, Linux 6.18). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "source.h"

#define NG_JITTER_WALK     16u      /* dependent accesses per measurement, at least */
#define NG_JITTER_WALK_MAX 1024u    /* and at most */
#define NG_JITTER_CAL_SAMPLES 20000u /* per calibration step */
#define NG_JITTER_MEM      65536u   /* walk buffer, a power of two */

typedef struct {
	uint8_t mem[NG_JITTER_MEM];
	uint32_t idx, last;
	uint32_t walk;      /* dependent accesses per measurement */
	int use_tsc;
} jitter_priv;

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t tsc_read(void)
{
	uint32_t lo, hi;
	/* lfence before: earlier loads (the walk) have completed; after: later
	 * instructions do not start before the counter is read. */
	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}
#define NG_HAVE_TSC 1
#else
static inline uint64_t tsc_read(void) { return 0; }
#define NG_HAVE_TSC 0
#endif

static inline uint64_t clock_read(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The walk: each address depends on the byte just loaded and on the
 * previous measurement's low timer bits, so neither the hardware prefetcher
 * nor the compiler can run ahead of it; each store dirties the line. */
static inline uint32_t walk(jitter_priv *j, uint32_t seed)
{
	uint32_t idx = j->idx ^ (seed & 0xffu) << 8;
	for (uint32_t i = 0; i < j->walk; i++) {
		uint8_t v = j->mem[idx & (NG_JITTER_MEM - 1)];
		j->mem[idx & (NG_JITTER_MEM - 1)] = (uint8_t)(v + 1);
		idx = idx * 0x9e3779b1u + v + 0x7f4a7c15u;
		idx ^= idx >> 15;
	}
	j->idx = idx;
	return idx;
}

/* Each sample is the time between two consecutive counter reads with one
 * walk between them: the end of one measurement is the start of the next. */
static void jitter_collect(jitter_priv *j, uint32_t *out, size_t n)
{
	uint32_t last = j->last;
	if (j->use_tsc) {
		uint64_t t0 = tsc_read();
		for (size_t i = 0; i < n; i++) {
			walk(j, last);
			uint64_t t1 = tsc_read();
			out[i] = last = (uint32_t)(t1 - t0);
			t0 = t1;
		}
	} else {
		uint64_t t0 = clock_read();
		for (size_t i = 0; i < n; i++) {
			walk(j, last);
			uint64_t t1 = clock_read();
			out[i] = last = (uint32_t)(t1 - t0);
			t0 = t1;
		}
	}
	j->last = last;
}

static long jitter_read(ng_source *s, uint32_t *buf, size_t n)
{
	if (n > 0x10000u)
		n = 0x10000u;   /* bounded latency per call */
	jitter_collect(s->priv, buf, n);
	return (long)n;
}

static void jitter_close(ng_source *s)
{
	free(s->priv);
	free(s);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* SP 800-90B 6.3.1: p-hat = (count of the most common value) / N;
 * p_u = min(1, p-hat + 2.576 sqrt(p-hat (1 - p-hat) / (N - 1)));
 * H = -log2(p_u). */
uint32_t ng_mcv_estimate_milli(uint32_t *s, size_t n, uint32_t *p_hat_ppm)
{
	if (n < 2)
		return 0;
	qsort(s, n, sizeof *s, cmp_u32);
	size_t best = 1, run = 1;
	for (size_t i = 1; i < n; i++) {
		run = s[i] == s[i - 1] ? run + 1 : 1;
		if (run > best)
			best = run;
	}
	double p = (double)best / (double)n;
	double pu = p + 2.576 * sqrt(p * (1.0 - p) / (double)(n - 1));
	if (pu > 1.0)
		pu = 1.0;
	if (p_hat_ppm)
		*p_hat_ppm = (uint32_t)(p * 1e6 + 0.5);
	double h = -log2(pu);
	return (uint32_t)(h * 1000.0);   /* rounded down: never overstates */
}

/* Takes n fresh samples into tmp and their MCV estimate (milli-bits, with
 * p-hat in *ppm when not NULL), doubling the walk and starting again while
 * the estimate is below need and the walk below NG_JITTER_WALK_MAX; returns
 * the last estimate (the walk's length is then j->walk). */
static uint32_t jitter_lengthen(jitter_priv *j, uint32_t *tmp, size_t n, uint64_t need, uint32_t *ppm)
{
	for (;;) {
		jitter_collect(j, tmp, n);
		uint32_t h = ng_mcv_estimate_milli(tmp, n, ppm);
		if (h >= need || j->walk >= NG_JITTER_WALK_MAX)
			return h;
		j->walk *= 2;
	}
}

ng_source *ng_jitter_open(uint32_t h_milli, char *err, size_t errlen)
{
	ng_source *s = calloc(1, sizeof *s);
	jitter_priv *j = calloc(1, sizeof *j);
	uint32_t *tmp = malloc(NG_JITTER_ASSESS_SAMPLES * sizeof *tmp);
	if (!s || !j || !tmp) {
		free(s);
		free(j);
		free(tmp);
		snprintf(err, errlen, "jitter source: out of memory");
		return NULL;
	}
	const char *t = getenv("NG_JITTER_TIMER");
	j->use_tsc = NG_HAVE_TSC && !(t && !strcmp(t, "clock"));
	/* Fill the buffer with a fixed, non-secret pattern: it only makes the
	 * walk irregular; the entropy is in the timing, never in the contents. */
	uint32_t x = 0x2545f491u;
	for (size_t i = 0; i < NG_JITTER_MEM; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		j->mem[i] = (uint8_t)x;
	}
	s->kind = "jitter";
	s->h_milli = h_milli ? h_milli : NG_JITTER_H_MILLI;
	s->read = jitter_read;
	s->close = jitter_close;
	s->priv = j;

	/* Calibration: how long a walk this machine's counter resolves. Some
	 * counters advance in steps of tens of ticks (AMD EPYC's TSC here: 27),
	 * so a short walk has only a handful of possible durations and its
	 * samples carry less than the start-up check asks for. The walk is
	 * doubled from NG_JITTER_WALK until the MCV estimate of
	 * NG_JITTER_CAL_SAMPLES samples clears the check with a fifth to
	 * spare, or reaches NG_JITTER_WALK_MAX. The start-up assessment below
	 * then runs on fresh samples: choosing the length never selects the data
	 * the check is made on. */
	const uint64_t need = (uint64_t)NG_JITTER_MARGIN * s->h_milli;
	j->walk = NG_JITTER_WALK;
	jitter_collect(j, tmp, 1024);   /* warm-up: caches, TLB, frequency */
	(void)jitter_lengthen(j, tmp, NG_JITTER_CAL_SAMPLES, need + need / 5, NULL);
	/* Start-up self-assessment, on fresh samples. When it fails at this
	 * length (the machine's timing can change between the calibration and
	 * now: load, frequency), the walk is doubled and the assessment made
	 * again on fresh samples, up to NG_JITTER_WALK_MAX; the source runs only
	 * at a length whose own assessment passed. */
	uint32_t ppm = 0;
	s->measured_h_milli = jitter_lengthen(j, tmp, NG_JITTER_ASSESS_SAMPLES, need, &ppm);
	s->assess_samples = NG_JITTER_ASSESS_SAMPLES;
	free(tmp);
	snprintf(s->desc, sizeof s->desc, "jitter (%s, %u-access walk over %u KiB)",
		 j->use_tsc ? "rdtsc" : "clock_gettime(CLOCK_MONOTONIC_RAW)", j->walk,
		 NG_JITTER_MEM / 1024);
	if (s->measured_h_milli < need) {
		snprintf(err, errlen,
			 "jitter source: this machine's timing jitter is too small: the start-up "
			 "most-common-value estimate (SP 800-90B 6.3.1, %u samples, p-hat %.6f) is "
			 "%.3f bits/sample with a %u-access walk, less than %u x the declared %.3f "
			 "bits/sample; refusing to run (use a NeuG device or a recorded file source "
			 "instead)",
			 NG_JITTER_ASSESS_SAMPLES, ppm / 1e6, s->measured_h_milli / 1000.0, j->walk,
			 NG_JITTER_MARGIN, s->h_milli / 1000.0);
		jitter_close(s);
		return NULL;
	}
	return s;
}
