/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The USB/IP server with the real emulated NeuG (host/emul/emulate.h) behind it,
 * driven from the client side of a socketpair (and once over TCP): device
 * list, import, control transfers, the golden vector through bulk IN after
 * DTR, unlink of pending / completed / unknown URBs, and hostile inputs that
 * must drop the connection while the next client is served normally. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "emulate.h"
#include "fakes/boot_fixture.h"
#include "usbip.h"

static ng_emu *emu;
static int cfd = -1; /* the client's end */

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void put32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v; }
static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static void new_client(void)
{
	int sv[2];
	if (cfd >= 0)
		close(cfd);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0) {
		perror("socketpair");
		exit(1);
	}
	cfd = sv[1];
	ng_usbip_add_client(ng_emu_usbip(emu), sv[0], false);
}

/* Sends everything, running the server while the socket is full. */
static void send_all(const void *data, size_t n)
{
	const uint8_t *p = data;
	while (n) {
		ssize_t w = send(cfd, p, n, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno != EAGAIN)
				return; /* the server closed: the caller checks for that */
			ng_emu_step(emu, 1);
			continue;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Receives exactly n bytes within ms; returns the count (< n: timeout or EOF;
 * *eof tells which). */
static size_t recv_n(void *buf, size_t n, double ms, int *eof)
{
	uint8_t *p = buf;
	size_t got = 0;
	double end = now_ms() + ms;
	if (eof)
		*eof = 0;
	while (got < n && now_ms() < end) {
		ssize_t r = recv(cfd, p + got, n - got, 0);
		if (r > 0) {
			got += (size_t)r;
			continue;
		}
		if (r == 0) {
			if (eof)
				*eof = 1;
			break;
		}
		ng_emu_step(emu, 1);
	}
	return got;
}

/* True when the server closed the client's connection within ms. */
static int closed_within(double ms)
{
	uint8_t b[4096];
	double end = now_ms() + ms;
	while (now_ms() < end) {
		ssize_t r = recv(cfd, b, sizeof b, 0);
		if (r == 0)
			return 1;
		if (r < 0 && errno != EAGAIN)
			return 1;
		ng_emu_step(emu, 1);
	}
	return 0;
}

static void op(uint16_t code)
{
	uint8_t h[8] = {0x01, 0x11, (uint8_t)(code >> 8), (uint8_t)code, 0, 0, 0, 0};
	send_all(h, 8);
}

static uint32_t seq = 1;
#define DEVID 0x00010002u
static uint8_t is_out[1 << 16]; /* by seqnum: an OUT URB (its RET_SUBMIT carries no data) */

static uint32_t submit(uint32_t ep, uint32_t in, uint32_t len, uint32_t flags, const uint8_t setup[8],
		       const void *payload)
{
	uint8_t h[48] = {0};
	uint32_t s = seq++;
	put32(h, NG_USBIP_CMD_SUBMIT);
	put32(h + 4, s);
	put32(h + 8, DEVID);
	put32(h + 12, in);
	put32(h + 16, ep);
	put32(h + 20, flags | (in ? 0x200u : 0));
	put32(h + 24, len);
	if (setup)
		memcpy(h + 40, setup, 8);
	is_out[s & 0xffff] = !in;
	send_all(h, 48);
	if (!in && len)
		send_all(payload, len);
	return s;
}

static uint32_t unlink_(uint32_t victim)
{
	uint8_t h[48] = {0};
	uint32_t s = seq++;
	put32(h, NG_USBIP_CMD_UNLINK);
	put32(h + 4, s);
	put32(h + 8, DEVID);
	put32(h + 20, victim);
	send_all(h, 48);
	return s;
}

typedef struct {
	uint32_t cmd, seq;
	int32_t status;
	uint32_t actual;
	uint8_t data[4096];
} reply;

/* Reads one RET_*; the data of an IN RET_SUBMIT goes to r->data (only IN
 * URBs' replies carry data). Returns 0 or -1. */
static int get_reply(reply *r, int in_unused, double ms)
{
	(void)in_unused;
	uint8_t h[48];
	if (recv_n(h, 48, ms, NULL) != 48)
		return -1;
	r->cmd = get32(h);
	r->seq = get32(h + 4);
	r->status = (int32_t)get32(h + 20);
	r->actual = r->cmd == NG_USBIP_RET_SUBMIT ? get32(h + 24) : 0;
	if (r->cmd == NG_USBIP_RET_SUBMIT && !is_out[r->seq & 0xffff] && r->actual) {
		if (r->actual > sizeof r->data || recv_n(r->data, r->actual, ms, NULL) != r->actual)
			return -1;
	}
	return 0;
}

static int control_in(uint8_t bmreq, uint8_t breq, uint16_t wvalue, uint16_t windex, uint16_t wlength, reply *r)
{
	uint8_t s[8] = {bmreq, breq, (uint8_t)wvalue, (uint8_t)(wvalue >> 8), (uint8_t)windex,
			(uint8_t)(windex >> 8), (uint8_t)wlength, (uint8_t)(wlength >> 8)};
	uint32_t q = submit(0, 1, wlength, 0, s, NULL);
	if (get_reply(r, 1, 2000) < 0 || r->cmd != NG_USBIP_RET_SUBMIT || r->seq != q)
		return -1;
	return r->status;
}

static int control_out(uint8_t bmreq, uint8_t breq, uint16_t wvalue, uint16_t windex, const void *data, uint16_t len)
{
	uint8_t s[8] = {bmreq, breq, (uint8_t)wvalue, (uint8_t)(wvalue >> 8), (uint8_t)windex,
			(uint8_t)(windex >> 8), (uint8_t)len, (uint8_t)(len >> 8)};
	reply r;
	uint32_t q = submit(0, 0, len, 0, s, data);
	if (get_reply(&r, 0, 2000) < 0 || r.cmd != NG_USBIP_RET_SUBMIT || r.seq != q)
		return -1000;
	return r.status;
}

static int import(const char *busid, uint8_t dev[312])
{
	uint8_t b[32] = {0}, h[8];
	op(NG_USBIP_OP_REQ_IMPORT);
	strncpy((char *)b, busid, sizeof b - 1);
	send_all(b, 32);
	if (recv_n(h, 8, 2000, NULL) != 8 || get16(h) != 0x0111 || get16(h + 2) != NG_USBIP_OP_REP_IMPORT)
		return -1;
	if (get32(h + 4))
		return (int)get32(h + 4);
	return recv_n(dev, 312, 2000, NULL) == 312 ? 0 : -1;
}

/* The endpoints found in the configuration descriptor. */
static uint8_t ep_bulk_in, ep_int_in, ep_msc_in, ep_msc_out;
static uint8_t cdc_iface;

static void parse_config(const uint8_t *c, uint32_t n)
{
	uint8_t cls = 0, ifn = 0;
	for (uint32_t o = 0; o + 2 <= n && c[o] >= 2; o += c[o]) {
		if (c[o + 1] == 4) {
			ifn = c[o + 2];
			cls = c[o + 5];
			if (cls == 2)
				cdc_iface = ifn;
		}
		if (c[o + 1] == 5) {
			uint8_t a = c[o + 2], t = c[o + 3] & 3;
			if (cls == 0x0a && (a & 0x80) && t == 2)
				ep_bulk_in = a & 15;
			if (cls == 2 && (a & 0x80) && t == 3)
				ep_int_in = a & 15;
			if (cls == 8 && t == 2) {
				if (a & 0x80)
					ep_msc_in = a & 15;
				else
					ep_msc_out = a & 15;
			}
		}
	}
}

static void test_devlist(void)
{
	uint8_t h[8], n[4], d[312], it[16];
	new_client();
	op(NG_USBIP_OP_REQ_DEVLIST);
	int ok = recv_n(h, 8, 2000, NULL) == 8 && recv_n(n, 4, 2000, NULL) == 4 && recv_n(d, 312, 2000, NULL) == 312;
	CHECK(ok && get16(h) == 0x0111 && get16(h + 2) == NG_USBIP_OP_REP_DEVLIST && get32(h + 4) == 0,
	      "devlist: OP_REP_DEVLIST, version 0x0111, status 0");
	CHECK(ok && get32(n) == 1 && !strcmp((char *)d + 256, "1-1"), "devlist: one device, busid 1-1");
	CHECK(ok && get16(d + 300) == 0x234b && get16(d + 302) == 0x0001 && get32(d + 296) == 2,
	      "devlist: 234b:0001 at full speed (got %04x:%04x speed %u)", get16(d + 300), get16(d + 302), get32(d + 296));
	uint8_t nif = d[311];
	int got = nif <= 4 && recv_n(it, 4u * nif, 2000, NULL) == 4u * nif;
	CHECK(got && nif == 3 && it[0] == 2 && it[4] == 0x0a && it[8] == 8,
	      "devlist: 3 interfaces, classes 02 0a 08 (got %u: %02x %02x %02x)", nif, it[0], it[4], it[8]);
	CHECK(closed_within(1000), "devlist: the server closes the connection after the reply");
}

static void test_import_and_urbs(void)
{
	uint8_t dev[312];
	reply r;
	new_client();
	CHECK(import("9-9", dev) == 4, "import: an unknown busid is refused (ST_NODEV)");
	CHECK(closed_within(1000), "import: refused connection closed");

	new_client();
	CHECK(import("1-1", dev) == 0 && !strcmp((char *)dev + 256, "1-1"), "import: busid 1-1 accepted");

	/* Control IN: the device descriptor, asked with wLength 64 like Linux. */
	int st = control_in(0x80, 6, 0x0100, 0, 64, &r);
	CHECK(st == 0 && r.actual == 18 && r.data[0] == 18 && r.data[1] == 1 &&
		      r.data[8] == 0x4b && r.data[9] == 0x23 && r.data[10] == 1 && r.data[11] == 0,
	      "control: GET_DESCRIPTOR(device) wLength 64 -> 18 bytes, 234b:0001 (status %d, %u bytes)", st, r.actual);
	st = control_in(0x80, 6, 0x0100, 0, 8, &r);
	CHECK(st == 0 && r.actual == 8, "control: GET_DESCRIPTOR(device) wLength 8 -> 8 bytes (%u)", r.actual);
	st = control_in(0x80, 6, 0x0200, 0, 9, &r);
	uint16_t total = (uint16_t)(r.data[2] | r.data[3] << 8);
	CHECK(st == 0 && r.actual == 9 && r.data[1] == 2, "control: GET_DESCRIPTOR(config) header (total %u)", total);
	st = control_in(0x80, 6, 0x0200, 0, total, &r);
	CHECK(st == 0 && r.actual == total, "control: whole configuration, %u bytes", r.actual);
	parse_config(r.data, r.actual);
	CHECK(ep_bulk_in && ep_int_in && ep_msc_in && ep_msc_out,
	      "control: endpoints found: CDC bulk IN %u, notification %u, MSC IN %u OUT %u",
	      ep_bulk_in, ep_int_in, ep_msc_in, ep_msc_out);
	st = control_in(0x80, 6, 0x0600, 0, 10, &r);
	CHECK(st == -NG_URB_EPIPE, "control: device_qualifier is stalled (-EPIPE) (got %d)", st);
	st = control_in(0x80, 6, 0x0300, 0, 255, &r);
	CHECK(st == 0 && r.actual >= 4 && r.data[1] == 3, "control: string descriptor 0 after a stall");
	CHECK(control_out(0x00, 9, 1, 0, NULL, 0) == 0, "control: SET_CONFIGURATION 1");

	/* Bulk IN before DTR: the URBs stay pending. */
	uint32_t q[64];
	for (int i = 0; i < 8; i++)
		q[i] = submit(ep_bulk_in, 1, 128, 0, NULL, NULL);
	uint32_t qi = submit(ep_int_in, 1, 16, 0, NULL, NULL);
	int dummy, early_bulk = 0, notified = 0;
	uint8_t tmp[48];
	/* before DTR: at most the SERIAL_STATE notification, nothing on bulk IN */
	for (double end = now_ms() + 400; now_ms() < end;) {
		if (get_reply(&r, 1, 50) < 0)
			continue;
		if (r.cmd == NG_USBIP_RET_SUBMIT && r.seq == qi && r.actual >= 8 && r.data[0] == 0xa1 && r.data[1] == 0x20)
			notified = 1;
		else
			early_bulk = 1;
	}
	CHECK(!early_bulk, "bulk IN: nothing arrives before DTR is raised%s",
	      notified ? " (the notification endpoint sent SERIAL_STATE)" : "");
	if (notified) /* a new interrupt URB waits for the next state change */
		qi = submit(ep_int_in, 1, 16, 0, NULL, NULL);
	CHECK(recv_n(tmp, 48, 200, &dummy) == 0, "interrupt IN: the URB stays pending without a notification");

	/* unlink a pending one (the interrupt URB) and an unknown seqnum */
	uint32_t ul = unlink_(qi);
	int ok = get_reply(&r, 0, 2000) == 0;
	CHECK(ok && r.cmd == NG_USBIP_RET_UNLINK && r.seq == ul && r.status == -NG_URB_ECONNRESET,
	      "unlink: a pending URB -> RET_UNLINK -ECONNRESET with the unlink's own seqnum (cmd %u seq %u/%u status %d)",
	      r.cmd, r.seq, ul, r.status);
	ul = unlink_(999999);
	ok = get_reply(&r, 0, 2000) == 0;
	CHECK(ok && r.cmd == NG_USBIP_RET_UNLINK && r.seq == ul && r.status == 0, "unlink: an unknown seqnum -> status 0");

	/* SET_LINE_CODING 9600 8N1 (mode conditioned), then DTR */
	uint8_t lc[7] = {0x80, 0x25, 0, 0, 0, 0, 8};
	CHECK(control_out(0x21, 0x20, 0, cdc_iface, lc, 7) == 0, "cdc: SET_LINE_CODING 9600 8N1");
	CHECK(control_out(0x21, 0x22, 3, cdc_iface, NULL, 0) == 0, "cdc: SET_CONTROL_LINE_STATE DTR|RTS");

	size_t vn = 0;
	uint8_t *want = ng_test_vector("out-adc-m0.bin", &vn);
	uint8_t *got = calloc(1, vn + 4096);
	size_t have = 0;
	int bad = 0, nurbs = 8;
	uint32_t next = 0; /* replies come in submission order per endpoint */
	while (have < vn && !bad) {
		if (get_reply(&r, 1, 5000) < 0 || r.cmd != NG_USBIP_RET_SUBMIT || r.seq != q[next % 64] || r.status) {
			bad = 1;
			break;
		}
		memcpy(got + have, r.data, r.actual);
		have += r.actual;
		next++;
		if (nurbs - (int)next < 8) /* keep 8 in flight, as cdc_acm keeps 16 */
			q[nurbs++ % 64] = submit(ep_bulk_in, 1, 128, 0, NULL, NULL);
	}
	CHECK(want && !bad && have >= vn && !memcmp(got, want, vn),
	      "bulk IN: adc.bin through the emulated device = out-adc-m0.bin (%zu of %zu bytes)", have, vn);
	free(got);
	free(want);

	/* unlink the URBs still in flight: each gets either its RET_SUBMIT first
	 * (then RET_UNLINK 0) or RET_UNLINK -ECONNRESET and never a RET_SUBMIT */
	uint32_t victims[16], ul_seq[16], nv = 0;
	for (uint32_t k = next; k < (uint32_t)nurbs && nv < 16; k++) {
		victims[nv] = q[k % 64];
		ul_seq[nv] = unlink_(victims[nv]);
		nv++;
	}
	int answered = 0, both = 0, lost = 0;
	uint8_t got_ret[16] = {0}, got_ul[16] = {0};
	while (answered < (int)nv) {
		if (get_reply(&r, 1, 3000) < 0) {
			lost = 1;
			break;
		}
		for (uint32_t k = 0; k < nv; k++) {
			if (r.cmd == NG_USBIP_RET_SUBMIT && r.seq == victims[k]) {
				if (got_ul[k])
					both = 1;
				got_ret[k] = 1;
			}
			if (r.cmd == NG_USBIP_RET_UNLINK && r.seq == ul_seq[k]) {
				answered++;
				got_ul[k] = 1;
				if (r.status == -NG_URB_ECONNRESET && got_ret[k])
					both = 1;
				if (r.status == 0 && !got_ret[k])
					both = 1; /* 0 means it had completed: its reply came first */
			}
		}
	}
	for (int k = 0; k < 50; k++)
		ng_emu_step(emu, 1);
	int late = recv_n(tmp, 48, 200, &dummy) != 0; /* nothing may follow */
	CHECK(nv > 0 && !lost && !both && !late,
	      "unlink: %u URBs in flight -> each one either RET_SUBMIT then 0, or -ECONNRESET and never answered", nv);

	/* unlink a URB that completed long ago: status 0 */
	ul = unlink_(q[0]);
	ok = get_reply(&r, 1, 2000) == 0;
	CHECK(ok && r.cmd == NG_USBIP_RET_UNLINK && r.seq == ul && r.status == 0,
	      "unlink: a completed URB -> status 0 (%d)", r.status);
	CHECK(control_out(0x21, 0x22, 0, cdc_iface, NULL, 0) == 0, "cdc: SET_CONTROL_LINE_STATE 0 (DTR dropped)");

	/* a second importer while attached: busy */
	int keep = cfd;
	cfd = -1;
	new_client();
	CHECK(import("1-1", dev) == 2, "import: a second importer gets ST_DEV_BUSY");
	close(cfd);
	cfd = keep;

	/* Bulk OUT split into packets: an MSC CBW (31 bytes) for TEST UNIT READY. */
	uint8_t cbw[31] = {'U', 'S', 'B', 'C', 0x78, 0x56, 0x34, 0x12, 0, 0, 0, 0, 0, 0, 6};
	uint32_t qo = submit(ep_msc_out, 0, 31, 0, NULL, cbw);
	uint32_t qc = submit(ep_msc_in, 1, 13, 0, NULL, NULL);
	int seen_o = 0, seen_c = 0;
	for (int k = 0; k < 40 && !(seen_o && seen_c); k++) {
		if (get_reply(&r, 1, 3000) < 0)
			break;
		if (r.seq == qo)
			seen_o = r.status == 0 && r.actual == 31;
		if (r.seq == qc)
			seen_c = r.status == 0 && r.actual == 13 && !memcmp(r.data, "USBS", 4) &&
				 r.data[4] == 0x78 && r.data[12] == 0;
	}
	CHECK(seen_o && seen_c, "msc: CBW TEST UNIT READY over bulk OUT -> CSW status 0 over bulk IN");
	close(cfd);
	cfd = -1;
	for (int k = 0; k < 50; k++)
		ng_emu_step(emu, 1);
	CHECK(!ng_usbip_imported(ng_emu_usbip(emu)), "detach: closing the socket frees the device");
}

/* A hostile input on a fresh connection; then a good client must be served. */
static void hostile(const char *name, const void *data, size_t n, int then_close)
{
	ng_usbip_stats a, b;
	ng_usbip_get_stats(ng_emu_usbip(emu), &a);
	new_client();
	send_all(data, n);
	if (then_close) {
		shutdown(cfd, SHUT_WR);
	}
	int dropped = closed_within(2000);
	ng_usbip_get_stats(ng_emu_usbip(emu), &b);
	/* the next client is served */
	uint8_t h[8], c[4];
	new_client();
	op(NG_USBIP_OP_REQ_DEVLIST);
	int served = recv_n(h, 8, 2000, NULL) == 8 && recv_n(c, 4, 2000, NULL) == 4 && get32(c) == 1;
	closed_within(1000);
	CHECK(dropped && b.dropped > a.dropped && served, "hostile: %s -> dropped, next client served", name);
}

static void test_hostile(void)
{
	uint8_t b[512];
	memset(b, 0, sizeof b);
	uint8_t badver[8] = {0x01, 0x06, 0x80, 0x05, 0, 0, 0, 0};
	hostile("wrong version", badver, 8, 0);
	uint8_t badop[8] = {0x01, 0x11, 0x80, 0x77, 0, 0, 0, 0};
	hostile("unknown management code", badop, 8, 0);
	hostile("truncated header then EOF", badop, 5, 1);
	uint8_t imp[40] = {0x01, 0x11, 0x80, 0x03, 0, 0, 0, 0, '1', '-', '1'};
	hostile("truncated busid then EOF", imp, 20, 1);

	/* URB-phase attacks after a good import */
	uint8_t seqs[3][48 + 40];
	struct {
		const char *name;
		uint32_t cmd, dir, ep, len, devid;
		int close;
	} cases[] = {
		{"unknown command 7", 7, 0, 0, 0, DEVID, 0},
		{"huge transfer_buffer_length", 1, 0, 1, 0x7fffffff, DEVID, 0},
		{"endpoint number 16", 1, 1, 16, 64, DEVID, 0},
		{"direction 5", 1, 5, 1, 64, DEVID, 0},
		{"wrong devid", 1, 1, 1, 64, 0x00050005, 0},
		{"OUT payload cut off by a disconnect", 1, 0, 1, 4096, DEVID, 1},
	};
	(void)seqs;
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		uint8_t m[40 + 48 + 100] = {0x01, 0x11, 0x80, 0x03, 0, 0, 0, 0, '1', '-', '1'};
		uint8_t *h = m + 40;
		put32(h, cases[k].cmd);
		put32(h + 4, 1);
		put32(h + 8, cases[k].devid);
		put32(h + 12, cases[k].dir);
		put32(h + 16, cases[k].ep);
		put32(h + 24, cases[k].len);
		hostile(cases[k].name, m, sizeof m, cases[k].close);
	}
	/* a flood of pending URBs */
	uint8_t *flood = calloc(NG_USBIP_MAX_URBS + 10, 48);
	memcpy(b, (uint8_t[]){0x01, 0x11, 0x80, 0x03}, 4);
	memcpy(b + 8, "1-1", 3);
	size_t fl = 0;
	memcpy(flood, b, 40);
	fl = 40;
	for (uint32_t k = 0; k < NG_USBIP_MAX_URBS + 5; k++, fl += 48) {
		uint8_t *h = flood + fl;
		memset(h, 0, 48);
		put32(h, 1);
		put32(h + 4, k + 1);
		put32(h + 8, DEVID);
		put32(h + 12, 1);
		put32(h + 16, 2); /* the notification endpoint: never completes */
		put32(h + 24, 16);
	}
	hostile("more pending URBs than the limit", flood, fl, 0);
	free(flood);
}

/* Clients that connect and say nothing must not lock the server out. */
static void test_idle(void)
{
	int idle[NG_USBIP_MAX_CLIENTS];
	for (int k = 0; k < NG_USBIP_MAX_CLIENTS; k++) {
		int sv[2];
		socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv);
		idle[k] = sv[1];
		ng_usbip_add_client(ng_emu_usbip(emu), sv[0], false);
	}
	int sv[2];
	socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv);
	int refused = ng_usbip_add_client(ng_emu_usbip(emu), sv[0], false) < 0;
	close(sv[1]);
	double t0 = now_ms();
	int freed = 0;
	while (!freed && now_ms() - t0 < 15000) {
		ng_emu_step(emu, 50);
		uint8_t b;
		freed = recv(idle[0], &b, 1, 0) == 0;
	}
	CHECK(refused && freed && now_ms() - t0 > 9000,
	      "idle: with %d silent clients a new one is refused; they are dropped after 10 s (%.1f s)",
	      NG_USBIP_MAX_CLIENTS, (now_ms() - t0) / 1000);
	for (int k = 0; k < NG_USBIP_MAX_CLIENTS; k++)
		close(idle[k]);
	uint8_t h[8], c[4];
	new_client();
	op(NG_USBIP_OP_REQ_DEVLIST);
	CHECK(recv_n(h, 8, 2000, NULL) == 8 && recv_n(c, 4, 2000, NULL) == 4 && get32(c) == 1,
	      "idle: the next client is served");
	closed_within(1000);
}

static void test_tcp(void)
{
	char err[256];
	ng_usbip *u = ng_emu_usbip(emu);
	if (ng_usbip_listen(u, "127.0.0.1", 0, err, sizeof err) < 0) {
		SKIP("tcp: cannot listen on 127.0.0.1: %s", err);
		return;
	}
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(ng_usbip_port(u))};
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	if (cfd >= 0)
		close(cfd);
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	int c = connect(cfd, (struct sockaddr *)&sa, sizeof sa);
	fcntl(cfd, F_SETFL, O_NONBLOCK);
	op(NG_USBIP_OP_REQ_DEVLIST);
	uint8_t h[8], n[4];
	int ok = c == 0 && recv_n(h, 8, 2000, NULL) == 8 && recv_n(n, 4, 2000, NULL) == 4;
	CHECK(ok && get32(n) == 1, "tcp: OP_REQ_DEVLIST over TCP on 127.0.0.1:%u", ng_usbip_port(u));
	closed_within(500);
}

/* The loader in emulation (--flash): the application's DFU run-time
 * interface, DETACH = a replug into DFU mode, a download over USB/IP as
 * dfu-util does it, a replug back into the new application; a bad image
 * keeps it in DFU mode. */
static int dfu_status(uint8_t iface, uint8_t st[6])
{
	reply r;
	int rc = control_in(0xA1, 3, 0, iface, 6, &r);
	if (rc == 0 && r.actual == 6)
		memcpy(st, r.data, 6);
	return rc == 0 && r.actual == 6 ? 0 : -1;
}

static int dfu_download(const uint8_t *img, size_t n, uint8_t st[6])
{
	uint16_t blk = 0;
	for (size_t off = 0; off < n; off += 256, blk++) {
		uint16_t len = (uint16_t)(n - off < 256 ? n - off : 256);
		if (control_out(0x21, 1, blk, 0, img + off, len) != 0)
			return -1;
		do {
			if (dfu_status(0, st) < 0)
				return -2;
		} while (st[4] != 5 && st[4] != 10);
		if (st[0])
			return st[4];
	}
	if (control_out(0x21, 1, blk, 0, NULL, 0) != 0)
		return -3;
	do {
		if (dfu_status(0, st) < 0)
			return -4;
	} while (st[4] == 6 || st[4] == 7);
	return st[4];
}

static int attach(uint8_t dev[312])
{
	new_client();
	if (import("1-1", dev) != 0)
		return -1;
	return control_out(0x00, 9, 1, 0, NULL, 0);
}

static void test_dfu(void)
{
	static uint8_t img[BF_IMG_CAP], bad[BF_IMG_CAP];
	char path[] = "/tmp/neug-flash-XXXXXX", ipath[] = "/tmp/neug-img-XXXXXX", err[512];
	int fd = mkstemp(path), ifd = mkstemp(ipath);
	size_t n = bf_image_for(img, sizeof img, 7000, 42, 0x000102, NULL, "emulate", 0, NG_APP_BASE);
	size_t n2 = bf_image_for(bad, sizeof bad, 6000, 43, 0x000103, NULL, "emulate", 0, NG_APP_BASE);
	if (!CHECK(fd >= 0 && ifd >= 0 && n && n2 && write(ifd, img, n) == (ssize_t)n, "a flash file and an image (%zu bytes)", n))
		return;
	close(fd);
	close(ifd);
	ng_emu_opts o = {.source = "file:/dev/zero", .uid = {1, 2, 3}, .flash = path, .program = ipath,
			 .log = getenv("NG_TEST_VERBOSE") ? stderr : NULL, .verbose = 2};
	ng_emu *old = emu;
	emu = ng_emu_new(&o, err, sizeof err);
	if (!CHECK(emu != NULL, "neug emulate --flash=FILE --program=IMAGE starts (%s)", emu ? "" : err)) {
		emu = old;
		return;
	}
	uint8_t dev[312], st[6];
	reply r;
	CHECK(attach(dev) == 0 && ng_emu_dfu_mode(emu) == 0 && dev[306] == 0xEF && dev[311] == 4,
	      "a valid image: the application runs, with its DFU run-time interface (4 interfaces)");
	CHECK(control_in(0x80, 6, 0x0304, 0x0409, 255, &r) == 0 && r.actual == 2 + 10 && r.data[2] == '9',
	      "its revision string comes from the trailer (\"9.8.7\")");
	CHECK(control_in(0xC0, 254, 0, 45, 4, &r) == 0 && r.actual == 4 && get32(r.data) != 0, "GET_INFO 45 answered");
	CHECK(dfu_status(3, st) == 0 && st[4] == 0, "run-time GETSTATUS: appIDLE");
	CHECK(control_out(0x21, 0, 1000, 3, NULL, 0) == 0, "DFU_DETACH acknowledged");
	CHECK(closed_within(2000) && ng_emu_replugs(emu) == 1 && ng_emu_dfu_mode(emu) == 1,
	      "then the device drops the connection and comes back in DFU mode");
	CHECK(attach(dev) == 0 && dev[306] == 0 && dev[311] == 1, "re-imported: device class 0, one interface");
	CHECK(control_in(0xC0, 254, 0, 41, 4, &r) == 0 && (r.data[0] & 0x19) == 0x19,
	      "GET_INFO 41: image valid, DFU mode, requested by the application");
	CHECK(control_in(0xC0, 254, 0, 59, 4, &r) == 0 && r.actual == 4 && r.data[0] == 0x02 && r.data[1] == 0x01 &&
		      r.data[2] == 0 && r.data[3] == 0,
	      "GET_INFO 59: the version floor is the image's, 0.1.2 (raised at its boot; little-endian)");
	static uint8_t other[BF_IMG_CAP];
	size_t no = bf_image_for(other, sizeof other, 6000, 44, 0x000200, NULL, "fst-01", 0, NG_APP_BASE);
	CHECK(dfu_download(other, no, st) == 10 && st[0] == 1, "an image for board fst-01 over USB/IP: dfuERROR errTARGET");
	CHECK(control_in(0xC0, 254, 0, 41, 4, &r) == 0 && (r.data[0] & 0x09) == 0x08,
	      "GET_INFO 41 then: DFU mode, no valid image");
	CHECK(control_out(0x21, 4, 0, 0, NULL, 0) == 0, "CLRSTATUS");
	no = bf_image_for(other, sizeof other, 6000, 45, 0x000101, NULL, "emulate", 0, NG_APP_BASE);
	CHECK(dfu_download(other, no, st) == 10 && st[0] == 2, "0.1.1, below the floor 0.1.2: dfuERROR errFILE");
	CHECK(control_out(0x21, 4, 0, 0, NULL, 0) == 0, "CLRSTATUS");
	CHECK(control_out(0x21, 1, 0xFFF8, 0, img, 256) == 0 && dfu_status(0, st) == 0 && st[4] == 10 && st[0] == 8,
	      "a download starting at block 0xFFF8: dfuERROR errADDRESS");
	CHECK(control_out(0x21, 4, 0, 0, NULL, 0) == 0, "CLRSTATUS");
	CHECK(dfu_download(bad, n2 - 1, st) == 10 && st[0] == 7, "a truncated image over USB/IP: dfuERROR errVERIFY");
	CHECK(control_out(0x21, 4, 0, 0, NULL, 0) == 0, "CLRSTATUS");
	CHECK(control_out(0x21, 0, 1000, 0, NULL, 0) == 0 && !closed_within(300) && ng_emu_dfu_mode(emu) == 1,
	      "DETACH with no valid image: the loader stays in DFU mode");
	memcpy(bad, img, n);
	bad[5000] ^= 0x80;
	CHECK(attach(dev) == 0 && dfu_download(img, n, st) == 2 && st[0] == 0, "the image downloaded: dfuIDLE after manifestation");
	CHECK(control_out(0x21, 0, 1000, 0, NULL, 0) == 0 && closed_within(2000) && ng_emu_dfu_mode(emu) == 0,
	      "DETACH (dfu-util -R): the device comes back running the application");
	CHECK(attach(dev) == 0 && dev[306] == 0xEF, "re-imported as the composite device");
	ng_emu_free(emu);
	emu = ng_emu_new(&o, err, sizeof err);
	CHECK(emu && attach(dev) == 0 && ng_emu_dfu_mode(emu) == 0, "a restarted emulator finds the image in the flash file");
	if (emu)
		ng_emu_free(emu);
	/* a download broken off by a power loss (--unplug-after): the device
	 * is gone at once; plugged in again it is in DFU mode, takes the image
	 * and runs it */
	o.program = NULL;
	o.unplug_after = 3;
	emu = ng_emu_new(&o, err, sizeof err);
	CHECK(emu && attach(dev) == 0 && control_out(0x21, 0, 1000, 3, NULL, 0) == 0 && closed_within(2000) &&
		      attach(dev) == 0 && ng_emu_dfu_mode(emu) == 1,
	      "--unplug-after=3: the application detaches into DFU mode");
	int rc = emu ? dfu_download(img, n, st) : 0;
	CHECK(emu && rc < 0 && ng_emu_unplugged(emu) && closed_within(500),
	      "the download breaks off after its third block: the device dropped the connection (%d)", rc);
	if (emu)
		ng_emu_free(emu);
	o.unplug_after = 0;
	emu = ng_emu_new(&o, err, sizeof err);
	CHECK(emu && attach(dev) == 0 && ng_emu_dfu_mode(emu) == 1 && dev[306] == 0,
	      "plugged in again: DFU mode (the old image's first page is erased)");
	CHECK(emu && dfu_download(img, n, st) == 2 && st[0] == 0 && control_out(0x21, 0, 1000, 0, NULL, 0) == 0 &&
		      closed_within(2000) && ng_emu_dfu_mode(emu) == 0,
	      "it takes the image again and runs it");
	if (emu)
		ng_emu_free(emu);
	o.program = NULL;
	FILE *f = fopen(path, "r+b");
	fseek(f, (long)NG_LOADER_SIZE + 5000, SEEK_SET);
	fputc(0x00, f);
	fclose(f);
	emu = ng_emu_new(&o, err, sizeof err);
	CHECK(emu && attach(dev) == 0 && ng_emu_dfu_mode(emu) == 1 && dev[306] == 0,
	      "a flipped bit in the flash file: DFU mode at start");
	if (emu)
		ng_emu_free(emu);
	emu = old;
	unlink(path);
	unlink(ipath);
}

int main(void)
{
	char err[512], src[600];
	snprintf(src, sizeof src, "file:%s/neug-1.0.6/adc.bin", ng_vectors_dir());
	ng_emu_opts o = {.source = src, .uid = {0x12345678, 0x9abcdef0, 0x0fedcba9},
			 .log = getenv("NG_TEST_VERBOSE") ? stderr : NULL, .verbose = 2};
	emu = ng_emu_new(&o, err, sizeof err);
	if (!CHECK(emu != NULL, "emulated device opens with %s", src)) {
		printf("# %s\n", err);
		return ng_check_exit();
	}
	test_devlist();
	test_import_and_urbs();
	test_hostile();
	test_idle();
	test_tcp();
	test_dfu();
	if (cfd >= 0)
		close(cfd);
	ng_emu_free(emu);
	return ng_check_exit();
}
