/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The FPEC driver (boot/fpec.c) against the register model written from
 * PM0075 (host/emul/fpec_model.c): locked after reset, the key sequence, a wrong
 * key locking the FPEC until reset, page erase, half-word programming and
 * its PGERR on a programmed half-word, write protection from the WRP option
 * bytes (WRPRTERR, effective after reset, RDP kept), BSY polling. */
#include <string.h>
#include "check.h"
#include "fakes/boot_fixture.h"

static bf_board B;

int main(void)
{
	bf_init(&B, NULL);
	ng_fpec_bus *b = &B.bus;
	const uint32_t p8 = NG_FLASH_MEM + 8u * NG_FLASH_PAGE;
	uint8_t data[64];
	for (int i = 0; i < 64; i++)
		data[i] = (uint8_t)(i * 7 + 1);

	/* §2.3.1: locked at reset */
	CHECK(B.m.cr & NG_FLASH_CR_LOCK, "after reset FLASH_CR.LOCK is set");
	uint32_t f0 = B.m.faults;
	ng_fpec_err e = ng_fpec_program(b, p8, data, 64);
	CHECK(e == NG_FPEC_ERR_VERIFY && ng_fpec_blank(b, p8, 64) && B.m.faults > f0,
	      "programming while locked: nothing is written, the model counts the bus faults (%u)", B.m.faults - f0);
	CHECK(ng_fpec_erase_page(b, p8) == NG_FPEC_OK && B.m.erases == 0,
	      "erasing while locked: PER/STRT ignored (the page was blank anyway, no erase happened)");
	CHECK(ng_fpec_unlock(b) == NG_FPEC_OK && !(B.m.cr & NG_FLASH_CR_LOCK), "KEY1, KEY2: unlocked");

	/* §2.3.3 programming, §2.3.4 erase */
	CHECK(ng_fpec_program(b, p8, data, 64) == NG_FPEC_OK && memcmp(B.mem + 8u * NG_FLASH_PAGE, data, 64) == 0,
	      "64 bytes programmed half-word by half-word and read back");
	CHECK(!(B.m.cr & NG_FLASH_CR_PG), "PG cleared after programming");
	uint8_t other[2] = {0x12, 0x34};
	CHECK(ng_fpec_program(b, p8, other, 2) == NG_FPEC_ERR_PG && B.mem[8u * NG_FLASH_PAGE] == data[0] &&
	      !(B.m.sr & NG_FLASH_SR_PGERR),
	      "a programmed half-word programmed again: PGERR, unchanged, and the driver cleared PGERR");
	uint8_t odd[3] = {0xAA, 0xBB, 0xCC};
	CHECK(ng_fpec_program(b, p8 + 100, odd, 3) == NG_FPEC_OK && B.mem[8u * NG_FLASH_PAGE + 102] == 0xCC &&
	      B.mem[8u * NG_FLASH_PAGE + 103] == 0xFF, "an odd length: the last byte padded with 0xFF");
	CHECK(ng_fpec_program(b, p8 + 1, odd, 2) == NG_FPEC_ERR_ARG, "odd address refused");
	CHECK(ng_fpec_erase_page(b, p8) == NG_FPEC_OK && ng_fpec_blank(b, p8, NG_FLASH_PAGE) && B.m.erases == 1,
	      "page erase: 1024 bytes of 0xFF");
	CHECK(ng_fpec_erase_page(b, p8 + 2) == NG_FPEC_ERR_ARG, "an unaligned page address refused");

	/* BSY polling */
	B.m.busy_reads = 5;
	CHECK(ng_fpec_program(b, p8, data, 8) == NG_FPEC_OK, "BSY set for 5 polls after each operation: waited out");
	B.m.busy_reads = 5000;
	CHECK(ng_fpec_erase_page(b, p8) == NG_FPEC_ERR_BUSY, "BSY that never clears (within spin_max): reported");
	B.m.busy_reads = 0;
	B.m.busy_left = 0;

	/* §2.4, §2.5: write protection of pages 0..7 */
	CHECK(ng_fpec_protected(b) == 0, "nothing write-protected at first");
	CHECK(ng_fpec_protect(b, 3u) == NG_FPEC_OK, "WRP0 bits 0-1 (pages 0-7) programmed");
	CHECK(ng_fpec_protected(b) == 0, "not effective before the option bytes are loaded (reset)");
	ng_fpec_model_reset(&B.m);
	CHECK(ng_fpec_protected(b) == 3u && !(B.m.obr & NG_FLASH_OBR_RDPRT) && !(B.m.obr & NG_FLASH_OBR_OPTERR),
	      "after reset: pages 0-7 protected, read-out protection still off, no OPTERR");
	CHECK(ng_fpec_unlock(b) == NG_FPEC_OK, "unlocked again after reset");
	B.mem[100] = 0x5A;
	CHECK(ng_fpec_erase_page(b, NG_FLASH_MEM) == NG_FPEC_ERR_WRP && B.mem[100] == 0x5A, "erase of page 0: WRPRTERR, untouched");
	CHECK(ng_fpec_program(b, NG_FLASH_MEM + 7u * NG_FLASH_PAGE, data, 2) == NG_FPEC_ERR_WRP, "program in page 7: WRPRTERR");
	CHECK(ng_fpec_erase_page(b, p8) == NG_FPEC_OK, "page 8 (the next group) is not protected");
	CHECK(ng_fpec_protect(b, 1u << 4) == NG_FPEC_OK, "protecting more keeps what was protected");
	ng_fpec_model_reset(&B.m);
	CHECK(ng_fpec_protected(b) == (3u | 1u << 4), "pages 0-7 and 16-19 protected");

	/* §2.3.1: a wrong key sequence locks the FPEC until reset */
	ng_fpec_lockout(b);
	CHECK(ng_fpec_unlock(b) == NG_FPEC_ERR_LOCKED, "after the loader's lock-out: KEY1, KEY2 no longer unlock");
	CHECK(ng_fpec_erase_page(b, p8 + NG_FLASH_PAGE) == NG_FPEC_OK && B.m.locked_out,
	      "and the FPEC stays locked (erase ignored)");
	uint8_t opt[16];
	memcpy(opt, B.m.opt, 16);
	CHECK(ng_fpec_protect(b, 0) == NG_FPEC_ERR_LOCKED && memcmp(opt, B.m.opt, 16) == 0,
	      "and the option bytes cannot be opened: the protection cannot be lifted");
	ng_fpec_model_reset(&B.m);
	CHECK(ng_fpec_unlock(b) == NG_FPEC_OK, "until the next reset");
	ng_fpec_lock(b);
	b->wr32(b->user, NG_FLASH_KEYR, NG_FLASH_KEY2);
	b->wr32(b->user, NG_FLASH_KEYR, NG_FLASH_KEY1);
	CHECK(B.m.locked_out && ng_fpec_unlock(b) == NG_FPEC_ERR_LOCKED, "the keys in the wrong order lock it out too");
	return ng_check_exit();
}
