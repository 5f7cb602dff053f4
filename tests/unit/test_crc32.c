/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CRC-32 as the STM32 CRC unit: check value, the word-order rule, and a
 * differential test against a bit-at-a-time model written here. */
#include <string.h>
#include "check.h"
#include "ng/crc32.h"

/* RM0008 4.2: the register shifts each bit of the word in, MSB first. */
static uint32_t bit_word(uint32_t reg, uint32_t w)
{
	for (int i = 31; i >= 0; i--) {
		uint32_t in = (w >> i) & 1u, top = reg >> 31;
		reg <<= 1;
		if (top ^ in)
			reg ^= 0x04C11DB7u;
	}
	return reg;
}

static uint32_t bit_byte(uint32_t reg, uint8_t b)
{
	for (int i = 7; i >= 0; i--) {
		uint32_t in = (b >> i) & 1u, top = reg >> 31;
		reg <<= 1;
		if (top ^ in)
			reg ^= 0x04C11DB7u;
	}
	return reg;
}

int main(void)
{
	ng_crc32_ctx c;
	ng_crc32_reset(&c);
	CHECK(c.reg == 0xFFFFFFFFu, "reset sets the register to 0xFFFFFFFF");
	uint32_t v = ng_crc32_bytes(&c, (const uint8_t *)"123456789", 9);
	CHECK(v == 0x0376E6E7u, "check value of \"123456789\" byte-wise = 0x0376E6E7 (got 0x%08x)", v);
	uint32_t r = 0xFFFFFFFFu;
	for (int i = 0; i < 9; i++)
		r = bit_byte(r, (uint8_t)"123456789"[i]);
	CHECK(r == 0x0376E6E7u, "the bit-at-a-time model gives the same check value");

	uint64_t seed = ng_test_seed();
	int bad_order = 0, bad_word = 0, bad_run = 0, bad_bytes = 0;
	for (int i = 0; i < 20000; i++) {
		uint32_t reg = (uint32_t)ng_test_rand(&seed), w = (uint32_t)ng_test_rand(&seed);
		uint8_t b[4] = { (uint8_t)(w >> 24), (uint8_t)(w >> 16), (uint8_t)(w >> 8), (uint8_t)w };
		ng_crc32_ctx a = { reg }, bb = { reg };
		uint32_t x = ng_crc32_word(&a, w), y = ng_crc32_bytes(&bb, b, 4);
		bad_order += x != y;
		bad_word += x != bit_word(reg, w) || a.reg != x;
	}
	CHECK(!bad_order, "word rule: a word equals its 4 bytes MSB first (20000 random)");
	CHECK(!bad_word, "ng_crc32_word == bit-at-a-time model (20000 random)");
	for (int i = 0; i < 2000; i++) {
		uint32_t w[37], reg = (uint32_t)ng_test_rand(&seed), ref = reg;
		size_t n = (size_t)(ng_test_rand(&seed) % 38);
		for (size_t j = 0; j < n; j++) {
			w[j] = (uint32_t)ng_test_rand(&seed);
			ref = bit_word(ref, w[j]);
		}
		bad_run += ng_crc32_run(reg, w, n) != ref;
		uint8_t m[64];
		size_t k = (size_t)(ng_test_rand(&seed) % 64);
		uint32_t rb = reg;
		for (size_t j = 0; j < k; j++) {
			m[j] = (uint8_t)ng_test_rand(&seed);
			rb = bit_byte(rb, m[j]);
		}
		ng_crc32_ctx cc = { reg };
		bad_bytes += ng_crc32_bytes(&cc, m, k) != rb;
	}
	CHECK(!bad_run, "ng_crc32_run (0..37 words, sliced) == bit-at-a-time model");
	CHECK(!bad_bytes, "ng_crc32_bytes == bit-at-a-time model");
	/* The unit's known behaviour: after RESET, writing 0 leaves 0xC704DD7B. */
	ng_crc32_reset(&c);
	v = ng_crc32_word(&c, 0);
	CHECK(v == 0xC704DD7Bu, "RESET then DR = 0 reads 0xC704DD7B (got 0x%08x)", v);
	return ng_check_exit();
}
