/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The update state machine and the boot check (update.h). */
#include <string.h>
#include "ng/bytes.h"
#include "ng/sha256.h"
#include "dfu_status.h"
#include "ed25519.h"
#include "update.h"

/* Short names for the DFU 1.1 status codes of dfu_status.h. */
enum { ST_OK = NG_DFU_OK, ST_TARGET = NG_DFU_ERR_TARGET, ST_FILE = NG_DFU_ERR_FILE, ST_WRITE = NG_DFU_ERR_WRITE,
       ST_ERASE = NG_DFU_ERR_ERASE, ST_PROG = NG_DFU_ERR_PROG, ST_VERIFY = NG_DFU_ERR_VERIFY,
       ST_ADDRESS = NG_DFU_ERR_ADDRESS, ST_FIRMWARE = NG_DFU_ERR_FIRMWARE };

static uint32_t region_len(const ng_boot_target *t) { return NG_REGION_LEN(t->flash_size); }


ng_status ng_boot_check(const ng_boot_target *t, ng_image_info *info)
{
	const uint8_t *r = t->mem + NG_LOADER_SIZE;
	ng_status st = ng_image_check(r, region_len(t), t->owner_key, info);
	if (st != NG_OK)
		return st;
	/* another board's image, or one linked for another address */
	if (info->load_addr != NG_APP_BASE || memcmp(info->board, t->board, NG_IMAGE_BOARD_MAX) != 0)
		return NG_ERR_IMAGE_TARGET;
	/* ARMv7-M B1.5.3: word 0 the initial SP, word 1 the reset vector
	 * (Thumb); unsigned differences: one compare per range */
	uint32_t sp = ng_get_le32(r), pc = ng_get_le32(r + 4);
	if (info->image_len < 8 || (sp & 3u) || !(pc & 1u) ||
	    sp - (t->ram_base + NG_BOOTINFO_RAM) > t->ram_size - NG_BOOTINFO_RAM ||
	    pc - (NG_APP_BASE + 8) >= info->image_len - 8)
		return NG_ERR_IMAGE_FORMAT;
	/* the floor at every boot too: an image refused below it cannot run
	 * because the power was cut before its first page was erased again */
	if (info->version < ng_boot_floor(t) && !(info->flags & NG_IMAGE_DOWNGRADE))
		return NG_ERR_IMAGE_OLD;
	return NG_OK;
}

uint32_t ng_boot_floor(const ng_boot_target *t)
{
	const uint8_t *p = t->mem + (NG_FLOOR_ADDR(t->flash_size) - NG_FLASH_MEM);
	uint32_t f = 0;
	for (uint32_t i = 0; i < NG_FLASH_PAGE; i += 4) {
		uint32_t v = ~ng_get_le32(p + i); /* erased: 0 */
		if (v > f)
			f = v;
	}
	return f;
}

void ng_boot_floor_raise(const ng_boot_target *t, uint32_t version)
{
	uint32_t a = NG_FLOOR_ADDR(t->flash_size);
	if (version <= ng_boot_floor(t))
		return;
	for (const uint8_t *p = t->mem + (a - NG_FLASH_MEM); a < NG_FLOOR_ADDR(t->flash_size) + NG_FLASH_PAGE; a += 4, p += 4)
		if (ng_get_le32(p) == 0xFFFFFFFFu) { /* the first unused word: the complement, low half first */
			uint8_t w[4];
			ng_put_le32(w, ~version);
			ng_fpec_program(t->bus, a, w, 4);
			return;
		}
}

const uint8_t *ng_boot_keyslot(const uint8_t *mem)
{
	const uint8_t *k = mem + (NG_KEYSLOT_ADDR - NG_FLASH_MEM);
	return memcmp(k, NG_KEYSLOT_MAGIC, 8) == 0 ? k + 8 : NULL;
}

void ng_boot_info_fill(ng_boot_info *b, const ng_boot_target *t, ng_status st, const ng_image_info *info)
{
	uint32_t s = 0;
	memset(b, 0, sizeof *b);
	b->magic = NG_BOOTINFO_MAGIC;
	b->loader_version = NG_LOADER_VERSION;
	if (t->owner_key) {
		s = NG_BOOT_OWNER_KEY;
		/* a weak key: ng_ed25519_verify refuses every signature under it */
		if (!ng_ed25519_public_ok(t->owner_key))
			s |= NG_BOOT_KEY_REFUSED;
		ng_sha256(b->key_fp, t->owner_key, 32);
	}
	if (st == NG_OK) {
		s |= t->owner_key ? NG_BOOT_IMAGE_VALID | NG_BOOT_IMAGE_SIGNED : NG_BOOT_IMAGE_VALID;
		b->image_version = info->version;
		b->image_len = info->image_len + NG_IMAGE_TRAILER_LEN;
		memcpy(b->digest, info->digest, sizeof b->digest);
	}
	if (t->bus && (ng_fpec_protected(t->bus) & NG_LOADER_WRP_MASK) == NG_LOADER_WRP_MASK)
		s |= NG_BOOT_WRP;
	b->status = s;
	b->floor = ng_boot_floor(t);
}

/* The boot record as the flash is now (DFU mode's bits kept). */
static void record(ng_update *up, ng_status st)
{
	ng_boot_info *b = up->t.rec;
	if (!b)
		return;
	uint32_t mode = b->status & (NG_BOOT_DFU_MODE | NG_BOOT_DFU_REQUESTED);
	ng_boot_info_fill(b, &up->t, st, &up->info);
	b->status |= mode;
}

void ng_update_init(ng_update *up, const ng_boot_target *t)
{
	/* the rest is set by the first block of a download, read only after it */
	up->t = *t;
	up->active = false;
}

static uint8_t status_of(ng_fpec_err e, uint8_t what)
{
	switch (e) {
	case NG_FPEC_OK: return ST_OK;
	case NG_FPEC_ERR_PG: return ST_PROG;
	case NG_FPEC_ERR_VERIFY: return ST_VERIFY;
	default: return what; /* locked, busy, write-protected */
	}
}

static ng_fpec_err erase(ng_update *up, uint32_t page)
{
	return ng_fpec_erase_page(up->t.bus, NG_APP_BASE + page * NG_FLASH_PAGE);
}

/* A block's bytes, page by page: each page erased when the download first
 * reaches it (page 0 too, step 1, before anything else is written), then
 * the first page's bytes kept in page0 and the others programmed. */
static uint8_t block(ng_update *up, const uint8_t *data, uint32_t len)
{
	for (uint32_t off = up->received, end = off + len; off < end;) {
		uint32_t page = off / NG_FLASH_PAGE, n = NG_FLASH_PAGE - off % NG_FLASH_PAGE;
		ng_fpec_err e;
		if (up->erased_to <= page) {
			if ((e = erase(up, up->erased_to++)) != NG_FPEC_OK)
				return status_of(e, ST_ERASE);
			continue;
		}
		if (n > end - off)
			n = end - off;
		if (page == 0)
			memcpy(up->page0 + off, data, n);
		else if ((e = ng_fpec_program(up->t.bus, NG_APP_BASE + off, data, n)) != NG_FPEC_OK)
			return status_of(e, ST_WRITE);
		off += n;
		data += n;
	}
	up->received += len;
	return ST_OK;
}

uint8_t ng_update_block(ng_update *up, uint16_t blk, const uint8_t *data, uint16_t len, bool first)
{
	if (first) {
		up->active = true;
		up->next_blk = 0; /* the region's block 0: nothing else starts a download */
		up->odd = false;
		up->received = 0;
		up->erased_to = 0; /* page 0 first: block() erases it before anything else */
		memset(up->page0, 0xFF, sizeof up->page0);
	}
	if (!up->active || blk != up->next_blk || up->odd) {
		up->active = false; /* the download is over: start again from block 0 */
		return ST_ADDRESS;
	}
	if (len == 0 || len > region_len(&up->t) - up->received) {
		up->active = false;
		return ST_ADDRESS;
	}
	if (first)
		record(up, NG_ERR_IMAGE_NONE); /* block() erases the first page now */
	if (ng_fpec_unlock(up->t.bus) != NG_FPEC_OK)
		return ST_WRITE;
	uint8_t st = block(up, data, len);
	ng_fpec_lock(up->t.bus);
	up->next_blk = (uint16_t)(blk + 1u);
	up->odd = (len & 1u) != 0;
	if (st != ST_OK)
		up->active = false;
	return st;
}

uint8_t ng_update_manifest(ng_update *up)
{
	if (!up->active || up->received == 0)
		return ST_ADDRESS;
	up->active = false;
	if (ng_fpec_unlock(up->t.bus) != NG_FPEC_OK)
		return ST_WRITE;
	uint32_t pages = region_len(&up->t) / NG_FLASH_PAGE;
	ng_fpec_err e = NG_FPEC_OK;
	for (; up->erased_to < pages && e == NG_FPEC_OK; up->erased_to++) /* step 3 */
		e = erase(up, up->erased_to);
	uint32_t n0 = up->received < NG_FLASH_PAGE ? up->received : NG_FLASH_PAGE;
	if (e == NG_FPEC_OK)
		e = ng_fpec_program(up->t.bus, NG_APP_BASE, up->page0, n0);
	uint8_t st = status_of(e, ST_WRITE);
	if (st == ST_OK) {
		ng_status c = ng_boot_check(&up->t, &up->info);
		st = c == NG_OK ? ST_OK : c == NG_ERR_IMAGE_TARGET ? ST_TARGET : c == NG_ERR_IMAGE_OLD ? ST_FILE
		   : c == NG_ERR_IMAGE_UNSIGNED || c == NG_ERR_IMAGE_KEY || c == NG_ERR_IMAGE_SIGNATURE ? ST_FIRMWARE
												       : ST_VERIFY;
		if (st != ST_OK)
			erase(up, 0); /* not bootable, not even half */
	}
	ng_fpec_lock(up->t.bus);
	record(up, st == ST_OK ? NG_OK : NG_ERR_IMAGE_NONE);
	return st;
}

void ng_update_abort(ng_update *up) { up->active = false; }

bool ng_update_answer(ng_update *up, const uint8_t *nonce, uint16_t len, uint8_t out[32])
{
	ng_image_info info;
	if (ng_boot_check(&up->t, &info) != NG_OK)
		return false;
	ng_sha256_ctx c;
	ng_sha256_init(&c);
	ng_sha256_update(&c, nonce, len);
	ng_sha256_update(&c, up->t.mem + NG_LOADER_SIZE, info.image_len + NG_IMAGE_TRAILER_LEN);
	ng_sha256_final(&c, out);
	return true;
}
