/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sectors of the generated FAT12 disk (disk.h), computed from the extents:
 * O(number of extents) per sector, fine for the handful there are. */
#include <string.h>
#include "disk.h"

uint32_t ng_disk_sectors(void) { return ng_disk_total_sectors; }

ng_status ng_disk_read(void *user, uint32_t lba, uint8_t out[NG_DISK_SECTOR])
{
	(void)user;
	if (lba >= ng_disk_total_sectors)
		return NG_ERR_ARG;
	memset(out, 0, NG_DISK_SECTOR);
	for (uint32_t i = 0; i < ng_disk_n_extents; i++) {
		const ng_disk_extent *e = &ng_disk_extents[i];
		if (lba < e->lba || lba - e->lba >= e->sectors)
			continue;
		uint32_t off = (lba - e->lba) * NG_DISK_SECTOR;
		if (off < e->len) {
			uint32_t n = e->len - off;
			memcpy(out, e->data + off, n < NG_DISK_SECTOR ? n : NG_DISK_SECTOR);
		}
		break;
	}
	return NG_OK;
}
