/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "info.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dfu.h"
#include "counters.h"
#include "dfu_host.h"
#include "json.h"
#include "neug_device.h"

static uint64_t le(const uint8_t *d, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | d[i];
	return v;
}

/* Size of index i's value in bytes, 0 for an index we do not know. */
static int info_size(unsigned i)
{
	const ng_counter *c = ng_counter_by_info(i);
	if (c)
		return c->width;
	switch (i) {
	case NG_INFO_IMAGE_DIGEST: case NG_INFO_KEY_FINGERPRINT:
		return 32;
	case NG_INFO_LOADER_VERSION: case NG_INFO_BOOT_STATUS: case NG_INFO_IMAGE_VERSION:
	case NG_INFO_IMAGE_LENGTH: case NG_INFO_FLOOR:
		return 4;
	default:
		return 0;
	}
}

int ng_info_decode(ng_info *inf, unsigned index, int rc, const uint8_t *data)
{
	int size = info_size(index);
	if (size == 0 || rc < size)
		return -1;
	uint64_t v = le(data, size > 8 ? 8 : size);
	const ng_counter *c = ng_counter_by_info(index);
	if (c) {
		ng_counter_set(c, &inf->st, v);
	} else {
		switch (index) {
		case NG_INFO_LOADER_VERSION: inf->loader_version = (uint32_t)v; break;
		case NG_INFO_BOOT_STATUS: inf->boot_status = (uint32_t)v; break;
		case NG_INFO_IMAGE_DIGEST: memcpy(inf->image_digest, data, 32); break;
		case NG_INFO_KEY_FINGERPRINT: memcpy(inf->key_fpr, data, 32); break;
		case NG_INFO_IMAGE_VERSION: inf->image_version = (uint32_t)v; break;
		case NG_INFO_FLOOR: inf->floor = (uint32_t)v; break;
		default: inf->image_length = (uint32_t)v; break; /* NG_INFO_IMAGE_LENGTH */
		}
	}
	inf->have[index] = true;
	return 0;
}

void ng_info_finish(ng_info *inf)
{
	/* The raw-sample state needs at least the status and the counters. */
	inf->extended = inf->have[NG_INFO_STATUS] && inf->have[NG_INFO_RCT_FAILURES] &&
			inf->have[NG_INFO_APT_FAILURES];
	inf->boot = inf->have[NG_INFO_LOADER_VERSION] && inf->have[NG_INFO_BOOT_STATUS];
	inf->dfu_mode = inf->boot && (inf->boot_status & NG_BOOT_DFU_MODE);
}

static bool all_zero(const uint8_t *b, size_t n)
{
	uint8_t o = 0;
	for (size_t i = 0; i < n; i++)
		o |= b[i];
	return o == 0;
}

void ng_info_print_boot(const ng_info *inf, FILE *f)
{
	char hx[65];
	if (!inf->boot) {
		fprintf(f, "loader        none reported (no GET_INFO 40/41: firmware without this project's "
			"boot loader)\n");
		return;
	}
	uint32_t s = inf->boot_status;
	fprintf(f, "loader        version %u.%u%s%s%s%s%s\n", inf->loader_version >> 16, inf->loader_version & 0xffff,
		inf->loader[0] ? " (" : "", inf->loader, inf->loader[0] ? ")" : "",
		s & NG_BOOT_WRP ? ", write-protected" : ", not write-protected",
		inf->dfu_mode ? (s & NG_BOOT_DFU_REQUESTED ? "; in DFU mode (asked to)"
					: "; in DFU mode: no valid application to start")
			      : "");
	if (inf->have[NG_INFO_IMAGE_DIGEST] && (s & NG_BOOT_IMAGE_VALID)) {
		ng_hex(hx, inf->image_digest, 32);
		fprintf(f, "image         SHA-256 %s\n", hx);
		fprintf(f, "              (computed by the loader at boot; %u bytes, version %u.%u.%u)\n",
			inf->image_length, inf->image_version >> 16, (inf->image_version >> 8) & 0xff,
			inf->image_version & 0xff);
	} else {
		fprintf(f, "image         none valid (the loader found no image it would start)\n");
	}
	bool key = (s & NG_BOOT_OWNER_KEY) && inf->have[NG_INFO_KEY_FINGERPRINT] && !all_zero(inf->key_fpr, 32);
	if (key)
		ng_hex(hx, inf->key_fpr, 32);
	if (s & NG_BOOT_IMAGE_SIGNED)
		fprintf(f, "signed        yes, signature checked against the owner key, fingerprint %s\n",
			key ? hx : "?");
	else if (s & NG_BOOT_KEY_REFUSED)
		fprintf(f, "signed        never: the board's owner key%s%s is refused (small order or not "
			"canonical: forged signatures would verify under it), so no image starts; only a new "
			"loader (SWD or serial) with a key from neug keygen helps\n", key ? " " : "", key ? hx : "");
	else if (key)
		fprintf(f, "signed        no valid signature; the board holds owner key %s and starts only "
			"images it signed\n", hx);
	else
		fprintf(f, "signed        not checked: the board holds no owner key (integrity only: length "
			"and SHA-256)\n");
	if (inf->have[NG_INFO_FLOOR])
		fprintf(f, "floor         version %u.%u.%u (the newest it started: an older image needs the "
			"downgrade flag, neug sign --allow-downgrade)\n", inf->floor >> 16, (inf->floor >> 8) & 0xff,
			inf->floor & 0xff);
}

const char *ng_info_mode_name(uint32_t mode)
{
	switch (mode) {
	case NG_MODE_CONDITIONED: return "conditioned";
	case NG_MODE_CRC32: return "crc32";
	case NG_MODE_RAW: return "raw";
	default: return "unknown";
	}
}

const char *ng_info_clock_name(uint32_t clock)
{
	switch (clock) {
	case 1: return "HSE (crystal or external clock, 72 MHz)";
	case 2: return "HSI (the HSE did not start: internal RC, 48 MHz)";
	case 3: return "HSI 8 MHz (the PLL did not lock: no USB timing)";
	default: return "not reported";
	}
}

double ng_info_mcv_bits(uint32_t c, uint32_t n)
{
	if (n < 2 || c == 0 || c > n)
		return -1;
	double p = (double)c / n, pu = p + 2.576 * sqrt(p * (1 - p) / (n - 1.0));
	return pu >= 1 ? 0.0 : -log2(pu);
}

static const char *test_name(uint32_t bit)
{
	switch (bit) {
	case NG_HEALTH_RCT: return "repetition count test";
	case NG_HEALTH_APT: return "adaptive proportion test";
	case NG_HEALTH_STARTUP_FAILED: return "start-up test";
	default: return "health test";
	}
}

int ng_info_health(const ng_info *inf, char *buf, size_t len)
{
	if (inf->dfu_mode && !inf->have[NG_INFO_NEUG_ERR]) {
		snprintf(buf, len, "not running: the board is in DFU mode (its boot loader), no noise source");
		return 1;
	}
	if (!inf->extended) {
		if (!inf->have[NG_INFO_NEUG_ERR]) {
			snprintf(buf, len, "unknown (the device answered no health counter)");
			return 1;
		}
		if (inf->st.neug_err == 0) {
			snprintf(buf, len, "no errors in NeuG's CRC-level tests (this firmware does not "
				 "test its raw samples)");
			return 0;
		}
		snprintf(buf, len, "warning: %u errors in NeuG's CRC-level tests", inf->st.neug_err);
		return 1;
	}
	uint32_t s = inf->st.status;
	if (inf->have[NG_INFO_STARTUP] && inf->st.startup) {
		snprintf(buf, len, "failed: the start-up estimate refused the noise source (%s%s%s): no output",
			 inf->st.startup & 1u ? "ADC1 too weak " : "", inf->st.startup & 2u ? "ADC2 too weak " : "",
			 inf->st.startup & 4u ? "no samples" : "");
		return 2;
	}
	if (inf->have[NG_INFO_SELFTEST] && inf->st.selftest) {
		snprintf(buf, len, "failed: the power-up self-test failed (code %u): no output", inf->st.selftest);
		return 2;
	}
	if (s & NG_HEALTH_PERSISTENT) {
		uint32_t t = inf->st.fail_test;
		/* a half-word stream names its ADC */
		const char *on = inf->st.fail_stream == NG_STREAM_ADC1 ? " on ADC1's half-word"
			       : inf->st.fail_stream == NG_STREAM_ADC2 ? " on ADC2's half-word" : "";
		if ((s & NG_HEALTH_STARTUP_FAILED) && !t)
			t = NG_HEALTH_STARTUP_FAILED;
		if (t == NG_HEALTH_RCT)
			snprintf(buf, len, "persistent failure: repetition count test, %u identical samples "
				 "in a row%s at sample %llu%s", inf->st.fail_count, on,
				 (unsigned long long)inf->st.fail_index,
				 s & NG_HEALTH_STARTUP_FAILED ? " (during the start-up test)" : "");
		else if (t == NG_HEALTH_APT)
			snprintf(buf, len, "persistent failure: adaptive proportion test, %u of %u samples "
				 "equal%s at sample %llu%s", inf->st.fail_count,
				 inf->st.apt_window ? inf->st.apt_window : 512, on,
				 (unsigned long long)inf->st.fail_index,
				 s & NG_HEALTH_STARTUP_FAILED ? " (during the start-up test)" : "");
		else
			snprintf(buf, len, "persistent failure: %s at sample %llu", test_name(t),
				 (unsigned long long)inf->st.fail_index);
		return 2;
	}
	if (s & NG_HEALTH_STARTUP) {
		snprintf(buf, len, "starting: start-up test on the first %u samples (%llu so far)",
			 NG_STARTUP_SAMPLES, (unsigned long long)inf->st.samples);
		return 0;
	}
	if (inf->st.rct_failures || inf->st.apt_failures || inf->st.neug_err || (s & (NG_HEALTH_RCT | NG_HEALTH_APT | NG_HEALTH_NEUG))) {
		snprintf(buf, len, "healthy, with transient failures: %u repetition count, %u adaptive "
			 "proportion, %u NeuG CRC-level (%llu blocks dropped)", inf->st.rct_failures,
			 inf->st.apt_failures, inf->st.neug_err, (unsigned long long)inf->st.blocks_dropped);
		return 1;
	}
	snprintf(buf, len, "healthy");
	return 0;
}

void ng_info_print(const ng_info *inf, FILE *f)
{
	char h[300];
	ng_info_health(inf, h, sizeof h);
	if (inf->tty[0])
		fprintf(f, "device        %s (USB bus %d device %d)\n", inf->tty, inf->bus, inf->addr);
	else
		fprintf(f, "device        USB bus %d device %d (no tty found)\n", inf->bus, inf->addr);
	fprintf(f, "vendor        %s (%04x)\n", inf->manufacturer[0] ? inf->manufacturer : "?", inf->vid);
	fprintf(f, "product       %s (%04x, release %x.%02x)\n", inf->product[0] ? inf->product : "?",
		inf->pid, inf->bcd_device >> 8, inf->bcd_device & 0xff);
	fprintf(f, "serial        %s\n", inf->serial[0] ? inf->serial : "?");
	fprintf(f, "revision      %s\n", inf->revision[0] ? inf->revision : "?");
	fprintf(f, "board         %s\n", inf->board[0] ? inf->board : "?");
	fprintf(f, "build         %s\n", inf->config[0] ? inf->config : "?");
	fprintf(f, "system        %s\n", inf->system[0] ? inf->system : "?");
	ng_info_print_boot(inf, f);
	if (inf->dfu_mode && !inf->have[NG_INFO_MODE])
		fprintf(f, "mode          DFU: the boot loader runs, no random output\n");
	else if (inf->have[NG_INFO_MODE])
		fprintf(f, "mode          %s (%u)\n", ng_info_mode_name(inf->st.mode), inf->st.mode);
	else
		fprintf(f, "mode          ? (GET_INFO not answered)\n");
	fprintf(f, "health        %s\n", h);
	if (inf->extended) {
		fprintf(f, "raw-sample tests (SP 800-90B 4.4, on the noise samples):\n");
		fprintf(f, "  declared min-entropy   %u.%03u bits per sample, %u samples per conditioned block\n",
			inf->st.h_milli / 1000, inf->st.h_milli % 1000, inf->st.samples_per_block);
		fprintf(f, "  repetition count       cutoff %u, longest run %u, failures %u\n",
			inf->st.rct_cutoff, inf->st.rct_max, inf->st.rct_failures);
		fprintf(f, "  adaptive proportion    cutoff %u in %u, largest count %u, failures %u\n",
			inf->st.apt_cutoff, inf->st.apt_window, inf->st.apt_max, inf->st.apt_failures);
		if (inf->have[NG_INFO_ADC_H_MILLI] && inf->st.adc_h_milli) {
			const ng_pipeline_stats *t = &inf->st;
			fprintf(f, "  per ADC half-word      %u.%03u bits declared, cutoffs: repetition %u, proportion %u in %u\n",
				t->adc_h_milli / 1000, t->adc_h_milli % 1000, t->adc_rct_cutoff, t->adc_apt_cutoff,
				t->apt_window);
			fprintf(f, "    ADC1                 longest run %u, largest count %u, failures %u + %u\n",
				t->adc1_rct_max, t->adc1_apt_max, t->adc1_rct_failures, t->adc1_apt_failures);
			fprintf(f, "    ADC2                 longest run %u, largest count %u, failures %u + %u\n",
				t->adc2_rct_max, t->adc2_apt_max, t->adc2_rct_failures, t->adc2_apt_failures);
		}
		fprintf(f, "  samples tested         %llu\n", (unsigned long long)inf->st.samples);
		fprintf(f, "  blocks out / dropped   %llu / %llu\n", (unsigned long long)inf->st.blocks_out,
			(unsigned long long)inf->st.blocks_dropped);
		fprintf(f, "  bytes sent             %llu\n", (unsigned long long)inf->st.bytes_sent);
		fprintf(f, "  status bits            0x%02x\n", inf->st.status);
		if (inf->have[NG_INFO_SOURCE_ERRORS])
			fprintf(f, "  noise-source errors    %u (samples lost, e.g. ADC/DMA overruns)\n",
				inf->st.source_errors);
		if (inf->have[NG_INFO_SELFTEST])
			fprintf(f, "  power-up self-test     %s\n", inf->st.selftest ? "FAILED" : "passed");
		if (inf->have[NG_INFO_CLOCK])
			fprintf(f, "  clock source           %s\n", ng_info_clock_name(inf->st.clock));
		if (inf->have[NG_INFO_STARTUP] && inf->have[NG_INFO_STARTUP_N] && inf->st.startup_n) {
			fprintf(f, "  start-up estimate      %s (MCV over the first %u samples per ADC; bar 2.0 bits)\n",
				inf->st.startup ? "REFUSED" : "passed", inf->st.startup_n);
			const uint32_t mc[2] = {inf->st.startup_mode1, inf->st.startup_mode2};
			for (int k = 0; k < 2; k++)
				fprintf(f, "    ADC%d                 %.2f bits per half-word (mode count %u)\n", k + 1,
					ng_info_mcv_bits(mc[k], inf->st.startup_n), mc[k]);
		}
	} else {
		fprintf(f, "raw-sample tests: not reported (NeuG 1.0.x firmware answers GET_INFO 0..7 only)\n");
	}
	fprintf(f, "NeuG CRC-level tests (GET_INFO 1..7):\n");
	fprintf(f, "  errors                 %u (repetition %u, proportion-64 %u, proportion-4096 %u)\n",
		inf->st.neug_err, inf->st.neug_err_rc, inf->st.neug_err_p64, inf->st.neug_err_p4k);
	fprintf(f, "  maxima                 repetition %u, proportion-64 %u, proportion-4096 %u\n",
		inf->st.neug_rc_max, inf->st.neug_p64_max, inf->st.neug_p4k_max);
}

/* "k":v, v a JSON string */
static void json_str(FILE *f, const char *k, const char *v)
{
	fprintf(f, "\"%s\":", k);
	ng_json_str(f, v);
}

static bool answered(const ng_counter *c, void *user)
{
	return ((const ng_info *)user)->have[c->info];
}

void ng_info_print_json(const ng_info *inf, FILE *f)
{
	char h[300];
	int level = ng_info_health(inf, h, sizeof h);
	fputc('{', f);
	json_str(f, "tty", inf->tty);
	fprintf(f, ",\"bus\":%d,\"address\":%d,\"vid\":\"%04x\",\"pid\":\"%04x\",\"bcd_device\":\"%04x\",",
		inf->bus, inf->addr, inf->vid, inf->pid, inf->bcd_device);
	json_str(f, "manufacturer", inf->manufacturer), fputc(',', f);
	json_str(f, "product", inf->product), fputc(',', f);
	json_str(f, "serial", inf->serial), fputc(',', f);
	json_str(f, "revision", inf->revision), fputc(',', f);
	json_str(f, "board", inf->board), fputc(',', f);
	json_str(f, "config", inf->config), fputc(',', f);
	json_str(f, "system", inf->system), fputc(',', f);
	fprintf(f, "\"mode\":%u,\"mode_name\":\"%s\",\"health\":\"%s\",", inf->st.mode,
		ng_info_mode_name(inf->st.mode), level == 0 ? "ok" : level == 1 ? "warning" : "failed");
	json_str(f, "reason", h);
	/* every row of the counter table that the device answered */
	fprintf(f, ",\"extended\":%s,\"counters\":{", inf->extended ? "true" : "false");
	ng_counters_json(f, &inf->st, ":", answered, (void *)inf);
	fputc('}', f);
	if (inf->have[NG_INFO_STARTUP_N] && inf->st.startup_n)
		fprintf(f, ",\"startup_bits\":[%.3f,%.3f]", ng_info_mcv_bits(inf->st.startup_mode1, inf->st.startup_n),
			ng_info_mcv_bits(inf->st.startup_mode2, inf->st.startup_n));
	if (inf->boot) {
		char d[65], k[65];
		ng_hex(d, inf->image_digest, 32);
		ng_hex(k, inf->key_fpr, 32);
		fprintf(f, ",\"boot\":{\"loader_version\":\"%u.%u\",\"status\":%u,\"dfu_mode\":%s,"
			"\"image_valid\":%s,\"signed\":%s,\"owner_key\":%s,\"write_protected\":%s,"
			"\"image_digest\":\"%s\",\"key_fingerprint\":\"%s\",\"image_version\":%u,"
			"\"image_length\":%u", inf->loader_version >> 16, inf->loader_version & 0xffff,
			inf->boot_status, inf->dfu_mode ? "true" : "false",
			inf->boot_status & NG_BOOT_IMAGE_VALID ? "true" : "false",
			inf->boot_status & NG_BOOT_IMAGE_SIGNED ? "true" : "false",
			inf->boot_status & NG_BOOT_OWNER_KEY ? "true" : "false",
			inf->boot_status & NG_BOOT_WRP ? "true" : "false", d, k, inf->image_version,
			inf->image_length);
		if (inf->have[NG_INFO_FLOOR])
			fprintf(f, ",\"version_floor\":%u", inf->floor);
		fputc('}', f);
	} else {
		fprintf(f, ",\"boot\":null");
	}
	fputc('}', f);
}

static int read_int(const char *path, int base, long *v)
{
	FILE *fp = fopen(path, "r");
	char buf[32];
	if (!fp)
		return -1;
	int ok = fgets(buf, sizeof buf, fp) != NULL;
	fclose(fp);
	if (!ok)
		return -1;
	char *end;
	*v = strtol(buf, &end, base);
	return end == buf ? -1 : 0;
}

int ng_info_tty_usb(const char *sysfs, const char *tty, int *bus, int *addr)
{
	const char *name = strrchr(tty, '/') ? strrchr(tty, '/') + 1 : tty;
	char p[PATH_MAX];
	long b, d;
	/* class/tty/NAME/device is the interface; its parent is the USB device */
	snprintf(p, sizeof p, "%s/class/tty/%s/device/../busnum", sysfs, name);
	if (read_int(p, 10, &b) != 0)
		return -1;
	snprintf(p, sizeof p, "%s/class/tty/%s/device/../devnum", sysfs, name);
	if (read_int(p, 10, &d) != 0)
		return -1;
	*bus = (int)b, *addr = (int)d;
	return 0;
}

