/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A NeuG device (real or emulated) as a generator backend: the device runs
 * its own pipeline and health tests, so the host reads finished bytes in the
 * requested mode. Used by host/gen.c for --source=device[:TTY]; implemented
 * in host/device.c (worktree `system`). */
#ifndef NG_DEVICE_H
#define NG_DEVICE_H
#include <stddef.h>
#include <stdint.h>
#include "ng/pipeline.h"

typedef struct ng_device_gen ng_device_gen;

/* Opens the device and selects the output mode (NG_MODE_*) with line coding.
 * tty: "/dev/ttyACM0" and the like, or NULL for the first NeuG device found.
 * On failure returns NULL, the message in err (naming the device and the
 * reason) and the exit status (NG_EXIT_IO, NG_EXIT_HEALTH) in *exit_code. */
ng_device_gen *ng_device_gen_open(const char *tty, uint32_t mode,
				  char *err, size_t errlen, int *exit_code);
/* Reads up to len bytes. Returns the count (> 0), or -1 on failure with
 * the reason from ng_device_gen_error and the exit status from
 * ng_device_gen_exit_code (a latched device health failure: NG_EXIT_HEALTH). */
long ng_device_gen_read(ng_device_gen *d, uint8_t *buf, size_t len);
const char *ng_device_gen_error(const ng_device_gen *d);
int ng_device_gen_exit_code(const ng_device_gen *d);
/* "device /dev/ttyACM0 (NeuG 1.0, serial ...)", for messages and summaries. */
const char *ng_device_gen_desc(const ng_device_gen *d);
/* What the device reports (GET_INFO), mapped onto the pipeline's stats;
 * fields the device does not report are 0. */
void ng_device_gen_get_stats(const ng_device_gen *d, ng_pipeline_stats *st);
void ng_device_gen_close(ng_device_gen *d);

#endif
