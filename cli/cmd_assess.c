/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug assess: SP 800-90B min-entropy assessment of a file of samples (one
 * per byte, or --words), or of samples collected from a noise source. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "assess.h"
#include "assess_print.h"
#include "cliopt.h"
#include "commands.h"
#include "outfile.h"
#include "exit.h"
#include "ng/sha256.h"
#include "ng/version.h"
#include "report.h"
#include "source.h"

static void usage(FILE *f)
{
	fputs("Usage: neug assess FILE [OPTIONS]\n"
	      "       neug assess --source=jitter|device[:TTY]|file:PATH --samples=N [OPTIONS]\n"
	      "       neug assess --restart FILE --h-initial=H [OPTIONS]\n"
	      "       neug assess --restart --source=jitter --h-initial=H [OPTIONS]\n"
	      "SP 800-90B (2018) min-entropy assessment, figures as NIST's ea_non_iid,\n"
	      "ea_iid and ea_restart compute them.\n\n"
	      "  --bits=N         bits per sample, 1..8 (default: the highest bit set)\n"
	      "  --non-iid        the non-IID track: the ten estimators of 6.3 (default)\n"
	      "  --iid            the IID track: permutation and chi-square tests, MCV\n"
	      "  --initial        raw (initial) entropy source data (default)\n"
	      "  --conditioned    conditioned output: bitstring only (like -c)\n"
	      "  --restart        restart tests (3.1.4) on 1000 restarts x 1000 samples\n"
	      "  --h-initial=H    the initial entropy estimate for --restart\n"
	      "  --words          input is little-endian uint32 words (raw mode); each\n"
	      "                   word's low --bits bits (default 8) are the sample\n"
	      "  --adc=1|2        raw-mode words, one ADC's half-word: ADC1 is bits 0..15 of\n"
	      "                   each word, ADC2 bits 16..31; the half-word's low --bits\n"
	      "                   bits (default 8) are the sample (implies --words)\n"
	      "  --source=SPEC    collect --samples=N raw samples from a source instead\n"
	      "                   (with --restart: open it 1000 times, 1000 samples each)\n"
	      "  --samples=N      how many samples to collect (default 1000000)\n"
	      "  --save=FILE      with --source: also write the samples (one per byte)\n"
	      "  --seed=N         seed the permutation PRNG (default: from /dev/urandom)\n"
	      "  --permutations=N permutation rounds of the IID track (default 10000)\n"
	      "  --all-rounds     run the compression (bzip2) rounds even when the verdict\n"
	      "                   is already \"not IID\" (default: stop them and say so)\n"
	      "  --json           one JSON object on stdout\n"
	      "  --report=FILE    also write the results and plots (histogram, autocorrelation,\n"
	      "                   running MCV estimate; each ADC's histogram for raw-mode\n"
	      "                   words; the restart matrix) as one self-contained HTML page\n"
	      "  -v, --verbose    every estimator's intermediate figures\n"
	      "  --threads=N      worker threads (default: online CPUs)\n"
	      "  -h, --help       this text\n", f);
}

typedef struct {
	unsigned bits;
	bool bits_given, iid, conditioned, restart, words, json;
	unsigned adc;          /* 0: the word's low bits; 1, 2: that ADC's half-word */
	int verbose;
	unsigned threads;
	double h_initial;
	bool h_initial_given;
	const char *source, *save, *file, *report;
	size_t samples;
	uint64_t seed;
	bool seed_given;
	unsigned long rounds;
	bool all_rounds;
	bool bits_inferred;    /* --bits not given: the highest bit set */
} opts;

/* Reads the file (or "-") into memory; NULL (message printed) when it
 * cannot be opened or read. */
static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "neug assess: cannot open '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 20, n = 0;
	uint8_t *b = malloc(cap);
	while (b) {
		if (n == cap) {
			uint8_t *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
		size_t r = fread(b + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (!b) {
		fprintf(stderr, "neug assess: '%s': out of memory\n", path);
	} else if (ferror(f)) {
		fprintf(stderr, "neug assess: cannot read '%s': %s\n", path, strerror(errno));
		free(b);
		b = NULL;
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return b;
}

/* Checks the widths; picks bits when not given. Returns 0 or an exit status. */
static int check_bits(const char *what, const uint8_t *s, size_t n, opts *o)
{
	unsigned or_ = 0;
	for (size_t i = 0; i < n; i++)
		or_ |= s[i];
	if (!o->bits_given) {
		o->bits = 1;
		while (o->bits < 8 && (or_ >> o->bits))
			o->bits++;
		o->bits_inferred = true;
		return NG_EXIT_OK;
	}
	if (o->bits >= 8)
		return NG_EXIT_OK;
	for (size_t i = 0; i < n; i++)
		if (s[i] >> o->bits) {
			fprintf(stderr, "neug assess: %s: sample %zu (offset %zu) is 0x%02x, wider than "
				"--bits=%u; give a larger --bits or mask the data\n",
				what, i, o->words ? i * 4 : i, s[i], o->bits);
			return NG_EXIT_IO;
		}
	return NG_EXIT_OK;
}

static void jnum(double v)
{
	if (isnan(v) || v < 0)
		printf("null");
	else
		printf("%.17g", v);
}

static void print_noniid_json(const ng_noniid_report *r, bool conditioned, const ng_bits_note *note)
{
	printf("{\n  \"track\": \"non-iid\",\n  \"conditioned\": %s,\n", conditioned ? "true" : "false");
	printf("  \"min_entropy\": ");
	jnum(r->h_assessed);
	printf(",\n  \"h_original\": ");
	jnum(conditioned ? -1 : r->h_original);
	printf(",\n  \"h_bitstring\": ");
	jnum(r->has_bitstring ? r->h_bitstring : -1);
	printf(",\n  \"samples\": %zu,\n  \"bits_per_sample\": %u,\n  \"symbols\": %u,\n", r->n, r->bits, r->k);
	printf("  \"iid\": false,\n  \"estimators\": {\n");
	for (int e = 0; e < NG_EST_COUNT; e++) {
		const ng_est_result *a = &r->lit[e], *b = &r->bit[e];
		printf("    \"%s\": {\"original\": ", ng_est_key[e]);
		jnum(a->run && a->ok ? a->h : -1);
		printf(", \"bitstring\": ");
		jnum(b->run && b->ok ? b->h : -1);
		const ng_est_result *skip = a->run && !a->ok ? a : b->run && !b->ok ? b : NULL;
		if (skip)
			printf(", \"skipped\": \"%s\"", skip->reason);
		printf("}%s\n", e + 1 < NG_EST_COUNT ? "," : "");
	}
	printf("  }");
	ng_print_bits_note_json(note);
	printf("\n}\n");
}

/* One estimator's lines in the style of ea_non_iid -vv. */
static void print_detail(const char *pfx, int e, const ng_est_result *r)
{
	const char *nm = ng_est_name[e];
	char name[96];
	snprintf(name, sizeof name, "%s %s Estimate", pfx, nm);
	if (!r->ok) {
		printf("%s: skipped (%s)\n", name, r->reason);
		return;
	}
	switch (e) {
	case NG_EST_MCV:
		printf("%s: Mode count = %llu\n", name, (unsigned long long)r->mode);
		printf("%s: p-hat = %.17g\n", name, r->p_hat);
		printf("%s: p_u = %.17g\n", name, r->p_u);
		break;
	case NG_EST_COLLISION:
		printf("%s: v = %llu\n%s: Sum t_i = %llu\n", name, (unsigned long long)r->v, name,
		       (unsigned long long)r->sum_t);
		printf("%s: X-bar = %.17g\n%s: sigma-hat = %.17g\n%s: X-bar' = %.17g\n", name, r->xbar,
		       name, r->sigma, name, r->xbar_p);
		printf(r->found_p ? "%s: Found p.\n" : "%s: Could Not Find p. Proceeding with the lower bound for p.\n", name);
		printf("%s: p = %.17g\n", name, r->p_u);
		break;
	case NG_EST_MARKOV:
		printf("%s: P_0 = %.17g\n%s: P_1 = %.17g\n", name, r->p0, name, r->p1);
		printf("%s: P_{0,0} = %.17g\n%s: P_{0,1} = %.17g\n", name, r->p00, name, r->p01);
		printf("%s: P_{1,0} = %.17g\n%s: P_{1,1} = %.17g\n", name, r->p10, name, r->p11);
		printf("%s: p-hat_max = %.17g\n", name, r->pmax);
		break;
	case NG_EST_COMPRESSION:
		printf("%s: X-bar = %.17g\n%s: sigma-hat = %.17g\n%s: X-bar' = %.17g\n", name, r->xbar,
		       name, r->sigma, name, r->xbar_p);
		printf(r->found_p ? "%s: Found p.\n" : "%s: Could Not Find p. Proceeding with the lower bound for p.\n", name);
		printf("%s: p = %.17g\n", name, r->p_u);
		break;
	case NG_EST_TTUPLE:
		printf("%s: t = %u\n%s: p-hat_max = %.22Lg\n%s: p_u = %.22Lg\n", name, r->t, name,
		       r->lp_hat, name, r->lp_u);
		break;
	case NG_EST_LRS:
		printf("%s: u = %u\n%s: v = %u\n%s: p-hat = %.22Lg\n%s: p_u = %.22Lg\n", name, r->u,
		       name, r->lrs_v, name, r->lp_hat, name, r->lp_u);
		break;
	default:
		printf("%s: C = %llu\n%s: r = %llu\n%s: N = %llu\n", name, (unsigned long long)r->C,
		       name, (unsigned long long)r->r, name, (unsigned long long)r->N);
		printf("%s: P_global = %.17g\n%s: P_global' = %.17g\n", name, r->pg, name, r->pg_u);
		if (r->local_used)
			printf("%s: P_local = %.17g\n", name, r->p_local);
		else
			printf("%s: P_local can't change the result.\n", name);
		break;
	}
	printf("%s: min entropy = %.17g\n", name, r->h);
}

static void print_noniid_text(const ng_noniid_report *r, const opts *o, const ng_bits_note *note)
{
	printf("Loaded %zu samples of %u distinct %u-bit-wide symbols\n", r->n, r->k, r->bits);
	if (r->has_bitstring)
		printf("Number of Binary Symbols: %zu\n", r->n * r->bits);
	if (r->n < 1000000)
		printf("\n*** Warning: data contains less than 1000000 samples ***\n\n");
	printf("\nRunning non-IID tests...\n\n");
	for (int e = 0; e < NG_EST_COUNT; e++) {
		for (int side = 1; side >= 0; side--) {
			const ng_est_result *x = side ? &r->bit[e] : &r->lit[e];
			if (!x->run)
				continue;
			const char *pfx = side ? "Bitstring" : "Literal";
			if (o->verbose)
				print_detail(pfx, e, x);
			if (!x->ok)
				printf("\t%s Estimate%s: skipped: %s\n", ng_est_name[e],
				       side ? " (bit string)" : "", x->reason);
			else
				printf("\t%s Estimate%s = %f / %u bit(s)\n", ng_est_name[e],
				       side ? " (bit string)" : "", x->h, side ? 1 : r->bits);
		}
	}
	printf("\n");
	if (!o->conditioned)
		printf("H_original: %f\n", r->h_original);
	if (r->has_bitstring) {
		printf("H_bitstring: %f\n", r->h_bitstring);
		if (o->conditioned)
			printf("%u X H_bitstring: %f\n", r->bits, r->h_assessed);
		else
			printf("min(H_original, %u X H_bitstring): %f\n", r->bits, r->h_assessed);
	}
	printf("\nAssessed min-entropy: %.17g bits per %u-bit sample\n", r->h_assessed, r->bits);
	ng_print_bits_note_text(note);
}

static const struct option longopts[] = {
	{"bits", required_argument, NULL, 'b'},
	{"iid", no_argument, NULL, 'I'},
	{"non-iid", no_argument, NULL, 'N'},
	{"initial", no_argument, NULL, 'i'},
	{"conditioned", no_argument, NULL, 'c'},
	{"restart", no_argument, NULL, 'R'},
	{"h-initial", required_argument, NULL, 'H'},
	{"words", no_argument, NULL, 'W'},
	{"adc", required_argument, NULL, 'A'},
	{"source", required_argument, NULL, 'S'},
	{"samples", required_argument, NULL, 'n'},
	{"save", required_argument, NULL, 'o'},
	{"seed", required_argument, NULL, 'r'},
	{"permutations", required_argument, NULL, 'P'},
	{"all-rounds", no_argument, NULL, 'L'},
	{"json", no_argument, NULL, 'j'},
	{"report", required_argument, NULL, 'F'},
	{"verbose", no_argument, NULL, 'v'},
	{"threads", required_argument, NULL, 't'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* The sample a raw-mode word (adc2 << 16) | adc1 gives: its low bits, or
 * with --adc the low bits of that ADC's half-word. */
static uint8_t word_sample(uint32_t w, unsigned adc, unsigned bits)
{
	if (adc == 2)
		w >>= 16;
	return (uint8_t)(w & ((1u << bits) - 1));
}

/* What was assessed, for the messages and the report. */
typedef struct {
	char what[400];        /* "'x.bin'", a source's description */
	char kind[160];        /* how the samples were read */
	uint32_t *words;       /* a device's raw-mode words, or NULL */
	char command[1024];    /* the command line */
	char sha256[65];       /* of the input's bytes, hex */
	uint64_t size;         /* the input's bytes */
	const char *sha_of;    /* what the digest covers */
} input_desc;

static void digest_input(input_desc *in, const uint8_t *b, size_t len, const char *of)
{
	uint8_t d[32];
	ng_sha256(d, b, len);
	for (int i = 0; i < 32; i++)
		snprintf(in->sha256 + 2 * i, 3, "%02x", d[i]);
	in->size = len;
	in->sha_of = of;
}

static int assess_run(const uint8_t *s, size_t n, opts *o, const input_desc *in);

/* Writes a file through the one writer (outfile.h): a failed run leaves
 * no file that looks complete. fn writes the content and returns 0, or -1
 * with errno set. */
static int write_atomic(const char *path, mode_t mode, int (*fn)(FILE *, const void *), const void *arg)
{
	char err[4200];
	if (ng_file_write_with(path, mode, 0, fn, arg, err, sizeof err) < 0) {
		fprintf(stderr, "neug assess: %s\n", err);
		return NG_EXIT_IO;
	}
	return NG_EXIT_OK;
}

typedef struct {
	const uint8_t *s;
	size_t n;
} byte_span;

static int write_bytes(FILE *f, const void *arg)
{
	const byte_span *b = arg;
	return fwrite(b->s, 1, b->n, f) == b->n ? 0 : -1;
}

static int write_report(FILE *f, const void *arg)
{
	return ng_report_html(f, arg);
}

/* Reads want raw samples from src into w; false (message printed) on a
 * source error. *got is how many arrived (fewer if the source ended). */
static bool read_source(ng_source *src, uint32_t *w, size_t want, size_t *got)
{
	size_t n = 0;
	while (n < want) {
		long r = src->read(src, w + n, want - n);
		if (r < 0) {
			fprintf(stderr, "neug assess: %s: %s\n", src->desc, src->err);
			return false;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*got = n;
	return true;
}

/* --source: o->samples raw samples from the source, reduced to the low
 * --bits (default 8) of each word; with --restart, 1000 restarts (the
 * source closed and opened again each time, start-up test included) of
 * 1000 samples each, row after row. --save writes what was collected.
 * A device's or a raw-mode file's words are kept in in->words for the
 * report. Returns 0 or an exit status. */
static int collect(opts *o, uint8_t **out, size_t *nout, input_desc *in)
{
	char err[512], *what = in->what;
	size_t whatlen = sizeof in->what;
	if (!ng_source_spec_known(o->source)) {
		fprintf(stderr, "neug assess: --source=%s: give jitter, device[:TTY] or file:PATH\n", o->source);
		return NG_EXIT_USAGE;
	}
	size_t rows = o->restart ? NG_RESTART_ROWS : 1, per = o->restart ? NG_RESTART_COLS : o->samples;
	uint32_t *w = malloc(rows * per * sizeof *w);
	uint8_t *s = malloc(rows * per);
	size_t n = 0;
	if (!w || !s) {
		fprintf(stderr, "neug assess: out of memory for %zu samples\n", rows * per);
		free(w);
		free(s);
		return NG_EXIT_IO;
	}
	if (o->restart)
		ng_progress_start(true, "restarts", (unsigned)rows);
	for (size_t r = 0; r < rows; r++) {
		ng_source *src = ng_source_open(o->source, err, sizeof err);
		if (!src) {
			ng_progress_end();
			if (r)
				fprintf(stderr, "neug assess: source '%s', restart %zu of %zu: %s\n", o->source, r + 1,
					rows, err);
			else
				fprintf(stderr, "neug assess: source '%s': %s\n", o->source, err);
			free(w);
			free(s);
			return NG_EXIT_IO;
		}
		size_t got;
		bool ok = read_source(src, w + n, per, &got);
		snprintf(what, whatlen, "%s", src->desc);
		ng_source_close(src);
		n += ok ? got : 0;
		if (!ok || (o->restart && got < per)) {
			ng_progress_end();
			if (ok)
				fprintf(stderr, "neug assess: %s ended after %zu of %zu samples of restart %zu\n", what,
					got, per, r + 1);
			free(w);
			free(s);
			return NG_EXIT_IO;
		}
		if (o->restart)
			ng_progress_step();
	}
	if (o->restart) {
		ng_progress_end();
		size_t l = strlen(what);
		snprintf(what + l, whatlen - l, ", %zu restarts", rows);
	}
	/* documented mapping: the low 8 bits (or --bits) of each raw word */
	unsigned b = o->bits_given ? o->bits : 8;
	for (size_t i = 0; i < n; i++)
		s[i] = word_sample(w[i], o->adc, b);
	if (strncmp(o->source, "jitter", 6) != 0) {
		in->words = w;  /* a device's raw-mode words, or a file of them */
		snprintf(in->kind, sizeof in->kind, "raw-mode 32-bit words from the source, the low %u bits "
			 "of each%s", b, o->adc == 1 ? "'s ADC1 half-word" : o->adc == 2 ? "'s ADC2 half-word" : "");
	} else {
		free(w);
		snprintf(in->kind, sizeof in->kind, "samples from the jitter source, the low %u bits of each "
			 "32-bit word%s", b, o->restart ? ", 1000 restarts x 1000 samples" : "");
	}
	if (!o->bits_given) {
		o->bits = 8;
		o->bits_given = true;
	}
	if (n < o->samples)
		fprintf(stderr, "neug assess: %s ended after %zu of %zu samples\n", what, n, o->samples);
	if (o->save) {
		byte_span b = {s, n};
		int rc = write_atomic(o->save, 0600, write_bytes, &b);
		if (rc) {
			free(s);
			return rc;
		}
	}
	digest_input(in, s, n, "the collected samples, one per byte");
	*out = s;
	*nout = n;
	return NG_EXIT_OK;
}

int ng_cmd_assess(int argc, char **argv)
{
	opts o = {.samples = 1000000, .rounds = 10000};
	/* the command line as given, for the report (getopt reorders argv) */
	char cmdline[1024] = "neug";
	for (int i = 0; i < argc; i++) {
		size_t l = strlen(cmdline);
		snprintf(cmdline + l, sizeof cmdline - l, " %s", argv[i]);
	}
	long nc = sysconf(_SC_NPROCESSORS_ONLN);
	o.threads = nc > 0 ? (unsigned)nc : 1;
	if (isatty(2)) /* progress on a terminal only */
		ng_progress_set_drawer(ng_assess_progress_draw);
	optind = 1;
	int c;
	unsigned long long v;
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (ng_cliopt_uint(optarg, 1, 8, &v)) {
				fprintf(stderr, "neug assess: --bits=%s: give 1..8\n", optarg);
				return NG_EXIT_USAGE;
			}
			o.bits = (unsigned)v;
			o.bits_given = true;
			break;
		case 'I': o.iid = true; break;
		case 'N': o.iid = false; break;
		case 'i': o.conditioned = false; break;
		case 'c': o.conditioned = true; break;
		case 'R': o.restart = true; break;
		case 'H':
			if (ng_cliopt_double(optarg, 0, 8, NG_CLIOPT_OPEN_LO, &o.h_initial)) {
				fprintf(stderr, "neug assess: --h-initial=%s: give a number in (0, 8]\n", optarg);
				return NG_EXIT_USAGE;
			}
			o.h_initial_given = true;
			break;
		case 'W': o.words = true; break;
		case 'A':
			if (strcmp(optarg, "1") != 0 && strcmp(optarg, "2") != 0) {
				fprintf(stderr, "neug assess: --adc=%s: give 1 (bits 0..15 of each word) or 2 "
					"(bits 16..31)\n", optarg);
				return NG_EXIT_USAGE;
			}
			o.adc = (unsigned)(optarg[0] - '0');
			o.words = true;
			break;
		case 'S': o.source = optarg; break;
		case 'n':
			if (ng_cliopt_uint(optarg, 1, 1ull << 31, &v)) {
				fprintf(stderr, "neug assess: --samples=%s: give a positive count\n", optarg);
				return NG_EXIT_USAGE;
			}
			o.samples = (size_t)v;
			break;
		case 'o': o.save = optarg; break;
		case 'r':
			if (ng_cliopt_uint(optarg, 0, UINT64_MAX, &v)) {
				fprintf(stderr, "neug assess: --seed=%s: not a number\n", optarg);
				return NG_EXIT_USAGE;
			}
			o.seed = v;
			o.seed_given = true;
			break;
		case 'P':
			if (ng_cliopt_uint(optarg, 0, 10000000, &v)) {
				fprintf(stderr, "neug assess: --permutations=%s: give 0..10000000\n", optarg);
				return NG_EXIT_USAGE;
			}
			o.rounds = (unsigned long)v;
			break;
		case 'L': o.all_rounds = true; break;
		case 'j': o.json = true; break;
		case 'F': o.report = optarg; break;
		case 'v': o.verbose++; break;
		case 't':
			if (ng_cliopt_uint(optarg, 1, 256, &v)) {
				fprintf(stderr, "neug assess: --threads=%s: give 1..256\n", optarg);
				return NG_EXIT_USAGE;
			}
			o.threads = (unsigned)v;
			break;
		case 'h': usage(stdout); return NG_EXIT_OK;
		default: usage(stderr); return NG_EXIT_USAGE;
		}
	}
	if (o.source ? optind != argc : optind + 1 != argc) {
		fprintf(stderr, o.source ? "neug assess: --source takes no FILE\n"
					 : "neug assess: give one FILE (or --source=...)\n");
		usage(stderr);
		return NG_EXIT_USAGE;
	}
	if (o.restart && !o.h_initial_given) {
		fprintf(stderr, "neug assess: --restart needs --h-initial=H (the initial entropy estimate)\n");
		return NG_EXIT_USAGE;
	}
	if (o.source && o.restart && strncmp(o.source, "jitter", 6) != 0) {
		fprintf(stderr, "neug assess: --restart --source works with the jitter source only: "
			"a device keeps running when its tty is reopened, and a file replays the same "
			"samples; restart a device 1000 times yourself and assess the file with "
			"--restart FILE\n");
		return NG_EXIT_USAGE;
	}
	if (o.adc && (o.restart || (o.source && strncmp(o.source, "jitter", 6) == 0))) {
		fprintf(stderr, "neug assess: --adc=%u takes a board's raw-mode words (a FILE of them, or "
			"--source=device or file:PATH); %s has no ADC half-words\n", o.adc,
			o.restart ? "--restart" : "the jitter source");
		return NG_EXIT_USAGE;
	}
	o.file = o.source ? NULL : argv[optind];
	uint8_t *s = NULL;
	size_t n = 0;
	input_desc *in = calloc(1, sizeof *in);
	if (!in) {
		fprintf(stderr, "neug assess: out of memory\n");
		return NG_EXIT_IO;
	}
	snprintf(in->command, sizeof in->command, "%s", cmdline);
	int rc = 0;
	if (o.source) {
		if (o.restart)
			o.samples = NG_RESTART_ROWS * NG_RESTART_COLS;
		rc = collect(&o, &s, &n, in);
	} else {
		snprintf(in->what, sizeof in->what, "'%s'", o.file);
		size_t len;
		uint8_t *b = read_all(o.file, &len);
		if (b)
			digest_input(in, b, len, "the file");
		if (!b)
			rc = NG_EXIT_IO;
		else if (o.words && len % 4) {
			fprintf(stderr, "neug assess: %s: %zu bytes is not a whole number of 32-bit words\n",
				in->what, len);
			free(b);
			rc = NG_EXIT_IO;
		} else if (o.words) {
			n = len / 4;
			s = malloc(n ? n : 1);
			in->words = malloc(n ? n * sizeof *in->words : 1);
			unsigned bw = o.bits_given ? o.bits : 8;
			for (size_t i = 0; s && in->words && i < n; i++) {
				uint32_t x = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
					     (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
				in->words[i] = x;
				s[i] = word_sample(x, o.adc, bw);
			}
			free(b);
			if (!s || !in->words) {
				fprintf(stderr, "neug assess: out of memory for %zu words\n", n);
				rc = NG_EXIT_IO;
			}
			snprintf(in->kind, sizeof in->kind, "file of little-endian 32-bit raw-mode words, "
				 "the low %u bits of each%s", bw,
				 o.adc == 1 ? "'s ADC1 half-word" : o.adc == 2 ? "'s ADC2 half-word" : "");
		} else {
			s = b;
			n = len;
			snprintf(in->kind, sizeof in->kind, "file, one sample per byte");
		}
	}
	if (!rc && n == 0) {
		fprintf(stderr, "neug assess: %s holds no samples%s\n", in->what,
			o.source ? ": the source ended at once" : " (it is empty)");
		rc = NG_EXIT_IO;
	}
	if (!rc)
		rc = check_bits(in->what, s, n, &o);
	if (!rc)
		rc = assess_run(s, n, &o, in);
	free(s);
	free(in->words);
	free(in);
	return rc;
}

/* ---- the tracks ---- */
/* Writes --report when asked; returns rc, or the write's exit status. */
static int report(const opts *o, const input_desc *in, const uint8_t *s, size_t n,
		  ng_report_data d, int rc)
{
	if (!o->report)
		return rc;
	d.input = in->what;
	d.kind = in->kind;
	d.command = in->command;
	d.s = s;
	d.n = n;
	d.bits = o->bits;
	d.conditioned = o->conditioned;
	d.words = in->words;
	d.sha256 = in->sha256[0] ? in->sha256 : NULL;
	d.sha_of = in->sha_of;
	d.size = in->size;
	d.version = NG_VERSION;
	char date[40];
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm) && strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &tm))
		d.date = date;
	d.bits_inferred = o->bits_inferred;
	int wrc = write_atomic(o->report, 0644, write_report, &d);
	return wrc ? wrc : rc;
}

/* The IID track's figure (the MCV estimates) with the file's full width,
 * when --bits was inferred narrower. */
static ng_bits_note full_width_iid(const uint8_t *s, size_t n, const opts *o)
{
	ng_bits_note note = {.bits = o->bits, .h_full = -1};
	if (!o->bits_inferred || o->bits >= 8)
		return note;
	uint8_t *sym = malloc(n);
	size_t nb;
	uint8_t *bs = ng_assess_bitstring(s, n, 8, &nb);
	if (sym && bs) {
		ng_est_result lit, bit;
		memset(&lit, 0, sizeof lit);
		memset(&bit, 0, sizeof bit);
		ng_est_mcv(sym, n, ng_assess_translate(s, n, sym), &lit);
		ng_est_mcv(bs, nb, 2, &bit);
		double h = o->conditioned ? 8 : (lit.h < 8 ? lit.h : 8), hb = bit.h < 1 ? bit.h : 1;
		if (8 * hb < h)
			h = 8 * hb;
		note = (ng_bits_note){true, o->bits, 8, ng_plus_zero(h)};
	}
	free(sym);
	free(bs);
	return note;
}

static int assess_run(const uint8_t *s, size_t n, opts *o, const input_desc *in)
{
	ng_assess_opts ao = {.bits = o->bits, .conditioned = o->conditioned,
			     .threads = o->threads, .progress = !o->json || isatty(2),
			     .all_rounds = o->all_rounds};
	uint64_t seed = o->seed;
	if (!o->seed_given) {
		FILE *f = fopen("/dev/urandom", "rb");
		if (!f || fread(&seed, sizeof seed, 1, f) != 1) {
			fprintf(stderr, "neug assess: cannot read /dev/urandom for a seed: %s\n", strerror(errno));
			if (f)
				fclose(f);
			return NG_EXIT_IO;
		}
		fclose(f);
	}
	if (o->restart) {
		if (n != (size_t)NG_RESTART_ROWS * NG_RESTART_COLS) {
			fprintf(stderr, "neug assess: %s: --restart needs exactly 1000000 samples "
				"(1000 restarts x 1000 samples), the file has %zu\n", in->what, n);
			return NG_EXIT_IO;
		}
		ng_restart_report *rr = calloc(1, sizeof *rr);
		if (!rr || ng_assess_restart(s, n, o->h_initial, &ao, o->iid, o->rounds, seed, rr)) {
			fprintf(stderr, "neug assess: out of memory\n");
			free(rr);
			return NG_EXIT_IO;
		}
		ng_assess_print_restart(rr, o->json, o->verbose, o->bits);
		int rc = report(o, in, s, n, (ng_report_data){.restart = rr},
				rr->sanity_pass && rr->valid ? NG_EXIT_OK : NG_EXIT_FAIL);
		free(rr);
		return rc;
	}
	if (o->iid) {
		ng_iid_report *ir = calloc(1, sizeof *ir);
		if (!ir || ng_assess_iid(s, n, &ao, o->rounds, seed, ir) != NG_OK) {
			fprintf(stderr, "neug assess: out of memory\n");
			free(ir);
			return NG_EXIT_IO;
		}
		ng_bits_note note = full_width_iid(s, n, o);
		ng_assess_print_iid(ir, o->json, o->verbose, o->conditioned, &note);
		int rc = report(o, in, s, n, (ng_report_data){.iid = ir, .bits_full = note.full_bits,
				.h_full = note.h_full}, NG_EXIT_OK);
		free(ir);
		return rc;
	}
	ng_noniid_report *r = calloc(1, sizeof *r);
	if (!r || ng_assess_noniid(s, n, &ao, r)) {
		fprintf(stderr, "neug assess: out of memory\n");
		free(r);
		return NG_EXIT_IO;
	}
	ng_bits_note note = {.bits = o->bits, .h_full = -1};
	if (o->bits_inferred && o->bits < 8) {
		/* the figure with the file's full width, beside the inferred one */
		ng_noniid_report *f8 = calloc(1, sizeof *f8);
		ng_assess_opts a8 = ao;
		a8.bits = 8;
		if (!f8 || ng_assess_noniid(s, n, &a8, f8)) {
			fprintf(stderr, "neug assess: out of memory\n");
			free(f8);
			free(r);
			return NG_EXIT_IO;
		}
		note = (ng_bits_note){true, o->bits, 8, f8->h_assessed};
		free(f8);
	}
	if (o->json)
		print_noniid_json(r, o->conditioned, &note);
	else
		print_noniid_text(r, o, &note);
	int rc = report(o, in, s, n, (ng_report_data){.noniid = r, .bits_full = note.full_bits,
			.h_full = note.h_full}, NG_EXIT_OK);
	free(r);
	return rc;
}
