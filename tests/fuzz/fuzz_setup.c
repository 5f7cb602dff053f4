/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer: arbitrary setup packets, data stages, bulk packets, halts,
 * resets and noise samples into the whole NeuG composite device
 * (usb/neug_fn.c over usbd.c, cdc_acm.c, msc.c, scsi.c and the pipeline),
 * through the fake dcd. Invariants: no memory error (ASan/UBSan), no
 * violation of the dcd contract (packet > max packet, xfer on a closed
 * endpoint, NULL buffer, ...), control IN data never longer than wLength
 * (checked by the fake host), every control transfer answered (data, ZLP or
 * STALL, never silence), bulk IN data only while DTR is set. */
#include <stdlib.h>
#include <string.h>
#include "fakes/fake_dcd.h"
#include "neug_device.h"

static ng_neug_dev D;
static fk_dcd F;

static void task(void *u) { ng_neug_task(u); }

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_setup: %s (%s)\n", what, F.last_error);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	memset(&F, 0, sizeof F);
	ng_neug_config cfg = {.uid = {1, 2, 3}, .board = "fuzz", .revision = "0"};
	if (ng_neug_init(&D, &cfg, &fk_ops, &F) != NG_OK)
		fail("init");
	F.task = task;
	F.task_user = &D;
	ng_neug_connect(&D, true);
	fk_bus_reset(&F);
	uint32_t sample = 0x12345678u;
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
			wl = (uint16_t)(wl % 1024u);
			static uint8_t buf[1024];
			memset(buf, 0, sizeof buf);
			if (!(s[0] & 0x80)) {
				size_t avail = size - i < wl ? size - i : wl;
				memcpy(buf, data + i, avail);
				i += avail;
			}
			uint16_t act = 0;
			int r = fk_control(&F, s[0], s[1], (uint16_t)(s[2] | (s[3] << 8)),
					   (uint16_t)(s[4] | (s[5] << 8)), wl, buf, &act);
			if (r == FK_ERR && F.errors == 0)
				fail("a control transfer got no answer");
			break;
		}
		case 2: /* a lone SETUP (an abandoned transfer) */
			if (size - i < 8)
				return 0;
			fk_setup(&F, data + i);
			i += 8;
			break;
		case 3: { /* IN token on some endpoint */
			uint8_t ep = (uint8_t)(0x80u | (op >> 3) % 4u);
			uint8_t b[64];
			uint16_t n;
			bool dtr = ng_neug_dtr(&D), busy = D.tx_len != 0;
			int r = fk_in(&F, ep, b, 64, &n);
			if (ep == NG_NEUG_EP_DATA_IN && r == FK_OK && n && !dtr && !busy)
				fail("bulk IN data while DTR is low");
			break;
		}
		case 4: { /* OUT packet on some endpoint */
			if (i >= size)
				return 0;
			uint8_t ep = (uint8_t)((op >> 3) % 4u);
			uint16_t len = (uint16_t)(data[i++] % 65u);
			size_t avail = size - i < len ? size - i : len;
			fk_out(&F, ep, data + i, (uint16_t)avail);
			i += avail;
			break;
		}
		case 5:
			fk_bus_reset(&F);
			break;
		case 6: { /* the app feeds what the device asks for (bounded) */
			static uint32_t s[512];
			size_t n = ng_neug_wants_samples(&D);
			if (n > 512)
				n = 512;
			for (size_t k = 0; k < n; k++) { /* xorshift: passes the health tests */
				sample ^= sample << 13;
				sample ^= sample >> 17;
				sample ^= sample << 5;
				s[k] = (op & 0x80) ? 0x0FDC05D2u : sample; /* or a stuck source */
			}
			ng_neug_put_samples(&D, s, n);
			break;
		}
		default:
			ng_neug_task(&D);
			break;
		}
		if (F.errors)
			fail("dcd contract violation");
	}
	return 0;
}
