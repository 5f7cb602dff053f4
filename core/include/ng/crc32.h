/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CRC-32 exactly as the STM32F1 CRC unit computes it (RM0008 section 4):
 * width 32, poly 0x04C11DB7, init 0xFFFFFFFF, refin false, refout false,
 * xorout 0, one 32-bit word at a time, most significant bit first
 * (catalogue name CRC-32/MPEG-2 when fed bytes; check "123456789" = 0x0376E6E7).
 * Word-order rule: writing the word w equals feeding its bytes w >> 24,
 * w >> 16, w >> 8, w in that order. */
#ifndef NG_CRC32_H
#define NG_CRC32_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint32_t reg;
} ng_crc32_ctx;

/* The unit's RESET: reg = 0xFFFFFFFF. */
void ng_crc32_reset(ng_crc32_ctx *ctx);
/* The unit's DR write: shifts in w (MSB first), returns the new register. */
uint32_t ng_crc32_word(ng_crc32_ctx *ctx, uint32_t w);
/* Byte-wise (MSB-first) update, for the catalogue check value. */
uint32_t ng_crc32_bytes(ng_crc32_ctx *ctx, const uint8_t *buf, size_t len);
/* Shifts n words into the register value reg and returns the result (no
 * context: the pipeline's fast path). */
uint32_t ng_crc32_run(uint32_t reg, const uint32_t *w, size_t n);

#endif
