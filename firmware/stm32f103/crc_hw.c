/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CRC calculation unit (RM0008 section 4): writing a word to CRC_DR
 * shifts it in, most significant bit first, with polynomial 0x04C11DB7;
 * reading CRC_DR gives the register. CRC_CR.RESET loads 0xFFFFFFFF. This is
 * exactly core/'s ng_crc32_word (checked against it by the host test
 * test_fw_adc and, on a board, by main.c's power-up comparison).
 * The unit needs one AHB cycle per word; a read right after the write
 * stalls the bus until the result is ready, so no wait loop is needed. */
#include "fw.h"
#include "stm32f103.h"

void ng_crc_hw_init(void)
{
	NG_SET(NG_RCC_AHBENR, NG_RCC_AHBENR_CRCEN);
	NG_WR(NG_CRC_CR, NG_CRC_CR_RESET);
}

uint32_t ng_crc_hw_word(void *user, uint32_t w)
{
	(void)user;
	NG_WR(NG_CRC_DR, w);
	return NG_RD(NG_CRC_DR);
}

/* Four words per call (the pipeline's hot path): the writes queue behind
 * each other on the bus, one read at the end. */
uint32_t ng_crc_hw_words4(void *user, const uint32_t w[4])
{
	(void)user;
	NG_WR(NG_CRC_DR, w[0]);
	NG_WR(NG_CRC_DR, w[1]);
	NG_WR(NG_CRC_DR, w[2]);
	NG_WR(NG_CRC_DR, w[3]);
	return NG_RD(NG_CRC_DR);
}

/* CRC_DR for cfg.crc_dr: the pipeline's hot loop writes the samples and
 * reads the result itself, without calls. NULL in the host model of the
 * registers (tests/unit/fw_model.h), which sees only NG_WR/NG_RD. */
volatile uint32_t *ng_crc_hw_dr(void)
{
#ifdef NG_FW_HOST_MODEL
	return NULL;
#else
	return (volatile uint32_t *)(uintptr_t)NG_CRC_DR;
#endif
}
