/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SHA-512 (FIPS 180-4), incremental, freestanding: Ed25519's hash (RFC 8032). */
#ifndef NG_SHA512_H
#define NG_SHA512_H
#include <stddef.h>
#include <stdint.h>
#include "ng/sha256.h"

/* Do not rely on the size or contents of this type. */
typedef struct {
	ng_sha2_hdr s;     /* (ng/sha256.h: the streaming code both share) */
	uint64_t h[8];
	uint8_t buf[128];
} ng_sha512_ctx;

void ng_sha512_init(ng_sha512_ctx *ctx);
void ng_sha512_update(ng_sha512_ctx *ctx, const void *data, size_t len);
/* Writes the digest and wipes the context. */
void ng_sha512_final(ng_sha512_ctx *ctx, uint8_t digest[64]);
/* One shot. */
void ng_sha512(uint8_t digest[64], const void *data, size_t len);

#endif
