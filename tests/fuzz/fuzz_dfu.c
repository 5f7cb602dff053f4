/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer: arbitrary control transfers (most of them DFU class and vendor
 * requests to interface 0), lone SETUPs, resets and main-loop passes into
 * the boot loader's DFU-mode device (usb/dfu_device.c, usb/dfu.c) over the
 * update state machine (boot/update.c) and the FPEC register model, through
 * the fake dcd. Invariants: no memory error (ASan/UBSan), no violation of
 * the dcd contract, every control transfer answered, bState and bStatus
 * within DFU 1.1's tables, the FPEC locked again after every request and
 * never faulted (no wrong key, no write while locked, no write to flash
 * outside programming), the loader's pages never written. */
#include <stdlib.h>
#include <string.h>
#include "dfu_device.h"
#include "fakes/boot_fixture.h"
#include "fakes/fake_dcd.h"

static bf_board BB;
static ng_update U;
static ng_dfu_backend BE;
static ng_boot_info BI;
static ng_dfu_dev D;
static fk_dcd F;
static uint8_t loader_before[NG_LOADER_SIZE];

static void task(void *u) { ng_dfu_dev_task(u); }

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_dfu: %s (%s)\n", what, F.last_error);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	memset(&F, 0, sizeof F);
	bf_init(&BB, NULL);
	for (uint32_t i = 0; i < NG_LOADER_SIZE; i++) /* something to keep */
		BB.mem[i] = (uint8_t)(i * 31u + 7u);
	memcpy(loader_before, BB.mem, NG_LOADER_SIZE);
	ng_update_init(&U, &BB.t);
	ng_dfu_backend_update(&BE, &U);
	ng_boot_info_fill(&BI, &BB.t, NG_ERR_IMAGE_NONE, NULL);
	ng_dfu_dev_config c = { .uid = {1, 2, 3}, .be = &BE, .boot = &BI, .loader = "fuzz" };
	if (ng_dfu_dev_init(&D, &c, &fk_ops, &F) != NG_OK)
		fail("init");
	F.task = task;
	F.task_user = &D;
	ng_dfu_dev_connect(&D, true);
	fk_bus_reset(&F);
	size_t i = 0;
	while (i < size) {
		uint8_t op = data[i++];
		switch (op % 6) {
		case 0:
		case 1:
		case 2: { /* a control transfer; op 0/1 aim at the DFU interface */
			if (size - i < 6)
				return 0;
			static const uint8_t types[4] = {0x21, 0xA1, 0x41, 0xC1};
			uint8_t s[8];
			if (op % 6 == 2) {
				if (size - i < 8)
					return 0;
				memcpy(s, data + i, 8);
				i += 8;
			} else {
				s[0] = types[(op >> 3) & 3];
				s[1] = (op & 0x80) ? (uint8_t)(0x80u | (data[i] & 1u)) : (uint8_t)(data[i] % 8u);
				memcpy(s + 2, data + i + 1, 2);
				s[4] = s[5] = 0;
				memcpy(s + 6, data + i + 3, 2);
				i += 6;
			}
			uint16_t wl = (uint16_t)((s[6] | (s[7] << 8)) % 1100u);
			static uint8_t buf[1100];
			memset(buf, 0xFF, sizeof buf);
			if (!(s[0] & 0x80)) {
				size_t avail = size - i < wl ? size - i : wl;
				memcpy(buf, data + i, avail);
				i += avail;
			}
			uint16_t act = 0;
			int r = fk_control(&F, s[0], s[1], (uint16_t)(s[2] | (s[3] << 8)), (uint16_t)(s[4] | (s[5] << 8)),
					   wl, buf, &act);
			if (r == FK_ERR && F.errors == 0)
				fail("a control transfer got no answer");
			break;
		}
		case 3:
			if (size - i < 8)
				return 0;
			fk_setup(&F, data + i);
			i += 8;
			break;
		case 4:
			fk_bus_reset(&F);
			fk_control(&F, 0x00, 9, 1, 0, 0, NULL, NULL);
			break;
		default:
			ng_dfu_dev_task(&D);
			ng_dfu_take_leave(&D.dfu, &D.usbd);
			break;
		}
		if (F.errors)
			fail("dcd contract violation");
		if (ng_dfu_state(&D.dfu) > NG_DFU_ERROR || ng_dfu_status(&D.dfu) > NG_DFU_ERR_STALLEDPKT)
			fail("bState or bStatus outside DFU 1.1's tables");
		if (!(BB.m.cr & NG_FLASH_CR_LOCK))
			fail("the FPEC was left unlocked");
		if (BB.m.faults)
			fail("the FPEC model saw a bus fault");
		if (memcmp(BB.mem, loader_before, NG_LOADER_SIZE) != 0)
			fail("the loader's pages were written");
	}
	return 0;
}
