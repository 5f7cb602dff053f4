/* SPDX-License-Identifier: GPL-3.0-or-later */
/* JSON output (RFC 8259): the one string writer of --json and --stats. */
#ifndef NG_HOST_JSON_H
#define NG_HOST_JSON_H
#include <stdio.h>

/* s as a JSON string, quotes included: '"', '\\' and the control characters
 * (below 0x20, and 0x7f) escaped; well-formed UTF-8 (RFC 3629: no
 * overlong form, no surrogate, nothing above U+10FFFF) passed through; every
 * byte of anything else written as U+FFFD, so that the output is valid
 * UTF-8 whatever s holds (a file name, a device's string). */
void ng_json_str(FILE *f, const char *s);

#endif
