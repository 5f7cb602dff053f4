/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The generator: a sample source and the pipeline, or a NeuG device (which
 * runs the pipeline itself), giving health-tested bytes. See gen.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counters.h"
#include "device.h"
#include "gen.h"
#include "json.h"

#define NG_GEN_CHUNK 4096u   /* samples read from the source at a time */
#define NG_GEN_PIECE 8u      /* samples per put: at most one block completes */

struct ng_gen {
	ng_source *src;          /* NULL for a device */
	ng_device_gen *dev;
	ng_pipeline *pipe;
	uint32_t mode, h_milli;
	/* Released blocks of the current chunk: raw mode gives at most 4 bytes
	 * per sample, plus one block completed by earlier samples. */
	uint8_t obuf[NG_GEN_CHUNK * 4 + NG_BLOCK_BYTES];
	size_t out_off, out_len;
	uint32_t sbuf[NG_GEN_CHUNK];
	uint64_t fed;            /* samples fed to the pipeline so far */
	uint64_t bytes_out;      /* bytes returned by ng_gen_read */
	int eof, failed, exit_code;
	char err[768];
};

static void set_err(char *err, size_t errlen, int *exit_code, int code, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	*exit_code = code;
}

static ng_gen *gen_start(ng_gen *g, const ng_gen_opts *o, char *err, size_t errlen, int *exit_code);

ng_gen *ng_gen_open(const ng_gen_opts *o, char *err, size_t errlen, int *exit_code)
{
	const char *spec = o->source ? o->source : "jitter";
	ng_gen *g = calloc(1, sizeof *g);
	if (!g) {
		set_err(err, errlen, exit_code, NG_EXIT_IO, "out of memory");
		return NULL;
	}
	g->mode = o->mode;
	if (o->mode > NG_MODE_RAW) {
		snprintf(err, errlen, "unknown mode %u (accepted: 0 conditioned, 1 crc32, 2 raw)", o->mode);
		*exit_code = NG_EXIT_USAGE;
		free(g);
		return NULL;
	}
	if (!strcmp(spec, "device") || !strncmp(spec, "device:", 7)) {
		const char *tty = spec[6] == ':' ? spec + 7 : NULL;
		if (tty && !*tty)
			tty = NULL;
		g->dev = ng_device_gen_open(tty, o->mode, err, errlen, exit_code);
		if (!g->dev) {
			free(g);
			return NULL;
		}
		return g;
	}
	if (!ng_source_spec_known(spec)) {
		snprintf(err, errlen, "unknown source '%s' (accepted: jitter, file:PATH, device, device:TTY)", spec);
		*exit_code = NG_EXIT_USAGE;
		free(g);
		return NULL;
	}
	if (o->h_milli && (o->h_milli < NG_MIN_H_MILLI || o->h_milli > NG_MAX_H_MILLI)) {
		snprintf(err, errlen, "declared min-entropy %.3f bits/sample is out of range (%.1f to %.1f)",
			 o->h_milli / 1000.0, NG_MIN_H_MILLI / 1000.0, NG_MAX_H_MILLI / 1000.0);
		*exit_code = NG_EXIT_USAGE;
		free(g);
		return NULL;
	}
	g->src = ng_source_open_h(spec, o->h_milli, err, errlen);
	if (!g->src) {
		*exit_code = NG_EXIT_IO;
		free(g);
		return NULL;
	}
	return gen_start(g, o, err, errlen, exit_code);
}

ng_gen *ng_gen_open_source(const ng_gen_opts *o, ng_source *src, char *err, size_t errlen, int *exit_code)
{
	ng_gen *g = calloc(1, sizeof *g);
	if (!g || o->mode > NG_MODE_RAW) {
		set_err(err, errlen, exit_code, g ? NG_EXIT_USAGE : NG_EXIT_IO, g ? "unknown mode" : "out of memory");
		free(g);
		ng_source_close(src);
		return NULL;
	}
	g->mode = o->mode;
	g->src = src;
	return gen_start(g, o, err, errlen, exit_code);
}

/* The pipeline on g->src (which g owns from now on). */
static ng_gen *gen_start(ng_gen *g, const ng_gen_opts *o, char *err, size_t errlen, int *exit_code)
{
	g->h_milli = g->src->h_milli;
	g->pipe = malloc(sizeof *g->pipe);
	if (!g->pipe) {
		set_err(err, errlen, exit_code, NG_EXIT_IO, "out of memory");
		ng_gen_close(g);
		return NULL;
	}
	ng_pipeline_config cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.mode = o->mode;
	if (o->have_uid)
		memcpy(cfg.uid, o->uid, sizeof cfg.uid);
	ng_status st = ng_pipeline_config_h(&cfg, g->h_milli, g->src->adc_h_milli);
	if (st == NG_OK)
		st = ng_pipeline_init(g->pipe, &cfg);
	if (st != NG_OK) {
		if (st == NG_ERR_SELFTEST)
			set_err(err, errlen, exit_code, NG_EXIT_HEALTH,
				"pipeline self-test (known-answer test) failed: refusing to run");
		else {
			snprintf(err, errlen, "the pipeline rejected its configuration (mode %u, "
				 "min-entropy %.3f bits/sample): status %d", o->mode, g->h_milli / 1000.0, (int)st);
			*exit_code = NG_EXIT_USAGE;
		}
		ng_gen_close(g);
		return NULL;
	}
	return g;
}

/* The message for a latched failure, from the pipeline's record of it. */
static void health_message(ng_gen *g, uint64_t base, size_t n)
{
	ng_pipeline_stats st;
	ng_pipeline_get_stats(g->pipe, &st);
	/* A half-word stream's failure names that ADC, its half-word and its
	 * own cutoffs: the word may still vary while one ADC is dead. */
	bool adc = st.fail_stream == NG_STREAM_ADC1 || st.fail_stream == NG_STREAM_ADC2;
	uint32_t rct_cutoff = adc ? st.adc_rct_cutoff : st.rct_cutoff;
	uint32_t apt_cutoff = adc ? st.adc_apt_cutoff : st.apt_cutoff;
	char value[96] = "a sample";
	if (st.fail_index >= base && st.fail_index < base + n) {
		uint32_t w = g->sbuf[st.fail_index - base];
		if (adc)
			snprintf(value, sizeof value, "%s's half-word 0x%04" PRIx32 " (in sample 0x%08" PRIx32 ")",
				 ng_health_stream_name(st.fail_stream),
				 st.fail_stream == NG_STREAM_ADC2 ? w >> 16 : w & 0xffffu, w);
		else
			snprintf(value, sizeof value, "sample 0x%08" PRIx32, w);
	} else if (adc) {
		snprintf(value, sizeof value, "%s's half-word", ng_health_stream_name(st.fail_stream));
	}
	const char *when = (st.status & NG_HEALTH_STARTUP_FAILED) ? " during the start-up test" : "";
	char tail[96];
	if (g->bytes_out)
		snprintf(tail, sizeof tail, "%" PRIu64 " bytes had been output before it, nothing after", g->bytes_out);
	else
		snprintf(tail, sizeof tail, "no output was written");
	if (st.fail_test == NG_HEALTH_RCT)
		snprintf(g->err, sizeof g->err, "health test failed%s: repetition count test: %s repeated "
			 "%" PRIu32 " times (cutoff %" PRIu32 ") at sample index %" PRIu64 "; %s",
			 when, value, st.fail_count, rct_cutoff, st.fail_index, tail);
	else if (st.fail_test == NG_HEALTH_APT)
		snprintf(g->err, sizeof g->err, "health test failed%s: adaptive proportion test: %s occurred "
			 "%" PRIu32 " times in a window of %" PRIu32 " samples (cutoff %" PRIu32 ") at sample "
			 "index %" PRIu64 "; %s", when, value, st.fail_count, st.apt_window, apt_cutoff,
			 st.fail_index, tail);
	else
		snprintf(g->err, sizeof g->err, "health test failed%s: %s: count %" PRIu32 " at sample index "
			 "%" PRIu64 " (repetition count failures %" PRIu32 ", adaptive proportion failures %" PRIu32
			 "); %s", when, ng_health_name(st.fail_test), st.fail_count, st.fail_index,
			 st.rct_failures, st.apt_failures, tail);
	g->exit_code = NG_EXIT_HEALTH;
	g->failed = 1;
}

/* Reads one chunk of samples and feeds it to the pipeline NG_GEN_PIECE
 * samples at a time (so at most one block completes per call and the
 * pipeline's queue never overflows), collecting released blocks in obuf. */
static int refill(ng_gen *g)
{
	memset(g->obuf, 0, g->out_len);
	g->out_off = g->out_len = 0;
	while (g->out_len + NG_BLOCK_BYTES <= sizeof g->obuf &&
	       ng_pipeline_take(g->pipe, g->obuf + g->out_len))
		g->out_len += NG_BLOCK_BYTES;   /* left over from the last chunk */
	if (g->out_len)
		return 0;
	long n = g->src->read(g->src, g->sbuf, NG_GEN_CHUNK);
	if (n < 0) {
		snprintf(g->err, sizeof g->err, "%s", g->src->err);
		g->exit_code = NG_EXIT_IO;
		g->failed = 1;
		return -1;
	}
	if (n == 0) {
		g->eof = 1;
		return 0;
	}
	uint64_t base = g->fed;
	for (size_t i = 0; i < (size_t)n; i += NG_GEN_PIECE) {
		size_t k = (size_t)n - i < NG_GEN_PIECE ? (size_t)n - i : NG_GEN_PIECE;
		ng_status st = ng_pipeline_put_many(g->pipe, g->sbuf + i, k);
		g->fed += k;
		if (st == NG_ERR_PERSISTENT) {
			/* Fail closed, in every mode (raw too): nothing from this
			 * chunk is released, nothing after it. */
			uint8_t junk[NG_BLOCK_BYTES];
			while (ng_pipeline_take(g->pipe, junk))
				;
			memset(junk, 0, sizeof junk);
			memset(g->obuf, 0, g->out_len);
			g->out_len = 0;
			health_message(g, base, (size_t)n);
			return -1;
		}
		while (g->out_len + NG_BLOCK_BYTES <= sizeof g->obuf &&
		       ng_pipeline_take(g->pipe, g->obuf + g->out_len))
			g->out_len += NG_BLOCK_BYTES;
	}
	return 0;
}

long ng_gen_read(ng_gen *g, uint8_t *buf, size_t len)
{
	if (g->failed)
		return -1;
	if (g->dev) {
		long r = ng_device_gen_read(g->dev, buf, len);
		if (r < 0) {
			snprintf(g->err, sizeof g->err, "%s", ng_device_gen_error(g->dev));
			g->exit_code = ng_device_gen_exit_code(g->dev);
			g->failed = 1;
		} else
			g->bytes_out += (uint64_t)r;
		return r;
	}
	size_t got = 0;
	while (got < len) {
		if (g->out_off < g->out_len) {
			size_t k = g->out_len - g->out_off;
			if (k > len - got)
				k = len - got;
			memcpy(buf + got, g->obuf + g->out_off, k);
			g->out_off += k;
			got += k;
			continue;
		}
		if (got || g->eof)
			break;
		if (refill(g) < 0)
			return -1;
	}
	g->bytes_out += got;
	return (long)got;
}

const char *ng_gen_error(const ng_gen *g) { return g->err; }
int ng_gen_exit_code(const ng_gen *g) { return g->exit_code; }
const ng_source *ng_gen_source(const ng_gen *g) { return g->src; }
uint32_t ng_gen_h_milli(const ng_gen *g) { return g->dev ? 0 : g->h_milli; }

uint32_t ng_gen_mode(const ng_gen *g) { return g->mode; }
bool ng_gen_replay(const ng_gen *g) { return g->src && !strcmp(g->src->kind, "file"); }
bool ng_gen_is_device(const ng_gen *g) { return g->dev != NULL; }
bool ng_gen_identified(const ng_gen *g) { return !g->dev || ng_device_gen_identified(g->dev); }
const char *ng_gen_ident_error(const ng_gen *g) { return g->dev ? ng_device_gen_ident_error(g->dev) : ""; }
bool ng_gen_creditable(const ng_gen *g) { return !ng_gen_replay(g) && ng_gen_identified(g); }

bool ng_gen_present(const ng_gen *g) { return !g->dev || ng_device_gen_present(g->dev); }
const char *ng_gen_serial(const ng_gen *g) { return g->dev ? ng_device_gen_serial(g->dev) : ""; }

void ng_gen_refresh(ng_gen *g)
{
	if (g->dev)
		ng_device_gen_refresh(g->dev);
}

void ng_gen_set_wait(ng_gen *g, void (*fn)(void *user), void *user)
{
	if (g->dev)
		ng_device_gen_set_wait(g->dev, fn, user);
}

const char *ng_gen_source_desc(const ng_gen *g)
{
	return g->dev ? ng_device_gen_desc(g->dev) : g->src->desc;
}

void ng_gen_get_stats(const ng_gen *g, ng_pipeline_stats *st)
{
	if (g->dev)
		ng_device_gen_get_stats(g->dev, st);
	else
		ng_pipeline_get_stats(g->pipe, st);
}

void ng_gen_stats_json(const ng_gen *g, uint64_t bytes, FILE *f)
{
	static const char *const modes[] = {"conditioned", "crc32", "raw"};
	static const struct { uint32_t bit; const char *name; } bits[] = {
		{NG_HEALTH_RCT, "rct"}, {NG_HEALTH_APT, "apt"}, {NG_HEALTH_STARTUP, "startup"},
		{NG_HEALTH_STARTUP_FAILED, "startup_failed"}, {NG_HEALTH_NEUG, "neug"},
		{NG_HEALTH_PERSISTENT, "persistent"},
	};
	ng_pipeline_stats st;
	ng_gen_get_stats(g, &st);
	fprintf(f, "{\"source\": ");
	ng_json_str(f, ng_gen_source_desc(g));
	fprintf(f, ", \"mode\": \"%s\", \"bytes\": %" PRIu64, g->mode <= 2 ? modes[g->mode] : "?", bytes);
	fprintf(f, ", \"counters\": {");
	ng_counters_json(f, &st, ": ", NULL, NULL); /* every row of the counter table */
	fprintf(f, "}");
	fprintf(f, ", \"status_names\": [");
	int first = 1;
	for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
		if (st.status & bits[i].bit) {
			fprintf(f, "%s\"%s\"", first ? "" : ", ", bits[i].name);
			first = 0;
		}
	fprintf(f, "]");
	if (st.status & NG_HEALTH_PERSISTENT)
		fprintf(f, ", \"fail_test\": \"%s\", \"fail_stream\": \"%s\"", ng_health_name(st.fail_test),
			ng_health_stream_name(st.fail_stream));
	if (g->dev)
		fprintf(f, ", \"identified\": %s", ng_gen_identified(g) ? "true" : "false");
	const ng_source *s = g->src;
	if (s && s->measured_h_milli)
		fprintf(f, ", \"startup_mcv_h_milli\": %" PRIu32 ", \"startup_mcv_samples\": %" PRIu32,
			s->measured_h_milli, s->assess_samples);
	const char *status = "ok";
	if (g->failed)
		status = "failed";
	else if (st.status & (NG_HEALTH_RCT | NG_HEALTH_APT | NG_HEALTH_NEUG | NG_HEALTH_PERSISTENT | NG_HEALTH_STARTUP_FAILED))
		status = "warning";
	else if (!ng_gen_identified(g))
		status = "warning";
	fprintf(f, ", \"status\": \"%s\", \"reason\": ", status);
	if (g->failed)
		ng_json_str(f, g->err);
	else if (*status == 'w' && !(st.status & (NG_HEALTH_RCT | NG_HEALTH_APT | NG_HEALTH_NEUG |
						  NG_HEALTH_PERSISTENT | NG_HEALTH_STARTUP_FAILED)))
		ng_json_str(f, "the device did not identify itself (GET_INFO): only the host's tests ran");
	else if (*status == 'w')
		ng_json_str(f, g->mode == NG_MODE_RAW ? "raw mode: health tests fired (counted, output not blocked)"
			 : "health tests fired; the affected blocks were dropped");
	else
		fprintf(f, "null");
	fprintf(f, "}");
}

void ng_gen_close(ng_gen *g)
{
	if (!g)
		return;
	if (g->dev)
		ng_device_gen_close(g->dev);
	ng_source_close(g->src);
	if (g->pipe) {
		memset(g->pipe, 0, sizeof *g->pipe);
		free(g->pipe);
	}
	memset(g, 0, sizeof *g);
	free(g);
}
