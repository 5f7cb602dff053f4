/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A generator: a source (jitter, file, device) plus the pipeline, giving
 * health-tested output bytes in one mode. Used by generate, feed, egd. */
#ifndef NG_GEN_H
#define NG_GEN_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "ng/pipeline.h"
#include "exit.h"
#include "source.h"


typedef struct {
	const char *source;  /* "jitter" (NULL = default), "file:PATH", "device", "device:TTY" */
	uint32_t mode;       /* NG_MODE_* */
	uint32_t uid[3];
	bool have_uid;       /* false: uid = 0,0,0 */
	uint32_t h_milli;    /* 0: the source's default */
} ng_gen_opts;

typedef struct ng_gen ng_gen;

/* On failure returns NULL, the message in err and the exit status in *exit_code:
 * NG_EXIT_USAGE (unknown source, bad h_milli), NG_EXIT_IO (missing file, jitter
 * refused to run, no device), NG_EXIT_HEALTH (self-test failure). */
ng_gen *ng_gen_open(const ng_gen_opts *o, char *err, size_t errlen, int *exit_code);
/* The same on a sample source the caller opened (tests: a source with an
 * injected failure); g owns src from now on, also when this fails. */
ng_gen *ng_gen_open_source(const ng_gen_opts *o, ng_source *src, char *err, size_t errlen, int *exit_code);
/* Reads up to len health-tested bytes. Returns the count (> 0), 0 at the end
 * of a file source, -1 on failure: see ng_gen_error and ng_gen_exit_code.
 * After a persistent health failure, in every mode, it returns -1 with
 * NG_EXIT_HEALTH and a message naming the test, the sample index, the value
 * and the counts; no block queued at that moment is returned, nor any after.
 * In raw mode (2) intermittent failures are only counted (see
 * ng_gen_get_stats): the samples are output as they are. */
long ng_gen_read(ng_gen *g, uint8_t *buf, size_t len);
const char *ng_gen_error(const ng_gen *g);
int ng_gen_exit_code(const ng_gen *g);
const char *ng_gen_source_desc(const ng_gen *g);
/* The sample source (NULL for a device, which tests its own samples). */
const ng_source *ng_gen_source(const ng_gen *g);
/* The declared min-entropy per raw sample the pipeline runs with (bits x 1000;
 * 0 for a device). */
uint32_t ng_gen_h_milli(const ng_gen *g);
void ng_gen_get_stats(const ng_gen *g, ng_pipeline_stats *st);
/* The output mode (NG_MODE_*). */
uint32_t ng_gen_mode(const ng_gen *g);
/* true when the source replays recorded samples (file:PATH): its output is
 * not entropy this machine gathered, and nothing that credits entropy (feed,
 * egd's entropy level) may credit it (DESIGN.md). Jitter and device sources
 * are credited at their declared min-entropy. */
bool ng_gen_replay(const ng_gen *g);
/* true when the source is a device (source=device[:TTY]). */
bool ng_gen_is_device(const ng_gen *g);
/* false for a device that did not identify itself through GET_INFO (why:
 * ng_gen_ident_error); true for the others. */
bool ng_gen_identified(const ng_gen *g);
const char *ng_gen_ident_error(const ng_gen *g);
/* What may be credited as entropy by default: not a replay, not an
 * unidentified device (DESIGN.md). */
bool ng_gen_creditable(const ng_gen *g);
/* A device source: true while the device is connected; the others: true. */
bool ng_gen_present(const ng_gen *g);
/* A device source: its serial number; the others (or unknown): "". */
const char *ng_gen_serial(const ng_gen *g);
/* A device source: asks the device's counters again (GET_INFO) so that
 * ng_gen_get_stats is current; the others: nothing to do. */
void ng_gen_refresh(ng_gen *g);
/* A device source: fn(user) is called every 250-500 ms while a read waits
 * for data or for the device to come back (device.h); it may call
 * ng_gen_present, ng_gen_serial and ng_gen_get_stats. Others: ignored. */
void ng_gen_set_wait(ng_gen *g, void (*fn)(void *user), void *user);
/* One JSON object, no trailing newline: source, mode, bytes (the caller's
 * count of bytes written), "counters" (every row of the counter table,
 * usb/neug_counters.h), the status bits' names, "status" ("ok", "failed",
 * "warning") and "reason". */
void ng_gen_stats_json(const ng_gen *g, uint64_t bytes, FILE *f);
void ng_gen_close(ng_gen *g);

#endif
