/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A Bulk-Only Transport host over the fake dcd (tests only): sends a CBW,
 * runs the data phase, recovers from STALLs the way BOT §6.7 / §5.3.4 tells
 * a host to (CLEAR_FEATURE(ENDPOINT_HALT)), and reads the CSW. */
#ifndef NG_BOT_HOST_H
#define NG_BOT_HOST_H
#include "fake_dcd.h"

typedef struct {
	fk_dcd *f;
	uint8_t ep_in, ep_out, iface;
	uint32_t tag;
} bot_host;

typedef struct {
	int ok;              /* a CSW was read */
	uint32_t got;        /* data-in bytes received / data-out bytes sent */
	bool stall_in, stall_out; /* the data phase ended with a STALL */
	uint32_t csw_tag, residue;
	uint8_t status;
	uint8_t csw_len;
	uint32_t csw_sig;
} bot_result;

static int bot_clear_halt(bot_host *h, uint8_t ep)
{
	return fk_control(h->f, 0x02, 1, 0, ep, 0, NULL, NULL);
}

static void bot_cbw(uint8_t cbw[31], uint32_t tag, uint32_t len, bool in, uint8_t lun,
		    const uint8_t *cdb, uint8_t cdb_len)
{
	memset(cbw, 0, 31);
	ng_put_le32(cbw, 0x43425355u);
	ng_put_le32(cbw + 4, tag);
	ng_put_le32(cbw + 8, len);
	cbw[12] = in ? 0x80 : 0x00;
	cbw[13] = lun;
	cbw[14] = cdb_len;
	memcpy(cbw + 15, cdb, cdb_len > 16 ? 16 : cdb_len);
}

/* Reads the CSW (clearing one halt of bulk IN first if needed). */
static void bot_read_csw(bot_host *h, bot_result *r)
{
	uint8_t b[64];
	uint16_t n = 0;
	int st = FK_NAK;
	for (int tries = 0; tries < 4; tries++) {
		st = fk_in(h->f, h->ep_in, b, 64, &n);
		if (st == FK_STALL) { /* the data phase ended with a STALL */
			r->stall_in = true;
			bot_clear_halt(h, h->ep_in);
			continue;
		}
		break;
	}
	if (st != FK_OK)
		return;
	r->csw_len = (uint8_t)n;
	if (n >= 13) {
		r->csw_sig = ng_get_le32(b);
		r->csw_tag = ng_get_le32(b + 4);
		r->residue = ng_get_le32(b + 8);
		r->status = b[12];
		r->ok = n == 13 && r->csw_sig == 0x53425355u;
	}
}

/* One command from a raw CBW of cbw_len bytes. data: in-buffer (cap len)
 * or out-data of len bytes. */
static bot_result bot_raw(bot_host *h, const uint8_t *cbw, uint16_t cbw_len, uint32_t len, bool in,
			  uint8_t *data)
{
	bot_result r;
	memset(&r, 0, sizeof r);
	if (fk_out(h->f, h->ep_out, cbw, cbw_len) != FK_OK)
		return r;
	if (len && in) {
		while (r.got < len) {
			uint8_t b[64];
			uint16_t n;
			int st = fk_in(h->f, h->ep_in, b, 64, &n);
			if (st == FK_STALL) {
				r.stall_in = true;
				bot_clear_halt(h, h->ep_in);
				break;
			}
			if (st != FK_OK)
				break; /* NAK: the device waits (must not happen) */
			if (r.got + n > len)
				return r; /* babble */
			memcpy(data + r.got, b, n);
			r.got += n;
			if (n < 64)
				break;
		}
	} else if (len) {
		while (r.got < len) {
			uint16_t n = (uint16_t)(len - r.got > 64 ? 64 : len - r.got);
			int st = fk_out(h->f, h->ep_out, data + r.got, n);
			if (st == FK_STALL) {
				r.stall_out = true;
				bot_clear_halt(h, h->ep_out);
				break;
			}
			if (st != FK_OK)
				break;
			r.got += n;
		}
	}
	bot_read_csw(h, &r);
	return r;
}

static bot_result bot_cmd(bot_host *h, const uint8_t *cdb, uint8_t cdb_len, uint32_t len, bool in,
			  uint8_t *data)
{
	uint8_t cbw[31];
	bot_cbw(cbw, ++h->tag, len, in, 0, cdb, cdb_len);
	bot_result r = bot_raw(h, cbw, 31, len, in, data);
	if (r.ok && r.csw_tag != h->tag)
		r.ok = 0;
	return r;
}

#endif
