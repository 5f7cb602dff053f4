/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Weak owner keys at the boot loader (boot/update.c, boot/image.c): a key
 * slot holding one of the 8 points of small order, in each of its 14
 * encodings (canonical and not), verifies no image. For each, an image is
 * forged the way such a key allows, R = the identity and S = 0 over an
 * image chosen so that k is a multiple of the key's order; OpenSSL (which
 * takes such keys, as RFC 8032 5.1.7 reads) accepts the forged signature,
 * and the boot check, the download (errFIRMWARE) and the boot record
 * (NG_BOOT_KEY_REFUSED, no valid image) refuse it. A key from a secret key
 * boots its own images with the bit clear. */
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <string.h>
#include "fakes/boot_fixture.h"
#include "check.h"
#include "ed25519_oracle.h"
#include "ed25519.h"

/* Trailer offsets (boot/image.h): key id, check word, signature. */
enum { T_KEYID = 108, T_CHECK = 120, T_SIG = 124 };

/* An image signed by someone, turned into the forgery under key a: the
 * trailer's key id is a's, its check word redone (OpenSSL's SHA-256), the
 * signature R = the identity, S = 0. Tries image contents until OpenSSL
 * accepts the signature over image || trailer bytes 0..123 (k a multiple
 * of a's order: 1 in at most 8). Returns the image's length, 0 if none of
 * 64 tries was accepted. */
static size_t forge(uint8_t *img, size_t cap, const uint8_t a[32], const uint8_t sk[32])
{
	for (uint64_t t = 0; t < 64; t++) {
		size_t n = bf_image(img, cap, 3000, 0x77656b + t, 0x000400, sk);
		if (!n)
			return 0;
		uint8_t *tr = img + n - NG_IMAGE_TRAILER_LEN, d[32];
		ng_image_key_id(tr + T_KEYID, a);
		SHA256(tr, T_CHECK, d);
		memcpy(tr + T_CHECK, d, 4);
		memset(tr + T_SIG, 0, 64);
		tr[T_SIG] = 1; /* R = 01 00..00, S = 0 */
		if (ossl_verify(tr + T_SIG, a, img, n - NG_IMAGE_TRAILER_LEN + T_SIG))
			return n;
	}
	return 0;
}

int main(void)
{
	static bf_board B;
	static uint8_t img[8192];
	ng_update U;
	ng_image_info info;
	ng_boot_info bi;
	uint8_t sk[32];
	for (int i = 0; i < 32; i++)
		sk[i] = (uint8_t)(0xa5 ^ i);
	int n = (int)(sizeof small_order / sizeof small_order[0]);
	for (int i = 0; i < n; i++) {
		uint8_t a[32];
		for (int j = 0; j < 32; j++) {
			unsigned v;
			sscanf(small_order[i] + 2 * j, "%2x", &v);
			a[j] = (uint8_t)v;
		}
		const char *kind = i < 8 ? "canonical" : "non-canonical";
		size_t len = forge(img, sizeof img, a, sk);
		if (!CHECK(len > 0, "key %d (%s, %.8s..): OpenSSL accepts the forged image's signature R = identity, S = 0",
			   i, kind, small_order[i]))
			continue;
		/* the image as if written by a programmer: straight into flash */
		bf_init(&B, a);
		memcpy(B.mem + NG_LOADER_SIZE, img, len);
		ng_status st = ng_boot_check(&B.t, &info);
		CHECK(st == NG_ERR_IMAGE_SIGNATURE, "key %d (%s): the boot check refuses the forged image (%s)", i, kind,
		      ng_image_strerror(st));
		ng_boot_info_fill(&bi, &B.t, st, &info);
		CHECK(bi.status == (NG_BOOT_OWNER_KEY | NG_BOOT_KEY_REFUSED),
		      "key %d (%s): boot record: owner key, key refused, no valid image (status 0x%02x)", i, kind,
		      (unsigned)bi.status);
		/* and over DFU */
		bf_init(&B, a);
		ng_update_init(&U, &B.t);
		uint8_t r = bf_update(&U, img, len, 256);
		CHECK(r == 10 && ng_boot_check(&B.t, &info) != NG_OK,
		      "key %d (%s): a download of it refused (DFU status %u, errFIRMWARE), nothing bootable", i, kind, r);
	}

	/* A key that passes: its own signed image boots, the bit stays clear;
	 * the R = identity, S = 0 forgery under it is refused by OpenSSL too. */
	uint8_t pk[32];
	ng_ed25519_public_key(pk, sk);
	bf_init(&B, pk);
	ng_update_init(&U, &B.t);
	size_t len = bf_image(img, sizeof img, 3000, 1, 0x000400, sk);
	CHECK(bf_update(&U, img, len, 256) == 0 && ng_boot_check(&B.t, &info) == NG_OK,
	      "a key from a secret key: its signed image downloads and boots");
	ng_boot_info_fill(&bi, &B.t, NG_OK, &info);
	CHECK(bi.status == (NG_BOOT_OWNER_KEY | NG_BOOT_IMAGE_VALID | NG_BOOT_IMAGE_SIGNED),
	      "  boot record: owner key, valid, signed, key not refused (status 0x%02x)", (unsigned)bi.status);
	CHECK(forge(img, sizeof img, pk, sk) == 0, "  OpenSSL accepts no R = identity, S = 0 forgery under it (64 images)");

	/* No key: the bit is about a key, never set without one. */
	bf_init(&B, NULL);
	ng_boot_info_fill(&bi, &B.t, NG_ERR_IMAGE_NONE, &info);
	CHECK(bi.status == 0, "no key, no image: boot record status 0 (0x%02x)", (unsigned)bi.status);
	return ng_check_exit();
}
