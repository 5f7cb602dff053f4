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
 *     flash (ng_boot_check: board, address, digest, signature, version
 *     floor); if it is refused the first page is erased again. (The check
 *     reads the image from flash, the signature's message being the image
 *     and its trailer in one piece: it runs once the first page is there.
 *     Until then the first page is erased, and a cut between its write
 *     and its erase leaves an image that the same ng_boot_check refuses
 *     at the next boot.)
 * At every boot ng_boot_check decides: a plausible vector table, a trailer
 * whose length fits, linked for NG_APP_BASE and made for this board, the
 * SHA-256 and, with an owner key, the signature.
 *
 * The version floor: the last page of flash (NG_FLOOR_ADDR) is a log of
 * 256 words, each the complement of a version the loader started
 * (ng_boot_floor_raise, at boot, before the jump). It is never erased, so
 * every word only loses bits: the floor (the highest version in the log)
 * can only rise, and a program cut short leaves a word whose version has
 * a subset of the intended bits, so no more than it. A download of an
 * image below the floor is refused (errFILE) unless its trailer carries
 * NG_IMAGE_DOWNGRADE (signed by the owner when the board holds a key).
 *
 * The same code runs in the loader (on the chip's FPEC) and in the
 * emulation and tests (on host/emul/fpec_model.h). Freestanding, no malloc. */
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
/* The version floor's page: the last of flash, not the application's. */
#define NG_FLOOR_ADDR(flash_size) (NG_FLASH_MEM + (flash_size) - NG_FLASH_PAGE)
/* The application's region: from NG_APP_BASE to the floor's page. */
#define NG_REGION_LEN(flash_size) ((flash_size) - NG_LOADER_SIZE - NG_FLASH_PAGE)
/* The WRP option bits that guard the loader (PM0075 §2.4.2: 4 pages each):
 * the whole groups of 4 pages in its area (boot/layout.h: not its 9th). */
#define NG_LOADER_WRP_MASK ((1u << (NG_LOADER_SIZE / NG_FLASH_PAGE / NG_OPT_WRP_PAGES)) - 1u)
_Static_assert(NG_FLOOR_KB * 1024u == NG_FLASH_PAGE, "the version floor's log is one page");

/* Where the flash is and what the board is. */
typedef struct {
	const ng_fpec_bus *bus;
	const uint8_t *mem;     /* main flash as read (mapped at NG_FLASH_MEM) */
	uint32_t flash_size;    /* bytes of main flash */
	uint32_t ram_base, ram_size; /* where an application's stack may start */
	const uint8_t *owner_key; /* 32 bytes, or NULL: integrity only */
	const char *board;      /* NG_IMAGE_BOARD_MAX bytes, NUL-padded: the trailer's board must be this */
	ng_boot_info *rec;      /* the boot record DFU mode reports, kept current by the update; or NULL */
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
 * filled; NG_ERR_IMAGE_* from boot/image.h; NG_ERR_IMAGE_TARGET for a
 * trailer made for another board (t->board) or linked for another address
 * than NG_APP_BASE; NG_ERR_IMAGE_FORMAT for a vector table that does not
 * point into RAM and into the image; NG_ERR_IMAGE_OLD for a version below
 * the floor without NG_IMAGE_DOWNGRADE. */
ng_status ng_boot_check(const ng_boot_target *t, ng_image_info *info);
/* The version floor (see top): the highest version in the log, 0 if none. */
uint32_t ng_boot_floor(const ng_boot_target *t);
/* Adds version to the log if it is above the floor (the FPEC unlocked);
 * nothing when the log's 256 words are used up (the floor then stays). */
void ng_boot_floor_raise(const ng_boot_target *t, uint32_t version);
/* Fills b from what the check found (NG_BOOT_* status bits, digest, key
 * fingerprint, the floor); loader_version NG_LOADER_VERSION, request cleared. */
void ng_boot_info_fill(ng_boot_info *b, const ng_boot_target *t, ng_status st, const ng_image_info *info);
/* The owner key in the key slot of mem (NULL: the slot is erased or not a
 * key). A weak key (small order, not canonical) is returned all the same:
 * the board still holds a key, so unsigned images stay refused, and
 * ng_ed25519_verify refuses every signature under it (DFU mode). */
const uint8_t *ng_boot_keyslot(const uint8_t *mem);

void ng_update_init(ng_update *up, const ng_boot_target *t);
/* One DNLOAD block; returns a DFU status (usb/dfu.h's NG_DFU_OK / ERR_*
 * values, as plain numbers: 0 ok, 3 errWRITE, 4 errERASE, 6 errPROG,
 * 7 errVERIFY, 8 errADDRESS: a first block that is not block 0, a block
 * out of order, or past the region). From the first block on the boot
 * record (t->rec) says "no valid image". */
uint8_t ng_update_block(ng_update *up, uint16_t blk, const uint8_t *data, uint16_t len, bool first);
/* The end of the download: see top. 0, 1 errTARGET (another board, or
 * linked for another address), 2 errFILE (below the version floor, without
 * NG_IMAGE_DOWNGRADE), 7 errVERIFY (length, digest, format), 10
 * errFIRMWARE (signature), or a write error. The boot record then tells
 * the image now in flash (valid, or none). */
uint8_t ng_update_manifest(ng_update *up);
/* An unfinished download is dropped (the first page stays erased). */
void ng_update_abort(ng_update *up);
/* SHA-256(nonce || the image as checked at boot) into out; false when
 * the image does not pass ng_boot_check now. */
bool ng_update_answer(ng_update *up, const uint8_t *nonce, uint16_t len, uint8_t out[32]);

#endif
