/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internal to core/src: the pieces sha256.c and sha256_x86.c share. */
#ifndef NG_SHA256_IMPL_H
#define NG_SHA256_IMPL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ng/wipe.h"

extern const uint32_t ng_sha256_k[64];
/* FIPS 180-4 5.3.3: the initial hash value H(0). */
extern const uint32_t ng_sha256_h0[8];

/* The SHA-NI path exists only on x86-64 with GCC or Clang (function target
 * attributes); everywhere else (Cortex-M3, freestanding ARM) it is absent. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NG_SHA256_HAVE_X86 1
/* CPUID: SHA (leaf 7 EBX bit 29), SSSE3 (leaf 1 ECX bit 9), SSE4.1 (bit 19). */
bool ng_sha256_x86_supported(void);
void ng_sha256_compress_x86(uint32_t h[8], const uint8_t *blocks, size_t n);
#else
#define NG_SHA256_HAVE_X86 0
#endif

/* Thumb-2 assembly for the Cortex-M3 (sha256_armv7m.c); n may be 0. */
#if defined(__ARM_ARCH_7M__) && defined(__thumb2__) && (defined(__GNUC__) || defined(__clang__))
#define NG_SHA256_HAVE_ARMV7M 1
void ng_sha256_compress_armv7m(uint32_t h[8], const uint8_t *blocks, size_t n);
#else
#define NG_SHA256_HAVE_ARMV7M 0
#endif

#endif
