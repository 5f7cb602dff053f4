/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The metrics file: a device's or a daemon's state in the Prometheus text
 * exposition format (version 0.0.4), for node_exporter's textfile collector
 * (doc/system.md). One formatter for neug feed --metrics, neug egd --metrics
 * and neug info --prometheus.
 *
 * Every sample carries the labels program ("feed", "egd", "info") and source
 * (the source as given, e.g. "device:/dev/ttyACM0"), so that several files in
 * one collector directory never repeat a series. The families:
 *   neug_info{program,source,serial,mode} 1     identity
 *   neug_running                 1 while the daemon runs, 0 in its last write
 *   neug_device_present          1/0 (a jitter or file source: 1)
 *   neug_persistent_failure      1 once a persistent health failure latched
 *   neug_METRIC[_total]          each row of the counter table
 *                                (usb/neug_counters.h: its metric column;
 *                                _total for counters)
 *   neug_feed_bytes_written_total, neug_feed_entropy_credited_total (feed)
 *   neug_egd_bytes_served_total, neug_egd_clients_total,
 *   neug_egd_requests_total                                         (egd)
 *   neug_kernel_entropy_avail    bits, /proc/sys/kernel/random/entropy_avail
 *   neug_last_output_timestamp_seconds  unix time of the last output (0: none)
 *   neug_start_timestamp_seconds        unix time the daemon started */
#ifndef NG_METRICS_H
#define NG_METRICS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "info.h"
#include "ng/pipeline.h"

typedef struct {
	const char *program;         /* "feed", "egd", "info" */
	char source[256];            /* as given ("" means "jitter") */
	char serial[128];            /* the device's serial, "": none */
	uint32_t mode;               /* NG_MODE_* */
	ng_pipeline_stats st;
	const bool *have;            /* by GET_INFO index: the rows written; NULL: every row */
	bool daemon;                 /* feed, egd: running, start time, last output */
	bool running;
	bool present;                /* the device is there (always for jitter, file) */
	bool failed;                 /* a persistent health failure */
	long entropy_avail;          /* bits; < 0: not written */
	int64_t start_time, last_output; /* unix seconds; last_output 0: none yet */
	bool feed;                   /* the pool's figures */
	uint64_t bytes_written, bits_credited;
	bool egd;                    /* the server's figures */
	uint64_t bytes_served, clients, requests;
} ng_metrics;

/* From a generator: serial, mode, stats, present, failed (a persistent
 * failure latched in the stats, or the generator stopped with one). */
struct ng_gen;
void ng_metrics_from_gen(ng_metrics *m, const struct ng_gen *g);
/* From a device's GET_INFO answers (neug info): the rows it answered, its
 * serial and mode, failed when a persistent failure latched; source
 * "device:TTY"; program "info"; the kernel's entropy_avail. */
void ng_metrics_from_info(ng_metrics *m, const ng_info *inf);
/* Writes the exposition to f. */
void ng_metrics_print(const ng_metrics *m, FILE *f);
/* Writes it as path, atomically (host/base/file.c: a temporary file, fsync,
 * rename), mode 0644 whatever the umask (node_exporter runs as another
 * user). 0, or -1 with the reason in err; path is then unchanged. */
int ng_metrics_write(const char *path, const ng_metrics *m, char *err, size_t errlen);
/* The daemons' rewrite: ng_metrics_write, a failure logged as a warning
 * once until a write works again (*warned keeps that). 0 or -1. */
int ng_metrics_rewrite(const char *path, const ng_metrics *m, bool *warned);
/* The kernel's entropy_avail in bits, -1 when unreadable. The file is
 * /proc/sys/kernel/random/entropy_avail, or $NEUG_ENTROPY_AVAIL (tests). */
long ng_metrics_entropy_avail(void);

#endif
