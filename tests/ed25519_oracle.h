/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the Ed25519 tests share: OpenSSL's verification as the oracle, and
 * the public keys of small order. */
#ifndef NG_TESTS_ED25519_ORACLE_H
#define NG_TESTS_ED25519_ORACLE_H
#include <openssl/evp.h>
#include <stddef.h>
#include <stdint.h>

/* 1 valid, 0 invalid (or a key OpenSSL refuses). */
static inline int ossl_verify(const uint8_t sig[64], const uint8_t pub[32], const uint8_t *m, size_t n)
{
	EVP_PKEY *k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, 32);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok = k && c && EVP_DigestVerifyInit(c, NULL, NULL, NULL, k) == 1 &&
		 EVP_DigestVerify(c, sig, 64, m, n) == 1;
	EVP_MD_CTX_free(c);
	EVP_PKEY_free(k);
	return ok;
}

/* The 8 points of small order ([8]P = the identity): y = 1 (the
 * identity), y = -1 (order 2), y = 0 with either sign of x (order 4), and
 * the 4 of order 8 (x^2 = -y^2); then the 6 non-canonical encodings of
 * some of them: x = 0 with the sign bit (y = 1, y = -1), y = p (0) and
 * y = p + 1 (1), each with and without the sign bit. (Computed from the
 * curve's equation; test_ed25519 checks each by OpenSSL accepting the
 * forgery it allows.) */
static const char *const small_order[] = {
	"0100000000000000000000000000000000000000000000000000000000000000",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"0000000000000000000000000000000000000000000000000000000000000000",
	"0000000000000000000000000000000000000000000000000000000000000080",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
	/* non-canonical */
	"0100000000000000000000000000000000000000000000000000000000000080",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
};
#endif
