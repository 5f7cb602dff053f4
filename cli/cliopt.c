/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cliopt.h"
#include <errno.h>
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

int ng_cliopt_min_entropy(const char *s, uint32_t *h_milli)
{
	char *end;
	errno = 0;
	double h = strtod(s, &end);
	if (!*s || *end || errno || !(h * 1000 >= NG_MIN_H_MILLI && h * 1000 <= NG_MAX_H_MILLI))
		return -1;
	*h_milli = (uint32_t)(h * 1000 + 0.5);
	return 0;
}

int ng_cliopt_uid(const char *s, uint32_t uid[3])
{
	char *end;
	const char *p = s;
	for (int i = 0; i < 3; i++) {
		errno = 0;
		unsigned long v = strtoul(p, &end, 16);
		if (end == p || errno || v > 0xffffffffUL || *end != (i < 2 ? ':' : '\0'))
			return -1;
		uid[i] = (uint32_t)v;
		p = end + 1;
	}
	return 0;
}

int ng_cliopt_size(const char *s, unsigned long long *v)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(s, &end, 10);
	if (end == s || errno || *s == '-')
		return -1;
	int shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M')
		shift = 20, end++;
	else if (*end == 'G')
		shift = 30, end++;
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
	char *end;
	*every = strtod(arg, &end);
	if (!*arg || *end || !(*every >= 0.1 && *every <= 3600))
		return ng_cliopt_fail(cmd, "--metrics-interval", arg, "seconds, 0.1..3600");
	return 0;
}
