/* SPDX-License-Identifier: GPL-3.0-or-later */
/* GET_INFO replies as a hostile device could send them: records of
 * (index, length or error, 8 data bytes) into ng_info_decode, then the
 * health in words, the text and the JSON. Nothing may crash, overrun or
 * print a non-JSON-safe string. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "info.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ng_info inf;
	memset(&inf, 0, sizeof inf);
	/* the first 128 bytes, if any, are the strings */
	if (size >= 128) {
		memcpy(inf.manufacturer, data, 64);
		inf.manufacturer[63] = 0;
		memcpy(inf.serial, data + 64, 64);
		inf.serial[63] = 0;
		data += 128, size -= 128;
	}
	while (size >= 10) {
		/* as ng_info_read calls it: a reply of rc <= NG_INFO_MAX_SIZE
		 * bytes in a buffer of that size (here 8 bytes, then zeros) */
		uint8_t buf[NG_INFO_MAX_SIZE] = {0};
		unsigned index = data[0];
		int rc = (int8_t)data[1];
		if (rc > (int)NG_INFO_MAX_SIZE)
			rc = NG_INFO_MAX_SIZE;
		memcpy(buf, data + 2, 8);
		ng_info_decode(&inf, index, rc, buf);
		data += 10, size -= 10;
	}
	ng_info_finish(&inf);
	char h[300];
	ng_info_health(&inf, h, sizeof h);
	FILE *f = fopen("/dev/null", "w");
	if (f) {
		ng_info_print(&inf, f);
		ng_info_print_json(&inf, f);
		fclose(f);
	}
	return 0;
}
