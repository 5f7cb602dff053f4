/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug info: a NeuG device's identity, mode and every health counter. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include "commands.h"
#include "gen.h"
#include "info.h"
#include "metrics.h"
#include "ng/sha256.h"
#include "upgrade.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: neug info [TTY] [--json | --prometheus]\n"
		"       neug info --verify=IMAGE [DEVICE]\n"
		"Shows a NeuG device (USB 234b:0001): vendor, product, serial, revision and\n"
		"board strings, the current output mode, NeuG's CRC-level test counters and\n"
		"maxima (GET_INFO 0..7) and, on this project's firmware, the state of the\n"
		"SP 800-90B tests on the raw samples, the self-test, the clock source and the\n"
		"start-up estimate of each ADC (GET_INFO 16..39), in words.\n"
		"TTY: /dev/ttyACM0 or the like; default the first NeuG found.\n"
		"Uses control requests only: no interface is claimed, the tty stays usable.\n\n"
		"On a board with this project's boot loader it also shows the loader's\n"
		"version, the SHA-256 of the running image as the loader computed it at\n"
		"boot, and whether the image is signed, by which key (its fingerprint).\n\n"
		"  --json   one JSON object instead of the text\n"
		"  --prometheus  the Prometheus text format instead (the counters the device\n"
		"           answered, its serial and mode; the format of feed's metrics file)\n"
		"  --verify=IMAGE  asks the board's loader for SHA-256(nonce || image) with a\n"
		"           fresh random nonce and compares it with the same computed here\n"
		"           from IMAGE (neug.img or neug.dfu): does the board hold exactly\n"
		"           this image? The board restarts into DFU mode for the question\n"
		"           and back into its application. DEVICE: a tty or serial number.\n"
		"  --help\n"
		"Exit: 0 healthy (or transient failures only), 3 no device or I/O error,\n"
		"4 persistent health failure, 2 usage. With --verify: 0 the board holds\n"
		"IMAGE, 1 it holds something else, 3 the board could not be asked,\n"
		"5 IMAGE is not a valid image. See neug-info(1).\n");
}

/* --verify: the board's answer to a fresh nonce against the image's. */
static int verify(const char *path, const char *device)
{
	ng_update_image img;
	char err[600], hx[65];
	int r = ng_update_image_load(path, &img, err, sizeof err);
	if (r != NG_EXIT_OK) {
		fprintf(stderr, "neug info: %s\n", err);
		return r;
	}
	uint8_t nonce[NG_DFU_NONCE_LEN], answer[32], want[32];
	if (getrandom(nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce) {
		perror("neug info: getrandom");
		ng_update_image_free(&img);
		return NG_EXIT_IO;
	}
	ng_sha256_ctx c;
	ng_sha256_init(&c);
	ng_sha256_update(&c, nonce, sizeof nonce);
	ng_sha256_update(&c, img.data, img.len);
	ng_sha256_final(&c, want);
	ng_board b;
	ng_board_opts o = {.device = device, .out = stderr};
	r = ng_board_challenge(&o, nonce, answer, &b, err, sizeof err);
	ng_hex(hx, nonce, sizeof nonce);
	if (r != NG_EXIT_OK) {
		printf("verify: cannot ask the board: %s\n", err);
		ng_update_image_free(&img);
		return NG_EXIT_IO;
	}
	printf("nonce         %s\n", hx);
	ng_hex(hx, answer, 32);
	printf("board answers %s\n", hx);
	ng_hex(hx, want, 32);
	printf("%-13s %s\n", path, hx);
	ng_update_image_free(&img);
	if (memcmp(answer, want, 32) == 0) {
		printf("verify: match: the board holds exactly %s (%s)\n", path, img.info.version_str);
		return NG_EXIT_OK;
	}
	printf("verify: MISMATCH: the board holds another image than %s\n", path);
	return NG_EXIT_FAIL;
}

int ng_cmd_info(int argc, char **argv)
{
	static const struct option lo[] = {{"json", 0, 0, 'j'}, {"prometheus", 0, 0, 'P'}, {"verify", 1, 0, 'V'}, {"help", 0, 0, 'h'},
					   {0, 0, 0, 0}};
	bool json = false, prom = false;
	const char *image = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'P')
			prom = true;
		else if (c == 'V')
			image = optarg;
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
	if (json && prom) {
		fprintf(stderr, "neug info: --json and --prometheus do not go together: choose one\n");
		return NG_EXIT_USAGE;
	}
	if (image) {
		if (json || prom) {
			fprintf(stderr, "neug info: --verify and --%s do not go together\n", json ? "json" : "prometheus");
			return NG_EXIT_USAGE;
		}
		return verify(image, tty);
	}
	ng_info inf;
	char err[400];
	if (ng_info_query(tty, &inf, err, sizeof err) != 0) {
		fprintf(stderr, "neug info: %s\n", err);
		return NG_EXIT_IO;
	}
	char h[300];
	int level = ng_info_health(&inf, h, sizeof h);
	if (prom) {
		ng_metrics m;
		ng_metrics_from_info(&m, &inf);
		ng_metrics_print(&m, stdout);
	} else if (json) {
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
