/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer: arbitrary setup packets, data stages, bulk packets, halts and
 * resets into usb/usbd.c with the CDC-ACM and mass storage classes, through
 * the fake dcd. Invariants: no memory error (ASan/UBSan), no violation of
 * the dcd contract (packet > max packet, xfer on a closed endpoint, ...),
 * control IN data never longer than wLength, the stack always answers a
 * control transfer (data/ZLP/STALL, never silence). */
#include <stdlib.h>
#include <string.h>
#include "cdc_acm.h"
#include "disk.h"
#include "fakes/fake_dcd.h"
#include "msc.h"
#include "usbd.h"

static const uint8_t dev_desc[18] = {18, 1, 0x00, 0x02, 0xEF, 0x02, 0x01, 64, 0x4B, 0x23, 0x01, 0x00, 0x00, 0x01, 1, 2, 3, 1};
static const uint8_t cfg_desc[] = {
	9, 2, 9 + 8 + 9 + 19 + 7 + 9 + 14 + 9 + 14, 0, 3, 1, 0, 0x80, 50,
	8, 0x0B, 0, 2, 2, 2, 0, 0,
	9, 4, 0, 0, 1, 2, 2, 0, 0,
	5, 0x24, 0x00, 0x20, 0x01, 5, 0x24, 0x01, 0, 1, 4, 0x24, 0x02, 0x06, 5, 0x24, 0x06, 0, 1,
	7, 5, 0x82, 3, 16, 0, 10,
	9, 4, 1, 0, 2, 0x0A, 0, 0, 0,
	7, 5, 0x81, 2, 64, 0, 0, 7, 5, 0x01, 2, 64, 0, 0,
	9, 4, 2, 0, 2, 0x08, 0x06, 0x50, 0,
	7, 5, 0x83, 2, 64, 0, 0, 7, 5, 0x03, 2, 64, 0, 0,
};

static uint16_t str_fn(void *ctx, uint8_t index, uint16_t langid, uint8_t *out, uint16_t cap)
{
	(void)ctx;
	(void)langid;
	if (index > 3 || cap < 4)
		return 0;
	out[0] = 4;
	out[1] = 3;
	out[2] = (uint8_t)('A' + index);
	out[3] = 0;
	return 4;
}

static const ng_usbd_desc desc = {dev_desc, cfg_desc, str_fn, NULL};
static ng_usbd_ctx U;
static fk_dcd F;
static ng_cdc_acm_ctx C;
static ng_msc_ctx M;
static uint8_t txbuf[300];

static void tx_done(void *u)
{
	(void)u;
}

static void check(void)
{
	if (F.errors) {
		fprintf(stderr, "dcd contract violation: %s\n", F.last_error);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	memset(&F, 0, sizeof F);
	ng_cdc_acm_callbacks cb = {NULL, NULL, tx_done, NULL, NULL};
	ng_cdc_acm_init(&C, 0, 0x82, 0x81, 0x01, &cb);
	ng_msc_medium m = {ng_disk_sectors(), ng_disk_read, NULL, "FSIJ", "NeuG disk", "1.0", "SERIAL"};
	ng_msc_init(&M, 2, 0x83, 0x03, &m);
	const ng_usbd_class *cl[2] = {&C.cls, &M.cls};
	ng_usbd_init(&U, &fk_ops, &F, &desc, cl, 2);
	ng_usbd_connect(&U, true);
	fk_bus_reset(&F);
	size_t i = 0;
	while (i < size) {
		uint8_t op = data[i++];
		switch (op % 8) {
		case 0:
		case 1: { /* a whole control transfer */
			if (size - i < 8)
				return 0;
			const uint8_t *s = data + i;
			i += 8;
			uint16_t wl = (uint16_t)(s[6] | (s[7] << 8));
			if (wl > 1024)
				wl = (uint16_t)(wl % 1024);
			static uint8_t buf[1024];
			size_t avail = size - i < wl ? size - i : wl;
			memset(buf, 0, sizeof buf);
			if (!(s[0] & 0x80)) {
				memcpy(buf, data + i, avail);
				i += avail;
			}
			uint16_t act = 0;
			int r = fk_control(&F, s[0], s[1], (uint16_t)(s[2] | (s[3] << 8)), (uint16_t)(s[4] | (s[5] << 8)), wl, buf, &act);
			if (r == FK_ERR && F.errors == 0) {
				fprintf(stderr, "control transfer got no answer\n");
				abort();
			}
			break;
		}
		case 2: { /* a raw SETUP only (abandoned transfers) */
			if (size - i < 8)
				return 0;
			fk_setup(&F, data + i);
			i += 8;
			break;
		}
		case 3: { /* IN token on some endpoint */
			uint8_t ep = (uint8_t)(0x80u | (op >> 3) % 4u);
			uint8_t b[64];
			uint16_t n;
			fk_in(&F, ep, b, 64, &n);
			break;
		}
		case 4: { /* OUT packet on some endpoint */
			if (i >= size)
				return 0;
			uint8_t ep = (uint8_t)((op >> 3) % 4u);
			uint16_t len = data[i++] % 65u;
			size_t avail = size - i < len ? size - i : len;
			fk_out(&F, ep, data + i, (uint16_t)avail);
			i += avail;
			break;
		}
		case 5:
			fk_bus_reset(&F);
			break;
		case 6: /* the class sends something */
			ng_cdc_acm_write(&C, &U, txbuf, (uint16_t)((op >> 3) * 9u));
			ng_cdc_acm_serial_state(&C, &U, (uint16_t)(op >> 3));
			break;
		default: /* a queued event burst without the task */
			ng_usbd_event_suspend(&U, true);
			ng_usbd_event_resume(&U, true);
			ng_usbd_task(&U);
			break;
		}
		check();
	}
	return 0;
}
