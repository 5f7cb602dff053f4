/* SPDX-License-Identifier: GPL-3.0-or-later */
/* usb/usbd.c against a fake dcd: every standard request of USB 2.0 §9.4,
 * wrong lengths and directions, unknown requests (STALL), SET_ADDRESS timing,
 * halt/clear-halt on each endpoint, control data stages of every length
 * class (ZLP rules), and the transfer layer. */
#include <string.h>
#include "check.h"
#include "fakes/fake_dcd.h"
#include "usbd.h"

static const uint8_t dev_desc[18] = {18, 1, 0x00, 0x02, 0xEF, 0x02, 0x01, 64, 0x4B, 0x23, 0x01, 0x00,
				     0x00, 0x01, 1, 2, 3, 1};
/* config: 1 interface, bulk 0x81/0x01 and interrupt 0x82 */
static const uint8_t cfg_desc[9 + 9 + 7 * 3] = {
	9, 2, sizeof cfg_desc, 0, 1, 1, 0, 0x80, 50,
	9, 4, 0, 0, 3, 0xFF, 0, 0, 0,
	7, 5, 0x81, 2, 64, 0, 0,
	7, 5, 0x01, 2, 64, 0, 0,
	7, 5, 0x82, 3, 16, 0, 10,
};

static const char *str_fn(const ng_usbd_ctx *u, uint8_t index)
{
	(void)u;
	return index == 1 ? "Test" : NULL;
}

static const ng_usbd_desc desc = {dev_desc, cfg_desc, str_fn};

/* A dummy class: vendor 0x42 IN replies wValue bytes of a pattern; 0x43 OUT
 * stores data; it opens its three endpoints when configured. */
typedef struct {
	unsigned configured, unconfigured;
	uint8_t pattern[256];
	uint8_t got[256];
	uint16_t got_len;
	unsigned done_calls;
	uint8_t done_ep;
	uint16_t done_len;
	unsigned halt_cleared;
} dummy;

static ng_usbd_class dcls;
static dummy dm;

static void d_configured(void *ctx, ng_usbd_ctx *u, bool on)
{
	dummy *d = ctx;
	if (on) {
		d->configured++;
		ng_usbd_ep_open(u, &dcls, 0, 0x81, NG_EP_BULK, 64);
		ng_usbd_ep_open(u, &dcls, 0, 0x01, NG_EP_BULK, 64);
		ng_usbd_ep_open(u, &dcls, 0, 0x82, NG_EP_INTERRUPT, 16);
	} else {
		d->unconfigured++;
	}
}

static bool d_control(void *ctx, ng_usbd_ctx *u, const ng_usb_setup *s, uint8_t stage,
		      const uint8_t *data, uint16_t len)
{
	dummy *d = ctx;
	if ((s->bmRequestType & NG_REQ_TYPE_MASK) != NG_REQ_TYPE_VENDOR)
		return false;
	if (s->bRequest == 0x42 && (s->bmRequestType & 0x80) && stage == NG_CTRL_SETUP) {
		ng_usbd_control_reply(u, d->pattern, s->wValue);
		return true;
	}
	if (s->bRequest == 0x43 && !(s->bmRequestType & 0x80)) {
		if (stage == NG_CTRL_DATA) {
			memcpy(d->got, data, len);
			d->got_len = len;
		}
		return true;
	}
	return false;
}

static void d_done(void *ctx, ng_usbd_ctx *u, uint8_t ep, uint16_t len)
{
	(void)u;
	dummy *d = ctx;
	d->done_calls++;
	d->done_ep = ep;
	d->done_len = len;
}

static void d_halt_cleared(void *ctx, ng_usbd_ctx *u, uint8_t ep)
{
	(void)u;
	(void)ep;
	((dummy *)ctx)->halt_cleared++;
}

static ng_usbd_ctx U;
static fk_dcd F;

static void setup_all(void)
{
	memset(&F, 0, sizeof F);
	memset(&dm, 0, sizeof dm);
	for (int i = 0; i < 256; i++)
		dm.pattern[i] = (uint8_t)(i * 7 + 1);
	dcls = (ng_usbd_class){0, 1, &dm, d_configured, d_control, d_done, d_halt_cleared};
	const ng_usbd_class *cl[1] = {&dcls};
	ng_usbd_init(&U, &fk_ops, &F, &desc, cl, 1);
	ng_usbd_connect(&U, true);
	fk_bus_reset(&F);
}

static int ctl(uint8_t rt, uint8_t req, uint16_t val, uint16_t idx, uint16_t len, uint8_t *buf, uint16_t *act)
{
	return fk_control(&F, rt, req, val, idx, len, buf, act);
}

static void test_descriptors(void)
{
	uint8_t b[512];
	uint16_t n;
	int r = ctl(0x80, 6, 0x0100, 0, 64, b, &n);
	CHECK(r == FK_OK && n == 18 && memcmp(b, dev_desc, 18) == 0, "GET_DESCRIPTOR(device, 64) returns the 18 bytes");
	r = ctl(0x80, 6, 0x0100, 0, 8, b, &n);
	CHECK(r == FK_OK && n == 8 && memcmp(b, dev_desc, 8) == 0, "GET_DESCRIPTOR(device, 8) is clamped to wLength");
	r = ctl(0x80, 6, 0x0200, 0, 9, b, &n);
	CHECK(r == FK_OK && n == 9 && b[2] == sizeof cfg_desc, "GET_DESCRIPTOR(config, 9): header with wTotalLength");
	r = ctl(0x80, 6, 0x0200, 0, 255, b, &n);
	CHECK(r == FK_OK && n == sizeof cfg_desc && memcmp(b, cfg_desc, n) == 0, "GET_DESCRIPTOR(config, 255) returns wTotalLength bytes");
	r = ctl(0x80, 6, 0x0201, 0, 255, b, &n);
	CHECK(r == FK_STALL, "GET_DESCRIPTOR(config index 1) STALLs");
	r = ctl(0x80, 6, 0x0300, 0, 255, b, &n);
	CHECK(r == FK_OK && n == 4 && b[2] == 0x09 && b[3] == 0x04, "GET_DESCRIPTOR(string 0): LANGID 0x0409");
	r = ctl(0x80, 6, 0x0301, 0x0409, 255, b, &n);
	CHECK(r == FK_OK && n == 10 && b[2] == 'T', "GET_DESCRIPTOR(string 1)");
	r = ctl(0x80, 6, 0x0301, 0x0409, 2, b, &n);
	CHECK(r == FK_OK && n == 2 && b[0] == 10, "GET_DESCRIPTOR(string 1, wLength 2) is truncated");
	r = ctl(0x80, 6, 0x0309, 0x0409, 255, b, &n);
	CHECK(r == FK_STALL, "GET_DESCRIPTOR(unknown string) STALLs");
	CHECK(ctl(0x80, 6, 0x0600, 0, 10, b, &n) == FK_STALL, "GET_DESCRIPTOR(device_qualifier) STALLs (full speed only)");
	CHECK(ctl(0x80, 6, 0x0700, 0, 255, b, &n) == FK_STALL, "GET_DESCRIPTOR(other_speed_configuration) STALLs");
	CHECK(ctl(0x80, 6, 0x2100, 0, 255, b, &n) == FK_STALL, "GET_DESCRIPTOR(unknown type) STALLs");
	CHECK(ctl(0x00, 6, 0x0100, 0, 18, b, &n) == FK_STALL, "GET_DESCRIPTOR host-to-device STALLs");
	CHECK(ctl(0x80, 6, 0x0100, 0, 0, b, &n) == FK_STALL, "GET_DESCRIPTOR with wLength 0 STALLs");
	CHECK(ctl(0x80, 6, 0x0100, 0, 18, b, &n) == FK_OK, "the next request after a STALL works (SETUP clears it)");
	memset(b, 0xA5, 18);
	CHECK(ctl(0x00, 7, 0x0100, 0, 18, b, &n) == FK_STALL, "SET_DESCRIPTOR STALLs");
}

static void test_address(void)
{
	uint8_t b[64];
	uint16_t n;
	const uint8_t setup[8] = {0x00, 5, 42, 0, 0, 0, 0, 0};
	fk_setup(&F, setup);
	CHECK(F.set_address_calls == 1 && F.set_address_last == 42 && F.errors == 0,
	      "SET_ADDRESS: the stack calls set_address(42) once, before it arms the status ZLP");
	CHECK(F.address == 0 && F.ep[1][0].pending && F.ep[1][0].len == 0,
	      "SET_ADDRESS: status ZLP queued, address not yet on the bus");
	fk_in(&F, 0x80, b, 64, &n);
	CHECK(F.address == 42 && F.set_address_calls == 1, "SET_ADDRESS: address 42 on the bus after the status stage");
	CHECK(ctl(0x00, 5, 128, 0, 0, b, &n) == FK_STALL && F.address == 42, "SET_ADDRESS(128) STALLs");
	CHECK(ctl(0x00, 5, 7, 0, 2, b, &n) == FK_STALL && F.address == 42, "SET_ADDRESS with wLength 2 STALLs");
	/* an aborted SET_ADDRESS (new SETUP before the status stage) never applies */
	const uint8_t setup9[8] = {0x00, 5, 9, 0, 0, 0, 0, 0};
	fk_setup(&F, setup9);
	CHECK(ctl(0x80, 6, 0x0100, 0, 18, b, &n) == FK_OK && F.address == 42, "a SET_ADDRESS aborted by a SETUP is not applied");
	CHECK(ctl(0x00, 5, 5, 0, 0, b, &n) == FK_OK && F.address == 5 && F.set_address_calls == 3 &&
	      F.set_address_last == 5, "SET_ADDRESS(5)");
}

static void test_configuration(void)
{
	uint8_t b[64];
	uint16_t n;
	CHECK(ctl(0x80, 8, 0, 0, 1, b, &n) == FK_OK && n == 1 && b[0] == 0, "GET_CONFIGURATION = 0 when addressed");
	CHECK(ctl(0x81, 0, 0, 0, 2, b, &n) == FK_STALL, "GET_STATUS(interface) STALLs when not configured");
	CHECK(ctl(0x82, 0, 0, 0x81, 2, b, &n) == FK_STALL, "GET_STATUS(endpoint 0x81) STALLs when not configured");
	CHECK(ctl(0x82, 0, 0, 0x00, 2, b, &n) == FK_OK && n == 2 && b[0] == 0, "GET_STATUS(endpoint 0) works when addressed");
	CHECK(ctl(0x00, 9, 2, 0, 0, b, &n) == FK_STALL && !F.ep[1][1].open, "SET_CONFIGURATION(2) STALLs");
	CHECK(ctl(0x00, 9, 1, 0, 0, b, &n) == FK_OK && dm.configured == 1, "SET_CONFIGURATION(1)");
	CHECK(F.ep[1][1].open && F.ep[0][1].open && F.ep[1][2].open && F.ep[1][2].mps == 16 &&
	      F.ep[1][2].type == NG_EP_INTERRUPT, "SET_CONFIGURATION opened 0x81, 0x01, 0x82");
	CHECK(ctl(0x80, 8, 0, 0, 1, b, &n) == FK_OK && b[0] == 1, "GET_CONFIGURATION = 1");
	CHECK(ctl(0x80, 8, 0, 0, 64, b, &n) == FK_OK && n == 1, "GET_CONFIGURATION with wLength 64 returns 1 byte");
	CHECK(ctl(0x00, 9, 0, 0, 0, b, &n) == FK_OK && dm.unconfigured == 1 && !F.ep[1][1].open,
	      "SET_CONFIGURATION(0) closes the endpoints");
	CHECK(ctl(0x80, 8, 0, 0, 1, b, &n) == FK_OK && b[0] == 0, "GET_CONFIGURATION = 0 again");
	CHECK(ctl(0x00, 9, 1, 0, 0, b, &n) == FK_OK && ng_usbd_configuration(&U) == 1, "SET_CONFIGURATION(1) again");
}

static void test_status_features(void)
{
	uint8_t b[64];
	uint16_t n;
	CHECK(ctl(0x80, 0, 0, 0, 2, b, &n) == FK_OK && n == 2 && b[0] == 0 && b[1] == 0, "GET_STATUS(device) = 0 (bus powered)");
	CHECK(ctl(0x81, 0, 0, 0, 2, b, &n) == FK_OK && n == 2 && b[0] == 0, "GET_STATUS(interface 0)");
	CHECK(ctl(0x81, 0, 0, 1, 2, b, &n) == FK_STALL, "GET_STATUS(interface 1, nonexistent) STALLs");
	CHECK(ctl(0x82, 0, 0, 0x85, 2, b, &n) == FK_STALL, "GET_STATUS(endpoint 0x85, nonexistent) STALLs");
	CHECK(ctl(0x00, 3, 1, 0, 0, b, &n) == FK_STALL, "SET_FEATURE(DEVICE_REMOTE_WAKEUP) STALLs (not offered)");
	CHECK(ctl(0x00, 1, 1, 0, 0, b, &n) == FK_STALL, "CLEAR_FEATURE(DEVICE_REMOTE_WAKEUP) STALLs");
	CHECK(ctl(0x00, 3, 2, 0x0100, 0, b, &n) == FK_STALL, "SET_FEATURE(TEST_MODE) STALLs (high speed only)");
	CHECK(ctl(0x01, 3, 0, 0, 0, b, &n) == FK_STALL, "SET_FEATURE(interface) STALLs");
	CHECK(ctl(0x02, 3, 0, 0x00, 0, b, &n) == FK_STALL, "SET_FEATURE(ENDPOINT_HALT) on endpoint 0 STALLs");
	CHECK(ctl(0x02, 1, 0, 0x00, 0, b, &n) == FK_OK, "CLEAR_FEATURE(ENDPOINT_HALT) on endpoint 0 is acknowledged");
	CHECK(ctl(0x02, 3, 1, 0x81, 0, b, &n) == FK_STALL, "SET_FEATURE(endpoint, unknown selector) STALLs");

	const uint8_t eps[3] = {0x81, 0x01, 0x82};
	for (int i = 0; i < 3; i++) {
		uint8_t ep = eps[i];
		fk_ep *e = fk_ep_of(&F, ep);
		/* move one packet so the toggle is DATA1 */
		static uint8_t buf[64];
		if (NG_EP_IS_IN(ep)) {
			ng_usbd_xfer(&U, ep, buf, 10, 0);
			fk_in(&F, ep, b, 64, &n);
		} else {
			ng_usbd_xfer(&U, ep, buf, 64, 0);
			fk_out(&F, ep, b, 5);
		}
		int toggled = e->toggle == 1;
		int ok = ctl(0x02, 3, 0, ep, 0, b, &n) == FK_OK;
		ok = ok && e->stalled && ng_usbd_halted(&U, ep);
		ok = ok && ctl(0x82, 0, 0, ep, 2, b, &n) == FK_OK && n == 2 && b[0] == 1 && b[1] == 0;
		int st = NG_EP_IS_IN(ep) ? fk_in(&F, ep, b, 64, &n) : fk_out(&F, ep, b, 1);
		ok = ok && st == FK_STALL;
		ok = ok && ng_usbd_xfer(&U, ep, buf, 64, 0) == NG_ERR_BUSY;
		unsigned hc = dm.halt_cleared;
		ok = ok && ctl(0x02, 1, 0, ep, 0, b, &n) == FK_OK && !e->stalled && e->toggle == 0 &&
		     dm.halt_cleared == hc + 1;
		ok = ok && ctl(0x82, 0, 0, ep, 2, b, &n) == FK_OK && b[0] == 0;
		CHECK(toggled && ok, "endpoint 0x%02x: SET_FEATURE(HALT) stalls, GET_STATUS=1, CLEAR_FEATURE unstalls and resets the toggle", ep);
		/* CLEAR_FEATURE on a non-halted endpoint still resets the toggle */
		if (NG_EP_IS_IN(ep)) {
			ng_usbd_xfer(&U, ep, buf, 10, 0);
			fk_in(&F, ep, b, 64, &n);
		} else {
			ng_usbd_xfer(&U, ep, buf, 64, 0);
			fk_out(&F, ep, b, 5);
		}
		toggled = e->toggle == 1;
		CHECK(toggled && ctl(0x02, 1, 0, ep, 0, b, &n) == FK_OK && e->toggle == 0,
		      "endpoint 0x%02x: CLEAR_FEATURE(HALT) when not halted resets the toggle", ep);
	}
}

static void test_interface(void)
{
	uint8_t b[64];
	uint16_t n;
	CHECK(ctl(0x81, 10, 0, 0, 1, b, &n) == FK_OK && n == 1 && b[0] == 0, "GET_INTERFACE(0) = 0");
	CHECK(ctl(0x81, 10, 0, 3, 1, b, &n) == FK_STALL, "GET_INTERFACE(3, nonexistent) STALLs");
	CHECK(ctl(0x01, 11, 1, 0, 0, b, &n) == FK_STALL, "SET_INTERFACE(alt 1) STALLs");
	static uint8_t buf[64];
	ng_usbd_xfer(&U, 0x81, buf, 10, 0);
	fk_in(&F, 0x81, b, 64, &n);
	int t1 = F.ep[1][1].toggle == 1;
	CHECK(t1 && ctl(0x01, 11, 0, 0, 0, b, &n) == FK_OK && F.ep[1][1].toggle == 0,
	      "SET_INTERFACE(alt 0) is acknowledged and resets the toggles");
}

static void test_unknown(void)
{
	uint8_t b[64];
	uint16_t n;
	const uint8_t reqs[] = {2, 4, 13, 14, 0x20, 0x7F, 0xFF};
	int all = 1;
	for (size_t i = 0; i < sizeof reqs; i++) {
		all &= ctl(0x80, reqs[i], 0, 0, 8, b, &n) == FK_STALL;
		all &= ctl(0x00, reqs[i], 0, 0, 0, b, &n) == FK_STALL;
	}
	CHECK(all, "unknown standard requests STALL (IN and OUT)");
	CHECK(ctl(0x82, 12, 0, 0x81, 2, b, &n) == FK_STALL, "SYNCH_FRAME STALLs (no isochronous endpoint)");
	CHECK(ctl(0xA0, 0x01, 0, 0, 8, b, &n) == FK_STALL, "class request to the device STALLs");
	CHECK(ctl(0xE0, 0x00, 0, 0, 8, b, &n) == FK_STALL, "reserved request type STALLs");
	CHECK(ctl(0x83, 0, 0, 0, 2, b, &n) == FK_STALL, "recipient 'other' STALLs");
	CHECK(ctl(0xC0, 0x99, 0, 0, 8, b, &n) == FK_STALL, "unknown vendor request STALLs");
	CHECK(ctl(0xC1, 0x42, 10, 5, 64, b, &n) == FK_STALL, "vendor request to a nonexistent interface STALLs");
	CHECK(ctl(0x80, 6, 0x0100, 0, 18, b, &n) == FK_OK, "still fine afterwards");
}

static void test_lengths(void)
{
	/* vendor IN: reply lengths against wLength; a ZLP iff the reply is
	 * shorter than wLength and ends on a full packet */
	const uint16_t lens[] = {0, 1, 63, 64, 65, 127, 128, 129, 200, 255, 256};
	int all = 1, cases = 0;
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		const uint16_t wl[] = {lens[i], (uint16_t)(lens[i] + 1), 64, 255, 256, 1000};
		for (size_t j = 0; j < sizeof wl / sizeof wl[0]; j++) {
			if (wl[j] == 0)
				continue;
			uint8_t b[1024];
			uint16_t n;
			bool zlp;
			int r = fk_control_ex(&F, 0xC0, 0x42, lens[i], 0, wl[j], b, &n, &zlp);
			uint16_t want = lens[i] < wl[j] ? lens[i] : wl[j];
			bool want_zlp = want < wl[j] && want % 64 == 0;
			int ok = r == FK_OK && n == want && zlp == want_zlp && memcmp(b, dm.pattern, want) == 0;
			if (!ok)
				printf("# len %u wLength %u: r=%d n=%u zlp=%d\n", lens[i], wl[j], r, n, zlp);
			all &= ok;
			cases++;
		}
	}
	CHECK(all, "control IN of every length class: clamped to wLength, ZLP exactly when needed (%d cases)", cases);

	const uint16_t outs[] = {1, 7, 63, 64, 65, 128, 200, 256};
	all = 1;
	for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
		uint8_t b[256];
		for (int k = 0; k < 256; k++)
			b[k] = (uint8_t)(k ^ outs[i]);
		dm.got_len = 0;
		int r = ctl(0x40, 0x43, 0, 0, outs[i], b, NULL);
		all &= r == FK_OK && dm.got_len == outs[i] && memcmp(dm.got, b, outs[i]) == 0;
	}
	CHECK(all, "control OUT data stages of 1..256 bytes arrive intact");
	uint8_t big[300] = {0};
	CHECK(ctl(0x40, 0x43, 0, 0, 300, big, NULL) == FK_STALL, "control OUT longer than the buffer (300) STALLs");
	CHECK(ctl(0x40, 0x43, 0, 0, 0, big, NULL) == FK_OK, "vendor OUT without data is acknowledged");
}

static void test_xfer(void)
{
	static uint8_t tx[200], rx[128];
	uint8_t b[64];
	uint16_t n;
	for (int i = 0; i < 200; i++)
		tx[i] = (uint8_t)i;
	dm.done_calls = 0;
	CHECK(ng_usbd_xfer(&U, 0x81, tx, 128, NG_XFER_ZLP) == NG_OK, "xfer 128 bytes with ZLP");
	CHECK(ng_usbd_xfer(&U, 0x81, tx, 10, 0) == NG_ERR_BUSY, "a second xfer on a busy endpoint is NG_ERR_BUSY");
	int ok = fk_in(&F, 0x81, b, 64, &n) == FK_OK && n == 64 && b[0] == 0;
	ok = ok && fk_in(&F, 0x81, b, 64, &n) == FK_OK && n == 64 && b[0] == 64 && dm.done_calls == 0;
	ok = ok && fk_in(&F, 0x81, b, 64, &n) == FK_OK && n == 0 && dm.done_calls == 1 && dm.done_len == 128;
	ok = ok && fk_in(&F, 0x81, b, 64, &n) == FK_NAK;
	CHECK(ok, "128 bytes go as 64 + 64 + ZLP, then one xfer_done(128)");
	ng_usbd_xfer(&U, 0x81, tx, 100, NG_XFER_ZLP);
	ok = fk_in(&F, 0x81, b, 64, &n) == FK_OK && n == 64;
	ok = ok && fk_in(&F, 0x81, b, 64, &n) == FK_OK && n == 36 && b[35] == 99 && dm.done_len == 100;
	ok = ok && fk_in(&F, 0x81, b, 64, &n) == FK_NAK;
	CHECK(ok, "100 bytes go as 64 + 36 (no ZLP after a short packet)");
	ng_usbd_xfer(&U, 0x81, tx, 64, 0);
	ok = fk_in(&F, 0x81, b, 64, &n) == FK_OK && n == 64 && fk_in(&F, 0x81, b, 64, &n) == FK_NAK;
	CHECK(ok, "without NG_XFER_ZLP a full packet is not followed by a ZLP");
	CHECK(ng_usbd_xfer(&U, 0x01, rx, 100, 0) == NG_ERR_ARG, "OUT xfer not a multiple of 64 is NG_ERR_ARG");
	CHECK(ng_usbd_xfer(&U, 0x85, rx, 64, 0) == NG_ERR_ARG, "xfer on an unopened endpoint is NG_ERR_ARG");
	ng_usbd_xfer(&U, 0x01, rx, 128, 0);
	ok = fk_out(&F, 0x01, tx, 64) == FK_OK && dm.done_calls == 3;
	ok = ok && fk_out(&F, 0x01, tx + 64, 10) == FK_OK && dm.done_calls == 4 && dm.done_len == 74 && dm.done_ep == 0x01;
	ok = ok && memcmp(rx, tx, 74) == 0;
	CHECK(ok, "OUT xfer of 128 ends at the short packet: 64 + 10 = 74 bytes");
	ng_usbd_xfer(&U, 0x01, rx, 128, 0);
	ok = fk_out(&F, 0x01, tx, 64) == FK_OK && fk_out(&F, 0x01, tx, 64) == FK_OK && dm.done_len == 128;
	CHECK(ok, "OUT xfer of 128 ends when full (64 + 64)");
}

static void test_reset(void)
{
	uint8_t b[64];
	uint16_t n;
	unsigned unc = dm.unconfigured;
	fk_bus_reset(&F);
	CHECK(ng_usbd_configuration(&U) == 0 && dm.unconfigured == unc + 1, "bus reset deconfigures");
	CHECK(ctl(0x80, 8, 0, 0, 1, b, &n) == FK_OK && b[0] == 0, "GET_CONFIGURATION = 0 after reset");
	/* a SETUP that interrupts a control IN transfer */
	const uint8_t s1[8] = {0xC0, 0x42, 200, 0, 0, 0, 200, 0};
	fk_setup(&F, s1);
	fk_in(&F, 0x80, b, 64, &n);
	CHECK(ctl(0x80, 6, 0x0100, 0, 18, b, &n) == FK_OK && n == 18 && b[0] == 18, "a SETUP aborts a control transfer in its data stage");
	/* queued: a completion for the old request, then a new SETUP; the
	 * completion must not be taken for the new request */
	fk_setup(&F, s1);
	ng_usbd_event_xfer_complete(&U, 0x80, 64, true);
	const uint8_t s2[8] = {0x80, 6, 0, 1, 0, 0, 18, 0};
	F.ep[1][0].pending = false;
	ng_usbd_event_setup(&U, s2, true);
	ng_usbd_task(&U);
	CHECK(F.ep[1][0].pending && F.ep[1][0].len == 18 && F.ep[1][0].buf[0] == 18,
	      "an endpoint-0 completion queued before a SETUP is dropped");
	fk_in(&F, 0x80, b, 64, &n);
	fk_out(&F, 0x00, NULL, 0);
	/* queued: a SET_ADDRESS, then a newer SETUP before the task ran: the
	 * host gave the first up; the stack drops it, set_address included */
	const uint8_t sa[8] = {0x00, 5, 9, 0, 0, 0, 0, 0};
	unsigned calls = F.set_address_calls;
	F.ep[0][0].pending = F.ep[1][0].pending = false;
	ng_usbd_event_setup(&U, sa, true);
	ng_usbd_event_setup(&U, s2, true);
	ng_usbd_task(&U);
	CHECK(F.set_address_calls == calls && F.ep[1][0].pending && F.ep[1][0].len == 18,
	      "a SETUP queued before a newer one is dropped (no set_address for it)");
	fk_in(&F, 0x80, b, 64, &n);
	fk_out(&F, 0x00, NULL, 0);
	CHECK(F.address == 0, "the address stays 0");
	unsigned lost = U.evq_lost;
	for (unsigned i = 0; i < NG_USBD_EVENT_QUEUE + 3; i++)
		ng_usbd_event_suspend(&U, true);
	CHECK(U.evq_lost == lost + 4, "a full event queue drops and counts (%u)", (unsigned)(U.evq_lost - lost));
	ng_usbd_task(&U);
	CHECK(ng_usbd_suspended(&U), "suspend recorded");
	ng_usbd_event_resume(&U, false);
	ng_usbd_task(&U);
	CHECK(!ng_usbd_suspended(&U), "resume recorded");
	CHECK(F.errors == 0, "the fake dcd saw no contract violation (%s)", F.last_error);
}

int main(void)
{
	setup_all();
	CHECK(F.inited && F.connected, "ng_usbd_init calls ops->init, connect calls ops->connect");
	test_descriptors();
	test_address();
	test_configuration();
	test_status_features();
	test_interface();
	test_unknown();
	test_lengths();
	test_xfer();
	test_reset();
	return ng_check_exit();
}
