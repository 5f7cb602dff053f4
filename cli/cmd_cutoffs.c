/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug cutoffs: the repetition count and adaptive proportion test cutoffs
 * for a declared min-entropy. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cliopt.h"
#include "commands.h"
#include "exit.h"
#include "cutoffs.h"

static void usage(FILE *f)
{
	fputs("Usage: neug cutoffs --min-entropy=H [--alpha=2^-30] [--window=512] [--json]\n"
	      "SP 800-90B health-test cutoffs for H bits of min-entropy per sample:\n"
	      "  RCT (4.4.1): C = 1 + ceil(-log2(alpha) / H)\n"
	      "  APT (4.4.2): C = 1 + CRITBINOM(W, 2^-H, 1 - alpha) (exact binomial)\n\n"
	      "  --min-entropy=H  declared min-entropy per sample, 0 < H <= 32, and at least\n"
	      "                   -log2(alpha) / 4294967294 so that the RCT cutoff fits in\n"
	      "                   32 bits (about 6.985e-9 for alpha = 2^-30)\n"
	      "  --alpha=A        false-positive probability: 2^-N or a number (default 2^-30)\n"
	      "  --window=W       APT window (default 512; SP 800-90B uses 1024 for binary)\n"
	      "  --json           one JSON object\n"
	      "  -h, --help       this text\n", f);
}

/* "2^-30" -> 30; "1e-9" -> -log2(1e-9) */
static int parse_alpha(const char *s, double *a)
{
	if (!strncmp(s, "2^-", 3))
		return ng_cliopt_double(s + 3, 0, HUGE_VAL, NG_CLIOPT_OPEN_LO, a);
	double v;
	if (ng_cliopt_double(s, 0, 1, NG_CLIOPT_OPEN_LO | NG_CLIOPT_OPEN_HI, &v))
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
	unsigned long long w = 512;
	int json = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'H':
			if (ng_cliopt_double(optarg, 0, 32, NG_CLIOPT_OPEN_LO, &h)) {
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
			if (ng_cliopt_uint(optarg, 2, 1u << 20, &w)) {
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
	int r = ng_cutoffs_compute(h, a, (uint32_t)w, &rct, &apt);
	if (r == -2) {
		fprintf(stderr, "neug cutoffs: --min-entropy=%g is too small for alpha = 2^-%g: the repetition "
			"count cutoff 1 + ceil(%g / %g) does not fit in 32 bits; give H >= %.4g\n", h, a, a, h,
			ng_cutoffs_min_h(a) * (1 + 1e-12));
		return NG_EXIT_USAGE;
	}
	if (r != 0) {
		fprintf(stderr, "neug cutoffs: --alpha=2^-%g is out of range: give an exponent up to 1000 "
			"(a probability down to 2^-1000)\n", a);
		return NG_EXIT_USAGE;
	}
	if (json)
		printf("{\"min_entropy\": %.17g, \"alpha_log2\": %.17g, \"window\": %llu, \"rct_cutoff\": %u, \"apt_cutoff\": %u}\n",
		       h, -a, w, rct, apt);
	else {
		printf("min-entropy H = %g bits per sample, alpha = 2^-%g, APT window W = %llu\n", h, a, w);
		printf("repetition count test cutoff C = %u  (1 + ceil(%g / %g))\n", rct, a, h);
		printf("adaptive proportion test cutoff C = %u  (1 + CRITBINOM(%llu, 2^-%g, 1 - 2^-%g))\n", apt, w, h, a);
	}
	return NG_EXIT_OK;
}
