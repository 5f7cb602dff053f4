/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Whole files: read one into memory. (Every output file is written by
 * outfile.h.) */
#ifndef NG_FILE_H
#define NG_FILE_H
#include <stddef.h>
#include <stdint.h>

/* Reads path into a malloc'd buffer (*buf, *len; the caller frees it).
 * At most max bytes: a longer file is an error. 0, or -1 with the reason in
 * err ("cannot open 'PATH': ...", "'PATH' is larger than N bytes"). */
int ng_file_read(const char *path, size_t max, uint8_t **buf, size_t *len, char *err, size_t errlen);

#endif
