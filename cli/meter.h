/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A progress line on stderr for long runs (neug generate): bytes, rate and
 * time left, at most once a second. On a terminal the line is rewritten in
 * place (carriage return) and erased at the end; forced elsewhere
 * (--progress), one line per update. */
#ifndef NG_METER_H
#define NG_METER_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
	FILE *f;
	bool on, tty, shown;
	int len;        /* of the line on the terminal */
	uint64_t total;           /* UINT64_MAX: no end known */
	double t0, next;          /* monotonic seconds */
	const char *prefix;       /* "neug generate" */
} ng_meter;

/* force: 1 on, 0 off, -1 when f is a terminal. */
void ng_meter_init(ng_meter *p, FILE *f, int force, uint64_t total, const char *prefix);
/* done bytes so far: prints when a second has passed since the last line. */
void ng_meter_update(ng_meter *p, uint64_t done);
/* Erases the line on a terminal (before any other message). */
void ng_meter_end(ng_meter *p);
/* "1.50 MiB", "512 B": for the line, exported for the unit test. */
void ng_meter_bytes(char *buf, size_t len, double bytes);

#endif
