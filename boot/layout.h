/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The flash layout every board shares (doc/firmware.md, "Updates over
 * USB"): the boot loader's area at the start of flash, in KiB, its last
 * 64 bytes the owner key slot, the application right behind it. A multiple
 * of 4: on medium density each WRP option bit guards 4 pages of 1 KiB
 * (PM0075 §2.4.2), and the loader write-protects its whole area.
 * The one place it is set: C (boot/update.h), the linker scripts (loader.ld.in,
 * memory.ld.in, preprocessed), the loader's padding (firmware/module.mk) and
 * the scripts (size.sh, tests/scripts/loader-image.sh) read it from here,
 * so it holds plain defines only. */
#ifndef NG_BOOT_LAYOUT_H
#define NG_BOOT_LAYOUT_H
#define NG_LOADER_KB 8
#endif
