/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A board for the loader's tests: 64 KiB of flash behind the FPEC register
 * model (host/emul/fpec_model.h), 20 KiB of RAM, and application images made
 * with boot/image.h (a vector table that points into RAM and into the
 * image, then pseudo-random bytes). Header-only, like fake_dcd.h. */
#ifndef NG_BOOT_FIXTURE_H
#define NG_BOOT_FIXTURE_H
#include <string.h>
#include "fpec_model.h"
#include "image.h"
#include "update.h"

#define BF_FLASH (64u * 1024u)
#define BF_IMG_CAP NG_REGION_LEN(BF_FLASH)

/* The board's name, as the loader holds it: images for it carry "test". */
static const char bf_board_id[NG_IMAGE_BOARD_MAX] = "test";

typedef struct {
	uint8_t mem[BF_FLASH];
	ng_fpec_model m;
	ng_fpec_bus bus;
	ng_boot_target t;
	ng_boot_info rec; /* the boot record (t.rec) */
} bf_board;

static inline void bf_init(bf_board *b, const uint8_t *owner_key)
{
	memset(b->mem, 0xFF, sizeof b->mem);
	memset(&b->rec, 0, sizeof b->rec);
	ng_fpec_model_init(&b->m, b->mem, BF_FLASH);
	ng_fpec_model_bus(&b->m, &b->bus);
	b->t = (ng_boot_target){ .bus = &b->bus, .mem = b->mem, .flash_size = BF_FLASH,
				 .ram_base = 0x20000000u, .ram_size = 20u * 1024u, .owner_key = owner_key,
				 .board = bf_board_id, .rec = &b->rec };
}

/* The loader's boot (firmware/stm32f103/loader/main.c): the check, a
 * valid image's version into the floor's log, the boot record. */
static inline ng_status bf_boot(bf_board *b)
{
	ng_image_info info;
	ng_fpec_model_reset(&b->m);
	ng_status st = ng_boot_check(&b->t, &info);
	if (st == NG_OK && ng_fpec_unlock(&b->bus) == NG_FPEC_OK) {
		ng_boot_floor_raise(&b->t, info.version);
		ng_fpec_lock(&b->bus);
	}
	ng_boot_info_fill(&b->rec, &b->t, st, &info);
	return st;
}

/* An image of bin bytes (>= 64) into img for board (and NG_IMAGE_* flags,
 * load address addr); returns its length (0 on failure). */
static inline size_t bf_image_for(uint8_t *img, size_t cap, size_t bin, uint64_t seed, uint32_t version,
				  const uint8_t *secret, const char *board, uint32_t flags, uint32_t addr)
{
	for (size_t i = 0; i < bin; i++) {
		seed ^= seed >> 12;
		seed ^= seed << 25;
		seed ^= seed >> 27;
		img[i] = (uint8_t)((seed * 0x2545F4914F6CDD1Dull) >> 56);
	}
	uint32_t sp = 0x20005000u, pc = NG_APP_BASE + 0x101u;
	memcpy(img, &sp, 4); /* little-endian host */
	memcpy(img + 4, &pc, 4);
	ng_image_params p = { .load_addr = addr, .version = version, .version_str = "9.8.7", .board = board,
			      .flags = flags };
	size_t n = 0;
	return ng_image_make(img, cap, bin, &p, secret, &n) == NG_OK ? n : 0;
}

/* The same for this board ("test") at NG_APP_BASE. */
static inline size_t bf_image(uint8_t *img, size_t cap, size_t bin, uint64_t seed, uint32_t version, const uint8_t *secret)
{
	return bf_image_for(img, cap, bin, seed, version, secret, "test", 0, NG_APP_BASE);
}

/* A whole download through the update machine in blocks of bs bytes. */
static inline uint8_t bf_update(ng_update *up, const uint8_t *img, size_t n, size_t bs)
{
	uint8_t st = 0;
	uint16_t blk = 0;
	for (size_t off = 0; off < n && st == 0; off += bs, blk++)
		st = ng_update_block(up, blk, img + off, (uint16_t)(n - off < bs ? n - off : bs), off == 0);
	return st ? st : ng_update_manifest(up);
}

#endif
