/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The firmware image format: finding, checking and making the trailer
 * (layout in image.h and doc/firmware.md, "Image format"). */
#include <string.h>
#include "ed25519.h"
#include "image.h"
#include "ng/bytes.h"
#include "ng/sha256.h"

#define NG_T_MAGIC    0u
#define NG_T_FORMAT   8u
#define NG_T_SIZE     10u
#define NG_T_FLAGS    12u
#define NG_T_IMGLEN   16u
#define NG_T_LOAD     20u
#define NG_T_VERSION  24u
#define NG_T_VERSTR   28u
#define NG_T_BOARD    60u
#define NG_T_DIGEST   76u
#define NG_T_KEYID    108u
#define NG_T_RESERVED 116u
#define NG_T_CHECK    120u
#define NG_T_SIG      124u
#define NG_T_END      188u

_Static_assert(offsetof(ng_image_info, board) == offsetof(ng_image_info, version_str) + NG_T_BOARD - NG_T_VERSTR &&
	       offsetof(ng_image_info, digest) == offsetof(ng_image_info, version_str) + NG_T_DIGEST - NG_T_VERSTR &&
	       offsetof(ng_image_info, key_id) == offsetof(ng_image_info, version_str) + NG_T_KEYID - NG_T_VERSTR,
	       "version_str, board, digest and key_id lie in ng_image_info as in the trailer");

static const uint8_t ng_image_magic[8] = { 'N', 'E', 'U', 'G', 'I', 'M', 'G', 0 };
static const uint8_t ng_image_end[4] = { 'N', 'G', 'I', 'E' };


static bool ng_zero(const uint8_t *p, size_t n)
{
	uint8_t x = 0;
	while (n--)
		x |= *p++;
	return x == 0;
}

/* Printable ASCII, then NULs to the end of the field (at least one). */
static bool ng_field_ok(const uint8_t *s, size_t cap)
{
	size_t n = 0;
	while (n < cap && s[n] >= 0x20 && s[n] < 0x7f)
		n++;
	return n < cap && ng_zero(s + n, cap - n);
}

/* The check word: the first 4 bytes of SHA-256 of trailer bytes 0..119. */
static void ng_image_check_word(uint8_t out[4], const uint8_t *t)
{
	uint8_t d[32];
	ng_sha256(d, t, NG_T_CHECK);
	memcpy(out, d, 4);
}

void ng_image_key_id(uint8_t id[NG_IMAGE_KEY_ID_LEN], const uint8_t pub[32])
{
	uint8_t d[32];
	ng_sha256(d, pub, 32);
	memcpy(id, d, NG_IMAGE_KEY_ID_LEN);
}

ng_status ng_image_check(const uint8_t *region, size_t region_len, const uint8_t *owner_key,
			 ng_image_info *out)
{
	ng_image_info info;
	uint8_t w[32];
	if (!out)
		out = &info;
	memset(out, 0, sizeof *out);
	size_t end = region ? region_len : 0;
	while (end && region[end - 1] == 0xff)
		end--;
	if (end < sizeof ng_image_end || memcmp(region + end - sizeof ng_image_end, ng_image_end, sizeof ng_image_end))
		return NG_ERR_IMAGE_NONE;
	if (end < NG_IMAGE_TRAILER_LEN || end % NG_IMAGE_ALIGN)
		return NG_ERR_IMAGE_FORMAT;
	const uint8_t *t = region + end - NG_IMAGE_TRAILER_LEN;
	out->trailer = t;
	if (memcmp(t + NG_T_MAGIC, ng_image_magic, sizeof ng_image_magic) ||
	    ng_get_le16(t + NG_T_FORMAT) != NG_IMAGE_FORMAT || ng_get_le16(t + NG_T_SIZE) != NG_IMAGE_TRAILER_LEN)
		return NG_ERR_IMAGE_FORMAT;
	out->image_len = ng_get_le32(t + NG_T_IMGLEN);
	out->load_addr = ng_get_le32(t + NG_T_LOAD);
	out->version = ng_get_le32(t + NG_T_VERSION);
	out->flags = ng_get_le32(t + NG_T_FLAGS);
	/* version_str, board, digest and key_id: one run of bytes in both */
	memcpy(out->version_str, t + NG_T_VERSTR, NG_T_RESERVED - NG_T_VERSTR);
	out->version_str[NG_IMAGE_VERSION_MAX - 1] = 0;
	out->board[NG_IMAGE_BOARD_MAX - 1] = 0;
	ng_sha256(w, t, NG_T_CHECK); /* the check word: its first 4 bytes */
	if (memcmp(w, t + NG_T_CHECK, 4))
		return NG_ERR_IMAGE_TRAILER;
	bool is_signed = out->flags & NG_IMAGE_SIGNED;
	if ((out->flags & ~(NG_IMAGE_SIGNED | NG_IMAGE_DOWNGRADE)) || !ng_zero(t + NG_T_RESERVED, 4) ||
	    !ng_field_ok(t + NG_T_VERSTR, NG_IMAGE_VERSION_MAX) || !ng_field_ok(t + NG_T_BOARD, NG_IMAGE_BOARD_MAX) ||
	    (!is_signed && !ng_zero(t + NG_T_KEYID, NG_T_RESERVED - NG_T_KEYID)) ||
	    (!is_signed && !ng_zero(t + NG_T_SIG, NG_T_END - NG_T_SIG)))
		return NG_ERR_IMAGE_FORMAT;
	if (out->image_len == 0 || out->image_len != end - NG_IMAGE_TRAILER_LEN)
		return NG_ERR_IMAGE_LENGTH;
	ng_sha256(w, region, out->image_len);
	if (memcmp(w, out->digest, 32))
		return NG_ERR_IMAGE_DIGEST;
	if (!owner_key)
		return NG_OK;
	if (!is_signed)
		return NG_ERR_IMAGE_UNSIGNED;
	ng_sha256(w, owner_key, 32); /* the key id: its first 8 bytes */
	if (memcmp(w, out->key_id, NG_IMAGE_KEY_ID_LEN))
		return NG_ERR_IMAGE_KEY;
	if (!ng_ed25519_verify(t + NG_T_SIG, owner_key, region, out->image_len + NG_IMAGE_SIGNED_LEN))
		return NG_ERR_IMAGE_SIGNATURE;
	return NG_OK;
}

size_t ng_image_size(size_t bin_len)
{
	size_t max = 0xffffffffu - NG_IMAGE_TRAILER_LEN - NG_IMAGE_ALIGN;
	if (bin_len == 0 || bin_len > max)
		return 0;
	return ((bin_len + NG_IMAGE_ALIGN - 1) & ~(size_t)(NG_IMAGE_ALIGN - 1)) + NG_IMAGE_TRAILER_LEN;
}

static bool ng_param_ok(const char *s, size_t cap)
{
	size_t n = 0;
	if (!s)
		return false;
	while (n < cap && s[n] >= 0x20 && s[n] < 0x7f)
		n++;
	return n < cap && s[n] == 0;
}

ng_status ng_image_make(uint8_t *buf, size_t buf_cap, size_t bin_len, const ng_image_params *p,
			const uint8_t *secret, size_t *img_len)
{
	size_t size = ng_image_size(bin_len);
	if (!buf || !p || !size || buf_cap < size || !ng_param_ok(p->version_str, NG_IMAGE_VERSION_MAX) ||
	    !ng_param_ok(p->board, NG_IMAGE_BOARD_MAX))
		return NG_ERR_ARG;
	size_t len = size - NG_IMAGE_TRAILER_LEN;
	memset(buf + bin_len, 0xff, len - bin_len);
	uint8_t *t = buf + len;
	memset(t, 0, NG_IMAGE_TRAILER_LEN);
	memcpy(t + NG_T_MAGIC, ng_image_magic, sizeof ng_image_magic);
	t[NG_T_FORMAT] = NG_IMAGE_FORMAT;
	t[NG_T_SIZE] = NG_IMAGE_TRAILER_LEN;
	ng_put_le32(t + NG_T_FLAGS, (secret ? NG_IMAGE_SIGNED : 0) | (p->flags & NG_IMAGE_DOWNGRADE));
	ng_put_le32(t + NG_T_IMGLEN, (uint32_t)len);
	ng_put_le32(t + NG_T_LOAD, p->load_addr);
	ng_put_le32(t + NG_T_VERSION, p->version);
	memcpy(t + NG_T_VERSTR, p->version_str, strlen(p->version_str));
	memcpy(t + NG_T_BOARD, p->board, strlen(p->board));
	ng_sha256(t + NG_T_DIGEST, buf, len);
	if (secret) {
		uint8_t pub[32];
		ng_ed25519_public_key(pub, secret);
		ng_image_key_id(t + NG_T_KEYID, pub);
	}
	ng_image_check_word(t + NG_T_CHECK, t);
	if (secret)
		ng_ed25519_sign(t + NG_T_SIG, secret, buf, len + NG_IMAGE_SIGNED_LEN);
	memcpy(t + NG_T_END, ng_image_end, sizeof ng_image_end);
	if (img_len)
		*img_len = size;
	return NG_OK;
}

const char *ng_image_strerror(ng_status st)
{
	switch (st) {
	case NG_OK:
		return "ok";
	case NG_ERR_IMAGE_NONE:
		return "no image trailer (erased, or a download that did not finish)";
	case NG_ERR_IMAGE_FORMAT:
		return "not an image trailer of format 1 (damaged, or made by another tool)";
	case NG_ERR_IMAGE_TRAILER:
		return "the image trailer is damaged (its check word does not match)";
	case NG_ERR_IMAGE_LENGTH:
		return "the image length in the trailer does not match the image";
	case NG_ERR_IMAGE_DIGEST:
		return "the image's SHA-256 does not match its trailer (damaged image)";
	case NG_ERR_IMAGE_UNSIGNED:
		return "the image is not signed, and this board takes only signed images";
	case NG_ERR_IMAGE_KEY:
		return "the image is signed by another key than the owner's";
	case NG_ERR_IMAGE_SIGNATURE:
		return "the image's signature does not verify";
	case NG_ERR_IMAGE_TARGET:
		return "the image is for another board, or linked for another address";
	case NG_ERR_IMAGE_OLD:
		return "the image is older than the board's version floor and does not allow the downgrade";
	default:
		return "not an image check result";
	}
}
