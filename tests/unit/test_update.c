/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The loader's update state machine (boot/update.c) on the FPEC model, with
 * no QEMU: an update, then the same update with the power cut at every
 * single flash operation (each page erase and each half-word, left half
 * done), each followed by a boot check of what is left and a retry; refused
 * images (a flipped bit, truncated, unsigned or wrongly signed under an
 * owner key, too large, blocks out of order) leave no bootable image; the
 * challenge answer against OpenSSL's SHA-256. */
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "ed25519.h"
#include "fakes/boot_fixture.h"

static bf_board B;
static ng_update U;
static uint8_t A[BF_IMG_CAP], Bimg[BF_IMG_CAP], S[BF_IMG_CAP];
static uint8_t saved[BF_FLASH];

static long cut_at, ops;
static int op_kind[4096];
static uint32_t op_addr[4096];
static bool cut_cb(void *user, int kind, uint32_t addr)
{
	(void)user;
	if (ops < 4096) {
		op_kind[ops] = kind;
		op_addr[ops] = addr;
	}
	return ops++ == cut_at;
}

/* 64 rounds of a power cut at each of the floor raise's raise_ops flash
 * operations, from the flash in keep, each cut leaving other torn bits (the
 * model's random, varied by round r as (r + r0) * mul): counts floors below
 * lo or above hi after the cut, and next boots that do not finish at hi. */
typedef struct { long below, above, unfinished, tries; } cut_tally;
static cut_tally cut_raise(bf_board *B, const uint8_t *keep, long raise_ops, uint32_t lo, uint32_t hi, int r0,
			   uint64_t mul)
{
	cut_tally c = {0};
	for (int r = 0; r < 64; r++)
		for (long k = 0; k < raise_ops; k++) {
			memcpy(B->mem, keep, BF_FLASH);
			B->m.rng ^= (uint64_t)(r + r0) * mul;
			cut_at = k;
			ops = 0;
			bf_boot(B);
			uint32_t f = ng_boot_floor(&B->t);
			c.below += f < lo;
			c.above += f > hi;
			cut_at = -1;
			bf_boot(B);
			c.unfinished += ng_boot_floor(&B->t) != hi;
			c.tries++;
		}
	return c;
}

/* The floor's log as it is: how many words are used. */
static unsigned floor_words(const bf_board *b)
{
	unsigned n = 0;
	for (uint32_t i = 0; i < NG_FLASH_PAGE; i += 4)
		n += memcmp(b->mem + (NG_FLOOR_ADDR(BF_FLASH) - NG_FLASH_MEM) + i, "\xff\xff\xff\xff", 4) != 0;
	return n;
}

static bool boots(const uint8_t *img, size_t n)
{
	ng_image_info info;
	if (ng_boot_check(&B.t, &info) != NG_OK)
		return false;
	uint8_t d[32];
	SHA256(img, n - NG_IMAGE_TRAILER_LEN, d);
	return memcmp(d, info.digest, 32) == 0 && info.image_len + NG_IMAGE_TRAILER_LEN == n &&
	       memcmp(B.mem + NG_LOADER_SIZE, img, n) == 0;
}

int main(void)
{
	uint64_t seed = ng_test_seed();
	bf_init(&B, NULL);
	size_t na = bf_image(A, sizeof A, 3000, seed, 0x000100, NULL);
	size_t nb = bf_image(Bimg, sizeof Bimg, 5000, seed + 1, 0x000200, NULL);
	CHECK(na && nb, "two images made (%zu and %zu bytes)", na, nb);
	ng_image_info info;
	CHECK(ng_boot_check(&B.t, &info) == NG_ERR_IMAGE_NONE, "blank flash: no image (DFU mode)");

	ng_update_init(&U, &B.t);
	CHECK(bf_update(&U, A, na, 256) == 0 && boots(A, na), "image A downloaded in 256-byte blocks boots");
	CHECK(B.m.faults == 0, "no bus faults during an update");
	CHECK(bf_update(&U, Bimg, nb, 256) == 0 && boots(Bimg, nb), "then image B over it boots");
	CHECK(bf_update(&U, A, na, 256) == 0 && boots(A, na) && ng_fpec_blank(&B.bus, NG_APP_BASE + (uint32_t)na, BF_IMG_CAP - (uint32_t)na),
	      "a shorter image over a longer one: nothing of B left behind it");
	CHECK(B.m.cr & NG_FLASH_CR_LOCK, "the FPEC is locked after the update");

	/* Power cut at every operation of an update from A to B. */
	memcpy(saved, B.mem, sizeof saved);
	B.m.cut = cut_cb;
	cut_at = -1;
	ops = 0;
	CHECK(bf_update(&U, Bimg, nb, 256) == 0 && boots(Bimg, nb), "update A -> B without a cut");
	long total = ops;
	long bad = 0, old_boots = 0, new_boots = 0, retry_bad = 0;
	for (long k = 0; k < total; k++) {
		memcpy(B.mem, saved, sizeof saved);
		ng_fpec_model_reset(&B.m);
		cut_at = k;
		ops = 0;
		bf_update(&U, Bimg, nb, 256);
		ng_fpec_model_reset(&B.m); /* power comes back */
		ng_update_init(&U, &B.t);
		ng_status st = ng_boot_check(&B.t, &info);
		if (st == NG_OK) {
			if (boots(Bimg, nb))
				new_boots++;
			else if (boots(A, na))
				old_boots++;
			else
				bad++;
		}
		cut_at = -1;
		if (bf_update(&U, Bimg, nb, 256) != 0 || !boots(Bimg, nb))
			retry_bad++;
	}
	CHECK(bad == 0, "power cut at each of the %ld flash operations: never a bootable image other than A or B", total);
	CHECK(old_boots == 0, "the old image is gone from the first operation on (%ld boots of A)", old_boots);
	CHECK(new_boots <= 2, "the new image boots only when the cut came after its first page was written (%ld times)", new_boots);
	CHECK(retry_bad == 0, "after every cut the board takes the update again and boots B");
	B.m.cut = NULL;

	/* Refused images: none leaves a bootable image. */
	memcpy(S, Bimg, nb);
	S[1000] ^= 0x10;
	CHECK(bf_update(&U, S, nb, 256) == 7 && ng_boot_check(&B.t, &info) != NG_OK, "a flipped bit: errVERIFY, no image");
	CHECK(bf_update(&U, Bimg, nb - 100, 256) == 7 && ng_boot_check(&B.t, &info) != NG_OK, "truncated: errVERIFY, no image");
	CHECK(ng_update_block(&U, 0, Bimg, 256, true) == 0 && ng_update_block(&U, 2, Bimg + 512, 256, false) == 8,
	      "a block out of order: errADDRESS");
	CHECK(ng_update_manifest(&U) == 8 && ng_boot_check(&B.t, &info) != NG_OK, "and the download is over: no image");
	static uint8_t big[BF_IMG_CAP + 256];
	memset(big, 0x11, sizeof big);
	uint8_t st = 0;
	for (size_t off = 0; off < sizeof big && st == 0; off += 256)
		st = ng_update_block(&U, (uint16_t)(off / 256), big + off, 256, off == 0);
	CHECK(st == 8, "more than the region (%u bytes): errADDRESS", (unsigned)BF_IMG_CAP);
	CHECK(ng_update_block(&U, 0, Bimg, 255, true) == 0 && ng_update_block(&U, 1, Bimg + 255, 256, false) == 8,
	      "an odd-length block that was not the last: errADDRESS");
	CHECK(bf_update(&U, Bimg, nb, 64) == 0 && boots(Bimg, nb), "64-byte blocks work too");
	CHECK(bf_update(&U, Bimg, nb, 333) == 8, "333-byte blocks: refused at the second (odd length)");
	CHECK(bf_update(&U, Bimg, nb, 1024) == 0 && boots(Bimg, nb), "1024-byte blocks");
	ng_update_abort(&U);
	CHECK(ng_update_block(&U, 0, A, 256, true) == 0 && (ng_update_abort(&U), ng_boot_check(&B.t, &info) != NG_OK),
	      "an aborted download leaves no image");
	CHECK(ng_update_manifest(&U) == 8, "manifest without a download: errADDRESS");

	/* The layout (boot/layout.h, boot/update.h): the loader's NG_LOADER_KB
	 * KiB, one WRP bit per whole group of 4 pages of it, the key slot at
	 * its end, the floor's page at the end of flash, and on a 64 KiB board
	 * the rest for the image and its trailer. */
	CHECK(NG_APP_BASE == 0x08000000u + NG_LOADER_KB * 1024u && NG_LOADER_SIZE == NG_LOADER_KB * 1024u &&
	      NG_KEYSLOT_ADDR == NG_APP_BASE - 64u && NG_LOADER_WRP_MASK == (1u << (NG_LOADER_KB / 4u)) - 1u &&
	      BF_IMG_CAP == (64u - NG_LOADER_KB - NG_FLOOR_KB) * 1024u && NG_FLOOR_ADDR(BF_FLASH) == 0x0800FC00u,
	      "layout (NG_LOADER_KB %u): application at %#x, key slot %#x, WRP mask %#x, floor at %#x, %u KiB for neug.img on 64 KiB",
	      (unsigned)NG_LOADER_KB, (unsigned)NG_APP_BASE, (unsigned)NG_KEYSLOT_ADDR, (unsigned)NG_LOADER_WRP_MASK,
	      (unsigned)NG_FLOOR_ADDR(BF_FLASH), (unsigned)(BF_IMG_CAP / 1024u));
	{
		static uint8_t full[BF_IMG_CAP];
		size_t nf = bf_image(full, sizeof full, BF_IMG_CAP - NG_IMAGE_TRAILER_LEN, seed + 7, 0x000300, NULL);
		CHECK(nf == BF_IMG_CAP && bf_update(&U, full, nf, 1024) == 0 && boots(full, nf),
		      "an image that fills the 64 KiB board (%zu bytes with its trailer) downloads and boots", nf);
		static bf_board W;
		bf_init(&W, NULL);
		ng_fpec_unlock(&W.bus);
		ng_fpec_protect(&W.bus, NG_LOADER_WRP_MASK);
		ng_fpec_model_reset(&W.m);
		ng_fpec_unlock(&W.bus);
		uint32_t last_wrp = NG_FLASH_MEM + (NG_LOADER_SIZE / (4 * NG_FLASH_PAGE)) * 4 * NG_FLASH_PAGE - NG_FLASH_PAGE;
		CHECK(ng_fpec_protected(&W.bus) == NG_LOADER_WRP_MASK &&
		      ng_fpec_erase_page(&W.bus, last_wrp) == NG_FPEC_ERR_WRP &&
		      ng_fpec_erase_page(&W.bus, NG_FLASH_MEM) == NG_FPEC_ERR_WRP &&
		      ng_fpec_erase_page(&W.bus, NG_APP_BASE) == NG_FPEC_OK,
		      "the loader's WRP bits guard pages 0 to %u but not the application's first page",
		      (unsigned)((last_wrp - NG_FLASH_MEM) / NG_FLASH_PAGE));
	}

	/* The challenge. */
	CHECK(bf_update(&U, A, na, 256) == 0, "image A again");
	uint8_t nonce[32], ans[32], want[32], buf[32 + BF_IMG_CAP];
	for (int i = 0; i < 32; i++)
		nonce[i] = (uint8_t)ng_test_rand(&seed);
	memcpy(buf, nonce, 32);
	memcpy(buf + 32, A, na);
	SHA256(buf, 32 + na, want);
	CHECK(ng_update_answer(&U, nonce, 32, ans) && memcmp(ans, want, 32) == 0, "answer = SHA-256(nonce || neug.img) (OpenSSL)");
	buf[40] ^= 1;
	SHA256(buf, 32 + na, want);
	CHECK(memcmp(ans, want, 32) != 0, "and differs for a different image");
	B.mem[NG_LOADER_SIZE + 50] ^= 1;
	CHECK(!ng_update_answer(&U, nonce, 32, ans), "no answer for an image that does not pass the check");

	/* An owner key: only images it signed. */
	uint8_t sk[32], pk[32], sk2[32], pk2[32];
	for (int i = 0; i < 32; i++) {
		sk[i] = (uint8_t)ng_test_rand(&seed);
		sk2[i] = (uint8_t)ng_test_rand(&seed);
	}
	ng_ed25519_public_key(pk, sk);
	ng_ed25519_public_key(pk2, sk2);
	bf_init(&B, pk);
	ng_update_init(&U, &B.t);
	size_t ns = bf_image(S, sizeof S, 4000, seed + 2, 0x000300, sk);
	CHECK(bf_update(&U, A, na, 256) == 10 && ng_boot_check(&B.t, &info) != NG_OK, "owner key: an unsigned image refused (errFIRMWARE)");
	CHECK(bf_update(&U, S, ns, 256) == 0 && boots(S, ns), "an image the owner signed boots");
	size_t n2 = bf_image(S, sizeof S, 4000, seed + 2, 0x000300, sk2);
	CHECK(bf_update(&U, S, n2, 256) == 10 && ng_boot_check(&B.t, &info) != NG_OK, "signed by another key: refused, no image");
	ng_boot_info bi;
	bf_update(&U, S, n2, 256);
	ng_boot_info_fill(&bi, &B.t, ng_boot_check(&B.t, &info), &info);
	uint8_t fp[32];
	SHA256(pk, 32, fp);
	CHECK(bi.magic == NG_BOOTINFO_MAGIC && bi.status == NG_BOOT_OWNER_KEY && memcmp(bi.key_fp, fp, 32) == 0,
	      "boot information: owner key, no valid image, key fingerprint = SHA-256(key)");
	ns = bf_image(S, sizeof S, 4000, seed + 2, 0x000300, sk);
	bf_update(&U, S, ns, 256);
	ng_boot_info_fill(&bi, &B.t, ng_boot_check(&B.t, &info), &info);
	SHA256(S, ns - NG_IMAGE_TRAILER_LEN, fp);
	CHECK(bi.status == (NG_BOOT_OWNER_KEY | NG_BOOT_IMAGE_VALID | NG_BOOT_IMAGE_SIGNED) && bi.image_len == ns &&
	      bi.image_version == 0x000300 && memcmp(bi.digest, fp, 32) == 0,
	      "boot information after a signed update: valid, signed, length %u, version, digest", bi.image_len);

	/* The key slot. */
	static uint8_t mem[BF_FLASH];
	memset(mem, 0xFF, sizeof mem);
	CHECK(ng_boot_keyslot(mem) == NULL, "an erased key slot: no owner key");
	memcpy(mem + NG_KEYSLOT_ADDR - NG_FLASH_MEM, NG_KEYSLOT_MAGIC, 8);
	memcpy(mem + NG_KEYSLOT_ADDR - NG_FLASH_MEM + 8, pk, 32);
	CHECK(ng_boot_keyslot(mem) && memcmp(ng_boot_keyslot(mem), pk, 32) == 0, "a written key slot gives the key");

	/* A vector table that does not point into RAM and the image. */
	bf_init(&B, NULL);
	ng_update_init(&U, &B.t);
	size_t nv = bf_image(S, sizeof S, 2000, seed, 1, NULL);
	uint32_t sp = 0x30000000u;
	memcpy(S, &sp, 4);
	nv = 0;
	ng_image_params p = { .load_addr = NG_APP_BASE, .version = 1, .version_str = "1", .board = "test" };
	ng_image_make(S, sizeof S, 2000, &p, NULL, &nv);
	CHECK(bf_update(&U, S, nv, 256) == 7 && ng_boot_check(&B.t, &info) != NG_OK, "initial SP outside RAM: refused");
	/* Another board's image, another load address: errTARGET, whatever
	 * sends it; the boot record says no valid image (DFU mode kept). */
	bf_init(&B, NULL);
	ng_update_init(&U, &B.t);
	CHECK(bf_update(&U, A, na, 256) == 0 && bf_boot(&B) == NG_OK && (B.rec.status & NG_BOOT_IMAGE_VALID),
	      "a fresh board takes A and boots it (boot record: valid)");
	B.rec.status |= NG_BOOT_DFU_MODE;
	size_t nx = bf_image_for(S, sizeof S, 3000, seed + 3, 0x000400, NULL, "blue-pill", 0, NG_APP_BASE);
	CHECK(bf_update(&U, S, nx, 256) == 1 && ng_boot_check(&B.t, &info) != NG_OK,
	      "an image for board 'blue-pill' on board 'test': errTARGET, no image left");
	CHECK(!(B.rec.status & NG_BOOT_IMAGE_VALID) && (B.rec.status & NG_BOOT_DFU_MODE) && B.rec.image_len == 0,
	      "the boot record then says: no valid image, DFU mode (GET_INFO 41 = %#x)", (unsigned)B.rec.status);
	{
		/* the boot check itself refuses another board's image in flash */
		static bf_board X;
		bf_init(&X, NULL);
		uint8_t *img = S;
		size_t n = bf_image_for(img, sizeof S, 3000, seed + 4, 0x000100, NULL, "test2", 0, NG_APP_BASE);
		ng_fpec_unlock(&X.bus);
		ng_fpec_program(&X.bus, NG_APP_BASE, img, (uint32_t)n);
		CHECK(bf_boot(&X) == NG_ERR_IMAGE_TARGET && !(X.rec.status & NG_BOOT_IMAGE_VALID),
		      "an intact image for board 'test2' put in flash by a programmer: the boot check refuses it (DFU mode)");
	}
	nx = bf_image_for(S, sizeof S, 3000, seed + 3, 0x000400, NULL, "test", 0, NG_APP_BASE + 0x400);
	CHECK(bf_update(&U, S, nx, 256) == 1 && ng_boot_check(&B.t, &info) != NG_OK,
	      "an image linked for %#x (not the application base): errTARGET, no image", (unsigned)(NG_APP_BASE + 0x400));
	CHECK(bf_update(&U, A, na, 256) == 0 && (B.rec.status & NG_BOOT_IMAGE_VALID) &&
	      B.rec.image_len == na && B.rec.image_version == 0x000100 && (B.rec.status & NG_BOOT_DFU_MODE),
	      "after a good download the boot record says valid, A's length and version (DFU mode kept)");

	/* Block numbers: a download starts at block 0 only. */
	CHECK(ng_update_block(&U, 0xFFF8, A, 256, true) == 8 && ng_boot_check(&B.t, &info) == NG_OK &&
	      (B.rec.status & NG_BOOT_IMAGE_VALID),
	      "a download whose first block is 0xFFF8: errADDRESS, nothing erased, A still boots");
	CHECK(ng_update_block(&U, 0xFFF9, A + 256, 256, false) == 8 && ng_update_manifest(&U) == 8 &&
	      ng_boot_check(&B.t, &info) == NG_OK, "then block 0xFFF9 and the manifestation: errADDRESS, A still boots");

	/* The write order (doc/firmware.md, "Never bricked"): page 0 erased by
	 * the first block before anything else; the other pages erased and
	 * programmed as the download reaches them; at the end the rest of the
	 * region erased, page 0 programmed last; a refused image: page 0
	 * erased again after it. */
	{
		B.m.cut = cut_cb;
		cut_at = -1;
		ops = 0;
		uint8_t r0 = bf_update(&U, Bimg, nb, 256);
		CHECK(r0 == 0 && ops <= 4096, "B again, every flash operation recorded (%ld)", ops);
		long n = ops < 4096 ? ops : 4096, first_p0 = -1, last_other = -1;
		bool erase_first = op_kind[0] == NG_FPEC_OP_ERASE && op_addr[0] == NG_APP_BASE;
		for (long i = 0; i < n; i++) {
			bool p0 = op_addr[i] >= NG_APP_BASE && op_addr[i] < NG_APP_BASE + NG_FLASH_PAGE;
			if (p0 && op_kind[i] == NG_FPEC_OP_PROGRAM && first_p0 < 0)
				first_p0 = i;
			if (!p0)
				last_other = i;
		}
		CHECK(erase_first && first_p0 > last_other && op_kind[n - 1] == NG_FPEC_OP_PROGRAM,
		      "order: page 0 erased first (op 0), every other page's erase and program before page 0's first half-word (op %ld > %ld), page 0 last",
		      first_p0, last_other);
		memcpy(S, Bimg, nb);
		S[2000] ^= 1;
		ops = 0;
		CHECK(bf_update(&U, S, nb, 256) == 7, "a flipped bit: errVERIFY");
		n = ops < 4096 ? ops : 4096;
		CHECK(op_kind[n - 1] == NG_FPEC_OP_ERASE && op_addr[n - 1] == NG_APP_BASE,
		      "order: a refused image's page 0 is programmed, checked from flash, then erased again (the last operation)");
		B.m.cut = NULL;
	}

	/* The version floor: the newest version the board started. */
	bf_init(&B, NULL);
	ng_update_init(&U, &B.t);
	size_t f1 = bf_image(A, sizeof A, 3000, seed + 10, 0x000100, NULL);
	size_t f2 = bf_image(Bimg, sizeof Bimg, 3000, seed + 11, 0x000200, NULL);
	size_t f1d = bf_image_for(S, sizeof S, 3000, seed + 12, 0x000100, NULL, "test", NG_IMAGE_DOWNGRADE, NG_APP_BASE);
	CHECK(ng_boot_floor(&B.t) == 0 && floor_words(&B) == 0, "a new board: floor 0, the log empty");
	CHECK(bf_update(&U, Bimg, f2, 256) == 0 && bf_boot(&B) == NG_OK && ng_boot_floor(&B.t) == 0x000200 &&
	      B.rec.floor == 0x000200, "0.2.0 downloaded and started: floor 0.2.0 (boot record too)");
	CHECK(bf_update(&U, A, f1, 256) == 2 && ng_boot_check(&B.t, &info) != NG_OK && !(B.rec.status & NG_BOOT_IMAGE_VALID),
	      "0.1.0 below it: errFILE, no image left, the record says so");
	{
		/* a power cut after a refused image's first page was written,
		 * before it was erased again (during the check: between two
		 * flash operations) leaves the whole image in flash: the boot
		 * check refuses it all the same, the floor being checked at
		 * boot too */
		static bf_board X;
		bf_init(&X, NULL);
		ng_fpec_unlock(&X.bus);
		ng_boot_floor_raise(&X.t, 0x000200);
		ng_fpec_program(&X.bus, NG_APP_BASE, A, (uint32_t)f1);
		CHECK(memcmp(X.mem + NG_LOADER_SIZE, A, f1) == 0 && bf_boot(&X) == NG_ERR_IMAGE_OLD &&
			      !(X.rec.status & NG_BOOT_IMAGE_VALID),
		      "0.1.0 whole in flash on a board whose floor is 0.2.0 (a cut before its first page was erased again): not started");
	}
	CHECK(bf_update(&U, S, f1d, 256) == 0 && bf_boot(&B) == NG_OK && ng_boot_floor(&B.t) == 0x000200,
	      "0.1.0 with the downgrade flag: taken and started; the floor stays 0.2.0");
	CHECK(bf_update(&U, A, f1, 256) == 2, "0.1.0 without the flag, over the flagged one: still errFILE");
	CHECK(bf_update(&U, Bimg, f2, 256) == 0 && bf_boot(&B) == NG_OK && floor_words(&B) == 1,
	      "0.2.0 again (= the floor): taken; the log unchanged (one word)");
	{
		/* power cut at each flash operation of the boot that raises the
		 * floor from 0.2.0 to 0.3.0, each cut left half done with other
		 * bits (the model's random): never below 0.2.0, never above
		 * 0.3.0, and the next boot finishes it */
		size_t n3 = bf_image(S, sizeof S, 3000, seed + 13, 0x000300, NULL);
		CHECK(bf_update(&U, S, n3, 256) == 0, "0.3.0 downloaded (not started yet)");
		static uint8_t keep[BF_FLASH];
		memcpy(keep, B.mem, sizeof keep);
		B.m.cut = cut_cb;
		cut_at = -1;
		ops = 0;
		bf_boot(&B);
		long raise_ops = ops;
		CHECK(raise_ops == 1 && ng_boot_floor(&B.t) == 0x000300,
		      "the raise to 0.3.0 is %ld flash operation (the word's low half-word; its high one is erased)", raise_ops);
		cut_tally c = cut_raise(&B, keep, raise_ops, 0x000200, 0x000300, 1, 0x9E3779B97F4A7C15ull);
		CHECK(c.below == 0 && c.above == 0 && c.unfinished == 0,
		      "%ld cuts in the raise (random torn bits): the floor never below 0.2.0 (%ld), never above 0.3.0 (%ld); the next boot makes it 0.3.0 (%ld not)",
		      c.tries, c.below, c.above, c.unfinished);
		/* and versions with both half-words: 1.2.3 over 0.3.0 */
		size_t n4 = bf_image(S, sizeof S, 3000, seed + 14, 0x010203, NULL);
		CHECK(bf_update(&U, S, n4, 256) == 0, "1.2.3 downloaded");
		memcpy(keep, B.mem, sizeof keep);
		ops = 0;
		bf_boot(&B);
		raise_ops = ops;
		c = cut_raise(&B, keep, raise_ops, 0x000300, 0x010203, 7, 0xD1B54A32D192ED03ull);
		CHECK(raise_ops == 2 && c.below == 0 && c.above == 0 && c.unfinished == 0,
		      "%ld cuts in the raise to 1.2.3 (%ld operations): never below 0.3.0 (%ld), never above 1.2.3 (%ld); the next boot finishes (%ld not)",
		      c.tries, raise_ops, c.below, c.above, c.unfinished);
		B.m.cut = NULL;
	}
	{
		/* power cut at every flash operation of a whole update from
		 * 1.2.3 to 1.2.4 and its first boot: the floor never drops */
		size_t n5 = bf_image(S, sizeof S, 5000, seed + 15, 0x010204, NULL);
		static uint8_t keep[BF_FLASH];
		memcpy(keep, B.mem, sizeof keep);
		B.m.cut = cut_cb;
		cut_at = -1;
		ops = 0;
		bf_update(&U, S, n5, 256);
		bf_boot(&B);
		long total2 = ops, dropped = 0, wrong = 0;
		for (long k = 0; k < total2; k++) {
			memcpy(B.mem, keep, sizeof keep);
			ng_fpec_model_reset(&B.m);
			ng_update_init(&U, &B.t);
			cut_at = k;
			ops = 0;
			bf_update(&U, S, n5, 256);
			bf_boot(&B);
			dropped += ng_boot_floor(&B.t) < 0x010203;
			cut_at = -1;
			ng_update_init(&U, &B.t);
			if (bf_boot(&B) != NG_OK && (bf_update(&U, S, n5, 256) != 0 || bf_boot(&B) != NG_OK))
				wrong++;
			wrong += ng_boot_floor(&B.t) != 0x010204;
		}
		CHECK(dropped == 0 && wrong == 0,
		      "power cut at each of the %ld flash operations of an update and its boot: the floor never below 1.2.3; after a retry it is 1.2.4 (%ld not)",
		      total2, wrong);
		B.m.cut = NULL;
	}
	{
		/* the log's 256 words used up: the floor stays at its highest,
		 * and the page is never erased */
		static bf_board F;
		bf_init(&F, NULL);
		ng_fpec_unlock(&F.bus);
		for (uint32_t v = 1; v <= 300; v++)
			ng_boot_floor_raise(&F.t, v);
		ng_boot_floor_raise(&F.t, 5); /* below: nothing */
		CHECK(floor_words(&F) == 256 && ng_boot_floor(&F.t) == 256 && F.m.erases == 0,
		      "300 raises: the log's 256 words used, the floor at the 256th (%u), no erase (%u)",
		      (unsigned)ng_boot_floor(&F.t), (unsigned)F.m.erases);
	}
	return ng_check_exit();
}
