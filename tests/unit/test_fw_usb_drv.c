/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The STM32 USB device driver (firmware/stm32f103/dcd_stm32f1.c) against a
 * register-level model of the USB peripheral (fw_model.h: EPnR
 * toggle/clear-on-write, packet memory and buffer descriptor table, ISTR),
 * each dcd.h op and event checked by hand: this test plays the stack (it
 * defines the ng_usbd_event_* functions), test_fw_usb.c runs the real one.
 * Built twice: as test_fw_usb_drv, and as test_fw_usb_drv_ep0 with
 * NG_USB_NEP 1 and NG_USB_POLLED, as the boot loader builds the driver
 * (endpoint 0 only: the parts on endpoints 1..3 are left out, and the
 * driver must refuse them; no interrupt: the poll op runs the handler,
 * which also applies the address set_address recorded). */
#define NG_FW_HOST_MODEL 1
#define NG_BOARD_HEADER "boards/blue-pill.h"
#include "fw_model.h"
#include "../../firmware/stm32f103/clock.c"
#include "../../firmware/stm32f103/board.c"
#include "../../firmware/stm32f103/dcd_stm32f1.c"
#include "check.h"

/* ---- the stack's side, scripted --------------------------------------- */
static struct {
	int resets, setups, dones, suspends, suspends_seen, not_isr;
	uint8_t setup[8];
	uint8_t done_ep;
	uint16_t done_len;
} up;

void ng_usbd_event_bus_reset(ng_usbd_ctx *u, bool in_isr) { (void)u; up.not_isr += !in_isr; up.resets++; }
void ng_usbd_event_setup(ng_usbd_ctx *u, const uint8_t s[8], bool in_isr)
{
	(void)u;
	up.not_isr += !in_isr;
	up.setups++;
	memcpy(up.setup, s, 8);
}
void ng_usbd_event_xfer_complete(ng_usbd_ctx *u, uint8_t ep, uint16_t len, bool in_isr)
{
	(void)u;
	up.not_isr += !in_isr;
	up.dones++;
	up.done_ep = ep;
	up.done_len = len;
}
void ng_usbd_event_suspend(ng_usbd_ctx *u, bool in_isr)
{
	(void)u;
	up.not_isr += !in_isr;
	up.suspends++;
	up.suspends_seen++;
}
void ng_usbd_event_resume(ng_usbd_ctx *u, bool in_isr) { (void)u; up.not_isr += !in_isr; up.suspends--; }

static const ng_dcd_ops *ops = &ng_stm32_dcd_ops;

#if NG_USB_NEP > 1 || !defined NG_USB_POLLED
/* A bus reset and its interrupt, injected by the model. */
static void race_reset(void)
{
	fw_host_reset();
	ng_stm32_usb_isr();
}
#endif
#define XFER(ep, b, l) ops->ep_xfer(NULL, (ep), (b), (l))

#ifdef NG_USB_POLLED
/* The main loop's polls (the interrupt stays masked). */
static void run(void)
{
	for (int i = 0; i < 4; i++)
		ops->poll(NULL);
}
#else
/* Runs the ISR while the model raises the interrupt. */
static void run(void)
{
	for (int i = 0; i < 64 && fw_usb_irq_pending(); i++)
		ng_stm32_usb_isr();
}
#endif

static void setup_pkt(uint8_t *s, uint8_t bm, uint8_t req, uint16_t val, uint16_t idx, uint16_t len)
{
	s[0] = bm; s[1] = req;
	s[2] = (uint8_t)val; s[3] = (uint8_t)(val >> 8);
	s[4] = (uint8_t)idx; s[5] = (uint8_t)(idx >> 8);
	s[6] = (uint8_t)len; s[7] = (uint8_t)(len >> 8);
}

int main(void)
{
	static uint8_t big[130];
	static uint8_t desc[18] = { 18, 1, 0x00, 0x02, 0xEF, 0x02, 0x01, 64, 0x4b, 0x23, 0x01, 0x00,
				    0x00, 0x01, 1, 2, 3, 1 };
	uint8_t s[8], pkt[64], rx[64];
	uint32_t len;
	int tog, rc;

	fw_model_reset();
	ng_clock_init();
	ng_systick_init();
	/* Finding 7: on a fixed pull-up board D+ is held low from the first
	 * GPIO set-up (before the self-test), not only from USB init. */
	ng_board_init();
	CHECK(((NG_RD(NG_GPIO_CRH(NG_GPIOA)) >> 16) & 0xFu) == NG_GPIO_MODE_OUT_PP &&
	      !(NG_RD(NG_GPIO_ODR(NG_GPIOA)) & (1u << 12)),
	      "Blue Pill (fixed pull-up): PA12 (D+) driven low by the first GPIO init");
	ops->init(NULL, (ng_usbd_ctx *)&up);
	uint32_t cntr = NG_RD(NG_USB_CNTR);
#ifdef NG_USB_POLLED
	CHECK(cntr == 0 && (NG_RD(NG_RCC_APB1ENR) & NG_RCC_APB1ENR_USBEN) && !(NG_RD(NG_NVIC_ISER(0)) & (1u << NG_IRQ_USB_LP_CAN_RX0)),
	      "init (polled): clock on, out of reset and power-down, every interrupt masked, IRQ 20 not enabled");
#else
	CHECK((cntr & (NG_CNTR_CTRM | NG_CNTR_RESETM | NG_CNTR_SUSPM | NG_CNTR_WKUPM)) ==
		      (NG_CNTR_CTRM | NG_CNTR_RESETM | NG_CNTR_SUSPM | NG_CNTR_WKUPM) &&
	      !(cntr & (NG_CNTR_FRES | NG_CNTR_PDWN)) && (NG_RD(NG_RCC_APB1ENR) & NG_RCC_APB1ENR_USBEN),
	      "init: clock on, out of reset and power-down, CTR/RESET/SUSP/WKUP unmasked");
#endif
	CHECK(((fw_model.gpioa_crh_at_usben >> 16) & 0xFu) == NG_GPIO_MODE_OUT_PP &&
	      !(fw_model.gpioa_odr_at_usben & (1u << 12)),
	      "Blue Pill (fixed pull-up): D+ (PA12) driven low before the USB peripheral is enabled");
	ops->connect(NULL, true);
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
	      "SETUP reported (8 bytes) and CTR_RX cleared");
	CHECK(fw_host_in(0, pkt, &len, &tog) == FW_NAK, "IN NAKed until the stack answers");
	CHECK(XFER(0x80, big, 5) == NG_OK && XFER(0x80, desc, 18) == NG_OK, "endpoint 0: a new packet replaces a pending one");
	rc = fw_host_in(0, pkt, &len, &tog);
	CHECK(rc == FW_ACK && len == 18 && !memcmp(pkt, desc, 18) && tog == 1,
	      "data stage: 18-byte device descriptor as DATA1 (rc %d len %u tog %d)", rc, len, tog);
	run();
	CHECK(up.dones == 1 && up.done_ep == 0x80 && up.done_len == 18, "IN complete (18)");
	XFER(0x00, rx, 64);
	rc = fw_host_out(0, NULL, 0, &tog);
	run();
	CHECK(rc == FW_ACK && tog == 1 && up.dones == 2 && up.done_ep == 0x00 && up.done_len == 0,
	      "status stage: zero-length OUT DATA1 reported with len 0");

	/* SET_ADDRESS(5): the stack calls set_address as it accepts the
	 * request, then arms the status IN, which goes at address 0. */
	setup_pkt(s, 0x00, 5, 5, 0, 0);
	fw_host_setup(s);
	run();
	ops->set_address(NULL, 5);
	CHECK(NG_RD(NG_USB_DADDR) == NG_DADDR_EF, "set_address before the status stage: DADDR still EF|0");
	XFER(0x80, NULL, 0);
	rc = fw_host_in(0, pkt, &len, &tog);
#ifdef NG_USB_POLLED
	/* The poll that reports the status stage applies the address. */
	int dn = up.dones;
	run();
	CHECK(rc == FW_ACK && len == 0 && tog == 1 && up.dones == dn + 1 && up.done_ep == 0x80,
	      "SET_ADDRESS: status ZLP at address 0, reported by the poll");
	CHECK(NG_RD(NG_USB_DADDR) == (NG_DADDR_EF | 5u), "polled: the poll that sees the status stage writes DADDR = EF|5");
#else
	/* Finding 8: the main loop is busy elsewhere; only interrupts run for
	 * the 2 ms the host waits (USB 2.0 9.2.6.3). */
	fw_model.usb_isr = ng_stm32_usb_isr;
	fw_model_advance(FW_DADDR_NS);
	fw_model.usb_isr = NULL;
	CHECK(rc == FW_ACK && len == 0 && tog == 1 && NG_RD(NG_USB_DADDR) == (NG_DADDR_EF | 5u),
	      "SET_ADDRESS: status ZLP at address 0, DADDR = EF|5 within 2 ms without the main loop");
#endif
	fw_model.host_addr = 5;
	setup_pkt(s, 0x80, 0, 0, 0, 2);
	CHECK(fw_host_setup(s) == FW_ACK, "the device answers at address 5");
	run();

	/* A data stage of 64 + 64 + 2 bytes: the stack sends packet by packet;
	 * toggles DATA1, DATA0, DATA1. */
	for (int i = 0; i < 130; i++)
		big[i] = (uint8_t)(i * 7 + 1);
	uint8_t back[130];
	uint32_t got = 0;
	int togs = 0, ok = 1;
	for (int i = 0; i < 3; i++) {
		ok &= XFER(0x80, big + 64 * i, i < 2 ? 64 : 2) == NG_OK;
		rc = fw_host_in(0, pkt, &len, &tog);
		ok &= rc == FW_ACK;
		memcpy(back + got, pkt, len);
		got += len;
		togs = togs * 2 + tog;
		run();
	}
	CHECK(ok && got == 130 && !memcmp(back, big, 130) && togs == 5 && up.done_len == 2,
	      "three IN packets 64+64+2: DATA1/DATA0/DATA1");
	CHECK(XFER(0x80, big, 65) == NG_ERR_ARG && XFER(0x05, big, 1) == NG_ERR_ARG,
	      "a packet above max packet or on a closed endpoint: NG_ERR_ARG");

#if NG_USB_NEP > 1
	/* The composite's endpoints (usb/neug_device.h). */
	CHECK(ops->ep_open(NULL, 0x81, NG_EP_BULK, 64) == NG_OK && ops->ep_open(NULL, 0x01, NG_EP_BULK, 64) == NG_OK &&
	      ops->ep_open(NULL, 0x82, NG_EP_INTERRUPT, 16) == NG_OK && ops->ep_open(NULL, 0x83, NG_EP_BULK, 64) == NG_OK &&
	      ops->ep_open(NULL, 0x03, NG_EP_BULK, 64) == NG_OK, "open 0x81, 0x01, 0x82, 0x83, 0x03");
	CHECK(ops->ep_open(NULL, 0x02, NG_EP_BULK, 64) == NG_ERR_ARG, "0x02 bulk refused: EP2R is interrupt (0x82)");
	CHECK((fw_model.epr[1] & (NG_EPR_TYPE | NG_EPR_EA)) == (NG_EPR_TYPE_BULK | 1u) &&
	      (fw_model.epr[2] & (NG_EPR_TYPE | NG_EPR_EA)) == (NG_EPR_TYPE_INTERRUPT | 2u) &&
	      ((fw_model.epr[1] & NG_EPR_STAT_TX) >> 4) == NG_STAT_NAK &&
	      ((fw_model.epr[1] & NG_EPR_STAT_RX) >> 12) == NG_STAT_NAK &&
	      !(fw_model.epr[1] & (NG_EPR_DTOG_TX | NG_EPR_DTOG_RX)) && fw_rx_capacity(1) == 64 && fw_rx_capacity(3) == 64,
	      "EPnR: types, addresses, NAK, DATA0; OUT buffers 64 bytes (BL_SIZE=1, NUM_BLOCK=1)");
	uint32_t lo[16], hi[16], nb = 0;
	for (uint32_t n = 0; n < 4; n++) {
		lo[nb] = fw_pma_addr(NG_BT_ADDR_TX(n)); hi[nb] = lo[nb] + (n == 2 ? 16 : 64); nb++;
		if (n != 2) { lo[nb] = fw_pma_addr(NG_BT_ADDR_RX(n)); hi[nb] = lo[nb] + 64; nb++; }
	}
	ok = 1;
	for (uint32_t i = 0; i < nb; i++) {
		ok &= lo[i] >= NG_BTABLE_BYTES && hi[i] <= NG_PMA_BYTES;
		for (uint32_t j = 0; j < i; j++)
			ok &= hi[i] <= lo[j] || hi[j] <= lo[i];
	}
	CHECK(ok, "PMA: %u buffers disjoint, after the table, within 512 bytes", nb);

	/* Bulk IN: 64, 64, then a ZLP; DATA0, DATA1, DATA0. */
	togs = 0; ok = 1;
	for (int i = 0; i < 3; i++) {
		ok &= XFER(0x81, big + 64 * i, i < 2 ? 64 : 0) == NG_OK;
		ok &= fw_host_in(1, pkt, &len, &tog) == FW_ACK && len == (i < 2 ? 64u : 0u);
		ok &= !memcmp(pkt, big + 64 * i, len);
		togs = togs * 2 + tog;
		run();
		ok &= up.done_ep == 0x81 && up.done_len == (i < 2 ? 64 : 0);
	}
	CHECK(ok && togs == 2, "bulk IN 64, 64, ZLP: DATA0, DATA1, DATA0, each reported");
	CHECK(XFER(0x81, big, 1) == NG_OK && XFER(0x81, big, 2) == NG_ERR_BUSY &&
	      fw_host_in(1, pkt, &len, &tog) == FW_ACK && len == 1, "bulk: one packet pending, the second NG_ERR_BUSY");
	run();
	CHECK(fw_host_in(1, pkt, &len, &tog) == FW_NAK, "nothing queued: NAK");

	/* Bulk OUT on the same register: 64 bytes, then 10. */
	XFER(0x01, rx, 64);
	rc = fw_host_out(1, big, 64, &tog);
	run();
	int t1 = tog;
	CHECK(rc == FW_ACK && up.done_ep == 0x01 && up.done_len == 64 && !memcmp(rx, big, 64), "OUT 64 bytes into the buffer");
	XFER(0x01, rx, 64);
	rc = fw_host_out(1, big + 64, 10, &tog);
	run();
	CHECK(rc == FW_ACK && t1 == 0 && tog == 1 && up.done_len == 10 && !memcmp(rx, big + 64, 10),
	      "OUT 10 bytes; DATA0 then DATA1");
	CHECK(fw_host_out(1, big, 8, &tog) == FW_NAK, "OUT NAKed with nothing armed");

	/* Stall and clear (the clear resets the toggle). */
	ops->ep_stall(NULL, 0x81);
	CHECK(fw_host_in(1, pkt, &len, &tog) == FW_STALL && fw_host_out(1, big, 1, &tog) == FW_NAK,
	      "bulk IN stalled, OUT of the same register unaffected");
	ops->ep_clear_stall(NULL, 0x81);
	CHECK(fw_host_in(1, pkt, &len, &tog) == FW_NAK, "cleared: NAK");
	XFER(0x81, big, 5);
	rc = fw_host_in(1, pkt, &len, &tog);
	CHECK(rc == FW_ACK && len == 5 && tog == 0, "cleared: DATA0 again");
	run();
	ops->ep_clear_stall(NULL, 0x01);
	XFER(0x01, rx, 64);
	fw_host_out(1, big, 3, &tog);
	run();
	CHECK(tog == 0, "clear_stall on a running endpoint resets its toggle too");

#else
	CHECK(ops->ep_open(NULL, 0x81, NG_EP_BULK, 64) == NG_ERR_ARG && ops->ep_open(NULL, 0x01, NG_EP_BULK, 64) == NG_ERR_ARG &&
	      XFER(0x81, big, 1) == NG_ERR_ARG, "endpoint 0 only: endpoint 1 cannot be opened or used");
	CHECK(fw_pma_addr(NG_BT_ADDR_RX(0)) >= 8u && fw_pma_addr(NG_BT_ADDR_TX(0)) >= 8u,
	      "endpoint 0 only: the descriptor table is one entry, EP0's buffers behind it");
#endif
	ops->ep_stall(NULL, 0x80);
	CHECK(fw_host_in(0, pkt, &len, &tog) == FW_STALL && fw_host_out(0, big, 0, &tog) == FW_STALL,
	      "EP0 stall answers both directions");
	XFER(0x80, desc, 18);
	setup_pkt(s, 0x80, 6, 0x0100, 0, 18);
	int dones = up.dones;
	CHECK(fw_host_setup(s) == FW_ACK, "a SETUP is accepted on a stalled EP0");
	run();
	CHECK(fw_host_in(0, pkt, &len, &tog) == FW_NAK && up.dones == dones, "the SETUP ends the stall and drops what was pending, silently");
	CHECK(XFER(0x80, desc, 18) == NG_OK && fw_host_in(0, pkt, &len, &tog) == FW_ACK && tog == 1,
	      "after a SETUP the next IN is DATA1");
	run();

#if NG_USB_NEP > 1
	/* ep_close_all and reopen: memory is reused, toggles back to DATA0. */
	ops->ep_close_all(NULL);
	CHECK(((fw_model.epr[1] & NG_EPR_STAT_TX) >> 4) == NG_STAT_DISABLED &&
	      ((fw_model.epr[3] & NG_EPR_STAT_RX) >> 12) == NG_STAT_DISABLED &&
	      XFER(0x81, big, 1) == NG_ERR_ARG, "ep_close_all: endpoints 1-7 disabled");
	ok = 1;
	for (int k = 0; k < 20; k++) {
		ops->ep_close_all(NULL);
		ok &= ops->ep_open(NULL, 0x81, NG_EP_BULK, 64) == NG_OK && ops->ep_open(NULL, 0x01, NG_EP_BULK, 64) == NG_OK &&
		      ops->ep_open(NULL, 0x82, NG_EP_INTERRUPT, 16) == NG_OK && ops->ep_open(NULL, 0x83, NG_EP_BULK, 64) == NG_OK &&
		      ops->ep_open(NULL, 0x03, NG_EP_BULK, 64) == NG_OK;
	}
	CHECK(ok, "20 configure cycles: packet memory reclaimed each time");

#else
	ops->ep_close_all(NULL);
	CHECK(XFER(0x80, desc, 18) == NG_OK && fw_host_in(0, pkt, &len, &tog) == FW_ACK && len == 18,
	      "ep_close_all leaves endpoint 0 working");
	run();
#endif

#ifdef NG_USB_POLLED
	/* Polled (the loader): suspend is left alone, the peripheral stays
	 * out of low-power mode and answers when the bus resumes. */
	fw_host_suspend();
	run();
	CHECK(!(NG_RD(NG_USB_CNTR) & (NG_CNTR_FSUSP | NG_CNTR_LPMODE)) && up.suspends == 0,
	      "polled: SUSP neither reported nor acted on (no FSUSP, no LPMODE)");
	fw_host_resume();
	run();
	CHECK(!(NG_RD(NG_USB_CNTR) & (NG_CNTR_FSUSP | NG_CNTR_LPMODE)) && up.suspends_seen == 0 &&
	      XFER(0x80, desc, 18) == NG_OK && fw_host_in(0, pkt, &len, &tog) == FW_ACK && len == 18,
	      "polled: after the resume endpoint 0 answers");
	run();
#else
	/* Finding 6: suspend and wake-up (RM0008 23.4.5). The bus stays idle:
	 * the peripheral sets SUSP again while FSUSP = 0. */
	fw_host_suspend();
	run();
	CHECK((NG_RD(NG_USB_CNTR) & NG_CNTR_FSUSP) && (NG_RD(NG_USB_CNTR) & NG_CNTR_LPMODE) && up.suspends == 1 &&
	      !(fw_model.istr & NG_ISTR_SUSP),
	      "SUSP: FSUSP set before the flag is cleared (it does not fire again), LPMODE, reported once (%d)",
	      up.suspends);
	fw_host_resume();
	run();
	CHECK(!(NG_RD(NG_USB_CNTR) & (NG_CNTR_FSUSP | NG_CNTR_LPMODE)) && up.suspends == 0 &&
	      !(fw_model.istr & NG_ISTR_WKUP), "WKUP: FSUSP cleared, LPMODE off, reported");
#endif

	/* Finding 8: a bus reset taken between the main loop's read and write
	 * of an EPnR (the model runs the interrupt right after the read). */
	int resets = up.resets;
#if NG_USB_NEP > 1
	ops->ep_open(NULL, 0x81, NG_EP_BULK, 64);
	fw_model.inject = race_reset;
	fw_model.inject_addr = NG_USB_EPR(1);
	CHECK(XFER(0x81, big, 3) == NG_OK && up.resets == resets + 1, "a bus reset arrives during ep_xfer(0x81)");
	CHECK(fw_model.epr[1] == 0 && ((fw_model.epr[0] & NG_EPR_STAT_TX) >> 4) == NG_STAT_NAK &&
	      NG_RD(NG_USB_DADDR) == NG_DADDR_EF,
	      "after it EP1 is disabled as the reset left it (EP1R 0x%04x), EP0 NAK, address 0", fw_model.epr[1]);
#elif !defined NG_USB_POLLED
	fw_model.inject = race_reset;
	fw_model.inject_addr = NG_USB_EPR(0);
	CHECK(XFER(0x80, big, 3) == NG_OK && up.resets == resets + 1, "a bus reset arrives during ep_xfer(0x80)");
	CHECK(((fw_model.epr[0] & NG_EPR_STAT_TX) >> 4) == NG_STAT_NAK && NG_RD(NG_USB_DADDR) == NG_DADDR_EF,
	      "after it EP0 NAKs as the reset left it, address 0");
#else
	/* Polled: nothing runs between the main loop's read and write of an
	 * EPnR; a reset is seen by the next poll. */
	XFER(0x80, big, 3);
	fw_host_reset();
	run();
	CHECK(up.resets == resets + 1 && ((fw_model.epr[0] & NG_EPR_STAT_TX) >> 4) == NG_STAT_NAK &&
	      NG_RD(NG_USB_DADDR) == NG_DADDR_EF, "a bus reset seen by the poll: EP0 NAKs, address 0");
#endif

	/* A second bus reset drops everything. */
	XFER(0x81, big, 3);
	fw_host_reset();
	fw_model.host_addr = 0;
	run();
	CHECK(up.resets == resets + 2 && NG_RD(NG_USB_DADDR) == NG_DADDR_EF && XFER(0x81, big, 3) == NG_ERR_ARG &&
	      fw_host_setup(s) == FW_ACK, "bus reset again: address 0, endpoints closed, EP0 answers");
	run();

	/* An address recorded by set_address goes on the bus only when the
	 * next zero-length IN of endpoint 0 completes; a SETUP, a stall of
	 * endpoint 0 or a bus reset before then drops it (dcd.h SET_ADDRESS). */
	int drops = 0;
	for (int how = 0; how < 4; how++) {
		ops->set_address(NULL, 9);
		if (how == 1) {
			fw_host_setup(s);
			run();
		} else if (how == 2) {
			ops->ep_stall(NULL, 0x80);
		} else if (how == 3) {
			fw_host_reset();
			run();
		}
		XFER(0x80, NULL, 0);
		rc = fw_host_in(0, pkt, &len, &tog);
		run();
		uint32_t want = how == 0 ? NG_DADDR_EF | 9u : NG_DADDR_EF;
		drops += rc == FW_ACK && len == 0 && NG_RD(NG_USB_DADDR) == want;
		if (how == 0) { /* back to address 0 */
			fw_host_reset();
			run();
		}
	}
	CHECK(drops == 4, "a recorded address is applied by the ZLP's completion, dropped by a SETUP, a stall or "
			  "a bus reset before it (%d of 4)", drops);
#ifdef NG_USB_POLLED
	CHECK(up.not_isr == up.resets + up.setups + up.dones + 2 * up.suspends_seen,
	      "every event reported with in_isr = false (from the poll)");
#else
	CHECK(up.not_isr == 0, "every event reported with in_isr = true");
#endif
	CHECK(fw_model.errors == 0, "no model errors (%s)", fw_model.why);
	return ng_check_exit();
}
