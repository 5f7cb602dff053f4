/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The counter table (usb/neug_counters.h) with its names and labels, for the
 * host tools: decoding GET_INFO, JSON, summaries and metrics. */
#ifndef NG_HOST_COUNTERS_H
#define NG_HOST_COUNTERS_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "neug_counters.h"

typedef struct {
	const char *name;  /* the ng_pipeline_stats field and JSON key */
	const char *metric; /* the Prometheus metric is neug_METRIC (_total for a counter) */
	const char *label; /* in words */
	uint8_t info;      /* GET_INFO index */
	uint8_t width;     /* bytes on the wire */
	uint8_t size;      /* bytes of the field */
	uint8_t who;       /* NG_CTR_P, _D or _A */
	uint8_t kind;      /* NG_CTR_C (counter), _G (gauge), _E (enumeration), _M (thousandths) */
	uint16_t offset;   /* in ng_pipeline_stats */
} ng_counter;

extern const ng_counter ng_counters[];
extern const size_t ng_counters_n;

/* The row of a GET_INFO index, NULL for none. */
const ng_counter *ng_counter_by_info(unsigned index);
/* The row of a field name, NULL for none. */
const ng_counter *ng_counter_by_name(const char *name);
static inline uint64_t ng_counter_get(const ng_counter *c, const ng_pipeline_stats *st)
{
	return ng_counter_read(st, c->offset, c->size);
}
static inline void ng_counter_set(const ng_counter *c, ng_pipeline_stats *st, uint64_t v)
{
	ng_counter_write(st, c->offset, c->size, v);
}
/* Writes "name":value pairs, comma-separated (sep between key and value:
 * ":" or ": "), of the rows for which want(row, user) is true (NULL: all). */
void ng_counters_json(FILE *f, const ng_pipeline_stats *st, const char *sep,
		      bool (*want)(const ng_counter *c, void *user), void *user);

#endif
