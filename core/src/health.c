/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Every health test, written once (health.h; doc/health.md states each rule):
 * the cutoffs, SP 800-90B 4.4.1 and 4.4.2 on each sample stream, the start-up
 * test, the repeated-failure latch, and NeuG 1.0.x's CRC-output tests. Every
 * path (host, emulator, firmware; every mode) tests its samples here.
 * 4.4.1 and 4.4.2 run on a fast path (ng_health_run): each step of the
 * standard is labelled at the line that carries it, and tests/health_ref.h
 * is the same two tests written plainly, one sample at a time: the oracle
 * that test_health and fuzz_health (tests/fuzz/) hold this file to. */
#include <string.h>
#include "ng/health.h"

/* The per-sample steps are inlined into their loops (-Os would call them). */
#define NG_STEP static inline __attribute__((always_inline))
#define NG_UNLIKELY(c) __builtin_expect(!!(c), 0)

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

/* CRITBINOM(n, p, 1 - eps): the least k with P(X > k) <= eps for X ~
 * Binomial(n, p). The weights are relative to the mode m = floor((n + 1) p)
 * through P(k + 1) / P(k) = (n - k) / (k + 1) * p / (1 - p): none exceeds 1,
 * what underflows is below 1e-300 of the total; the tail is summed from the
 * top down (no cancellation). */
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
	for (r = 1.0; top < n; top++) {                          /* above the mode */
		double nr = r * (double)(n - top) / (double)(top + 1) * up;
		if (nr < 1e-300)
			break;
		r = nr;
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
	*rct_cutoff = 1 + (30000u + h_milli - 1) / h_milli;
	/* SP 800-90B 4.4.2: C = 1 + CRITBINOM(W, 2^-H, 1 - alpha), alpha = 2^-30,
	 * as printed (81 at H = 3.7; doc/health.md, "Cutoffs", on why not 82). */
	*apt_cutoff = 1 + ng_critbinom(window, ng_exp2_neg((double)h_milli / 1000.0), 1.0 / 1073741824.0);
	return NG_OK;
}

/* ---- SP 800-90B 4.4 on the raw samples ---------------------------------- */

ng_status ng_health_limits_for(ng_health_limits *l, uint32_t h_milli)
{
	ng_health_limits r = { .h_milli = h_milli };
	if (ng_health_cutoffs(h_milli, NG_APT_WINDOW, &r.rct_cutoff, &r.apt_cutoff) != NG_OK)
		return NG_ERR_ARG;
	*l = r;
	return NG_OK;
}

/* Limits that some H gives: H in range, 2 <= RCT cutoff (the first sample
 * is a run of 1), 2 <= APT cutoff <= W. */
static bool ng_health_limits_ok(const ng_health_limits *l)
{
	return l->h_milli >= 100 && l->h_milli <= 32000 && l->rct_cutoff >= 2 &&
	       l->apt_cutoff >= 2 && l->apt_cutoff <= NG_APT_WINDOW;
}

ng_status ng_health_start(ng_health_ctx *h, const ng_health_limits *word, const ng_health_limits *adc)
{
	const ng_health_limits *lim[NG_STREAMS] = { word, adc, adc };
	ng_health_ctx c = { .nstreams = adc ? NG_STREAMS : 1u, .status = NG_HEALTH_STARTUP };
	for (uint32_t k = 0; k < c.nstreams; k++) {
		ng_health_stream *t = &c.st[k];
		if (!lim[k] || !ng_health_limits_ok(lim[k]))
			return NG_ERR_ARG;
		t->h_milli = lim[k]->h_milli;
		t->rct_cutoff = lim[k]->rct_cutoff;
		t->apt_cutoff = lim[k]->apt_cutoff;
		t->rct_lim = t->apt_lim = 1;   /* min(max + 1, C), max = 0 */
	}
	*h = c;
	return NG_OK;
}

/* Each stream's value is a lane of the sample (ng_lane): the word, and with
 * the ADC streams its two half-words. A of 4.4.1 is always the previous
 * sample's lane and A of 4.4.2 the window's first sample's, so the context
 * keeps those two samples (prev, apt_a) and each stream only its B's. */

/* B reached lim = min(max + 1, C): notes a new largest B, returns B >= C
 * (so a step compares B once). */
static bool ng_health_note(uint32_t *max, uint32_t *lim, uint32_t b, uint32_t c)
{
	if (b > *max)
		*max = b;
	*lim = *max + 1 < c ? *max + 1 : c;
	return b >= c;
}

/* SP 800-90B 4.4.1 step 2a for x (just before `next`), which equals A. */
NG_STEP void ng_rct_same(ng_health_stream *t, const uint32_t *next, bool *f)
{
	/* 4.4.1 step 2a: B = B + 1, where B is rct_b if x's predecessor ended a
	 * run here (run_end), else 1 (step 2b deferred: see run_end) */
	const uint32_t b = t->run_end == next - 1 ? t->rct_b + 1 : 2;
	t->rct_b = b;
	/* 4.4.1 step 2a: if B >= C, failure (compared once, with rct_lim) */
	if (NG_UNLIKELY(b >= t->rct_lim) && ng_health_note(&t->rct_max, &t->rct_lim, b, t->rct_cutoff))
		*f = true;
	t->run_end = next;
}

/* SP 800-90B 4.4.2 step 3 for x (not the window's first), which equals A.
 * Steps 1-2 (A = x, B = 1) are ng_health_run's. */
NG_STEP void ng_apt_same(ng_health_stream *t, bool *f)
{
	const uint32_t b = ++t->apt_b;   /* 4.4.2 step 3a: B = B + 1 */
	/* 4.4.2 step 3b: if B >= C, failure (compared once, with apt_lim) */
	if (NG_UNLIKELY(b >= t->apt_lim) && ng_health_note(&t->apt_max, &t->apt_lim, b, t->apt_cutoff))
		*f = true;
}

/* A firing of `test` on `stream` at the sample being tested, with count B:
 * counted in *n; during the start-up test, or less than NG_HEALTH_REPEAT_SPAN
 * samples after the previous firing, it latches NG_HEALTH_PERSISTENT. */
static void ng_health_fired(ng_health_ctx *h, uint32_t *n, uint32_t test, uint32_t stream, uint32_t count)
{
	uint64_t idx = h->samples;
	if (*n != UINT32_MAX)
		(*n)++;
	bool latch = (h->status & NG_HEALTH_STARTUP) ||
		     (h->last_fail && idx - (h->last_fail - 1) < NG_HEALTH_REPEAT_SPAN);
	h->last_fail = idx + 1;
	if (latch && !(h->status & NG_HEALTH_PERSISTENT)) {
		if (h->status & NG_HEALTH_STARTUP)
			h->status |= NG_HEALTH_STARTUP_FAILED;
		h->status |= NG_HEALTH_PERSISTENT;
		h->fail_test = test;
		h->fail_stream = stream;
		h->fail_index = idx;
		h->fail_count = count;
	}
}

/* Stream k's value in the sample x (NG_STREAM_*). */
static inline uint32_t ng_lane(uint32_t x, uint32_t k)
{
	return k == NG_STREAM_WORD ? x : k == NG_STREAM_ADC1 ? x & 0xffffu : x >> 16;
}

/* The sample x failed on stream k (`bits`: the tests that failed). A run
 * fires the RCT when B reaches C and again each C - 1 further repetitions
 * (B = C, 2C - 1, ...); a window fires the APT once, when B reaches C. */
static void ng_health_failed(ng_health_ctx *h, uint32_t k, uint32_t bits, uint32_t x)
{
	ng_health_stream *t = &h->st[k];
	h->status |= bits;
	if ((bits & NG_HEALTH_RCT) && (t->rct_b - 1) % (t->rct_cutoff - 1) == 0)
		ng_health_fired(h, &t->rct_failures, NG_HEALTH_RCT, k, t->rct_b);
	/* 4.4.2 step 3b fails every later sample of the window; it fires once */
	if ((bits & NG_HEALTH_APT) && t->apt_b == t->apt_cutoff && ng_lane(x ^ h->apt_a, k) == 0)
		ng_health_fired(h, &t->apt_failures, NG_HEALTH_APT, k, t->apt_b);
}

/* The start-up test passes with its last sample, unless latched. */
static void ng_health_startup_check(ng_health_ctx *h)
{
	if ((h->status & (NG_HEALTH_STARTUP | NG_HEALTH_PERSISTENT)) == NG_HEALTH_STARTUP &&
	    h->samples >= NG_STARTUP_SAMPLES)
		h->status &= ~NG_HEALTH_STARTUP;
}

/* Nonzero exactly when some lane of u is 0 (`one`: each lane's lowest bit,
 * `high`: its top bit). A lane v >= 1 borrows nothing and sets the top bit
 * of v - 1 only where ~v's is clear; the lowest zero lane gives all ones.
 * (Lanes above a zero lane may read wrong; the answer as a whole is exact.) */
static inline uint32_t ng_zero_lane(uint32_t u, uint32_t one, uint32_t high)
{
	return (u - one) & ~u & high;
}

/* Stream t's tests at the sample before `next` that equals its A of 4.4.1 (r), of 4.4.2 (p). */
NG_STEP void ng_health_lane(ng_health_stream *t, const uint32_t *next, bool r, bool p, bool *f)
{
	if (p)   /* 4.4.2 step 3a: "if the next sample equals A" */
		ng_apt_same(t, f);
	if (r)   /* 4.4.1 step 2: "if x = A" (2a); else 2b, deferred */
		ng_rct_same(t, next, f);
}

/* The sample before `next` on ns streams, d = x ^ prev, e = x ^ apt_a: stream
 * k's value equals its A of 4.4.1 where d's lane is 0, of 4.4.2 where e's is,
 * and only those streams are stepped (*f = true when a test failed). */
NG_STEP void ng_health_sample(ng_health_stream *t, const uint32_t *next,
			      uint32_t d, uint32_t e, const uint32_t ns, bool *f)
{
	if (ns == 1) {
		ng_health_lane(&t[0], next, d == 0, e == 0, f);
		return;
	}
	if (!(d << 16) || !(e << 16)) {   /* (the word equals an A only where its low half does) */
		ng_health_lane(&t[1], next, !(d << 16), !(e << 16), f);
		if (d == 0 || e == 0)
			ng_health_lane(&t[0], next, d == 0, e == 0, f);
	}
	if (d < 0x10000u || e < 0x10000u)
		ng_health_lane(&t[2], next, d < 0x10000u, e < 0x10000u, f);
}

/* ng_health_test on ns streams (1 or 3, a constant where it is inlined).
 * The fast path's invariants, between any two samples:
 *   prev is the last sample tested: 4.4.1's A on every stream (its lane);
 *   apt_a is the window's first sample: 4.4.2's A; apt_i counts the window's
 *     samples tested (0: the next sample starts a window, 4.4.2 step 1);
 *   apt_b is 4.4.2's B; 4.4.1's B is rct_b where run_end points just past
 *     the last sample (that sample equalled its A), else 1: step 2b's
 *     "B = 1" is deferred, never written per sample (run_end);
 *   *_lim = min(largest B + 1, C): B below it needs no note;
 *   f: a sample failed; the loop stops right after it (q[-1]).
 * A sample equal to no A on any stream ("plain") so changes nothing but
 * prev, and costs the check below: v - 1 of each lane of d and e has its
 * top bit set for v = 0, else only for v above half its range (never for
 * 12-bit ADC values); where it is set, ng_health_sample tests the lanes one
 * by one. */
NG_STEP size_t ng_health_run(ng_health_ctx *h, const uint32_t *s, size_t n, uint32_t *fired,
			     const uint32_t ns)
{
	ng_health_stream *t = h->st;
	const uint32_t one = ns > 1 ? 0x00010001u : 1u, high = ns > 1 ? 0x80008000u : 0x80000000u;
	uint32_t prev = h->prev, a = h->apt_a, i = h->apt_i;
	bool f = false;   /* a test failed */
	const uint32_t *q = s, *end = s + n;
	for (uint32_t k = 0; k < ns; k++)   /* (at the batch's start B is the run's) */
		t[k].run_end = s;
	/* 4.4.2 step 3b: once B >= C, every later sample of the window fails
	 * (the batch before stopped at the first) */
	for (uint32_t k = 0; k < ns && i != 0 && n; k++)
		f |= t[k].apt_b >= t[k].apt_cutoff;
	while (q < end) {
		const uint32_t x = *q;
		uint32_t d = x ^ prev, e = x ^ a;
		if (i == 0) {   /* 4.4.2 step 1: A = x; step 2: B = 1 (every stream) */
			a = x;
			for (uint32_t k = 0; k < ns; k++)
				t[k].apt_b = 1;
			e = ~0u;   /* (x is not compared with itself: step 3 is i >= 1) */
			if (!t[0].rct_b)   /* 4.4.1 step 1: the very first sample, A = x, B = 1 */
				d = ~0u;
		}
		q++;
		ng_health_sample(t, q, d, e, ns, &f);
		prev = x;   /* 4.4.1 step 2b: A = x (B = 1 deferred: see run_end) */
		if (++i == NG_APT_WINDOW)   /* 4.4.2 step 4: the next window */
			i = 0;
		if (f)
			break;
		/* the window's other samples (q[-1] is the previous one) */
		const uint32_t *w = q, *wend = i == 0 ? q :
			(size_t)(end - q) > NG_APT_WINDOW - i ? q + (NG_APT_WINDOW - i) : end;
		while (q < wend) {
			q++;   /* q[-1]: the sample, q[-2]: the previous one, 4.4.1's A */
			const uint32_t d = q[-1] ^ q[-2], e = q[-1] ^ a;
			if ((((d - one) | (e - one)) & high)) {   /* not plain: some lane may equal an A */
				ng_health_sample(t, q, d, e, ns, &f);
				if (f)
					break;
			}
		}
		i += (uint32_t)(q - w);
		if (i == NG_APT_WINDOW)   /* 4.4.2 step 4 */
			i = 0;
		prev = q[-1];
		if (f)
			break;
	}
	h->prev = prev;
	h->apt_a = a;
	h->apt_i = i;
	size_t j = (size_t)(q - s);
	*fired = 0;
	if (f) {   /* sample j - 1 failed: count, maybe latch, before its index moves on */
		h->samples += --j;
		ng_health_startup_check(h);
		/* which failed: 4.4.1 step 2a where the sample equalled A with
		 * B >= C, 4.4.2 step 3b where B >= C (B grows only where it is
		 * compared, so each B is still the failing sample's) */
		for (uint32_t k = 0; k < ns; k++) {
			uint32_t bits = (t[k].run_end == q && t[k].rct_b >= t[k].rct_cutoff ? NG_HEALTH_RCT : 0) |
					(t[k].apt_b >= t[k].apt_cutoff ? NG_HEALTH_APT : 0);
			if (bits)
				ng_health_failed(h, k, bits, s[j]);
			*fired |= bits;
		}
		h->samples++;
	} else {
		h->samples += j;
	}
	for (uint32_t k = 0; k < ns; k++)   /* 4.4.1 step 2b's B = 1, written once per batch */
		if (t[k].run_end != q)
			t[k].rct_b = 1;
	ng_health_startup_check(h);
	return j;
}

size_t ng_health_test(ng_health_ctx *h, const uint32_t *s, size_t n, uint32_t *fired)
{
	return h->nstreams > 1 ? ng_health_run(h, s, n, fired, NG_STREAMS) : ng_health_run(h, s, n, fired, 1);
}

/* ---- NeuG 1.0.x's tests on the CRC output bytes ------------------------
 *
 * The bytes of each CRC value the pipeline uses, in the order they enter the
 * message or the output (little endian; in mode 0 only the low byte of a
 * block's last value). This reproduces NeuG's GET_INFO figures for adc.bin
 * in mode 0 (errors 0, rc_max 2, p64_max 3, p4k_max 22; doc/health.md):
 *   repetition count: A = the byte of the current run, B = its length;
 *     fires when B >= 9; rc_max = the longest run.
 *   adaptive proportion (W = 64 or 4096), from A = B = s = 0: for each byte
 *     x, if s >= W - 1 then x starts the next window (A = x, B = 0, s = 0),
 *     else s = s + 1 and, if x == A, B = B + 1 (the repeats of A after A).
 *     It fires when B + 1 (A's count, as in SP 800-90B) reaches the cutoff
 *     (18 or 315); p64_max / p4k_max = the largest B seen. */

void ng_neug_tests_init(ng_neug_tests_ctx *t)
{
	memset(t, 0, sizeof *t);
}

static inline void ng_neug_inc(uint16_t *c)
{
	if (*c != UINT16_MAX)
		(*c)++;
}

/* One adaptive proportion test of window w; true when it fired. */
NG_STEP bool ng_neug_apt(uint32_t *a, uint32_t *b, uint32_t *s, uint16_t *max,
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
	if (*b + 1 < cutoff)
		return false;
	ng_neug_inc(err);
	return true;
}

NG_STEP bool ng_neug_byte(ng_neug_tests_ctx *t, uint8_t x)
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

bool ng_neug_tests_byte(ng_neug_tests_ctx *t, uint8_t x)
{
	return ng_neug_byte(t, x);
}

/* A word is "plain" when no byte of it equals the byte before it (the RC's
 * A), its 64-byte window's A or the 4096-byte window's A, and no 4096-byte
 * window ends inside it: then each byte x sets the RC's A = x, B = 1, and
 * steps each APT's s (at s = W - 1, x starts the next window: A = x, B = 0);
 * nothing fires. Other words go through ng_neug_byte a byte at a time. */
static inline uint32_t ng_neug_same(uint32_t x, uint32_t last, uint32_t a64, uint32_t a4k)
{
	return ng_zero_lane(x ^ (x << 8 | last), 0x01010101u, 0x80808080u) |
	       ng_zero_lane(x ^ a64, 0x01010101u, 0x80808080u) | ng_zero_lane(x ^ a4k, 0x01010101u, 0x80808080u);
}

/* How many words at the start of v[0..n) are plain; moves t past them. */
static size_t ng_neug_plain_words(ng_neug_tests_ctx *t, const uint32_t *v, size_t n)
{
	if (!t->rc_max || t->p4k_i >= 4092)
		return 0;
	const uint32_t room4k = (4092 - t->p4k_i + 3) / 4, a4k = t->p4k_a * 0x01010101u;
	uint32_t a64 = t->p64_a * 0x01010101u, last = t->rc_a;
	uint32_t end = 63 - t->p64_i;   /* the next 64-byte window's first byte, from v[k]'s first */
	size_t k = 0;
	if (n > room4k)
		n = room4k;
	for (;;) {
		const size_t stop = n - k > end / 4 ? k + end / 4 : n;
		for (; k < stop && !NG_UNLIKELY(ng_neug_same(v[k], last, a64, a4k)); k++)
			last = v[k] >> 24;
		if (k < stop || k == n)
			break;
		/* byte `end` of x starts a window: the bytes below it compare
		 * with the old A, those above with the new (the others' lanes
		 * made nonzero) */
		const uint32_t x = v[k], sh = 8 * (end % 4), na = (x >> sh & 0xffu) * 0x01010101u;
		if (ng_neug_same(x, last, a64 | 0x01010101u << sh, a4k) |
		    ng_zero_lane((x ^ na) | 0x01010101u >> (24 - sh), 0x01010101u, 0x80808080u))
			break;
		a64 = na;
		t->p64_b = 0;
		last = x >> 24;
		k++;
		end = end % 4 + 60;
	}
	if (k) {
		t->rc_a = last;
		t->rc_b = 1;
		t->p64_a = a64 & 0xffu;
		t->p64_i = (t->p64_i + 4 * (uint32_t)k) % 64;
		t->p4k_i += 4 * (uint32_t)k;
	}
	return k;
}

bool ng_neug_tests_words(ng_neug_tests_ctx *t, const uint32_t *v, size_t n)
{
	bool fired = false;
	for (size_t j = 0;; j++) {
		j += ng_neug_plain_words(t, v + j, n - j);
		if (j == n)
			return fired;
		for (uint32_t b = 0; b < 32; b += 8)   /* low byte first */
			fired |= ng_neug_byte(t, (uint8_t)(v[j] >> b));
	}
}

const char *ng_health_name(uint32_t bit)
{
	switch (bit) {
	case NG_HEALTH_RCT: return "repetition count test";
	case NG_HEALTH_APT: return "adaptive proportion test";
	case NG_HEALTH_STARTUP: return "start-up test (running)";
	case NG_HEALTH_STARTUP_FAILED: return "start-up test";
	case NG_HEALTH_NEUG: return "NeuG CRC-output test";
	case NG_HEALTH_ESTIMATE: return "start-up entropy estimate";
	case NG_HEALTH_SELFTEST: return "known-answer self-test";
	case NG_HEALTH_PERSISTENT: return "persistent failure";
	default: return "no test";
	}
}

const char *ng_health_stream_name(uint32_t stream)
{
	return stream == NG_STREAM_ADC1 ? "ADC1" : stream == NG_STREAM_ADC2 ? "ADC2" : "samples";
}
