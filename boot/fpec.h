/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Flash programming on the STM32F103, by ST's PM0075 ("STM32F10xxx Flash
 * memory microcontrollers" programming manual, the FPEC: flash program and
 * erase controller). Section numbers below are PM0075's.
 *
 * Every access goes through an ng_fpec_bus, so the same driver runs on the
 * chip (volatile loads and stores, firmware/stm32f103/loader/) and on the
 * register model of host/emul/fpec_model.h (unit tests, the emulation's
 * file-backed flash). Only the boot loader links this file: the application
 * has no code that unlocks the flash (tests/scripts/loader-image.sh checks
 * that KEY1 is absent from its image), and the loader locks the FPEC out
 * with a wrong key before it jumps to the application (ng_fpec_lockout),
 * which PM0075 §2.3.1 says keeps FLASH_CR locked until the next reset.
 * Freestanding. */
#ifndef NG_BOOT_FPEC_H
#define NG_BOOT_FPEC_H
#include <stdint.h>

/* Registers (§3.1 .. §3.9). */
#define NG_FLASH_BASE_R    0x40022000u
#define NG_FLASH_ACR_R     (NG_FLASH_BASE_R + 0x00u)
#define NG_FLASH_KEYR      (NG_FLASH_BASE_R + 0x04u)
#define NG_FLASH_OPTKEYR   (NG_FLASH_BASE_R + 0x08u)
#define NG_FLASH_SR        (NG_FLASH_BASE_R + 0x0Cu)
#define  NG_FLASH_SR_BSY      (1u << 0)
#define  NG_FLASH_SR_PGERR    (1u << 2)
#define  NG_FLASH_SR_WRPRTERR (1u << 4)
#define  NG_FLASH_SR_EOP      (1u << 5)
#define NG_FLASH_CR        (NG_FLASH_BASE_R + 0x10u)
#define  NG_FLASH_CR_PG       (1u << 0)
#define  NG_FLASH_CR_PER      (1u << 1)
#define  NG_FLASH_CR_MER      (1u << 2)
#define  NG_FLASH_CR_OPTPG    (1u << 4)
#define  NG_FLASH_CR_OPTER    (1u << 5)
#define  NG_FLASH_CR_STRT     (1u << 6)
#define  NG_FLASH_CR_LOCK     (1u << 7)
#define  NG_FLASH_CR_OPTWRE   (1u << 9)
#define NG_FLASH_AR        (NG_FLASH_BASE_R + 0x14u)
#define NG_FLASH_OBR       (NG_FLASH_BASE_R + 0x1Cu)
#define  NG_FLASH_OBR_OPTERR  (1u << 0)
#define  NG_FLASH_OBR_RDPRT   (1u << 1)
#define NG_FLASH_WRPR      (NG_FLASH_BASE_R + 0x20u)
#define NG_FLASH_KEY1      0x45670123u /* §2.3.1 */
#define NG_FLASH_KEY2      0xCDEF89ABu
#define NG_FLASH_RDP_KEY   0x00A5u     /* RDP option byte: read-out protection off */

/* Memory map (§2.2, §2.5): main flash and the option bytes. */
#define NG_FLASH_MEM       0x08000000u
#define NG_FLASH_PAGE      1024u       /* low- and medium-density parts (<= 128 KiB) */
#define NG_OPT_BASE        0x1FFFF800u /* RDP, USER, Data0, Data1, WRP0..WRP3: 8 half-words */
#define NG_OPT_RDP         (NG_OPT_BASE + 0x0u)
#define NG_OPT_USER        (NG_OPT_BASE + 0x2u)
#define NG_OPT_DATA0       (NG_OPT_BASE + 0x4u)
#define NG_OPT_DATA1       (NG_OPT_BASE + 0x6u)
#define NG_OPT_WRP0        (NG_OPT_BASE + 0x8u)
#define NG_OPT_WRP_PAGES   4u          /* §2.4.2: on medium density each WRP bit guards 4 pages */

/* How the driver reaches the chip. rd32/wr32: the FPEC registers and the
 * option bytes; rd16/wr16: main flash and option bytes, half-words. */
typedef struct {
	uint32_t (*rd32)(void *user, uint32_t addr);
	void (*wr32)(void *user, uint32_t addr, uint32_t v);
	uint16_t (*rd16)(void *user, uint32_t addr);
	void (*wr16)(void *user, uint32_t addr, uint16_t v);
	void *user;
	uint32_t spin_max; /* BSY polls before giving up; 0: 20,000,000 */
} ng_fpec_bus;

/* Register and flash accesses as the driver makes them: through the bus,
 * or, in the boot loader's build (NG_FPEC_DIRECT), as plain volatile
 * accesses to the chip (the bus argument is then ignored). */
#ifdef NG_FPEC_DIRECT
#define NG_BUS_RD32(b, a)    ((void)(b), *(volatile uint32_t *)(uintptr_t)(a))
#define NG_BUS_WR32(b, a, v) ((void)(b), *(volatile uint32_t *)(uintptr_t)(a) = (v))
#define NG_BUS_RD16(b, a)    ((void)(b), *(volatile uint16_t *)(uintptr_t)(a))
#define NG_BUS_WR16(b, a, v) ((void)(b), *(volatile uint16_t *)(uintptr_t)(a) = (v))
#else
#define NG_BUS_RD32(b, a)    ((b)->rd32((b)->user, (a)))
#define NG_BUS_WR32(b, a, v) ((b)->wr32((b)->user, (a), (v)))
#define NG_BUS_RD16(b, a)    ((b)->rd16((b)->user, (a)))
#define NG_BUS_WR16(b, a, v) ((b)->wr16((b)->user, (a), (v)))
#endif

typedef enum {
	NG_FPEC_OK = 0,
	NG_FPEC_ERR_LOCKED = -1, /* the unlock sequence did not open FLASH_CR */
	NG_FPEC_ERR_BUSY = -2,   /* BSY did not clear */
	NG_FPEC_ERR_PG = -3,     /* PGERR: programming a half-word that was not erased */
	NG_FPEC_ERR_WRP = -4,    /* WRPRTERR: the page is write-protected */
	NG_FPEC_ERR_VERIFY = -5, /* read back differs (erase or program) */
	NG_FPEC_ERR_ARG = -6     /* address not aligned or outside main flash */
} ng_fpec_err;

/* §2.3.1: KEY1, KEY2 into FLASH_KEYR; OK when FLASH_CR.LOCK reads 0. */
ng_fpec_err ng_fpec_unlock(const ng_fpec_bus *b);
/* FLASH_CR.LOCK = 1. */
void ng_fpec_lock(const ng_fpec_bus *b);
/* A deliberately wrong key: the FPEC stays locked until the next reset
 * (§2.3.1), whatever the code that runs next does. */
void ng_fpec_lockout(const ng_fpec_bus *b);
/* §2.3.4: erases the page at addr (page-aligned, main flash), then reads
 * every half-word back as 0xFFFF. The FPEC must be unlocked. */
ng_fpec_err ng_fpec_erase_page(const ng_fpec_bus *b, uint32_t addr);
/* §2.3.3: programs len bytes at addr (both even; an odd last byte is
 * padded with 0xFF) half-word by half-word, each read back. */
ng_fpec_err ng_fpec_program(const ng_fpec_bus *b, uint32_t addr, const uint8_t *data, uint32_t len);
/* True when every half-word of [addr, addr + len) reads 0xFFFF. */
int ng_fpec_blank(const ng_fpec_bus *b, uint32_t addr, uint32_t len);
/* §2.5: write-protects the pages of mask (bit i: pages 4i..4i+3, 32 bits
 * for WRP0..WRP3) on top of what is protected already: erases the option
 * bytes and programs RDP (unchanged: 0xA5 stays off), USER, Data0, Data1
 * and WRP0..3 again. Takes effect at the next reset (option byte loading).
 * The FPEC must be unlocked. */
ng_fpec_err ng_fpec_protect(const ng_fpec_bus *b, uint32_t mask);
/* The pages write-protected now (FLASH_WRPR, inverted: bit i set = pages
 * 4i..4i+3 protected). */
uint32_t ng_fpec_protected(const ng_fpec_bus *b);

#endif
