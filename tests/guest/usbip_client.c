/* SPDX-License-Identifier: GPL-3.0-or-later */
/* usbip-client: a minimal USB/IP client that plays the kernel's part (vhci-hcd
 * plus cdc_acm) against `neug emulate` over TCP, without a kernel: import
 * 1-1, enumerate, SET_CONFIGURATION, SET_LINE_CODING (the mode), DTR, then
 * keep 16 bulk-IN URBs of 128 bytes in flight (as cdc_acm does) and copy the
 * data to stdout. For tests/scripts/emulate.sh and bench/bench-guest.sh.
 *   usbip-client HOST:PORT MODE BYTES [TIMEOUT_S]
 * MODE 0 conditioned, 1 crc32, 2 raw (the line coding parity none/odd/even);
 * MODE info:N instead prints GET_INFO index N (a u32) in decimal after
 * SET_CONFIGURATION and exits 0 (BYTES is then ignored).
 * Prints "bytes=N seconds=S rate_kBps=R" on stderr; exit 0 when BYTES
 * arrived, 1 otherwise. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int fd;
static uint32_t seq = 1;

static void put32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v; }
static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "usbip-client: %s%s%s\n", what, errno ? ": " : "", errno ? strerror(errno) : "");
	exit(1);
}

static void wr(const void *b, size_t n)
{
	const uint8_t *p = b;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			die("write");
		p += w;
		n -= (size_t)w;
	}
}

static void rd(void *b, size_t n)
{
	uint8_t *p = b;
	while (n) {
		ssize_t r = read(fd, p, n);
		if (r <= 0) {
			if (r == 0)
				errno = 0;
			die(r == 0 ? "the server closed the connection" : "read (timeout?)");
		}
		p += r;
		n -= (size_t)r;
	}
}

static uint32_t submit(uint32_t ep, int in, uint32_t len, const uint8_t *setup, const void *out)
{
	uint8_t h[48] = {0};
	uint32_t s = seq++;
	put32(h, 1);
	put32(h + 4, s);
	put32(h + 8, 0x00010002);
	put32(h + 12, (uint32_t)in);
	put32(h + 16, ep);
	put32(h + 20, in ? 0x200 : 0);
	put32(h + 24, len);
	if (setup)
		memcpy(h + 40, setup, 8);
	wr(h, 48);
	if (!in && len)
		wr(out, len);
	return s;
}

/* One RET_SUBMIT; IN data into buf. Returns its seqnum. */
static uint32_t ret(int in, uint8_t *buf, uint32_t *actual, int32_t *status)
{
	uint8_t h[48];
	rd(h, 48);
	if (get32(h) != 3)
		die("unexpected reply (not RET_SUBMIT)");
	*status = (int32_t)get32(h + 20);
	*actual = get32(h + 24);
	if (in && *actual) {
		if (*actual > 4096)
			die("reply too long");
		rd(buf, *actual);
	}
	return get32(h + 4);
}

static int control(uint8_t bm, uint8_t req, uint16_t val, uint16_t idx, uint16_t len, uint8_t *data)
{
	uint8_t s[8] = {bm, req, (uint8_t)val, (uint8_t)(val >> 8), (uint8_t)idx, (uint8_t)(idx >> 8),
			(uint8_t)len, (uint8_t)(len >> 8)};
	int in = (bm & 0x80) != 0;
	uint32_t q = submit(0, in, len, s, data), a;
	int32_t st;
	if (ret(in, data, &a, &st) != q)
		die("control reply out of order");
	return st;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: usbip-client HOST:PORT MODE BYTES [TIMEOUT_S]\n");
		return 2;
	}
	char host[64];
	snprintf(host, sizeof host, "%s", argv[1]);
	char *c = strrchr(host, ':');
	if (!c)
		return 2;
	*c = 0;
	int info = strncmp(argv[2], "info:", 5) ? -1 : atoi(argv[2] + 5);
	int mode = atoi(argv[2]);
	long want = atol(argv[3]);
	int tmo = argc > 4 ? atoi(argv[4]) : 30;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(c + 1))};
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		die("bad address");
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
		die("connect");
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct timeval tv = {.tv_sec = tmo};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);

	uint8_t imp[40] = {0x01, 0x11, 0x80, 0x03, 0, 0, 0, 0, '1', '-', '1'}, rep[8 + 312];
	wr(imp, sizeof imp);
	rd(rep, 8);
	if (get32(rep + 4)) {
		errno = 0;
		die("import refused");
	}
	rd(rep + 8, 312);

	uint8_t buf[4096];
	if (control(0x80, 6, 0x0100, 0, 64, buf) || control(0x80, 6, 0x0200, 0, 255, buf))
		die("GET_DESCRIPTOR failed");
	uint8_t bulk_in = 0, cdc_if = 0, cls = 0;
	uint16_t total = (uint16_t)(buf[2] | buf[3] << 8);
	for (unsigned o = 0; o + 2 <= total && o < sizeof buf && buf[o] >= 2; o += buf[o]) {
		if (buf[o + 1] == 4) {
			cls = buf[o + 5];
			if (cls == 2)
				cdc_if = buf[o + 2];
		}
		if (buf[o + 1] == 5 && cls == 0x0a && (buf[o + 2] & 0x80) && (buf[o + 3] & 3) == 2)
			bulk_in = buf[o + 2] & 15;
	}
	if (!bulk_in) {
		errno = 0;
		die("no CDC data bulk IN endpoint in the configuration");
	}
	if (control(0x00, 9, 1, 0, 0, NULL))
		die("SET_CONFIGURATION failed");
	if (info >= 0) {
		memset(buf, 0, 4);
		if (control(0xc0, 254, 0, (uint16_t)info, 4, buf))
			die("GET_INFO failed");
		printf("%u\n", (unsigned)buf[0] | (unsigned)buf[1] << 8 | (unsigned)buf[2] << 16 | (unsigned)buf[3] << 24);
		close(fd);
		return 0;
	}
	uint8_t lc[7] = {0x00, 0xc2, 0x01, 0x00, 0, (uint8_t)(mode == 1 ? 1 : mode == 2 ? 2 : 0), 8};
	if (control(0x21, 0x20, 0, cdc_if, 7, lc) || control(0x21, 0x22, 3, cdc_if, 0, NULL))
		die("SET_LINE_CODING / SET_CONTROL_LINE_STATE failed");

	double t0 = now();
	long have = 0;
	int inflight = 0;
	for (; inflight < 16; inflight++)
		submit(bulk_in, 1, 128, NULL, NULL);
	while (have < want) {
		uint32_t a;
		int32_t st;
		ret(1, buf, &a, &st);
		if (st) {
			errno = 0;
			die("bulk IN URB failed");
		}
		long k = (long)a < want - have ? (long)a : want - have;
		if (fwrite(buf, 1, (size_t)k, stdout) != (size_t)k)
			die("stdout");
		have += k;
		submit(bulk_in, 1, 128, NULL, NULL);
	}
	double dt = now() - t0;
	fflush(stdout);
	fprintf(stderr, "bytes=%ld seconds=%.3f rate_kBps=%.1f\n", have, dt, dt > 0 ? have / dt / 1000 : 0);
	close(fd);
	return 0;
}
