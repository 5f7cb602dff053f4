/* SPDX-License-Identifier: GPL-3.0-or-later */
/* usb/cdc_acm.c through the fake dcd: PSTN 1.2 line coding (§6.3.10-11),
 * control line state (§6.3.12), SEND_BREAK (§6.3.13), SERIAL_STATE (§6.5.4),
 * bulk OUT ignored, bulk IN with ZLP, halts, reset. */
#include <string.h>
#include "cdc_acm.h"
#include "check.h"
#include "fakes/fake_dcd.h"
#include "usbd.h"

static const uint8_t dev_desc[18] = {18, 1, 0x00, 0x02, 2, 0, 0, 64, 0x4B, 0x23, 0x01, 0x00, 0x00, 0x01, 0, 0, 0, 1};
static const uint8_t cfg_desc[9 + 9 + 7 + 9 + 7 + 7] = {
	9, 2, sizeof cfg_desc, 0, 2, 1, 0, 0x80, 50,
	9, 4, 0, 0, 1, 2, 2, 0, 0,
	7, 5, 0x82, 3, 16, 0, 10,
	9, 4, 1, 0, 2, 0x0A, 0, 0, 0,
	7, 5, 0x81, 2, 64, 0, 0,
	7, 5, 0x01, 2, 64, 0, 0,
};
static const ng_usbd_desc desc = {dev_desc, cfg_desc, NULL};

static ng_usbd_ctx U;
static fk_dcd F;
static ng_cdc_acm_ctx C;
static struct {
	unsigned coding_calls, state_calls, tx_done, tx_sent, cfg_on, cfg_off;
	ng_cdc_line_coding last;
	uint8_t state;
} ev;

static void cb_coding(void *u, const ng_cdc_line_coding *lc) { (void)u; ev.coding_calls++; ev.last = *lc; }
static void cb_state(void *u, uint8_t s) { (void)u; ev.state_calls++; ev.state = s; }
static void cb_tx(void *u, uint16_t sent) { (void)u; ev.tx_done++; ev.tx_sent += sent; }
static void cb_cfg(void *u, bool on) { (void)u; if (on) ev.cfg_on++; else ev.cfg_off++; }

static int ctl(uint8_t rt, uint8_t req, uint16_t val, uint16_t idx, uint16_t len, uint8_t *buf, uint16_t *act)
{
	return fk_control(&F, rt, req, val, idx, len, buf, act);
}

int main(void)
{
	uint8_t b[256];
	uint16_t n;
	ng_cdc_acm_callbacks cb = {cb_coding, cb_state, cb_tx, cb_cfg, NULL};
	ng_cdc_acm_init(&C, 0, 0x82, 0x81, 0x01, &cb);
	const ng_usbd_class *cl[1] = {&C.cls};
	ng_usbd_init(&U, &fk_ops, &F, &desc, cl, 1);
	ng_usbd_connect(&U, true);
	fk_bus_reset(&F);
	CHECK(ctl(0xA1, 0x21, 0, 0, 7, b, &n) == FK_STALL, "class request before configuration STALLs");
	ctl(0x00, 5, 1, 0, 0, NULL, NULL);
	ctl(0x00, 9, 1, 0, 0, NULL, NULL);
	CHECK(ev.cfg_on == 1 && F.ep[1][2].open && F.ep[1][1].open && F.ep[0][1].open && F.ep[0][1].pending,
	      "configured: 0x82, 0x81, 0x01 open, bulk OUT armed");

	CHECK(ctl(0xA1, 0x21, 0, 0, 7, b, &n) == FK_OK && n == 7 && ng_get_le32(b) == 115200 && b[4] == 0 &&
	      b[5] == 0 && b[6] == 8, "GET_LINE_CODING: default 115200 8N1");
	uint8_t lc[7] = {0x80, 0x25, 0, 0, 2, 1, 7}; /* 9600, 2 stop bits, odd, 7 bits */
	CHECK(ctl(0x21, 0x20, 0, 0, 7, lc, NULL) == FK_OK && ev.coding_calls == 1 && ev.last.dwDTERate == 9600 &&
	      ev.last.bCharFormat == 2 && ev.last.bParityType == 1 && ev.last.bDataBits == 7,
	      "SET_LINE_CODING 9600 7O2 reaches the callback");
	CHECK(ctl(0xA1, 0x21, 0, 0, 7, b, &n) == FK_OK && memcmp(b, lc, 7) == 0, "GET_LINE_CODING returns what was set");
	CHECK(ctl(0xA1, 0x21, 0, 0, 3, b, &n) == FK_OK && n == 3, "GET_LINE_CODING with wLength 3 is truncated");
	CHECK(ctl(0x21, 0x20, 0, 0, 6, lc, NULL) == FK_STALL, "SET_LINE_CODING with wLength 6 STALLs");
	uint8_t badp[7] = {0x80, 0x25, 0, 0, 0, 5, 8}, badb[7] = {0x80, 0x25, 0, 0, 0, 0, 9}, bads[7] = {0x80, 0x25, 0, 0, 3, 0, 8};
	int r1 = ctl(0x21, 0x20, 0, 0, 7, badp, NULL), r2 = ctl(0x21, 0x20, 0, 0, 7, badb, NULL), r3 = ctl(0x21, 0x20, 0, 0, 7, bads, NULL);
	CHECK(r1 == FK_STALL && r2 == FK_STALL && r3 == FK_STALL && ev.coding_calls == 1 && C.coding.dwDTERate == 9600,
	      "SET_LINE_CODING with parity 5, 9 data bits or bCharFormat 3 STALLs and changes nothing");
	uint8_t mark[7] = {0x00, 0xC2, 0x01, 0, 0, 3, 8};
	CHECK(ctl(0x21, 0x20, 0, 0, 7, mark, NULL) == FK_OK && ev.last.bParityType == 3 && ev.last.dwDTERate == 115200,
	      "SET_LINE_CODING mark parity accepted");

	CHECK(ctl(0x21, 0x22, 1, 0, 0, NULL, NULL) == FK_OK && ev.state == NG_CDC_DTR && ev.state_calls == 1,
	      "SET_CONTROL_LINE_STATE DTR");
	CHECK(ctl(0x21, 0x22, 3, 0, 0, NULL, NULL) == FK_OK && ev.state == 3, "SET_CONTROL_LINE_STATE DTR|RTS");
	CHECK(ctl(0x21, 0x22, 3, 0, 0, NULL, NULL) == FK_OK && ev.state_calls == 2, "the same state again: no callback");
	CHECK(ctl(0x21, 0x22, 4, 0, 0, NULL, NULL) == FK_STALL && ng_cdc_acm_line_state(&C) == 3,
	      "SET_CONTROL_LINE_STATE with a reserved bit STALLs");
	CHECK(ctl(0x21, 0x22, 2, 0, 0, NULL, NULL) == FK_OK && ev.state == NG_CDC_RTS, "DTR dropped, RTS kept");
	CHECK(ctl(0x21, 0x23, 100, 0, 0, NULL, NULL) == FK_OK && C.breaks == 1 && C.break_ms == 100, "SEND_BREAK 100 ms");
	CHECK(ctl(0x21, 0x23, 0, 0, 0, NULL, NULL) == FK_OK && C.breaks == 1 && C.break_ms == 0, "SEND_BREAK 0 ends it");
	CHECK(ctl(0x21, 0x00, 0, 0, 4, b, NULL) == FK_STALL, "SEND_ENCAPSULATED_COMMAND STALLs (no AT commands)");
	CHECK(ctl(0xA1, 0x01, 0, 0, 64, b, &n) == FK_STALL, "GET_ENCAPSULATED_RESPONSE STALLs");
	CHECK(ctl(0xA1, 0x21, 0, 1, 7, b, &n) == FK_STALL, "GET_LINE_CODING to the data interface STALLs");
	CHECK(ctl(0x21, 0x22, 1, 0x0100, 0, NULL, NULL) == FK_STALL, "wIndex high byte set STALLs");

	/* SERIAL_STATE */
	ng_cdc_acm_serial_state(&C, &U, 0x03);
	int got = fk_in(&F, 0x82, b, 64, &n);
	CHECK(got == FK_OK && n == 10 && b[0] == 0xA1 && b[1] == 0x20 && ng_get_le16(b + 2) == 0 && ng_get_le16(b + 4) == 0 &&
	      ng_get_le16(b + 6) == 2 && ng_get_le16(b + 8) == 3, "SERIAL_STATE notification: A1 20, wIndex 0, 2 bytes, DCD|DSR");
	CHECK(fk_in(&F, 0x82, b, 64, &n) == FK_NAK, "no second notification for the same state");
	ng_cdc_acm_serial_state(&C, &U, 0x01);
	ng_cdc_acm_serial_state(&C, &U, 0x03); /* changed and back while the first is in flight */
	fk_in(&F, 0x82, b, 64, &n);
	int second = ng_get_le16(b + 8) == 1;
	got = fk_in(&F, 0x82, b, 64, &n);
	CHECK(second && got == FK_OK && ng_get_le16(b + 8) == 3, "a state change during a notification is sent after it");

	/* bulk OUT ignored */
	memset(b, 'x', 64);
	int o1 = fk_out(&F, 0x01, b, 64), o2 = fk_out(&F, 0x01, b, 10);
	CHECK(o1 == FK_OK && o2 == FK_OK && C.out_bytes == 74 && F.ep[0][1].pending, "bulk OUT accepted, counted and re-armed");

	/* bulk IN */
	static uint8_t data[128];
	for (int i = 0; i < 128; i++)
		data[i] = (uint8_t)i;
	CHECK(ng_cdc_acm_write(&C, &U, data, 128) == NG_OK && ng_cdc_acm_tx_busy(&C, &U), "write 128 bytes");
	CHECK(ng_cdc_acm_write(&C, &U, data, 10) == NG_ERR_BUSY, "a second write while busy is NG_ERR_BUSY");
	int a = fk_in(&F, 0x81, b, 64, &n) == FK_OK && n == 64;
	a = a && fk_in(&F, 0x81, b, 64, &n) == FK_OK && n == 64 && b[63] == 127 && ev.tx_done == 0;
	a = a && fk_in(&F, 0x81, b, 64, &n) == FK_OK && n == 0 && ev.tx_done == 1;
	CHECK(a && ev.tx_sent == 128, "128 bytes = 64 + 64 + ZLP, then tx_done (%u sent)", ev.tx_sent);
	/* a cut ends the transfer after the packet the controller holds */
	static uint8_t big[300];
	for (int i = 0; i < 300; i++)
		big[i] = (uint8_t)(i * 7);
	ng_cdc_acm_write(&C, &U, big, 300);
	a = fk_in(&F, 0x81, b, 64, &n) == FK_OK && n == 64 && memcmp(b, big, 64) == 0;
	ng_cdc_acm_tx_cut(&C, &U); /* packet 2 is already armed */
	a = a && fk_in(&F, 0x81, b, 64, &n) == FK_OK && n == 64 && memcmp(b, big + 64, 64) == 0;
	a = a && ev.tx_done == 1 && fk_in(&F, 0x81, b, 64, &n) == FK_OK && n == 0; /* ZLP: 128 is 2 full packets */
	a = a && ev.tx_done == 2 && ev.tx_sent == 256 && !ng_cdc_acm_tx_busy(&C, &U);
	CHECK(a, "tx_cut after packet 1 of 300 bytes: packet 2 (armed) then a ZLP, tx_done with 128 sent");
	CHECK(fk_in(&F, 0x81, b, 64, &n) == FK_NAK, "nothing of the cut transfer's rest follows");
	ng_cdc_acm_write(&C, &U, big, 100);
	ng_cdc_acm_tx_cut(&C, &U); /* 64 armed, 36 left */
	a = fk_in(&F, 0x81, b, 64, &n) == FK_OK && n == 64 && ev.tx_done == 2;
	a = a && fk_in(&F, 0x81, b, 64, &n) == FK_OK && n == 0 && ev.tx_done == 3 && ev.tx_sent == 320;
	a = a && fk_in(&F, 0x81, b, 64, &n) == FK_NAK;
	CHECK(a, "a 100-byte transfer cut at once: its armed 64 bytes, then a ZLP ends it (tx_done, 64 sent)");
	ng_cdc_acm_tx_cut(&C, &U);
	CHECK(!ng_cdc_acm_tx_busy(&C, &U) && ev.tx_done == 3, "a cut on an idle endpoint does nothing");
	ng_cdc_acm_write(&C, &U, data, 30);
	ctl(0x02, 3, 0, 0x81, 0, NULL, NULL);
	CHECK(fk_in(&F, 0x81, b, 64, &n) == FK_STALL && ev.tx_done == 3, "host halts bulk IN mid-transfer");
	ctl(0x02, 1, 0, 0x81, 0, NULL, NULL);
	CHECK(ev.tx_done == 4 && ev.tx_sent == 320 && !ng_cdc_acm_tx_busy(&C, &U), "clearing the halt reports the dropped transfer as done");
	ctl(0x02, 3, 0, 0x01, 0, NULL, NULL);
	ctl(0x02, 1, 0, 0x01, 0, NULL, NULL);
	CHECK(F.ep[0][1].pending, "bulk OUT re-armed after a halt is cleared");

	ctl(0x21, 0x22, 1, 0, 0, NULL, NULL);
	unsigned sc = ev.state_calls;
	fk_bus_reset(&F);
	CHECK(ev.state_calls == sc + 1 && ev.state == 0 && ev.cfg_off == 1, "bus reset drops DTR and deconfigures");
	CHECK(ng_cdc_acm_write(&C, &U, data, 10) == NG_ERR_BUSY, "no writes when not configured");
	CHECK(F.errors == 0, "the fake dcd saw no contract violation (%s)", F.last_error);
	return ng_check_exit();
}
