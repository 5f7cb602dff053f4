/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The firmware image format (doc/firmware.md, "Image format"): the
 * application binary, padded with 0xFF to a multiple of 4 bytes, then a
 * 192-byte trailer. Little-endian, every field at a multiple of 4:
 *
 *   off  len  field
 *     0    8  magic        "NEUGIMG\0"
 *     8    2  format       1
 *    10    2  size         192 (the trailer's length)
 *    12    4  flags        bit 0: signed; bit 1: downgrade allowed (the
 *                          loader takes it below its version floor, see
 *                          boot/update.h); the other bits are 0
 *    16    4  image_len    bytes before the trailer (a multiple of 4, > 0)
 *    20    4  load_addr    the flash address the image is linked for
 *    24    4  version      major << 16 | minor << 8 | patch
 *    28   32  version_str  e.g. "0.1.0", NUL-terminated, NUL-padded
 *    60   16  board        e.g. "fst-01", NUL-terminated, NUL-padded
 *    76   32  digest       SHA-256 of the image_len image bytes
 *   108    8  key_id       first 8 bytes of SHA-256(public key); 0 if unsigned
 *   116    4  reserved     0
 *   120    4  check        first 4 bytes of SHA-256(trailer bytes 0..119)
 *   124   64  signature    Ed25519 (RFC 8032) over image || trailer bytes
 *                          0..123; 0 if unsigned
 *   188    4  end          "NGIE"
 *
 * Finding the trailer: the region (the application's flash area, or a file)
 * is scanned back from its end over 0xFF bytes (erased flash); the last
 * byte that is not 0xFF must end the "NGIE" marker, and the trailer is the
 * 192 bytes that end there. So the image needs no header (the binary is
 * the linker's, unchanged), a region longer than the image needs nothing
 * but erased flash after it, and an update that stopped before its last
 * bytes (the trailer comes last) leaves no trailer. The loader erases the
 * whole region before it writes an update, so an old trailer cannot
 * survive behind a shorter new image. */
#ifndef NG_IMAGE_H
#define NG_IMAGE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ng/status.h"

#define NG_IMAGE_TRAILER_LEN 192u
#define NG_IMAGE_FORMAT      1u
#define NG_IMAGE_ALIGN       4u   /* image_len and the trailer's offset */
#define NG_IMAGE_SIGNED      1u   /* flags bit 0 */
#define NG_IMAGE_DOWNGRADE   2u   /* flags bit 1: may go below the version floor */
#define NG_IMAGE_SIGNED_LEN  124u /* trailer bytes the signature covers */
#define NG_IMAGE_VERSION_MAX 32u  /* version_str, NUL included */
#define NG_IMAGE_BOARD_MAX   16u  /* board, NUL included */
#define NG_IMAGE_KEY_ID_LEN  8u

/* What a trailer says (filled as far as the check got: see ng_image_check). */
typedef struct {
	uint32_t image_len;   /* also the trailer's offset in the region */
	uint32_t load_addr;
	uint32_t version;
	uint32_t flags;       /* NG_IMAGE_SIGNED, NG_IMAGE_DOWNGRADE */
	char version_str[NG_IMAGE_VERSION_MAX];
	char board[NG_IMAGE_BOARD_MAX];
	uint8_t digest[32];   /* the trailer's SHA-256 of the image */
	uint8_t key_id[NG_IMAGE_KEY_ID_LEN];
	const uint8_t *trailer; /* in the region; NULL if none was found */
} ng_image_info;

/* What the host tool puts in a trailer. */
typedef struct {
	uint32_t load_addr;
	uint32_t version;
	const char *version_str; /* at most 31 bytes */
	const char *board;       /* at most 15 bytes */
	uint32_t flags;          /* NG_IMAGE_DOWNGRADE or 0 (signed is set from the key) */
} ng_image_params;

/* Checks the image in region[0, region_len): finds the trailer (scanning
 * back over 0xFF bytes), checks its format and its own check word, that
 * image_len is where the trailer starts, the image's SHA-256 and, when
 * owner_key (a 32-byte Ed25519 public key) is given, that the image is
 * signed, by that key (key_id), and that the signature verifies. Without a
 * key only integrity is checked (a signed image's signature is not).
 * Returns NG_OK or the first failure:
 *   NG_ERR_IMAGE_NONE       no trailer: erased, or an unfinished download
 *   NG_ERR_IMAGE_FORMAT     not a format-1 trailer (magic, format, size,
 *                           unknown flags, reserved or padding bytes, strings)
 *   NG_ERR_IMAGE_TRAILER    the trailer's check word does not match
 *   NG_ERR_IMAGE_LENGTH     image_len is not the trailer's offset
 *   NG_ERR_IMAGE_DIGEST     the image's SHA-256 differs
 *   NG_ERR_IMAGE_UNSIGNED   a key was given and the image is unsigned
 *   NG_ERR_IMAGE_KEY        signed by another key
 *   NG_ERR_IMAGE_SIGNATURE  the signature does not verify
 * out (may be NULL) gets the trailer's fields once its magic, format and
 * size are right (strings cut to stay NUL-terminated), whatever the result
 * after that; out->trailer is NULL only for NG_ERR_IMAGE_NONE. Public data
 * only: nothing here needs to run in constant time. */
ng_status ng_image_check(const uint8_t *region, size_t region_len, const uint8_t *owner_key,
			 ng_image_info *out);

/* Makes an image in place: buf holds the binary in its first bin_len bytes;
 * pads it with 0xFF to a multiple of 4, appends the trailer, signed with
 * secret (a 32-byte Ed25519 secret key) unless it is NULL, and sets *img_len.
 * buf_cap must be at least ng_image_size(bin_len). NG_ERR_ARG for an empty
 * or too long binary, a short buffer, or strings too long. */
ng_status ng_image_make(uint8_t *buf, size_t buf_cap, size_t bin_len, const ng_image_params *p,
			const uint8_t *secret, size_t *img_len);

/* The size of the image of a bin_len-byte binary (0 if it would not fit a uint32_t). */
size_t ng_image_size(size_t bin_len);

/* The key fingerprint: the first 8 bytes of SHA-256 of the public key. */
void ng_image_key_id(uint8_t id[NG_IMAGE_KEY_ID_LEN], const uint8_t pub[32]);

/* A short English phrase for an NG_ERR_IMAGE_* status (or "ok"). */
const char *ng_image_strerror(ng_status st);

#endif
