/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The DFU 1.1 class (usb/dfu.c) through the fake dcd: the loader's DFU-mode
 * device (usb/dfu_device.c) over the update state machine and the FPEC
 * model, driven the way dfu-util drives it (DNLOAD, GETSTATUS until
 * dfuDNLOAD-IDLE, the zero-length DNLOAD, GETSTATUS through manifestation),
 * errors (dfuERROR, CLRSTATUS, ABORT, requests invalid in a state), the
 * challenge, GET_INFO 40..45, leaving DFU mode; and the application's
 * run-time interface (DETACH, GETSTATUS appIDLE) in the NeuG device.
 * Built twice: as test_dfu, and as test_dfu_loader with the stack compiled
 * the way the boot loader has it (firmware/module.mk FW_LOADER_DEFS:
 * endpoint 0 only, DFU mode only; no run-time part). */
#include <openssl/sha.h>
#include <string.h>
#include "check.h"
#include "dfu_device.h"
#include "fakes/boot_fixture.h"
#include "fakes/fake_dcd.h"
#include "neug_device.h"

static bf_board BB;
static ng_update U;
static ng_dfu_backend BE;
static ng_boot_info BI;
static ng_dfu_dev D;
static fk_dcd F;
static uint8_t IMG[BF_IMG_CAP];
static uint8_t leave;

static void task(void *u)
{
	uint8_t l = ng_dfu_dev_task(u);
	if (l)
		leave = l;
}

static int ctl(uint8_t rt, uint8_t req, uint16_t val, uint16_t idx, uint16_t len, uint8_t *buf, uint16_t *act)
{
	return fk_control(&F, rt, req, val, idx, len, buf, act);
}

static int status(uint8_t st[6]) { return ctl(0xA1, NG_DFU_GETSTATUS, 0, 0, 6, st, NULL); }

static void start(void)
{
	memset(&F, 0, sizeof F);
	ng_dfu_backend_update(&BE, &U);
	ng_boot_info_fill(&BI, &BB.t, NG_ERR_IMAGE_NONE, NULL);
	BI.status |= NG_BOOT_DFU_MODE;
	ng_dfu_dev_config c = { .uid = {0x11111111, 0x22222222, 0x33333333}, .be = &BE, .boot = &BI, .loader = "NeuG loader 1.0" };
	ng_dfu_dev_init(&D, &c, &fk_ops, &F);
	F.task = task;
	F.task_user = &D;
	ng_dfu_dev_connect(&D, true);
	fk_bus_reset(&F);
	ctl(0x00, 5, 9, 0, 0, NULL, NULL);
	ctl(0x00, 9, 1, 0, 0, NULL, NULL);
	ctl(0x01, 11, 0, 0, 0, NULL, NULL); /* SET_INTERFACE 0 alt 0, as dfu-util */
}

/* A download as dfu-util 0.11 does it; returns the final GETSTATUS state. */
static int download(const uint8_t *img, size_t n, uint8_t st[6], int *polls)
{
	uint16_t blk = 0;
	*polls = 0;
	for (size_t off = 0; off < n; off += NG_DFU_TRANSFER_SIZE, blk++) {
		uint16_t len = (uint16_t)(n - off < NG_DFU_TRANSFER_SIZE ? n - off : NG_DFU_TRANSFER_SIZE);
		if (ctl(0x21, NG_DFU_DNLOAD, blk, 0, len, (uint8_t *)img + off, NULL) != FK_OK)
			return -1;
		do {
			if (status(st) != FK_OK)
				return -2;
			(*polls)++;
		} while (st[4] != NG_DFU_DNLOAD_IDLE && st[4] != NG_DFU_ERROR);
		if (st[0] != NG_DFU_OK)
			return st[4];
	}
	if (ctl(0x21, NG_DFU_DNLOAD, blk, 0, 0, NULL, NULL) != FK_OK)
		return -3;
	do {
		if (status(st) != FK_OK)
			return -4;
	} while (st[4] == NG_DFU_MANIFEST_SYNC || st[4] == NG_DFU_MANIFEST);
	return st[4];
}

static void test_descriptors(void)
{
	uint8_t b[256];
	uint16_t n;
	CHECK(ctl(0x80, 6, 0x0100, 0, 18, b, &n) == FK_OK && n == 18 && b[4] == 0 && ng_get_le16(b + 8) == 0x234B &&
	      ng_get_le16(b + 10) == 0x0001, "DFU mode: device class 0, 234b:0001");
	CHECK(ctl(0x80, 6, 0x0200, 0, 255, b, &n) == FK_OK && n == 27 && b[4] == 1 && b[9 + 5] == 0xFE &&
	      b[9 + 6] == 1 && b[9 + 7] == 2 && b[9 + 8] == NG_DFU_STR_ALT0,
	      "configuration: one interface FE/01/02 (DFU mode), alt 0 named by string 8");
	CHECK(b[18] == 9 && b[19] == 0x21 && b[20] == 0x0D && ng_get_le16(b + 23) == 256 && ng_get_le16(b + 25) == 0x0110,
	      "functional descriptor: 0x0D, 256-byte transfers, DFU 1.1");
	char s[64];
	CHECK(ctl(0x80, 6, 0x0303, 0x0409, 255, b, &n) == FK_OK && n == 2 + 48, "string 3: the 24-digit serial");
	for (int i = 0; i < 24; i++)
		s[i] = (char)b[2 + 2 * i];
	s[24] = 0;
	CHECK(strcmp(s, "111111112222222233333333") == 0, "serial = the unique ID, as the application's (%s)", s);
	CHECK(ctl(0x80, 6, 0x0304, 0x0409, 255, b, &n) == FK_OK && n == 2 + 2 * 15 && b[2] == 'N', "string 4: the loader's version");
}

static void test_download(void)
{
	uint8_t st[6], b[64];
	int polls;
	uint64_t seed = ng_test_seed();
	size_t n = bf_image(IMG, sizeof IMG, 9000, seed, 0x010203, NULL);
	CHECK(status(st) == FK_OK && st[4] == NG_DFU_IDLE && st[0] == 0, "GETSTATUS: dfuIDLE, OK");
	CHECK(ctl(0xA1, NG_DFU_GETSTATE, 0, 0, 1, b, NULL) == FK_OK && b[0] == NG_DFU_IDLE, "GETSTATE: dfuIDLE");
	int r = download(IMG, n, st, &polls);
	ng_image_info info;
	CHECK(r == NG_DFU_IDLE && st[0] == 0, "an image of %zu bytes downloaded: manifestation ends in dfuIDLE (%d)", n, r);
	CHECK(polls == (int)((n + 255) / 256), "one GETSTATUS per block: each block written before the answer (%d)", polls);
	CHECK(ng_boot_check(&BB.t, &info) == NG_OK && memcmp(BB.mem + NG_LOADER_SIZE, IMG, n) == 0,
	      "the flash holds the image and it passes the boot check");
	CHECK(ng_dfu_take_leave(&D.dfu, &D.usbd) == NG_DFU_LEAVE_NONE, "no leaving before a reset or DETACH");
	leave = 0;
	fk_bus_reset(&F);
	CHECK(leave == NG_DFU_LEAVE_DETACH, "a USB reset after the manifestation: leave DFU mode (run the image)");

	start();
	leave = 0;
	IMG[3000] ^= 4;
	r = download(IMG, n, st, &polls);
	CHECK(r == NG_DFU_ERROR && st[0] == NG_DFU_ERR_VERIFY, "a flipped bit: dfuERROR, errVERIFY");
	CHECK(ng_boot_check(&BB.t, &info) != NG_OK, "and no bootable image is left");
	fk_bus_reset(&F);
	CHECK(leave == 0, "a reset after a failed manifestation stays in DFU mode");
	ctl(0x00, 9, 1, 0, 0, NULL, NULL);
	CHECK(ctl(0x21, NG_DFU_CLRSTATUS, 0, 0, 0, NULL, NULL) == FK_OK && status(st) == FK_OK && st[4] == NG_DFU_IDLE,
	      "CLRSTATUS: back to dfuIDLE");
	IMG[3000] ^= 4;
	CHECK(download(IMG, n - 10, st, &polls) == NG_DFU_ERROR && st[0] == NG_DFU_ERR_VERIFY, "truncated: errVERIFY");
	ctl(0x21, NG_DFU_CLRSTATUS, 0, 0, 0, NULL, NULL);

	/* invalid requests */
	static uint8_t big[300];
	CHECK(ctl(0x21, NG_DFU_DNLOAD, 0, 0, 300, big, NULL) == FK_STALL && status(st) == FK_OK && st[4] == NG_DFU_ERROR &&
	      st[0] == NG_DFU_ERR_STALLEDPKT, "a 300-byte block: STALL, dfuERROR errSTALLEDPKT");
	ctl(0x21, NG_DFU_CLRSTATUS, 0, 0, 0, NULL, NULL);
	CHECK(ctl(0x21, NG_DFU_DNLOAD, 0, 0, 0, NULL, NULL) == FK_STALL, "a zero-length DNLOAD in dfuIDLE: STALL");
	ctl(0x21, NG_DFU_CLRSTATUS, 0, 0, 0, NULL, NULL);
	CHECK(ctl(0xA1, NG_DFU_UPLOAD, 0, 0, 64, b, NULL) == FK_STALL, "UPLOAD: not offered, STALL");
	ctl(0x21, NG_DFU_CLRSTATUS, 0, 0, 0, NULL, NULL);
	CHECK(ctl(0x21, NG_DFU_CLRSTATUS, 0, 0, 0, NULL, NULL) == FK_STALL, "CLRSTATUS outside dfuERROR: STALL");
	ctl(0x21, NG_DFU_CLRSTATUS, 0, 0, 0, NULL, NULL);

	/* ABORT in the middle: nothing bootable, and the next download works */
	CHECK(ctl(0x21, NG_DFU_DNLOAD, 0, 0, 256, IMG, NULL) == FK_OK && status(st) == FK_OK && st[4] == NG_DFU_DNLOAD_IDLE,
	      "one block: dfuDNLOAD-IDLE");
	CHECK(ctl(0x21, NG_DFU_ABORT, 0, 0, 0, NULL, NULL) == FK_OK && status(st) == FK_OK && st[4] == NG_DFU_IDLE,
	      "ABORT: dfuIDLE");
	CHECK(ng_boot_check(&BB.t, &info) != NG_OK, "an aborted download leaves no bootable image");
	CHECK(download(IMG, n, st, &polls) == NG_DFU_IDLE && ng_boot_check(&BB.t, &info) == NG_OK, "the next download works");
}

static void test_info_challenge(void)
{
	uint8_t b[64], nonce[32], want[32];
	static uint8_t buf[32 + BF_IMG_CAP];
	uint16_t n;
	ng_image_info info;
	ng_status cs = ng_boot_check(&BB.t, &info);
	ng_boot_info_fill(&BI, &BB.t, cs, &info);
	BI.status |= NG_BOOT_DFU_MODE;
	CHECK(ctl(0xC0, 254, 0, 40, 4, b, &n) == FK_OK && n == 4 && ng_get_le32(b) == NG_LOADER_VERSION, "GET_INFO 40: loader version");
	CHECK(ctl(0xC0, 254, 0, 41, 4, b, &n) == FK_OK && ng_get_le32(b) == (NG_BOOT_IMAGE_VALID | NG_BOOT_DFU_MODE),
	      "GET_INFO 41: image valid, DFU mode, no owner key");
	CHECK(ctl(0xC0, 254, 0, 42, 32, b, &n) == FK_OK && n == 32 && memcmp(b, info.digest, 32) == 0, "GET_INFO 42: the image digest");
	CHECK(ctl(0xC0, 254, 0, 43, 32, b, &n) == FK_OK && n == 32 && b[0] == 0 && b[31] == 0, "GET_INFO 43: zeros (no key)");
	CHECK(ctl(0xC0, 254, 0, 44, 4, b, &n) == FK_OK && ng_get_le32(b) == 0x010203, "GET_INFO 44: the image version");
	uint32_t len = info.image_len + NG_IMAGE_TRAILER_LEN;
	CHECK(ctl(0xC0, 254, 0, 45, 4, b, &n) == FK_OK && ng_get_le32(b) == len, "GET_INFO 45: the image length (%u)", len);
	CHECK(ctl(0xC0, 254, 0, 0, 1, b, &n) == FK_STALL, "GET_INFO 0 (the mode) in DFU mode: STALL");

	CHECK(ctl(0xC1, NG_DFU_REQ_ANSWER, 0, 0, 32, b, &n) == FK_STALL, "ANSWER without a challenge: STALL");
	for (int i = 0; i < 32; i++)
		nonce[i] = (uint8_t)(i * 13 + 5);
	CHECK(ctl(0x41, NG_DFU_REQ_CHALLENGE, 0, 0, 32, nonce, NULL) == FK_OK, "CHALLENGE: 32-byte nonce taken");
	CHECK(ctl(0xC1, NG_DFU_REQ_ANSWER, 0, 0, 32, b, &n) == FK_OK && n == 32, "ANSWER: 32 bytes");
	memcpy(buf, nonce, 32);
	memcpy(buf + 32, BB.mem + NG_LOADER_SIZE, len);
	SHA256(buf, 32 + len, want);
	CHECK(memcmp(b, want, 32) == 0, "= SHA-256(nonce || image) (OpenSSL)");
	CHECK(ctl(0xC1, NG_DFU_REQ_ANSWER, 0, 0, 32, b, &n) == FK_STALL, "one answer per nonce");
	CHECK(ctl(0x41, NG_DFU_REQ_CHALLENGE, 0, 0, 16, nonce, NULL) == FK_STALL, "a 16-byte nonce: STALL");
	uint8_t st[6];
	CHECK(status(st) == FK_OK && st[4] == NG_DFU_IDLE, "vendor STALLs leave the DFU state alone");

	leave = 0;
	CHECK(ctl(0x21, NG_DFU_DETACH, 1000, 0, 0, NULL, NULL) == FK_OK && leave == NG_DFU_LEAVE_DETACH,
	      "DETACH in dfuIDLE (dfu-util -R): leave DFU mode after the status stage");
}

/* Endpoint 0 is the DFU-mode device's only one (the boot loader builds the
 * stack for it alone: the loader variant of this test, test_dfu_loader). */
static void test_ep0_only(void)
{
	uint8_t b[2];
	uint16_t n;
	CHECK(ctl(0x82, 0, 0, 0x80, 2, b, &n) == FK_OK && n == 2 && b[0] == 0 && b[1] == 0,
	      "GET_STATUS of endpoint 0x80: not halted");
	CHECK(ctl(0x82, 0, 0, 0x81, 2, b, &n) == FK_STALL, "GET_STATUS of endpoint 0x81: STALL (no such endpoint)");
	CHECK(ctl(0x02, 3, 0, 0x01, 0, NULL, NULL) == FK_STALL, "SET_FEATURE(ENDPOINT_HALT) of endpoint 1: STALL");
	CHECK(ctl(0x02, 1, 0, 0x00, 0, NULL, NULL) == FK_OK, "CLEAR_FEATURE(ENDPOINT_HALT) of endpoint 0: acknowledged");
	CHECK(ctl(0x01, 11, 0, 0, 0, NULL, NULL) == FK_OK, "SET_INTERFACE 0, alternate setting 0");
	CHECK(ctl(0x80, 6, 0x0100, 0, 2, b, &n) == FK_OK && n == 2 && b[1] == 1, "the device still answers");
}

#ifndef NG_DFU_MODE_ONLY
static void test_runtime(void)
{
	static ng_neug_dev N;
	static fk_dcd G;
	memset(&G, 0, sizeof G);
	ng_neug_config cfg = {.uid = {1, 2, 3}, .board = "b", .revision = "r", .boot = &BI};
	ng_neug_init(&N, &cfg, &fk_ops, &G);
	ng_neug_connect(&N, true);
	fk_bus_reset(&G);
	fk_control(&G, 0x00, 5, 3, 0, 0, NULL, NULL);
	fk_control(&G, 0x00, 9, 1, 0, 0, NULL, NULL);
	uint8_t st[6], b[256];
	uint16_t n;
	CHECK(fk_control(&G, 0x80, 6, 0x0200, 0, 255, b, &n) == FK_OK && n == 116 && b[4] == 4 && b[98 + 2] == 3 &&
	      b[98 + 5] == 0xFE && b[98 + 6] == 1 && b[98 + 7] == 1 && b[107] == 9 && b[108] == 0x21 && b[109] == 0x0D &&
	      ng_get_le16(b + 112) == 256 && ng_get_le16(b + 114) == 0x0110,
	      "behind a loader the application's configuration ends with interface 3, FE/01/01, and the functional descriptor");
	CHECK(fk_control(&G, 0xA1, NG_DFU_GETSTATUS, 0, 3, 6, st, &n) == FK_OK && n == 6 && st[4] == NG_DFU_APP_IDLE,
	      "run-time GETSTATUS on interface 3: appIDLE");
	CHECK(fk_control(&G, 0xA1, NG_DFU_GETSTATUS, 0, 2, 6, st, &n) == FK_STALL, "not on interface 2 (mass storage)");
	CHECK(fk_control(&G, 0xC0, 254, 0, 41, 4, b, &n) == FK_OK && (ng_get_le32(b) & NG_BOOT_IMAGE_VALID),
	      "the application serves GET_INFO 41 from the loader's record");
	CHECK(fk_control(&G, 0x21, NG_DFU_DNLOAD, 0, 3, 4, b, NULL) == FK_STALL, "DNLOAD in run-time: STALL");
	CHECK(!ng_neug_dfu_detach(&N), "no detach yet");
	CHECK(fk_control(&G, 0x21, NG_DFU_DETACH, 1000, 3, 0, NULL, NULL) == FK_OK, "DETACH acknowledged");
	CHECK(ng_neug_dfu_detach(&N) && !ng_neug_dfu_detach(&N), "the application is told once, after the status stage");
	ng_neug_config nob = {.uid = {1, 2, 3}};
	ng_neug_init(&N, &nob, &fk_ops, &G);
	ng_neug_connect(&N, true);
	fk_bus_reset(&G);
	fk_control(&G, 0x00, 9, 1, 0, 0, NULL, NULL);
	CHECK(fk_control(&G, 0xC0, 254, 0, 40, 4, b, &n) == FK_STALL, "without a loader record GET_INFO 40 STALLs");
}
#endif

int main(void)
{
	bf_init(&BB, NULL);
	ng_update_init(&U, &BB.t);
	start();
	test_descriptors();
	test_download();
	test_info_challenge();
	test_ep0_only();
#ifndef NG_DFU_MODE_ONLY
	test_runtime(); /* the application's run-time interface: not in the loader's build */
#endif
	CHECK(F.errors == 0, "the fake dcd saw no contract violation (%s)", F.last_error);
	return ng_check_exit();
}
