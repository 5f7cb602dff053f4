/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: arbitrary byte streams into the USB/IP server, with the
 * real emulated NeuG (USB stack, CDC-ACM, MSC, pipeline) behind it.
 * The first input byte picks the start: even = a fresh TCP-like connection
 * (management phase), odd = a connection that already imported 1-1, so the
 * URB parser and the device see the bytes. The rest is sent, the write side
 * shut, and the server run until it closes the connection or goes idle.
 * Invariants: no crash, no sanitizer report, no leak; the server is never left
 * attached to a dead connection, and always serves the next client. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "emulate.h"
#include "usbip.h"

static ng_emu *emu;

static void init(void)
{
	char err[512], src[600];
	const char *v = getenv("NG_VECTORS");
	snprintf(src, sizeof src, "file:%s/neug-1.0.6/adc.bin", v ? v : "tests/data");
	ng_emu_opts o = {.source = src, .uid = {0x12345678, 0x9abcdef0, 0x0fedcba9}};
	emu = ng_emu_new(&o, err, sizeof err);
	if (!emu) {
		o.source = "jitter";
		emu = ng_emu_new(&o, err, sizeof err);
	}
	if (!emu) {
		fprintf(stderr, "fuzz_usbip: %s\n", err);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!emu)
		init();
	if (size == 0)
		return 0;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0)
		return 0;
	ng_usbip *u = ng_emu_usbip(emu);
	if (ng_usbip_add_client(u, sv[0], false) < 0) {
		close(sv[1]);
		return 0;
	}
	static const uint8_t import[40] = {0x01, 0x11, 0x80, 0x03, 0, 0, 0, 0, '1', '-', '1'};
	size_t off = 1;
	if (data[0] & 1) {
		if (send(sv[1], import, sizeof import, MSG_NOSIGNAL) != (ssize_t)sizeof import)
			abort();
	}
	uint8_t sink[65536];
	int idle = 0;
	bool shut = false;
	for (int round = 0; round < 20000 && idle < 50; round++) {
		bool busy = false;
		if (off < size) {
			ssize_t w = send(sv[1], data + off, size - off, MSG_NOSIGNAL);
			if (w > 0) {
				off += (size_t)w;
				busy = true;
			} else if (w < 0 && errno != EAGAIN) {
				off = size; /* the server closed */
			}
		} else if (!shut) {
			shutdown(sv[1], SHUT_WR);
			shut = true;
		}
		ssize_t r = recv(sv[1], sink, sizeof sink, 0);
		if (r == 0 && shut)
			break; /* closed by the server */
		if (r > 0)
			busy = true;
		ng_emu_step(emu, 0);
		idle = busy ? 0 : idle + 1;
	}
	close(sv[1]);
	for (int k = 0; k < 10; k++)
		ng_emu_step(emu, 0);
	/* the connection is gone: the device must not stay attached to it */
	if (ng_usbip_imported(u)) {
		fprintf(stderr, "fuzz_usbip: still attached after the client closed\n");
		abort();
	}
	return 0;
}
