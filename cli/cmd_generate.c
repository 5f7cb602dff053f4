/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug generate: health-tested random bytes to stdout or a file. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cliopt.h"
#include "commands.h"
#include "counters.h"
#include "outfile.h"
#include "gen.h"
#include "kat.h"
#include "meter.h"
#include "loop.h"

static const char usage_text[] =
	"Usage: neug generate [OPTIONS]\n"
	"Write health-tested random bytes (the NeuG pipeline) to standard output or a file.\n"
	"\n"
	"  --source=SRC      jitter (default): CPU timing jitter of this machine;\n"
	"                    file:PATH: recorded samples (little-endian uint32 words);\n"
	"                    device[:TTY]: a NeuG device (real or emulated)\n"
	"  --mode=MODE       conditioned (0, default), crc32 (1) or raw (2)\n"
	"  -n N[K|M|G]       stop after N bytes (K, M, G: powers of 1024); default:\n"
	"                    unlimited for jitter and device, the whole file for file:\n"
	"  -o FILE           write FILE (a temporary file renamed only when complete;\n"
	"                    a device or FIFO is written in place)\n"
	"  --uid=W0:W1:W2    the three unique-ID words (hex) that seed the CRC (default 0:0:0)\n"
	"  --min-entropy=H   declared min-entropy per raw sample in bits, 0.1 to 32\n"
	"                    (default 3.7 for files, 0.5 for jitter)\n"
	"  --stats           print one JSON object with all counters on stderr at exit\n"
	"  --summary         print a short human summary on stderr at exit\n"
	"  --progress        show bytes, rate and time left on stderr once a second\n"
	"                    (default: when stderr is a terminal)\n"
	"  --no-progress     never show it\n"
	"  --help            this text\n"
	"\n"
	"The known-answer self-tests run first; nothing is written when one fails.\n"
	"A source that ends before -n is an input error: nothing is kept.\n"
	"A device that does not identify itself (GET_INFO) is only tested by the host:\n"
	"a warning says so, and a zero block or two equal blocks stop it (exit 4).\n"
	"Exit status: 0 done, 2 usage error, 3 input or I/O error, 4 health-test or\n"
	"self-test failure, 128 + the signal when SIGINT, SIGTERM or SIGHUP stopped it\n"
	"(within a second, whatever it waits for; no -o file is left).\n"
	"See neug-generate(1).\n";

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "neug generate: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'neug generate --help'.\n");
	return NG_EXIT_USAGE;
}

typedef struct {
	int fd;
	const char *name;      /* for messages */
	ng_outfile file;       /* -o: the one writer (outfile.h) */
	int is_stdout;
} ng_out;

static int out_open(ng_out *o, const char *path, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	o->file.fd = o->file.dirfd = -1;
	if (!path) {
		o->fd = STDOUT_FILENO;
		o->name = "standard output";
		o->is_stdout = 1;
		return 0;
	}
	o->name = path;
	/* random bytes: a new file is 0600; a device or FIFO is written in place */
	if (ng_outfile_open(&o->file, path, 0600, 0, err, errlen) < 0) {
		o->fd = -1;
		return -1;
	}
	o->fd = o->file.fd;
	return 0;
}

/* Returns 0, or -1 with the reason (EPIPE on stdout: errno == EPIPE). */
static int out_write(ng_out *o, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	while (len) {
		long w = ng_write_all(o->fd, buf, len); /* a signal ends a wait on a full pipe */
		if (w < 0) {
			int e = errno;
			snprintf(err, errlen, "writing to %s%s%s: %s", o->is_stdout ? "" : "'",
				 o->name, o->is_stdout ? "" : "'",
				 e == EINTR ? "interrupted" : strerror(e));
			errno = e;
			return -1;
		}
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

static int out_finish(ng_out *o, char *err, size_t errlen)
{
	if (o->is_stdout)
		return 0;
	o->fd = -1;
	return ng_outfile_commit(&o->file, err, errlen);
}

static void out_abort(ng_out *o)
{
	if (!o->is_stdout)
		ng_outfile_abort(&o->file);
	o->fd = -1;
}

static const char *mode_name(uint32_t m)
{
	return m == NG_MODE_CONDITIONED ? "conditioned (0)" : m == NG_MODE_CRC32 ? "crc32 (1)" : "raw (2)";
}

static void print_summary(const ng_gen *g, uint32_t mode, uint64_t bytes, double secs, const char *result)
{
	ng_pipeline_stats st;
	ng_gen_get_stats(g, &st);
	const ng_source *s = ng_gen_source(g);
	fprintf(stderr, "neug generate: summary\n");
	fprintf(stderr, "  source:        %s\n", ng_gen_source_desc(g));
	if (!ng_gen_identified(g))
		fprintf(stderr, "  warning:       the device did not identify itself as a NeuG (GET_INFO: %s);\n"
			"                 only the host's tests ran on its bytes\n", ng_gen_ident_error(g));
	if (ng_gen_h_milli(g))
		fprintf(stderr, "  min-entropy:   %.3f bits/sample declared", ng_gen_h_milli(g) / 1000.0);
	if (s && s->measured_h_milli)
		fprintf(stderr, "; start-up MCV estimate %.3f bits/sample (%u samples)",
			s->measured_h_milli / 1000.0, s->assess_samples);
	if (ng_gen_h_milli(g))
		fprintf(stderr, "\n");
	fprintf(stderr, "  mode:          %s, %u samples per 32-byte block\n", mode_name(mode), st.samples_per_block);
	double rate = secs > 0 ? (double)bytes / secs : 0;
	fprintf(stderr, "  output:        %" PRIu64 " bytes in %.3f s (%.1f KiB/s)\n", bytes, secs, rate / 1024);
	fprintf(stderr, "  health:        cutoffs: repetition count %" PRIu32 ", adaptive proportion %" PRIu32
		" in %" PRIu32, st.rct_cutoff, st.apt_cutoff, st.apt_window);
	if (st.adc_h_milli)
		fprintf(stderr, "; per ADC %" PRIu32 " and %" PRIu32, st.adc_rct_cutoff, st.adc_apt_cutoff);
	fprintf(stderr, "\n");
	/* the counter table's counters (usb/neug_counters.h); the per-ADC ones
	 * only for dual-ADC words, the device's own only from a device */
	for (size_t i = 0; i < ng_counters_n; i++) {
		const ng_counter *c = &ng_counters[i];
		if (c->kind != NG_CTR_C || (c->who != NG_CTR_P && !ng_gen_is_device(g)) ||
		    (!st.adc_h_milli && !strncmp(c->name, "adc", 3)))
			continue;
		fprintf(stderr, "    %-36s %" PRIu64 "\n", c->label, ng_counter_get(c, &st));
	}
	fprintf(stderr, "  result:        %s\n", result);
}

int ng_cmd_generate(int argc, char **argv)
{
	enum { O_SOURCE = 256, O_MODE, O_UID, O_H, O_STATS, O_SUMMARY, O_HELP, O_PROGRESS, O_NO_PROGRESS };
	static const struct option longopts[] = {
		{"source", required_argument, NULL, O_SOURCE},
		{"mode", required_argument, NULL, O_MODE},
		{"uid", required_argument, NULL, O_UID},
		{"min-entropy", required_argument, NULL, O_H},
		{"stats", no_argument, NULL, O_STATS},
		{"summary", no_argument, NULL, O_SUMMARY},
		{"help", no_argument, NULL, O_HELP},
		{"progress", no_argument, NULL, O_PROGRESS},
		{"no-progress", no_argument, NULL, O_NO_PROGRESS},
		{NULL, 0, NULL, 0},
	};
	ng_gen_opts o;
	memset(&o, 0, sizeof o);
	unsigned long long limit = UINT64_MAX;
	const char *outpath = NULL;
	int want_stats = 0, want_summary = 0, want_progress = -1, c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":n:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case O_SOURCE:
			if (strcmp(optarg, "jitter") && strncmp(optarg, "file:", 5) &&
			    strcmp(optarg, "device") && strncmp(optarg, "device:", 7))
				return usage_error("unknown --source '%s' (accepted: jitter, file:PATH, device, device:TTY)", optarg);
			if (!strcmp(optarg, "file:"))
				return usage_error("--source=file:%s needs a file name (file:PATH)", "");
			o.source = optarg;
			break;
		case O_MODE:
			if (ng_cliopt_mode(optarg, &o.mode))
				return usage_error("bad --mode '%s' (accepted: conditioned, crc32, raw, or 0, 1, 2)", optarg);
			break;
		case O_UID:
			if (ng_cliopt_uid(optarg, o.uid))
				return usage_error("bad --uid '%s' (accepted: three hex words W0:W1:W2, each 1 to 8 hex digits, e.g. 12345678:9abcdef0:0fedcba9)", optarg);
			o.have_uid = true;
			break;
		case O_H:
			if (ng_cliopt_min_entropy(optarg, &o.h_milli))
				return usage_error("bad --min-entropy '%s' (accepted: a number of bits per raw sample from 0.1 to 32, e.g. 3.7)", optarg);
			break;
		case 'n':
			if (ng_cliopt_size(optarg, &limit))
				return usage_error("bad -n '%s' (accepted: a byte count N, N K, N M or N G, e.g. 4096, 64K, 1M)", optarg);
			break;
		case 'o':
			if (!*optarg)
				return usage_error("-o needs a file name%s", "");
			outpath = optarg;
			break;
		case O_STATS:
			want_stats = 1;
			break;
		case O_SUMMARY:
			want_summary = 1;
			break;
		case O_PROGRESS:
			want_progress = 1;
			break;
		case O_NO_PROGRESS:
			want_progress = 0;
			break;
		case O_HELP:
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case ':':
			return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);

	char err[4096];
	int code = 0;
	if (isatty(STDOUT_FILENO) && !outpath) {
		fprintf(stderr, "neug generate: standard output is a terminal; redirect it or use -o FILE\n");
		return NG_EXIT_USAGE;
	}
	/* The one signal path (loop.h): SIGINT, SIGTERM, SIGHUP end any wait. */
	if (ng_signals_init() != 0) {
		fprintf(stderr, "neug generate: cannot set up signal handling: %s\n", strerror(errno));
		return NG_EXIT_IO;
	}
	/* Before anything is opened or created: a failed self-test leaves no file. */
	if ((code = ng_kat_run(err, sizeof err)) != 0) {
		fprintf(stderr, "neug generate: %s; no output written\n", err);
		return code;
	}
	ng_gen *g = ng_gen_open(&o, err, sizeof err, &code);
	if (!g) {
		fprintf(stderr, "neug generate: %s\n", err);
		return code;
	}
	if (!ng_gen_identified(g))
		fprintf(stderr, "neug generate: warning: %s did not identify itself as a NeuG (GET_INFO: %s): "
			"its own health tests are unknown; the host tests what it receives (a zero block or two "
			"equal blocks stop it)\n", ng_gen_source_desc(g), ng_gen_ident_error(g));
	ng_out out;
	if (out_open(&out, outpath, err, sizeof err) < 0) {
		fprintf(stderr, "neug generate: %s\n", err);
		out_abort(&out);
		ng_gen_close(g);
		return NG_EXIT_IO;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	static uint8_t buf[65536];
	uint64_t done = 0;
	int rc = NG_EXIT_OK, epipe = 0;
	err[0] = 0;
	ng_meter prog;
	ng_meter_init(&prog, stderr, want_progress, limit, "neug generate");
	while (done < limit && !ng_stop_signal()) {
		size_t want = limit - done < sizeof buf ? (size_t)(limit - done) : sizeof buf;
		long r = ng_gen_read(g, buf, want);
		if (r < 0) {
			snprintf(err, sizeof err, "%s", ng_gen_error(g));
			rc = ng_gen_exit_code(g);
			break;
		}
		if (r == 0) {
			if (limit != UINT64_MAX) {   /* -n asked for more: not a complete output */
				snprintf(err, sizeof err, "%s: the source ended after %" PRIu64 " of %llu bytes",
					 ng_gen_source_desc(g), done, limit);
				rc = NG_EXIT_IO;
			}
			break;
		}
		if (out_write(&out, buf, (size_t)r, err, sizeof err) < 0) {
			if (out.is_stdout && errno == EPIPE) {
				epipe = 1;    /* the reader is gone: a normal end */
				err[0] = 0;
			} else
				rc = NG_EXIT_IO;
			break;
		}
		done += (uint64_t)r;
		ng_meter_update(&prog, done);
	}
	ng_meter_end(&prog);
	memset(buf, 0, sizeof buf);
	if (ng_stop_signal()) {
		/* a signal ends the run whatever the read or write said: no file */
		snprintf(err, sizeof err, "interrupted by signal %d (%s)", ng_stop_signal(),
			 ng_signal_name(ng_stop_signal()));
		rc = 128 + ng_stop_signal();
		epipe = 0;
	}
	if (rc == NG_EXIT_OK && out_finish(&out, err, sizeof err) < 0)
		rc = NG_EXIT_IO;
	if (rc != NG_EXIT_OK) {
		int had_tmp = !out.is_stdout && !out.file.in_place;
		out_abort(&out);
		fprintf(stderr, "neug generate: %s\n", err);
		if (had_tmp)
			fprintf(stderr, "neug generate: '%s' was not written\n", outpath);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	ng_pipeline_stats st;
	ng_gen_get_stats(g, &st);
	if (rc == NG_EXIT_OK && o.mode == NG_MODE_RAW && (st.rct_failures || st.apt_failures ||
							  (st.status & NG_HEALTH_PERSISTENT)))
		fprintf(stderr, "neug generate: warning: raw mode: health tests fired (repetition count %"
			PRIu32 ", adaptive proportion %" PRIu32 " failures%s); raw mode never blocks, "
			"the samples were written as they are\n", st.rct_failures, st.apt_failures,
			(st.status & NG_HEALTH_PERSISTENT) ? ", persistent failure latched" : "");
	if (want_summary)
		print_summary(g, o.mode, done, secs, rc == NG_EXIT_OK ? (epipe ? "ok (reader closed the pipe)" : "ok") : err);
	if (want_stats) {
		ng_gen_stats_json(g, done, stderr);
		fputc('\n', stderr);
	}
	ng_gen_close(g);
	return rc;
}
