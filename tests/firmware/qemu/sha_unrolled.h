/* SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef NG_SHA_UNROLLED_H
#define NG_SHA_UNROLLED_H
#include <stddef.h>
#include <stdint.h>
void ng_bench_sha256_compress8(uint32_t st[8], const uint8_t *p, size_t n);
#endif
