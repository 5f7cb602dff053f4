/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cliopt.h"
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "ng/pipeline.h"

int ng_cliopt_mode(const char *s, uint32_t *mode)
{
	if (!strcmp(s, "conditioned") || !strcmp(s, "0"))
		*mode = NG_MODE_CONDITIONED;
	else if (!strcmp(s, "crc32") || !strcmp(s, "1"))
		*mode = NG_MODE_CRC32;
	else if (!strcmp(s, "raw") || !strcmp(s, "2"))
		*mode = NG_MODE_RAW;
	else
		return -1;
	return 0;
}

int ng_cliopt_double(const char *s, double lo, double hi, unsigned open, double *v)
{
	char *end;
	if (!*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	double x = strtod(s, &end);
	if (*end || errno)
		return -1;
	bool above = open & NG_CLIOPT_OPEN_LO ? x > lo : x >= lo;
	bool below = open & NG_CLIOPT_OPEN_HI ? x < hi : x <= hi;
	if (!above || !below) /* NaN is neither */
		return -1;
	*v = x;
	return 0;
}

int ng_cliopt_min_entropy(const char *s, uint32_t *h_milli)
{
	double h;
	if (ng_cliopt_double(s, NG_MIN_H_MILLI / 1000.0, NG_MAX_H_MILLI / 1000.0, 0, &h) < 0)
		return -1;
	*h_milli = (uint32_t)(h * 1000 + 0.5);
	return 0;
}

/* 1 to 8 hex digits (after an optional 0x) in s[0..len). */
static int hex_word(const char *s, size_t len, uint32_t *out)
{
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2, len -= 2;
	if (len == 0 || len > 8)
		return -1;
	uint32_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return -1;
		int c = tolower((unsigned char)s[i]);
		v = v << 4 | (uint32_t)(c <= '9' ? c - '0' : c - 'a' + 10);
	}
	*out = v;
	return 0;
}

int ng_cliopt_uid(const char *s, uint32_t uid[3])
{
	for (int i = 0; i < 3; i++) {
		const char *c = strchr(s, ':');
		size_t len = c ? (size_t)(c - s) : strlen(s);
		if ((i < 2) != (c != NULL) || hex_word(s, len, &uid[i]))
			return -1;
		s += len + 1;
	}
	return 0;
}

int ng_cliopt_uint(const char *s, unsigned long long min, unsigned long long max,
		   unsigned long long *v)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2]);
	char *end;
	if (!isdigit((unsigned char)*s))
		return -1; /* no sign, no space */
	errno = 0;
	unsigned long long n = strtoull(s, &end, hex ? 16 : 10);
	if (*end || errno || n < min || n > max)
		return -1;
	*v = n;
	return 0;
}

int ng_cliopt_size(const char *s, unsigned long long *v)
{
	char *end;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	unsigned long long n = strtoull(s, &end, 10);
	if (errno)
		return -1;
	int shift = 0;
	switch (*end) {
	case 'K': case 'k': shift = 10; break;
	case 'M': case 'm': shift = 20; break;
	case 'G': case 'g': shift = 30; break;
	}
	if (shift)
		end++;
	if (*end || (shift && n > (~0ULL >> shift)))
		return -1;
	*v = n << shift;
	return 0;
}

int ng_cliopt_fail(const char *cmd, const char *opt, const char *val, const char *what)
{
	fprintf(stderr, "neug %s: bad %s '%s': expected %s (see 'neug %s --help')\n", cmd, opt, val,
		what, cmd);
	return NG_EXIT_USAGE;
}

int ng_cliopt_metrics(const char *cmd, int opt, const char *arg, const char **path, double *every)
{
	if (opt == 'M') {
		if (!*arg)
			return ng_cliopt_fail(cmd, "--metrics", arg, "a file name, e.g. /run/neug-feed/neug.prom");
		*path = arg;
		return 0;
	}
	if (ng_cliopt_double(arg, 0.1, 3600, 0, every) < 0)
		return ng_cliopt_fail(cmd, "--metrics-interval", arg, "seconds, 0.1..3600");
	return 0;
}
