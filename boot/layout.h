/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The flash layout every board shares (doc/firmware.md, "Updates over
 * USB"): the boot loader's area at the start of flash, in KiB, its last
 * 64 bytes the owner key slot, the application right behind it, up to the
 * version floor's page at the end of flash.
 * 9 KiB: the loader with the board and load-address checks, the version
 * floor and the boot record kept current in DFU mode does not fit 8 KiB
 * (by about 350 bytes), and the next multiple of 4 KiB (12) would leave
 * less than 4 KiB free on the 64 KiB boards. Write protection (WRP) works
 * on groups of 4 pages (PM0075 §2.4.2): the loader protects its first
 * 8 KiB (two WRP bits); its 9th page, the end of its code and the key
 * slot, is not write-protected (its group's other 3 pages are the
 * application's); like the rest of flash it is kept from the application
 * by the FPEC lock-out before the jump (boot/fpec.h).
 * The one place it is set: C (boot/update.h), the linker scripts (loader.ld.in,
 * memory.ld.in, preprocessed), the loader's padding (firmware/module.mk) and
 * the scripts (size.sh, tests/scripts/loader-image.sh) read it from here,
 * so it holds plain defines only. */
#ifndef NG_BOOT_LAYOUT_H
#define NG_BOOT_LAYOUT_H
#define NG_LOADER_KB 9
/* The version floor's log: the last KiB of flash (one page, never erased:
 * boot/update.h), not the application's. */
#define NG_FLOOR_KB 1
#endif
