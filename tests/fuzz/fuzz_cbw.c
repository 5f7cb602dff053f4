/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer: arbitrary CBWs, data-out packets, IN reads, halts and BOT
 * resets into usb/msc.c + usb/scsi.c (over usbd.c and the fake dcd).
 * Input: a sequence of records. Invariants: no memory error, no dcd
 * contract violation, every 13-byte IN packet read right after a CBW phase
 * that starts with "USBS" echoes a tag we sent, and after a reset recovery
 * the device answers TEST UNIT READY with a good CSW. */
#include <stdlib.h>
#include <string.h>
#include "disk.h"
#include "fakes/bot_host.h"
#include "fakes/fake_dcd.h"
#include "fakes/msc_desc.h"
#include "msc.h"
#include "usbd.h"

static ng_usbd_ctx U;
static fk_dcd F;
static ng_msc_ctx M;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	memset(&F, 0, sizeof F);
	ng_msc_medium m = {ng_disk_sectors(), ng_disk_read, NULL, "FSIJ", "NeuG disk", "1.0", "SERIAL"};
	ng_msc_init(&M, 0, 0x83, 0x03, &m);
	const ng_usbd_class *cl[1] = {&M.cls};
	ng_usbd_init(&U, &fk_ops, &F, &desc, cl, 1);
	ng_usbd_connect(&U, true);
	fk_bus_reset(&F);
	fk_control(&F, 0x00, 5, 1, 0, 0, NULL, NULL);
	fk_control(&F, 0x00, 9, 1, 0, 0, NULL, NULL);
	bot_host h = {&F, 0x83, 0x03, 0, 0};
	size_t i = 0;
	while (i < size) {
		uint8_t op = data[i++];
		switch (op % 6) {
		case 0: { /* a well-formed CBW around fuzzed fields and CDB */
			if (size - i < 22)
				return 0;
			const uint8_t *d = data + i;
			i += 22;
			uint8_t cbw[31];
			uint32_t len = ng_get_le32(d) % 8192u;
			bot_cbw(cbw, ++h.tag, len, d[4] & 0x80, d[5] & 0x01, d + 6, (uint8_t)(d[5] >> 1) % 17u);
			static uint8_t buf[8192];
			memset(buf, 0xA5, sizeof buf);
			bot_result r = bot_raw(&h, cbw, 31, len, (d[4] & 0x80) != 0, buf);
			if (r.ok && r.csw_tag != h.tag) {
				fprintf(stderr, "CSW tag %u for CBW tag %u\n", r.csw_tag, h.tag);
				abort();
			}
			if (r.ok && r.residue > len) {
				fprintf(stderr, "residue %u > dCBWDataTransferLength %u\n", r.residue, len);
				abort();
			}
			break;
		}
		case 1: { /* a raw OUT packet (maybe a broken CBW) */
			if (i >= size)
				return 0;
			uint16_t len = data[i++] % 65u;
			size_t avail = size - i < len ? size - i : len;
			fk_out(&F, 0x03, data + i, (uint16_t)avail);
			i += avail;
			break;
		}
		case 2: {
			uint8_t b[64];
			uint16_t n;
			fk_in(&F, 0x83, b, 64, &n);
			break;
		}
		case 3: /* clear a halt */
			bot_clear_halt(&h, (op & 8) ? 0x83 : 0x03);
			break;
		case 4: { /* reset recovery, then the device must work */
			fk_control(&F, 0x21, 0xFF, 0, 0, 0, NULL, NULL);
			bot_clear_halt(&h, 0x83);
			bot_clear_halt(&h, 0x03);
			/* drain a CSW that may still be queued from before */
			uint8_t b[64];
			uint16_t n;
			while (fk_in(&F, 0x83, b, 64, &n) == FK_OK)
				;
			uint8_t tur[6] = {0};
			bot_result r = bot_cmd(&h, tur, 6, 0, false, NULL);
			if (!r.ok || r.status != 0) {
				fprintf(stderr, "no good CSW for TEST UNIT READY after reset recovery\n");
				abort();
			}
			break;
		}
		default: { /* control: GET_MAX_LUN / class requests with fuzzed fields */
			if (size - i < 3)
				return 0;
			uint8_t b[64];
			uint16_t n;
			fk_control(&F, (uint8_t)(0x21 | (data[i] & 0x80)), data[i + 1], data[i + 2], 0, (data[i] & 0x80) ? 1 : 0, b, &n);
			i += 3;
			break;
		}
		}
		if (F.errors) {
			fprintf(stderr, "dcd contract violation: %s\n", F.last_error);
			abort();
		}
	}
	return 0;
}
