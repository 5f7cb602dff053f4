/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The jitter source starts, its start-up self-assessment passes on this
 * machine, and it delivers varying samples; the MCV estimator is right on
 * inputs with a known answer; the file source reads little-endian words
 * and fails when the file is truncated while read; a jitter source that
 * sticks (an injected failure) stops the generator in raw mode too. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "gen.h"
#include "source.h"

/* A source wrapped so that it sticks after `after` samples: every sample
 * from then on is the last good one (a counter that stopped). The samples
 * it gave are kept in `given`. */
typedef struct {
	ng_source *inner;
	uint64_t after, pos;
	uint32_t last;
	uint32_t *given;
	size_t given_cap;
} stuck_src;

static long stuck_read(ng_source *s, uint32_t *buf, size_t n)
{
	stuck_src *w = s->priv;
	long r = w->inner->read(w->inner, buf, n);
	for (long i = 0; i < r; i++, w->pos++) {
		if (w->pos >= w->after)
			buf[i] = w->last;
		w->last = buf[i];
		if (w->pos < w->given_cap)
			w->given[w->pos] = buf[i];
	}
	return r;
}

static void stuck_close(ng_source *s)
{
	stuck_src *w = s->priv;
	ng_source_close(w->inner);
	free(w);
	free(s);
}

static double mcv_ref(double p, double n)
{
	double pu = p + 2.576 * sqrt(p * (1 - p) / (n - 1));
	return -log2(pu > 1 ? 1 : pu);
}

int main(void)
{
	char err[1024];
	uint64_t seed = ng_test_seed();

	/* MCV on known inputs. */
	enum { N = 25600 };
	uint32_t *v = malloc(N * sizeof *v);
	for (int i = 0; i < N; i++)
		v[i] = 7;
	uint32_t ppm = 0;
	CHECK(ng_mcv_estimate_milli(v, N, &ppm) == 0 && ppm == 1000000, "MCV of a constant sequence is 0 bits");
	for (int i = 0; i < N; i++)
		v[i] = (uint32_t)(i % 256) * 0x01010101u;   /* each of 256 values 100 times */
	for (int i = N - 1; i > 0; i--) {             /* order must not matter */
		int j = (int)(ng_test_rand(&seed) % (uint64_t)(i + 1));
		uint32_t t = v[i]; v[i] = v[j]; v[j] = t;
	}
	uint32_t h = ng_mcv_estimate_milli(v, N, &ppm);
	uint32_t want = (uint32_t)(mcv_ref(1.0 / 256, N) * 1000);
	CHECK(h == want && ppm == 3906, "MCV of 256 equally frequent values: %u milli-bits (formula: %u), p-hat %u ppm", h, want, ppm);
	for (int i = 0; i < N; i++)
		v[i] = i < 5120 ? 0xdeadbeefu : (uint32_t)i;   /* p-hat = 0.2 */
	h = ng_mcv_estimate_milli(v, N, NULL);
	want = (uint32_t)(mcv_ref(0.2, N) * 1000);
	CHECK(h == want, "MCV with one value at p = 0.2: %u milli-bits (formula: %u)", h, want);
	free(v);

	/* The jitter source on this machine. */
	ng_source *s = ng_jitter_open(0, err, sizeof err);
	CHECK(s != NULL, "the jitter source opens and its start-up assessment passes (%s)", s ? s->desc : err);
	if (!s)
		return ng_check_exit();
	printf("# %s: declared %.3f bits/sample, start-up MCV estimate %.3f bits/sample over %u samples\n",
	       s->desc, s->h_milli / 1000.0, s->measured_h_milli / 1000.0, s->assess_samples);
	CHECK(s->h_milli == NG_JITTER_H_MILLI, "declared figure is the documented default (%u)", s->h_milli);
	CHECK(s->assess_samples >= 10000 && s->measured_h_milli >= NG_JITTER_MARGIN * s->h_milli,
	      "start-up estimate %u >= %u x declared %u", s->measured_h_milli, NG_JITTER_MARGIN, s->h_milli);
	enum { M = 100000 };
	uint32_t *buf = malloc(M * sizeof *buf);
	size_t got = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < M) {
		long r = s->read(s, buf + got, M - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# %.1f ns per sample\n", ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / M);
	CHECK(got == M, "read %zu of %d samples", got, M);
	uint32_t run = 1, maxrun = 1;
	for (size_t i = 1; i < got; i++) {
		run = buf[i] == buf[i - 1] ? run + 1 : 1;
		if (run > maxrun)
			maxrun = run;
	}
	/* At 0.5 bit/sample the repetition count cutoff is 61. */
	CHECK(maxrun < 61, "longest run of equal samples in %d: %u (below the RCT cutoff 61)", M, maxrun);
	uint32_t post = ng_mcv_estimate_milli(buf, got, NULL);
	CHECK(post >= NG_JITTER_MARGIN * s->h_milli, "MCV of the next %d samples: %.3f bits/sample", M, post / 1000.0);
	free(buf);
	ng_source_close(s);

	s = ng_jitter_open(16000, err, sizeof err);
	CHECK(s == NULL && strstr(err, "refusing to run") && strstr(err, "16.000"),
	      "declaring 16 bits/sample is refused (%s)", err);
	ng_source_close(s);

	/* Jitter, raw mode, a failure injected: the samples stick after 20,000.
	 * The generator returns -1 with exit 4 at the latch, and every byte it
	 * returned before is one of the samples given before the injection. */
	{
		enum { AFTER = 20000, CAP = 200000 };
		ng_source *inner = ng_jitter_open(0, err, sizeof err);
		ng_source *ws = calloc(1, sizeof *ws);
		stuck_src *w = calloc(1, sizeof *w);
		uint32_t *given = calloc(CAP, sizeof *given);
		uint8_t *outb = malloc(CAP * 4);
		if (inner && ws && w && given && outb) {
			*w = (stuck_src){.inner = inner, .after = AFTER, .given = given, .given_cap = CAP};
			*ws = *inner;
			ws->read = stuck_read;
			ws->close = stuck_close;
			ws->priv = w;
			ng_gen_opts o = {.mode = NG_MODE_RAW};
			int code = 0;
			ng_gen *g = ng_gen_open_source(&o, ws, err, sizeof err, &code);
			size_t got = 0;
			long r = 0;
			while (g && got < CAP * 4 && (r = ng_gen_read(g, outb + got, CAP * 4 - got)) > 0)
				got += (size_t)r;
			long again = g ? ng_gen_read(g, outb, 32) : 0;
			ng_pipeline_stats st;
			if (g)
				ng_gen_get_stats(g, &st);
			CHECK(g && r == -1 && again == -1 && ng_gen_exit_code(g) == NG_EXIT_HEALTH &&
			      (st.status & NG_HEALTH_PERSISTENT) && got <= AFTER * 4 && got % 32 == 0 &&
			      !memcmp(outb, given, got) && strstr(ng_gen_error(g), "repetition count test"),
			      "jitter, raw mode, stuck after %d samples: %zu bytes (all from before), then exit 4: %s",
			      AFTER, got, g ? ng_gen_error(g) : err);
			ng_gen_close(g);
		} else {
			CHECK(0, "jitter with an injected failure: set up (%s)", err);
			ng_source_close(inner);
			free(ws);
			free(w);
		}
		free(given);
		free(outb);
	}

	/* The file source: little-endian words, tail not used. */
	char path[] = "/tmp/ng-test-jitter-XXXXXX";
	int fd = mkstemp(path);
	const uint8_t bytes[] = {1, 2, 3, 4, 0xff, 0, 0, 0x80, 9, 9};
	CHECK(fd >= 0 && write(fd, bytes, sizeof bytes) == (ssize_t)sizeof bytes, "temporary file written");
	close(fd);
	char spec[64];
	snprintf(spec, sizeof spec, "file:%s", path);
	s = ng_source_open(spec, err, sizeof err);
	uint32_t w[4] = {0};
	long r = s ? s->read(s, w, 4) : -1;
	long r2 = s ? s->read(s, w + 2, 2) : -1;
	CHECK(r == 2 && r2 == 0 && w[0] == 0x04030201u && w[1] == 0x800000ffu && s->h_milli == 3700,
	      "file source: 2 little-endian words, then the end (got %ld, %ld, %08x %08x)", r, r2, w[0], w[1]);
	ng_source_close(s);
	unlink(path);
	/* A file truncated while read: an input error, not a silent end. */
	{
		char tpath[] = "/tmp/ng-test-trunc-XXXXXX";
		int tfd = mkstemp(tpath);
		uint8_t *big = calloc(1, 262144);
		for (size_t i = 0; big && i < 262144; i++)
			big[i] = (uint8_t)(i * 7 + i / 251);
		bool made = tfd >= 0 && big && write(tfd, big, 262144) == 262144;
		snprintf(spec, sizeof spec, "file:%s", tpath);
		s = made ? ng_source_open(spec, err, sizeof err) : NULL;
		uint32_t tw[1024];
		long first = s ? s->read(s, tw, 1024) : -1;
		if (made && ftruncate(tfd, 100000) != 0)
			made = false;
		long rr = 0;
		uint64_t words = (uint64_t)(first > 0 ? first : 0);
		while (s && (rr = s->read(s, tw, 1024)) > 0)
			words += (uint64_t)rr;
		CHECK(made && first == 1024 && rr == -1 && strstr(s->err, "truncated while read") &&
		      strstr(s->err, "of its 262144 bytes"), "file truncated while read: %llu words, then -1: %s",
		      (unsigned long long)words, s ? s->err : err);
		ng_source_close(s);
		if (tfd >= 0)
			close(tfd);
		unlink(tpath);
		free(big);
	}
	s = ng_source_open("file:/nonexistent/x.bin", err, sizeof err);
	CHECK(!s && strstr(err, "/nonexistent/x.bin") && strstr(err, "No such file"), "missing file: %s", err);
	CHECK(!ng_source_open("usb", err, sizeof err) && strstr(err, "unknown source"), "unknown spec: %s", err);
	return ng_check_exit();
}
