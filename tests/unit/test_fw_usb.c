/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The STM32 USB device driver (firmware/stm32f103/dcd_stm32f1.c) against a
 * register-level model of the USB peripheral (fw_model.h: EPnR
 * toggle/clear-on-write, packet memory and buffer descriptor table, ISTR).
 * Part 1 plays the stack's side by hand: control transfers with data
 * toggles, SET_ADDRESS applied after its status stage, multi-packet bulk IN
 * with a zero-length packet, short OUT, stall and clear, a full event queue.
 * Part 2 (when the usb/ stack is linked) enumerates the NeuG composite. */
#define NG_FW_HOST_MODEL 1
#define NG_BOARD_HEADER "boards/blue-pill.h"
#include "fw_model.h"
#include "../../firmware/stm32f103/clock.c"
#include "../../firmware/stm32f103/board.c"
#include "../../firmware/stm32f103/dcd_stm32f1.c"
#include "check.h"

/* ---- a scripted upper layer ------------------------------------------- */
static struct {
	int resets, setups, dones, suspends;
	uint8_t setup[8];
	uint8_t done_ep;
	uint16_t done_len;
} up;

static void up_reset(void *c) { (void)c; up.resets++; }
static void up_setup(void *c, const uint8_t s[8]) { (void)c; up.setups++; memcpy(up.setup, s, 8); }
static void up_done(void *c, uint8_t ep, uint16_t len) { (void)c; up.dones++; up.done_ep = ep; up.done_len = len; }
static void up_suspend(void *c, bool s) { (void)c; up.suspends += s ? 1 : -1; }
static const ng_dcd_upper upper = { up_reset, up_setup, up_done, up_suspend };

/* Runs the ISR while the model raises the interrupt, then the task. */
static void run(void)
{
	for (int i = 0; i < 64 && fw_usb_irq_pending(); i++)
		ng_stm32_usb_isr();
	ng_stm32_usb_task();
}

static void setup_pkt(uint8_t *s, uint8_t bm, uint8_t req, uint16_t val, uint16_t idx, uint16_t len)
{
	s[0] = bm; s[1] = req;
	s[2] = (uint8_t)val; s[3] = (uint8_t)(val >> 8);
	s[4] = (uint8_t)idx; s[5] = (uint8_t)(idx >> 8);
	s[6] = (uint8_t)len; s[7] = (uint8_t)(len >> 8);
}

int main(void)
{
	static uint8_t desc[18] = { 18, 1, 0x00, 0x02, 0xEF, 0x02, 0x01, 64, 0x4b, 0x23, 0x01, 0x00,
				    0x00, 0x01, 1, 2, 3, 1 };
	uint8_t s[8], pkt[64];
	uint32_t len;
	int tog, rc;

	fw_model_reset();
	ng_stm32_usb_init(&upper, NULL);
	uint32_t cntr = NG_RD(NG_USB_CNTR);
	CHECK((cntr & (NG_CNTR_CTRM | NG_CNTR_RESETM | NG_CNTR_SUSPM | NG_CNTR_WKUPM)) ==
		      (NG_CNTR_CTRM | NG_CNTR_RESETM | NG_CNTR_SUSPM | NG_CNTR_WKUPM) &&
	      !(cntr & (NG_CNTR_FRES | NG_CNTR_PDWN)) && (NG_RD(NG_RCC_APB1ENR) & NG_RCC_APB1ENR_USBEN),
	      "init: clock on, out of reset and power-down, CTR/RESET/SUSP/WKUP unmasked");
	ng_stm32_usb_connect(true);
	CHECK(((NG_RD(NG_GPIO_CRH(NG_GPIOA)) >> 16) & 0xFu) == 0x4u,
	      "Blue Pill: D+ (PA12) released to the transceiver after the re-enumeration pulse");

	/* Bus reset: EP0 as control, 64-byte buffers, address 0 enabled. */
	fw_host_reset();
	run();
	CHECK(up.resets == 1 && (fw_model.epr[0] & NG_EPR_TYPE) == NG_EPR_TYPE_CONTROL &&
	      ((fw_model.epr[0] & NG_EPR_STAT_RX) >> 12) == NG_STAT_NAK && fw_rx_capacity(0) == 64 &&
	      NG_RD(NG_USB_DADDR) == NG_DADDR_EF && !(fw_model.istr & NG_ISTR_RESET),
	      "reset: ISTR.RESET cleared, EP0 control with a 64-byte RX buffer, DADDR = EF|0");
	uint32_t tx0 = fw_pma_addr(NG_BT_ADDR_TX(0)), rx0 = fw_pma_addr(NG_BT_ADDR_RX(0));
	CHECK(tx0 >= NG_BTABLE_BYTES && rx0 >= NG_BTABLE_BYTES && (tx0 + 64 <= rx0 || rx0 + 64 <= tx0) &&
	      tx0 + 64 <= NG_PMA_BYTES && rx0 + 64 <= NG_PMA_BYTES,
	      "PMA: EP0 buffers after the descriptor table, disjoint, inside 512 bytes");

	/* GET_DESCRIPTOR(device, 64): SETUP, IN DATA1 (18 bytes), OUT ZLP status. */
	setup_pkt(s, 0x80, 6, 0x0100, 0, 64);
	CHECK(fw_host_setup(s) == FW_ACK, "SETUP accepted");
	run();
	CHECK(up.setups == 1 && !memcmp(up.setup, s, 8) && !(fw_model.epr[0] & NG_EPR_CTR_RX),
	      "SETUP delivered (8 bytes) and CTR_RX cleared");
	CHECK(fw_host_in(0, pkt, &len, &tog) == FW_NAK, "IN NAKed until the stack answers");
	ng_stm32_usb_xfer(0x80, desc, 18);
	rc = fw_host_in(0, pkt, &len, &tog);
	CHECK(rc == FW_ACK && len == 18 && !memcmp(pkt, desc, 18) && tog == 1,
	      "data stage: 18-byte device descriptor as DATA1 (rc %d len %u tog %d)", rc, len, tog);
	run();
	CHECK(up.dones == 1 && up.done_ep == 0x80 && up.done_len == 18, "IN transfer complete (18)");
	ng_stm32_usb_xfer(0x00, NULL, 0);
	rc = fw_host_out(0, NULL, 0, &tog);
	run();
	CHECK(rc == FW_ACK && tog == 1 && up.dones == 2 && up.done_ep == 0x00 && up.done_len == 0,
	      "status stage: zero-length OUT DATA1 received");

	/* SET_ADDRESS(5): the status IN goes out at address 0, then DADDR = 5. */
	setup_pkt(s, 0x00, 5, 5, 0, 0);
	fw_host_setup(s);
	run();
	ng_stm32_usb_set_address(5);
	CHECK((NG_RD(NG_USB_DADDR) & 0x7Fu) == 0, "SET_ADDRESS: old address kept until the status stage");
	ng_stm32_usb_xfer(0x80, NULL, 0);
	rc = fw_host_in(0, pkt, &len, &tog);
	run();
	CHECK(rc == FW_ACK && len == 0 && tog == 1 && NG_RD(NG_USB_DADDR) == (NG_DADDR_EF | 5u),
	      "SET_ADDRESS: status ZLP at address 0, then DADDR = EF|5");
	fw_model.host_addr = 5;

	/* A long IN on EP0: 64 + 64 + 2 bytes, toggles DATA1, DATA0, DATA1. */
	static uint8_t big[130];
	for (int i = 0; i < 130; i++)
		big[i] = (uint8_t)(i * 7 + 1);
	setup_pkt(s, 0x80, 6, 0x0200, 0, 255);
	fw_host_setup(s);
	run();
	ng_stm32_usb_xfer(0x80, big, 130);
	uint8_t back[130];
	uint32_t got = 0;
	int togs = 0, ok = 1;
	for (int i = 0; i < 3; i++) {
		rc = fw_host_in(0, pkt, &len, &tog);
		ok &= rc == FW_ACK;
		memcpy(back + got, pkt, len);
		got += len;
		togs = togs * 2 + tog;
		run();
	}
	CHECK(ok && got == 130 && !memcmp(back, big, 130) && togs == 5 && up.done_len == 130,
	      "multi-packet IN: 64+64+2 bytes, DATA1/DATA0/DATA1, one completion");

	/* Configure bulk IN 0x81, bulk OUT 0x02, interrupt IN 0x83 (64 bytes). */
	CHECK(ng_stm32_usb_ep_open(0x81, 2, 64) == NG_OK && ng_stm32_usb_ep_open(0x02, 2, 64) == NG_OK &&
	      ng_stm32_usb_ep_open(0x83, 3, 16) == NG_OK, "open bulk IN, bulk OUT, interrupt IN");
	CHECK((fw_model.epr[1] & (NG_EPR_TYPE | NG_EPR_EA)) == (NG_EPR_TYPE_BULK | 1u) &&
	      (fw_model.epr[3] & (NG_EPR_TYPE | NG_EPR_EA)) == (NG_EPR_TYPE_INTERRUPT | 3u) &&
	      ((fw_model.epr[1] & NG_EPR_STAT_TX) >> 4) == NG_STAT_NAK &&
	      ((fw_model.epr[2] & NG_EPR_STAT_RX) >> 12) == NG_STAT_NAK &&
	      !(fw_model.epr[1] & NG_EPR_DTOG_TX) && fw_rx_capacity(2) == 64,
	      "EPnR: types, addresses, NAK, DATA0; OUT buffer 64 bytes (BL_SIZE=1, NUM_BLOCK=1)");
	/* No two buffers overlap. */
	uint32_t lo[8], hi[8], nb = 0;
	for (uint32_t n = 0; n < 4; n++) {
		uint32_t t = fw_pma_addr(NG_BT_ADDR_TX(n)), r = fw_pma_addr(NG_BT_ADDR_RX(n));
		if (n != 2) { lo[nb] = t; hi[nb++] = t + (n == 3 ? 16 : 64); }
		if (n == 0 || n == 2) { lo[nb] = r; hi[nb++] = r + 64; }
	}
	ok = 1;
	for (uint32_t i = 0; i < nb; i++) {
		ok &= lo[i] >= NG_BTABLE_BYTES && hi[i] <= NG_PMA_BYTES;
		for (uint32_t j = 0; j < i; j++)
			ok &= hi[i] <= lo[j] || hi[j] <= lo[i];
	}
	CHECK(ok, "PMA: %u buffers disjoint, after the table, within 512 bytes", nb);

	/* Bulk IN of 128 bytes then a ZLP (the stack closes full transfers). */
	ng_stm32_usb_xfer(0x81, big, 128);
	got = 0; togs = 0; ok = 1;
	for (int i = 0; i < 2; i++) {
		ok &= fw_host_in(1, pkt, &len, &tog) == FW_ACK && len == 64;
		memcpy(back + got, pkt, len);
		got += len;
		togs = togs * 2 + tog;
		run();
	}
	CHECK(ok && got == 128 && !memcmp(back, big, 128) && togs == 1 && up.done_ep == 0x81 && up.done_len == 128,
	      "bulk IN 128 bytes: two packets DATA0, DATA1");
	ng_stm32_usb_xfer(0x81, NULL, 0);
	rc = fw_host_in(1, pkt, &len, &tog);
	run();
	CHECK(rc == FW_ACK && len == 0 && tog == 0 && up.done_ep == 0x81 && up.done_len == 0,
	      "zero-length packet DATA0 closes the transfer");
	CHECK(fw_host_in(1, pkt, &len, &tog) == FW_NAK, "nothing queued: NAK");

	/* Bulk OUT: 64 + 10 bytes into a 100-byte transfer ends at the short packet. */
	uint8_t rx[100];
	ng_stm32_usb_xfer(0x02, rx, 100);
	rc = fw_host_out(2, big, 64, &tog);
	run();
	int t1 = tog;
	CHECK(rc == FW_ACK && up.done_ep != 0x02, "OUT full packet: the transfer goes on");
	rc = fw_host_out(2, big + 64, 10, &tog);
	run();
	CHECK(rc == FW_ACK && t1 == 0 && tog == 1 && up.done_ep == 0x02 && up.done_len == 74 && !memcmp(rx, big, 74),
	      "OUT short packet ends the transfer: 74 bytes, DATA0 then DATA1");
	CHECK(fw_host_out(2, big, 8, &tog) == FW_NAK, "OUT NAKed with no transfer queued");

	/* Stall and clear (CLEAR_FEATURE ENDPOINT_HALT resets the toggle). */
	ng_stm32_usb_stall(0x81, true);
	CHECK(fw_host_in(1, pkt, &len, &tog) == FW_STALL, "bulk IN stalled");
	ng_stm32_usb_stall(0x81, false);
	ng_stm32_usb_xfer(0x81, big, 5);
	rc = fw_host_in(1, pkt, &len, &tog);
	CHECK(rc == FW_ACK && len == 5 && tog == 0, "cleared: NAK then DATA0 again");
	run();
	ng_stm32_usb_stall(0x00, true);
	CHECK(fw_host_in(0, pkt, &len, &tog) == FW_STALL && fw_host_out(0, big, 0, &tog) == FW_STALL,
	      "EP0 stall answers both directions");
	setup_pkt(s, 0x80, 0, 0, 0, 2);
	CHECK(fw_host_setup(s) == FW_ACK, "a SETUP is accepted on a stalled EP0");
	run();
	CHECK(up.setups == 4 && fw_host_in(0, pkt, &len, &tog) == FW_NAK, "the SETUP clears the stall (NAK now)");

	/* Suspend and wake-up. */
	fw_model.istr |= NG_ISTR_SUSP;
	run();
	CHECK((NG_RD(NG_USB_CNTR) & NG_CNTR_FSUSP) && up.suspends == 1 && !(fw_model.istr & NG_ISTR_SUSP),
	      "SUSP: flag cleared, FSUSP set, stack told");
	fw_model.istr |= NG_ISTR_WKUP;
	run();
	CHECK(!(NG_RD(NG_USB_CNTR) & NG_CNTR_FSUSP) && up.suspends == 0, "WKUP: FSUSP cleared, stack told");

	/* Events faster than the main loop: 15 queued, then the ISR masks CTR
	 * and leaves the 16th pending in the hardware until the task drains. */
	int before = up.setups;
	for (int i = 0; i < 16; i++) {
		setup_pkt(s, 0x80, 0, (uint16_t)i, 0, 2);
		fw_host_setup(s);
		ng_stm32_usb_isr();
	}
	CHECK(!(NG_RD(NG_USB_CNTR) & NG_CNTR_CTRM) && (fw_model.epr[0] & NG_EPR_CTR_RX) &&
	      up.setups == before, "queue full: CTRM masked, the 16th SETUP left pending in EP0R");
	CHECK(fw_host_setup(s) == FW_NOREPLY, "a further SETUP meanwhile gets no handshake (host retries)");
	ng_stm32_usb_task();
	CHECK(up.setups - before == 15 && (NG_RD(NG_USB_CNTR) & NG_CNTR_CTRM), "task drains 15 and unmasks CTR");
	run();
	CHECK(up.setups - before == 16 && up.setup[2] == 15, "then the pending one arrives: 16 in order, none lost");
	CHECK(fw_model.errors == 0, "no model errors (%s)", fw_model.why);
	return ng_check_exit();
}
