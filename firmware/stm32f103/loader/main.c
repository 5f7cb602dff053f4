/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The permanent boot loader (doc/firmware.md, "Updates over USB"): the
 * first NG_LOADER_KB KiB of flash (boot/layout.h), never erased by an
 * update. At every reset, after the clocks and the board's pins (D+ held
 * low where the board's pull-up is fixed, the LED off):
 *   1. check the application at NG_APP_BASE (boot/update.h: vector table,
 *      trailer length, load address, this board's name (NG_BOARD_ID),
 *      SHA-256, with an owner key the Ed25519 signature), raise the version
 *      floor to a valid image's version (boot/update.h), and write what it
 *      found into the boot record at the start of RAM;
 *   2. a valid image, and no request for DFU mode from the application:
 *      write-protect the loader's pages if they are not yet (WRP option
 *      bytes, effective from the next reset), lock the FPEC out until the
 *      next reset with a wrong key, and jump: VTOR, MSP from the image's
 *      vector table, then its reset vector;
 *   3. otherwise USB DFU mode (usb/dfu_device.h) with its own LED pattern
 *      (another when the key slot holds a weak key, NG_BOOT_KEY_REFUSED:
 *      no image can pass step 1 under it),
 *      writing updates with boot/update.c; leaving DFU mode (a USB reset
 *      after a good manifestation, or DFU_DETACH) resets the chip, so the
 *      new image is checked again by step 1 before it runs.
 * Nothing received over USB is ever executed: it is only written to flash. */
#include "board.h"
#include "dcd_stm32f1.h"
#include "dfu_device.h"
#include "fw.h"
#include "stm32f103.h"
#include "update.h"

#ifndef NG_LOADER_WRP
#define NG_LOADER_WRP 1 /* write-protect the loader's pages at the first boot of a valid image */
#endif
#define NG_BOOT_RECORD ((ng_boot_info *)0x20000000u)

/* The FPEC on the chip: the loader builds boot/fpec.c with NG_FPEC_DIRECT,
 * which makes plain volatile accesses and ignores the bus, so the bus has
 * no functions (its address says only "there is a flash to write"). */
#ifndef NG_FPEC_DIRECT
#error "the loader accesses the FPEC directly: build it with -DNG_FPEC_DIRECT"
#endif
static ng_fpec_bus ng_bus;

static ng_dfu_dev ng_dev;
static ng_update ng_up;
static ng_dfu_backend ng_be;

static void __attribute__((noreturn)) ng_loader_jump(uint32_t base)
{
	const volatile uint32_t *v = (const volatile uint32_t *)base;
	uint32_t sp = v[0], pc = v[1];
	/* every interrupt is still off as reset left it (the loader
	 * enables none; DFU mode leaves by a reset) */
	NG_WR(NG_SCB_VTOR, base);  /* ARMv7-M B3.2.5 */
	__asm__ volatile("msr msp, %0\n\tbx %1" : : "r"(sp), "r"(pc) : "memory");
	__builtin_unreachable();
}

static void __attribute__((noreturn)) ng_loader_reset_chip(void)
{
#if !NG_BOARD_PULLUP_FIXED
	ng_dfu_dev_connect(&ng_dev, false); /* off the bus: the host sees a detach */
	ng_delay_us(20000);
#endif
	/* (A fixed D+ pull-up cannot be switched off while the USB
	 * peripheral owns PA12 (dcd_stm32f1.c): there the detach is the one
	 * ng_fs_init holds after the reset, in this loader or the
	 * application.) */
	NG_WR(NG_SCB_AIRCR, NG_SCB_AIRCR_SYSRESETREQ);
	for (;;)
		;
}

int main(void)
{
	/* the board's file name, as `make firmware` writes it into the trailer */
	static const char board_id[NG_IMAGE_BOARD_MAX] = NG_BOARD_ID;
	ng_boot_info *rec = NG_BOOT_RECORD;
	ng_boot_target t = { .bus = &ng_bus, .mem = (const uint8_t *)NG_FLASH_MEM,
			     .flash_size = NG_BOARD_FLASH_KB * 1024u, .ram_base = 0x20000000u,
			     .ram_size = NG_BOARD_RAM_KB * 1024u, .board = board_id, .rec = rec };
	/* first: on a board with a fixed D+ pull-up this drives D+ low, so the
	 * host does not try to enumerate a device busy checking its image (a
	 * fraction of a second, more with an owner key) */
	ng_board_init();
	t.owner_key = ng_boot_keyslot(t.mem);
	bool asked = rec->magic == NG_BOOTINFO_MAGIC && rec->request == NG_BOOT_REQ_DFU;
	ng_image_info info;
	ng_status st = ng_boot_check(&t, &info);
	/* a valid image: its version into the floor's log before it runs */
	bool unlocked = st == NG_OK && ng_fpec_unlock(&ng_bus) == NG_FPEC_OK;
	if (unlocked)
		ng_boot_floor_raise(&t, info.version);
	ng_boot_info_fill(rec, &t, st, &info);
	if (st == NG_OK && !asked) {
		if (NG_LOADER_WRP && !(rec->status & NG_BOOT_WRP) && unlocked)
			ng_fpec_protect(&ng_bus, NG_LOADER_WRP_MASK); /* one WRP bit per 4 of its pages */
		ng_fpec_lockout(&ng_bus);
		ng_loader_jump(NG_APP_BASE);
	}

	rec->status |= NG_BOOT_DFU_MODE | (asked ? NG_BOOT_DFU_REQUESTED : 0u);
	ng_systick_init();
	ng_led_set(rec->status & NG_BOOT_KEY_REFUSED ? NG_LED_KEY_REFUSED : NG_LED_DFU);
	ng_update_init(&ng_up, &t);
	ng_dfu_backend_update(&ng_be, &ng_up);
	ng_dfu_dev_config cfg = { .be = &ng_be, .boot = rec, .loader = "NeuG loader 1.1 " NG_BOARD_ID };
	ng_uid_read(cfg.uid);
	ng_dfu_dev_init(&ng_dev, &cfg, &ng_stm32_dcd_ops, NULL);
	ng_dfu_dev_connect(&ng_dev, true);
	for (;;) {
		if (ng_dfu_dev_task(&ng_dev) != NG_DFU_LEAVE_NONE && ng_boot_check(&t, &info) == NG_OK)
			ng_loader_reset_chip();
		ng_led_poll(ng_millis());
	}
}
