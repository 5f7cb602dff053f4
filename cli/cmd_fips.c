/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug fips FILE|-: FIPS 140-2 tests on 20,000-bit blocks, counted like
 * rngtest (rng-tools5). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "exit.h"
#include "fips.h"

static void usage(FILE *f)
{
	fputs("Usage: neug fips [--json] FILE|-\n"
	      "FIPS 140-2 (2001-10-10) monobit, poker, runs and long-run tests and the\n"
	      "continuous run test on consecutive 20,000-bit blocks, counted as rngtest\n"
	      "counts them (the first 32 bits prime the continuous run test; a trailing\n"
	      "partial block is not tested). Exit status 0 if every block passed, 1 if\n"
	      "any block failed or no block was tested, 2 on a usage error, 3 when FILE\n"
	      "is missing, unreadable or empty.\n\n"
	      "  --json      one JSON object on stdout\n"
	      "  -h, --help  this text\n", f);
}

int ng_cmd_fips(int argc, char **argv)
{
	static const struct option lo[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'h') {
			usage(stdout);
			return NG_EXIT_OK;
		} else {
			usage(stderr);
			return NG_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "neug fips: give one FILE (or - for standard input)\n");
		usage(stderr);
		return NG_EXIT_USAGE;
	}
	const char *path = argv[optind];
	int fd = strcmp(path, "-") ? open(path, O_RDONLY) : 0;
	if (fd < 0) {
		fprintf(stderr, "neug fips: cannot open '%s': %s\n", path, strerror(errno));
		return NG_EXIT_IO;
	}
	ng_fips_ctx *ctx = malloc(sizeof *ctx);
	size_t bsz = 1 << 20;
	uint8_t *buf = malloc(bsz);
	if (!ctx || !buf) {
		fprintf(stderr, "neug fips: out of memory\n");
		free(ctx); free(buf);
		if (fd)
			close(fd);
		return NG_EXIT_IO;
	}
	ng_fips_init(ctx);
	for (;;) {
		ssize_t r = read(fd, buf, bsz);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "neug fips: cannot read '%s': %s\n", path, strerror(errno));
			free(ctx); free(buf);
			if (fd)
				close(fd);
			return NG_EXIT_IO;
		}
		if (r == 0)
			break;
		ng_fips_update(ctx, buf, (size_t)r);
	}
	if (fd)
		close(fd);
	free(buf);
	if (ctx->bits == 0) {
		fprintf(stderr, "neug fips: '%s' is empty: no bits to test\n", path);
		free(ctx);
		return NG_EXIT_IO;
	}
	if (ctx->bits < 32) {
		/* like rngtest: nothing to report */
		fprintf(stderr, "neug fips: '%s': only %llu bits, fewer than the 32 that prime the "
			"continuous run test\n", path, (unsigned long long)ctx->bits);
		free(ctx);
		return NG_EXIT_FAIL;
	}
	if (ctx->ok + ctx->failed == 0)
		fprintf(stderr, "neug fips: '%s': no whole 20000-bit block after the first 32 bits\n", path);
	if (json) {
		printf("{\"bits\": %llu, \"blocks\": %llu, \"successes\": %llu, \"failures\": %llu",
		       (unsigned long long)ctx->bits, (unsigned long long)(ctx->ok + ctx->failed),
		       (unsigned long long)ctx->ok, (unsigned long long)ctx->failed);
		static const char *const key[NG_FIPS_TESTS] = {"monobit", "poker", "runs", "long_run", "continuous_run"};
		for (int t = 0; t < NG_FIPS_TESTS; t++)
			printf(", \"%s\": %llu", key[t], (unsigned long long)ctx->fail[t]);
		printf("}\n");
	} else {
		printf("neug fips: bits received from input: %llu\n", (unsigned long long)ctx->bits);
		printf("neug fips: FIPS 140-2 successes: %llu\n", (unsigned long long)ctx->ok);
		printf("neug fips: FIPS 140-2 failures: %llu\n", (unsigned long long)ctx->failed);
		for (int t = 0; t < NG_FIPS_TESTS; t++)
			printf("neug fips: FIPS 140-2(2001-10-10) %s: %llu\n", ng_fips_name[t],
			       (unsigned long long)ctx->fail[t]);
	}
	int rc = ctx->failed || ctx->ok == 0 ? NG_EXIT_FAIL : NG_EXIT_OK;
	free(ctx);
	return rc;
}
