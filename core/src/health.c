/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Health tests: SP 800-90B section 4.4 on the raw samples (cutoffs, the
 * rare paths of the per-sample step in health_impl.h, start-up and the
 * repeated-failure rule), and NeuG 1.0.x's tests on the CRC output bytes.
 * doc/health.md states every rule this file implements. */
#include <string.h>
#include "ng/health.h"
#include "health_impl.h"

/* ---- Cutoffs (SP 800-90B 4.4.1 and 4.4.2, alpha = 2^-30) ---------------- */

/* 2^-x for 0 <= x <= 32, without libm: 2^-floor(x) exactly, times
 * e^(-f ln 2) for the fraction f in [0, 1) by its Taylor series (|term| <
 * 0.7^k / k!, so 24 terms leave an error below 1e-20). */
static double ng_exp2_neg(double x)
{
	double r = 1.0;
	while (x >= 1.0) {
		r *= 0.5;
		x -= 1.0;
	}
	double y = -x * 0.69314718055994530942, term = 1.0, sum = 1.0;
	for (int k = 1; k < 24; k++) {
		term *= y / k;
		sum += term;
	}
	return r * sum;
}

/* CRITBINOM(n, p, 1 - eps): the least k with P(X <= k) >= 1 - eps for X ~
 * Binomial(n, p), i.e. the least k with the upper tail P(X > k) <= eps.
 * All weights are taken relative to the mode m = floor((n + 1) p), where the
 * probability is largest, through the ratio
 *   P(k + 1) / P(k) = (n - k) / (k + 1) * p / (1 - p),
 * so no weight exceeds 1, nothing overflows, and what underflows is below
 * 1e-300 of the total. The tail is summed from the top down (no cancellation). */
static uint32_t ng_critbinom(uint32_t n, double p, double eps)
{
	double q = 1.0 - p, up = p / q;
	uint32_t m = (uint32_t)((n + 1) * p);
	if (m > n)
		m = n;
	/* total S = sum of all weights P(k) / P(m) */
	double s = 1.0, r = 1.0;
	for (uint32_t k = m; k > 0 && r > 1e-300; k--) {        /* below the mode */
		r *= (double)k / (double)(n - k + 1) / up;
		s += r;
	}
	uint32_t top = m;
	r = 1.0;
	while (top < n) {                                        /* above the mode */
		double nr = r * (double)(n - top) / (double)(top + 1) * up;
		if (nr < 1e-300)
			break;
		r = nr;
		top++;
		s += r;
	}
	/* r = weight of `top`; walk down summing the tail T = sum_{j > k} */
	double tail = 0.0, lim = eps * s;
	for (uint32_t k = top;; k--) {
		if (tail + r > lim || k == 0)
			return k;  /* P(X > k) = tail <= eps < P(X > k - 1) */
		tail += r;
		r *= (double)k / (double)(n - k + 1) / up;       /* weight of k - 1 */
	}
}

ng_status ng_health_cutoffs(uint32_t h_milli, uint32_t window,
			    uint32_t *rct_cutoff, uint32_t *apt_cutoff)
{
	if (h_milli < 100 || h_milli > 32000 || window < 2 || window > 65536)
		return NG_ERR_ARG;
	/* SP 800-90B 4.4.1: C = 1 + ceil(-log2(alpha) / H) = 1 + ceil(30 / H),
	 * in integers: ceil(30000 / h_milli). H = 3.7 gives 1 + 9 = 10. */
	if (rct_cutoff)
		*rct_cutoff = 1 + (30000u + h_milli - 1) / h_milli;
	/* SP 800-90B 4.4.2: C = 1 + CRITBINOM(W, 2^-H, 1 - alpha), alpha = 2^-30. */
	if (apt_cutoff) {
		double p = ng_exp2_neg((double)h_milli / 1000.0);
		*apt_cutoff = 1 + ng_critbinom(window, p, 1.0 / 1073741824.0);
	}
	return NG_OK;
}

/* ---- Raw-sample tests: start-up and the repeated-failure rule ----------- */

ng_status ng_health_init(ng_health_ctx *h, uint32_t h_milli, uint32_t rct_cutoff,
			 uint32_t apt_cutoff)
{
	uint32_t rc, ac;
	if (ng_health_cutoffs(h_milli, NG_APT_WINDOW, &rc, &ac) != NG_OK)
		return NG_ERR_ARG;
	if (rct_cutoff == 1 || apt_cutoff == 1 || apt_cutoff > NG_APT_WINDOW + 1)
		return NG_ERR_ARG;
	memset(h, 0, sizeof *h);
	h->rct_cutoff = rct_cutoff ? rct_cutoff : rc;
	h->apt_cutoff = apt_cutoff ? apt_cutoff : ac;
	h->apt_window = NG_APT_WINDOW;
	h->status = NG_HEALTH_STARTUP;
	return NG_OK;
}

/* A firing of `test` at the current sample with count B = `count`.
 * The rule (doc/health.md): a firing during the start-up test, or a firing
 * less than NG_HEALTH_REPEAT_SPAN samples after the previous firing, latches
 * NG_HEALTH_PERSISTENT and records this firing. */
static void ng_health_fired(ng_health_ctx *h, uint32_t test, uint32_t count)
{
	uint64_t idx = h->samples;   /* 0-based index of the sample being tested */
	bool latch = (h->status & NG_HEALTH_STARTUP) ||
		     (h->last_fail && idx - (h->last_fail - 1) < NG_HEALTH_REPEAT_SPAN);
	h->status |= test;
	h->last_fail = idx + 1;
	if (latch && !(h->status & NG_HEALTH_PERSISTENT)) {
		if (h->status & NG_HEALTH_STARTUP)
			h->status |= NG_HEALTH_STARTUP_FAILED;
		h->status |= NG_HEALTH_PERSISTENT;
		h->fail_test = test;
		h->fail_index = idx;
		h->fail_count = count;
	}
}

/* B >= C in the RCT. A run counts as one firing when it reaches C, and as
 * one more every C - 1 further repetitions (B = C, 2C - 1, 3C - 2, ...), so
 * a source stuck for good fires again within C - 1 samples. */
uint32_t ng_health_rct_hit(ng_health_ctx *h)
{
	if ((h->rct_b - 1) % (h->rct_cutoff - 1) == 0) {
		if (h->rct_failures != UINT32_MAX)
			h->rct_failures++;
		ng_health_fired(h, NG_HEALTH_RCT, h->rct_b);
	}
	return NG_HEALTH_RCT;
}

/* B >= C in the APT: one firing per window (when B reaches C); every later
 * match in the same window still marks its sample as failing. */
uint32_t ng_health_apt_hit(ng_health_ctx *h)
{
	if (h->apt_b == h->apt_cutoff) {
		if (h->apt_failures != UINT32_MAX)
			h->apt_failures++;
		ng_health_fired(h, NG_HEALTH_APT, h->apt_b);
	}
	return NG_HEALTH_APT;
}

/* The NG_STARTUP_SAMPLES-th sample was tested: passed unless latched. */
void ng_health_startup_done(ng_health_ctx *h)
{
	if (!(h->status & NG_HEALTH_PERSISTENT))
		h->status &= ~NG_HEALTH_STARTUP;
}

uint32_t ng_health_insert(ng_health_ctx *h, uint32_t sample)
{
	return ng_health_step(h, sample);
}

/* The batch path (the pipeline's hot loop). A fast scan computes the state
 * after the n samples with loops the compiler can vectorise; if neither
 * test reached its cutoff in them, that state is the one n calls of
 * ng_health_step would leave (the same counts, maxima and start-up
 * outcome), and it is committed. Otherwise nothing is committed and the
 * samples go through ng_health_step one by one, which fires exactly where
 * the per-sample path does. */
#if (defined(__x86_64__) || defined(__aarch64__)) && (defined(__GNUC__) || defined(__clang__))
#define NG_HEALTH_VEC 1
typedef uint32_t ng_v4u __attribute__((vector_size(16)));
typedef int32_t ng_v4i __attribute__((vector_size(16)));
#else
#define NG_HEALTH_VEC 0
#endif
#if defined(__GNUC__) || defined(__clang__)
#define NG_UNLIKELY(c) __builtin_expect(!!(c), 0)
#else
#define NG_UNLIKELY(c) (c)
#endif

/* Over s[0..k) (s[-1] = prev): *cnt += how many samples equal a, and the
 * samples that equal their predecessor widen the range [*lo, *hi] (both
 * NULL while there is none; where vectors exist, conservatively the whole
 * of s). Four lanes at a time where vectors exist. */
typedef struct {
	const uint32_t *lo, *hi;
} ng_health_eq;

static inline void ng_health_eq_at(ng_health_eq *r, const uint32_t *p)
{
	if (!r->lo)
		r->lo = p;
	r->hi = p;
}

#if !NG_HEALTH_VEC && (defined(__GNUC__) || defined(__clang__))
/* Out of line on scalar targets: the loop then has the registers to itself. */
__attribute__((noinline)) static void
#else
static inline void
#endif
ng_health_scan(const uint32_t *s, size_t k, uint32_t prev, uint32_t a, ng_health_eq *eq,
	       uint32_t *cnt)
{
	if (!k)
		return;
	uint32_t c = s[0] == a;
	if (s[0] == prev)
		ng_health_eq_at(eq, s);
#if NG_HEALTH_VEC
	uint32_t e = 0;
	size_t j = 1;
	ng_v4i ve = { 0, 0, 0, 0 }, vc = { 0, 0, 0, 0 };
	const ng_v4u va = { a, a, a, a };
	for (; j + 4 <= k; j += 4) {
		ng_v4u x, y;
		memcpy(&x, s + j, sizeof x);
		memcpy(&y, s + j - 1, sizeof y);
		ve += (ng_v4i)(x == y);   /* -1 per equal lane */
		vc += (ng_v4i)(x == va);
	}
	e -= (uint32_t)(ve[0] + ve[1] + ve[2] + ve[3]);
	c -= (uint32_t)(vc[0] + vc[1] + vc[2] + vc[3]);
	for (; j < k; j++) {
		e += s[j] == s[j - 1];
		c += s[j] == a;
	}
	if (e) {
		ng_health_eq_at(eq, s);
		ng_health_eq_at(eq, s + k - 1);
	}
#else
	/* Scalar targets (the Cortex-M3): both matches are rare in noise, so
	 * test for either with two compares and count only then. Four, then
	 * two samples per pass, so that the previous sample stays in a
	 * register and the loop costs less per sample. */
	const uint32_t *q = s + 1, *end = s + k;
	uint32_t x = s[0];
	for (; end - q >= 4; q += 4) {
		uint32_t y = q[0], z = q[1], u = q[2], v = q[3];
		if (NG_UNLIKELY(y == x || y == a || z == y || z == a ||
				u == z || u == a || v == u || v == a)) {
			c += (y == a) + (z == a) + (u == a) + (v == a);
			if (y == x)
				ng_health_eq_at(eq, q);
			if (z == y)
				ng_health_eq_at(eq, q + 1);
			if (u == z)
				ng_health_eq_at(eq, q + 2);
			if (v == u)
				ng_health_eq_at(eq, q + 3);
		}
		x = v;
	}
	for (; end - q >= 2; q += 2) {
		uint32_t y = q[0], z = q[1];
		if (NG_UNLIKELY(y == x || y == a || z == y || z == a)) {
			c += (y == a) + (z == a);
			if (y == x)
				ng_health_eq_at(eq, q);
			if (z == y)
				ng_health_eq_at(eq, q + 1);
		}
		x = z;
	}
	if (q < end) {
		c += *q == a;
		if (*q == x)
			ng_health_eq_at(eq, q);
	}
#endif
	*cnt += c;
}

uint32_t ng_health_insert_many(ng_health_ctx *h, const uint32_t *s, size_t n)
{
	if (!n)
		return 0;
	/* One pass, window by window: APT counts, and where samples repeat
	 * their predecessor (RCT: nowhere means every run is 1 long). */
	uint32_t aa = h->apt_a, ab = h->apt_b, ai = h->apt_i, amax = h->apt_max;
	ng_health_eq eq = { NULL, NULL };
	const uint32_t w = h->apt_window;
	uint32_t prev = h->rct_a;
	for (size_t i = 0; i < n;) {
		if (ai == 0) {
			/* a new window: A = this sample, B = 1 */
			if (s[i] == prev)
				ng_health_eq_at(&eq, s + i);
			prev = aa = s[i++];
			ab = 1;
			ai = 1;
			if (!amax)
				amax = 1;
			continue;
		}
		size_t k = n - i < w - ai ? n - i : w - ai;
		uint32_t c = 0;
		ng_health_scan(s + i, k, prev, aa, &eq, &c);
		ab += c;
		if (ab >= h->apt_cutoff)
			goto precise;
		if (ab > amax)
			amax = ab;
		ai += (uint32_t)k;
		i += k;
		prev = s[i - 1];
		if (ai == w)
			ai = 0;
	}
	/* RCT: B after the last sample and the longest run in these samples.
	 * Runs longer than 1 lie within [eq.lo - 1, eq.hi]: the sample before
	 * eq.lo starts a run (B = 1, or B = rct_b + 1 at s[0]), and after
	 * eq.hi every sample starts a new one. */
	uint32_t rb = 1, rmax = h->rct_max;
	if (eq.lo) {
		size_t i = (size_t)(eq.lo - s), last = (size_t)(eq.hi - s);
		uint32_t ra = i ? s[i - 1] : h->rct_a, run = 0;
		rb = i ? 1 : h->rct_b;
		for (; i <= last; i++) {
			rb = s[i] == ra ? rb + 1 : 1;
			ra = s[i];
			if (rb > run)
				run = rb;
		}
		if (run >= h->rct_cutoff)
			goto precise;
		if (run > rmax)
			rmax = run;
		if (last != n - 1)
			rb = 1;
	}
	if (!rmax)
		rmax = 1;
	uint64_t before = h->samples;
	h->rct_a = s[n - 1];
	h->rct_b = rb;
	h->rct_max = rmax;
	h->apt_a = aa;
	h->apt_b = ab;
	h->apt_i = ai;
	h->apt_max = amax;
	h->samples += n;
	if (before < NG_STARTUP_SAMPLES && h->samples >= NG_STARTUP_SAMPLES)
		ng_health_startup_done(h);
	return 0;
precise:;
	uint32_t fired = 0;
	for (size_t i = 0; i < n; i++)
		fired |= ng_health_step(h, s[i]);
	return fired;
}

/* ---- NeuG 1.0.x's tests on the CRC output bytes ------------------------
 *
 * The byte stream is the bytes of each CRC value the pipeline uses, in the
 * order they enter the message or the output: little endian, all four bytes
 * of each value, and in mode 0 only the low byte of a block's last value.
 * These semantics reproduce NeuG's GET_INFO figures for adc.bin in mode 0
 * (errors 0, rc_max 2, p64_max 3, p4k_max 22); they were found by testing
 * variants (byte order, which bytes, window restart, count origin) against
 * them (doc/health.md lists the variants tried):
 *   repetition count: A = the byte of the current run, B = its length;
 *     fires when B >= 9; rc_max = the longest run.
 *   adaptive proportion (W = 64 or 4096): the state starts all zero (A = 0,
 *     B = 0, s = 0). For each byte x: if s >= W - 1 the window ends and x
 *     starts the next one (A = x, B = 0, s = 0); otherwise s = s + 1 and, if
 *     x == A, B = B + 1. B thus counts the repeats of A after A itself, in a
 *     W-byte window (the first window compares W - 1 bytes with A = 0).
 *     It fires when B + 1 (A's count including A, as in SP 800-90B) reaches
 *     the cutoff (18 or 315); p64_max / p4k_max = the largest B seen. */

void ng_neug_tests_init(ng_neug_tests_ctx *t)
{
	memset(t, 0, sizeof *t);
}

static inline void ng_neug_inc(uint16_t *c)
{
	if (*c != UINT16_MAX)
		(*c)++;
}

/* One adaptive proportion test of window w; returns true when it fired. */
static inline bool ng_neug_apt(uint32_t *a, uint32_t *b, uint32_t *s, uint16_t *max,
			       uint16_t *err, uint32_t w, uint32_t cutoff, uint8_t x)
{
	if (*s >= w - 1) {
		*a = x;
		*b = 0;
		*s = 0;
		return false;
	}
	(*s)++;
	if (x != *a)
		return false;
	if (++*b > *max)
		*max = (uint16_t)*b;
	if (*b + 1 >= cutoff) {
		ng_neug_inc(err);
		return true;
	}
	return false;
}

bool ng_neug_tests_byte(ng_neug_tests_ctx *t, uint8_t x)
{
	bool fired = false;
	/* repetition count, cutoff 9 */
	if (x == t->rc_a) {
		if (++t->rc_b > t->rc_max)
			t->rc_max = (uint16_t)t->rc_b;
		if (t->rc_b >= NG_NEUG_RCT_CUTOFF) {
			ng_neug_inc(&t->err_rc);
			fired = true;
		}
	} else {
		t->rc_a = x;
		t->rc_b = 1;
		if (!t->rc_max)
			t->rc_max = 1;
	}
	fired |= ng_neug_apt(&t->p64_a, &t->p64_b, &t->p64_i, &t->p64_max, &t->err_p64,
			     64, NG_NEUG_APT64_CUTOFF, x);
	fired |= ng_neug_apt(&t->p4k_a, &t->p4k_b, &t->p4k_i, &t->p4k_max, &t->err_p4k,
			     4096, NG_NEUG_APT4K_CUTOFF, x);
	if (fired)
		ng_neug_inc(&t->err);
	return fired;
}

bool ng_neug_tests_word_slow(ng_neug_tests_ctx *t, uint32_t v)
{
	bool f = ng_neug_tests_byte(t, (uint8_t)v);
	f |= ng_neug_tests_byte(t, (uint8_t)(v >> 8));
	f |= ng_neug_tests_byte(t, (uint8_t)(v >> 16));
	f |= ng_neug_tests_byte(t, (uint8_t)(v >> 24));
	return f;
}

bool ng_neug_tests_word_mid(ng_neug_tests_ctx *t, uint32_t v)
{
	return ng_neug_word_mid(t, v);
}

bool ng_neug_tests_word(ng_neug_tests_ctx *t, uint32_t v)
{
	return ng_neug_word(t, v);
}
