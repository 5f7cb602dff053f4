/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Ed25519 as RFC 8032 section 5.1 specifies it, written for size (the boot
 * loader verifies in a few KiB of flash) and for constant time wherever a
 * secret is involved (signing, on the host).
 *
 * The field GF(p), p = 2^255 - 19: an element is 16 signed 32-bit limbs of
 * 16 bits each, value = sum(l[i] * 2^(16 i)) mod p. A product is summed
 * column by column in 64 bits (limb k collects a[i] b[j] for i + j = k and
 * 38 a[i] b[j] for i + j = k + 16, since 2^256 = 38 mod p) and carried as
 * it goes. Bounds: a product's limbs are in [0, 2^16) (limb 15 in
 * [-1, 2^15]); sums and differences of two or three such elements (at most
 * one addition deep before the next multiplication) stay below 2^17.6 in
 * magnitude, so a column is below 16 * 38 * 2^35.2 < 2^45: no overflow.
 *
 * Points: extended coordinates (X : Y : Z : T), x = X/Z, y = Y/Z,
 * x y = T/Z (RFC 8032 5.1.4), and the RFC's addition formula for a = -1
 * written out step by step (ng_pt_add), which also doubles.
 * A public key must also not be of small order (ng_ed25519_public_ok).
 *
 * Scalars (mod L, L = 2^252 + 27742317777372353535851937790883648493):
 * 32 bytes, reduced one bit at a time with a masked subtraction (r = 2 r +
 * bit, minus L if that is not negative): slow but small and branch-free;
 * it runs once per verification and three times per signature.
 *
 * Right shifts of negative values are arithmetic (floor division by a
 * power of two), and a uint32_t above INT32_MAX converts to int32_t modulo
 * 2^32, with GCC and Clang, which this code assumes. */
#include <string.h>
#include "ed25519.h"
#include "ed25519_impl.h"
#include "ng/wipe.h"
#include "sha512.h"

typedef int32_t ng_fe[16];
typedef struct {
	ng_fe x, y, z, t;
} ng_pt;

/* Constants, little-endian: d = -121665/121666 and L. */
static const uint8_t ng_ed_d[32] = {
	0xa3, 0x78, 0x59, 0x13, 0xca, 0x4d, 0xeb, 0x75, 0xab, 0xd8, 0x41, 0x41, 0x4d, 0x0a, 0x70, 0x00,
	0x98, 0xe8, 0x79, 0x77, 0x79, 0x40, 0xc7, 0x8c, 0x73, 0xfe, 0x6f, 0x2b, 0xee, 0x6c, 0x03, 0x52,
};
static const uint8_t ng_ed_l[32] = {
	0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
};

/* ---- the field ---------------------------------------------------------- */

static void ng_fe_unpack(ng_fe o, const uint8_t b[32])
{
	for (int i = 0; i < 16; i++)
		o[i] = (int32_t)(b[2 * i] | (uint32_t)b[2 * i + 1] << 8);
	o[15] &= 0x7fff;
}

/* o = t + c, carried (o may be t): what is above bit 255 (limb 15's bits
 * from 15 up) comes back as 19 times it (2^255 = 19 mod p), then limbs
 * 0..14 keep their low 16 bits (0..65535) and pass the rest up to limb 15. */
static void ng_fe_carry(ng_fe o, const ng_fe t, int64_t c)
{
	int32_t top = t[15];
	c += 19 * (top >> 15);
	for (int i = 0; i < 15; i++) {
		c += t[i];
		o[i] = (int32_t)(c & 0xffff);
		c >>= 16;
	}
	o[15] = (top & 0x7fff) + (int32_t)c;
}

static void ng_fe_add(ng_fe o, const ng_fe a, const ng_fe b)
{
	for (int i = 0; i < 16; i++)
		o[i] = a[i] + b[i];
}

static void ng_fe_sub(ng_fe o, const ng_fe a, const ng_fe b)
{
	for (int i = 0; i < 16; i++)
		o[i] = a[i] - b[i];
}

/* o = a b (o may be a or b). The carry out of limb 15 has weight 2^256:
 * 38 times it goes into limb 0 for the last pass. */
static void ng_fe_mul(ng_fe o, const ng_fe a, const ng_fe b)
{
	ng_fe t;
	int64_t c = 0;
	for (int k = 0; k < 16; k++) {
		for (int i = 0; i < 16; i++) {
			int32_t x = i > k ? 38 * a[i] : a[i], y = b[(k - i) & 15];
			c += (int64_t)x * y;
		}
		t[k] = (int32_t)(c & 0xffff);
		c >>= 16;
	}
	ng_fe_carry(o, t, 38 * c);
}

/* The canonical encoding (value mod p, little-endian), in constant time.
 * Two carries leave limbs 0..14 in [0, 2^16) and limb 15 in [0, 2^15): a
 * value v below 2^255. The third adds 19, which sets bit 255 exactly when
 * v >= p; the fourth folds that bit (as 19) and takes the 19 back: v mod p. */
static void ng_fe_pack(uint8_t b[32], const ng_fe a)
{
	ng_fe t;
	ng_fe_carry(t, a, 0);
	ng_fe_carry(t, t, 0);
	ng_fe_carry(t, t, 19);
	ng_fe_carry(t, t, -19);
	for (int i = 0; i < 16; i++) {
		b[2 * i] = (uint8_t)t[i];
		b[2 * i + 1] = (uint8_t)(t[i] >> 8);
	}
}

/* o = x^e for the exponents of the form 2^(top+1) + 2^top + ... + 1 minus
 * the bits in skip (below 2^5): starting from x (the top bit), one squaring
 * per lower bit and a multiplication by x where the bit is set. */
static void ng_fe_pow(ng_fe o, const ng_fe x, int top, uint32_t skip)
{
	ng_fe c;
	memcpy(c, x, sizeof c);
	for (int a = top; a >= 0; a--) {
		ng_fe_mul(c, c, c);
		if (a > 4 || !((skip >> a) & 1))
			ng_fe_mul(c, c, x);
	}
	memcpy(o, c, sizeof c);
}

/* Of the canonical value: bit 1 set if it is not 0 (a != 0 mod p), bit 0
 * its least significant bit ("negative" x). */
static unsigned ng_fe_bits(const ng_fe a)
{
	uint8_t x[32];
	unsigned d = 0;
	ng_fe_pack(x, a);
	for (int i = 0; i < 32; i++)
		d |= x[i];
	return (unsigned)(d != 0) << 1 | (x[0] & 1u);
}

static int ng_fe_nonzero(const ng_fe a) { return (int)(ng_fe_bits(a) >> 1); }

static int ng_fe_parity(const ng_fe a) { return (int)(ng_fe_bits(a) & 1u); }

/* ---- the group ---------------------------------------------------------- */

static void ng_pt_zero(ng_pt *p)
{
	memset(p, 0, sizeof *p);
	p->y[0] = 1;
	p->z[0] = 1;
}

/* o = p + q (o may be p or q): RFC 8032 5.1.4's addition for a = -1, in
 * its steps (the RFC's names on the right):
 *   A = (Y1-X1)*(Y2-X2)   B = (Y1+X1)*(Y2+X2)   C = T1*2*d*T2   D = Z1*2*Z2
 *   E = B-A   F = D-C   G = D+C   H = B+A
 *   X3 = E*F   Y3 = G*H   T3 = E*H   Z3 = F*G
 * The formula is complete on this curve (a = -1 is a square mod p, d is
 * not: Bernstein and Lange's condition, which RFC 8032's curve meets), so
 * it also doubles: 2P is ng_pt_add(o, P, P). (The RFC's faster doubling
 * formula would be a second formula of 170 bytes in the boot loader.)
 * Each sum or difference is of at most three products (D counts twice),
 * inside the bounds at the top. The temporaries hold values that depend
 * on the scalar when signing: wiped before returning. */
static void ng_pt_add(ng_pt *o, const ng_pt *p, const ng_pt *q)
{
	struct {
		ng_fe a, b, c, d, e;
	} w;
	ng_fe_sub(w.a, p->y, p->x);
	ng_fe_sub(w.e, q->y, q->x);
	ng_fe_mul(w.a, w.a, w.e);       /* A = (Y1-X1)*(Y2-X2) */
	ng_fe_add(w.b, p->y, p->x);
	ng_fe_add(w.e, q->y, q->x);
	ng_fe_mul(w.b, w.b, w.e);       /* B = (Y1+X1)*(Y2+X2) */
	ng_fe_unpack(w.e, ng_ed_d);
	ng_fe_add(w.e, w.e, w.e);
	ng_fe_mul(w.c, p->t, w.e);
	ng_fe_mul(w.c, w.c, q->t);      /* C = T1*2*d*T2 */
	ng_fe_mul(w.d, p->z, q->z);
	ng_fe_add(w.d, w.d, w.d);       /* D = Z1*2*Z2 */
	ng_fe_sub(w.e, w.b, w.a);       /* E = B-A */
	ng_fe_add(w.b, w.b, w.a);       /* H = B+A (in b) */
	ng_fe_sub(w.a, w.d, w.c);       /* F = D-C (in a) */
	ng_fe_add(w.d, w.d, w.c);       /* G = D+C (in d) */
	ng_fe_mul(o->x, w.e, w.a);      /* X3 = E*F */
	ng_fe_mul(o->y, w.d, w.b);      /* Y3 = G*H */
	ng_fe_mul(o->t, w.e, w.b);      /* T3 = E*H */
	ng_fe_mul(o->z, w.a, w.d);      /* Z3 = F*G */
	ng_wipe(&w, sizeof w);
}

/* RFC 8032 5.1.2: y with the sign of x in the top bit. 1/Z = Z^(p-2),
 * p - 2 = 2^255 - 21: bits 254..0 but 4 and 2. */
static void ng_pt_encode(uint8_t out[32], const ng_pt *p)
{
	ng_fe zi, x, y;
	ng_fe_pow(zi, p->z, 253, (1u << 4) | (1u << 2));
	ng_fe_mul(x, p->x, zi);
	ng_fe_mul(y, p->y, zi);
	ng_fe_pack(out, y);
	out[31] = (uint8_t)(out[31] | ng_fe_parity(x) << 7);
}

/* RFC 8032 5.1.3, negated when neg is 1 (the verification wants -A).
 * Public input only (variable time). False if it does not decode: y >= p,
 * u/v not a square, or x = 0 with the sign bit set. */
static bool ng_pt_decode(ng_pt *p, const uint8_t in[32], int neg)
{
	ng_fe u, v, t;
	uint8_t c[32];
	ng_fe_unpack(p->y, in);
	ng_fe_pack(c, p->y); /* y mod p, equal to in (but the sign) if y < p */
	c[31] = (uint8_t)(c[31] | (in[31] & 0x80));
	if (memcmp(c, in, 32))
		return false;
	ng_fe_mul(u, p->y, p->y);
	ng_fe_unpack(v, ng_ed_d);
	ng_fe_mul(v, v, u);
	u[0] -= 1;               /* u = y^2 - 1 */
	v[0] += 1;               /* v = d y^2 + 1 (never 0) */
	/* x = (u/v)^((p+3)/8): 1/v = v^(p-2), p - 2 = 2^255 - 21 (bits 254..0
	 * but 4 and 2), then (p+3)/8 = 2^252 - 2 (bits 251..1) */
	ng_fe_pow(v, v, 253, (1u << 4) | (1u << 2));
	ng_fe_mul(u, u, v);      /* u = u/v from here on */
	ng_fe_pow(p->x, u, 250, 1u << 0);
	/* x^2 = u: x; = -u: x sqrt(-1); else no root. */
	ng_fe_mul(t, p->x, p->x);
	ng_fe_sub(v, t, u);
	if (ng_fe_nonzero(v)) {
		ng_fe_add(t, t, u);
		if (ng_fe_nonzero(t))
			return false;
		/* sqrt(-1) = 2^((p-1)/4), (p-1)/4 = 2^253 - 5: bits 252..0 but 2 */
		memset(t, 0, sizeof t);
		t[0] = 2;
		ng_fe_pow(t, t, 251, 1u << 2);
		ng_fe_mul(p->x, p->x, t);
	}
	int sign = in[31] >> 7;
	if (sign && !ng_fe_nonzero(p->x))
		return false;
	if (ng_fe_parity(p->x) != (sign ^ neg))
		for (int i = 0; i < 16; i++)
			p->x[i] = -p->x[i];
	memset(p->z, 0, sizeof p->z);
	p->z[0] = 1;
	ng_fe_mul(p->t, p->x, p->y);
	return true;
}

/* -A from a public key: it decodes (5.1.3) and is not of small order.
 * The 8 points of order 1, 2, 4 and 8 (the torsion, [8]P = the identity)
 * make weak keys: with A = the identity, R = the identity and S = 0
 * verify for any message. [8]A is the identity exactly when A is one of
 * them (the group is the torsion times a group of prime order L), and the
 * identity is the one point (0 : Y : Z : T) [8]A can be (the other, y = -1,
 * has order 2), so X = 0 after three doublings says it. Public input. */
static bool ng_pt_decode_key(ng_pt *a, const uint8_t pub[32])
{
	ng_pt e;
	const ng_pt *s = a;
	if (!ng_pt_decode(a, pub, 1))
		return false;
	for (int i = 0; i < 3; i++, s = &e)
		ng_pt_add(&e, s, s);
	return ng_fe_nonzero(e.x);
}

bool ng_ed25519_public_ok(const uint8_t pub[32])
{
	ng_pt a;
	return ng_pt_decode_key(&a, pub);
}

/* B, from its encoding (RFC 8032 5.1: y = 4/5, x positive): 0x58 then
 * 31 bytes of 0x66. */
static void ng_pt_base(ng_pt *b)
{
	uint8_t e[32];
	memset(e, 0x66, sizeof e);
	e[0] = 0x58;
	ng_pt_decode(b, e, 0);
}

/* Swaps a and b when mask is all ones, leaves them when it is 0: the same
 * loads, stores and operations either way (constant time). */
static void ng_fe_cswap(ng_fe a, ng_fe b, uint32_t mask)
{
	for (int i = 0; i < 16; i++) {
		uint32_t x = mask & ((uint32_t)a[i] ^ (uint32_t)b[i]);
		a[i] = (int32_t)((uint32_t)a[i] ^ x);
		b[i] = (int32_t)((uint32_t)b[i] ^ x);
	}
}

/* Swaps p and q when bit is 1 (bit is 0 or 1), in constant time. */
static void ng_pt_cswap(ng_pt *p, ng_pt *q, unsigned bit)
{
	uint32_t mask = 0u - (uint32_t)bit;
	ng_fe_cswap(p->x, q->x, mask);
	ng_fe_cswap(p->y, q->y, mask);
	ng_fe_cswap(p->z, q->z, mask);
	ng_fe_cswap(p->t, q->t, mask);
}

/* (out of line: fewer bytes than three inlined copies) */
__attribute__((noinline)) static unsigned ng_bit(const uint8_t *s, int i)
{
	return (s[i >> 3] >> (i & 7)) & 1u;
}

/* o = [s]B for a secret 256-bit scalar s (little-endian), in constant time:
 * for each bit from the top, (P, Q) becomes (2P, P+Q) or (P+Q, 2Q), with
 * Q - P = B throughout; the swaps are masked, the operations always the same. */
static void ng_pt_mul_base(ng_pt *o, const uint8_t s[32])
{
	ng_pt q;
	ng_pt_zero(o);
	ng_pt_base(&q);
	for (int i = 255; i >= 0; i--) {
		unsigned bit = ng_bit(s, i);
		ng_pt_cswap(o, &q, bit);
		ng_pt_add(&q, &q, o);
		ng_pt_add(o, o, o);
		ng_pt_cswap(o, &q, bit);
	}
	ng_wipe(&q, sizeof q);
}

/* ---- scalars mod L ------------------------------------------------------ */

/* r = x mod L for a 512-bit x (r and x apart), in constant time: r stays
 * below L; each step doubles it, adds the next bit of x (from the top),
 * notes whether that is below L (a borrow out of r - L) and subtracts L
 * masked by it. */
void ng_ed25519_sc_reduce(uint8_t r[32], const uint8_t x[64])
{
	memset(r, 0, 32);
	for (int i = 511; i >= 0; i--) {
		unsigned c = ng_bit(x, i), b = 0;
		for (int j = 0; j < 32; j++) {
			unsigned v = (unsigned)r[j] << 1 | c; /* r < 2^253: nothing leaves byte 31 */
			c = v >> 8;
			r[j] = (uint8_t)v;
			b = (((unsigned)r[j] - ng_ed_l[j] - b) >> 8) & 1;
		}
		unsigned m = b - 1u; /* all ones: r >= L */
		b = 0;
		for (int j = 0; j < 32; j++) {
			unsigned v = (unsigned)r[j] - (ng_ed_l[j] & m) - b;
			r[j] = (uint8_t)v;
			b = (v >> 8) & 1;
		}
	}
}

/* out = (a + b c) mod L; a, b below L, c below 2^256. Constant time. */
static void ng_sc_muladd(uint8_t out[32], const uint8_t a[32], const uint8_t b[32], const uint8_t c[32])
{
	uint32_t t[64]; /* column sums: below 32 * 255^2 + 2^8 < 2^21 */
	uint8_t x[64];
	memset(t, 0, sizeof t);
	for (int i = 0; i < 32; i++) {
		t[i] += a[i];
		for (int j = 0; j < 32; j++)
			t[i + j] += (uint32_t)b[i] * c[j];
	}
	uint32_t carry = 0; /* a + b c < 2^510: nothing leaves byte 63 */
	for (int i = 0; i < 64; i++) {
		carry += t[i];
		x[i] = (uint8_t)carry;
		carry >>= 8;
	}
	ng_ed25519_sc_reduce(out, x);
	ng_wipe(t, sizeof t);
	ng_wipe(x, sizeof x);
}

/* S < L (RFC 8032 5.1.7 step 1), public input: compared from the top. */
static bool ng_sc_canonical(const uint8_t s[32])
{
	for (int i = 31; i >= 0; i--)
		if (s[i] != ng_ed_l[i])
			return s[i] < ng_ed_l[i];
	return false;
}

/* k = SHA-512(R || A || M) mod L */
static void ng_ed_challenge(uint8_t k[32], const uint8_t r[32], const uint8_t a[32],
			    const uint8_t *msg, size_t len)
{
	ng_sha512_ctx c;
	uint8_t h[64];
	ng_sha512_init(&c);
	ng_sha512_update(&c, r, 32);
	ng_sha512_update(&c, a, 32);
	ng_sha512_update(&c, msg, len);
	ng_sha512_final(&c, h);
	ng_ed25519_sc_reduce(k, h);
}

/* ---- RFC 8032 5.1.5 to 5.1.7 -------------------------------------------- */

/* The secret scalar s (pruned: 5.1.5 step 2) and the prefix, from SHA-512
 * of the secret key. */
static void ng_ed_expand(uint8_t h[64], const uint8_t secret[32])
{
	ng_sha512(h, secret, 32);
	h[0] &= 248;
	h[31] &= 127;
	h[31] |= 64;
}

void ng_ed25519_public_key(uint8_t pub[32], const uint8_t secret[32])
{
	uint8_t h[64];
	ng_pt a;
	ng_ed_expand(h, secret);
	ng_pt_mul_base(&a, h);
	ng_pt_encode(pub, &a);
	ng_wipe(h, sizeof h);
	ng_wipe(&a, sizeof a);
}

/* Wiped before returning, here and in what it calls: the expanded secret
 * (s and the prefix), the nonce's hash and r, the ladder's points and the
 * point addition's temporaries, the SHA-512 contexts (ng_sha512_final) and
 * S's column sums. Not wiped: the field routines' own few words (one
 * product's columns, a power's accumulator, an encoding's inverse of Z),
 * which the next call overwrites. */
void ng_ed25519_sign(uint8_t sig[64], const uint8_t secret[32], const uint8_t *msg, size_t len)
{
	uint8_t h[64], pub[32], rh[64], r[32], k[32];
	ng_pt p;
	ng_sha512_ctx c;
	ng_ed_expand(h, secret);
	ng_pt_mul_base(&p, h);
	ng_pt_encode(pub, &p);
	/* r = SHA-512(prefix || M) mod L, R = [r]B */
	ng_sha512_init(&c);
	ng_sha512_update(&c, h + 32, 32);
	ng_sha512_update(&c, msg, len);
	ng_sha512_final(&c, rh);
	ng_ed25519_sc_reduce(r, rh);
	ng_pt_mul_base(&p, r);
	ng_pt_encode(sig, &p);
	/* S = (r + k s) mod L */
	ng_ed_challenge(k, sig, pub, msg, len);
	ng_sc_muladd(sig + 32, r, k, h);
	ng_wipe(h, sizeof h);
	ng_wipe(rh, sizeof rh);
	ng_wipe(r, sizeof r);
	ng_wipe(&p, sizeof p);
}

bool ng_ed25519_verify(const uint8_t sig[64], const uint8_t pub[32], const uint8_t *msg, size_t len)
{
	ng_pt t[4], p; /* t[1] = B, t[2] = -A, t[3] = B - A (t[0] unused) */
	uint8_t k[32], r[32];
	if (!ng_sc_canonical(sig + 32) || !ng_pt_decode_key(&t[2], pub))
		return false;
	ng_pt_base(&t[1]);
	ng_pt_add(&t[3], &t[1], &t[2]);
	ng_ed_challenge(k, sig, pub, msg, len);
	/* [S]B - [k]A, both scalars below L < 2^253: bits 252..0 together. */
	ng_pt_zero(&p);
	for (int i = 252; i >= 0; i--) {
		ng_pt_add(&p, &p, &p);
		unsigned sel = ng_bit(sig + 32, i) | ng_bit(k, i) << 1;
		if (sel)
			ng_pt_add(&p, &p, &t[sel]);
	}
	ng_pt_encode(r, &p);
	return memcmp(r, sig, 32) == 0;
}

ng_status ng_ed25519_selftest(void)
{
	/* FIPS 180-4's example: SHA-512("abc"), its first 16 bytes. */
	static const uint8_t abc[16] = {
		0xdd, 0xaf, 0x35, 0xa1, 0x93, 0x61, 0x7a, 0xba, 0xcc, 0x41, 0x73, 0x49, 0xae, 0x20, 0x41, 0x31,
	};
	/* RFC 8032 7.1 TEST 2: public key, message 0x72, signature. */
	static const uint8_t pub[32] = {
		0x3d, 0x40, 0x17, 0xc3, 0xe8, 0x43, 0x89, 0x5a, 0x92, 0xb7, 0x0a, 0xa7, 0x4d, 0x1b, 0x7e, 0xbc,
		0x9c, 0x98, 0x2c, 0xcf, 0x2e, 0xc4, 0x96, 0x8c, 0xc0, 0xcd, 0x55, 0xf1, 0x2a, 0xf4, 0x66, 0x0c,
	};
	static const uint8_t sig[64] = {
		0x92, 0xa0, 0x09, 0xa9, 0xf0, 0xd4, 0xca, 0xb8, 0x72, 0x0e, 0x82, 0x0b, 0x5f, 0x64, 0x25, 0x40,
		0xa2, 0xb2, 0x7b, 0x54, 0x16, 0x50, 0x3f, 0x8f, 0xb3, 0x76, 0x22, 0x23, 0xeb, 0xdb, 0x69, 0xda,
		0x08, 0x5a, 0xc1, 0xe4, 0x3e, 0x15, 0x99, 0x6e, 0x45, 0x8f, 0x36, 0x13, 0xd0, 0xf1, 0x1d, 0x8c,
		0x38, 0x7b, 0x2e, 0xae, 0xb4, 0x30, 0x2a, 0xee, 0xb0, 0x0d, 0x29, 0x16, 0x12, 0xbb, 0x0c, 0x00,
	};
	static const uint8_t msg = 0x72;
	uint8_t d[64], s[64];
	ng_sha512(d, "abc", 3);
	if (memcmp(d, abc, sizeof abc))
		return NG_ERR_SELFTEST;
	if (!ng_ed25519_verify(sig, pub, &msg, 1))
		return NG_ERR_SELFTEST;
	memcpy(s, sig, 64);
	s[5] ^= 0x10;
	if (ng_ed25519_verify(s, pub, &msg, 1))
		return NG_ERR_SELFTEST;
	/* S + L: the same point equation, but S is not canonical. */
	unsigned carry = 0;
	for (int i = 0; i < 32; i++) {
		carry += (unsigned)sig[32 + i] + ng_ed_l[i];
		s[32 + i] = (uint8_t)carry;
		carry >>= 8;
	}
	memcpy(s, sig, 32);
	if (ng_ed25519_verify(s, pub, &msg, 1))
		return NG_ERR_SELFTEST;
	return NG_OK;
}
