/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug upgrade IMAGE [DEVICE]: a new firmware image onto a board over USB
 * DFU 1.1, confirmed by the board itself once it runs it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cliopt.h"
#include "commands.h"
#include "exit.h"
#include "upgrade.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: neug upgrade IMAGE [DEVICE] [--timeout=SECONDS] [--quiet] [--allow-downgrade]\n"
		"Puts the firmware image IMAGE (neug.img, or neug.dfu: the same with a DFU\n"
		"suffix; `make firmware` writes both) onto a NeuG board over USB DFU 1.1:\n"
		"  1. checks the image (its trailer: length, SHA-256, the DFU suffix's CRC)\n"
		"     and that the board's loader would take it: its board name, the load\n"
		"     address, signed by the board's owner key if it holds one, and not below\n"
		"     its version floor (the newest version it has started); nothing is sent,\n"
		"     nothing erased if not;\n"
		"  2. finds the board, running its application or already in DFU mode, and\n"
		"     asks the application to restart in DFU mode (DFU_DETACH);\n"
		"  3. downloads the image with a progress bar (plain lines when stdout is not\n"
		"     a terminal); the board's boot loader checks it (length, SHA-256 and,\n"
		"     if the board holds an owner key, the signature) and refuses a bad one;\n"
		"  4. restarts the board and checks that it comes back running the image:\n"
		"     the version and the SHA-256 its loader computed at boot.\n"
		"DEVICE: the board's tty (/dev/ttyACM0) or serial number; default the only\n"
		"NeuG board plugged in. A board left in DFU mode (an update broke off, or it\n"
		"refused an image) is found the same way: run the command again.\n\n"
		"  --timeout=SECONDS  how long the board may take to come back (default 30)\n"
		"  --quiet            no steps and no progress, only errors\n"
		"  --allow-downgrade  send an image below the board's version floor; its\n"
		"                     trailer must allow it (neug sign --allow-downgrade, signed\n"
		"                     by the owner on a board with an owner key)\n"
		"  --help\n"
		"Exit: 0 done and confirmed; 2 usage; 3 no board, or cannot talk to it;\n"
		"5 the image was refused before anything was sent (not an image, damaged,\n"
		"not for this board, its key or its version floor: the message names the\n"
		"field); 6 the update failed on the way (the board is in DFU\n"
		"mode: run the command again); 7 the board did not come back running the\n"
		"image. See neug-upgrade(1).\n");
}

int ng_cmd_upgrade(int argc, char **argv)
{
	static const struct option lo[] = {{"timeout", 1, 0, 't'}, {"quiet", 0, 0, 'q'},
					   {"allow-downgrade", 0, 0, 'd'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
	ng_board_opts o = {.out = stdout};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hq", lo, NULL)) != -1) {
		if (c == 't') {
			unsigned long long v;
			if (ng_cliopt_uint(optarg, 1, 3600, &v) < 0) {
				fprintf(stderr, "neug upgrade: --timeout=%s: want whole seconds, 1 to 3600\n", optarg);
				return NG_EXIT_USAGE;
			}
			o.timeout_ms = (unsigned)v * 1000u;
		} else if (c == 'q') {
			o.out = NULL;
		} else if (c == 'd') {
			o.allow_downgrade = true;
		} else if (c == 'h') {
			return usage(stdout), NG_EXIT_OK;
		} else {
			return usage(stderr), NG_EXIT_USAGE;
		}
	}
	if (argc - optind < 1) {
		fprintf(stderr, "neug upgrade: which image? (neug upgrade IMAGE [DEVICE])\n");
		return NG_EXIT_USAGE;
	}
	if (argc - optind > 2) {
		fprintf(stderr, "neug upgrade: one image and one device at most ('%s' is extra)\n", argv[optind + 2]);
		return NG_EXIT_USAGE;
	}
	o.device = argc - optind > 1 ? argv[optind + 1] : NULL;
	o.tty = o.out && isatty(fileno(stdout));
	ng_update_image img;
	char err[600];
	int r = ng_update_image_load(argv[optind], &img, err, sizeof err);
	if (r != NG_EXIT_OK) {
		fprintf(stderr, "neug upgrade: %s\n", err);
		return r;
	}
	r = ng_board_upgrade(&o, &img, NULL, err, sizeof err);
	ng_update_image_free(&img);
	if (r != NG_EXIT_OK)
		fprintf(stderr, "neug upgrade: %s\n", err);
	return r;
}
