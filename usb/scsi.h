/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The SCSI commands of the mass storage interface (SPC-4 / SBC-3 subset for a
 * read-only direct-access block device), used by msc.c. */
#ifndef NG_SCSI_H
#define NG_SCSI_H
#include <stdint.h>
#include "msc.h"

/* Sense keys (SPC-4 Table 47) */
#define NG_SENSE_NO_SENSE        0x00u
#define NG_SENSE_NOT_READY       0x02u
#define NG_SENSE_MEDIUM_ERROR    0x03u
#define NG_SENSE_ILLEGAL_REQUEST 0x05u
#define NG_SENSE_UNIT_ATTENTION  0x06u
#define NG_SENSE_DATA_PROTECT    0x07u
/* Additional sense codes */
#define NG_ASC_INVALID_OPCODE    0x20u /* INVALID COMMAND OPERATION CODE */
#define NG_ASC_LBA_OUT_OF_RANGE  0x21u /* LOGICAL BLOCK ADDRESS OUT OF RANGE */
#define NG_ASC_INVALID_FIELD_CDB 0x24u /* INVALID FIELD IN CDB */
#define NG_ASC_LUN_NOT_SUPPORTED 0x25u /* LOGICAL UNIT NOT SUPPORTED */
#define NG_ASC_WRITE_PROTECTED   0x27u /* WRITE PROTECTED */
#define NG_ASC_READ_ERROR        0x11u /* UNRECOVERED READ ERROR */

#define NG_SCSI_DIR_NONE 0u
#define NG_SCSI_DIR_IN   1u
#define NG_SCSI_DIR_OUT  2u

/* What a command wants of the data phase. */
typedef struct {
	uint8_t good;   /* 1: command passed, 0: failed (sense set) */
	uint8_t dir;    /* NG_SCSI_DIR_*: the device's intent (Dn/Di/Do) */
	uint32_t len;   /* bytes the device intends to move */
	uint8_t read10; /* data comes from m->lba/nblocks, else from m->buf */
} ng_scsi_result;

/* Executes cdb (cdb_len bytes) for m: a small response goes to m->buf,
 * READ(10) sets m->lba and m->nblocks. Sets or clears the sense data. */
void ng_scsi_exec(ng_msc_ctx *m, const uint8_t *cdb, uint8_t cdb_len, ng_scsi_result *r);

#endif
