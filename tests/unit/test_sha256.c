/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SHA-256: FIPS 180-4 examples, boundary lengths, incremental == one shot,
 * the whole-message padding (ng_sha256_pad),
 * portable == SHA-NI, and a differential test against OpenSSL (EVP). */
#include <openssl/evp.h>
#include <string.h>
#include "check.h"
#include "ng/sha256.h"

static void hex(uint8_t d[32], const char *h)
{
	for (int i = 0; i < 32; i++) {
		unsigned v;
		sscanf(h + 2 * i, "%2x", &v);
		d[i] = (uint8_t)v;
	}
}

static void ossl(uint8_t d[32], const void *m, size_t n)
{
	unsigned len = 32;
	EVP_Digest(m, n, d, &len, EVP_sha256(), NULL);
}

/* Hash with random update splits (lengths 0..n, including empty updates). */
static void split_hash(uint8_t d[32], const uint8_t *m, size_t n, uint64_t *seed)
{
	ng_sha256_ctx c;
	ng_sha256_init(&c);
	size_t off = 0;
	while (off < n) {
		size_t k = (size_t)(ng_test_rand(seed) % 150);
		if (k > n - off)
			k = n - off;
		ng_sha256_update(&c, m + off, k);
		off += k;
	}
	ng_sha256_update(&c, m, 0);
	ng_sha256_final(&c, d);
}

static int run_suite(const char *impl)
{
	uint8_t d[32], e[32];
	int fails0 = 0;
	(void)fails0;
	/* FIPS 180-4 / its example document: "abc", 448 and 896 bits, a million 'a'. */
	ng_sha256(d, "abc", 3);
	hex(e, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	CHECK(!memcmp(d, e, 32), "%s: SHA-256(\"abc\")", impl);
	const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	ng_sha256(d, m448, strlen(m448));
	hex(e, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	CHECK(!memcmp(d, e, 32), "%s: SHA-256 of the 448-bit message", impl);
	const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
			   "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	ng_sha256(d, m896, strlen(m896));
	hex(e, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	CHECK(!memcmp(d, e, 32), "%s: SHA-256 of the 896-bit message", impl);
	static uint8_t mil[1000000];
	memset(mil, 'a', sizeof mil);
	ng_sha256(d, mil, sizeof mil);
	hex(e, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	CHECK(!memcmp(d, e, 32), "%s: SHA-256 of a million 'a'", impl);
	ng_sha256_ctx c;
	ng_sha256_init(&c);
	for (int i = 0; i < 1000; i++)
		ng_sha256_update(&c, mil, 1000);
	ng_sha256_final(&c, d);
	CHECK(!memcmp(d, e, 32), "%s: a million 'a' in 1000-byte updates", impl);
	ng_sha256(d, "", 0);
	hex(e, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	CHECK(!memcmp(d, e, 32), "%s: SHA-256 of the empty message", impl);

	/* Boundary lengths, against OpenSSL. */
	static const size_t lens[] = { 0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128 };
	uint8_t buf[256];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	int bad = 0;
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		ng_sha256(d, buf, lens[i]);
		ossl(e, buf, lens[i]);
		if (memcmp(d, e, 32)) {
			printf("# length %zu differs\n", lens[i]);
			bad++;
		}
	}
	CHECK(!bad, "%s: boundary lengths 0 1 55 56 63 64 65 119 120 127 128 == OpenSSL", impl);

	/* Every length 0..300 in random splits == one shot == OpenSSL. */
	uint64_t seed = ng_test_seed();
	static uint8_t m[4096];
	for (size_t i = 0; i < sizeof m; i++)
		m[i] = (uint8_t)ng_test_rand(&seed);
	bad = 0;
	for (size_t n = 0; n <= 300; n++) {
		uint8_t s[32];
		ng_sha256(d, m, n);
		split_hash(s, m, n, &seed);
		ossl(e, m, n);
		bad += memcmp(d, e, 32) != 0 || memcmp(s, e, 32) != 0;
	}
	CHECK(!bad, "%s: lengths 0..300: one shot == random splits == OpenSSL (%d bad)", impl, bad);

	/* Differential: 3000 random messages of random length < 4096. */
	bad = 0;
	for (int i = 0; i < 3000; i++) {
		size_t n = (size_t)(ng_test_rand(&seed) % sizeof m), off = (size_t)(ng_test_rand(&seed) % 8);
		if (n + off > sizeof m)
			n = sizeof m - off;
		for (size_t j = 0; j < 16; j++)
			m[(ng_test_rand(&seed) % sizeof m)] ^= (uint8_t)ng_test_rand(&seed);
		ng_sha256(d, m + off, n);  /* unaligned input as well */
		ossl(e, m + off, n);
		bad += memcmp(d, e, 32) != 0;
	}
	CHECK(!bad, "%s: 3000 random messages == OpenSSL EVP (%d bad)", impl, bad);

	/* final wipes the context */
	ng_sha256_init(&c);
	ng_sha256_update(&c, "secret", 6);
	ng_sha256_final(&c, d);
	static const ng_sha256_ctx zero;
	CHECK(!memcmp(&c, &zero, sizeof c), "%s: the context is wiped after final", impl);
	return 0;
}

int main(void)
{
	printf("# fastest implementation: %s\n", ng_sha256_impl());
	run_suite(ng_sha256_impl());
	ng_sha256_force_portable(true);
	CHECK(!strcmp(ng_sha256_impl(), "portable"), "forcing the portable path");
	run_suite("portable");
	ng_sha256_force_portable(false);

	/* ng_sha256_pad (the pipeline's padding) + compress == OpenSSL, for
	 * lengths 0..300 and every end of the message within its block */
	{
		uint64_t ps = 99;
		int pbad = 0;
		for (size_t n = 0; n <= 300; n++) {
			uint8_t m[384], d[32], e[32];
			uint32_t h[8] = { 0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
					  0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u };
			memset(m, 0xa5, sizeof m);
			for (size_t j = 0; j < n; j++)
				m[j] = (uint8_t)ng_test_rand(&ps);
			ossl(e, m, n);
			size_t end = ng_sha256_pad(m, n, n);
			pbad += end % 64 != 0 || end < n + 9 || end > n + 72;
			ng_sha256_compress(h, m, end / 64);
			for (int j = 0; j < 32; j++)
				d[j] = (uint8_t)(h[j / 4] >> (24 - 8 * (j % 4)));
			pbad += memcmp(d, e, 32) != 0;
		}
		CHECK(!pbad, "ng_sha256_pad + compress == OpenSSL for lengths 0..300 (%d bad)", pbad);
	}

	/* portable compress == the dispatched one, on random states and blocks */
	uint64_t seed = 12345;
	int bad = 0;
	if (strcmp(ng_sha256_impl(), "portable") != 0) {
		for (int i = 0; i < 20000; i++) {
			uint32_t h1[8], h2[8];
			uint8_t blk[64 * 3];
			for (int j = 0; j < 8; j++)
				h1[j] = h2[j] = (uint32_t)ng_test_rand(&seed);
			for (size_t j = 0; j < sizeof blk; j++)
				blk[j] = (uint8_t)ng_test_rand(&seed);
			size_t nb = 1 + (size_t)(i % 3);
			ng_sha256_compress_portable(h1, blk, nb);
			ng_sha256_compress(h2, blk, nb);
			bad += memcmp(h1, h2, sizeof h1) != 0;
		}
		CHECK(!bad, "%s compress == portable compress on 20000 random states/blocks", ng_sha256_impl());
	} else {
		SKIP("SHA-NI == portable: this CPU has no SHA extensions");
	}
	return ng_check_exit();
}
