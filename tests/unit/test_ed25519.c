/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Ed25519 (boot/ed25519.c): the RFC 8032 7.1 test vectors (tests/data),
 * OpenSSL as the oracle in both directions on random keys and messages,
 * flipped bits rejected, the encodings RFC 8032 5.1.3 and 5.1.7 refuse
 * (y >= p, no square root, x = 0 with the sign bit, S >= L), the 8
 * small-order keys in 14 encodings refused where OpenSSL accepts the
 * forgery they allow, ed25519-speccheck's 12 cases and a subset of
 * Wycheproof's tests (tests/data), the
 * reduction mod L against OpenSSL's BIGNUM, and the built-in self-test. */
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <string.h>
#include "check.h"
#include "ed25519_oracle.h"
#include "ed25519.h"
#include "ed25519_impl.h"
#include "sha512.h"

static size_t unhex(uint8_t *out, size_t cap, const char *h)
{
	size_t n = 0;
	if (!strcmp(h, "-"))
		return 0;
	for (; h[0] && h[1] && n < cap; h += 2) {
		unsigned v;
		if (sscanf(h, "%2x", &v) != 1)
			break;
		out[n++] = (uint8_t)v;
	}
	return n;
}

static int ossl_sign(uint8_t sig[64], const uint8_t seed[32], const uint8_t *m, size_t n)
{
	EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	size_t len = 64;
	int ok = k && c && EVP_DigestSignInit(c, NULL, NULL, NULL, k) == 1 &&
		 EVP_DigestSign(c, sig, &len, m, n) == 1 && len == 64;
	EVP_MD_CTX_free(c);
	EVP_PKEY_free(k);
	return ok;
}

static int ossl_public(uint8_t pub[32], const uint8_t seed[32])
{
	EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
	size_t len = 32;
	int ok = k && EVP_PKEY_get_raw_public_key(k, pub, &len) == 1 && len == 32;
	EVP_PKEY_free(k);
	return ok;
}

static void rfc_vectors(void)
{
	char path[512];
	snprintf(path, sizeof path, "%s/rfc8032/ed25519.txt", ng_vectors_dir());
	FILE *f = fopen(path, "r");
	if (!CHECK(f != NULL, "open %s", path))
		return;
	static char line[8][4096];
	int field = 0, tests = 0;
	static uint8_t msg[2048];
	while (fgets(line[field], sizeof line[field], f)) {
		line[field][strcspn(line[field], "\r\n")] = 0;
		if (!line[field][0] || line[field][0] == '#')
			continue;
		if (++field < 5)
			continue;
		field = 0;
		const char *name = line[0];
		uint8_t sk[32], pk[32], sig[64], mine[64], pub[32];
		unhex(sk, 32, line[1]);
		unhex(pk, 32, line[2]);
		size_t n = unhex(msg, sizeof msg, line[3]);
		unhex(sig, 64, line[4]);
		ng_ed25519_public_key(pub, sk);
		CHECK(!memcmp(pub, pk, 32), "RFC 8032 7.1 %s: public key from the secret key", name);
		ng_ed25519_sign(mine, sk, msg, n);
		CHECK(!memcmp(mine, sig, 64), "RFC 8032 7.1 %s: signature (%zu-byte message)", name, n);
		CHECK(ng_ed25519_verify(sig, pk, msg, n), "RFC 8032 7.1 %s: verifies", name);
		sig[63] ^= 0x01;
		CHECK(!ng_ed25519_verify(sig, pk, msg, n), "RFC 8032 7.1 %s: a flipped bit of S is rejected", name);
		sig[63] ^= 0x01;
		sig[0] ^= 0x80;
		CHECK(!ng_ed25519_verify(sig, pk, msg, n), "RFC 8032 7.1 %s: a flipped bit of R is rejected", name);
		sig[0] ^= 0x80;
		if (n) {
			msg[n / 2] ^= 0x04;
			CHECK(!ng_ed25519_verify(sig, pk, msg, n), "RFC 8032 7.1 %s: a flipped message bit is rejected", name);
		} else {
			CHECK(!ng_ed25519_verify(sig, pk, (const uint8_t *)"", 1), "RFC 8032 7.1 %s: a longer message is rejected", name);
		}
		tests++;
	}
	fclose(f);
	CHECK(tests == 5, "RFC 8032 7.1: all five tests read (TEST 1, 2, 3, 1024, SHA(abc)): %d", tests);
}

static void openssl_oracle(uint64_t *seed)
{
	enum { N = 150 };
	static uint8_t msg[600];
	int pub_ok = 0, sig_ok = 0, ours_in_ossl = 0, ossl_in_ours = 0, flips = 0, flips_ossl = 0,
	    other_key = 0;
	uint8_t prev_pub[32] = { 0 };
	for (int it = 0; it < N; it++) {
		uint8_t sk[32], pk[32], opk[32], sig[64], osig[64];
		for (int i = 0; i < 32; i++)
			sk[i] = (uint8_t)ng_test_rand(seed);
		size_t n = (size_t)(ng_test_rand(seed) % sizeof msg);
		if (it < 4)
			n = (size_t)it; /* 0..3-byte messages */
		for (size_t i = 0; i < n; i++)
			msg[i] = (uint8_t)ng_test_rand(seed);
		ng_ed25519_public_key(pk, sk);
		pub_ok += ossl_public(opk, sk) && !memcmp(pk, opk, 32);
		ng_ed25519_sign(sig, sk, msg, n);
		sig_ok += ossl_sign(osig, sk, msg, n) && !memcmp(sig, osig, 64);
		ours_in_ossl += ossl_verify(sig, pk, msg, n);
		ossl_in_ours += ng_ed25519_verify(osig, opk, msg, n);
		/* one random bit of signature, key or message flipped */
		size_t bit = (size_t)(ng_test_rand(seed) % ((64 + 32 + n) * 8));
		uint8_t *p = bit < 512 ? sig : bit < 768 ? pk : msg;
		size_t at = bit < 512 ? bit : bit < 768 ? bit - 512 : bit - 768;
		p[at / 8] ^= (uint8_t)(1u << (at % 8));
		flips += !ng_ed25519_verify(sig, pk, msg, n);
		flips_ossl += !ossl_verify(sig, pk, msg, n);
		p[at / 8] ^= (uint8_t)(1u << (at % 8));
		if (it)
			other_key += !ng_ed25519_verify(sig, prev_pub, msg, n);
		memcpy(prev_pub, pk, 32);
	}
	CHECK(pub_ok == N, "OpenSSL: %d/%d random secret keys give OpenSSL's public key", pub_ok, N);
	CHECK(sig_ok == N, "OpenSSL: %d/%d signatures identical to OpenSSL's (0..599-byte messages)", sig_ok, N);
	CHECK(ours_in_ossl == N, "OpenSSL: %d/%d of our signatures verify in OpenSSL", ours_in_ossl, N);
	CHECK(ossl_in_ours == N, "OpenSSL: %d/%d of OpenSSL's signatures verify in ours", ossl_in_ours, N);
	CHECK(flips == N, "%d/%d signatures with one flipped bit (signature, key or message) rejected", flips, N);
	CHECK(flips_ossl == N, "OpenSSL agrees: %d/%d of those rejected", flips_ossl, N);
	CHECK(other_key == N - 1, "%d/%d signatures rejected under another key", other_key, N - 1);
}

/* Encodings RFC 8032 refuses, each where a verifier that skipped the check
 * would accept: A = the identity (any k works), R = [S]B. */
static void refused_encodings(void)
{
	uint8_t sk[32], h[64], wide[64], sig[64];
	memset(sk, 0x5a, sizeof sk);
	ng_ed25519_public_key(sig, sk); /* R = [a]B */
	ng_sha512(h, sk, 32);
	h[0] &= 248;
	h[31] = (uint8_t)((h[31] & 127) | 64);
	memset(wide, 0, sizeof wide);
	memcpy(wide, h, 32);
	ng_ed25519_sc_reduce(sig + 32, wide); /* S = a mod L, so [S]B = R */
	const uint8_t m[3] = { 1, 2, 3 };
	uint8_t id[32] = { 1 };
	CHECK(ossl_verify(sig, id, m, 3), "A = identity (01 00..00), R = [S]B: OpenSSL accepts it (the construction is right)");
	CHECK(!ng_ed25519_verify(sig, id, m, 3), "A = identity, R = [S]B: refused (A of small order)");
	uint8_t y_p1[32];
	memset(y_p1, 0xff, sizeof y_p1);
	y_p1[0] = 0xee;
	y_p1[31] = 0x7f; /* y = p + 1, the identity's y + p */
	CHECK(!ng_ed25519_verify(sig, y_p1, m, 3), "A with y = p + 1 (non-canonical identity) rejected (5.1.3: y >= p)");
	uint8_t y_p[32];
	memcpy(y_p, y_p1, 32);
	y_p[0] = 0xed; /* y = p */
	CHECK(!ng_ed25519_verify(sig, y_p, m, 3), "A with y = p rejected (5.1.3: y >= p)");
	uint8_t neg0[32] = { 1 };
	neg0[31] = 0x80; /* y = 1 (x = 0) with the sign bit */
	CHECK(!ng_ed25519_verify(sig, neg0, m, 3), "A with x = 0 and the sign bit set rejected (5.1.3 step 4)");
	uint8_t nosq[32] = { 2 }; /* y = 2: (y^2 - 1)/(d y^2 + 1) is not a square */
	CHECK(!ng_ed25519_verify(sig, nosq, m, 3), "A with y = 2 (no square root) rejected (5.1.3 step 3)");
	/* R: with A = identity and S = 0, [S]B - [k]A is the identity, whose
	 * encoding is 01 00..00; the same point as y = p + 1 is not accepted. */
	uint8_t s2[64] = { 1 };
	CHECK(ossl_verify(s2, id, m, 3), "S = 0, A = R = identity: OpenSSL accepts it");
	CHECK(!ng_ed25519_verify(s2, id, m, 3), "S = 0, A = R = identity: refused (A of small order)");
	memcpy(s2, y_p1, 32);
	CHECK(!ng_ed25519_verify(s2, id, m, 3), "the same with R encoded as y = p + 1 rejected");

	/* S >= L: S + L, S = L, S = 2^256 - 1 */
	static const uint8_t l[32] = { 0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7,
				       0xa2, 0xde, 0xf9, 0xde, 0x14, [31] = 0x10 };
	memset(sk, 0x33, sizeof sk);
	uint8_t pk[32], good[64], bad[64];
	ng_ed25519_public_key(pk, sk);
	ng_ed25519_sign(good, sk, m, 3);
	memcpy(bad, good, 64);
	unsigned carry = 0;
	for (int i = 0; i < 32; i++) {
		carry += (unsigned)good[32 + i] + l[i];
		bad[32 + i] = (uint8_t)carry;
		carry >>= 8;
	}
	CHECK(ng_ed25519_verify(good, pk, m, 3), "a fresh signature verifies");
	CHECK(!ng_ed25519_verify(bad, pk, m, 3), "the same signature with S + L (same equation, S >= L) rejected (5.1.7)");
	CHECK(!ossl_verify(bad, pk, m, 3), "OpenSSL rejects S + L too");
	memcpy(bad + 32, l, 32);
	CHECK(!ng_ed25519_verify(bad, pk, m, 3), "S = L rejected");
	memset(bad + 32, 0xff, 32);
	CHECK(!ng_ed25519_verify(bad, pk, m, 3), "S = 2^256 - 1 rejected");
}

/* Weak keys: under each small-order A, the forgery R = the identity, S = 0
 * verifies for the messages whose k is a multiple of A's order (1 in 8 or
 * more) in a verifier that accepts such keys: OpenSSL does (cofactorless,
 * RFC 8032 5.1.7 as written), and finds such a message among the first
 * 64; ours refuses the key itself and so the forgery. A regression to
 * lenient decoding fails here. */
static void weak_keys(void)
{
	int n = (int)(sizeof small_order / sizeof small_order[0]);
	for (int i = 0; i < n; i++) {
		uint8_t a[32], sig[64] = { 1 }; /* R = 01 00..00 (the identity), S = 0 */
		unhex(a, 32, small_order[i]);
		const char *kind = i < 8 ? "canonical" : "non-canonical";
		CHECK(!ng_ed25519_public_ok(a), "small-order key %d (%s) %.8s..%s refused by ng_ed25519_public_ok", i,
		      kind, small_order[i], small_order[i] + 62);
		int found = -1, ours = 0;
		for (unsigned t = 0; t < 64 && found < 0; t++) {
			uint8_t msg[4] = { (uint8_t)t, 0x4e, 0x47, 0x21 };
			if (ossl_verify(sig, a, msg, 4)) {
				found = (int)t;
				ours = ng_ed25519_verify(sig, a, msg, 4);
			}
		}
		if (CHECK(found >= 0, "small-order key %d (%s): OpenSSL accepts R = identity, S = 0 (message %d)", i, kind,
			  found))
			CHECK(!ours, "small-order key %d (%s): the same forgery refused by ng_ed25519_verify", i, kind);
	}
	/* keys that pass: from secret keys, and B itself */
	uint64_t seed = 0x6b6579;
	int good = 0;
	for (int i = 0; i < 64; i++) {
		uint8_t sk[32], pk[32];
		for (int j = 0; j < 32; j++)
			sk[j] = (uint8_t)ng_test_rand(&seed);
		ng_ed25519_public_key(pk, sk);
		good += ng_ed25519_public_ok(pk);
	}
	uint8_t b[32];
	memset(b, 0x66, sizeof b);
	b[0] = 0x58;
	CHECK(good == 64 && ng_ed25519_public_ok(b), "%d/64 public keys of random secret keys, and B, pass ng_ed25519_public_ok", good);
	/* y = 2 (no square root) and y = p + 2 (non-canonical) */
	uint8_t bad[32] = { 2 };
	CHECK(!ng_ed25519_public_ok(bad), "y = 2 (not on the curve) refused by ng_ed25519_public_ok");
	memset(bad, 0xff, sizeof bad);
	bad[0] = 0xef;
	bad[31] = 0x7f;
	CHECK(!ng_ed25519_public_ok(bad), "y = p + 2 (non-canonical) refused by ng_ed25519_public_ok");
}

/* ed25519-speccheck's 12 cases (tests/data/speccheck/cases.txt): the
 * verdict of this verifier (cofactorless, S < L, canonical R, A canonical
 * and not of small order) for each, and OpenSSL's beside it. */
static void speccheck(void)
{
	/* case: 0, 1 small-order A (OpenSSL accepts); 2 mixed A, small R;
	 * 3 mixed A and R; 4 passes only cofactored; 5 S > L (prepared to
	 * pass); 6, 7 S >> L and pre-reduced k; 8, 9 non-canonical R; 10, 11
	 * non-canonical small-order A (OpenSSL accepts 11). */
	static const int ours_expect[12] = { 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const int ossl_expect[12] = { 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1 };
	char path[512];
	snprintf(path, sizeof path, "%s/speccheck/cases.txt", ng_vectors_dir());
	FILE *f = fopen(path, "r");
	if (!CHECK(f != NULL, "open %s", path))
		return;
	char line[3][300];
	int n = 0, ours_ok = 0, ossl_ok = 0;
	if (fgets(line[0], sizeof line[0], f))
		for (; n < 12 && fgets(line[0], sizeof line[0], f) && fgets(line[1], sizeof line[1], f) &&
		       fgets(line[2], sizeof line[2], f);
		     n++) {
			uint8_t m[32], pk[32], sig[64];
			if (strncmp(line[0], "msg=", 4) || strncmp(line[1], "pbk=", 4) || strncmp(line[2], "sig=", 4) ||
			    unhex(m, 32, line[0] + 4) != 32 || unhex(pk, 32, line[1] + 4) != 32 ||
			    unhex(sig, 64, line[2] + 4) != 64)
				break;
			int ours = ng_ed25519_verify(sig, pk, m, 32), ossl = ossl_verify(sig, pk, m, 32);
			ours_ok += ours == ours_expect[n];
			ossl_ok += ossl == ossl_expect[n];
			if (ours != ours_expect[n] || ossl != ossl_expect[n])
				printf("# speccheck case %d: ours %d (want %d), OpenSSL %d (want %d)\n", n, ours, ours_expect[n],
				       ossl, ossl_expect[n]);
		}
	fclose(f);
	CHECK(n == 12 && ours_ok == 12, "speccheck: %d/12 cases read, %d with our verdict (accepts 2 and 3 only)", n, ours_ok);
	CHECK(ossl_ok == 12, "speccheck: OpenSSL's verdicts as recorded (accepts 0, 1, 2, 3, 11): %d/12", ossl_ok);
}

/* A subset of Wycheproof's Ed25519 tests (tests/data/wycheproof): valid
 * signatures, R and S at 0, 1, L - 1, L and p, R with one bit changed and S
 * recomputed (accepted only by a verifier that decodes R leniently), S + nL
 * and S with high bits set. Our verdict and OpenSSL's must both be
 * Wycheproof's (OpenSSL's also checks the typing of the valid ones). */
static void wycheproof(void)
{
	char path[512];
	snprintf(path, sizeof path, "%s/wycheproof/ed25519_subset.txt", ng_vectors_dir());
	FILE *f = fopen(path, "r");
	if (!CHECK(f != NULL, "open %s", path))
		return;
	static char line[4096];
	static uint8_t msg[1024];
	int n = 0, valid = 0, ours_ok = 0, ossl_ok = 0;
	while (fgets(line, sizeof line, f)) {
		char res[16], pkh[80], mh[2100], sigh[140];
		int tc;
		if (line[0] == '#' || sscanf(line, "%d %15s %79s %2099s %139s", &tc, res, pkh, mh, sigh) != 5)
			continue;
		uint8_t pk[32], sig[64];
		size_t len = unhex(msg, sizeof msg, mh);
		if (unhex(pk, 32, pkh) != 32 || unhex(sig, 64, sigh) != 64) {
			CHECK(0, "Wycheproof tcId %d: a 32-byte key and a 64-byte signature", tc);
			continue;
		}
		int want = !strcmp(res, "valid"), ours = ng_ed25519_verify(sig, pk, msg, len),
		    ossl = ossl_verify(sig, pk, msg, len);
		n++;
		valid += want;
		ours_ok += ours == want;
		ossl_ok += ossl == want;
		if (ours != want || ossl != want)
			printf("# Wycheproof tcId %d: want %s, ours %d, OpenSSL %d\n", tc, res, ours, ossl);
	}
	fclose(f);
	CHECK(n == 59 && ours_ok == n, "Wycheproof: %d/%d tests (%d valid) with Wycheproof's verdict", ours_ok, n, valid);
	CHECK(ossl_ok == n, "Wycheproof: OpenSSL agrees on %d/%d", ossl_ok, n);
}

static void reduce_vs_bignum(uint64_t *seed)
{
	BN_CTX *ctx = BN_CTX_new();
	BIGNUM *l = NULL, *x = BN_new(), *r = BN_new();
	BN_dec2bn(&l, "7237005577332262213973186563042994240857116359379907606001950938285454250989");
	int ok = 0, n = 0;
	for (int it = 0; it < 2000; it++, n++) {
		uint8_t in[64], mine[32], ref[32];
		for (int i = 0; i < 64; i++)
			in[i] = (uint8_t)ng_test_rand(seed);
		if (it == 0)
			memset(in, 0xff, 64);
		else if (it == 1)
			memset(in, 0, 64);
		else if (it < 5) { /* L - 1, L, L + 1 */
			memset(in, 0, 64);
			BN_bn2lebinpad(l, in, 32);
			if (it == 2)
				in[0]--;
			if (it == 4)
				in[0]++;
		} else if (it < 8) { /* short values */
			memset(in + 8 * (it - 4), 0, 64 - 8 * (it - 4));
		}
		ng_ed25519_sc_reduce(mine, in);
		BN_lebin2bn(in, 64, x);
		BN_nnmod(r, x, l, ctx);
		BN_bn2lebinpad(r, ref, 32);
		ok += !memcmp(mine, ref, 32);
	}
	CHECK(ok == n, "reduction mod L equals OpenSSL BN_nnmod on %d/%d inputs (random, 0, 2^512 - 1, L - 1, L, L + 1)", ok, n);
	BN_free(l);
	BN_free(x);
	BN_free(r);
	BN_CTX_free(ctx);
}

int main(void)
{
	uint64_t seed = ng_test_seed();
	CHECK(ng_ed25519_selftest() == NG_OK, "ng_ed25519_selftest: SHA-512(\"abc\"), TEST 2 verifies, a flipped bit and S + L rejected");
	rfc_vectors();
	refused_encodings();
	weak_keys();
	speccheck();
	wycheproof();
	reduce_vs_bignum(&seed);
	openssl_oracle(&seed);
	return ng_check_exit();
}
