/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Linked into build/static/neug ahead of libneug.a: replaces the commands that
 * need libusb (no static libudev on Debian), so the static binary carries no
 * libusb. Everything else is the same code as build/neug. */
#include <stdio.h>
#include "commands.h"

int ng_cmd_info(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "neug info: not available in this static build (it needs libusb); use build/neug\n");
	return 2;
}
