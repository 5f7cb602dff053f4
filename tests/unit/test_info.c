/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `neug info`'s decoding of GET_INFO replies (host/devtools/info.c): a NeuG 1.0.x
 * device (indices 0..7, the rest STALL), this project's firmware (all
 * indices), short and unknown replies; the health in words; the JSON; and
 * finding the USB device behind a tty in a fake sysfs tree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "info.h"
#include "neug_device.h"

#define STALL (-9) /* LIBUSB_ERROR_PIPE */

static void put(ng_info *inf, unsigned idx, uint64_t v, int size)
{
	uint8_t d[8];
	for (int i = 0; i < 8; i++)
		d[i] = (uint8_t)(v >> (8 * i));
	ng_info_decode(inf, idx, size, d);
}

static void mkfile(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int main(void)
{
	char h[300], *js;
	size_t jl;
	FILE *f;

	/* NeuG 1.0.x: the values of the README's adc.bin run, extension STALLs. */
	ng_info neug = {0};
	put(&neug, NG_INFO_MODE, 0, 1);
	put(&neug, NG_INFO_NEUG_ERR, 0, 2);
	put(&neug, NG_INFO_NEUG_ERR_RC, 0, 2);
	put(&neug, NG_INFO_NEUG_ERR_P64, 0, 2);
	put(&neug, NG_INFO_NEUG_ERR_P4K, 0, 2);
	put(&neug, NG_INFO_NEUG_RC_MAX, 2, 2);
	put(&neug, NG_INFO_NEUG_P64_MAX, 3, 2);
	put(&neug, NG_INFO_NEUG_P4K_MAX, 22, 2);
	int stalls = 0;
	for (unsigned i = NG_INFO_EXT_FIRST; i <= NG_INFO_EXT_LAST; i++)
		stalls += ng_info_decode(&neug, i, STALL, (const uint8_t *)"\0\0\0\0\0\0\0\0") == -1;
	ng_info_finish(&neug);
	CHECK(stalls == 24 && !neug.extended, "NeuG 1.0.x: 24 STALLed indices (16..39), no raw-sample state");
	CHECK(neug.st.neug_rc_max == 2 && neug.st.neug_p64_max == 3 && neug.st.neug_p4k_max == 22 && neug.st.mode == 0,
	      "NeuG 1.0.x: maxima 2/3/22, mode 0");
	int lvl = ng_info_health(&neug, h, sizeof h);
	CHECK(lvl == 0 && strstr(h, "no errors in NeuG's CRC-level tests"), "NeuG 1.0.x healthy: '%s'", h);
	put(&neug, NG_INFO_NEUG_ERR, 3, 2);
	lvl = ng_info_health(&neug, h, sizeof h);
	CHECK(lvl == 1 && strstr(h, "3 errors"), "NeuG 1.0.x with errors is a warning: '%s'", h);
	f = open_memstream(&js, &jl);
	ng_info_print_json(&neug, f);
	fclose(f);
	CHECK(strstr(js, "\"extended\":false") && strstr(js, "\"neug_p4k_max\":22") &&
	      !strstr(js, "\"rct_failures\"") && strstr(js, "\"health\":\"warning\""),
	      "NeuG 1.0.x JSON: not extended, neug_p4k_max 22, no counter it did not answer");
	free(js);
	f = open_memstream(&js, &jl);
	ng_info_print(&neug, f);
	fclose(f);
	CHECK(strstr(js, "raw-sample tests: not reported") && strstr(js, "mode          conditioned (0)"),
	      "NeuG 1.0.x text says the raw-sample tests are not reported");
	free(js);

	/* Short, oversized-index and unknown replies are refused. */
	ng_info x = {0};
	CHECK(ng_info_decode(&x, NG_INFO_NEUG_ERR, 1, (const uint8_t *)"\x05") == -1 && !x.have[1],
	      "a 1-byte reply for a u16 index is refused");
	CHECK(ng_info_decode(&x, NG_INFO_SAMPLES, 4, (const uint8_t *)"\1\2\3\4") == -1,
	      "a 4-byte reply for a u64 index is refused");
	CHECK(ng_info_decode(&x, 9, 2, (const uint8_t *)"\1\2") == -1 && ng_info_decode(&x, 15, 4, (const uint8_t *)"\1\2\3\4") == -1 &&
		      ng_info_decode(&x, NG_INFO_LAST + 1, 8, (const uint8_t *)"\1\2\3\4\5\6\7\10") == -1,
	      "indices 8..15 and beyond the counter table's last are unknown");
	int r16 = ng_info_decode(&x, NG_INFO_NEUG_RC_MAX, 2, (const uint8_t *)"\x34\x12");
	CHECK(r16 == 0 && x.st.neug_rc_max == 0x1234,
	      "u16 replies are little endian (0x%04x)", x.st.neug_rc_max);
	ng_info_finish(&x);
	lvl = ng_info_health(&x, h, sizeof h);
	CHECK(lvl == 1 && strstr(h, "unknown"), "no counters at all: health unknown ('%s')", h);

	/* This project's firmware, persistent RCT failure. */
	ng_info full = {0};
	put(&full, NG_INFO_MODE, 2, 1);
	for (unsigned i = 1; i <= 7; i++)
		put(&full, i, 0, 2);
	put(&full, NG_INFO_STATUS, NG_HEALTH_RCT | NG_HEALTH_PERSISTENT, 4);
	put(&full, NG_INFO_RCT_FAILURES, 1, 4);
	put(&full, NG_INFO_APT_FAILURES, 0, 4);
	put(&full, NG_INFO_RCT_MAX, 16, 4);
	put(&full, NG_INFO_APT_MAX, 40, 4);
	put(&full, NG_INFO_RCT_CUTOFF, 10, 4);
	put(&full, NG_INFO_APT_CUTOFF, 220, 4);
	put(&full, NG_INFO_H_MILLI, 3700, 4);
	put(&full, NG_INFO_SAMPLES, 0x100000000ull + 35012, 8);
	put(&full, NG_INFO_BLOCKS_OUT, 250, 8);
	put(&full, NG_INFO_BLOCKS_DROPPED, 1, 8);
	put(&full, NG_INFO_FAIL_TEST, NG_HEALTH_RCT, 4);
	put(&full, NG_INFO_FAIL_INDEX, 35012, 8);
	put(&full, NG_INFO_FAIL_COUNT, 16, 4);
	put(&full, NG_INFO_SAMPLES_PER_BLOCK, 140, 4);
	put(&full, NG_INFO_APT_WINDOW, 512, 4);
	put(&full, NG_INFO_BYTES_SENT, 8000, 8);
	put(&full, NG_INFO_SOURCE_ERRORS, 3, 4);
	put(&full, NG_INFO_SELFTEST, 0, 4);
	ng_info_finish(&full);
	CHECK(full.extended && full.st.samples == 0x100000000ull + 35012 && full.st.h_milli == 3700,
	      "full reply: extended, u64 samples above 2^32 decoded");
	lvl = ng_info_health(&full, h, sizeof h);
	CHECK(lvl == 2 && !strcmp(h, "persistent failure: repetition count test, 16 identical samples in a row at sample 35012"),
	      "persistent RCT failure in words: '%s'", h);
	put(&full, NG_INFO_STATUS, NG_HEALTH_APT | NG_HEALTH_PERSISTENT | NG_HEALTH_STARTUP_FAILED, 4);
	put(&full, NG_INFO_FAIL_TEST, NG_HEALTH_APT, 4);
	put(&full, NG_INFO_FAIL_COUNT, 231, 4);
	put(&full, NG_INFO_FAIL_INDEX, 700, 8);
	lvl = ng_info_health(&full, h, sizeof h);
	CHECK(lvl == 2 && strstr(h, "adaptive proportion test, 231 of 512") && strstr(h, "start-up"),
	      "persistent APT failure during start-up: '%s'", h);
	put(&full, NG_INFO_STATUS, NG_HEALTH_STARTUP, 4);
	put(&full, NG_INFO_RCT_FAILURES, 0, 4);
	lvl = ng_info_health(&full, h, sizeof h);
	CHECK(lvl == 0 && strstr(h, "starting"), "start-up test running: '%s'", h);
	put(&full, NG_INFO_STATUS, 0, 4);
	lvl = ng_info_health(&full, h, sizeof h);
	CHECK(lvl == 0 && !strcmp(h, "healthy"), "no failure: 'healthy'");
	put(&full, NG_INFO_APT_FAILURES, 2, 4);
	lvl = ng_info_health(&full, h, sizeof h);
	CHECK(lvl == 1 && strstr(h, "transient") && strstr(h, "2 adaptive"), "transient failures: '%s'", h);
	put(&full, NG_INFO_SELFTEST, 5, 4);
	lvl = ng_info_health(&full, h, sizeof h);
	CHECK(lvl == 2 && strstr(h, "self-test failed (code 5)"), "a failed power-up self-test (GET_INFO 34): '%s'", h);
	put(&full, NG_INFO_SELFTEST, 0, 4);
	/* The firmware's clock source and start-up estimate (GET_INFO 35..39). */
	put(&full, NG_INFO_CLOCK, 2, 4);
	put(&full, NG_INFO_STARTUP, 2, 4);
	put(&full, NG_INFO_STARTUP_MODE1, 395, 4);
	put(&full, NG_INFO_STARTUP_MODE2, 4096, 4);
	put(&full, NG_INFO_STARTUP_N, 4096, 4);
	lvl = ng_info_health(&full, h, sizeof h);
	CHECK(lvl == 2 && strstr(h, "start-up estimate refused") && strstr(h, "ADC2") && !strstr(h, "ADC1"),
	      "a start-up refusal of ADC2 (GET_INFO 36): '%s'", h);
	CHECK(fabs(ng_info_mcv_bits(395, 4096) - 3.2066) < 0.001 && ng_info_mcv_bits(4096, 4096) == 0 &&
	      ng_info_mcv_bits(0, 4096) < 0, "the MCV estimate from a mode count: 395 of 4096 = 3.21 bits");
	f = open_memstream(&js, &jl);
	ng_info_print(&full, f);
	fclose(f);
	CHECK(strstr(js, "clock source           HSI") && strstr(js, "start-up estimate      REFUSED") &&
	      strstr(js, "ADC1                 3.21 bits") && strstr(js, "ADC2                 0.00 bits"),
	      "neug info shows the clock source and each ADC's start-up estimate");
	free(js);
	put(&full, NG_INFO_STARTUP, 0, 4);
	snprintf(full.serial, sizeof full.serial, "a\"b\\c");
	snprintf(full.config, sizeof full.config, "FST-01:hse=12000000");
	snprintf(full.system, sizeof full.system, "bare metal, core 0.1.0");
	f = open_memstream(&js, &jl);
	ng_info_print_json(&full, f);
	fclose(f);
	CHECK(strstr(js, "\"serial\":\"a\\\"b\\\\c\"") && strstr(js, "\"apt_failures\":2") &&
	      strstr(js, "\"mode_name\":\"raw\"") && strstr(js, "\"samples\":4295002308") &&
	      strstr(js, "\"source_errors\":3") && strstr(js, "\"config\":\"FST-01:hse=12000000\"") &&
	      strstr(js, "\"system\":\"bare metal, core 0.1.0\"") &&
	      strstr(js, "\"clock\":2") && strstr(js, "\"startup_mode1\":395") && strstr(js, "\"startup_mode2\":4096") &&
	      strstr(js, "\"startup_bits\":[3.207,0.000]"),
	      "full JSON: escaped strings, counters, mode name");
	free(js);

	/* The per-ADC tests (GET_INFO 46..58): a dead ADC2 named. */
	put(&full, NG_INFO_ADC_H_MILLI, 1000, 4);
	put(&full, 47, 21, 4);   /* adc_rct_cutoff */
	put(&full, 48, 410, 4);  /* adc_apt_cutoff */
	put(&full, 55, 21, 4);   /* adc2_rct_max */
	put(&full, 53, 1, 4);    /* adc2_rct_failures */
	put(&full, 58, 7, 8);    /* blocks_lost */
	put(&full, NG_INFO_FAIL_STREAM, NG_STREAM_ADC2, 4);
	put(&full, NG_INFO_STATUS, NG_HEALTH_RCT | NG_HEALTH_PERSISTENT, 4);
	put(&full, NG_INFO_FAIL_TEST, NG_HEALTH_RCT, 4);
	put(&full, NG_INFO_FAIL_COUNT, 21, 4);
	CHECK(full.st.adc2_rct_max == 21 && full.st.adc_apt_cutoff == 410 && full.st.blocks_lost == 7,
	      "the per-ADC counters decode into their fields (the counter table's rows 46..58)");
	lvl = ng_info_health(&full, h, sizeof h);
	CHECK(lvl == 2 && strstr(h, "21 identical samples in a row on ADC2's half-word"),
	      "a latched failure names its ADC: '%s'", h);
	f = open_memstream(&js, &jl);
	ng_info_print(&full, f);
	fclose(f);
	CHECK(strstr(js, "per ADC half-word      1.000 bits declared, cutoffs: repetition 21, proportion 410 in 512") &&
	      strstr(js, "ADC2                 longest run 21, largest count 0, failures 1 + 0"),
	      "neug info shows each ADC's tests");
	free(js);
	f = open_memstream(&js, &jl);
	ng_info_print_json(&full, f);
	fclose(f);
	CHECK(strstr(js, "\"adc2_rct_failures\":1") && strstr(js, "\"fail_stream\":2") && strstr(js, "\"blocks_lost\":7"),
	      "the JSON carries the per-ADC counters");
	free(js);
	put(&full, NG_INFO_STATUS, 0, 4);

	/* The boot information (GET_INFO 40..45, usb/dfu.h). */
	uint8_t dg[32], kf[32];
	for (int i = 0; i < 32; i++)
		dg[i] = (uint8_t)(0xa0 + i), kf[i] = (uint8_t)i;
	CHECK(ng_info_decode(&full, NG_INFO_IMAGE_DIGEST, 31, dg) == -1, "a 31-byte digest refused");
	put(&full, NG_INFO_LOADER_VERSION, 0x00010002, 4);
	put(&full, NG_INFO_BOOT_STATUS, NG_BOOT_IMAGE_VALID | NG_BOOT_IMAGE_SIGNED | NG_BOOT_OWNER_KEY, 4);
	ng_info_decode(&full, NG_INFO_IMAGE_DIGEST, 32, dg);
	ng_info_decode(&full, NG_INFO_KEY_FINGERPRINT, 32, kf);
	put(&full, NG_INFO_IMAGE_VERSION, 0x000102, 4);
	put(&full, NG_INFO_IMAGE_LENGTH, 52224, 4);
	ng_info_finish(&full);
	f = open_memstream(&js, &jl);
	ng_info_print_boot(&full, f);
	fclose(f);
	CHECK(full.boot && !full.dfu_mode && strstr(js, "version 1.2") &&
		      strstr(js, "SHA-256 a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf") &&
		      strstr(js, "52224 bytes, version 0.1.2") &&
		      strstr(js, "fingerprint 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"),
	      "boot information in words: loader 1.2, the loader's digest, signed by the key's fingerprint");
	free(js);
	put(&full, NG_INFO_BOOT_STATUS, NG_BOOT_DFU_MODE | NG_BOOT_DFU_REQUESTED, 4);
	ng_info_finish(&full);
	f = open_memstream(&js, &jl);
	ng_info_print_boot(&full, f);
	fclose(f);
	CHECK(full.dfu_mode && strstr(js, "in DFU mode (asked to)") && strstr(js, "none valid") &&
		      strstr(js, "holds no owner key"),
	      "DFU mode, no valid image, no key: said so");
	free(js);
	put(&full, NG_INFO_BOOT_STATUS, NG_BOOT_DFU_MODE | NG_BOOT_OWNER_KEY | NG_BOOT_KEY_REFUSED, 4);
	ng_info_finish(&full);
	f = open_memstream(&js, &jl);
	ng_info_print_boot(&full, f);
	fclose(f);
	CHECK(full.dfu_mode && strstr(js, "no valid application") &&
		      strstr(js, "owner key 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f is refused "
				 "(small order or not canonical"),
	      "DFU mode with a weak owner key (boot status 0x40): said so, with the key's fingerprint");
	free(js);
	put(&full, NG_INFO_BOOT_STATUS, NG_BOOT_DFU_MODE | NG_BOOT_DFU_REQUESTED, 4);
	ng_info_finish(&full);
	f = open_memstream(&js, &jl);
	ng_info_print_json(&full, f);
	fclose(f);
	CHECK(strstr(js, "\"boot\":{\"loader_version\":\"1.2\"") && strstr(js, "\"dfu_mode\":true") &&
		      strstr(js, "\"image_digest\":\"a0a1") && !strstr(js, "version_floor"),
	      "boot information in the JSON (no floor: not reported)");
	free(js);
	put(&full, NG_INFO_FLOOR, 0x000203, 4);
	CHECK(full.have[NG_INFO_FLOOR] && full.floor == 0x000203, "GET_INFO 59 decoded: the version floor 0x000203");
	f = open_memstream(&js, &jl);
	ng_info_print_boot(&full, f);
	ng_info_print_json(&full, f);
	fclose(f);
	CHECK(strstr(js, "floor         version 0.2.3") && strstr(js, "\"version_floor\":515}"),
	      "the floor in words (version 0.2.3) and in the JSON (515)");
	free(js);

	/* A fake sysfs: class/tty/ttyACM3/device -> the interface dir, whose
	 * parent has busnum and devnum. */
	char root[] = "/tmp/ng-test-sysfs-XXXXXX";
	if (mkdtemp(root)) {
		char p[512], q[512];
		snprintf(p, sizeof p, "%s/devices", root); mkdir(p, 0755);
		snprintf(p, sizeof p, "%s/devices/3-1", root); mkdir(p, 0755);
		snprintf(p, sizeof p, "%s/devices/3-1/3-1:1.0", root); mkdir(p, 0755);
		snprintf(p, sizeof p, "%s/devices/3-1/busnum", root); mkfile(p, "3\n");
		snprintf(p, sizeof p, "%s/devices/3-1/devnum", root); mkfile(p, "7\n");
		snprintf(p, sizeof p, "%s/class", root); mkdir(p, 0755);
		snprintf(p, sizeof p, "%s/class/tty", root); mkdir(p, 0755);
		snprintf(p, sizeof p, "%s/class/tty/ttyACM3", root); mkdir(p, 0755);
		snprintf(p, sizeof p, "%s/class/tty/ttyACM3/device", root);
		snprintf(q, sizeof q, "%s/devices/3-1/3-1:1.0", root);
		if (symlink(q, p) != 0)
			perror("symlink");
		int bus = 0, addr = 0;
		int r = ng_info_tty_usb(root, "/dev/ttyACM3", &bus, &addr);
		CHECK(r == 0 && bus == 3 && addr == 7, "tty -> USB device through sysfs: bus %d device %d", bus, addr);
		CHECK(ng_info_tty_usb(root, "ttyS0", &bus, &addr) == -1, "a non-USB tty is refused");
		char cmd[600];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
		if (system(cmd) != 0)
			perror("rm");
	}
	return ng_check_exit();
}
