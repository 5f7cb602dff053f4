/* SPDX-License-Identifier: GPL-3.0-or-later */
/* neug-check: what NeuG 1.0.x's own check tool (tool/neug_check.py, pyusb)
 * asks of a device, through libusb, for the guest test (tests/guest/init.sh,
 * check 8). Written from that tool's documented behaviour, not its code:
 *   - string descriptors 1..6, each of which must answer (a STALL aborts
 *     NeuG's tool), then 7 if present;
 *   - vendor request GET_INFO (0xC0, 254): index 0, 1 byte (the mode), and
 *     indices 1..7, 2 bytes each.
 * Then requests that must STALL (an unknown GET_INFO index, an unknown
 * string index, an unknown vendor request), and the whole NeuG pass once
 * more: after a STALL the device must go on serving.
 *   neug-check [VID:PID]            default 234b:0001
 * Prints "string N: TEXT", "info N: VALUE", "stall WHAT: ok|answered",
 * "again: same|differs" lines, and "result: ok" or "result: failed (...)".
 * Exit 0 when everything answered as it should, 1 otherwise, 2 no device. */
#include <libusb-1.0/libusb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQ_GET_INFO 254
#define TIMEOUT_MS 2000

typedef struct {
	char str[8][128];
	int info[8];
} pass_result;

static int failures;

static void bad(const char *what, int r)
{
	printf("error: %s: %s\n", what, libusb_error_name(r));
	failures++;
}

/* One pass of NeuG's tool: strings 1..7 and GET_INFO 0..7. */
static void neug_pass(libusb_device_handle *h, pass_result *p, int print)
{
	memset(p, 0, sizeof *p);
	for (int i = 1; i <= 7; i++) {
		unsigned char s[128];
		int r = libusb_get_string_descriptor_ascii(h, (uint8_t)i, s, sizeof s - 1);
		if (r < 0) {
			char what[32];
			snprintf(what, sizeof what, "string %d", i);
			bad(what, r);
			continue;
		}
		s[r] = 0;
		snprintf(p->str[i], sizeof p->str[i], "%s", (char *)s);
		if (print)
			printf("string %d: %s\n", i, p->str[i]);
	}
	for (int i = 0; i <= 7; i++) {
		unsigned char b[2] = {0, 0};
		uint16_t len = i == 0 ? 1 : 2;
		int r = libusb_control_transfer(h, LIBUSB_ENDPOINT_IN | LIBUSB_REQUEST_TYPE_VENDOR |
						LIBUSB_RECIPIENT_DEVICE, REQ_GET_INFO, 0, (uint16_t)i, b, len,
						TIMEOUT_MS);
		char what[32];
		snprintf(what, sizeof what, "GET_INFO %d", i);
		if (r < 0) {
			bad(what, r);
			p->info[i] = -1;
			continue;
		}
		if (r != len) {
			printf("error: %s: %d bytes, want %u\n", what, r, len);
			failures++;
		}
		p->info[i] = b[0] | b[1] << 8;
		if (print)
			printf("info %d: %d\n", i, p->info[i]);
	}
}

/* A request that must STALL (LIBUSB_ERROR_PIPE). */
static void want_stall(libusb_device_handle *h, const char *what, uint8_t type, uint8_t req,
		       uint16_t value, uint16_t index, uint16_t len)
{
	unsigned char b[255];
	int r = libusb_control_transfer(h, type, req, value, index, b, len, TIMEOUT_MS);
	if (r == LIBUSB_ERROR_PIPE) {
		printf("stall %s: ok\n", what);
		return;
	}
	printf("stall %s: answered (%s)\n", what, r < 0 ? libusb_error_name(r) : "data");
	failures++;
}

int main(int argc, char **argv)
{
	unsigned vid = 0x234b, pid = 0x0001;
	if (argc > 1 && sscanf(argv[1], "%x:%x", &vid, &pid) != 2) {
		fprintf(stderr, "usage: neug-check [VID:PID]\n");
		return 2;
	}
	libusb_context *ctx;
	if (libusb_init(&ctx) != 0) {
		printf("result: failed (libusb_init)\n");
		return 2;
	}
	libusb_device_handle *h = libusb_open_device_with_vid_pid(ctx, (uint16_t)vid, (uint16_t)pid);
	if (!h) {
		printf("result: failed (no device %04x:%04x)\n", vid, pid);
		libusb_exit(ctx);
		return 2;
	}
	pass_result first, again;
	neug_pass(h, &first, 1);
	int before = failures;

	const uint8_t vin = LIBUSB_ENDPOINT_IN | LIBUSB_REQUEST_TYPE_VENDOR | LIBUSB_RECIPIENT_DEVICE;
	const uint8_t sin = LIBUSB_ENDPOINT_IN | LIBUSB_REQUEST_TYPE_STANDARD | LIBUSB_RECIPIENT_DEVICE;
	want_stall(h, "GET_INFO 8", vin, REQ_GET_INFO, 0, 8, 2);
	want_stall(h, "GET_INFO 65535", vin, REQ_GET_INFO, 0, 0xffff, 8);
	want_stall(h, "string 9", sin, LIBUSB_REQUEST_GET_DESCRIPTOR, 0x0309, 0x0409, 255);
	want_stall(h, "string 0xEE", sin, LIBUSB_REQUEST_GET_DESCRIPTOR, 0x03EE, 0x0409, 255);
	want_stall(h, "vendor request 253", vin, 253, 0, 0, 8);
	/* and NeuG's pass right after a STALL, twice */
	neug_pass(h, &again, 0);
	want_stall(h, "GET_INFO 15", vin, REQ_GET_INFO, 0, 15, 4);
	neug_pass(h, &again, 0);
	int same = failures == before;
	for (int i = 1; i <= 7; i++)
		same &= strcmp(first.str[i], again.str[i]) == 0;
	same &= again.info[0] == first.info[0];
	printf("again: %s\n", same ? "same" : "differs");
	if (!same)
		failures++;
	libusb_close(h);
	libusb_exit(ctx);
	if (failures) {
		printf("result: failed (%d errors)\n", failures);
		return 1;
	}
	printf("result: ok\n");
	return 0;
}
