/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internal to core/src: the per-sample step of the raw-sample health tests,
 * inline so that the pipeline's hot loop pays a compare or two per sample.
 * The rare paths (a test at its cutoff) are out of line in health.c. */
#ifndef NG_HEALTH_IMPL_H
#define NG_HEALTH_IMPL_H
#include "ng/health.h"

uint32_t ng_health_rct_hit(ng_health_ctx *h);
uint32_t ng_health_apt_hit(ng_health_ctx *h);
void ng_health_startup_done(ng_health_ctx *h);

static inline uint32_t ng_health_step(ng_health_ctx *h, uint32_t s)
{
	uint32_t fired = 0;
	/* ---- SP 800-90B 4.4.1 Repetition Count Test ---------------------- */
	if (s == h->rct_a) {
		/* Step 2a: if x_i = A, B = B + 1. (B = 0 before the first sample,
		 * so the first sample, whatever it is, leaves B = 1.) */
		if (++h->rct_b > h->rct_max)
			h->rct_max = h->rct_b;
		/* Step 2a.ii: if B >= C, the test fires. */
		if (h->rct_b >= h->rct_cutoff)
			fired |= ng_health_rct_hit(h);
	} else {
		/* Step 2b: A = x_i, B = 1. */
		h->rct_a = s;
		h->rct_b = 1;
		if (!h->rct_max)
			h->rct_max = 1;
	}
	/* ---- SP 800-90B 4.4.2 Adaptive Proportion Test ------------------- */
	if (h->apt_i == 0) {
		/* Steps 1-2: A = the first sample of the window, B = 1. */
		h->apt_a = s;
		h->apt_b = 1;
		if (!h->apt_max)
			h->apt_max = 1;
	} else if (s == h->apt_a) {
		/* Step 3a: if A = x_i, B = B + 1; step 3b: if B >= C, fire. */
		if (++h->apt_b > h->apt_max)
			h->apt_max = h->apt_b;
		if (h->apt_b >= h->apt_cutoff)
			fired |= ng_health_apt_hit(h);
	}
	/* Step 3 loops over i = 1 .. W-1: the next sample starts a new window. */
	if (++h->apt_i == h->apt_window)
		h->apt_i = 0;
	if (++h->samples == NG_STARTUP_SAMPLES)
		ng_health_startup_done(h);
	return fired;
}


/* ---- NeuG's byte tests, word at a time (semantics in health.c) --------- */
bool ng_neug_tests_word_slow(ng_neug_tests_ctx *t, uint32_t v);

/* Bytes of x that are zero: 0x80 in each such byte position, else 0 (exact:
 * no carry crosses a byte in (x & 0x7f..) + 0x7f..). */
static inline uint32_t ng_zero_bytes(uint32_t x)
{
	return ~(((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x) & 0x80808080u;
}

/* The common case in a few word operations: no two neighbouring bytes equal
 * (no run grows), no window ends inside the word, and no count nears its
 * cutoff; the result is then what four ng_neug_tests_byte calls (low byte
 * first) would leave. Anything else goes byte by byte. */
#if defined(__GNUC__) || defined(__clang__)
#define NG_HEALTH_INLINE static inline __attribute__((always_inline))
#else
#define NG_HEALTH_INLINE static inline
#endif

/* 4 bytes at b, little endian (one load where the CPU is little endian). */
NG_HEALTH_INLINE uint32_t ng_get_le32(const uint8_t *b)
{
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t v;
	__builtin_memcpy(&v, b, 4);
	return v;
#else
	return b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
#endif
}

/* v as 4 bytes at d, little endian (one store where the CPU is). */
NG_HEALTH_INLINE void ng_put_le32(uint8_t *d, uint32_t v)
{
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	__builtin_memcpy(d, &v, 4);   /* one store (memcpy is no builtin when freestanding) */
#else
	d[0] = (uint8_t)v;
	d[1] = (uint8_t)(v >> 8);
	d[2] = (uint8_t)(v >> 16);
	d[3] = (uint8_t)(v >> 24);
#endif
}

/* v with its bytes reversed. */
NG_HEALTH_INLINE uint32_t ng_bswap32(uint32_t v)
{
#if defined(__GNUC__) || defined(__clang__)
	return __builtin_bswap32(v);
#else
	return v >> 24 | (v >> 8 & 0xff00u) | (v << 8 & 0xff0000u) | v << 24;
#endif
}

/* The word path past the commonest case (health.c, out of line). */
bool ng_neug_tests_word_mid(ng_neug_tests_ctx *t, uint32_t v);

/* No byte of v equals the byte before it (prev: v shifted up a byte, the
 * byte before v below) or a byte of a64 or a4k (each window's A in every
 * byte). ((u - 0x01..) & ~u & 0x80.. is nonzero exactly when u has a zero
 * byte.) */
NG_HEALTH_INLINE bool ng_neug_plain(uint32_t v, uint32_t prev, uint32_t a64, uint32_t a4k)
{
	uint32_t x = v ^ prev, y = v ^ a64, z = v ^ a4k;
	return !((((x - 0x01010101u) & ~x) | ((y - 0x01010101u) & ~y) | ((z - 0x01010101u) & ~z)) &
		 0x80808080u);
}

/* Inline in the pipeline's loops: the commonest case, else a call. */
NG_HEALTH_INLINE bool ng_neug_word(ng_neug_tests_ctx *t, uint32_t v)
{
	uint32_t prev = (v << 8) | (t->rc_a & 0xffu);
	/* Commonest of all (about 95% of random words): no byte equals its
	 * predecessor or either window's A, and neither window ends inside the
	 * word. Then every run is 1 long and no count moves: only the window
	 * positions advance. */
	if (ng_neug_plain(v, prev, t->p64_a * 0x01010101u, t->p4k_a * 0x01010101u) &&
	    t->p64_i + 4 < 64 && t->p4k_i + 4 < 4096 && t->rc_max) {
		t->rc_a = v >> 24;
		t->rc_b = 1;
		t->p64_i += 4;
		t->p4k_i += 4;
		return false;
	}
	return ng_neug_tests_word_mid(t, v);
}

/* The word in which the 64-byte window ends (63 - p64_i = r in 0..3: byte r
 * starts the next one) and the 4096-byte one does not, when v is plain
 * against the state (ng_neug_plain: no byte equals the byte before it or
 * either window's A, so no run grows and no count moves before byte r):
 * what ng_neug_tests_word leaves, in a few word operations. Byte r becomes
 * A; B counts the bytes after it equal to it (at most 2: never a firing). */
NG_HEALTH_INLINE void ng_neug_word_end(ng_neug_tests_ctx *t, uint32_t v)
{
	uint32_t r = 63u - t->p64_i, a = (v >> (8 * r)) & 0xffu;
	uint32_t b = r < 3 ? ng_zero_bytes(v ^ (a * 0x01010101u)) & (0x80808080u << (8 * (r + 1))) : 0;
	b = ((b >> 7) * 0x01010101u) >> 24;
	if (b > t->p64_max)
		t->p64_max = (uint16_t)b;
	t->p64_i = 3u - r;
	t->p64_a = a;
	t->p64_b = b;
	t->rc_a = v >> 24;
	t->rc_b = 1;
	t->p4k_i += 4;
}

static inline bool ng_neug_word_mid(ng_neug_tests_ctx *t, uint32_t v)
{
	uint32_t prev = (v << 8) | (t->rc_a & 0xffu);
	if (ng_zero_bytes(v ^ prev) || !t->rc_max || t->p4k_i + 4 >= 4096)
		return ng_neug_tests_word_slow(t, v);
	uint32_t c4k = ng_zero_bytes(v ^ (t->p4k_a * 0x01010101u));
	c4k = ((c4k >> 7) * 0x01010101u) >> 24;
	uint32_t i64 = t->p64_i, a64 = t->p64_a, b64 = t->p64_b, m64 = t->p64_max;
	uint32_t lo = 0x80808080u, r = 4;
	if (i64 + 4 >= 64) {
		/* the 64-byte window ends inside this word: byte r starts the next */
		r = 63 - i64;
		lo = r ? 0x80808080u >> (32 - 8 * r) : 0;
	}
	uint32_t c64 = ng_zero_bytes(v ^ (a64 * 0x01010101u)) & lo;
	c64 = ((c64 >> 7) * 0x01010101u) >> 24;
	if (b64 + c64 + 1 >= NG_NEUG_APT64_CUTOFF || t->p4k_b + c4k + 1 >= NG_NEUG_APT4K_CUTOFF)
		return ng_neug_tests_word_slow(t, v);
	b64 += c64;
	if (b64 > m64)
		m64 = b64;
	if (r < 4) {
		uint32_t hi = r < 3 ? 0x80808080u << (8 * (r + 1)) : 0;
		a64 = (v >> (8 * r)) & 0xffu;
		b64 = ng_zero_bytes(v ^ (a64 * 0x01010101u)) & hi;
		b64 = ((b64 >> 7) * 0x01010101u) >> 24;
		if (b64 > m64)
			m64 = b64;
		i64 = 3 - r;
	} else {
		i64 += 4;
	}
	t->p64_i = i64;
	t->p64_a = a64;
	t->p64_b = b64;
	t->p64_max = (uint16_t)m64;
	t->rc_a = v >> 24;
	t->rc_b = 1;
	t->p4k_i += 4;
	if (c4k && (t->p4k_b += c4k) > t->p4k_max)
		t->p4k_max = (uint16_t)t->p4k_b;
	return false;
}

/* One byte, as ng_neug_tests_byte: in the common case (it equals neither
 * the byte before it nor either window's A, and ends no window) only the
 * positions move. */
NG_HEALTH_INLINE bool ng_neug_byte(ng_neug_tests_ctx *t, uint8_t x)
{
	if (x == t->rc_a || x == t->p64_a || x == t->p4k_a || t->p64_i >= 63u || t->p4k_i >= 4095u ||
	    !t->rc_max)
		return ng_neug_tests_byte(t, x);
	t->rc_a = x;
	t->rc_b = 1;
	t->p64_i++;
	t->p4k_i++;
	return false;
}

#endif
