/* SPDX-License-Identifier: GPL-3.0-or-later */
/* USB full-speed device driver for the STM32F103 USB peripheral (RM0008
 * section 23): the usb/dcd.h contract (packet level) on real hardware.
 *
 * Tested: on the host against a register-level model of the peripheral
 * (tests/unit/fw_model.h: EPnR toggle/clear semantics, the packet memory
 * and buffer descriptor table, ISTR flags): tests/unit/test_fw_usb_drv.c
 * drives each op and event by hand, tests/unit/test_fw_usb.c enumerates the
 * NeuG composite device of usb/ through it. Not in QEMU (no model of this
 * peripheral there).
 *
 * Assumptions and limits: endpoint register n serves endpoint number n (IN
 * and OUT of one number share it, and so the type), n < 8; single
 * buffering only (no double-buffered bulk, no isochronous); packets of at
 * most 64 bytes; packet memory is handed out in order by ep_open and
 * reclaimed by ep_close_all and bus reset.
 *
 * Interrupt handler (USB_LP, IRQ 20): it acknowledges each hardware event,
 * copies a received packet (at most 64 bytes) from packet memory into the
 * stack's buffer, and reports the event with in_isr = true; the stack queues
 * it for ng_usbd_task in the main loop. The ops run in the main loop; an IN
 * packet is copied into packet memory by ep_xfer.
 *
 * What the interrupt does itself, because the main loop's timing is not
 * bounded:
 *   - SET_ADDRESS (usb/dcd.h): the stack calls set_address as it accepts
 *     the request, before it arms the zero-length status IN; the op only
 *     records the address. The handler writes DADDR when that ZLP
 *     completes (CTR_TX on endpoint 0), so the device answers at the old
 *     address through the status stage and at the new one at once after
 *     it, well within the 2 ms of USB 2.0 9.2.6.3. A SETUP, a bus reset or
 *     a stall of endpoint 0 before then cancels it. The driver never reads
 *     a SETUP's bytes.
 *   - Suspend (RM0008 23.4.5): FSUSP first, then SUSP cleared (the other
 *     order lets SUSP fire again at once), then LPMODE; the main loop stops
 *     the ADCs and sleeps (WFI). Wakeup: the hardware clears LPMODE; the
 *     handler clears FSUSP and WKUP.
 * Every op that reads, modifies and writes an EPnR, DADDR or the packet
 * memory runs with interrupts masked (a few microseconds), so a bus reset
 * taken between the read and the write cannot be undone by a write computed
 * from the state before it.
 *
 * Polled (NG_USB_POLLED, the boot loader's build; usb/dcd.h POLLED BUILD;
 * the configuration block below):
 * the interrupt stays masked and the handler runs from the poll op, in the
 * main loop, one CTR a call; the events it reports are handled at once.
 * DADDR is then written by the poll that sees the status stage complete,
 * nothing needs masking, and suspend is left alone (the loader's main
 * loop runs at full speed whatever the bus does; the peripheral works on
 * through a suspended bus). */
#include <string.h>
#include "fw.h"
#include "board.h"
#include "usb_fs.h"
#include "dcd_stm32f1.h"
#include "dcd.h"
#include "ng/bytes.h"

#define NG_MPS0 NG_EP0_SIZE
_Static_assert(NG_MPS0 == 64u, "bMaxPacketSize0 is 64 (one 64-byte RX block, BL_SIZE = 1)");
_Static_assert(NG_FS_BULK_SIZE == 64u, "full-speed bulk packets are 64 bytes (USB 2.0 5.8.3)");

/* ---- The build's configuration: the one place where the boot loader's
 * build differs; below, plain `if`s on these constants (the compiler
 * drops the other branch), no #if.
 *   NG_USB_NEP      endpoint registers in use, 1..8 (usb_fs.h: 8; the
 *                   loader: 1, endpoint 0 only; ep_open refuses the rest)
 *   NG_USB_POLLED   defined: the polled build (the loader's, usb/dcd.h
 *                   POLLED BUILD): the interrupt stays masked and the
 *                   handler runs from the poll op in the main loop, one CTR
 *                   a call, so nothing needs masking and events are
 *                   reported as from the main loop; suspend is left alone;
 *                   IN packets are copied two bytes at a time (smaller). */
#ifdef NG_USB_POLLED
#define NG_FS_POLLED 1
#define NG_FS_OUTLINE __attribute__((noinline)) /* (one copy: smaller) */
#else
#define NG_FS_POLLED 0
#define NG_FS_OUTLINE /* (the interrupt's per-packet path: inlined as it was) */
#endif
#define NG_FS_IN_ISR (!NG_FS_POLLED)
#define NG_FS_CTR_ROUNDS (NG_FS_POLLED ? 1u : 2u * NG_USB_NEP)
static inline void ng_fs_mask(void)
{
	if (!NG_FS_POLLED)
		ng_irq_disable();
}
static inline void ng_fs_unmask(void)
{
	if (!NG_FS_POLLED)
		ng_irq_enable();
}

typedef struct {
	uint8_t *buf;      /* OUT: where the packet goes */
	uint16_t len;      /* IN: bytes in flight; OUT: capacity */
	uint16_t mps;      /* 0: endpoint not open */
	volatile bool busy;
} ng_fs_ep;

static struct {
	ng_usbd_ctx *u;
	ng_fs_ep ep[NG_USB_NEP][2]; /* [n][0] OUT, [n][1] IN */
	uint16_t pma_next;
	/* 0x80 | the address set_address recorded, until endpoint 0's
	 * zero-length IN completes (then DADDR) or a SETUP, bus reset or
	 * stall cancels it; 0: none */
	volatile uint8_t addr_pending;
} ng_fs;

/* ---- EPnR writes that keep the semantics straight ---------------------- */

/* Sets the fields in which (NG_EPR_STAT_RX/TX, NG_EPR_DTOG_RX/TX) to stat
 * (STATs) and DATA0 (DTOGs). Writes 1 to both CTR bits (no change), to a
 * toggle bit 1 where it must flip, and the read-write fields as read. */
__attribute__((noinline)) static void ng_epr_set(uint32_t n, uint32_t which, uint32_t stat)
{
	uint32_t r = NG_RD(NG_USB_EPR(n));
	NG_WR(NG_USB_EPR(n), (r & NG_EPR_RW) | NG_EPR_CTR_RX | NG_EPR_CTR_TX | ((r ^ stat * 0x1010u) & which));
}
#define NG_EPR_RX (NG_EPR_STAT_RX | NG_EPR_DTOG_RX)
#define NG_EPR_TX (NG_EPR_STAT_TX | NG_EPR_DTOG_TX)

/* STAT_TX (in) or STAT_RX to stat; with reset_dtog, that DTOG to DATA0. */
static void ng_epr_stat(uint32_t n, bool in, uint32_t stat, bool reset_dtog)
{
	ng_epr_set(n, reset_dtog ? (in ? NG_EPR_TX : NG_EPR_RX) : (in ? NG_EPR_STAT_TX : NG_EPR_STAT_RX), stat);
}

/* Clears one CTR bit: 0 there, 1 in the other, toggles untouched. */
NG_FS_OUTLINE static void ng_epr_clear_ctr(uint32_t n, uint32_t ctr)
{
	uint32_t r = NG_RD(NG_USB_EPR(n));
	NG_WR(NG_USB_EPR(n), (r & NG_EPR_RW) | ((NG_EPR_CTR_RX | NG_EPR_CTR_TX) & ~ctr));
}

/* Sets type and address (EP_KIND 0), keeps the toggles and STATs. */
static void ng_epr_type(uint32_t n, uint32_t type)
{
	NG_WR(NG_USB_EPR(n), type | n | NG_EPR_CTR_RX | NG_EPR_CTR_TX);
}

/* COUNT_RX's block fields for an mps-byte buffer (RM0008 23.5.3):
 * BL_SIZE = 1, NUM_BLOCK = mps / 32 - 1 above 62 bytes; else 2-byte blocks. */
static uint16_t ng_rx_blocks(uint32_t mps)
{
	if (mps > 62u)
		return (uint16_t)(0x8000u | ((mps / 32u - 1u) << 10));
	return (uint16_t)(((mps + 1u) / 2u) << 10);
}

static bool ng_pma_alloc(uint32_t n, bool in, uint32_t mps)
{
	uint32_t size = mps > 62u ? (mps + 31u) & ~31u : (mps + 1u) & ~1u;
	if (ng_fs.pma_next + size > NG_PMA_BYTES)
		return false;
	if (in) {
		NG_PMA_WR(NG_BT_ADDR_TX(n), ng_fs.pma_next);
		NG_PMA_WR(NG_BT_COUNT_TX(n), 0);
	} else {
		NG_PMA_WR(NG_BT_ADDR_RX(n), ng_fs.pma_next);
		NG_PMA_WR(NG_BT_COUNT_RX(n), ng_rx_blocks(mps));
	}
	ng_fs.pma_next = (uint16_t)(ng_fs.pma_next + size);
	return true;
}

/* Copies len bytes to the even USB offset pma, two bytes per halfword:
 * eight at a time (two word loads, unaligned too), then the last one to
 * seven. (Polled, the boot loader's build: two at a time, smaller; it
 * sends control packets only.) */
static void ng_pma_write(uint32_t pma, const uint8_t *src, uint32_t len)
{
	uint32_t i = 0;
	for (; !NG_FS_POLLED && i + 8u <= len; i += 8u) {
		uint32_t a = ng_get_le32(src + i), b = ng_get_le32(src + i + 4u);
		NG_PMA_WR(pma + i, a);
		NG_PMA_WR(pma + i + 2u, a >> 16);
		NG_PMA_WR(pma + i + 4u, b);
		NG_PMA_WR(pma + i + 6u, b >> 16);
	}
	for (; i < len; i += 2) {
		uint32_t v = src[i];
		if (i + 1 < len)
			v |= (uint32_t)src[i + 1] << 8;
		NG_PMA_WR(pma + i, v);
	}
}

static void ng_pma_read(uint8_t *dst, uint32_t pma, uint32_t len)
{
	for (uint32_t i = 0; i < len; i += 2) {
		uint32_t v = NG_PMA_RD(pma + i);
		dst[i] = (uint8_t)v;
		if (i + 1 < len)
			dst[i + 1] = (uint8_t)(v >> 8);
	}
}

/* Every endpoint but 0 disabled, packet memory after EP0's buffers
 * (nothing to do with endpoint 0 only). */
static void ng_fs_close_all(void)
{
	if (NG_USB_NEP == 1)
		return;
	for (uint32_t n = 1; n < NG_USB_NEP; n++) {
		ng_fs.ep[n][0] = ng_fs.ep[n][1] = (ng_fs_ep){ 0 };
		ng_epr_set(n, NG_EPR_RX | NG_EPR_TX, NG_STAT_DISABLED);
	}
	ng_fs.pma_next = NG_BTABLE_BYTES + 2u * NG_MPS0;
}

/* After a bus reset the peripheral has cleared every EPnR and DADDR
 * (RM0008 23.4.2): EP0 control, both buffers, address 0, enabled. */
static void ng_fs_bus_reset(void)
{
	memset(ng_fs.ep, 0, sizeof ng_fs.ep);
	NG_WR(NG_USB_BTABLE, 0);
	ng_fs.pma_next = NG_BTABLE_BYTES;
	ng_pma_alloc(0, false, NG_MPS0);
	ng_pma_alloc(0, true, NG_MPS0);
	ng_fs.ep[0][0].mps = ng_fs.ep[0][1].mps = NG_MPS0;
	ng_fs_close_all();
	ng_epr_type(0, NG_EPR_TYPE_CONTROL);
	ng_epr_set(0, NG_EPR_RX | NG_EPR_TX, NG_STAT_NAK);
	ng_fs.addr_pending = 0;
	NG_WR(NG_USB_DADDR, NG_DADDR_EF);
}

/* ---- interrupt ---------------------------------------------------------- */

/* Returns false when the CTR_RX was a SETUP: a CTR_TX seen with it
 * belongs to the request the SETUP ended and is dropped with it. */
static bool ng_fs_ctr_rx(uint32_t n, uint32_t r)
{
	uint32_t cnt = NG_PMA_RD(NG_BT_COUNT_RX(n)) & 0x3FFu;
	uint32_t pma = NG_PMA_RD(NG_BT_ADDR_RX(n));
	if (r & NG_EPR_SETUP) {
		uint8_t s[8];
		ng_pma_read(s, pma, 8);
		ng_epr_clear_ctr(n, NG_EPR_CTR_RX | NG_EPR_CTR_TX);
		/* dcd.h steps 1-3: pending transfers dropped; the hardware has
		 * set both STATs to NAK (which ends a stall) and DTOG_TX to 1.
		 * A SET_ADDRESS whose status stage never came is dropped too. */
		ng_fs.ep[0][0].busy = ng_fs.ep[0][1].busy = false;
		ng_fs.addr_pending = 0;
		if (cnt == 8)
			ng_usbd_event_setup(ng_fs.u, s, NG_FS_IN_ISR);
		return false;
	}
	ng_epr_clear_ctr(n, NG_EPR_CTR_RX);
	ng_fs_ep *e = &ng_fs.ep[n][0];
	if (!e->busy)
		return true;
	if (cnt > e->len)
		cnt = e->len; /* cannot happen: the buffer is mps and so is COUNT_RX's limit */
	ng_pma_read(e->buf, pma, cnt);
	e->busy = false;
	ng_usbd_event_xfer_complete(ng_fs.u, (uint8_t)n, (uint16_t)cnt, NG_FS_IN_ISR);
	return true;
}

void ng_stm32_usb_isr(void)
{
	uint32_t istr = NG_RD(NG_USB_ISTR);
	if (istr & NG_ISTR_RESET) {
		NG_WR(NG_USB_ISTR, 0xFFFFu & ~NG_ISTR_RESET);
		ng_fs_bus_reset();
		ng_usbd_event_bus_reset(ng_fs.u, NG_FS_IN_ISR);
	}
	/* (The polled build, the boot loader's, leaves suspend alone: its
	 * main loop runs on at full speed whatever the bus does, far above
	 * the suspend current, so the transceiver's low-power mode would buy
	 * nothing; the peripheral works on through a suspended bus.) */
	if (!NG_FS_POLLED && (istr & NG_ISTR_SUSP)) {
		/* RM0008 23.4.5: force suspend first, then acknowledge, then
		 * low-power mode. */
		NG_SET(NG_USB_CNTR, NG_CNTR_FSUSP);
		NG_WR(NG_USB_ISTR, 0xFFFFu & ~NG_ISTR_SUSP);
		NG_SET(NG_USB_CNTR, NG_CNTR_LPMODE);
		ng_usbd_event_suspend(ng_fs.u, NG_FS_IN_ISR);
	}
	if (!NG_FS_POLLED && (istr & NG_ISTR_WKUP)) {
		/* LPMODE was cleared by the hardware; FSUSP is the software's. */
		NG_CLR(NG_USB_CNTR, NG_CNTR_FSUSP | NG_CNTR_LPMODE);
		NG_WR(NG_USB_ISTR, 0xFFFFu & ~NG_ISTR_WKUP);
		ng_usbd_event_resume(ng_fs.u, NG_FS_IN_ISR);
	}
	/* (polled, nothing but this handler looks at them) */
	if (!NG_FS_POLLED && (istr & (NG_ISTR_ERR | NG_ISTR_PMAOVR | NG_ISTR_SOF | NG_ISTR_ESOF)))
		NG_WR(NG_USB_ISTR, 0xFFFFu & ~(NG_ISTR_ERR | NG_ISTR_PMAOVR | NG_ISTR_SOF | NG_ISTR_ESOF));
	/* CTR: one endpoint at a time, as long as any has one pending (polled:
	 * one, the main loop polls again). */
	for (uint32_t guard = 0; guard < NG_FS_CTR_ROUNDS && ((istr = NG_RD(NG_USB_ISTR)) & NG_ISTR_CTR); guard++) {
		uint32_t n = istr & NG_ISTR_EP_ID;
		uint32_t r = NG_RD(NG_USB_EPR(n));
		if (NG_USB_NEP < 8 && n >= NG_USB_NEP)
			break; /* not one of ours: never enabled, it cannot transfer */
		if ((r & NG_EPR_CTR_RX) && !ng_fs_ctr_rx(n, r))
			continue;
		if (r & NG_EPR_CTR_TX) {
			ng_epr_clear_ctr(n, NG_EPR_CTR_TX);
			ng_fs_ep *e = &ng_fs.ep[n][1];
			if (e->busy) {
				e->busy = false;
				if (n == 0 && e->len == 0 && ng_fs.addr_pending) {
					/* SET_ADDRESS's status stage is done: the new
					 * address from now on (USB 2.0 9.4.6). */
					NG_WR(NG_USB_DADDR, NG_DADDR_EF | (ng_fs.addr_pending & 0x7Fu));
					ng_fs.addr_pending = 0;
				}
				ng_usbd_event_xfer_complete(ng_fs.u, (uint8_t)(n | 0x80u), e->len, NG_FS_IN_ISR);
			}
		}
	}
}

/* ---- ops (main loop) ----------------------------------------------------- */

static void ng_fs_poll(void *drv)
{
	(void)drv;
	ng_stm32_usb_isr();
}

static void ng_fs_init(void *drv, ng_usbd_ctx *u)
{
	(void)drv;
	memset(&ng_fs, 0, sizeof ng_fs);
	ng_fs.u = u;
#if NG_BOARD_PULLUP_FIXED
	/* A fixed pull-up: the host saw us at power-up, maybe a reset ago.
	 * D+ is held low from ng_board_init on (always called before this);
	 * keep it low for 10 ms more (a detach: USB 2.0 7.1.7.3) while PA12
	 * is still a GPIO: once the peripheral is on, it owns PA11/PA12
	 * (RM0008 23.4.1), and connect() releases the pin. */
	ng_delay_us(10000);
#endif
	NG_SET(NG_RCC_APB1ENR, NG_RCC_APB1ENR_USBEN);
	/* RM0008 23.4.2: leave power-down (FRES kept), wait tSTARTUP (1 us),
	 * release the reset, clear spurious flags, then unmask. (BTABLE is
	 * set by the bus reset's handler, before endpoint 0 is enabled.) */
	NG_WR(NG_USB_CNTR, NG_CNTR_FRES);
	ng_delay_us(2);
	NG_WR(NG_USB_CNTR, 0);
	NG_WR(NG_USB_ISTR, 0);
	if (!NG_FS_POLLED) {
		NG_WR(NG_USB_CNTR, NG_CNTR_CTRM | NG_CNTR_RESETM | NG_CNTR_SUSPM | NG_CNTR_WKUPM);
		ng_nvic_enable(NG_IRQ_USB_LP_CAN_RX0);
	}
}

static void ng_fs_connect(void *drv, bool on)
{
	(void)drv;
	/* With a fixed pull-up, "off" can only drive PA12 low, which the
	 * running peripheral overrides: such boards cannot detach by software. */
	ng_board_usb_connect(on);
}

/* Called before the status stage is armed (dcd.h SET_ADDRESS): recorded
 * only (one byte store, atomic against the handler); the CTR_TX of
 * endpoint 0's ZLP writes DADDR. */
static void ng_fs_set_address(void *drv, uint8_t addr)
{
	(void)drv;
	ng_fs.addr_pending = (uint8_t)(0x80u | addr);
}

static ng_status ng_fs_ep_open_masked(void *drv, uint8_t ep, uint8_t type, uint16_t mps)
{
	static const uint16_t types[4] = { NG_EPR_TYPE_CONTROL, NG_EPR_TYPE_ISO, NG_EPR_TYPE_BULK,
					   NG_EPR_TYPE_INTERRUPT };
	(void)drv;
	uint32_t n = NG_EP_NUM(ep), in = NG_EP_IS_IN(ep);
	if (n == 0 || n >= NG_USB_NEP || mps == 0 || mps > 64u || type > 3u || type == NG_EP_ISO ||
	    type == NG_EP_CONTROL)
		return NG_ERR_ARG;
	if (ng_fs.ep[n][!in].mps && (NG_RD(NG_USB_EPR(n)) & NG_EPR_TYPE) != types[type])
		return NG_ERR_ARG; /* the other direction of this register has another type */
	if (!ng_pma_alloc(n, in, mps))
		return NG_ERR_ARG;
	ng_fs.ep[n][in] = (ng_fs_ep){ .mps = mps };
	ng_epr_type(n, types[type]);
	ng_epr_stat(n, in, NG_STAT_NAK, true);
	return NG_OK;
}

static void ng_fs_ep_close_all(void *drv)
{
	(void)drv;
	ng_fs_mask();
	ng_fs_close_all();
	ng_fs_unmask();
}

static ng_status ng_fs_ep_xfer_masked(void *drv, uint8_t ep, uint8_t *buf, uint16_t len)
{
	(void)drv;
	uint32_t n = NG_EP_NUM(ep), in = NG_EP_IS_IN(ep);
	if (NG_USB_NEP == 1) {
		/* Endpoint 0 only (the boot loader): the one caller is usbd.c's
		 * control pipe (ctrl_go), always with its own buffer; both halves
		 * are open from the bus reset on (before it, no SETUP comes). */
		if (n != 0 || len > NG_MPS0)
			return NG_ERR_ARG;
	} else if (n >= NG_USB_NEP || !ng_fs.ep[n][in].mps || len > ng_fs.ep[n][in].mps || (len && !buf)) {
		return NG_ERR_ARG;
	}
	ng_fs_ep *e = &ng_fs.ep[n][in];
	if (e->busy && n != 0)
		return NG_ERR_BUSY; /* endpoint 0: the new packet replaces the old (dcd.h) */
	e->buf = buf;
	e->len = len;
	e->busy = true;
	if (in) {
		ng_pma_write(NG_PMA_RD(NG_BT_ADDR_TX(n)), buf, len);
		NG_PMA_WR(NG_BT_COUNT_TX(n), len);
	}
	ng_epr_stat(n, in, NG_STAT_VALID, false);
	return NG_OK;
}

static void ng_fs_ep_stall_masked(void *drv, uint8_t ep)
{
	(void)drv;
	uint32_t n = NG_EP_NUM(ep), in = NG_EP_IS_IN(ep);
	if (n >= NG_USB_NEP)
		return;
	if (n == 0) {
		/* A protocol stall, both ways, until the next SETUP (no
		 * status stage: a recorded address is dropped). */
		ng_fs.ep[0][0].busy = ng_fs.ep[0][1].busy = false;
		ng_fs.addr_pending = 0;
		ng_epr_set(0, NG_EPR_STAT_RX | NG_EPR_STAT_TX, NG_STAT_STALL);
		return;
	}
	ng_fs.ep[n][in].busy = false;
	ng_epr_stat(n, in, NG_STAT_STALL, false);
}

static void ng_fs_ep_clear_stall_masked(void *drv, uint8_t ep)
{
	(void)drv;
	uint32_t n = NG_EP_NUM(ep), in = NG_EP_IS_IN(ep);
	if (n == 0 || n >= NG_USB_NEP || !ng_fs.ep[n][in].mps)
		return;
	/* CLEAR_FEATURE(ENDPOINT_HALT): NAK and DATA0 (USB 2.0 9.4.5). */
	ng_fs.ep[n][in].busy = false;
	ng_epr_stat(n, in, NG_STAT_NAK, true);
}

/* The ops as the main loop calls them: interrupts masked for the duration
 * (see the top of this file). */
static ng_status ng_fs_ep_open(void *drv, uint8_t ep, uint8_t type, uint16_t mps)
{
	ng_fs_mask();
	ng_status r = ng_fs_ep_open_masked(drv, ep, type, mps);
	ng_fs_unmask();
	return r;
}

static ng_status ng_fs_ep_xfer(void *drv, uint8_t ep, uint8_t *buf, uint16_t len)
{
	ng_fs_mask();
	ng_status r = ng_fs_ep_xfer_masked(drv, ep, buf, len);
	ng_fs_unmask();
	return r;
}

static void ng_fs_ep_stall(void *drv, uint8_t ep)
{
	ng_fs_mask();
	ng_fs_ep_stall_masked(drv, ep);
	ng_fs_unmask();
}

static void ng_fs_ep_clear_stall(void *drv, uint8_t ep)
{
	ng_fs_mask();
	ng_fs_ep_clear_stall_masked(drv, ep);
	ng_fs_unmask();
}

const ng_dcd_ops ng_stm32_dcd_ops = {
	.init = ng_fs_init,
	.connect = ng_fs_connect,
	.set_address = ng_fs_set_address,
	.ep_open = ng_fs_ep_open,
	.ep_close_all = ng_fs_ep_close_all,
	.ep_xfer = ng_fs_ep_xfer,
	.ep_stall = ng_fs_ep_stall,
	.ep_clear_stall = ng_fs_ep_clear_stall,
	.poll = NG_FS_POLLED ? ng_fs_poll : NULL,
};
