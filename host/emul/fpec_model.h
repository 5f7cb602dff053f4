/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A register model of the STM32F103 flash program/erase controller, written
 * from PM0075 (§2.3-§2.5, §3), under boot/fpec.h's ng_fpec_bus: the unit
 * tests check the driver against it, and the emulation (`neug emulate
 * --flash=FILE`) runs the loader's update over it on a file-backed flash.
 *
 * What it enforces, as PM0075 describes the chip:
 *  - after reset FLASH_CR is locked (LOCK = 1) and ignores writes; KEY1 then
 *    KEY2 in FLASH_KEYR unlock it; any other value, or the keys in the wrong
 *    order, locks the FPEC until the next reset (counted as a bus error);
 *  - a half-word write to main flash programs it only with PG set; a
 *    half-word that is not 0xFFFF can only be programmed with 0x0000,
 *    anything else sets PGERR and changes nothing (§2.3.3);
 *  - a page in a write-protected group (FLASH_WRPR, loaded from the WRP
 *    option bytes at reset) is neither erased nor programmed: WRPRTERR;
 *  - PER + FLASH_AR + STRT erases one page; MER + STRT all unprotected ones;
 *  - the option bytes open with OPTKEYR (KEY1, KEY2) once FLASH_CR is
 *    unlocked (OPTWRE); OPTER + STRT erases them, OPTPG programs a half-word
 *    (the complement byte is computed, §2.5); they take effect at reset;
 *  - BSY reads as 1 for `busy_reads` reads after each operation.
 * A power cut can be injected before any erase or program: the operation
 * is left half done (an erased page holds arbitrary bits, a half-word some
 * of its bits cleared) and the model ignores everything until
 * ng_fpec_model_reset. Host only (test support and emulation). */
#ifndef NG_FPEC_MODEL_H
#define NG_FPEC_MODEL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fpec.h"

enum { NG_FPEC_OP_ERASE = 1, NG_FPEC_OP_PROGRAM = 2, NG_FPEC_OP_OPTION = 3 };

typedef struct {
	uint8_t *mem;          /* main flash, size bytes, mapped at NG_FLASH_MEM (the caller's) */
	uint32_t size;
	uint8_t opt[16];       /* option bytes: RDP, USER, Data0, Data1, WRP0..3 (value, complement) */
	uint32_t cr, sr, ar, wrpr, obr;
	int key_state, optkey_state;
	bool locked_out;       /* a wrong key sequence: locked until reset */
	bool dead;             /* power cut: nothing happens until reset */
	uint32_t busy_reads;   /* BSY reads as 1 this many times after an operation */
	uint32_t busy_left;
	uint32_t faults;       /* bus errors: writes the chip would fault on */
	uint32_t erases, programs, option_ops;
	/* Called before every erase / program / option operation (kind, address):
	 * return true to cut the power there. */
	bool (*cut)(void *user, int kind, uint32_t addr);
	void *cut_user;
	uint64_t rng;          /* for the bits a cut leaves */
} ng_fpec_model;

/* mem: size bytes of flash (the caller's; 0xFF = erased). Option bytes
 * erased to "no read-out protection, nothing write-protected"; then reset. */
void ng_fpec_model_init(ng_fpec_model *m, uint8_t *mem, uint32_t size);
/* Power-on / system reset: FPEC locked, option bytes loaded. */
void ng_fpec_model_reset(ng_fpec_model *m);
/* The driver's bus over m (bus->user = m). */
void ng_fpec_model_bus(ng_fpec_model *m, ng_fpec_bus *bus);

#endif
