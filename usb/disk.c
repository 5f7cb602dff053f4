/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sectors of the generated FAT12 disk (disk.h), computed from the extents:
 * O(number of extents) per sector, fine for the handful there are; a coded
 * sector costs one pass over its codes with a small explicit stack. */
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
		if (e->off && off < e->len) {
			uint32_t k = lba - e->lba, o = 0;
			uint8_t stack[NG_DISK_BPE_STACK];
			for (uint32_t i = e->off[k]; i < e->off[k + 1]; i++) {
				unsigned sp = 0;
				stack[sp++] = e->data[i];
				while (sp) {
					uint8_t c = stack[--sp];
					if (ng_disk_bpe_map[c >> 3] & (1u << (c & 7u))) {
						if (sp + 2u > NG_DISK_BPE_STACK)
							return NG_ERR_ARG; /* cannot happen: mkfat12 checks */
						stack[sp++] = ng_disk_bpe_pairs[c][1];
						stack[sp++] = ng_disk_bpe_pairs[c][0];
					} else if (o < NG_DISK_SECTOR) {
						out[o++] = c;
					}
				}
			}
		} else if (off < e->len) {
			uint32_t n = e->len - off;
			memcpy(out, e->data + off, n < NG_DISK_SECTOR ? n : NG_DISK_SECTOR);
		}
		break;
	}
	return NG_OK;
}
