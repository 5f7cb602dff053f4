/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The FPEC register model (fpec_model.h). */
#include "fpec_model.h"

#include <string.h>

static uint16_t opt_half(const ng_fpec_model *m, uint32_t i) { return (uint16_t)(m->opt[2 * i] | m->opt[2 * i + 1] << 8); }

static void opt_store(ng_fpec_model *m, uint32_t i, uint8_t v)
{
	m->opt[2 * i] = v;
	m->opt[2 * i + 1] = (uint8_t)~v;
}

void ng_fpec_model_init(ng_fpec_model *m, uint8_t *mem, uint32_t size)
{
	memset(m, 0, sizeof *m);
	m->mem = mem;
	m->size = size;
	m->rng = 0x9E3779B97F4A7C15ull;
	opt_store(m, 0, 0xA5); /* RDP: read-out protection off */
	for (uint32_t i = 1; i < 8; i++)
		opt_store(m, i, 0xFF);
	ng_fpec_model_reset(m);
}

void ng_fpec_model_reset(ng_fpec_model *m)
{
	m->cr = NG_FLASH_CR_LOCK;
	m->sr = m->ar = 0;
	m->key_state = m->optkey_state = 0;
	m->locked_out = false;
	m->dead = false;
	m->busy_left = 0;
	/* option byte loading: a byte whose complement is wrong reads as 0xFF
	 * in WRPR (protection of nothing) and sets OPTERR, as §2.5 tells */
	m->wrpr = 0;
	m->obr = 0;
	for (uint32_t i = 0; i < 4; i++) {
		uint16_t h = opt_half(m, 4 + i);
		uint8_t v = (uint8_t)h;
		if ((uint8_t)(h >> 8) != (uint8_t)~v) {
			v = 0xFF;
			m->obr |= NG_FLASH_OBR_OPTERR;
		}
		m->wrpr |= (uint32_t)v << (8 * i);
	}
	if ((uint8_t)opt_half(m, 0) != 0xA5)
		m->obr |= NG_FLASH_OBR_RDPRT;
}

static uint64_t rnd(ng_fpec_model *m)
{
	m->rng ^= m->rng >> 12;
	m->rng ^= m->rng << 25;
	m->rng ^= m->rng >> 27;
	return m->rng * 0x2545F4914F6CDD1Dull;
}

static bool in_main(const ng_fpec_model *m, uint32_t a) { return a >= NG_FLASH_MEM && a - NG_FLASH_MEM < m->size; }

static bool protected_page(const ng_fpec_model *m, uint32_t a)
{
	uint32_t page = (a - NG_FLASH_MEM) / NG_FLASH_PAGE, bit = page / NG_OPT_WRP_PAGES;
	if (bit > 31)
		bit = 31; /* §2.4.2: WRP3 bit 7 guards the rest of a larger part */
	return !(m->wrpr & (1u << bit));
}

static bool cut(ng_fpec_model *m, int kind, uint32_t addr)
{
	if (m->cut && m->cut(m->cut_user, kind, addr)) {
		m->dead = true;
		return true;
	}
	return false;
}

static void done(ng_fpec_model *m)
{
	m->sr |= NG_FLASH_SR_EOP;
	m->busy_left = m->busy_reads;
}

static void erase_page(ng_fpec_model *m, uint32_t a)
{
	if (!in_main(m, a)) {
		done(m);
		return;
	}
	a -= (a - NG_FLASH_MEM) % NG_FLASH_PAGE;
	if (protected_page(m, a)) {
		m->sr |= NG_FLASH_SR_WRPRTERR;
		done(m);
		return;
	}
	uint8_t *p = m->mem + (a - NG_FLASH_MEM);
	if (cut(m, NG_FPEC_OP_ERASE, a)) { /* half erased: some bits set, some not */
		for (uint32_t i = 0; i < NG_FLASH_PAGE; i++)
			p[i] |= (uint8_t)rnd(m);
		return;
	}
	memset(p, 0xFF, NG_FLASH_PAGE);
	m->erases++;
	done(m);
}

static void start(ng_fpec_model *m)
{
	if (m->cr & NG_FLASH_CR_PER) {
		erase_page(m, m->ar);
	} else if (m->cr & NG_FLASH_CR_MER) {
		for (uint32_t a = NG_FLASH_MEM; a < NG_FLASH_MEM + m->size && !m->dead; a += NG_FLASH_PAGE)
			if (!protected_page(m, a))
				erase_page(m, a);
	} else if ((m->cr & NG_FLASH_CR_OPTER) && (m->cr & NG_FLASH_CR_OPTWRE)) {
		if (cut(m, NG_FPEC_OP_OPTION, NG_OPT_BASE)) {
			for (uint32_t i = 0; i < 16; i++)
				m->opt[i] |= (uint8_t)rnd(m);
			return;
		}
		memset(m->opt, 0xFF, sizeof m->opt);
		m->option_ops++;
		done(m);
	}
}

static void wr32(void *user, uint32_t addr, uint32_t v)
{
	ng_fpec_model *m = user;
	if (m->dead)
		return;
	switch (addr) {
	case NG_FLASH_KEYR:
		if (!(m->cr & NG_FLASH_CR_LOCK) || m->locked_out) {
			m->faults++;
			m->locked_out = true;
		} else if (m->key_state == 0 && v == NG_FLASH_KEY1) {
			m->key_state = 1;
		} else if (m->key_state == 1 && v == NG_FLASH_KEY2) {
			m->key_state = 0;
			m->cr &= ~NG_FLASH_CR_LOCK;
		} else { /* §2.3.1: a wrong sequence locks the FPEC until reset */
			m->faults++;
			m->locked_out = true;
		}
		break;
	case NG_FLASH_OPTKEYR:
		if (m->cr & NG_FLASH_CR_LOCK) {
			m->faults++;
		} else if (m->optkey_state == 0 && v == NG_FLASH_KEY1) {
			m->optkey_state = 1;
		} else if (m->optkey_state == 1 && v == NG_FLASH_KEY2) {
			m->optkey_state = 0;
			m->cr |= NG_FLASH_CR_OPTWRE;
		} else {
			m->optkey_state = 0;
			m->faults++;
		}
		break;
	case NG_FLASH_SR: /* EOP, WRPRTERR, PGERR: write 1 to clear */
		m->sr &= ~(v & (NG_FLASH_SR_EOP | NG_FLASH_SR_WRPRTERR | NG_FLASH_SR_PGERR));
		break;
	case NG_FLASH_AR:
		m->ar = v;
		break;
	case NG_FLASH_CR: {
		if (m->cr & NG_FLASH_CR_LOCK) { /* not writable while locked */
			m->faults++;
			break;
		}
		uint32_t keep = m->cr & NG_FLASH_CR_OPTWRE; /* OPTWRE: software can only clear it */
		m->cr = (v & (NG_FLASH_CR_PG | NG_FLASH_CR_PER | NG_FLASH_CR_MER | NG_FLASH_CR_OPTPG |
			      NG_FLASH_CR_OPTER | NG_FLASH_CR_LOCK | NG_FLASH_CR_OPTWRE)) & (~NG_FLASH_CR_OPTWRE | keep);
		if (v & NG_FLASH_CR_STRT)
			start(m);
		break;
	}
	default:
		m->faults++;
		break;
	}
}

static uint32_t rd32(void *user, uint32_t addr)
{
	ng_fpec_model *m = user;
	switch (addr) {
	case NG_FLASH_SR:
		if (m->busy_left) {
			m->busy_left--;
			return m->sr | NG_FLASH_SR_BSY;
		}
		return m->sr;
	case NG_FLASH_CR: return m->cr;
	case NG_FLASH_AR: return m->ar;
	case NG_FLASH_OBR: return m->obr;
	case NG_FLASH_WRPR: return m->wrpr;
	default: return 0;
	}
}

static uint16_t rd16(void *user, uint32_t addr)
{
	ng_fpec_model *m = user;
	if (in_main(m, addr) && in_main(m, addr + 1))
		return (uint16_t)(m->mem[addr - NG_FLASH_MEM] | m->mem[addr + 1 - NG_FLASH_MEM] << 8);
	if (addr >= NG_OPT_BASE && addr < NG_OPT_BASE + 16 && !(addr & 1))
		return opt_half(m, (addr - NG_OPT_BASE) / 2);
	return 0;
}

static void wr16(void *user, uint32_t addr, uint16_t v)
{
	ng_fpec_model *m = user;
	if (m->dead)
		return;
	if (addr >= NG_OPT_BASE && addr < NG_OPT_BASE + 16 && !(addr & 1)) {
		if (!(m->cr & NG_FLASH_CR_OPTPG) || !(m->cr & NG_FLASH_CR_OPTWRE)) {
			m->faults++;
			return;
		}
		uint32_t i = (addr - NG_OPT_BASE) / 2;
		if (opt_half(m, i) != 0xFFFFu) {
			m->sr |= NG_FLASH_SR_PGERR;
			done(m);
			return;
		}
		if (cut(m, NG_FPEC_OP_OPTION, addr)) {
			m->opt[2 * i] &= (uint8_t)rnd(m);
			return;
		}
		opt_store(m, i, (uint8_t)v);
		m->option_ops++;
		done(m);
		return;
	}
	if (!in_main(m, addr) || (addr & 1) || !(m->cr & NG_FLASH_CR_PG)) {
		m->faults++; /* a write to flash outside programming */
		return;
	}
	if (protected_page(m, addr)) {
		m->sr |= NG_FLASH_SR_WRPRTERR;
		done(m);
		return;
	}
	uint8_t *p = m->mem + (addr - NG_FLASH_MEM);
	uint16_t old = (uint16_t)(p[0] | p[1] << 8);
	if (old != 0xFFFFu && v != 0x0000u) { /* §2.3.3: not erased */
		m->sr |= NG_FLASH_SR_PGERR;
		done(m);
		return;
	}
	if (cut(m, NG_FPEC_OP_PROGRAM, addr)) { /* some of the bits that should clear did */
		uint16_t part = (uint16_t)(old & (v | (uint16_t)rnd(m)));
		p[0] = (uint8_t)part;
		p[1] = (uint8_t)(part >> 8);
		return;
	}
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	m->programs++;
	done(m);
}

void ng_fpec_model_bus(ng_fpec_model *m, ng_fpec_bus *bus)
{
	memset(bus, 0, sizeof *bus);
	bus->rd32 = rd32;
	bus->wr32 = wr32;
	bus->rd16 = rd16;
	bus->wr16 = wr16;
	bus->user = m;
	bus->spin_max = 1000;
}
