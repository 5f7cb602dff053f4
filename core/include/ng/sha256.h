/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SHA-256 (FIPS 180-4), incremental. Portable C everywhere; on x86-64 the
 * compression function uses the SHA extensions when CPUID reports them. */
#ifndef NG_SHA256_H
#define NG_SHA256_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The buffering, padding and output that SHA-256 and SHA-512 (boot/sha512.c)
 * share (FIPS 180-4 5.1, 6.2, 6.4: the same steps on 32- or 64-bit words):
 * each context begins with this header, whose kind says where its state
 * and buffer are and how to compress. Not an API of its own. */
typedef struct {
	/* n blocks into the state h (8 words of word bytes) */
	void (*compress)(void *h, const uint8_t *blocks, size_t n, unsigned word);
	uint8_t block, word;   /* bytes: 64 and 4 (SHA-256), 128 and 8 (SHA-512) */
	uint8_t h_off, buf_off; /* where the state and the buffer are in the context */
	uint16_t size;         /* the context's size */
} ng_sha2_kind;
typedef struct {
	const ng_sha2_kind *kind;
	uint64_t len;      /* bytes hashed so far (below 2^64) */
	uint32_t fill;     /* bytes in the buffer */
} ng_sha2_hdr;
/* The update and final steps (final writes the 8 words of the state,
 * big-endian, and wipes the context). */
void ng_sha2_update(ng_sha2_hdr *c, const void *data, size_t len);
void ng_sha2_final(ng_sha2_hdr *c, uint8_t *digest);

/* Do not rely on the size or contents of this type. */
typedef struct {
	ng_sha2_hdr s;
	uint32_t h[8];
	uint8_t buf[64];
} ng_sha256_ctx;

void ng_sha256_init(ng_sha256_ctx *ctx);
void ng_sha256_update(ng_sha256_ctx *ctx, const void *data, size_t len);
/* Writes the digest and wipes the context. */
void ng_sha256_final(ng_sha256_ctx *ctx, uint8_t digest[32]);
/* One shot. */
void ng_sha256(uint8_t digest[32], const void *data, size_t len);

/* FIPS 180-4 6.2.2 on n consecutive 64-byte blocks, with the fastest
 * implementation this CPU has. */
void ng_sha256_compress(uint32_t h[8], const uint8_t *blocks, size_t n);
/* FIPS 180-4 5.1.1 padding of a len-byte message whose bytes end at m + f
 * (m a block boundary): 0x80, zeros, len * 8 as 64 bits big endian, up to
 * the returned end (a multiple of 64, at most 64 past f + 9). */
size_t ng_sha256_pad(uint8_t *m, size_t f, uint64_t len);
/* The portable C version: the reference the fast paths are tested against. */
void ng_sha256_compress_portable(uint32_t h[8], const uint8_t *blocks, size_t n);
/* The name of the implementation ng_sha256_compress uses ("portable", "sha-ni"). */
const char *ng_sha256_impl(void);
/* Tests and benchmarks: force the portable path (true) or allow the fastest
 * (false). No effect on the Cortex-M3 (always "armv7m"). */
void ng_sha256_force_portable(bool on);

#endif
