/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the boot loader found at boot, handed to the application (and to the
 * host through GET_INFO 40..45, usb/dfu.h), and the application's request
 * to stay in DFU mode at the next reset.
 *
 * On the STM32F103 this record lives in the first NG_BOOTINFO_RAM bytes of
 * RAM, which neither the loader's nor the application's linker script gives
 * to anything else: SRAM keeps its contents across a system reset (not
 * across power-up: then the magic is wrong and the record is ignored). The
 * loader writes it before every jump; the application only reads it, except
 * for `request`. In the emulation it is a plain struct. Freestanding. */
#ifndef NG_BOOT_BOOTINFO_H
#define NG_BOOT_BOOTINFO_H
#include <stdint.h>

#define NG_BOOTINFO_MAGIC   0x4E47424Fu /* "OBGN" */
#define NG_BOOT_REQ_DFU     0x44465521u /* "!UFD": enter DFU mode at the next reset */
#define NG_BOOTINFO_RAM     128u        /* bytes reserved at the start of RAM */

#define NG_LOADER_VERSION_MAJOR 1u
#define NG_LOADER_VERSION_MINOR 1u
#define NG_LOADER_VERSION ((NG_LOADER_VERSION_MAJOR << 16) | NG_LOADER_VERSION_MINOR)

/* status bits (GET_INFO 41, NG_INFO_BOOT_STATUS) */
#define NG_BOOT_IMAGE_VALID   0x01u /* length and digest checked */
#define NG_BOOT_IMAGE_SIGNED  0x02u /* and the owner key's signature checked */
#define NG_BOOT_OWNER_KEY     0x04u /* the board holds an owner key (unsigned images refused) */
#define NG_BOOT_DFU_MODE      0x08u /* answering in DFU mode (the loader), not the application */
#define NG_BOOT_DFU_REQUESTED 0x10u /* DFU mode because the application asked (DETACH) */
#define NG_BOOT_WRP           0x20u /* the loader's pages are write-protected (WRP option bytes) */
#define NG_BOOT_KEY_REFUSED   0x40u /* the key slot holds a key ng_ed25519_public_ok refuses (small
				     * order or not canonical): no image verifies, DFU mode */

typedef struct {
	uint32_t magic;          /* NG_BOOTINFO_MAGIC: the loader wrote the rest */
	uint32_t request;        /* NG_BOOT_REQ_DFU, written by the application */
	uint32_t loader_version; /* NG_LOADER_VERSION */
	uint32_t status;         /* NG_BOOT_* */
	uint32_t image_version;  /* the trailer's version */
	uint32_t image_len;      /* bytes checked: binary + trailer */
	uint8_t digest[32];      /* SHA-256 of the image, as computed at boot */
	uint8_t key_fp[32];      /* SHA-256 of the owner key; zeros: none */
	uint32_t floor;          /* the version floor (boot/update.h) */
} ng_boot_info;
_Static_assert(sizeof(ng_boot_info) <= NG_BOOTINFO_RAM, "the boot record fits its RAM");

#endif
