/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The read-only FAT12 disk of the mass storage interface: README and
 * COPYING, generated at build time by usb/tools/mkfat12.c into
 * build/gen/disk_image.c. Sectors are computed on the fly from the file
 * contents (no padded image is stored). */
#ifndef NG_DISK_H
#define NG_DISK_H
#include <stddef.h>
#include <stdint.h>
#include "ng/status.h"

#define NG_DISK_SECTOR 512u

/* A run of sectors [lba, lba + sectors) holding len bytes (zeros beyond).
 * off == NULL: data is those bytes. Else data is byte-pair coded sector by
 * sector: sector k is data[off[k] .. off[k + 1]) expanded with
 * ng_disk_bpe_map/pairs. The generated build/gen/disk_image.c defines the
 * tables. */
typedef struct {
	uint32_t lba, sectors;
	const uint8_t *data;
	uint32_t len;
	const uint16_t *off;
} ng_disk_extent;

#define NG_DISK_BPE_STACK 26u /* expansion depth (mkfat12 BPE_DEPTH) + 2 */

extern const uint8_t ng_disk_bpe_map[32];
extern const uint8_t ng_disk_bpe_pairs[256][2];

extern const uint32_t ng_disk_total_sectors;
extern const ng_disk_extent ng_disk_extents[];
extern const uint32_t ng_disk_n_extents;

/* Number of 512-byte sectors of the volume. */
uint32_t ng_disk_sectors(void);
/* Sector lba (0 <= lba < ng_disk_sectors()) into out. NG_ERR_ARG out of range. */
ng_status ng_disk_read(void *user, uint32_t lba, uint8_t out[NG_DISK_SECTOR]);

#endif
