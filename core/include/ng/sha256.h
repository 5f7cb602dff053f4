/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SHA-256 (FIPS 180-4), incremental. */
#ifndef NG_SHA256_H
#define NG_SHA256_H
#include <stddef.h>
#include <stdint.h>

/* Do not rely on the size or contents of this type. */
typedef struct {
	uint32_t h[8];
	uint64_t len;      /* bytes hashed so far */
	uint8_t buf[64];
	uint32_t fill;     /* bytes in buf */
} ng_sha256_ctx;

void ng_sha256_init(ng_sha256_ctx *ctx);
void ng_sha256_update(ng_sha256_ctx *ctx, const void *data, size_t len);
/* Writes the digest and wipes the context. */
void ng_sha256_final(ng_sha256_ctx *ctx, uint8_t digest[32]);
/* One shot. */
void ng_sha256(uint8_t digest[32], const void *data, size_t len);

#endif
