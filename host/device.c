/* SPDX-License-Identifier: GPL-3.0-or-later */
/* MINIMAL VERSION: the device backend of host/device.h is not written yet
 * (worktree `system` replaces this file). Opening always fails cleanly. */
#include <stdio.h>
#include <string.h>
#include "device.h"
#include "gen.h"

struct ng_device_gen {
	int unused;
};

ng_device_gen *ng_device_gen_open(const char *tty, uint32_t mode,
				  char *err, size_t errlen, int *exit_code)
{
	(void)mode;
	snprintf(err, errlen, "%s%s: device source not available yet",
		 tty ? "device " : "device", tty ? tty : "");
	*exit_code = NG_EXIT_IO;
	return NULL;
}

long ng_device_gen_read(ng_device_gen *d, uint8_t *buf, size_t len)
{
	(void)d; (void)buf; (void)len;
	return -1;
}

const char *ng_device_gen_error(const ng_device_gen *d)
{
	(void)d;
	return "device source not available yet";
}

int ng_device_gen_exit_code(const ng_device_gen *d)
{
	(void)d;
	return NG_EXIT_IO;
}

const char *ng_device_gen_desc(const ng_device_gen *d)
{
	(void)d;
	return "device";
}

void ng_device_gen_get_stats(const ng_device_gen *d, ng_pipeline_stats *st)
{
	(void)d;
	memset(st, 0, sizeof *st);
}

void ng_device_gen_close(ng_device_gen *d)
{
	(void)d;
}
