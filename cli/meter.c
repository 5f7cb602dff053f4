/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "meter.h"
#include <math.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ng_meter_bytes(char *buf, size_t len, double b)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;
	while (b >= 1024 && u < 4)
		b /= 1024, u++;
	if (u == 0)
		snprintf(buf, len, "%.0f B", b);
	else
		snprintf(buf, len, "%.2f %s", b, unit[u]);
}

void ng_meter_init(ng_meter *p, FILE *f, int force, uint64_t total, const char *prefix)
{
	p->f = f;
	p->tty = isatty(fileno(f)) == 1;
	p->on = force > 0 || (force < 0 && p->tty);
	p->shown = false;
	p->len = 0;
	p->total = total;
	p->t0 = now_s();
	p->next = p->t0 + 1;
	p->prefix = prefix;
}

void ng_meter_update(ng_meter *p, uint64_t done)
{
	if (!p->on)
		return;
	double t = now_s();
	if (t < p->next)
		return;
	p->next = t + 1;
	double secs = t - p->t0, rate = secs > 0 ? (double)done / secs : 0;
	char b[32], r[32], tot[48] = "", left[48] = "";
	ng_meter_bytes(b, sizeof b, (double)done);
	ng_meter_bytes(r, sizeof r, rate);
	if (p->total != UINT64_MAX) {
		char tb[32];
		ng_meter_bytes(tb, sizeof tb, (double)p->total);
		snprintf(tot, sizeof tot, " of %s (%.0f%%)", tb, p->total ? 100.0 * (double)done / (double)p->total : 100.0);
		if (rate > 0 && done <= p->total) {
			double s = ceil((double)(p->total - done) / rate);
			if (s < 360000)
				snprintf(left, sizeof left, ", %d:%02d:%02d left", (int)(s / 3600), (int)s / 60 % 60, (int)s % 60);
			else
				snprintf(left, sizeof left, ", over 100 hours left");
		}
	}
	/* No escape sequence: on a terminal a carriage return, and spaces over
	 * what a longer line before left. */
	int n = fprintf(p->f, "%s%s: %s%s, %s/s%s", p->tty ? "\r" : "", p->prefix, b, tot, r, left) - (p->tty ? 1 : 0);
	if (p->tty) {
		fprintf(p->f, "%*s", p->len > n ? p->len - n : 0, "");
		p->len = n > p->len ? n : p->len;
	} else {
		fputc('\n', p->f);
	}
	fflush(p->f);
	p->shown = true;
}

void ng_meter_end(ng_meter *p)
{
	if (p->on && p->tty && p->shown) {
		fprintf(p->f, "\r%*s\r", p->len, "");
		fflush(p->f);
	}
	p->shown = false;
}
