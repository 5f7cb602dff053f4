/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Software model of the STM32F1 CRC unit (RM0008 section 4.2): see crc32.h.
 * Words by tables (tools/gen_crc32_table.py; crc32_impl.h), bytes bit by bit. */
#include "ng/crc32.h"
#include "crc32_impl.h"
#if !NG_CRC32_BITWISE
#include "crc32_table.h"
#endif

void ng_crc32_reset(ng_crc32_ctx *ctx) { ctx->reg = 0xFFFFFFFFu; }

uint32_t ng_crc32_word(ng_crc32_ctx *ctx, uint32_t w)
{
	return ctx->reg = ng_crc32_step1(ctx->reg, w);
}

uint32_t ng_crc32_bytes(ng_crc32_ctx *ctx, const uint8_t *buf, size_t len)
{
	uint32_t r = ctx->reg;
	while (len--)
		r = ng_crc32_bits(r ^ (uint32_t)*buf++ << 24, 8);
	return ctx->reg = r;
}

uint32_t ng_crc32_run(uint32_t reg, const uint32_t *w, size_t n)
{
	for (; n >= 4; n -= 4, w += 4)
		reg = ng_crc32_step4(reg, w);
	while (n--)
		reg = ng_crc32_step1(reg, *w++);
	return reg;
}
