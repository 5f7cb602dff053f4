/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The SHA-2 code of the boot layer, written for size: SHA-512's constants
 * (FIPS 180-4 4.2.3, 5.3.5), computed rather than stored, and one
 * compression function for 32- and 64-bit words. boot/sha512.c uses them;
 * so does the boot loader's SHA-256 (sha2.c built with NG_SHA256_SMALL,
 * linked instead of core/src/sha256.c): SHA-256's round constants (4.2.2)
 * and initial hash value (5.3.3) are the high 32 bits of the first 64 of
 * SHA-512's and of its initial hash value, the same roots of the same
 * primes to fewer bits, so the loader keeps one copy. */
#ifndef NG_BOOT_SHA2_H
#define NG_BOOT_SHA2_H
#include <stddef.h>
#include <stdint.h>
#include "ng/sha256.h"

extern uint64_t ng_sha512_k[80];
extern uint64_t ng_sha512_h0[8];

/* Computes the two tables on its first call (FIPS 180-4 4.2.3, 5.3.5);
 * later calls return at once. Thread-safe (but in the boot loader's
 * single-threaded build, NG_SHA256_SMALL). */
void ng_sha2k_init(void);

/* FIPS 180-4 6.4.2 on n 128-byte blocks (word 8: SHA-512, h is
 * uint64_t[8]) or 6.2.2 on n 64-byte blocks (word 4: SHA-256, h is
 * uint32_t[8]: the boot loader's SHA-256), one round per loop pass, for
 * size. Needs the tables (ng_sha2k_init). */
void ng_sha2_compress(void *h, const uint8_t *blocks, size_t n, unsigned word);

/* Starts a SHA-512 context, or a SHA-256 one in the boot loader's build
 * (the initial hash value from the tables: ng_sha2k_init is called). */
void ng_sha2_init(ng_sha2_hdr *c, const ng_sha2_kind *k);

#endif
