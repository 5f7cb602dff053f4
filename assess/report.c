/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The HTML assessment report (report.h): tables from the track's report
 * structure, plots as inline SVG drawn here. Every figure in the tables is
 * the one the text output prints; the plots' figures are computed below. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

/* ---- the plots' figures ---- */
unsigned ng_report_autocorr(const uint8_t *s, size_t n, double r[NG_REPORT_LAGS])
{
	if (n < 2)
		return 0;
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += s[i];
	double m = (double)sum / (double)n, den = 0;
	for (size_t i = 0; i < n; i++)
		den += (s[i] - m) * (s[i] - m);
	if (den == 0)
		return 0;
	unsigned lags = n - 1 < NG_REPORT_LAGS ? (unsigned)(n - 1) : NG_REPORT_LAGS;
	for (unsigned k = 1; k <= lags; k++) {
		double num = 0;
		for (size_t i = 0; i + k < n; i++)
			num += (s[i] - m) * (s[i + k] - m);
		r[k - 1] = num / den;
	}
	return lags;
}

unsigned ng_report_running_mcv(const uint8_t *s, size_t n, uint64_t at[NG_REPORT_RUN_MAX],
			       double h[NG_REPORT_RUN_MAX])
{
	uint64_t cnt[256] = {0}, mode = 0;
	unsigned pts = 0;
	size_t i = 0;
	for (unsigned j = 1; j <= NG_REPORT_RUN_MAX; j++) {
		/* n * j / RUN_MAX without overflow */
		size_t end = n / NG_REPORT_RUN_MAX * j + n % NG_REPORT_RUN_MAX * j / NG_REPORT_RUN_MAX;
		for (; i < end; i++)
			if (++cnt[s[i]] > mode)
				mode = cnt[s[i]];
		if (end < 2 || (pts && at[pts - 1] == end))
			continue;
		ng_est_result r;
		ng_est_mcv_finish(mode, end, &r);
		at[pts] = end;
		h[pts++] = r.h;
	}
	return pts;
}

void ng_report_halfword_hist(const uint32_t *w, size_t n, unsigned shift, ng_report_hist *h)
{
	memset(h, 0, sizeof *h);
	uint32_t lo = 0xffff, hi = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = w[i] >> shift & 0xffff;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	if (!n)
		return;
	uint32_t span = hi - lo + 1;
	h->lo = lo;
	h->width = (span + NG_REPORT_HIST_MAX - 1) / NG_REPORT_HIST_MAX;
	h->bins = (span + h->width - 1) / h->width;
	for (size_t i = 0; i < n; i++)
		h->count[((w[i] >> shift & 0xffff) - lo) / h->width]++;
}

unsigned ng_report_restart_grid(const uint8_t *s, uint16_t grid[NG_REPORT_GRID][NG_REPORT_GRID])
{
	uint64_t cnt[256] = {0};
	size_t total = (size_t)NG_RESTART_ROWS * NG_RESTART_COLS;
	for (size_t i = 0; i < total; i++)
		cnt[s[i]]++;
	unsigned mcv = 0;
	for (unsigned v = 1; v < 256; v++)
		if (cnt[v] > cnt[mcv])
			mcv = v;
	memset(grid, 0, sizeof(uint16_t) * NG_REPORT_GRID * NG_REPORT_GRID);
	for (size_t r = 0; r < NG_RESTART_ROWS; r++)
		for (size_t c = 0; c < NG_RESTART_COLS; c++)
			if (s[r * NG_RESTART_COLS + c] == mcv)
				grid[r * NG_REPORT_GRID / NG_RESTART_ROWS][c * NG_REPORT_GRID / NG_RESTART_COLS]++;
	return mcv;
}

/* ---- HTML and SVG output ---- */
static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* Plot area inside a 720 x 260 view box: x from PL to PL + PW, y from
 * PT + PH (the data's y0) up to PT (y1). */
#define VW 720
#define VH 260
#define PL 70.0
#define PT 14.0
#define PW 620.0
#define PH 196.0

typedef struct {
	FILE *f;
	double x0, x1, y0, y1;
} plot;

static double px(const plot *p, double x) { return PL + (x - p->x0) / (p->x1 - p->x0) * PW; }
static double py(const plot *p, double y) { return PT + PH - (y - p->y0) / (p->y1 - p->y0) * PH; }

/* A round step giving about `target` ticks over span: 1, 2 or 5 x 10^k. */
static double nice_step(double span, int target)
{
	if (!(span > 0))
		return 1;
	double raw = span / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static void tick_label(char *b, size_t bl, double v, double step)
{
	if (fabs(v) < step * 1e-9)
		v = 0;
	if (step >= 1 && fabs(v) < 1e15)
		snprintf(b, bl, "%.0f", v);
	else
		snprintf(b, bl, "%g", v);
}

static void plot_open(plot *p, FILE *f, const char *id, const char *label, double x0, double x1,
		      double y0, double y1)
{
	*p = (plot){f, x0, x1, y0, y1};
	if (!(p->x1 > p->x0))
		p->x1 = p->x0 + 1;
	if (!(p->y1 > p->y0))
		p->y1 = p->y0 + 1;
	fprintf(f, "<svg id=\"%s\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", id, VW, VH);
	esc(f, label);
	fputs("\">\n", f);
}

/* Axes, ticks and their labels, the axes' names. */
static void plot_axes(const plot *p, const char *xname, const char *yname)
{
	FILE *f = p->f;
	char b[40];
	double ys = nice_step(p->y1 - p->y0, 5), xs = nice_step(p->x1 - p->x0, 8);
	fputs("<g class=\"ax\">", f);
	for (double y = ceil(p->y0 / ys - 1e-9) * ys; y <= p->y1 + ys * 1e-9; y += ys) {
		tick_label(b, sizeof b, y, ys);
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
			PL, PL + PW, py(p, y), py(p, y), PL - 6, py(p, y) + 4, b);
	}
	for (double x = ceil(p->x0 / xs - 1e-9) * xs; x <= p->x1 + xs * 1e-9; x += xs) {
		tick_label(b, sizeof b, x, xs);
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
			px(p, x), px(p, x), PT + PH, PT + PH + 5, px(p, x), PT + PH + 18, b);
	}
	fprintf(f, "<path d=\"M%.1f %.1fV%.1fH%.1f\"/>", PL, PT, PT + PH, PL + PW);
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", PL + PW / 2, VH - 6);
	esc(f, xname);
	fprintf(f, "</text><text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">",
		PT + PH / 2);
	esc(f, yname);
	fputs("</text></g>\n", f);
}

/* The top of a y axis from 0: the data's maximum, rounded up to a tick. */
static double nice_top(double max)
{
	double st = nice_step(max, 5);
	return max > 0 ? ceil(max / st) * st : 1;
}

static void figure_open(FILE *f, const char *title)
{
	fputs("<figure><h3>", f);
	esc(f, title);
	fputs("</h3>\n", f);
}

static void figure_close(FILE *f, const char *caption)
{
	fputs("<figcaption>", f);
	fputs(caption, f);  /* our own markup */
	fputs("</figcaption></figure>\n", f);
}

/* Bars at x0 + i * width, count[i] high, one per bin (empty bins too, so
 * that the bars stand for every value of the range). */
static void bars(FILE *f, const char *id, const char *label, const uint64_t *count, unsigned bins,
		 uint32_t x0, uint32_t width, const char *xname, double expected)
{
	uint64_t max = 0;
	for (unsigned i = 0; i < bins; i++)
		max = count[i] > max ? count[i] : max;
	double top = nice_top(fmax((double)max, expected) * 1.02);
	plot p;
	/* each bar centred on its first value, where its tick goes */
	double left = x0 - (width == 1 ? 0.5 : 0.0);
	plot_open(&p, f, id, label, left, left + (double)bins * width, 0, top);
	plot_axes(&p, xname, "count");
	double bw = PW / bins;
	for (unsigned i = 0; i < bins; i++) {
		double y = py(&p, (double)count[i]);
		fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\"><title>",
			PL + i * bw, y, bw, PT + PH - y);
		uint32_t v = x0 + i * width;
		if (width == 1)
			fprintf(f, "%u", v);
		else
			fprintf(f, "%u..%u", v, v + width - 1);
		fprintf(f, ": %llu</title></rect>", (unsigned long long)count[i]);
		if (i % 8 == 7)
			fputc('\n', f);
	}
	if (expected > 0)
		fprintf(f, "<line class=\"ref\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", PL, PL + PW,
			py(&p, expected), py(&p, expected));
	fputs("</svg>\n", f);
}

static void plot_histogram(FILE *f, const ng_report_data *d)
{
	uint64_t cnt[256] = {0};
	for (size_t i = 0; i < d->n; i++)
		cnt[d->s[i]]++;
	unsigned all = 1u << d->bits, seen = 0, lo = all, hi = 0;
	for (unsigned i = 0; i < all; i++)
		if (cnt[i]) {
			seen++;
			lo = i < lo ? i : lo;
			hi = i;
		}
	if (!seen)
		lo = hi = 0;
	unsigned bins = hi - lo + 1;
	figure_open(f, "Histogram of sample values");
	bars(f, "histogram", "histogram of sample values", cnt + lo, bins, lo, 1, "sample value",
	     (double)d->n / all);
	char cap[400];
	snprintf(cap, sizeof cap, "One bar per value over the range the data uses, %u..%u (%u bars, %u "
		 "values seen, of the %u a %u-bit sample can take). The dashed line is the count each "
		 "value would have if all %u were equally likely.", lo, hi, bins, seen, all, d->bits, all);
	figure_close(f, cap);
}

static int plot_halfwords(FILE *f, const ng_report_data *d)
{
	ng_report_hist *h = malloc(sizeof *h);
	if (!h)
		return -1;
	for (unsigned a = 0; a < 2; a++) {
		ng_report_halfword_hist(d->words, d->n, a ? 16 : 0, h);
		char title[80], cap[400], id[8];
		snprintf(title, sizeof title, "ADC %u: the %s half-word of each raw word", a + 1,
			 a ? "high" : "low");
		snprintf(id, sizeof id, "adc%u", a + 1);
		figure_open(f, title);
		bars(f, id, title, h->count, h->bins, h->lo, h->width, a ? "adc2 = word >> 16" :
		     "adc1 = word & 0xffff", 0);
		snprintf(cap, sizeof cap, "Raw-mode words are (adc2 &lt;&lt; 16) | adc1. This ADC's "
			 "values span %u..%u: %u bars of %u value%s each.", h->lo,
			 h->lo + h->bins * h->width - 1, h->bins, h->width, h->width == 1 ? "" : "s");
		figure_close(f, cap);
	}
	free(h);
	return 0;
}

static void plot_autocorr(FILE *f, const ng_report_data *d)
{
	double r[NG_REPORT_LAGS];
	unsigned lags = ng_report_autocorr(d->s, d->n, r);
	double band = NG_ASSESS_Z / sqrt((double)d->n), a = band * 1.5;
	for (unsigned k = 0; k < lags; k++)
		a = fmax(a, fabs(r[k]));
	a = nice_top(a * 1.05);
	figure_open(f, "Autocorrelation, lags 1 to 64");
	plot p;
	plot_open(&p, f, "autocorrelation", "autocorrelation over lags 1 to 64", 0, NG_REPORT_LAGS + 1, -a, a);
	plot_axes(&p, "lag", "autocorrelation");
	fprintf(f, "<path class=\"ref\" d=\"M%.1f %.1fH%.1fM%.1f %.1fH%.1f\"/>", PL, py(&p, band), PL + PW, PL,
		py(&p, -band), PL + PW);
	fprintf(f, "<line class=\"zero\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n", PL, PL + PW,
		py(&p, 0), py(&p, 0));
	unsigned out = 0;
	for (unsigned k = 1; k <= lags; k++) {
		double x = px(&p, k), y = py(&p, r[k - 1]);
		out += fabs(r[k - 1]) > band;
		fprintf(f, "<line class=\"stem\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<circle class=\"pt%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.6\"><title>lag %u: %.5f</title></circle>\n",
			x, x, py(&p, 0), y, fabs(r[k - 1]) > band ? " out" : "", x, y, k, r[k - 1]);
	}
	fputs("</svg>\n", f);
	char cap[400];
	if (!lags)
		snprintf(cap, sizeof cap, "Not defined: the samples do not vary.");
	else
		snprintf(cap, sizeof cap, "The correlation of each sample with the one k places later. "
			 "For independent samples about 99%% of the points fall between the dashed lines "
			 "(&#177;%.4f = &#177;2.576/&#8730;n); %u of %u lie outside.", band, out, lags);
	figure_close(f, cap);
}

static void plot_running_mcv(FILE *f, const ng_report_data *d)
{
	uint64_t at[NG_REPORT_RUN_MAX];
	double h[NG_REPORT_RUN_MAX];
	unsigned pts = ng_report_running_mcv(d->s, d->n, at, h);
	figure_open(f, "Running most-common-value estimate");
	plot p;
	plot_open(&p, f, "running-mcv", "running most-common-value estimate along the file", 0,
		  (double)d->n, 0, d->bits);
	plot_axes(&p, "samples read", "min-entropy (bits per sample)");
	fputs("<polyline class=\"line\" points=\"", f);
	for (unsigned j = 0; j < pts; j++)
		fprintf(f, "%s%.1f,%.1f", j ? " " : "", px(&p, (double)at[j]), py(&p, h[j]));
	fputs("\"/>\n", f);
	for (unsigned j = 0; j < pts; j++)
		fprintf(f, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"2\"><title>first %llu: %.4f</title></circle>%s",
			px(&p, (double)at[j]), py(&p, h[j]), (unsigned long long)at[j], h[j], j % 4 == 3 ? "\n" : "");
	fputs("</svg>\n", f);
	char cap[300];
	snprintf(cap, sizeof cap, "The estimate of SP 800-90B 6.3.1 over the first N samples, at "
		 "%u points; the last is the whole file's. A source that drifts shows a trend.", pts);
	figure_close(f, cap);
}

/* Light to dark: a sequential scale for the heat map. */
static const char *const heat[8] = {"#fff7ec", "#fee8c8", "#fdd49e", "#fdbb84",
				    "#fc8d59", "#ef6548", "#d7301f", "#990000"};

static int plot_heatmap(FILE *f, const ng_report_data *d)
{
	uint16_t (*g)[NG_REPORT_GRID] = malloc(sizeof(uint16_t[NG_REPORT_GRID][NG_REPORT_GRID]));
	if (!g)
		return -1;
	unsigned mcv = ng_report_restart_grid(d->s, g), lo = UINT16_MAX, hi = 0;
	for (unsigned r = 0; r < NG_REPORT_GRID; r++)
		for (unsigned c = 0; c < NG_REPORT_GRID; c++) {
			lo = g[r][c] < lo ? g[r][c] : lo;
			hi = g[r][c] > hi ? g[r][c] : hi;
		}
	const unsigned cell = 10, side = NG_REPORT_GRID * cell, left = 70, top = 14;
	unsigned per = NG_RESTART_ROWS / NG_REPORT_GRID * (NG_RESTART_COLS / NG_REPORT_GRID);
	figure_open(f, "Restart matrix");
	fprintf(f, "<svg id=\"restart-heatmap\" viewBox=\"0 0 %d %u\" role=\"img\" aria-label=\"restart "
		   "matrix heat map\">\n<g class=\"hm\" transform=\"translate(%u %u) scale(%u)\">\n", VW,
		side + top + 40, left, top, cell);
	for (unsigned r = 0; r < NG_REPORT_GRID; r++) {
		for (unsigned c = 0; c < NG_REPORT_GRID; c++) {
			unsigned q = hi > lo ? (g[r][c] - lo) * 8 / (hi - lo + 1) : 0;
			fprintf(f, "<rect class=\"cell h%u\" x=\"%u\" y=\"%u\" width=\"1\" height=\"1\"/>", q, c, r);
		}
		fputc('\n', f);
	}
	fputs("</g><g class=\"ax\">", f);
	for (unsigned t = 0; t <= NG_REPORT_GRID; t += NG_REPORT_GRID / 5) {
		unsigned at = t * cell;
		fprintf(f, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">%u</text>", left + at, top + side + 16,
			t * (NG_RESTART_COLS / NG_REPORT_GRID));
		fprintf(f, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">%u</text>", left - 6, top + at + 4,
			t * (NG_RESTART_ROWS / NG_REPORT_GRID));
	}
	fprintf(f, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">sample after the restart (column)</text>"
		   "<text transform=\"translate(16 %u) rotate(-90)\" text-anchor=\"middle\">restart (row)</text>",
		left + side / 2, top + side + 34, top + side / 2);
	/* the legend: one swatch per level */
	unsigned lx = left + side + 40;
	fprintf(f, "<text x=\"%u\" y=\"%u\">count of %u (0x%02x)</text>", lx, top + 10, mcv, mcv);
	fprintf(f, "<text x=\"%u\" y=\"%u\">per block of %u</text>", lx, top + 26, per);
	for (unsigned q = 0; q < 8; q++) {
		/* the counts c with (c - lo) * 8 / span == q, as the cells are coloured */
		unsigned span = hi - lo + 1, a = lo + (q * span + 7) / 8, b = lo + ((q + 1) * span + 7) / 8;
		b = b > hi + 1 ? hi + 1 : b;
		if (b <= a)
			continue;
		char lab[32];
		if (b - 1 == a)
			snprintf(lab, sizeof lab, "%u", a);
		else
			snprintf(lab, sizeof lab, "%u..%u", a, b - 1);
		fprintf(f, "<rect class=\"key h%u\" x=\"%u\" y=\"%u\" width=\"18\" height=\"18\"/>"
			   "<text x=\"%u\" y=\"%u\">%s</text>", q, lx, top + 40 + q * 24, lx + 26,
			top + 54 + q * 24, lab);
	}
	fputs("</g></svg>\n", f);
	char cap[600];
	const ng_restart_report *rr = d->restart;
	snprintf(cap, sizeof cap, "Row r is the first %u samples after restart r. Each cell is a block of "
		 "%u restarts x %u samples, coloured by how often the matrix's most common value (%u) "
		 "occurs in it (%u..%u of %u). A dark row or column band is a restart or a position "
		 "after restart that favours that value; the sanity check's largest count in one row "
		 "or column is X_max = %u (passes at most X_cutoff = %u).", NG_RESTART_COLS,
		 NG_RESTART_ROWS / NG_REPORT_GRID, NG_RESTART_COLS / NG_REPORT_GRID, mcv, lo, hi, per,
		 rr->x_max, rr->x_cutoff);
	figure_close(f, cap);
	free(g);
	return 0;
}

/* ---- tables ---- */
static void row_s(FILE *f, const char *k, const char *v)
{
	fprintf(f, "<tr><th>%s</th><td>", k);
	esc(f, v);
	fputs("</td></tr>\n", f);
}

static void row_f(FILE *f, const char *k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void row_f(FILE *f, const char *k, const char *fmt, ...)
{
	char b[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b, sizeof b, fmt, ap);
	va_end(ap);
	row_s(f, k, b);
}

/* One estimate cell as the text output prints it: "h / b bit(s)", a
 * skipped estimator's reason, or a dash where it does not apply. */
static void est_cell(FILE *f, const ng_est_result *x, unsigned bits)
{
	if (!x->run)
		fputs("<td class=\"na\">&#8212;</td>", f);
	else if (!x->ok) {
		fputs("<td class=\"na\">skipped: ", f);
		esc(f, x->reason);
		fputs("</td>", f);
	} else
		fprintf(f, "<td>%f / %u bit(s)</td>", x->h, bits);
}

static void verdict(FILE *f, bool good, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void verdict(FILE *f, bool good, const char *fmt, ...)
{
	char b[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b, sizeof b, fmt, ap);
	va_end(ap);
	fprintf(f, "<p class=\"verdict %s\">", good ? "good" : "bad");
	esc(f, b);
	fputs("</p>\n", f);
}

static void noniid_tables(FILE *f, const ng_noniid_report *r, bool conditioned)
{
	fputs("<section id=\"verdict\"><h2>Verdict</h2>\n", f);
	verdict(f, true, "Assessed min-entropy: %.17g bits per %u-bit sample", r->h_assessed, r->bits);
	fputs("<table class=\"kv\">\n", f);
	if (!conditioned)
		row_f(f, "H_original", "%f", r->h_original);
	if (r->has_bitstring) {
		row_f(f, "H_bitstring", "%f", r->h_bitstring);
		char k[48];
		snprintf(k, sizeof k, conditioned ? "%u X H_bitstring" : "min(H_original, %u X H_bitstring)", r->bits);
		row_f(f, k, "%f", r->h_assessed);
	}
	/* the estimator that sets the figure: the lowest of the side that
	 * gives the assessed value (the bit string's, times bits, when lower) */
	bool by_bits = r->has_bitstring && r->bits * r->h_bitstring <= r->h_assessed &&
		       (conditioned || r->bits * r->h_bitstring < r->h_original);
	int lead = -1;
	for (int e = 0; e < NG_EST_COUNT; e++) {
		const ng_est_result *x = by_bits ? &r->bit[e] : &r->lit[e];
		if (x->run && x->ok && (lead < 0 || x->h < (by_bits ? r->bit : r->lit)[lead].h))
			lead = e;
	}
	if (lead >= 0 && (by_bits ? r->bit : r->lit)[lead].h > (by_bits ? 1.0 : (double)r->bits))
		lead = -1; /* the width itself bounds the figure */
	fputs("</table></section>\n<section id=\"estimators\"><h2>Estimators (SP 800-90B 6.3)</h2>\n"
	      "<table class=\"est\"><tr><th>Estimator</th><th>Samples</th><th>Bit string</th></tr>\n", f);
	for (int e = 0; e < NG_EST_COUNT; e++) {
		fprintf(f, "<tr%s><th>%s%s</th>", e == lead ? " class=\"lead\"" : "", ng_est_name[e],
			e == lead ? " &#9664; sets the figure" : "");
		est_cell(f, &r->lit[e], r->bits);
		est_cell(f, &r->bit[e], 1);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	if (lead >= 0)
		fprintf(f, "<p>The highlighted row sets the assessed figure: its %s estimate%s is the lowest.</p>\n",
			by_bits ? "bit-string" : "per-sample", by_bits ? ", times the bits per sample," : "");
	fputs("</section>\n", f);
}

static void iid_tables(FILE *f, const ng_iid_report *r, bool conditioned)
{
	fputs("<section id=\"verdict\"><h2>Verdict</h2>\n", f);
	verdict(f, r->iid, "Verdict: %s", r->iid ? "the data passes the IID tests"
						 : "the data is NOT IID: use the non-IID track");
	fputs("<table class=\"kv\">\n", f);
	row_f(f, "Assessed min-entropy (IID track)", "%.17g bits per %u-bit sample", r->h_assessed, r->bits);
	bool by_bits = r->mcv_bit.run && r->bits * r->h_bitstring <= r->h_assessed &&
		       (conditioned || r->bits * r->h_bitstring < r->h_original);
	if (!conditioned)
		row_f(f, by_bits ? "Literal Most Common Value Estimate"
				 : "Literal Most Common Value Estimate &#9664; sets the figure",
		      "%.17g", r->mcv_lit.h);
	if (r->mcv_bit.run)
		row_f(f, by_bits ? "Bitstring Most Common Value Estimate &#9664; sets the figure"
				 : "Bitstring Most Common Value Estimate",
		      "%.17g (%.17g per symbol)", r->mcv_bit.h, r->bits * r->h_bitstring);
	row_f(f, "Raw mean, median", "%.17g, %.17g", r->mean, r->median);
	row_f(f, "Chi square independence", "T = %.17g, df = %lu, P-value = %.17g", r->chi_ind_t,
	      r->chi_ind_df, r->chi_ind_p);
	row_f(f, "Chi square goodness of fit", "T = %.17g, df = %lu, P-value = %.17g", r->chi_gof_t,
	      r->chi_gof_df, r->chi_gof_p);
	row_s(f, "Chi square tests", r->chi_pass ? "Passed" : "Failed");
	if (r->lrs_ok)
		row_f(f, "Longest repeated substring", "W = %u, P_col = %.6Lg, Pr(X >= 1) = %.6Lg", r->lrs_w,
		      r->lrs_pcol, r->lrs_prx);
	row_s(f, "Length of longest repeated substring test", r->lrs_pass ? "Passed" : "Failed");
	row_s(f, "IID permutation tests", r->perm_pass ? "Passed" : "Failed");
	fprintf(f, "</table></section>\n<section id=\"estimators\"><h2>Permutation tests (SP 800-90B 5.1), "
		   "%lu permutations</h2>\n<table class=\"est\"><tr><th>Statistic</th><th>Unpermuted</th>"
		   "<th>C[i][0]</th><th>C[i][1]</th><th>C[i][2]</th><th></th></tr>\n", r->permutations);
	for (int i = 0; i < NG_PERM_STATS; i++) {
		const unsigned *c = r->perm_c[i];
		bool bad = ng_perm_failed(c), stop = r->perm_stopped[i];
		fprintf(f, "<tr><th>%s</th><td>%.6g</td><td>%u</td><td>%u</td><td>%u</td><td class=\"%s\">%s</td></tr>\n",
			ng_perm_name[i], r->perm_t[i], c[0], c[1], c[2], stop ? "na" : bad ? "bad" : "good",
			stop ? "stopped" : bad ? "failed" : "passed");
	}
	fputs("</table>\n<p>Each round shuffles the samples and recomputes every statistic: C[i][0] counts "
	      "the rounds where the shuffled value exceeded the unshuffled one, C[i][1] those where it "
	      "equalled it, C[i][2] those where it fell below it. A statistic stops counting once "
	      "C[i][0] + C[i][1] &gt; 5 and C[i][1] + C[i][2] &gt; 5; it fails (the unshuffled value is among "
	      "the 0.1% most extreme) if either sum is still at most 5 after every round.</p>\n", f);
	for (int i = 0; i < NG_PERM_STATS; i++)
		if (r->perm_stopped[i])
			fprintf(f, "<p class=\"warn\">%s was stopped after %lu of %lu rounds: the verdict was "
				   "already \"not IID\" before its rounds began. neug assess --all-rounds runs "
				   "them.</p>\n", ng_perm_name[i], r->perm_rounds[i], r->rounds_asked);
	fputs("</section>\n", f);
}

static void restart_tables(FILE *f, const ng_restart_report *r, unsigned bits)
{
	fputs("<section id=\"verdict\"><h2>Verdict</h2>\n", f);
	verdict(f, r->sanity_pass, "Restart Sanity Check %s", r->sanity_pass ? "Passed" : "Failed");
	if (r->sanity_pass) {
		verdict(f, r->valid, "Validation Test %s", r->valid ? "Passed" : "Failed");
	}
	fputs("<table class=\"kv\">\n", f);
	row_f(f, "H_I", "%f", r->h_i);
	row_f(f, "ALPHA, X_cutoff", "%.6g, %u", r->alpha, r->x_cutoff);
	row_f(f, "X_max", "%u", r->x_max);
	if (r->sanity_pass) {
		row_f(f, "H_r", "%f", r->h_r);
		row_f(f, "H_c", "%f", r->h_c);
		row_f(f, "min(H_r, H_c, H_I)", "%f", r->h_min);
	}
	fputs("</table></section>\n", f);
	if (!r->sanity_pass)
		return;
	fputs("<section id=\"estimators\"><h2>Estimators on rows and columns</h2>\n"
	      "<table class=\"est\"><tr><th>Estimator</th><th>Rows</th><th>Columns</th></tr>\n", f);
	if (r->iid) {
		fprintf(f, "<tr><th>Most Common Value</th><td>%f / %u bit(s)</td><td>%f / %u bit(s)</td></tr>\n",
			r->h_r, bits, r->h_c, bits);
		fprintf(f, "<tr><th>IID tests</th><td>%s</td><td>%s</td></tr>\n", r->irows.iid ? "Passed" : "Failed",
			r->icols.iid ? "Passed" : "Failed");
	} else {
		for (int e = 0; e < NG_EST_COUNT; e++) {
			if (!r->rows.lit[e].run)
				continue;
			fprintf(f, "<tr><th>%s</th>", ng_est_name[e]);
			est_cell(f, &r->rows.lit[e], bits);
			est_cell(f, &r->cols.lit[e], bits);
			fputs("</tr>\n", f);
		}
	}
	fputs("</table></section>\n", f);
}

static const char style[] =
	"body{font:15px/1.45 system-ui,sans-serif;color:#1b1b1b;max-width:60em;margin:1.5em auto;padding:0 1em}"
	"h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.6em}"
	"h3{font-size:1em;margin:.2em 0}table{border-collapse:collapse;margin:.5em 0}"
	"th,td{padding:.2em .8em;text-align:left;border-bottom:1px solid #eee;vertical-align:top}"
	".kv th{white-space:nowrap}"
	"td{font-variant-numeric:tabular-nums}.na{color:#777}.good{color:#17663a}.bad{color:#b00020}"
	".verdict{font-size:1.15em;font-weight:600;padding:.5em .8em;border-left:5px solid}"
	".verdict.good{background:#eaf6ee}.verdict.bad{background:#fdecee}"
	".warn{background:#fff6dd;padding:.4em .8em}figure{margin:1.2em 0}"
	"figcaption{color:#444;font-size:.92em}svg{width:100%;height:auto;display:block}"
	".ax{font-size:12px;fill:#333}.ax line,.ax path{stroke:#333;fill:none}"
	".ax line.grid{stroke:#e4e4e4}.bar{fill:#3b6ea8}.ref{stroke:#b05000;stroke-dasharray:5 4;fill:none}"
	".zero{stroke:#333}.stem{stroke:#8aa6c8}.pt{fill:#1f4e85}.pt.out{fill:#c0392b}"
	".line{fill:none;stroke:#3b6ea8;stroke-width:1.5}.hm rect{shape-rendering:crispEdges}"
	".key{stroke:#999}tr.lead th,tr.lead td{background:#fff1b8;font-weight:bold}";

int ng_report_html(FILE *f, const ng_report_data *d)
{
	const char *track = d->restart ? "restart tests (SP 800-90B 3.1.4)"
			    : d->iid ? "IID track (SP 800-90B 5)"
				     : "non-IID track (SP 800-90B 6.3)";
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Entropy assessment: ", f);
	esc(f, d->input);
	fprintf(f, "</title>\n<style>%s", style);
	for (unsigned q = 0; q < 8; q++)
		fprintf(f, ".h%u{fill:%s}", q, heat[q]);
	fputs("</style></head><body>\n<h1>SP 800-90B entropy assessment</h1>\n"
	      "<p>by <b>neug assess</b>, figures computed as NIST's reference tool (EntropyAssessment "
	      "1.1.7) computes them.</p>\n", f);
	fputs("<section id=\"data\"><h2>Data</h2>\n<table class=\"kv\">\n", f);
	row_s(f, "Input", d->input);
	if (d->sha256) {
		char k[80];
		snprintf(k, sizeof k, "SHA-256 of %s", d->sha_of ? d->sha_of : "the input");
		row_s(f, k, d->sha256);
		row_f(f, "Size", "%llu bytes", (unsigned long long)d->size);
	}
	row_s(f, "Read as", d->kind);
	row_f(f, "Samples", "%zu", d->n);
	if (d->bits_inferred)
		row_f(f, "Bits per sample", "%u (inferred: --bits was not given)", d->bits);
	else
		row_f(f, "Bits per sample", "%u", d->bits);
	const unsigned k = d->noniid ? d->noniid->k : d->iid ? d->iid->k : 0;
	if (k)
		row_f(f, "Distinct values", "%u", k);
	char tr[96];
	snprintf(tr, sizeof tr, "%s, %s data", track, d->conditioned ? "conditioned" : "initial (raw)");
	row_s(f, "Assessment", tr);
	if (d->command)
		row_s(f, "Command", d->command);
	if (d->version)
		row_f(f, "neug version", "%s", d->version);
	if (d->date)
		row_s(f, "Date", d->date);
	fputs("</table>\n", f);
	if (d->bits_inferred && d->bits_full > d->bits)
		fprintf(f, "<p class=\"warn\"><b>Bits per sample inferred.</b> --bits was not given, so the width "
			   "was taken from the highest bit set in the data: %u bits. The assessed min-entropy "
			   "with the file's full width, %u bits per sample, is <b>%.17g</b>. Give --bits=N to "
			   "say how many bits of each byte the source produces.</p>\n",
			d->bits, d->bits_full, d->h_full);
	if (d->n < 1000000)
		fprintf(f, "<p class=\"warn\">Warning: the data holds %zu samples, fewer than the 1,000,000 "
			   "SP 800-90B asks for.</p>\n", d->n);
	fputs("</section>\n", f);
	if (d->noniid)
		noniid_tables(f, d->noniid, d->conditioned);
	else if (d->iid)
		iid_tables(f, d->iid, d->conditioned);
	else if (d->restart)
		restart_tables(f, d->restart, d->bits);
	fputs("<section id=\"plots\"><h2>Plots</h2>\n", f);
	plot_histogram(f, d);
	plot_autocorr(f, d);
	plot_running_mcv(f, d);
	if ((d->words && plot_halfwords(f, d)) ||
	    (d->restart && d->n == (size_t)NG_RESTART_ROWS * NG_RESTART_COLS && plot_heatmap(f, d))) {
		errno = ENOMEM;
		return -1;
	}
	fputs("</section>\n</body></html>\n", f);
	return fflush(f) || ferror(f) ? -1 : 0;
}
