/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The NeuG composite device (usb/neug_fn.c) through the fake dcd: the
 * descriptors parsed back, strings, DTR gating, modes from line coding
 * (checked bit for bit against tests/data/neug-1.0.6), discarding on
 * a mode change, ZLP, GET_INFO, a dead source, and the mass storage
 * interface of the composite. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fakes/bot_host.h"
#include "fakes/fake_dcd.h"
#include "neug_device.h"

static ng_neug_dev D;
static fk_dcd F;

static void task(void *u) { ng_neug_task(u); }

static int ctl(uint8_t rt, uint8_t req, uint16_t val, uint16_t idx, uint16_t len, uint8_t *buf, uint16_t *act)
{
	return fk_control(&F, rt, req, val, idx, len, buf, act);
}

static uint8_t *load(const char *name, size_t *n)
{
	char path[512];
	snprintf(path, sizeof path, "%s/neug-1.0.6/%s", ng_vectors_dir(), name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("# cannot open %s\n", path);
		return NULL;
	}
	uint8_t *b = malloc(1 << 20);
	*n = fread(b, 1, 1 << 20, f);
	fclose(f);
	return b;
}

static void start(void)
{
	memset(&F, 0, sizeof F);
	ng_neug_config cfg = {.uid = {0x12345678, 0x9abcdef0, 0x0fedcba9}, .board = "test-board", .revision = "9.9.9",
			     .config = "test:cfg", .system = "test-sys 1"};
	ng_status st = ng_neug_init(&D, &cfg, &fk_ops, &F);
	F.task = task;
	F.task_user = &D;
	ng_neug_connect(&D, true);
	fk_bus_reset(&F);
	ctl(0x00, 5, 7, 0, 0, NULL, NULL);
	if (st != NG_OK)
		printf("# ng_neug_init: %d\n", st);
}

static void configure(void)
{
	ctl(0x00, 9, 1, 0, 0, NULL, NULL);
}

static void set_parity(uint8_t parity)
{
	uint8_t lc[7] = {0x00, 0xC2, 0x01, 0x00, 0, parity, 8};
	ctl(0x21, 0x20, 0, 0, 7, lc, NULL);
}

static void set_dtr(bool on) { ctl(0x21, 0x22, on ? 3 : 0, 0, 0, NULL, NULL); }

/* Runs the device like an app with a file source and a reading host: feeds
 * what it asks for from src (nsamples words) and reads bulk IN into out
 * until want bytes or the source is used up. Returns the bytes read. */
static size_t run(const uint32_t *src, size_t nsamples, size_t *used, uint8_t *out, size_t want)
{
	size_t got = 0, idle = 0;
	*used = 0;
	while (got < want && idle < 50) {
		ng_neug_task(&D);
		size_t n = ng_neug_wants_samples(&D);
		if (n > nsamples - *used)
			n = nsamples - *used;
		if (n) {
			ng_neug_put_samples(&D, src + *used, n);
			*used += n;
		}
		uint8_t b[64];
		uint16_t len;
		int r = fk_in(&F, NG_NEUG_EP_DATA_IN, b, 64, &len);
		if (r == FK_OK) {
			size_t k = got + len > want ? want - got : len;
			memcpy(out + got, b, k);
			got += k;
			idle = 0;
		} else if (!n) {
			idle++;
		}
	}
	return got;
}

static void test_descriptors(void)
{
	uint8_t b[512];
	uint16_t n;
	int r = ctl(0x80, 6, 0x0100, 0, 18, b, &n);
	CHECK(r == FK_OK && n == 18 && b[0] == 18 && b[1] == 1 && ng_get_le16(b + 2) == 0x0200 && b[4] == 0xEF &&
	      b[5] == 0x02 && b[6] == 0x01 && b[7] == 64 && ng_get_le16(b + 8) == 0x234B && ng_get_le16(b + 10) == 0x0001 &&
	      b[14] == 1 && b[15] == 2 && b[16] == 3 && b[17] == 1,
	      "device descriptor: USB 2.00, EF/02/01 (IAD), ep0 64, 234b:0001, strings 1/2/3, 1 configuration");
	r = ctl(0x80, 6, 0x0200, 0, 512, b, &n);
	uint16_t total = ng_get_le16(b + 2);
	CHECK(r == FK_OK && n == total && b[4] == 3 && b[5] == 1 && b[7] == 0x80, "configuration: %u bytes, 3 interfaces, bus powered (no loader: no DFU interface)", total);
	/* walk it */
	int ok = 1, ifaces = 0, iad = 0, eps_declared = 0, eps_seen = 0, cur_if = -1, union_ok = 0, acm = 0, hdr = 0;
	int dfu_func = 0;
	int ep_ok[5] = {0};
	for (uint16_t off = 0; off < n;) {
		uint8_t len = b[off], type = b[off + 1];
		if (len < 2 || off + len > n) {
			ok = 0;
			break;
		}
		const uint8_t *d = b + off;
		if (type == 4) {
			if (cur_if >= 0)
				ok &= eps_seen == eps_declared;
			cur_if = d[2];
			ok &= d[2] == ifaces && d[3] == 0;
			eps_declared = d[4];
			eps_seen = 0;
			ifaces++;
			if (d[2] == 0)
				ok &= d[5] == 2 && d[6] == 2;
			if (d[2] == 1)
				ok &= d[5] == 0x0A;
			if (d[2] == 2)
				ok &= d[5] == 8 && d[6] == 6 && d[7] == 0x50;
			if (d[2] == 3)
				ok &= d[4] == 0 && d[5] == 0xFE && d[6] == 1 && d[7] == 1;
		} else if (type == 0x21) {
			dfu_func = cur_if == 3 && len == 9 && d[2] == 0x0D && ng_get_le16(d + 3) == 1000 &&
				   ng_get_le16(d + 5) == 256 && ng_get_le16(d + 7) == 0x0110;
		} else if (type == 0x0B) {
			iad = ifaces == 0 && d[2] == 0 && d[3] == 2 && d[4] == 2 && d[5] == 2;
		} else if (type == 0x24) {
			if (d[2] == 0x00)
				hdr = ng_get_le16(d + 3) == 0x0120;
			if (d[2] == 0x02)
				acm = d[3] & 0x02;
			if (d[2] == 0x06)
				union_ok = d[3] == 0 && d[4] == 1;
		} else if (type == 5) {
			eps_seen++;
			uint8_t a = d[2], at = d[3];
			uint16_t mps = ng_get_le16(d + 4);
			if (a == 0x82) ep_ok[0] = cur_if == 0 && at == 3 && mps == 16;
			if (a == 0x81) ep_ok[1] = cur_if == 1 && at == 2 && mps == 64;
			if (a == 0x01) ep_ok[2] = cur_if == 1 && at == 2 && mps == 64;
			if (a == 0x83) ep_ok[3] = cur_if == 2 && at == 2 && mps == 64;
			if (a == 0x03) ep_ok[4] = cur_if == 2 && at == 2 && mps == 64;
		}
		off = (uint16_t)(off + len);
	}
	ok &= eps_seen == eps_declared;
	CHECK(ok && ifaces == 3 && !dfu_func, "configuration parses: interfaces 0, 1, 2 in order, endpoint counts match");
	CHECK(iad, "IAD before interface 0: interfaces 0..1, class 02/02");
	CHECK(hdr && acm && union_ok, "CDC header 1.20, ACM line coding capability, union 0 -> 1");
	CHECK(ep_ok[0] && ep_ok[1] && ep_ok[2] && ep_ok[3] && ep_ok[4],
	      "endpoints: 0x82 interrupt 16 (if 0), 0x81/0x01 bulk 64 (if 1), 0x83/0x03 bulk 64 (if 2)");

	/* NeuG 1.0.x's indices: 4 revision, 5 build configuration, 6 system
	 * version, 7 board (its check tool reads 1..6 unconditionally). */
	const char *want[8] = {NULL, "Free Software Initiative of Japan", "NeuG True RNG", "123456789ABCDEF00FEDCBA9", "9.9.9",
			       "test:cfg", "test-sys 1", "test-board"};
	for (int i = 1; i <= 7; i++) {
		r = ctl(0x80, 6, (uint16_t)(0x0300 | i), 0x0409, 255, b, &n);
		char s[128] = {0};
		for (int k = 0; k < (n - 2) / 2 && k < 127; k++)
			s[k] = (char)b[2 + 2 * k];
		CHECK(r == FK_OK && b[1] == 3 && b[0] == n && strcmp(s, want[i]) == 0, "string %d = \"%s\"", i, s);
	}
	CHECK(ctl(0x80, 6, 0x0308, 0x0409, 255, b, &n) == FK_STALL, "string 8 STALLs");
	CHECK(ctl(0x80, 6, 0x0304, 0x0409, 255, b, &n) == FK_OK && b[0] == 12, "string 4 still answers after a STALL");
	CHECK(ctl(0x80, 6, 0x0300, 0, 255, b, &n) == FK_OK && n == 4 && ng_get_le16(b + 2) == 0x0409, "LANGID 0x0409");
}

static void test_gating(void)
{
	uint8_t b[64];
	uint16_t n;
	CHECK(ng_neug_wants_samples(&D) == 0, "not configured: no samples wanted");
	configure();
	CHECK(fk_in(&F, NG_NEUG_EP_NOTIFY, b, 64, &n) == FK_OK && n == 10 && b[1] == 0x20 && ng_get_le16(b + 8) == 3,
	      "configured: SERIAL_STATE with DCD|DSR");
	CHECK(ng_neug_wants_samples(&D) == 0 && !ng_neug_dtr(&D), "configured, DTR low: no samples wanted");
	set_dtr(true);
	size_t w = ng_neug_wants_samples(&D);
	CHECK(ng_neug_dtr(&D) && w > 0, "DTR high: %zu samples wanted", w);
	set_dtr(false);
	CHECK(ng_neug_wants_samples(&D) == 0, "DTR low again: none wanted");
}

static void test_mode(uint8_t parity, uint32_t mode, const char *in, const char *golden, size_t limit)
{
	size_t nin, ngold, used;
	uint8_t *src = load(in, &nin), *gold = load(golden, &ngold);
	if (!src || !gold) {
		CHECK(0, "vectors %s and %s readable (NG_VECTORS)", in, golden);
		return;
	}
	if (limit && ngold > limit)
		ngold = limit;
	start();
	configure();
	if (parity != 0xFF)
		set_parity(parity);
	uint8_t info;
	uint16_t n;
	ctl(0xC0, 254, 0, 0, 1, &info, &n);
	CHECK(ng_neug_mode(&D) == mode && info == mode, "parity %u selects mode %u (GET_INFO 0 = %u)", parity, mode, info);
	uint8_t *out = calloc(1, ngold + 64);
	set_dtr(true);
	size_t got = run((const uint32_t *)src, nin / 4, &used, out, ngold);
	CHECK(got == ngold && memcmp(out, gold, ngold) == 0,
	      "mode %u: %zu bytes from %s equal %s (from its first sample, %zu used)", mode, got, in, golden, used);
	free(src);
	free(gold);
	free(out);
}

/* n random samples from seed into s, and a configured device in raw mode
 * with DTR up. */
static void start_raw(uint32_t *s, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		s[i] = (uint32_t)(ng_test_rand(&seed) >> 32);
	start();
	configure();
	set_parity(2); /* raw */
	set_dtr(true);
}

static void test_zlp_and_discard(void)
{
	uint8_t b[64];
	uint16_t n;
	static uint32_t s[1024];
	start_raw(s, 1024, 0x6e657567);
	/* get through the start-up behaviour first (raw mode never blocks) */
	ng_neug_put_samples(&D, s, 16); /* 64 bytes */
	ng_neug_task(&D);
	int a = fk_in(&F, NG_NEUG_EP_DATA_IN, b, 64, &n) == FK_OK && n == 64 && memcmp(b, s, 64) == 0;
	int z = fk_in(&F, NG_NEUG_EP_DATA_IN, b, 64, &n) == FK_OK && n == 0;
	CHECK(a && z, "raw: 16 samples = one full packet, then a ZLP");
	CHECK(fk_in(&F, NG_NEUG_EP_DATA_IN, b, 64, &n) == FK_NAK, "then nothing (NAK)");
	set_dtr(false);
	ng_neug_put_samples(&D, s, 64); /* 256 bytes buffered while DTR is low */
	ng_neug_task(&D);
	CHECK(fk_in(&F, NG_NEUG_EP_DATA_IN, b, 64, &n) == FK_NAK, "DTR low: nothing sent although output is buffered");
	set_parity(1); /* CRC32: discards what was buffered */
	set_dtr(true);
	ng_neug_task(&D);
	CHECK(fk_in(&F, NG_NEUG_EP_DATA_IN, b, 64, &n) == FK_NAK, "after a mode change the buffered raw output is gone");
	/* (mode 1 holds its output back until the start-up test is done) */
	ng_neug_put_samples(&D, s, 1024);
	ng_neug_task(&D);
	int r = fk_in(&F, NG_NEUG_EP_DATA_IN, b, 64, &n);
	int raw = 0;
	for (int i = 0; i + 16 <= 1024; i++)
		raw |= memcmp(b, s + i, 64) == 0;
	CHECK(r == FK_OK && n == 64 && !raw, "after 1024 more samples mode 1 sends CRC output, not raw samples");
	set_parity(4); /* space: mode unchanged */
	CHECK(ng_neug_mode(&D) == 1, "space parity leaves the mode as it is");
}

/* A mode change in the middle of a 512-byte transfer: only the packet the
 * controller already holds is still sent in the old mode. */
static void test_mode_change_cuts_transfer(void)
{
	uint8_t b[64];
	uint16_t n;
	static uint32_t s[2048];
	start_raw(s, 2048, 0x6375747475);
	ng_neug_put_samples(&D, s, 128); /* 512 bytes: one transfer */
	ng_neug_task(&D);
	uint64_t sent0 = D.bytes_sent;
	int a = fk_in(&F, NG_NEUG_EP_DATA_IN, b, 64, &n) == FK_OK && n == 64 && memcmp(b, s, 64) == 0;
	set_parity(1); /* CRC32, while packet 2 is armed */
	a = a && fk_in(&F, NG_NEUG_EP_DATA_IN, b, 64, &n) == FK_OK && n == 64 && memcmp(b, s + 16, 64) == 0;
	a = a && fk_in(&F, NG_NEUG_EP_DATA_IN, b, 64, &n) == FK_OK && n == 0;
	CHECK(a, "mode change after packet 1 of a 512-byte raw transfer: packet 2 (armed), a ZLP, no more raw");
	CHECK(D.bytes_sent - sent0 == 128, "bytes sent counts what was delivered (%llu)", (unsigned long long)(D.bytes_sent - sent0));
	ng_neug_put_samples(&D, s + 128, 1024 + 128);
	ng_neug_task(&D);
	int r = fk_in(&F, NG_NEUG_EP_DATA_IN, b, 64, &n), raw = 0;
	for (int i = 0; i + 16 <= 2048; i++)
		raw |= memcmp(b, s + i, 64) == 0;
	CHECK(r == FK_OK && n == 64 && !raw, "then CRC32 output, none of the cut transfer's raw samples");
}

static void test_get_info(void)
{
	uint8_t b[16];
	uint16_t n;
	ng_pipeline_stats st;
	ng_neug_get_stats(&D, &st);
	int ok = 1;
	const uint16_t v16[7] = {st.neug_err, st.neug_err_rc, st.neug_err_p64, st.neug_err_p4k, st.neug_rc_max, st.neug_p64_max, st.neug_p4k_max};
	for (int i = 1; i <= 7; i++)
		ok &= ctl(0xC0, 254, 0, (uint16_t)i, 8, b, &n) == FK_OK && n == 2 && ng_get_le16(b) == v16[i - 1];
	CHECK(ok, "GET_INFO 1..7: NeuG's counters, uint16 LE");
	const struct { uint16_t idx; uint64_t v; uint8_t size; } t[] = {
		{16, st.status, 4}, {17, st.rct_failures, 4}, {18, st.apt_failures, 4}, {19, st.rct_max, 4},
		{20, st.apt_max, 4}, {21, st.rct_cutoff, 4}, {22, st.apt_cutoff, 4}, {23, st.h_milli, 4},
		{24, st.samples, 8}, {25, st.blocks_out, 8}, {26, st.blocks_dropped, 8}, {27, st.fail_test, 4},
		{28, st.fail_index, 8}, {29, st.fail_count, 4}, {30, st.samples_per_block, 4}, {31, st.apt_window, 4},
		{46, st.adc_h_milli, 4}, {47, st.adc_rct_cutoff, 4}, {48, st.adc_apt_cutoff, 4},
		{49, st.adc1_rct_failures, 4}, {50, st.adc1_apt_failures, 4}, {51, st.adc1_rct_max, 4},
		{52, st.adc1_apt_max, 4}, {53, st.adc2_rct_failures, 4}, {54, st.adc2_apt_failures, 4},
		{55, st.adc2_rct_max, 4}, {56, st.adc2_apt_max, 4}, {57, st.fail_stream, 4}, {58, st.blocks_lost, 8},
	};
	ok = 1;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		int r = ctl(0xC0, 254, 0, t[i].idx, 16, b, &n);
		uint64_t v = n == 8 ? ng_get_le32(b) | ((uint64_t)ng_get_le32(b + 4) << 32) : ng_get_le32(b);
		if (r != FK_OK || n != t[i].size || v != t[i].v) {
			printf("# GET_INFO %u: r=%d n=%u v=%llu want %llu\n", t[i].idx, r, n, (unsigned long long)v, (unsigned long long)t[i].v);
			ok = 0;
		}
	}
	CHECK(ok, "GET_INFO 16..31 and 46..58: our raw-sample test state (per ADC too), sizes and values");
	CHECK(ctl(0xC0, 254, 0, 59, 16, b, &n) == FK_STALL, "GET_INFO 59 (past the counter table) STALLs");
	CHECK(ctl(0xC0, 254, 0, 21, 16, b, &n) == FK_OK && ng_get_le32(b) == 10, "GET_INFO 21: RCT cutoff 10 for H = 3.7");
	CHECK(ctl(0xC0, 254, 0, 23, 16, b, &n) == FK_OK && ng_get_le32(b) == 3700, "GET_INFO 23: declared H 3700 milli-bits");
	ok = ctl(0xC0, 254, 0, 32, 16, b, &n) == FK_OK && n == 8 && ng_get_le32(b) == (uint32_t)D.bytes_sent;
	CHECK(ok, "GET_INFO 32: bytes sent (%u)", ng_get_le32(b));
	CHECK(ctl(0xC0, 254, 0, 24, 3, b, &n) == FK_OK && n == 3, "GET_INFO with a short wLength is truncated");
	CHECK(ctl(0xC0, 254, 0, 8, 16, b, &n) == FK_STALL && ctl(0xC0, 254, 0, 255, 16, b, &n) == FK_STALL,
	      "GET_INFO unknown index STALLs");
	CHECK(ctl(0xC0, 254, 1, 0, 16, b, &n) == FK_STALL, "GET_INFO with wValue 1 STALLs");
	CHECK(ctl(0x40, 254, 0, 0, 0, NULL, NULL) == FK_STALL, "GET_INFO host-to-device STALLs");
	CHECK(ctl(0xC1, 254, 0, 0, 16, b, &n) == FK_STALL, "GET_INFO to an interface STALLs");
	CHECK(ctl(0xC0, 255, 0, 0, 16, b, &n) == FK_STALL, "other vendor requests STALL");
}

static void test_dead_source(void)
{
	size_t nin, used;
	uint8_t *src = load("stuck.bin", &nin);
	if (!src) {
		CHECK(0, "stuck.bin readable");
		return;
	}
	start();
	configure();
	set_dtr(true);
	uint8_t *out = calloc(1, 8192);
	size_t got = run((const uint32_t *)src, nin / 4, &used, out, 6400);
	uint8_t b[8];
	uint16_t n;
	ctl(0xC0, 254, 0, NG_INFO_STATUS, 8, b, &n);
	uint32_t status = ng_get_le32(b);
	CHECK(got == 0, "stuck.bin in mode 0: no output at all (%zu bytes)", got);
	CHECK((status & NG_HEALTH_PERSISTENT) && (status & NG_HEALTH_RCT), "GET_INFO status 0x%02x: RCT fired, persistent", status);
	CHECK(ng_neug_wants_samples(&D) == 0 && used < nin / 4, "latched: no more samples wanted (%zu of %zu used)", used, nin / 4);
	free(src);
	free(out);
}

static void test_msc_in_composite(void)
{
	uint8_t b[64];
	uint16_t n;
	start();
	configure();
	CHECK(ctl(0xA1, 0xFE, 0, NG_NEUG_IF_MSC, 1, b, &n) == FK_OK && n == 1 && b[0] == 0, "GET_MAX_LUN on interface 2");
	bot_host h = {&F, NG_NEUG_EP_MSC_IN, NG_NEUG_EP_MSC_OUT, NG_NEUG_IF_MSC, 0};
	uint8_t inq[6] = {0x12, 0, 0, 0, 36, 0};
	bot_result r = bot_cmd(&h, inq, 6, 36, true, b);
	CHECK(r.ok && r.status == 0 && r.got == 36 && memcmp(b + 16, "NeuG disk", 9) == 0, "INQUIRY over 0x83/0x03");
	uint8_t vpd[6] = {0x12, 1, 0x80, 0, 64, 0};
	r = bot_cmd(&h, vpd, 6, 64, true, b);
	CHECK(r.ok && r.status == 0 && b[3] == 24 && memcmp(b + 4, "123456789ABCDEF00FEDCBA9", 24) == 0,
	      "VPD 0x80 = the USB serial number");
	uint8_t rd[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0};
	static uint8_t sec[512];
	r = bot_cmd(&h, rd, 10, 512, true, sec);
	CHECK(r.ok && r.status == 0 && r.got == 512 && sec[510] == 0x55 && sec[511] == 0xAA, "READ(10) of the boot sector");
	CHECK(F.errors == 0, "the fake dcd saw no contract violation (%s)", F.last_error);
}

static void test_halts(void)
{
	uint8_t b[512];
	uint16_t n;
	start();
	configure();
	fk_in(&F, NG_NEUG_EP_NOTIFY, b, 64, &n); /* the SERIAL_STATE */
	const uint8_t eps[5] = {NG_NEUG_EP_DATA_IN, NG_NEUG_EP_DATA_OUT, NG_NEUG_EP_NOTIFY, NG_NEUG_EP_MSC_IN, NG_NEUG_EP_MSC_OUT};
	int ok = 1;
	for (int i = 0; i < 5; i++) {
		fk_ep *e = fk_ep_of(&F, eps[i]);
		e->toggle = 1;
		int a = ctl(0x02, 3, 0, eps[i], 0, NULL, NULL) == FK_OK && e->stalled;
		a = a && ctl(0x82, 0, 0, eps[i], 2, b, &n) == FK_OK && b[0] == 1;
		a = a && ctl(0x02, 1, 0, eps[i], 0, NULL, NULL) == FK_OK && !e->stalled && e->toggle == 0;
		a = a && ctl(0x82, 0, 0, eps[i], 2, b, &n) == FK_OK && b[0] == 0;
		if (!a)
			printf("# endpoint 0x%02x\n", eps[i]);
		ok &= a;
	}
	CHECK(ok, "halt, GET_STATUS, clear (toggle DATA0) on all five endpoints of the composite");
	CHECK(F.ep[0][1].pending && F.ep[0][3].pending, "bulk OUT endpoints re-armed after their halts were cleared");
	/* everything still works: raw data on 0x81, a command on 0x83/0x03 */
	set_parity(2);
	set_dtr(true);
	uint32_t s[16];
	for (int i = 0; i < 16; i++)
		s[i] = 0x9E3779B9u * (uint32_t)(i + 1);
	ng_neug_put_samples(&D, s, 16);
	ng_neug_task(&D);
	int r = fk_in(&F, NG_NEUG_EP_DATA_IN, b, 64, &n);
	CHECK(r == FK_OK && n == 64 && memcmp(b, s, 64) == 0, "CDC data flows after the halts");
	bot_host h = {&F, NG_NEUG_EP_MSC_IN, NG_NEUG_EP_MSC_OUT, NG_NEUG_IF_MSC, 0};
	uint8_t tur[6] = {0};
	bot_result br = bot_cmd(&h, tur, 6, 0, false, NULL);
	CHECK(br.ok && br.status == 0, "mass storage answers after the halts");
	/* SET_CONFIGURATION 0 then 1: DTR is forgotten, output stops until raised again */
	ctl(0x00, 9, 0, 0, 0, NULL, NULL);
	CHECK(!ng_neug_dtr(&D) && ng_neug_wants_samples(&D) == 0, "SET_CONFIGURATION 0 drops DTR and stops sampling");
	configure();
	ng_neug_put_samples(&D, s, 16);
	ng_neug_task(&D);
	CHECK(fk_in(&F, NG_NEUG_EP_DATA_IN, b, 64, &n) == FK_NAK, "reconfigured, DTR low: nothing sent");
	CHECK(F.errors == 0, "no dcd contract violation (%s)", F.last_error);
}

int main(void)
{
	{
		static ng_neug_dev bad;
		ng_neug_config c = {.uid = {1, 2, 3}, .health = {50, 2, 2}};
		CHECK(ng_neug_init(&bad, &c, &fk_ops, &F) == NG_ERR_ARG, "ng_neug_init rejects H = 0.05 bit (NG_ERR_ARG)");
		CHECK(ng_neug_init(&bad, NULL, &fk_ops, &F) == NG_ERR_ARG, "ng_neug_init rejects a NULL config");
	}
	start();
	test_descriptors();
	test_gating();
	test_get_info();
	test_mode(0, NG_MODE_CONDITIONED, "adc.bin", "out-adc-m0.bin", 0);
	test_get_info();
	test_mode(1, NG_MODE_CRC32, "adc.bin", "out-adc-m1.bin", 0);
	test_mode(2, NG_MODE_RAW, "adc.bin", "adc.bin", 0);
	test_mode(0xFF, NG_MODE_CONDITIONED, "adc.bin", "out-adc-m0.bin", 640);
	test_zlp_and_discard();
	test_mode_change_cuts_transfer();
	test_dead_source();
	test_msc_in_composite();
	test_halts();
	return ng_check_exit();
}
