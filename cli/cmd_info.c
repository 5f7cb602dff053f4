/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug info: a NeuG device's identity, mode and every health counter. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "gen.h"
#include "info.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: neug info [TTY] [--json]\n"
		"Shows a NeuG device (USB 234b:0001): vendor, product, serial, revision and\n"
		"board strings, the current output mode, NeuG's CRC-level test counters and\n"
		"maxima (GET_INFO 0..7) and, on this project's firmware, the state of the\n"
		"SP 800-90B tests on the raw samples, the self-test, the clock source and the\n"
		"start-up estimate of each ADC (GET_INFO 16..39), in words.\n"
		"TTY: /dev/ttyACM0 or the like; default the first NeuG found.\n"
		"Uses control requests only: no interface is claimed, the tty stays usable.\n\n"
		"  --json   one JSON object instead of the text\n"
		"  --help\n"
		"Exit: 0 healthy (or transient failures only), 3 no device or I/O error,\n"
		"4 persistent health failure, 2 usage. See neug-info(1).\n");
}

int ng_cmd_info(int argc, char **argv)
{
	static const struct option lo[] = {{"json", 0, 0, 'j'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
	bool json = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'h')
			return usage(stdout), NG_EXIT_OK;
		else
			return usage(stderr), NG_EXIT_USAGE;
	}
	if (argc - optind > 1) {
		fprintf(stderr, "neug info: one TTY at most ('%s' is extra)\n", argv[optind + 1]);
		return NG_EXIT_USAGE;
	}
	const char *tty = optind < argc ? argv[optind] : NULL;
	ng_info inf;
	char err[400];
	if (ng_info_query(tty, &inf, err, sizeof err) != 0) {
		fprintf(stderr, "neug info: %s\n", err);
		return NG_EXIT_IO;
	}
	char h[300];
	int level = ng_info_health(&inf, h, sizeof h);
	if (json) {
		ng_info_print_json(&inf, stdout);
		putchar('\n');
	} else {
		ng_info_print(&inf, stdout);
	}
	if (fflush(stdout) != 0) {
		perror("neug info: stdout");
		return NG_EXIT_IO;
	}
	return level == 2 ? NG_EXIT_HEALTH : NG_EXIT_OK;
}
