/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The boot loader's update state machine and its boot check: which pages
 * are written, in which order, so that losing power at any moment leaves
 * either the new image complete and valid or a board that boots into DFU
 * mode (doc/firmware.md, "Never bricked").
 *
 *  1. The first block of a download erases the application's first page
 *     (its vector table) before anything else: from then on the old image
 *     fails the boot check, whatever else happens.
 *  2. The first page's new content is kept in RAM (page0); every other
 *     page is erased when the download first reaches it, then programmed
 *     half-word by half-word and read back (boot/fpec.h).
 *  3. At the end (the zero-length DNLOAD) the pages behind the image are
 *     erased (no old trailer survives, boot/image.h), the first page is
 *     written last and read back, and the whole image is checked from
 *     flash; if the check fails the first page is erased again.
 * At every boot ng_boot_check decides: a plausible vector table, a trailer
 * whose length fits, the SHA-256 and, with an owner key, the signature.
 *
 * The same code runs in the loader (on the chip's FPEC) and in the
 * emulation and tests (on host/fpec_model.h). Freestanding, no malloc. */
#ifndef NG_BOOT_UPDATE_H
#define NG_BOOT_UPDATE_H
#include <stdbool.h>
#include <stdint.h>
#include "bootinfo.h"
#include "fpec.h"
#include "image.h"
#include "layout.h"
#include "ng/status.h"

#define NG_LOADER_SIZE (NG_LOADER_KB * 1024u) /* the loader's pages (boot/layout.h) */
#define NG_APP_BASE    (NG_FLASH_MEM + NG_LOADER_SIZE) /* the application, behind them */
#define NG_KEYSLOT_ADDR (NG_APP_BASE - 64u) /* the owner key slot: last 64 bytes of the loader */
#define NG_KEYSLOT_MAGIC "NGKEY1\0\0"       /* 8 bytes, then the 32-byte public key */
/* The WRP option bits that guard the loader (PM0075 §2.4.2: 4 pages each). */
#define NG_LOADER_WRP_MASK ((1u << (NG_LOADER_SIZE / NG_FLASH_PAGE / NG_OPT_WRP_PAGES)) - 1u)
_Static_assert(NG_LOADER_SIZE % (NG_FLASH_PAGE * NG_OPT_WRP_PAGES) == 0,
	       "the loader's area is whole WRP groups of 4 pages");

/* Where the flash is and what the board is. */
typedef struct {
	const ng_fpec_bus *bus;
	const uint8_t *mem;     /* main flash as read (mapped at NG_FLASH_MEM) */
	uint32_t flash_size;    /* bytes of main flash */
	uint32_t ram_base, ram_size; /* where an application's stack may start */
	const uint8_t *owner_key; /* 32 bytes, or NULL: integrity only */
} ng_boot_target;

/* Do not rely on the layout of this type; the caller owns it. */
typedef struct {
	ng_boot_target t;
	bool active;         /* a download is in progress (the old image is gone) */
	bool odd;            /* a block of odd length came: it must have been the last */
	uint16_t next_blk;
	uint32_t received;   /* bytes of the image received */
	uint32_t erased_to;  /* application pages [0, erased_to) erased in this download */
	ng_image_info info;  /* of the image checked last */
	uint8_t page0[NG_FLASH_PAGE];
} ng_update;

/* The boot check of the application in t (see top). NG_OK with info
 * filled; NG_ERR_IMAGE_* from boot/image.h, or NG_ERR_IMAGE_FORMAT for a
 * vector table that does not point into RAM and into the image, or a
 * trailer linked for another address. */
ng_status ng_boot_check(const ng_boot_target *t, ng_image_info *info);
/* Fills b from what the check found (NG_BOOT_* status bits, digest, key
 * fingerprint); loader_version NG_LOADER_VERSION, request cleared. */
void ng_boot_info_fill(ng_boot_info *b, const ng_boot_target *t, ng_status st, const ng_image_info *info);
/* The owner key in the key slot of mem (NULL: the slot is erased or not a
 * key). A weak key (small order, not canonical) is returned all the same:
 * the board still holds a key, so unsigned images stay refused, and
 * ng_ed25519_verify refuses every signature under it (DFU mode). */
const uint8_t *ng_boot_keyslot(const uint8_t *mem);

void ng_update_init(ng_update *up, const ng_boot_target *t);
/* One DNLOAD block; returns a DFU status (usb/dfu.h's NG_DFU_OK / ERR_*
 * values, as plain numbers: 0 ok, 3 errWRITE, 4 errERASE, 6 errPROG,
 * 7 errVERIFY, 8 errADDRESS). */
uint8_t ng_update_block(ng_update *up, uint16_t blk, const uint8_t *data, uint16_t len, bool first);
/* The end of the download: see top. 0, 7 errVERIFY (length, digest,
 * format), 10 errFIRMWARE (signature), or a write error. */
uint8_t ng_update_manifest(ng_update *up);
/* An unfinished download is dropped (the first page stays erased). */
void ng_update_abort(ng_update *up);
/* SHA-256(nonce || the image as checked at boot) into out; false when
 * the image does not pass ng_boot_check now. */
bool ng_update_answer(ng_update *up, const uint8_t *nonce, uint16_t len, uint8_t out[32]);

#endif
