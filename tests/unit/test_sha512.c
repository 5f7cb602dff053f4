/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SHA-512 (boot/sha512.c): the FIPS 180-4 examples, boundary lengths and
 * random update splits against OpenSSL (EVP); its computed constants
 * (boot/sha2.c) on a first use from several threads at once, and
 * against SHA-256's stored ones. */
#include <openssl/evp.h>
#include <pthread.h>
#include <string.h>
#include "check.h"
#include "sha2.h"
#include "sha512.h"

/* SHA-256's constants as core/src/sha256.c stores them (FIPS 180-4 4.2.2, 5.3.3). */
extern const uint32_t ng_sha256_k[64], ng_sha256_h0[8];

static void hex(uint8_t d[64], const char *h)
{
	for (int i = 0; i < 64; i++) {
		unsigned v;
		sscanf(h + 2 * i, "%2x", &v);
		d[i] = (uint8_t)v;
	}
}

static void ossl(uint8_t d[64], const void *m, size_t n)
{
	unsigned len = 64;
	EVP_Digest(m, n, d, &len, EVP_sha512(), NULL);
}

static void *first_use(void *arg)
{
	ng_sha512(arg, "abc", 3);
	return NULL;
}

/* The first thing the process hashes: eight threads start at once, so
 * most find the constants being computed by another and wait for it. */
static void constants(void)
{
	enum { N = 8 };
	pthread_t th[N];
	uint8_t d[N][64];
	int started = 0, same = 0;
	for (int i = 0; i < N; i++)
		started += pthread_create(&th[i], NULL, first_use, d[i]) == 0;
	for (int i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		same += !memcmp(d[i], d[0], 64) && d[i][0] == 0xdd && d[i][63] == 0x9f;
	}
	CHECK(started == N && same == N, "%d threads hashing at once on first use: %d digests right", started, same);
	int k = 0, h = 0;
	for (int t = 0; t < 64; t++)
		k += (uint32_t)(ng_sha512_k[t] >> 32) == ng_sha256_k[t];
	for (int i = 0; i < 8; i++)
		h += (uint32_t)(ng_sha512_h0[i] >> 32) == ng_sha256_h0[i];
	CHECK(k == 64 && h == 8, "SHA-512's computed K and H(0), high halves, equal SHA-256's table (%d/64, %d/8)", k, h);
	CHECK(ng_sha512_k[0] == 0x428a2f98d728ae22 && ng_sha512_k[79] == 0x6c44198c4a475817 &&
	      ng_sha512_h0[0] == 0x6a09e667f3bcc908 && ng_sha512_h0[7] == 0x5be0cd19137e2179,
	      "K[0], K[79], H(0)[0], H(0)[7] as FIPS 180-4 4.2.3 and 5.3.5 list them");
}

int main(void)
{
	uint64_t seed = ng_test_seed();
	uint8_t d[64], e[64];
	constants();
	/* FIPS 180-4's examples (the NIST example document for SHA-512). */
	ng_sha512(d, "abc", 3);
	hex(e, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
	       "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
	CHECK(!memcmp(d, e, 64), "SHA-512(\"abc\")");
	const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
			   "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	ng_sha512(d, m896, strlen(m896));
	hex(e, "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
	       "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909");
	CHECK(!memcmp(d, e, 64), "SHA-512 of the 896-bit message (two blocks)");
	ng_sha512(d, "", 0);
	hex(e, "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
	       "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e");
	CHECK(!memcmp(d, e, 64), "SHA-512 of the empty message");
	static uint8_t mil[1000000];
	memset(mil, 'a', sizeof mil);
	hex(e, "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
	       "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b");
	ng_sha512(d, mil, sizeof mil);
	CHECK(!memcmp(d, e, 64), "SHA-512 of a million 'a'");
	ng_sha512_ctx c;
	ng_sha512_init(&c);
	for (int i = 0; i < 1000; i++)
		ng_sha512_update(&c, mil, 1000);
	ng_sha512_final(&c, d);
	CHECK(!memcmp(d, e, 64), "a million 'a' in 1000-byte updates");

	/* Every length 0..300 (both sides of each padding boundary: 111, 112,
	 * 127, 128, 239, 240, 255, 256) against OpenSSL. */
	static uint8_t buf[4096];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)ng_test_rand(&seed);
	int bad = 0;
	for (size_t n = 0; n <= 300; n++) {
		ng_sha512(d, buf, n);
		ossl(e, buf, n);
		bad += memcmp(d, e, 64) != 0;
	}
	CHECK(bad == 0, "lengths 0..300 equal OpenSSL's SHA-512 (%d differ)", bad);
	/* Random lengths, random update splits (empty updates included). */
	bad = 0;
	for (int it = 0; it < 300; it++) {
		size_t n = (size_t)(ng_test_rand(&seed) % sizeof buf);
		ng_sha512_init(&c);
		for (size_t off = 0; off < n;) {
			size_t k = (size_t)(ng_test_rand(&seed) % 300);
			if (k > n - off)
				k = n - off;
			ng_sha512_update(&c, buf + off, k);
			off += k;
		}
		ng_sha512_update(&c, buf, 0);
		ng_sha512_final(&c, d);
		ossl(e, buf, n);
		bad += memcmp(d, e, 64) != 0;
	}
	CHECK(bad == 0, "300 random lengths in random update splits equal OpenSSL (%d differ)", bad);
	uint8_t z[sizeof c];
	memset(z, 0, sizeof z);
	CHECK(!memcmp(&c, z, sizeof c), "ng_sha512_final wipes the context");
	return ng_check_exit();
}
