/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SCSI for one read-only, always-present logical unit of 512-byte blocks:
 * SPC-4 INQUIRY (+ VPD 0x00, 0x80), TEST UNIT READY, REQUEST SENSE (fixed
 * format), MODE SENSE(6)/(10) with WP set, PREVENT ALLOW MEDIUM REMOVAL;
 * SBC-3 READ CAPACITY(10), READ(10), START STOP UNIT; MMC/UFI READ FORMAT
 * CAPACITIES. Writes fail with DATA PROTECT / WRITE PROTECTED; every other
 * opcode with ILLEGAL REQUEST / INVALID COMMAND OPERATION CODE. */
#include <string.h>
#include "scsi.h"

static uint32_t be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static uint16_t be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void sense(ng_msc_ctx *m, uint8_t key, uint8_t asc, uint8_t ascq)
{
	m->sense_key = key;
	m->asc = asc;
	m->ascq = ascq;
}

static void fail(ng_msc_ctx *m, ng_scsi_result *r, uint8_t key, uint8_t asc)
{
	sense(m, key, asc, 0);
	r->good = 0;
	r->dir = NG_SCSI_DIR_NONE;
	r->len = 0;
}

/* A response of n bytes in m->buf, cut to the allocation length. */
static void reply(ng_msc_ctx *m, ng_scsi_result *r, uint32_t n, uint32_t alloc)
{
	sense(m, NG_SENSE_NO_SENSE, 0, 0);
	r->good = 1;
	r->dir = n && alloc ? NG_SCSI_DIR_IN : NG_SCSI_DIR_NONE;
	r->len = n < alloc ? n : alloc;
}

/* strlen without the C library (the firmware has only mem*) */
static size_t ng_strlen(const char *s)
{
	size_t n = 0;
	while (s && s[n])
		n++;
	return n;
}

static void pad(uint8_t *dst, const char *s, size_t n)
{
	size_t l = ng_strlen(s);
	memset(dst, ' ', n);
	memcpy(dst, s, l < n ? l : n);
}

static void inquiry(ng_msc_ctx *m, const uint8_t *cdb, ng_scsi_result *r)
{
	uint8_t *b = m->buf;
	uint16_t alloc = be16(cdb + 3);
	memset(b, 0, 64);
	if (cdb[1] & 0x01) { /* EVPD: SPC-4 §7.8 */
		switch (cdb[2]) {
		case 0x00: /* Supported VPD pages */
			b[1] = 0x00;
			b[3] = 2;
			b[4] = 0x00;
			b[5] = 0x80;
			reply(m, r, 6, alloc);
			return;
		case 0x80: { /* Unit serial number */
			size_t l = ng_strlen(m->m.serial);
			if (l > 32)
				l = 32;
			b[1] = 0x80;
			b[3] = (uint8_t)l;
			memcpy(b + 4, m->m.serial, l);
			reply(m, r, (uint32_t)(4 + l), alloc);
			return;
		}
		default:
			fail(m, r, NG_SENSE_ILLEGAL_REQUEST, NG_ASC_INVALID_FIELD_CDB);
			return;
		}
	}
	if (cdb[2] != 0) { /* page code without EVPD */
		fail(m, r, NG_SENSE_ILLEGAL_REQUEST, NG_ASC_INVALID_FIELD_CDB);
		return;
	}
	b[0] = 0x00; /* connected, direct-access block device */
	b[1] = 0x80; /* RMB: removable medium */
	b[2] = 0x04; /* VERSION: SPC-2 (keeps hosts on READ CAPACITY(10)) */
	b[3] = 0x02; /* RESPONSE DATA FORMAT 2 */
	b[4] = 31;   /* ADDITIONAL LENGTH: 36 - 5 */
	pad(b + 8, m->m.vendor, 8);
	pad(b + 16, m->m.product, 16);
	pad(b + 32, m->m.revision, 4);
	reply(m, r, 36, alloc);
}

static void mode_sense(ng_msc_ctx *m, const uint8_t *cdb, bool ten, ng_scsi_result *r)
{
	uint8_t page = cdb[2] & 0x3Fu, pc = cdb[2] >> 6;
	uint8_t *b = m->buf;
	/* No mode pages are offered: only "all pages" (0x3F) and page 0 answer, with the
	 * header alone. Saved values (PC = 3) are not supported. */
	if ((page != 0x3F && page != 0x00) || pc == 3) {
		fail(m, r, NG_SENSE_ILLEGAL_REQUEST, NG_ASC_INVALID_FIELD_CDB);
		return;
	}
	memset(b, 0, 8);
	if (ten) { /* SPC-4 §7.5.5 mode parameter header(10) */
		b[1] = 6;    /* MODE DATA LENGTH = 8 - 2 */
		b[3] = 0x80; /* DEVICE-SPECIFIC PARAMETER: WP (SBC-3 §6.4.1) */
		reply(m, r, 8, be16(cdb + 7));
	} else {     /* mode parameter header(6) */
		b[0] = 3;    /* MODE DATA LENGTH = 4 - 1 */
		b[2] = 0x80; /* WP */
		reply(m, r, 4, cdb[4]);
	}
}

void ng_scsi_exec(ng_msc_ctx *m, const uint8_t *cdb, uint8_t cdb_len, ng_scsi_result *r)
{
	uint8_t *b = m->buf;
	memset(r, 0, sizeof *r);
	uint8_t op = cdb[0];
	/* CDB length by group code (SPC-4 §4.2.5.1) must fit what was sent */
	uint8_t need = op < 0x20 ? 6 : op < 0x60 ? 10 : op >= 0xA0 && op < 0xC0 ? 12 : op >= 0x80 && op < 0xA0 ? 16 : 1;
	if (cdb_len < need) {
		fail(m, r, NG_SENSE_ILLEGAL_REQUEST, NG_ASC_INVALID_FIELD_CDB);
		return;
	}
	switch (op) {
	case 0x00: /* TEST UNIT READY */
		reply(m, r, 0, 0);
		return;
	case 0x03: { /* REQUEST SENSE: fixed format (SPC-4 §4.5.3), then cleared */
		memset(b, 0, 18);
		b[0] = 0x70;
		b[2] = m->sense_key;
		b[7] = 10;
		b[12] = m->asc;
		b[13] = m->ascq;
		uint8_t alloc = cdb[4];
		reply(m, r, 18, alloc);
		return;
	}
	case 0x12: /* INQUIRY */
		inquiry(m, cdb, r);
		return;
	case 0x1A: /* MODE SENSE(6) */
		mode_sense(m, cdb, false, r);
		return;
	case 0x5A: /* MODE SENSE(10) */
		mode_sense(m, cdb, true, r);
		return;
	case 0x1B: /* START STOP UNIT: nothing to spin; eject is ignored */
	case 0x1E: /* PREVENT ALLOW MEDIUM REMOVAL: the medium never leaves */
		reply(m, r, 0, 0);
		return;
	case 0x25: /* READ CAPACITY(10): last LBA, block length (SBC-3 §5.16) */
		put_be32(b, m->m.blocks ? m->m.blocks - 1u : 0);
		put_be32(b + 4, NG_MSC_BLOCK);
		reply(m, r, 8, 8);
		return;
	case 0x23: { /* READ FORMAT CAPACITIES (UFI 4.10 / MMC) */
		memset(b, 0, 12);
		b[3] = 8; /* capacity list length */
		put_be32(b + 4, m->m.blocks);
		b[8] = 0x02; /* formatted media, current capacity */
		b[9] = (uint8_t)(NG_MSC_BLOCK >> 16);
		b[10] = (uint8_t)(NG_MSC_BLOCK >> 8);
		b[11] = (uint8_t)NG_MSC_BLOCK;
		reply(m, r, 12, be16(cdb + 7));
		return;
	}
	case 0x28: { /* READ(10) (SBC-3 §5.11) */
		uint32_t lba = be32(cdb + 2);
		uint32_t n = be16(cdb + 7);
		if (lba > m->m.blocks || n > m->m.blocks - lba) {
			fail(m, r, NG_SENSE_ILLEGAL_REQUEST, NG_ASC_LBA_OUT_OF_RANGE);
			return;
		}
		m->lba = lba;
		m->nblocks = n;
		sense(m, NG_SENSE_NO_SENSE, 0, 0);
		r->good = 1;
		r->dir = n ? NG_SCSI_DIR_IN : NG_SCSI_DIR_NONE;
		r->len = n * NG_MSC_BLOCK;
		r->read10 = 1;
		return;
	}
	case 0x0A: /* WRITE(6) */
	case 0x2A: /* WRITE(10) */
	case 0x2E: /* WRITE AND VERIFY(10) */
	case 0x8A: /* WRITE(16) */
	case 0xAA: /* WRITE(12) */
		fail(m, r, NG_SENSE_DATA_PROTECT, NG_ASC_WRITE_PROTECTED);
		return;
	default:
		fail(m, r, NG_SENSE_ILLEGAL_REQUEST, NG_ASC_INVALID_OPCODE);
		return;
	}
}
