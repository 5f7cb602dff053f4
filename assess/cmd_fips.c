/* SPDX-License-Identifier: GPL-3.0-or-later */
/* PLACEHOLDER: replaced by the real implementation. */
#include <stdio.h>
#include "commands.h"
int ng_cmd_fips(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "neug fips: not built yet\n");
	return 2;
}
