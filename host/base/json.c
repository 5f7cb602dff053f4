/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "json.h"
#include <stddef.h>
#include <stdint.h>

/* The length of the well-formed UTF-8 sequence at s (RFC 3629, section 4's
 * table), or 0 when the byte at s does not start one. */
static size_t utf8_len(const unsigned char *s)
{
	const unsigned c = s[0];
	size_t n;
	uint32_t cp, min;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)   /* also stops at the terminating 0 */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void ng_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	fputc('"', f);
	while (*p) {
		const unsigned c = *p;
		size_t n;
		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
			p++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			p++;
		} else if (c < 0x80) {
			fputc((int)c, f);
			p++;
		} else if ((n = utf8_len(p)) != 0) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			fputs("\xef\xbf\xbd", f);   /* U+FFFD */
			p++;
		}
	}
	fputc('"', f);
}
