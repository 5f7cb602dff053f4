/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SHA-512 as FIPS 180-4 specifies it (sections 4.1.3, 4.2.3, 5.1.2, 5.3.5,
 * 6.4), written for size: the compression function (one round per loop
 * pass, the four sigma functions as one routine driven by a table of
 * rotation counts) and the streaming code are the ones the boot loader's
 * SHA-256 uses (sha2.c; core/src/sha2.c, and core/src/sha256.c's update
 * outside the loader). */
#include <stddef.h>
#include <string.h>
#include "ng/wipe.h"
#include "sha2.h"
#include "sha512.h"

static const ng_sha2_kind ng_sha512_kind = {
	ng_sha2_compress, 128, 8, offsetof(ng_sha512_ctx, h), offsetof(ng_sha512_ctx, buf), sizeof(ng_sha512_ctx),
};

void ng_sha512_init(ng_sha512_ctx *ctx)
{
	ng_sha2_init(&ctx->s, &ng_sha512_kind);
}

void ng_sha512_update(ng_sha512_ctx *ctx, const void *data, size_t len)
{
	ng_sha2_update(&ctx->s, data, len);
}

/* FIPS 180-4 5.1.2 padding (0x80, zeros to 112 bytes into a block, the
 * 128-bit length in bits) and the digest: the code SHA-256 has (core). */
void ng_sha512_final(ng_sha512_ctx *ctx, uint8_t digest[64])
{
	ng_sha2_final(&ctx->s, digest);
}

void ng_sha512(uint8_t digest[64], const void *data, size_t len)
{
	ng_sha512_ctx c;
	ng_sha512_init(&c);
	ng_sha512_update(&c, data, len);
	ng_sha512_final(&c, digest);
}
