/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The read-only FAT12 disk of the mass storage interface: README and
 * COPYING, generated at build time by usb/tools/mkfat12.c into
 * build/gen/disk_image.c. Sectors are computed on the fly from the file
 * contents (no padded image is stored). */
#ifndef NG_DISK_H
#define NG_DISK_H
#include <stdint.h>
#include "ng/status.h"

#define NG_DISK_SECTOR 512u

/* A run of sectors [lba, lba + sectors) read from data (len bytes; zeros
 * beyond). The generated build/gen/disk_image.c defines the table. */
typedef struct {
	uint32_t lba, sectors;
	const uint8_t *data;
	uint32_t len;
} ng_disk_extent;

extern const uint32_t ng_disk_total_sectors;
extern const ng_disk_extent ng_disk_extents[];
extern const uint32_t ng_disk_n_extents;

/* Number of 512-byte sectors of the volume. */
uint32_t ng_disk_sectors(void);
/* Sector lba (0 <= lba < ng_disk_sectors()) into out. NG_ERR_ARG out of range. */
ng_status ng_disk_read(void *user, uint32_t lba, uint8_t out[NG_DISK_SECTOR]);

#endif
