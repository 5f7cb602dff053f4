/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The image format (boot/image.c): the layout at its documented offsets,
 * the trailer found behind erased flash, every single-bit flip of a signed
 * image refused under its owner key, each distinct error, a truncated or
 * unfinished image, and the digest and signature checked by OpenSSL over
 * the documented bytes. */
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "ed25519_oracle.h"
#include "ed25519.h"
#include "image.h"

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Rewrites the check word after a test edits a trailer field (OpenSSL's SHA-256). */
static void recheck(uint8_t *t)
{
	uint8_t d[32];
	SHA256(t, 120, d);
	memcpy(t + 120, d, 4);
}

int main(void)
{
	uint64_t seed = ng_test_seed();
	enum { BIN = 5001, CAP = 8192 };
	static uint8_t img[CAP], uimg[CAP], region[CAP + 4096];
	uint8_t sk[32], pk[32], sk2[32], pk2[32];
	for (int i = 0; i < 32; i++) {
		sk[i] = (uint8_t)ng_test_rand(&seed);
		sk2[i] = (uint8_t)ng_test_rand(&seed);
	}
	ng_ed25519_public_key(pk, sk);
	ng_ed25519_public_key(pk2, sk2);
	for (int i = 0; i < BIN; i++)
		img[i] = (uint8_t)ng_test_rand(&seed);
	memcpy(uimg, img, BIN);
	ng_image_params p = { .load_addr = 0x08002000, .version = 0x000100, .version_str = "0.1.0", .board = "fst-01" };
	size_t n = 0, un = 0;
	CHECK(ng_image_size(BIN) == 5004 + NG_IMAGE_TRAILER_LEN, "ng_image_size(5001) = 5004 + 192");
	CHECK(ng_image_make(img, CAP, BIN, &p, sk, &n) == NG_OK && n == 5004 + 192, "signed image made: %zu bytes", n);
	CHECK(ng_image_make(uimg, CAP, BIN, &p, NULL, &un) == NG_OK && un == n, "unsigned image made: %zu bytes", un);

	/* The layout, at the offsets doc/firmware.md gives. */
	const uint8_t *t = img + 5004;
	uint8_t d[32], id[32];
	SHA256(img, 5004, d);
	SHA256(pk, 32, id);
	CHECK(img[5001] == 0xff && img[5002] == 0xff && img[5003] == 0xff, "the binary is padded with 0xFF to a multiple of 4");
	CHECK(!memcmp(t, "NEUGIMG", 8), "offset 0: magic \"NEUGIMG\\0\"");
	CHECK(t[8] == 1 && t[9] == 0 && t[10] == 192 && t[11] == 0, "offsets 8, 10: format 1, size 192 (little-endian 16-bit)");
	CHECK(le32(t + 12) == 1 && le32(uimg + 5004 + 12) == 0, "offset 12: flags 1 signed, 0 unsigned");
	CHECK(le32(t + 16) == 5004 && le32(t + 20) == 0x08002000 && le32(t + 24) == 0x100,
	      "offsets 16, 20, 24: image_len, load_addr, version (little-endian 32-bit)");
	CHECK(!strcmp((const char *)t + 28, "0.1.0") && t[59] == 0 && !strcmp((const char *)t + 60, "fst-01") && t[75] == 0,
	      "offsets 28, 60: version string and board, NUL-padded");
	CHECK(!memcmp(t + 76, d, 32), "offset 76: SHA-256 of the padded image (OpenSSL)");
	CHECK(!memcmp(t + 108, id, 8), "offset 108: key id = first 8 bytes of SHA-256(public key) (OpenSSL)");
	uint8_t cw[32];
	SHA256(t, 120, cw);
	CHECK(!memcmp(t + 120, cw, 4) && le32(t + 116) == 0, "offset 116 reserved 0; offset 120: check = SHA-256(bytes 0..119)[0..3]");
	CHECK(ossl_verify(t + 124, pk, img, 5004 + 124), "offset 124: the signature verifies in OpenSSL over image || trailer bytes 0..123");
	CHECK(!memcmp(t + 188, "NGIE", 4), "offset 188: end marker \"NGIE\"");
	static const uint8_t zero[64];
	CHECK(!memcmp(uimg + 5004 + 108, zero, 8) && !memcmp(uimg + 5004 + 124, zero, 64),
	      "unsigned image: key id and signature are zero");

	/* Checks, and what they report. */
	ng_image_info info;
	CHECK(ng_image_check(img, n, pk, &info) == NG_OK, "signed image, owner key: ok");
	CHECK(info.image_len == 5004 && info.load_addr == 0x08002000 && info.version == 0x100 &&
	      info.flags == NG_IMAGE_SIGNED && !strcmp(info.version_str, "0.1.0") && !strcmp(info.board, "fst-01") &&
	      !memcmp(info.digest, d, 32) && !memcmp(info.key_id, id, 8) && info.trailer == img + 5004,
	      "ng_image_info has the trailer's fields");
	CHECK(ng_image_check(img, n, NULL, NULL) == NG_OK, "signed image, no key (integrity only): ok");
	CHECK(ng_image_check(uimg, un, NULL, &info) == NG_OK && info.flags == 0, "unsigned image, no key: ok");
	CHECK(ng_image_check(uimg, un, pk, NULL) == NG_ERR_IMAGE_UNSIGNED, "unsigned image, owner key: NG_ERR_IMAGE_UNSIGNED");
	CHECK(ng_image_check(img, n, pk2, NULL) == NG_ERR_IMAGE_KEY, "signed by another key: NG_ERR_IMAGE_KEY");

	/* In flash: erased (0xFF) after the trailer, any length. */
	memset(region, 0xff, sizeof region);
	memcpy(region, img, n);
	CHECK(ng_image_check(region, sizeof region, pk, &info) == NG_OK && info.trailer == region + 5004,
	      "image followed by %zu erased bytes: trailer found, ok", sizeof region - n);
	region[sizeof region - 1] = 0x00;
	CHECK(ng_image_check(region, sizeof region, pk, NULL) == NG_ERR_IMAGE_NONE,
	      "a byte that is not 0xFF at the region's end: NG_ERR_IMAGE_NONE");
	memset(region, 0xff, sizeof region);
	CHECK(ng_image_check(region, sizeof region, NULL, &info) == NG_ERR_IMAGE_NONE && info.trailer == NULL,
	      "erased region: NG_ERR_IMAGE_NONE, no trailer");
	CHECK(ng_image_check(region, 0, NULL, NULL) == NG_ERR_IMAGE_NONE && ng_image_check(NULL, 100, NULL, NULL) == NG_ERR_IMAGE_NONE,
	      "empty or NULL region: NG_ERR_IMAGE_NONE");

	/* An unfinished download: every prefix (then erased flash) is refused. */
	int prefixes = 0, none = 0;
	for (size_t k = 0; k < n; k += (k < n - 400 ? 97 : 1)) {
		memset(region, 0xff, sizeof region);
		memcpy(region, img, k);
		ng_status st = ng_image_check(region, sizeof region, NULL, NULL);
		prefixes++;
		none += st == NG_ERR_IMAGE_NONE;
	}
	CHECK(none == prefixes, "%d/%d truncated images (then erased flash) give NG_ERR_IMAGE_NONE", none, prefixes);
	CHECK(ng_image_check(img, n - 1, NULL, NULL) == NG_ERR_IMAGE_NONE, "an image file one byte short: NG_ERR_IMAGE_NONE");
	CHECK(ng_image_check(img + 4, n - 4, NULL, NULL) == NG_ERR_IMAGE_LENGTH, "an image missing its first word: NG_ERR_IMAGE_LENGTH");

	/* Every single-bit flip of the signed image is refused under the owner key;
	 * without a key every flip outside the signature is. */
	int flips = 0, refused = 0, refused_nokey = 0, outside_sig = 0;
	int by[8] = { 0 }; /* NONE..SIGNATURE seen */
	for (size_t bit = 0; bit < n * 8; bit += (bit < 5004 * 8 ? 61 : 1)) {
		img[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		ng_status st = ng_image_check(img, n, pk, NULL);
		ng_status st0 = ng_image_check(img, n, NULL, NULL);
		img[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		flips++;
		refused += st != NG_OK;
		if (st <= NG_ERR_IMAGE_NONE && st >= NG_ERR_IMAGE_SIGNATURE)
			by[NG_ERR_IMAGE_NONE - st]++;
		bool in_sig = bit / 8 >= 5004 + 124 && bit / 8 < 5004 + 188;
		if (!in_sig) {
			outside_sig++;
			refused_nokey += st0 != NG_OK;
		}
	}
	CHECK(refused == flips, "owner key: %d/%d single-bit flips (every trailer bit, image bits spread) refused", refused, flips);
	CHECK(refused_nokey == outside_sig, "no key: %d/%d flips outside the signature refused", refused_nokey, outside_sig);
	/* (a flip in the key id is caught by the check word: TRAILER) */
	CHECK(by[0] && by[1] && by[2] && by[4] && by[7],
	      "flips gave NONE %d, FORMAT %d, TRAILER %d, DIGEST %d, SIGNATURE %d", by[0], by[1], by[2], by[4], by[7]);
	CHECK(ng_image_check(img, n, pk, NULL) == NG_OK, "the image is intact again");

	/* Each field's own error, with the check word made right again. */
	static uint8_t e[CAP];
	uint8_t *et = e + 5004;
#define EDIT(stmt) (memcpy(e, uimg, un), (stmt), recheck(et), ng_image_check(e, un, NULL, NULL))
	CHECK(EDIT(et[16] += 4) == NG_ERR_IMAGE_LENGTH, "image_len + 4: NG_ERR_IMAGE_LENGTH");
	CHECK(EDIT(memset(et + 16, 0, 4)) == NG_ERR_IMAGE_LENGTH, "image_len 0: NG_ERR_IMAGE_LENGTH");
	CHECK(EDIT(et[12] |= 4) == NG_ERR_IMAGE_FORMAT, "an unknown flag (bit 2): NG_ERR_IMAGE_FORMAT");
	CHECK(EDIT(et[117] = 1) == NG_ERR_IMAGE_FORMAT, "reserved bytes not 0: NG_ERR_IMAGE_FORMAT");
	CHECK(EDIT(memset(et + 28, 'x', 32)) == NG_ERR_IMAGE_FORMAT, "version string without its NUL: NG_ERR_IMAGE_FORMAT");
	CHECK(EDIT(et[60 + 8] = 'x') == NG_ERR_IMAGE_FORMAT, "a byte after the board's NUL: NG_ERR_IMAGE_FORMAT");
	CHECK(EDIT(et[28] = 0x1b) == NG_ERR_IMAGE_FORMAT, "a control character (ESC) in the version: NG_ERR_IMAGE_FORMAT");
	CHECK(EDIT(et[110] = 1) == NG_ERR_IMAGE_FORMAT, "unsigned with a key id: NG_ERR_IMAGE_FORMAT");
	CHECK(EDIT(et[8] = 2) == NG_ERR_IMAGE_FORMAT, "format 2: NG_ERR_IMAGE_FORMAT");
	CHECK(EDIT(et[0] = 'n') == NG_ERR_IMAGE_FORMAT, "magic changed: NG_ERR_IMAGE_FORMAT");
	CHECK(EDIT(e[0] ^= 1) == NG_ERR_IMAGE_DIGEST, "an image byte changed: NG_ERR_IMAGE_DIGEST");
	memcpy(e, uimg, un);
	et[30] ^= 1;
	CHECK(ng_image_check(e, un, NULL, NULL) == NG_ERR_IMAGE_TRAILER, "a version byte changed, check word not: NG_ERR_IMAGE_TRAILER");
	/* a signed trailer with the signed flag cleared (and the rest made
	 * consistent) is just an unsigned image: refused under a key */
	memcpy(e, img, n);
	et[12] = 0;
	memset(et + 108, 0, 8);
	memset(et + 124, 0, 64);
	recheck(et);
	CHECK(ng_image_check(e, n, NULL, NULL) == NG_OK && ng_image_check(e, n, pk, NULL) == NG_ERR_IMAGE_UNSIGNED,
	      "signature stripped: passes integrity, NG_ERR_IMAGE_UNSIGNED under the key");
	/* a signed trailer whose signature is another key's, key id made to match */
	memcpy(e, img, n);
	ng_ed25519_sign(et + 124, sk2, e, 5004 + 124);
	CHECK(ng_image_check(e, n, pk, NULL) == NG_ERR_IMAGE_SIGNATURE, "signature by another key under the owner's key id: NG_ERR_IMAGE_SIGNATURE");

	/* Making: bad arguments. */
	CHECK(ng_image_make(e, CAP, 0, &p, NULL, NULL) == NG_ERR_ARG, "empty binary: NG_ERR_ARG");
	CHECK(ng_image_make(e, 5004 + 191, BIN, &p, NULL, NULL) == NG_ERR_ARG, "buffer one byte short: NG_ERR_ARG");
	ng_image_params q = p;
	q.version_str = "0123456789012345678901234567890123";
	CHECK(ng_image_make(e, CAP, BIN, &q, NULL, NULL) == NG_ERR_ARG, "a 34-byte version string: NG_ERR_ARG");
	q = p;
	q.board = "0123456789abcdef";
	CHECK(ng_image_make(e, CAP, BIN, &q, NULL, NULL) == NG_ERR_ARG, "a 16-byte board name: NG_ERR_ARG");
	q.board = "fifteen-chars-x";
	CHECK(ng_image_make(e, CAP, BIN, &q, NULL, &un) == NG_OK && ng_image_check(e, un, NULL, &info) == NG_OK &&
	      !strcmp(info.board, "fifteen-chars-x"), "a 15-byte board name fits");
	CHECK(ng_image_make(e, CAP, 4, &p, NULL, &un) == NG_OK && un == 196 && ng_image_check(e, un, NULL, NULL) == NG_OK,
	      "a 4-byte binary: 196-byte image, ok");
	/* byte-reproducible: the same input gives the same image */
	static uint8_t a2[CAP];
	memcpy(a2, img, BIN);
	size_t n2 = 0;
	CHECK(ng_image_make(a2, CAP, BIN, &p, sk, &n2) == NG_OK && n2 == n && !memcmp(a2, img, n),
	      "signing again gives the identical image (Ed25519 is deterministic)");

	/* The messages are distinct. */
	int distinct = 1;
	for (int a = NG_ERR_IMAGE_NONE; a >= NG_ERR_IMAGE_SIGNATURE; a--)
		for (int b = a - 1; b >= NG_ERR_IMAGE_SIGNATURE; b--)
			distinct &= strcmp(ng_image_strerror((ng_status)a), ng_image_strerror((ng_status)b)) != 0;
	CHECK(distinct, "ng_image_strerror: a distinct message for each NG_ERR_IMAGE_*");
	return ng_check_exit();
}
