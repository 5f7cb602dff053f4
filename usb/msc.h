/* SPDX-License-Identifier: GPL-3.0-or-later */
/* USB Mass Storage Class, Bulk-Only Transport 1.0, SCSI transparent command
 * set, one read-only logical unit of 512-byte blocks read through a callback. */
#ifndef NG_MSC_H
#define NG_MSC_H
#include <stdbool.h>
#include <stdint.h>
#include "usbd.h"

#define NG_MSC_BLOCK 512u
#define NG_MSC_GET_MAX_LUN 0xFEu /* BOT §3.2 */
#define NG_MSC_RESET       0xFFu /* BOT §3.1 Bulk-Only Mass Storage Reset */
#define NG_MSC_CBW_LEN 31u
#define NG_MSC_CSW_LEN 13u

/* The medium: reads block lba (0 <= lba < blocks) into out. */
typedef struct {
	uint32_t blocks;
	ng_status (*read)(void *user, uint32_t lba, uint8_t out[NG_MSC_BLOCK]);
	void *user;
	const char *vendor;   /* INQUIRY T10 vendor, <= 8 chars */
	const char *product;  /* INQUIRY product, <= 16 chars */
	const char *revision; /* INQUIRY revision, <= 4 chars */
	const char *serial;   /* VPD page 0x80 unit serial number */
} ng_msc_medium;

/* Do not rely on the layout of this type; the caller owns it. */
typedef struct {
	ng_usbd_class cls;
	ng_msc_medium m;
	uint8_t ep_in, ep_out;
	uint8_t state;
	bool need_reset;     /* invalid CBW: both pipes stay halted until a BOT reset */
	bool configured;
	uint8_t cbw[NG_MSC_CBW_LEN];
	uint32_t tag;
	uint32_t host_len;   /* dCBWDataTransferLength */
	uint32_t dlen;       /* bytes of the data phase we move */
	uint32_t done;       /* of them, moved so far */
	uint32_t residue;    /* dCSWDataResidue */
	uint8_t status;      /* bCSWStatus */
	bool read10;         /* data from the medium (lba, nblocks) */
	uint16_t chunk;
	uint8_t sense_key, asc, ascq;
	uint32_t lba, nblocks; /* READ(10) in progress */
	uint8_t csw[NG_MSC_CSW_LEN];
	uint8_t buf[NG_MSC_BLOCK];
} ng_msc_ctx;

void ng_msc_init(ng_msc_ctx *m, uint8_t iface, uint8_t ep_in, uint8_t ep_out,
		 const ng_msc_medium *medium);

#endif
