/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Little-endian loads and stores, for every layer (USB fields, GET_INFO,
 * sample words). Compilers turn each into one load or store where the CPU is
 * little endian. */
#ifndef NG_BYTES_H
#define NG_BYTES_H
#include <stdint.h>

static inline void ng_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* (GCC for the Cortex-M3 does not merge the byte stores and loads: there
 * the little-endian word is copied, one unaligned store or load.) */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline void ng_put_le32(uint8_t *p, uint32_t v) { __builtin_memcpy(p, &v, 4); }
#else
static inline void ng_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}
#endif

static inline uint16_t ng_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline uint32_t ng_get_le32(const uint8_t *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
}
#else
static inline uint32_t ng_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
#endif

#endif
