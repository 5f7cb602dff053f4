/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dfu_file.h"
#include "file.h"

static uint32_t ng_dfu_crc_update(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return crc;
}

uint32_t ng_dfu_crc(const uint8_t *p, size_t n)
{
	return ng_dfu_crc_update(0xffffffffu, p, n);
}

static void ng_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static uint16_t ng_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

void ng_dfu_suffix_make(uint8_t out[NG_DFU_SUFFIX_LEN], const uint8_t *data, size_t len, const ng_dfu_suffix *s)
{
	ng_put16(out, s->bcd_device);
	ng_put16(out + 2, s->id_product);
	ng_put16(out + 4, s->id_vendor);
	ng_put16(out + 6, s->bcd_dfu);
	out[8] = 'U';
	out[9] = 'F';
	out[10] = 'D';
	out[11] = NG_DFU_SUFFIX_LEN;
	/* the CRC runs over the data, then the suffix's first 12 bytes */
	uint32_t crc = ng_dfu_crc_update(ng_dfu_crc(data, len), out, NG_DFU_SUFFIX_LEN - 4);
	for (int i = 0; i < 4; i++)
		out[12 + i] = (uint8_t)(crc >> (8 * i));
}

int ng_dfu_suffix_parse(const uint8_t *file, size_t len, ng_dfu_suffix *s, size_t *payload)
{
	if (len < NG_DFU_SUFFIX_LEN)
		return -1;
	const uint8_t *x = file + len - NG_DFU_SUFFIX_LEN;
	if (x[8] != 'U' || x[9] != 'F' || x[10] != 'D' || x[11] < NG_DFU_SUFFIX_LEN || x[11] > len)
		return -1;
	uint32_t want = (uint32_t)x[12] | (uint32_t)x[13] << 8 | (uint32_t)x[14] << 16 | (uint32_t)x[15] << 24;
	if (ng_dfu_crc(file, len - 4) != want)
		return -2;
	s->bcd_device = ng_get16(x);
	s->id_product = ng_get16(x + 2);
	s->id_vendor = ng_get16(x + 4);
	s->bcd_dfu = ng_get16(x + 6);
	*payload = len - x[11];
	return 0;
}

int ng_dfu_file_read(const char *path, uint8_t **buf, size_t *len, int *has_suffix, ng_dfu_suffix *s,
		     char *err, size_t errlen)
{
	size_t n, payload;
	if (ng_file_read(path, 1u << 20, buf, &n, err, errlen) < 0)
		return -1;
	int rc = ng_dfu_suffix_parse(*buf, n, s, &payload);
	if (rc == -2) {
		snprintf(err, errlen, "'%s': the DFU suffix's CRC does not match (damaged or truncated file)", path);
		free(*buf);
		*buf = NULL;
		return -1;
	}
	*has_suffix = rc == 0;
	*len = rc == 0 ? payload : n;
	return 0;
}
