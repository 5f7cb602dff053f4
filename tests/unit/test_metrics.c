/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The metrics formatter (host/daemons/metrics.c) from decoded GET_INFO answers, as
 * neug info --prometheus prints it: a NeuG 1.0.x device (indices 0..7 only)
 * and this project's firmware with a latched failure; every family once,
 * HELP and TYPE before its sample, counters named *_total, label values
 * escaped; the daemon families; the atomic write (mode 0644 whatever the
 * umask, nothing left behind, a failed write leaves the old file) and the
 * entropy_avail override.
 * With NG_METRICS_DUMP=DIR it also writes the two expositions as
 * DIR/info-neug1.prom and DIR/info-fw.prom for promtool
 * (tests/scripts/metrics.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "counters.h"
#include "info.h"
#include "metrics.h"
#include "neug_device.h"

#define STALL (-9) /* LIBUSB_ERROR_PIPE */

static void put(ng_info *inf, unsigned idx, uint64_t v)
{
	uint8_t d[8];
	const ng_counter *c = ng_counter_by_info(idx);
	for (int i = 0; i < 8; i++)
		d[i] = (uint8_t)(v >> (8 * i));
	ng_info_decode(inf, idx, c ? c->width : 8, d);
}

static char *print(const ng_metrics *m, size_t *len)
{
	char *buf;
	FILE *f = open_memstream(&buf, len);
	ng_metrics_print(m, f);
	fclose(f);
	return buf;
}

static int count(const char *text, const char *needle)
{
	int n = 0;
	for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* Every sample line is preceded by its # HELP and # TYPE lines, once per
 * family; counters (TYPE counter) end in _total. Returns the number of
 * families, -1 on a violation (described in why). */
static int families(const char *text, char *why, size_t whylen)
{
	char name[128] = "", type[32] = "";
	int n = 0;
	const char *p = text;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)l, p);
		if (!strncmp(line, "# HELP ", 7)) {
			sscanf(line + 7, "%127s", name);
			type[0] = 0;
			char key[140];
			snprintf(key, sizeof key, "# HELP %s ", name);
			if (count(text, key) != 1) {
				snprintf(why, whylen, "HELP %s not once", name);
				return -1;
			}
			n++;
		} else if (!strncmp(line, "# TYPE ", 7)) {
			char tn[128];
			if (sscanf(line + 7, "%127s %31s", tn, type) != 2 || strcmp(tn, name)) {
				snprintf(why, whylen, "TYPE without its HELP: %.200s", line);
				return -1;
			}
			size_t nl = strlen(name);
			if (!strcmp(type, "counter") != (nl > 6 && !strcmp(name + nl - 6, "_total"))) {
				snprintf(why, whylen, "%s: a %s %s _total", name, type,
					 strcmp(type, "counter") ? "ending in" : "not ending in");
				return -1;
			}
		} else if (l) {
			size_t nl = strlen(name);
			if (!type[0] || strncmp(line, name, nl) || line[nl] != '{') {
				snprintf(why, whylen, "a sample outside its family: %.200s", line);
				return -1;
			}
		}
		p += l + (e != NULL);
	}
	return n;
}

static void dump(const char *name, const char *text, size_t len)
{
	const char *dir = getenv("NG_METRICS_DUMP");
	if (!dir)
		return;
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
}

int main(void)
{
	char tmpl[] = "/tmp/ng-metrics.XXXXXX", path[256], why[300] = "";
	const char *dir = mkdtemp(tmpl);
	if (!dir) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof path, "%s/entropy_avail", dir);
	FILE *f = fopen(path, "w");
	fputs("256\n", f);
	fclose(f);
	setenv("NEUG_ENTROPY_AVAIL", path, 1);
	CHECK(ng_metrics_entropy_avail() == 256, "entropy_avail from $NEUG_ENTROPY_AVAIL: 256");

	/* NeuG 1.0.x: indices 0..7 answered, the rest STALL. */
	ng_info neug = {0};
	snprintf(neug.tty, sizeof neug.tty, "/dev/ttyACM0");
	snprintf(neug.serial, sizeof neug.serial, "FSIJ-1.0.6-\"q\"\\x");
	put(&neug, NG_INFO_MODE, 0);
	put(&neug, NG_INFO_NEUG_ERR, 3);
	for (unsigned i = NG_INFO_NEUG_ERR_RC; i <= NG_INFO_NEUG_P4K_MAX; i++)
		put(&neug, i, i == NG_INFO_NEUG_P4K_MAX ? 22 : 0);
	for (unsigned i = NG_INFO_EXT_FIRST; i <= NG_INFO_LAST; i++)
		ng_info_decode(&neug, i, STALL, (const uint8_t *)"\0\0\0\0\0\0\0\0");
	ng_info_finish(&neug);
	ng_metrics m;
	ng_metrics_from_info(&m, &neug);
	size_t len;
	char *t = print(&m, &len);
	dump("info-neug1.prom", t, len);
	int nf = families(t, why, sizeof why);
	/* neug_info, present, failure, 8 rows, entropy_avail */
	CHECK(nf == 12, "NeuG 1.0.x: 12 families, each HELP, TYPE, samples, counters *_total (%d%s%s)", nf,
	      *why ? ": " : "", why);
	CHECK(strstr(t, "neug_info{program=\"info\",source=\"device:/dev/ttyACM0\","
			"serial=\"FSIJ-1.0.6-\\\"q\\\"\\\\x\",mode=\"conditioned\"} 1\n") != NULL,
	      "neug_info: source, serial (quote and backslash escaped) and mode as labels");
	CHECK(strstr(t, "# HELP neug_crc_test_errors_total NeuG CRC-level test errors\n# TYPE neug_crc_test_errors_total counter\n"
			"neug_crc_test_errors_total{program=\"info\",source=\"device:/dev/ttyACM0\"} 3\n") != NULL,
	      "a counter row: HELP = the table's label, TYPE counter, _total, its value");
	CHECK(strstr(t, "# TYPE neug_crc_apt4096_max gauge\nneug_crc_apt4096_max{program=\"info\",source=\"device:/dev/ttyACM0\"} 22\n") != NULL,
	      "a maximum: a gauge without _total");
	CHECK(strstr(t, "# TYPE neug_output_mode gauge\n"
			"neug_output_mode{program=\"info\",source=\"device:/dev/ttyACM0\",mode=\"conditioned\"} 1\n"
			"neug_output_mode{program=\"info\",source=\"device:/dev/ttyACM0\",mode=\"crc32\"} 0\n"
			"neug_output_mode{program=\"info\",source=\"device:/dev/ttyACM0\",mode=\"raw\"} 0\n") != NULL,
	      "an enumeration (the mode): a gauge per state, labelled with its name, 1 for the present one");
	CHECK(!strstr(t, "neug_samples_total") && !strstr(t, "neug_status{") && !strstr(t, "neug_running"),
	      "only the rows the device answered; no daemon families");
	CHECK(strstr(t, "neug_device_present{program=\"info\",source=\"device:/dev/ttyACM0\"} 1\n") &&
	      strstr(t, "neug_persistent_failure{program=\"info\",source=\"device:/dev/ttyACM0\"} 0\n") &&
	      strstr(t, "neug_kernel_entropy_avail_bits{program=\"info\",source=\"device:/dev/ttyACM0\"} 256\n"),
	      "present 1, no persistent failure, entropy_avail 256");
	free(t);

	/* This project's firmware: every row, a latched RCT failure, 40-bit counts. */
	ng_info fw = {0};
	snprintf(fw.serial, sizeof fw.serial, "0123ABCD");
	for (size_t i = 0; i < ng_counters_n; i++)
		put(&fw, ng_counters[i].info, 7);
	put(&fw, NG_INFO_MODE, 1);
	put(&fw, NG_INFO_STATUS, NG_HEALTH_RCT | NG_HEALTH_PERSISTENT);
	put(&fw, NG_INFO_FAIL_TEST, 1);
	put(&fw, NG_INFO_SAMPLES, 1099511627776ull + 5);
	put(&fw, NG_INFO_BLOCKS_DROPPED, 12);
	ng_info_finish(&fw);
	ng_metrics_from_info(&m, &fw);
	t = print(&m, &len);
	dump("info-fw.prom", t, len);
	nf = families(t, why, sizeof why);
	CHECK(nf == (int)ng_counters_n + 4, "firmware: every one of the %zu rows and 4 more families (%d%s%s)",
	      ng_counters_n, nf, *why ? ": " : "", why);
	CHECK(strstr(t, "neug_samples_total{program=\"info\",source=\"device\"} 1099511627781\n") &&
	      strstr(t, "neug_blocks_dropped_total{program=\"info\",source=\"device\"} 12\n") &&
	      strstr(t, "mode=\"crc32\"} 1\n"),
	      "firmware: 64-bit samples exact, blocks dropped, mode crc32, source \"device\" without a tty");
	CHECK(strstr(t, "neug_persistent_failure{program=\"info\",source=\"device\"} 1\n") != NULL,
	      "a latched persistent failure: neug_persistent_failure 1");
	CHECK(strstr(t, "neug_min_entropy_bits{program=\"info\",source=\"device\"} 0.007\n") &&
	      strstr(t, "neug_adc_min_entropy_bits{program=\"info\",source=\"device\"} 0.007\n") &&
	      strstr(t, "neug_failure_test_statistic{") && !strstr(t, "milli") && !strstr(t, "_value") &&
	      !strstr(t, "neug_neug_") && !strstr(t, "_count{"),
	      "h_milli, adc_h_milli in bits (7 millibits: 0.007), fail_count: no _milli, _value, _count or neug_neug_");
	CHECK(strstr(t, "neug_failure_test{program=\"info\",source=\"device\",test=\"none\"} 0\n"
			"neug_failure_test{program=\"info\",source=\"device\",test=\"rct\"} 1\n"
			"neug_failure_test{program=\"info\",source=\"device\",test=\"apt\"} 0\n") &&
	      strstr(t, "neug_clock_source{program=\"info\",source=\"device\",clock=\"hse\"} 0\n"
			"neug_clock_source{program=\"info\",source=\"device\",clock=\"hsi_fallback\"} 0\n"
			"neug_clock_source{program=\"info\",source=\"device\",clock=\"pll_failed\"} 0\n"
			"neug_clock_source{program=\"info\",source=\"device\",clock=\"7\"} 1\n"),
	      "enumerations: the latched test rct 1; a clock value without a name (7) is a state of its own");
	free(t);

	/* A daemon's state: feed figures, running, timestamps; no device rows filter. */
	ng_metrics d = {.program = "feed", .daemon = true, .running = true, .present = false, .feed = true,
			.bytes_written = 4096, .bits_credited = 32768, .entropy_avail = -1,
			.start_time = 1700000000, .last_output = 1700000100};
	snprintf(d.source, sizeof d.source, "device:/dev/ttyACM1");
	t = print(&d, &len);
	nf = families(t, why, sizeof why);
	CHECK(nf == 4 + (int)ng_counters_n + 4, "feed: %zu rows, 8 more families (%d%s%s)", ng_counters_n, nf,
	      *why ? ": " : "", why);
	CHECK(strstr(t, "neug_device_present{program=\"feed\",source=\"device:/dev/ttyACM1\"} 0\n") &&
	      strstr(t, "neug_feed_written_bytes_total{program=\"feed\",source=\"device:/dev/ttyACM1\"} 4096\n") &&
	      strstr(t, "neug_feed_entropy_credited_bits_total{program=\"feed\",source=\"device:/dev/ttyACM1\"} 32768\n") &&
	      strstr(t, "neug_last_output_timestamp_seconds{program=\"feed\",source=\"device:/dev/ttyACM1\"} 1700000100\n") &&
	      strstr(t, "neug_running{program=\"feed\",source=\"device:/dev/ttyACM1\"} 1\n") &&
	      !strstr(t, "entropy_avail") && !strstr(t, "neug_egd"),
	      "feed: device gone (0), bytes written, bits credited, last output, running; no entropy_avail when unreadable");
	free(t);

	/* The atomic write: mode 0644 despite umask 077, no temporary left;
	 * a failed write leaves the old file. */
	snprintf(path, sizeof path, "%s/neug.prom", dir);
	mode_t old = umask(077);
	char err[600];
	int r = ng_metrics_write(path, &d, err, sizeof err);
	umask(old);
	struct stat st = {0};
	int sr = stat(path, &st);
	CHECK(r == 0 && sr == 0 && (st.st_mode & 0777) == 0644 && st.st_size > 1000,
	      "ng_metrics_write: the file, mode 0644 under umask 077 (%o)", (unsigned)(st.st_mode & 0777));
	char tmp[300];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	CHECK(access(tmp, F_OK) != 0, "no temporary file left beside it");
	snprintf(tmp, sizeof tmp, "%s/missing/neug.prom", dir);
	r = ng_metrics_write(tmp, &d, err, sizeof err);
	CHECK(r == -1 && strstr(err, "missing") && access(tmp, F_OK) != 0,
	      "a missing directory: -1, the path named ('%s')", err);

	unlink(path);
	snprintf(path, sizeof path, "%s/entropy_avail", dir);
	unlink(path);
	rmdir(dir);
	return ng_check_exit();
}
