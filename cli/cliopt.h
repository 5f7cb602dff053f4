/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Option values shared by feed, egd and info: parse or explain. */
#ifndef NG_CLIOPT_H
#define NG_CLIOPT_H
#include <stdint.h>

/* "conditioned"|"crc32"|"raw" (or 0, 1, 2) -> NG_MODE_*. 0 or -1. */
int ng_cliopt_mode(const char *s, uint32_t *mode);
/* "3.7" -> 3700 (millibits), within NG_MIN_H_MILLI..NG_MAX_H_MILLI. 0 or -1. */
int ng_cliopt_min_entropy(const char *s, uint32_t *h_milli);
/* "12345678:9abcdef0:0fedcba9" -> three words. 0 or -1. */
int ng_cliopt_uid(const char *s, uint32_t uid[3]);
/* "4096", "64K", "1M", "2G" -> bytes. 0 or -1. */
int ng_cliopt_size(const char *s, unsigned long long *v);
/* feed's and egd's --metrics=PATH (opt 'M') and --metrics-interval=SECONDS
 * (opt 'I', 0.1..3600) into *path and *every. 0, or the usage exit status
 * after the message. */
int ng_cliopt_metrics(const char *cmd, int opt, const char *arg, const char **path, double *every);
/* Prints "neug CMD: bad OPT 'VAL': expected WHAT" and returns the usage exit status. */
int ng_cliopt_fail(const char *cmd, const char *opt, const char *val, const char *what);

#endif
