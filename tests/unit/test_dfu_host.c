/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The host's pure part of DFU 1.1 (host/devtools/dfu_host.c): the functional
 * descriptor among other descriptors, the GETSTATUS reply, .dfu files
 * (against dfu-suffix, the real tool, when it is installed), image files (good, suffixed, damaged suffix,
 * other VID, flipped bit, truncated, trailing erased bytes), the board
 * check, and the progress lines. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "dfu_host.h"
#include "exit.h"
#include "update.h"

/* Appends a DFU suffix (Appendix B) to buf[0, len). */
static size_t add_suffix(uint8_t *buf, size_t len, uint16_t vid, uint16_t pid)
{
	ng_dfu_suffix x = {.bcd_device = 0xFFFF, .id_product = pid, .id_vendor = vid, .bcd_dfu = 0x0100};
	ng_dfu_suffix_make(buf + len, buf, len, &x);
	return len + NG_DFU_SUFFIX_LEN;
}

static uint8_t *copy_of(const uint8_t *b, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	memcpy(p, b, n);
	return p;
}

int main(void)
{
	/* functional descriptor after an unrelated class descriptor */
	uint8_t extra[] = {5, 0x24, 0, 1, 2, 9, 0x21, 0x0D, 0xE8, 0x03, 0x00, 0x01, 0x10, 0x01};
	ng_dfu_func f;
	CHECK(ng_dfu_parse_func(extra, sizeof extra, &f) == 0 && f.attributes == 0x0D &&
		      f.detach_timeout_ms == 1000 && f.transfer_size == 256 && f.bcd_dfu == 0x0110,
	      "functional descriptor found behind another: attributes 0x0D, 1000 ms, 256 bytes, DFU 1.10");
	CHECK(ng_dfu_parse_func(extra, 5, &f) == -1, "no functional descriptor: -1");
	uint8_t bad[] = {9, 0x21, 1, 2};
	CHECK(ng_dfu_parse_func(bad, sizeof bad, &f) == -1, "a descriptor longer than the bytes: -1");
	uint8_t zero[] = {0, 0x21, 1};
	CHECK(ng_dfu_parse_func(zero, sizeof zero, &f) == -1, "bLength 0: -1 (no endless loop)");

	uint8_t stb[6] = {NG_DFU_ERR_VERIFY, 0x10, 0x27, 0x01, NG_DFU_ERROR, 0};
	ng_dfu_status_reply st;
	ng_dfu_parse_status(stb, &st);
	CHECK(st.status == 7 && st.poll_ms == 0x012710 && st.state == NG_DFU_ERROR,
	      "GETSTATUS: status 7, 24-bit poll timeout 0x012710, state 10");
	CHECK(!strcmp(ng_dfu_state_name(NG_DFU_DNLOAD_IDLE), "dfuDNLOAD-IDLE") &&
		      !strcmp(ng_dfu_state_name(NG_DFU_MANIFEST_WAIT_RST), "dfuMANIFEST-WAIT-RESET") &&
		      !strcmp(ng_dfu_state_name(11), "unknown"),
	      "state names (DFU 1.1 6.1.2), unknown outside 0..10");
	CHECK(!strncmp(ng_dfu_status_text(NG_DFU_ERR_VERIFY), "errVERIFY", 9) &&
		      !strncmp(ng_dfu_status_text(NG_DFU_ERR_FIRMWARE), "errFIRMWARE", 11) &&
		      !strncmp(ng_dfu_status_text(16), "an undefined", 12),
	      "status texts: errVERIFY, errFIRMWARE, undefined above 15");

	/* images */
	enum { BIN = 3001, CAP = 8192 };
	static uint8_t buf[CAP];
	uint64_t seed = ng_test_seed();
	for (int i = 0; i < BIN; i++)
		buf[i] = (uint8_t)ng_test_rand(&seed);
	ng_image_params p = {.load_addr = 0x08002000, .version = 0x000102, .version_str = "0.1.2", .board = "fst-01"};
	size_t n = 0;
	ng_status ms = ng_image_make(buf, CAP, BIN, &p, NULL, &n);
	CHECK(ms == NG_OK, "an unsigned image made (%zu bytes)", n);
	ng_update_image img;
	char err[600];
	int r = ng_update_image_from(copy_of(buf, n), n, "x.img", &img, err, sizeof err);
	CHECK(r == 0 && img.len == n && !img.had_suffix && !strcmp(img.info.version_str, "0.1.2") &&
		      !strcmp(img.info.board, "fst-01"),
	      "neug.img accepted: %zu bytes, version 0.1.2, board fst-01", img.len);
	ng_image_info info = img.info;
	ng_update_image_free(&img);

	static uint8_t dfu[CAP + 16];
	memcpy(dfu, buf, n);
	size_t dn = add_suffix(dfu, n, 0x234b, 0x0001);
	CHECK(ng_update_image_from(copy_of(dfu, dn), dn, "x.dfu", &img, err, sizeof err) == 0 && img.len == n &&
		      img.had_suffix && memcmp(img.data, buf, n) == 0 && img.suffix.id_vendor == 0x234b,
	      "neug.dfu accepted: the suffix removed, the image unchanged");
	ng_update_image_free(&img);

	/* dfu-suffix (dfu-util's) as the oracle of the suffix and its CRC */
	if (access("/usr/bin/dfu-suffix", X_OK) == 0) {
		char path[] = "/tmp/ng-test-dfu-XXXXXX", cmd[200];
		int fd = mkstemp(path);
		FILE *w = fd >= 0 ? fdopen(fd, "wb") : NULL;
		if (w) {
			fwrite(buf, 1, n, w);
			fclose(w);
			snprintf(cmd, sizeof cmd, "dfu-suffix -v 234b -p 0001 -a %s >/dev/null 2>&1", path);
			int rc = system(cmd);
			int lr = rc == 0 ? ng_update_image_load(path, &img, err, sizeof err) : -1;
			CHECK(lr == NG_EXIT_OK && img.had_suffix && img.len == n && memcmp(img.data, buf, n) == 0,
			      "dfu-suffix's .dfu file accepted, its suffix and CRC understood (%s)", lr ? err : "ok");
			if (lr == NG_EXIT_OK)
				ng_update_image_free(&img);
			/* and dfu-suffix checks ours */
			FILE *o = fopen(path, "wb");
			if (o) {
				fwrite(dfu, 1, dn, o);
				fclose(o);
			}
			snprintf(cmd, sizeof cmd, "dfu-suffix -c %s 2>&1 | grep -qi 'Vendor ID:.*0x234b'", path);
			CHECK(system(cmd) == 0, "dfu-suffix -c reads the suffix this test writes");
			unlink(path);
		}
	} else {
		SKIP("dfu-suffix not installed (apt-get install dfu-util): the oracle check of the suffix");
	}

	dfu[dn - 20] ^= 1; /* a bit in the image: the suffix's CRC sees it first */
	CHECK(ng_update_image_from(copy_of(dfu, dn), dn, "x.dfu", &img, err, sizeof err) == -1 &&
		      strstr(err, "CRC does not match"),
	      "a flipped bit under the DFU suffix: refused by the CRC (%s)", err);
	dfu[dn - 20] ^= 1;
	dn = add_suffix(dfu, n, 0x0483, 0xdf11);
	CHECK(ng_update_image_from(copy_of(dfu, dn), dn, "x.dfu", &img, err, sizeof err) == -1 &&
		      strstr(err, "0483:df11"),
	      "a suffix for another device refused: '%s'", err);
	dn = add_suffix(dfu, n, 0xffff, 0xffff);
	CHECK(ng_update_image_from(copy_of(dfu, dn), dn, "x.dfu", &img, err, sizeof err) == 0,
	      "the wildcard VID:PID ffff:ffff accepted");
	ng_update_image_free(&img);

	buf[100] ^= 0x10;
	CHECK(ng_update_image_from(copy_of(buf, n), n, "x.img", &img, err, sizeof err) == -1 && strstr(err, "x.img"),
	      "a flipped bit in the image: refused: '%s'", err);
	buf[100] ^= 0x10;
	CHECK(ng_update_image_from(copy_of(buf, n - 100), n - 100, "x.img", &img, err, sizeof err) == -1,
	      "a truncated image refused: '%s'", err);
	CHECK(ng_update_image_from(copy_of(buf, 10), 10, "x.img", &img, err, sizeof err) == -1,
	      "ten bytes refused: '%s'", err);
	memset(buf + n, 0xFF, 300);
	r = ng_update_image_from(copy_of(buf, n + 300), n + 300, "x.img", &img, err, sizeof err);
	CHECK(r == 0 && img.len == n, "erased bytes behind the trailer are not sent: %zu bytes", img.len);
	ng_update_image_free(&img);
	CHECK(ng_update_image_load("/nonexistent/neug.img", &img, err, sizeof err) == NG_EXIT_IO &&
		      strstr(err, "/nonexistent/neug.img"),
	      "a missing file: exit 3 and the name: '%s'", err);

	/* the board check: string 5 "id:...:flash=NK", string 7 the name */
	CHECK(ng_update_fits(&info, n, "FST-01:hse=12000000:flash=128K:ram=20K", "FST-01", err, sizeof err) == 0,
	      "fst-01 fits FST-01 with 128 KiB");
	CHECK(ng_update_fits(&info, n, "blue-pill:hse=8000000:flash=64K:ram=20K", "Blue Pill", err, sizeof err) == -1 &&
		      strstr(err, "'fst-01'") && strstr(err, "'blue-pill'") && strstr(err, "Blue Pill"),
	      "fst-01 on a Blue Pill refused: '%s'", err);
	CHECK(ng_update_fits(&info, n, NULL, "fst-01", err, sizeof err) == 0, "the board name alone (string 7) matches");
	CHECK(ng_update_fits(&info, n, NULL, NULL, err, sizeof err) == 0, "nothing known (DFU mode): not checked");
	CHECK(ng_update_fits(&info, n, "fst-01:flash=8K", NULL, err, sizeof err) == -1 && strstr(err, "8 KiB"),
	      "an image beyond the end of flash refused: '%s'", err);
	CHECK(ng_update_fits(&info, 0x10000 - 0x2000 - 0x400, "fst-01:flash=64K", NULL, err, sizeof err) == 0 &&
		      ng_update_fits(&info, 0x10000 - 0x2000 - 0x400 + 4, "fst-01:flash=64K", NULL, err, sizeof err) == -1,
	      "an image that ends exactly at the version floor's page (the last KiB of 64) fits, 4 bytes more do not");

	/* what the loader would refuse, from what the board reports */
	{
		ng_info bi;
		memset(&bi, 0, sizeof bi);
		bi.boot = true;
		bi.loader_version = 1u << 16 | 1u;
		snprintf(bi.config, sizeof bi.config, "fst-01:hse=12000000:flash=128K:ram=20K");
		ng_image_info ok = info;
		ok.load_addr = NG_APP_BASE;
		CHECK(ng_update_acceptable(&ok, &bi, false, err, sizeof err) == 0, "fst-01's own image at %#x: acceptable",
		      (unsigned)NG_APP_BASE);
		ng_image_info x = ok;
		snprintf(x.board, sizeof x.board, "FST-01");
		CHECK(ng_update_acceptable(&x, &bi, false, err, sizeof err) == -1 && !strncmp(err, "board:", 6) &&
			      strstr(err, "'FST-01'") && strstr(err, "'fst-01'"),
		      "board 'FST-01' (the loader compares exactly): '%s'", err);
		ng_info dm = bi;
		dm.dfu_mode = true;
		dm.config[0] = 0;
		snprintf(dm.loader_board, sizeof dm.loader_board, "blue-pill");
		CHECK(ng_update_acceptable(&ok, &dm, false, err, sizeof err) == -1 && strstr(err, "'blue-pill'"),
		      "in DFU mode, the board the loader names (blue-pill): '%s'", err);
		x = ok;
		x.load_addr = 0x08002000u;
		CHECK(ng_update_acceptable(&x, &bi, false, err, sizeof err) == -1 && !strncmp(err, "load address:", 13),
		      "linked for 0x08002000: '%s'", err);
		ng_info old = bi;
		old.loader_version = 1u << 16;
		CHECK(ng_update_acceptable(&x, &old, false, err, sizeof err) == 0 &&
			      ng_update_acceptable(&ok, &old, false, err, sizeof err) == -1 && strstr(err, "0x08002000"),
		      "a loader 1.0 takes 0x08002000 and refuses %#x: '%s'", (unsigned)NG_APP_BASE, err);
		ng_info kb = bi;
		kb.boot_status = NG_BOOT_OWNER_KEY;
		kb.have[NG_INFO_KEY_FINGERPRINT] = true;
		for (int i = 0; i < 32; i++)
			kb.key_fpr[i] = (uint8_t)(0xa0 + i);
		CHECK(ng_update_acceptable(&ok, &kb, false, err, sizeof err) == -1 && !strncmp(err, "signed:", 7) &&
			      strstr(err, "a0a1a2a3a4a5a6a7"),
		      "unsigned, the board holds a key: '%s'", err);
		x = ok;
		x.flags = NG_IMAGE_SIGNED;
		memset(x.key_id, 0x11, sizeof x.key_id);
		CHECK(ng_update_acceptable(&x, &kb, false, err, sizeof err) == -1 && !strncmp(err, "key id:", 7) &&
			      strstr(err, "1111111111111111"),
		      "signed by another key id: '%s'", err);
		memcpy(x.key_id, kb.key_fpr, sizeof x.key_id);
		CHECK(ng_update_acceptable(&x, &kb, false, err, sizeof err) == 0, "signed with the board's key id: acceptable");
		ng_info fl = bi;
		fl.have[NG_INFO_FLOOR] = true;
		fl.floor = 0x000200;
		CHECK(ng_update_acceptable(&ok, &fl, false, err, sizeof err) == -1 && !strncmp(err, "version:", 8) &&
			      strstr(err, "0.1.2") && strstr(err, "0.2.0") && strstr(err, "--allow-downgrade"),
		      "0.1.2 below the floor 0.2.0: '%s'", err);
		CHECK(ng_update_acceptable(&ok, &fl, true, err, sizeof err) == -1,
		      "--allow-downgrade does not help an image without the flag");
		x = ok;
		x.flags = NG_IMAGE_DOWNGRADE;
		CHECK(ng_update_acceptable(&x, &fl, false, err, sizeof err) == -1 && strstr(err, "confirm"),
		      "the flag without --allow-downgrade: '%s'", err);
		CHECK(ng_update_acceptable(&x, &fl, true, err, sizeof err) == 0, "the flag and --allow-downgrade: acceptable");
		fl.floor = 0x000102;
		CHECK(ng_update_acceptable(&ok, &fl, false, err, sizeof err) == 0, "at the floor: acceptable");
	}

	/* progress */
	char line[200];
	int last = -1, lines = 0;
	for (size_t d = 0; d <= 1000; d += 50)
		if (*ng_dfu_progress(line, sizeof line, d, 1000, false, &last))
			lines++;
	CHECK(lines == 5, "plain progress: one line per quarter, 0 to 100%% (%d lines)", lines);
	last = -1;
	ng_dfu_progress(line, sizeof line, 0, 1000, false, &last);
	CHECK(!strcmp(line, "downloaded 0 of 1000 bytes (0%)\n"), "plain line: '%.31s' and a newline", line);
	last = -1;
	ng_dfu_progress(line, sizeof line, 500, 1000, true, &last);
	CHECK(line[0] == '\r' && strstr(line, "[####################....................]  50% 500/1000 bytes") &&
		      !strchr(line, '\n'),
	      "bar at 50%%: '%s'", line + 1);
	ng_dfu_progress(line, sizeof line, 1000, 1000, true, &last);
	CHECK(strstr(line, "100% 1000/1000 bytes\n") != NULL, "bar at 100%% ends the line");
	return ng_check_exit();
}
