/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug cutoffs: the repetition count and adaptive proportion test cutoffs
 * for a declared min-entropy. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "exit.h"
#include "cutoffs.h"

static void usage(FILE *f)
{
	fputs("Usage: neug cutoffs --min-entropy=H [--alpha=2^-30] [--window=512] [--json]\n"
	      "SP 800-90B health-test cutoffs for H bits of min-entropy per sample:\n"
	      "  RCT (4.4.1): C = 1 + ceil(-log2(alpha) / H)\n"
	      "  APT (4.4.2): C = 1 + CRITBINOM(W, 2^-H, 1 - alpha) (exact binomial)\n\n"
	      "  --min-entropy=H  declared min-entropy per sample, 0 < H <= 32\n"
	      "  --alpha=A        false-positive probability: 2^-N or a number (default 2^-30)\n"
	      "  --window=W       APT window (default 512; SP 800-90B uses 1024 for binary)\n"
	      "  --json           one JSON object\n"
	      "  -h, --help       this text\n", f);
}

/* "2^-30" -> 30; "1e-9" -> -log2(1e-9) */
static int parse_alpha(const char *s, double *a)
{
	char *e;
	if (!strncmp(s, "2^-", 3)) {
		*a = strtod(s + 3, &e);
		return e == s + 3 || *e || !(*a > 0) ? -1 : 0;
	}
	double v = strtod(s, &e);
	if (e == s || *e || !(v > 0) || !(v < 1))
		return -1;
	*a = -log2(v);
	return 0;
}

int ng_cmd_cutoffs(int argc, char **argv)
{
	static const struct option lo[] = {
		{"min-entropy", required_argument, NULL, 'H'},
		{"alpha", required_argument, NULL, 'a'},
		{"window", required_argument, NULL, 'w'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	double h = -1, a = 30;
	unsigned long w = 512;
	int json = 0, c;
	char *e;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'H':
			h = strtod(optarg, &e);
			if (e == optarg || *e || !(h > 0) || h > 32) {
				fprintf(stderr, "neug cutoffs: --min-entropy=%s: give a number in (0, 32]\n", optarg);
				return NG_EXIT_USAGE;
			}
			break;
		case 'a':
			if (parse_alpha(optarg, &a)) {
				fprintf(stderr, "neug cutoffs: --alpha=%s: give 2^-N or a probability in (0, 1)\n", optarg);
				return NG_EXIT_USAGE;
			}
			break;
		case 'w':
			w = strtoul(optarg, &e, 0);
			if (e == optarg || *e || w < 2 || w > (1u << 20)) {
				fprintf(stderr, "neug cutoffs: --window=%s: give 2..1048576\n", optarg);
				return NG_EXIT_USAGE;
			}
			break;
		case 'j': json = 1; break;
		case 'h': usage(stdout); return NG_EXIT_OK;
		default: usage(stderr); return NG_EXIT_USAGE;
		}
	}
	if (h < 0 || optind != argc) {
		fprintf(stderr, "neug cutoffs: give --min-entropy=H (and no other arguments)\n");
		usage(stderr);
		return NG_EXIT_USAGE;
	}
	uint32_t rct, apt;
	if (ng_cutoffs_compute(h, a, (uint32_t)w, &rct, &apt)) {
		fprintf(stderr, "neug cutoffs: arguments out of range\n");
		return NG_EXIT_USAGE;
	}
	if (json)
		printf("{\"min_entropy\": %.17g, \"alpha_log2\": %.17g, \"window\": %lu, \"rct_cutoff\": %u, \"apt_cutoff\": %u}\n",
		       h, -a, w, rct, apt);
	else {
		printf("min-entropy H = %g bits per sample, alpha = 2^-%g, APT window W = %lu\n", h, a, w);
		printf("repetition count test cutoff C = %u  (1 + ceil(%g / %g))\n", rct, a, h);
		printf("adaptive proportion test cutoff C = %u  (1 + CRITBINOM(%lu, 2^-%g, 1 - 2^-%g))\n", apt, w, h, a);
	}
	return NG_EXIT_OK;
}
