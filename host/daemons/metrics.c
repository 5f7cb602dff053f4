/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "metrics.h"
#include "log.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "counters.h"
#include "outfile.h"
#include "gen.h"
#include "info.h"

/* A label value: backslash, double quote and newline escaped. */
static void label_value(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* The labels every sample carries, without the closing brace. */
static void labels_open(FILE *f, const ng_metrics *m)
{
	fputs("{program=", f);
	label_value(f, m->program);
	fputs(",source=", f);
	label_value(f, *m->source ? m->source : "jitter");
}

/* HELP text: backslash and newline escaped. */
static void family(FILE *f, const char *name, const char *suffix, const char *type, const char *help)
{
	fprintf(f, "# HELP %s%s ", name, suffix);
	for (const char *s = help; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fprintf(f, "\n# TYPE %s%s %s\n", name, suffix, type);
}

static void sample(FILE *f, const ng_metrics *m, const char *name, bool counter, const char *help,
		   uint64_t v)
{
	family(f, name, counter ? "_total" : "", counter ? "counter" : "gauge", help);
	fprintf(f, "%s%s", name, counter ? "_total" : "");
	labels_open(f, m);
	fprintf(f, "} %" PRIu64 "\n", v);
}

/* The states of the enumerations of the counter table (kind E): the label
 * and its value for each state, by the field's value. */
static const struct {
	const char *field, *label;
	const char *states[4];
} enums[] = {
	{"mode", "mode", {"conditioned", "crc32", "raw", NULL}},
	{"fail_test", "test", {"none", "rct", "apt", NULL}},
	{"fail_stream", "stream", {"words", "adc1", "adc2", NULL}},
	{"selftest", "result", {"passed", "failed", "estimate_refused", NULL}},
	{"clock", "clock", {"unknown", "hse", "hsi_fallback", "pll_failed"}},
};

/* An enumeration: one sample per state, 1 for the present one; a value
 * without a name is a state of its own, named by its number. */
static void enum_sample(FILE *f, const ng_metrics *m, const char *name, const ng_counter *c, uint64_t v)
{
	const char *label = "state";
	const char *const *states = NULL;
	size_t n = 0;
	for (size_t i = 0; i < sizeof enums / sizeof enums[0]; i++)
		if (!strcmp(enums[i].field, c->name)) {
			label = enums[i].label;
			states = enums[i].states;
			n = sizeof enums[i].states / sizeof enums[i].states[0];
		}
	family(f, name, "", "gauge", c->label);
	bool named = false;
	for (size_t i = 0; i < n && states[i]; i++) {
		fputs(name, f);
		labels_open(f, m);
		fprintf(f, ",%s=", label);
		label_value(f, states[i]);
		fprintf(f, "} %d\n", v == i);
		named |= v == i;
	}
	if (!named) {
		char num[24];
		snprintf(num, sizeof num, "%" PRIu64, v);
		fputs(name, f);
		labels_open(f, m);
		fprintf(f, ",%s=", label);
		label_value(f, num);
		fputs("} 1\n", f);
	}
}

void ng_metrics_from_gen(ng_metrics *m, const ng_gen *g)
{
	snprintf(m->serial, sizeof m->serial, "%s", ng_gen_serial(g));
	m->mode = ng_gen_mode(g);
	ng_gen_get_stats(g, &m->st);
	m->present = ng_gen_present(g);
	m->failed = (m->st.status & NG_HEALTH_PERSISTENT) || ng_gen_exit_code(g) == NG_EXIT_HEALTH;
}

void ng_metrics_from_info(ng_metrics *m, const ng_info *inf)
{
	char h[300];
	memset(m, 0, sizeof *m);
	m->program = "info";
	snprintf(m->source, sizeof m->source, "device%s%.200s", inf->tty[0] ? ":" : "", inf->tty);
	snprintf(m->serial, sizeof m->serial, "%s", inf->serial);
	m->mode = inf->st.mode;
	m->st = inf->st;
	m->have = inf->have;
	m->present = true;
	m->failed = ng_info_health(inf, h, sizeof h) == 2;
	m->entropy_avail = ng_metrics_entropy_avail();
}

void ng_metrics_print(const ng_metrics *m, FILE *f)
{
	family(f, "neug_info", "", "gauge", "NeuG source identity: serial and output mode (always 1)");
	fputs("neug_info", f);
	labels_open(f, m);
	fputs(",serial=", f);
	label_value(f, m->serial);
	fputs(",mode=", f);
	label_value(f, ng_info_mode_name(m->mode));
	fputs("} 1\n", f);
	if (m->daemon)
		sample(f, m, "neug_running", false, "1 while the daemon runs, 0 in its last write at exit",
		       m->running);
	sample(f, m, "neug_device_present", false,
	       "1 while the NeuG device is connected (always 1 for a jitter or file source)", m->present);
	sample(f, m, "neug_persistent_failure", false,
	       "1 once a persistent health failure latched (output stopped)", m->failed);
	for (size_t i = 0; i < ng_counters_n; i++) {
		const ng_counter *c = &ng_counters[i];
		if (m->have && !m->have[c->info])
			continue;
		char name[64];
		snprintf(name, sizeof name, "neug_%s", c->metric);
		uint64_t v = ng_counter_get(c, &m->st);
		if (c->kind == NG_CTR_E) {
			enum_sample(f, m, name, c, v);
		} else if (c->kind == NG_CTR_M) {
			family(f, name, "", "gauge", c->label);
			fputs(name, f);
			labels_open(f, m);
			fprintf(f, "} %" PRIu64 ".%03u\n", v / 1000, (unsigned)(v % 1000));
		} else {
			sample(f, m, name, c->kind == NG_CTR_C, c->label, v);
		}
	}
	if (m->feed) {
		sample(f, m, "neug_feed_written_bytes", true, "bytes written to the kernel pool",
		       m->bytes_written);
		sample(f, m, "neug_feed_entropy_credited_bits", true, "entropy credited to the kernel pool (bits)",
		       m->bits_credited);
	}
	if (m->egd) {
		sample(f, m, "neug_egd_served_bytes", true, "bytes served to EGD clients", m->bytes_served);
		sample(f, m, "neug_egd_clients", true, "EGD connections accepted", m->clients);
		sample(f, m, "neug_egd_requests", true, "EGD requests answered", m->requests);
	}
	if (m->entropy_avail >= 0)
		sample(f, m, "neug_kernel_entropy_avail_bits", false,
		       "the kernel's entropy count in bits (/proc/sys/kernel/random/entropy_avail)",
		       (uint64_t)m->entropy_avail);
	if (m->daemon) {
		sample(f, m, "neug_last_output_timestamp_seconds", false,
		       "unix time of the last output (0: none yet)",
		       m->last_output > 0 ? (uint64_t)m->last_output : 0);
		sample(f, m, "neug_start_timestamp_seconds", false, "unix time the daemon started",
		       m->start_time > 0 ? (uint64_t)m->start_time : 0);
	}
}

int ng_metrics_write(const char *path, const ng_metrics *m, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		snprintf(err, errlen, "metrics '%s': out of memory", path);
		return -1;
	}
	ng_metrics_print(m, f);
	if (fclose(f) != 0) {
		free(buf);
		snprintf(err, errlen, "metrics '%s': out of memory", path);
		return -1;
	}
	/* Readable by node_exporter's user: the umask (a unit's UMask=0077)
	 * must not take it away. Feed and egd create no other file meanwhile. */
	mode_t old = umask(022);
	int r = ng_file_write(path, buf, len, 0644, NG_OUT_NOFIFO, err, errlen);
	umask(old);
	free(buf);
	return r;
}

long ng_metrics_entropy_avail(void)
{
	const char *path = getenv("NEUG_ENTROPY_AVAIL");
	FILE *f = fopen(path && *path ? path : "/proc/sys/kernel/random/entropy_avail", "r");
	long v = -1;
	if (f) {
		if (fscanf(f, "%ld", &v) != 1 || v < 0)
			v = -1;
		fclose(f);
	}
	return v;
}

int ng_metrics_rewrite(const char *path, const ng_metrics *m, bool *warned)
{
	char err[600];
	if (ng_metrics_write(path, m, err, sizeof err) != 0) {
		if (!*warned)
			ng_log(LOG_WARNING, "%s", err);
		*warned = true;
		return -1;
	}
	*warned = false;
	return 0;
}
