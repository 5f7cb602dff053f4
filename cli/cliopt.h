/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Option values: the one parser for each kind, for every command. Each
 * returns 0, or -1 without printing (the command says what it accepts). */
#ifndef NG_CLIOPT_H
#define NG_CLIOPT_H
#include <stdint.h>

/* "conditioned"|"crc32"|"raw" (or 0, 1, 2) -> NG_MODE_*. */
int ng_cliopt_mode(const char *s, uint32_t *mode);
/* "3.7" -> 3700 (millibits), within NG_MIN_H_MILLI..NG_MAX_H_MILLI. */
int ng_cliopt_min_entropy(const char *s, uint32_t *h_milli);
/* "12345678:9abcdef0:0fedcba9" -> three words, each 1 to 8 hex digits
 * (0x allowed). */
int ng_cliopt_uid(const char *s, uint32_t uid[3]);
/* "4096", "64K", "1M", "2G" (k, m, g too; K = 1024) -> bytes. */
int ng_cliopt_size(const char *s, unsigned long long *v);
/* A whole number within min..max: decimal digits, or hex digits after 0x. */
int ng_cliopt_uint(const char *s, unsigned long long min, unsigned long long max,
		   unsigned long long *v);
/* A number (strtod syntax without leading space: 2.5, 1e-9) within lo..hi;
 * NG_CLIOPT_OPEN_LO / NG_CLIOPT_OPEN_HI leave that end out. */
#define NG_CLIOPT_OPEN_LO 1u
#define NG_CLIOPT_OPEN_HI 2u
int ng_cliopt_double(const char *s, double lo, double hi, unsigned open, double *v);
/* feed's and egd's --metrics=PATH (opt 'M') and --metrics-interval=SECONDS
 * (opt 'I', 0.1..3600) into *path and *every. 0, or the usage exit status
 * after the message. */
int ng_cliopt_metrics(const char *cmd, int opt, const char *arg, const char **path, double *every);
/* Prints "neug CMD: bad OPT 'VAL': expected WHAT" and returns the usage exit status. */
int ng_cliopt_fail(const char *cmd, const char *opt, const char *val, const char *what);

#endif
