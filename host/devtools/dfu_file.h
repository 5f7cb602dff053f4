/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The USB DFU 1.1 file suffix (DFU 1.1 appendix B), the 16 bytes that
 * dfu-util and dfu-suffix expect at the end of a .dfu file, in file order:
 * bcdDevice, idProduct, idVendor, bcdDFU (0x0100), "UFD", bLength (16),
 * dwCRC (all little-endian). dwCRC is the CRC-32 (polynomial 0x04C11DB7,
 * reflected, initial 0xFFFFFFFF, no final inversion) of every byte of the
 * file before it. 0xFFFF in bcdDevice, idProduct or idVendor means "any". */
#ifndef NG_DFU_FILE_H
#define NG_DFU_FILE_H
#include <stddef.h>
#include <stdint.h>

#define NG_DFU_SUFFIX_LEN 16u

typedef struct {
	uint16_t bcd_device, id_product, id_vendor, bcd_dfu;
} ng_dfu_suffix;

/* The appendix B CRC of n bytes (as stored in dwCRC). */
uint32_t ng_dfu_crc(const uint8_t *p, size_t n);

/* Writes the suffix for the len bytes at data into out (which the caller
 * places right after them); s->bcd_dfu is written as given (use 0x0100). */
void ng_dfu_suffix_make(uint8_t out[NG_DFU_SUFFIX_LEN], const uint8_t *data, size_t len, const ng_dfu_suffix *s);

/* Checks the suffix at the end of a file: 0 and *s filled (and *payload
 * the length before it); -1 no suffix ("UFD" and bLength missing); -2 the
 * CRC does not match. */
int ng_dfu_suffix_parse(const uint8_t *file, size_t len, ng_dfu_suffix *s, size_t *payload);

/* Reads a firmware file (an image, or an image with the DFU suffix) of at
 * most 1 MiB: *buf (malloc'd, the caller frees it) and *len without the
 * suffix; *has_suffix and *s say whether there was one and what it said.
 * 0, or -1 with the reason in err (I/O error, or a suffix whose CRC does
 * not match: "damaged or truncated"). */
int ng_dfu_file_read(const char *path, uint8_t **buf, size_t *len, int *has_suffix, ng_dfu_suffix *s,
		     char *err, size_t errlen);

#endif
