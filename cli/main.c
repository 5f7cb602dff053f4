/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug: the command-line front end. */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "ng/version.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
} cmds[] = {
	{"generate", ng_cmd_generate, "write health-tested random bytes"},
	{"info",     ng_cmd_info,     "show a NeuG device: identity, mode, health counters"},
	{"assess",   ng_cmd_assess,   "SP 800-90B min-entropy assessment of samples"},
	{"fips",     ng_cmd_fips,     "FIPS 140-2 statistical tests (like rngtest)"},
	{"cutoffs",  ng_cmd_cutoffs,  "health-test cutoffs for a declared min-entropy"},
	{"feed",     ng_cmd_feed,     "keep the kernel entropy pool topped up (daemon)"},
	{"egd",      ng_cmd_egd,      "serve the EGD protocol (QEMU rng-egd)"},
	{"emulate",  ng_cmd_emulate,  "the NeuG USB device over USB/IP"},
	{"keygen",   ng_cmd_keygen,   "an Ed25519 key pair for signing firmware images"},
	{"sign",     ng_cmd_sign,     "a firmware binary into a (signed) image and .dfu file"},
	{"upgrade",  ng_cmd_upgrade,  "put a firmware image onto a board over USB DFU"},
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: neug COMMAND [OPTIONS]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		fprintf(f, "  %-9s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\n'neug COMMAND --help' describes one command; see also neug(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("neug %s\n", NG_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "neug: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
