/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The FPEC driver (fpec.h), step by step as PM0075 §2.3 and §2.5 list them. */
#include "fpec.h"


#ifdef NG_FPEC_DIRECT
static uint32_t spin_max(const ng_fpec_bus *b) { (void)b; return 20000000u; }
#else
static uint32_t spin_max(const ng_fpec_bus *b) { return b->spin_max ? b->spin_max : 20000000u; }
#endif

/* Waits for BSY to clear; returns the status bits then, and clears the
 * sticky ones (written 1, §3.4). */
static ng_fpec_err wait_done(const ng_fpec_bus *b)
{
	uint32_t sr = 0, n = spin_max(b);
	while (n-- && ((sr = NG_BUS_RD32(b, NG_FLASH_SR)) & NG_FLASH_SR_BSY))
		;
	if (sr & NG_FLASH_SR_BSY)
		return NG_FPEC_ERR_BUSY;
	NG_BUS_WR32(b, NG_FLASH_SR, NG_FLASH_SR_EOP | NG_FLASH_SR_PGERR | NG_FLASH_SR_WRPRTERR);
	if (sr & NG_FLASH_SR_WRPRTERR)
		return NG_FPEC_ERR_WRP;
	if (sr & NG_FLASH_SR_PGERR)
		return NG_FPEC_ERR_PG;
	return NG_FPEC_OK;
}

static void cr_set(const ng_fpec_bus *b, uint32_t m) { NG_BUS_WR32(b, NG_FLASH_CR, NG_BUS_RD32(b, NG_FLASH_CR) | m); }
static void cr_clr(const ng_fpec_bus *b, uint32_t m) { NG_BUS_WR32(b, NG_FLASH_CR, NG_BUS_RD32(b, NG_FLASH_CR) & ~m); }

ng_fpec_err ng_fpec_unlock(const ng_fpec_bus *b)
{
	if (NG_BUS_RD32(b, NG_FLASH_CR) & NG_FLASH_CR_LOCK) {
		NG_BUS_WR32(b, NG_FLASH_KEYR, NG_FLASH_KEY1);
		NG_BUS_WR32(b, NG_FLASH_KEYR, NG_FLASH_KEY2);
	}
	return (NG_BUS_RD32(b, NG_FLASH_CR) & NG_FLASH_CR_LOCK) ? NG_FPEC_ERR_LOCKED : NG_FPEC_OK;
}

void ng_fpec_lock(const ng_fpec_bus *b) { cr_set(b, NG_FLASH_CR_LOCK); }

void ng_fpec_lockout(const ng_fpec_bus *b)
{
	ng_fpec_lock(b);
	NG_BUS_WR32(b, NG_FLASH_KEYR, ~NG_FLASH_KEY1); /* not KEY1: locked until reset */
}

int ng_fpec_blank(const ng_fpec_bus *b, uint32_t addr, uint32_t len)
{
	for (uint32_t a = addr; a < addr + len; a += 2)
		if (NG_BUS_RD16(b, a) != 0xFFFFu)
			return 0;
	return 1;
}

/* An erase: the page at addr (PER, §2.3.4) or the option bytes (OPTER,
 * §2.5.3, addr unused): no operation in progress, the bit set, the
 * address, STRT, the end awaited, the bit cleared. */
static ng_fpec_err erase(const ng_fpec_bus *b, uint32_t bit, uint32_t addr)
{
	ng_fpec_err e = wait_done(b); /* no operation in progress */
	if (e == NG_FPEC_ERR_BUSY)
		return e;
	cr_set(b, bit);
	NG_BUS_WR32(b, NG_FLASH_AR, addr);
	cr_set(b, NG_FLASH_CR_STRT);
	e = wait_done(b);
	cr_clr(b, bit);
	return e;
}

ng_fpec_err ng_fpec_erase_page(const ng_fpec_bus *b, uint32_t addr)
{
	if (addr < NG_FLASH_MEM || (addr - NG_FLASH_MEM) % NG_FLASH_PAGE)
		return NG_FPEC_ERR_ARG;
	ng_fpec_err e = erase(b, NG_FLASH_CR_PER, addr);
	if (e != NG_FPEC_OK)
		return e;
	return ng_fpec_blank(b, addr, NG_FLASH_PAGE) ? NG_FPEC_OK : NG_FPEC_ERR_VERIFY;
}

/* One half-word with PG (or OPTPG) set by the caller. */
static ng_fpec_err program_half(const ng_fpec_bus *b, uint32_t addr, uint16_t v)
{
	NG_BUS_WR16(b, addr, v);
	ng_fpec_err e = wait_done(b);
	if (e != NG_FPEC_OK)
		return e;
	return NG_BUS_RD16(b, addr) == v ? NG_FPEC_OK : NG_FPEC_ERR_VERIFY;
}

ng_fpec_err ng_fpec_program(const ng_fpec_bus *b, uint32_t addr, const uint8_t *data, uint32_t len)
{
	if (addr < NG_FLASH_MEM || (addr & 1u))
		return NG_FPEC_ERR_ARG;
	ng_fpec_err e = wait_done(b);
	if (e == NG_FPEC_ERR_BUSY)
		return e;
	cr_set(b, NG_FLASH_CR_PG);
	for (uint32_t i = 0; i < len && e == NG_FPEC_OK; i += 2) {
		uint16_t v = (uint16_t)(data[i] | (i + 1 < len ? data[i + 1] << 8 : 0xFF00));
		if (v != 0xFFFFu) /* an erased half-word needs no programming */
			e = program_half(b, addr + i, v);
	}
	cr_clr(b, NG_FLASH_CR_PG);
	return e;
}

uint32_t ng_fpec_protected(const ng_fpec_bus *b) { return ~NG_BUS_RD32(b, NG_FLASH_WRPR); }

ng_fpec_err ng_fpec_protect(const ng_fpec_bus *b, uint32_t mask)
{
	/* The new option bytes (the low byte of each half-word, §2.5): RDP
	 * without read-out protection, USER, Data0 and Data1 as they are, and
	 * WRP0..3 (0 = protected, as FLASH_WRPR) with mask added. */
	uint8_t v[8];
	uint32_t wrp = NG_BUS_RD32(b, NG_FLASH_WRPR) & ~mask;
	for (uint32_t i = 0; i < 8; i++)
		v[i] = (uint8_t)(i < 4 ? NG_BUS_RD16(b, NG_OPT_BASE + 2u * i) : wrp >> (8u * (i - 4u)));
	v[0] = NG_FLASH_RDP_KEY;
	if (NG_BUS_RD32(b, NG_FLASH_OBR) & NG_FLASH_OBR_RDPRT)
		return NG_FPEC_ERR_ARG; /* read-out protected: leave the option bytes alone */
	/* §2.5.1: the option byte key opens FLASH_CR.OPTWRE */
	NG_BUS_WR32(b, NG_FLASH_OPTKEYR, NG_FLASH_KEY1);
	NG_BUS_WR32(b, NG_FLASH_OPTKEYR, NG_FLASH_KEY2);
	if (!(NG_BUS_RD32(b, NG_FLASH_CR) & NG_FLASH_CR_OPTWRE))
		return NG_FPEC_ERR_LOCKED;
	/* §2.5.3 erase, then §2.5.2 program each half-word */
	ng_fpec_err e = erase(b, NG_FLASH_CR_OPTER, NG_OPT_BASE);
	if (e != NG_FPEC_OK)
		return e;
	cr_set(b, NG_FLASH_CR_OPTPG);
	for (uint32_t i = 0; i < 8 && e == NG_FPEC_OK; i++) {
		NG_BUS_WR16(b, NG_OPT_BASE + 2u * i, v[i]);
		e = wait_done(b);
		if (e == NG_FPEC_OK && (NG_BUS_RD16(b, NG_OPT_BASE + 2u * i) & 0xFFu) != v[i])
			e = NG_FPEC_ERR_VERIFY;
	}
	cr_clr(b, NG_FLASH_CR_OPTPG | NG_FLASH_CR_OPTWRE);
	return e;
}
