/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internal to core/src: the software CRC's inline word steps. Hosts use 16
 * tables (16 KiB, one step per 4 words); the Cortex-M3 (NG_CRC32_BITWISE),
 * whose software CRC only checks the CRC unit at power-up, shifts bit by bit. */
#ifndef NG_CRC32_IMPL_H
#define NG_CRC32_IMPL_H
#include <stdint.h>

#if defined(__ARM_ARCH_7M__)
#define NG_CRC32_BITWISE 1
#else
#define NG_CRC32_BITWISE 0
#endif

#define NG_CRC_INLINE static inline __attribute__((always_inline))

extern const uint32_t ng_crc32_t[16][256];

#define NG_B0(x) ((x) >> 24)
#define NG_B1(x) (((x) >> 16) & 0xffu)
#define NG_B2(x) (((x) >> 8) & 0xffu)
#define NG_B3(x) ((x) & 0xffu)

/* n shifts of the register x, MSB first: x times 2^n mod the polynomial. */
NG_CRC_INLINE uint32_t ng_crc32_bits(uint32_t x, int n)
{
	while (n--)
		x = (x << 1) ^ (0x04C11DB7u & (0u - (x >> 31)));
	return x;
}

/* One word, MSB first: the unit's DR write. */
NG_CRC_INLINE uint32_t ng_crc32_step1(uint32_t reg, uint32_t w)
{
	uint32_t x = reg ^ w;
#if NG_CRC32_BITWISE
	return ng_crc32_bits(x, 32);
#else
	return ng_crc32_t[3][NG_B0(x)] ^ ng_crc32_t[2][NG_B1(x)] ^
	       ng_crc32_t[1][NG_B2(x)] ^ ng_crc32_t[0][NG_B3(x)];
#endif
}

/* Four words: w[0] first. Only the first word depends on reg, so the other
 * twelve lookups are off the critical path. */
NG_CRC_INLINE uint32_t ng_crc32_step4(uint32_t reg, const uint32_t *w)
{
#if NG_CRC32_BITWISE
	for (int i = 0; i < 4; i++)
		reg = ng_crc32_step1(reg, w[i]);
	return reg;
#else
	uint32_t x = reg ^ w[0], y = w[1], z = w[2], u = w[3];
	return (ng_crc32_t[15][NG_B0(x)] ^ ng_crc32_t[14][NG_B1(x)] ^
		ng_crc32_t[13][NG_B2(x)] ^ ng_crc32_t[12][NG_B3(x)]) ^
	       (ng_crc32_t[11][NG_B0(y)] ^ ng_crc32_t[10][NG_B1(y)] ^
		ng_crc32_t[9][NG_B2(y)] ^ ng_crc32_t[8][NG_B3(y)] ^
		ng_crc32_t[7][NG_B0(z)] ^ ng_crc32_t[6][NG_B1(z)] ^
		ng_crc32_t[5][NG_B2(z)] ^ ng_crc32_t[4][NG_B3(z)] ^
		ng_crc32_t[3][NG_B0(u)] ^ ng_crc32_t[2][NG_B1(u)] ^
		ng_crc32_t[1][NG_B2(u)] ^ ng_crc32_t[0][NG_B3(u)]);
#endif
}

#endif
