/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The HTML report (assess/report.c): the plots' figures against closed
 * forms and direct computations (autocorrelation of an alternating
 * sequence, the running MCV estimate against ng_est_mcv on each prefix,
 * half-word histograms of known ranges, the restart grid of a known
 * matrix), and the page itself: one bar per value, 64 autocorrelation
 * points, every estimator's figure as the text prints it, the input's name
 * escaped, nothing loaded from outside, a failed write reported. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "assess.h"
#include "check.h"
#include "report.h"

/* The page in memory. */
static char *render(const ng_report_data *d, size_t *len, int *rc)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	*rc = ng_report_html(f, d);
	fclose(f);
	return buf;
}

/* Occurrences of needle in [from, to) of the page. */
static unsigned count_in(const char *from, const char *to, const char *needle)
{
	unsigned c = 0;
	size_t l = strlen(needle);
	for (const char *p = from; (p = strstr(p, needle)) && p + l <= to; p += l)
		c++;
	return c;
}

/* The text between <svg id="ID" and its </svg>, or NULL. */
static const char *svg_of(const char *page, const char *id, const char **end)
{
	char key[64];
	snprintf(key, sizeof key, "<svg id=\"%s\"", id);
	const char *p = strstr(page, key);
	if (p)
		*end = strstr(p, "</svg>");
	return p && *end ? p : NULL;
}

static unsigned count_svg(const char *page, const char *id, const char *needle)
{
	const char *end, *p = svg_of(page, id, &end);
	return p ? count_in(p, end, needle) : 0;
}

int main(void)
{
	uint64_t seed = ng_test_seed();

	/* autocorrelation: x alternating 0, 1 gives r(k) = (-1)^k (n - k) / n */
	enum { NA = 1000 };
	uint8_t *a = malloc(NA);
	for (size_t i = 0; i < NA; i++)
		a[i] = i & 1;
	double r[NG_REPORT_LAGS];
	unsigned lags = ng_report_autocorr(a, NA, r);
	double worst = 0;
	for (unsigned k = 1; k <= lags; k++)
		worst = fmax(worst, fabs(r[k - 1] - (k & 1 ? -1.0 : 1.0) * (NA - k) / NA));
	CHECK(lags == 64 && worst < 1e-12, "autocorrelation of 0,1,0,1...: (-1)^k (n-k)/n at lags 1..64 (worst %.3g)", worst);
	memset(a, 5, NA);
	CHECK(ng_report_autocorr(a, NA, r) == 0, "autocorrelation of constant samples: undefined, no points");
	CHECK(ng_report_autocorr(a, 1, r) == 0 && (a[0] = 1, ng_report_autocorr(a, 10, r) == 9),
	      "autocorrelation of 10 samples: lags 1..9 only");

	/* running MCV: every point is ng_est_mcv of its prefix */
	enum { NR = 20000 };
	uint8_t *s = malloc(NR);
	uint64_t st = seed;
	for (size_t i = 0; i < NR; i++) /* drifting: the low values get likelier along the file */
		s[i] = (uint8_t)(ng_test_rand(&st) % (i < NR / 2 ? 16 : 4));
	uint64_t at[NG_REPORT_RUN_MAX];
	double h[NG_REPORT_RUN_MAX];
	unsigned pts = ng_report_running_mcv(s, NR, at, h);
	int bad = 0;
	for (unsigned j = 0; j < pts; j++) {
		ng_est_result e;
		ng_est_mcv(s, at[j], 16, &e);
		bad += e.h != h[j] || at[j] != (uint64_t)NR * (j + 1) / NG_REPORT_RUN_MAX;
	}
	CHECK(pts == 100 && at[99] == NR && !bad, "running MCV: 100 points, each = ng_est_mcv of its prefix (%u off)", bad);
	CHECK(h[99] < h[49] - 1, "running MCV follows the drift (%.3f at half, %.3f at the end)", h[49], h[99]);
	pts = ng_report_running_mcv(s, 50, at, h);
	bad = 0;
	for (unsigned j = 1; j < pts; j++)
		bad += at[j] <= at[j - 1];
	CHECK(pts == 49 && at[0] == 2 && at[48] == 50 && !bad, "running MCV of 50 samples: 49 distinct prefixes 2..50");
	CHECK(ng_report_running_mcv(s, 1, at, h) == 0, "running MCV of one sample: no point");

	/* half-word histograms: adc1 in 1000..1099, adc2 over 0..4095 */
	enum { NW = 40960 };
	uint32_t *w = malloc(NW * sizeof *w);
	for (size_t i = 0; i < NW; i++)
		w[i] = (uint32_t)(i % 4096) << 16 | (uint32_t)(1000 + i % 100);
	ng_report_hist *hg = malloc(sizeof *hg);
	ng_report_halfword_hist(w, NW, 0, hg);
	uint64_t sum = 0;
	for (unsigned b = 0; b < hg->bins; b++)
		sum += hg->count[b];
	CHECK(hg->lo == 1000 && hg->width == 1 && hg->bins == 100 && sum == NW && hg->count[0] == 410 &&
	      hg->count[99] == 409, "adc1 histogram: 100 bars of one value from 1000");
	ng_report_halfword_hist(w, NW, 16, hg);
	CHECK(hg->lo == 0 && hg->width == 16 && hg->bins == 256 && hg->count[0] == 160 && hg->count[255] == 160,
	      "adc2 histogram over 0..4095: 256 bars of 16 values");

	/* restart grid: value 7 fills the first 25 restarts and the odd columns after */
	size_t nm = (size_t)NG_RESTART_ROWS * NG_RESTART_COLS;
	uint8_t *m = malloc(nm);
	for (size_t i = 0; i < nm; i++)
		m[i] = i / NG_RESTART_COLS < 25 || (i % NG_RESTART_COLS) % 2 ? 7 : 3;
	uint16_t grid[NG_REPORT_GRID][NG_REPORT_GRID];
	unsigned mcv = ng_report_restart_grid(m, grid);
	CHECK(mcv == 7 && grid[0][0] == 625 && grid[0][39] == 625 && grid[1][0] == 25 * 12 && grid[1][1] == 25 * 13 &&
	      grid[39][39] == 25 * 13, "restart grid: 625 in the first band, 300 or 325 after");

	/* the page: a non-IID report of 20000 random 8-bit samples */
	for (size_t i = 0; i < NR; i++)
		s[i] = (uint8_t)ng_test_rand(&st);
	ng_assess_opts ao = {.bits = 8, .threads = 1};
	ng_noniid_report *nr = calloc(1, sizeof *nr);
	CHECK(ng_assess_noniid(s, NR, &ao, nr) == 0, "non-IID track ran");
	ng_report_data d = {.input = "'<odd> & \"name\".bin'", .kind = "file, one sample per byte", .s = s,
			    .n = NR, .bits = 8, .noniid = nr, .command = "neug assess x.bin --report=y.html"};
	size_t len;
	int rc;
	char *page = render(&d, &len, &rc);
	CHECK(rc == 0 && len > 1000 && strstr(page, "</html>"), "page written (%zu bytes)", len);
	CHECK(count_svg(page, "histogram", "<rect class=\"bar\"") == 256, "histogram: 256 bars");
	CHECK(count_svg(page, "autocorrelation", "<circle") == 64, "autocorrelation: 64 points");
	CHECK(count_svg(page, "running-mcv", "<circle") == 100, "running MCV: 100 points");
	CHECK(!strstr(page, "<svg id=\"adc1\"") && !strstr(page, "restart-heatmap"),
	      "no ADC histograms without words, no heat map without --restart");
	CHECK(strstr(page, "&lt;odd&gt; &amp; &quot;name&quot;.bin") &&
	      !strstr(page, "<odd>"), "the input's name is escaped");
	CHECK(!strstr(page, "<script") && !strstr(page, "http://") && !strstr(page, "https://") &&
	      !strstr(page, "src=") && strstr(page, "default-src 'none'"), "no script, nothing loaded from outside");
	bad = 0;
	for (int e = 0; e < NG_EST_COUNT; e++)
		for (int side = 0; side < 2; side++) {
			const ng_est_result *x = side ? &nr->bit[e] : &nr->lit[e];
			if (!x->run || !x->ok)
				continue;
			char cell[64];
			snprintf(cell, sizeof cell, "<td>%f / %u bit(s)</td>", x->h, side ? 1 : 8);
			bad += !strstr(page, cell);
		}
	char v[128];
	snprintf(v, sizeof v, "Assessed min-entropy: %.17g bits per 8-bit sample", nr->h_assessed);
	CHECK(!bad && strstr(page, v), "every estimator's figure and the verdict as the text prints them");
	free(page);

	/* raw-mode words: each ADC's histogram */
	for (size_t i = 0; i < NR; i++)
		s[i] = w[i] & 0xff;
	d.words = w;
	page = render(&d, &len, &rc);
	CHECK(rc == 0 && count_svg(page, "adc1", "<rect class=\"bar\"") == 100 &&
	      count_svg(page, "adc2", "<rect class=\"bar\"") == 256, "words: adc1 100 bars, adc2 256 bars");
	free(page);

	/* restart: the heat map, also when the sanity check failed */
	ng_restart_report *rr = calloc(1, sizeof *rr);
	rr->h_i = 7;
	rr->x_max = 650;
	rr->x_cutoff = 27;
	d = (ng_report_data){.input = "'m.bin'", .kind = "file", .s = m, .n = nm, .bits = 8, .restart = rr};
	page = render(&d, &len, &rc);
	CHECK(rc == 0 && count_svg(page, "restart-heatmap", "<rect class=\"cell ") == 1600 &&
	      strstr(page, "Restart Sanity Check Failed") && strstr(page, "X_max = 650"),
	      "restart: 1600 heat-map cells, the failed sanity check shown");
	CHECK(len < 200000, "restart page of 1,000,000 samples: %zu bytes < 200 KB", len);
	free(page);

	/* a write that fails is reported */
	FILE *full = fopen("/dev/full", "w");
	if (full) {
		d = (ng_report_data){.input = "x", .kind = "file", .s = s, .n = NR, .bits = 8, .noniid = nr};
		CHECK(ng_report_html(full, &d) == -1, "a failed write (/dev/full) returns -1");
		fclose(full);
	} else
		SKIP("report on /dev/full: cannot open it");

	free(a); free(s); free(w); free(hg); free(m); free(nr); free(rr);
	return ng_check_exit();
}
