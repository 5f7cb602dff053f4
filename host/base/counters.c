/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "counters.h"
#include <inttypes.h>
#include <string.h>

const ng_counter ng_counters[] = {
#define X(f, i, w, who, k, metric, label) \
	{#f, metric[0] ? metric : #f, label, i, w, NG_COUNTER_SIZE(f), NG_CTR_##who, NG_CTR_##k, offsetof(ng_pipeline_stats, f)},
	NG_COUNTERS(X)
#undef X
};
const size_t ng_counters_n = sizeof ng_counters / sizeof ng_counters[0];

const ng_counter *ng_counter_by_info(unsigned index)
{
	for (size_t i = 0; i < ng_counters_n; i++)
		if (ng_counters[i].info == index)
			return &ng_counters[i];
	return NULL;
}

const ng_counter *ng_counter_by_name(const char *name)
{
	for (size_t i = 0; i < ng_counters_n; i++)
		if (!strcmp(ng_counters[i].name, name))
			return &ng_counters[i];
	return NULL;
}

void ng_counters_json(FILE *f, const ng_pipeline_stats *st, const char *sep,
		      bool (*want)(const ng_counter *c, void *user), void *user)
{
	const char *comma = "";
	for (size_t i = 0; i < ng_counters_n; i++) {
		const ng_counter *c = &ng_counters[i];
		if (want && !want(c, user))
			continue;
		fprintf(f, "%s\"%s\"%s%" PRIu64, comma, c->name, sep, ng_counter_get(c, st));
		comma = *sep == ':' && sep[1] ? ", " : ",";
	}
}
