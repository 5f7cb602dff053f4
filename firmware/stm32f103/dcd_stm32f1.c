/* SPDX-License-Identifier: GPL-3.0-or-later */
/* USB full-speed device driver for the STM32F103 USB peripheral (RM0008
 * section 23): the usb/dcd.h contract on real hardware.
 *
 * Tested: on the host against a register-level model of the peripheral
 * (tests/unit/test_fw_usb.c: EPnR toggle/clear semantics, the packet memory
 * and buffer descriptor table, ISTR flags) driven through enumeration, line
 * coding and bulk transfers by the real usb/ stack. Not in QEMU (no model
 * of this peripheral there).
 *
 * Assumptions and limits: endpoint register n serves endpoint number n (IN
 * and OUT of one number share it, with the same type), n < 8; single
 * buffering only (no double-buffered bulk, no isochronous); packets of at
 * most 64 bytes; the packet memory is handed out in order at configuration
 * and reclaimed only by a bus reset.
 *
 * Interrupts only capture: the ISR (USB_LP, IRQ 20) acknowledges each
 * hardware event and queues it (SETUP packets are copied out, since the
 * hardware accepts a new SETUP even while the endpoint NAKs); the main loop
 * (ng_stm32_usb_task) moves packets between the packet memory and the
 * caller's buffers and calls the stack. An endpoint whose event is queued
 * NAKs in the meantime (the hardware sets STAT to NAK on each transfer). */
#include <string.h>
#include "fw.h"
#include "board.h"
#include "usb_fs.h"
#include "dcd_stm32f1.h"

#define NG_MPS0 64u
_Static_assert(NG_BTABLE_BYTES + 2u * NG_MPS0 + NG_DCD_PMA_RESERVE <= NG_PMA_BYTES,
	       "buffer table, EP0 and the configured endpoints fit the 512-byte packet memory");

enum { NG_EV_RESET = 1, NG_EV_SETUP, NG_EV_OUT, NG_EV_IN, NG_EV_SUSPEND, NG_EV_RESUME };
typedef struct {
	uint8_t type, ep;
	uint8_t setup[8];
} ng_fs_event;
#define NG_FS_QLEN 16u
_Static_assert((NG_FS_QLEN & (NG_FS_QLEN - 1u)) == 0, "queue length is a power of two");

typedef struct {
	uint8_t *buf;      /* caller's buffer */
	uint16_t len, done;
	uint16_t mps;
	uint16_t last;     /* bytes in the packet in flight (IN) */
	bool busy;
} ng_fs_xfer;

static struct {
	ng_fs_event q[NG_FS_QLEN];
	volatile uint32_t head, tail; /* ISR writes head, task writes tail */
	ng_fs_xfer x[NG_USB_NEP][2];   /* [n][0] OUT, [n][1] IN */
	uint16_t pma_next;
	uint8_t pending_addr;
	const ng_dcd_upper *up;
	void *up_ctx;
} ng_fs;

/* ---- EPnR writes that keep the semantics straight ---------------------- */

/* Sets STAT_TX to stat, touching nothing else. */
static void ng_epr_set_stat_tx(uint32_t n, uint32_t stat)
{
	uint32_t r = NG_RD(NG_USB_EPR(n));
	NG_WR(NG_USB_EPR(n), (r & NG_EPR_RW) | NG_EPR_CTR_RX | NG_EPR_CTR_TX |
				     ((r ^ (stat << 4)) & NG_EPR_STAT_TX));
}

static void ng_epr_set_stat_rx(uint32_t n, uint32_t stat)
{
	uint32_t r = NG_RD(NG_USB_EPR(n));
	NG_WR(NG_USB_EPR(n), (r & NG_EPR_RW) | NG_EPR_CTR_RX | NG_EPR_CTR_TX |
				     ((r ^ (stat << 12)) & NG_EPR_STAT_RX));
}

/* Clears one CTR bit (write 0 there, 1 in the other). */
static void ng_epr_clear_ctr(uint32_t n, uint32_t ctr)
{
	uint32_t r = NG_RD(NG_USB_EPR(n));
	NG_WR(NG_USB_EPR(n), (r & NG_EPR_RW) | ((NG_EPR_CTR_RX | NG_EPR_CTR_TX) & ~ctr));
}

/* Programs type and address, resets both data toggles to DATA0 and sets
 * both STATs (a toggle bit written 1 flips, so write back the ones set). */
static void ng_epr_setup(uint32_t n, uint32_t type, uint32_t stat_rx, uint32_t stat_tx)
{
	uint32_t r = NG_RD(NG_USB_EPR(n));
	uint32_t want = (stat_rx << 12) | (stat_tx << 4);
	NG_WR(NG_USB_EPR(n), type | n | NG_EPR_CTR_RX | NG_EPR_CTR_TX |
				     ((r & (NG_EPR_DTOG_RX | NG_EPR_DTOG_TX)) |
				      ((r ^ want) & (NG_EPR_STAT_RX | NG_EPR_STAT_TX))));
}

/* COUNT_RX's block fields for an mps-byte buffer (RM0008 23.5.3). */
static uint16_t ng_rx_blocks(uint32_t mps)
{
	if (mps > 62u)
		return (uint16_t)(0x8000u | ((mps / 32u - 1u) << 10));
	return (uint16_t)(((mps + 1u)) << 10);
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

/* Copies len bytes to USB offset pma (even), two bytes per halfword. */
static void ng_pma_write(uint32_t pma, const uint8_t *src, uint32_t len)
{
	for (uint32_t i = 0; i < len; i += 2) {
		uint32_t v = src[i];
		if (i + 1 < len)
			v |= (uint32_t)src[i + 1] << 8;
		NG_PMA_WR((pma + i), v);
	}
}

static void ng_pma_read(uint8_t *dst, uint32_t pma, uint32_t len)
{
	for (uint32_t i = 0; i < len; i += 2) {
		uint32_t v = NG_PMA_RD((pma + i));
		dst[i] = (uint8_t)v;
		if (i + 1 < len)
			dst[i + 1] = (uint8_t)(v >> 8);
	}
}

/* ---- interrupt: capture only ------------------------------------------ */

static bool ng_fs_push(uint8_t type, uint8_t ep, const uint8_t *setup)
{
	uint32_t h = ng_fs.head;
	if (h - ng_fs.tail >= NG_FS_QLEN)
		return false;
	ng_fs_event *e = &ng_fs.q[h & (NG_FS_QLEN - 1u)];
	e->type = type;
	e->ep = ep;
	if (setup)
		memcpy(e->setup, setup, 8);
	ng_fs.head = h + 1u;
	return true;
}

void ng_stm32_usb_isr(void)
{
	uint32_t istr = NG_RD(NG_USB_ISTR);
	if (istr & NG_ISTR_RESET) {
		NG_WR(NG_USB_ISTR, 0xFFFFu & ~NG_ISTR_RESET);
		ng_fs.head = ng_fs.tail; /* everything before a reset is moot */
		ng_fs_push(NG_EV_RESET, 0, NULL);
	}
	if (istr & NG_ISTR_SUSP) {
		NG_WR(NG_USB_ISTR, 0xFFFFu & ~NG_ISTR_SUSP);
		NG_SET(NG_USB_CNTR, NG_CNTR_FSUSP);
		ng_fs_push(NG_EV_SUSPEND, 0, NULL);
	}
	if (istr & NG_ISTR_WKUP) {
		NG_WR(NG_USB_ISTR, 0xFFFFu & ~NG_ISTR_WKUP);
		NG_CLR(NG_USB_CNTR, NG_CNTR_FSUSP | NG_CNTR_LPMODE);
		ng_fs_push(NG_EV_RESUME, 0, NULL);
	}
	if (istr & (NG_ISTR_ERR | NG_ISTR_PMAOVR | NG_ISTR_SOF | NG_ISTR_ESOF))
		NG_WR(NG_USB_ISTR, 0xFFFFu & ~(NG_ISTR_ERR | NG_ISTR_PMAOVR | NG_ISTR_SOF | NG_ISTR_ESOF));
	while ((istr = NG_RD(NG_USB_ISTR)) & NG_ISTR_CTR) {
		uint32_t n = istr & NG_ISTR_EP_ID;
		uint32_t r = NG_RD(NG_USB_EPR(n));
		if (ng_fs.head - ng_fs.tail >= NG_FS_QLEN - 1u) {
			/* Queue full: leave CTR pending and stop listening until
			 * the task has drained the queue. Nothing is lost: the
			 * endpoint NAKs meanwhile. */
			NG_CLR(NG_USB_CNTR, NG_CNTR_CTRM);
			return;
		}
		if (r & NG_EPR_CTR_RX) {
			if (r & NG_EPR_SETUP) {
				uint8_t s[8];
				ng_pma_read(s, NG_PMA_RD(NG_BT_ADDR_RX(n)), 8);
				ng_epr_clear_ctr(n, NG_EPR_CTR_RX);
				ng_fs_push(NG_EV_SETUP, (uint8_t)n, s);
			} else {
				ng_epr_clear_ctr(n, NG_EPR_CTR_RX);
				ng_fs_push(NG_EV_OUT, (uint8_t)n, NULL);
			}
		}
		if (r & NG_EPR_CTR_TX) {
			ng_epr_clear_ctr(n, NG_EPR_CTR_TX);
			ng_fs_push(NG_EV_IN, (uint8_t)(n | 0x80u), NULL);
		}
	}
}

/* ---- transfers (main loop) -------------------------------------------- */

static void ng_fs_in_next(uint32_t n)
{
	ng_fs_xfer *x = &ng_fs.x[n][1];
	uint32_t len = x->len - x->done;
	if (len > x->mps)
		len = x->mps;
	uint32_t pma = NG_PMA_RD(NG_BT_ADDR_TX(n));
	ng_pma_write(pma, x->buf + x->done, len);
	NG_PMA_WR(NG_BT_COUNT_TX(n), len);
	x->last = (uint16_t)len;
	ng_epr_set_stat_tx(n, NG_STAT_VALID);
}

ng_status ng_stm32_usb_xfer(uint8_t ep, uint8_t *buf, uint16_t len)
{
	uint32_t n = ep & 0x7Fu, in = ep >> 7;
	if (n >= NG_USB_NEP || !ng_fs.x[n][in].mps)
		return NG_ERR_ARG;
	ng_fs_xfer *x = &ng_fs.x[n][in];
	if (x->busy)
		return NG_ERR_BUSY;
	x->buf = buf;
	x->len = len;
	x->done = 0;
	x->busy = true;
	if (in)
		ng_fs_in_next(n);
	else
		ng_epr_set_stat_rx(n, NG_STAT_VALID);
	return NG_OK;
}

static void ng_fs_done(uint8_t ep, uint16_t len)
{
	if (ng_fs.up && ng_fs.up->xfer_done)
		ng_fs.up->xfer_done(ng_fs.up_ctx, ep, len);
}

static void ng_fs_on_in(uint32_t n)
{
	ng_fs_xfer *x = &ng_fs.x[n][1];
	if (n == 0 && ng_fs.pending_addr) {
		/* The status stage of SET_ADDRESS is over: USB 2.0 9.4.6 says
		 * the new address applies only now. */
		NG_WR(NG_USB_DADDR, NG_DADDR_EF | ng_fs.pending_addr);
		ng_fs.pending_addr = 0;
	}
	if (!x->busy)
		return;
	x->done = (uint16_t)(x->done + x->last);
	if (x->done < x->len) {
		ng_fs_in_next(n);
		return;
	}
	x->busy = false;
	ng_fs_done((uint8_t)(n | 0x80u), x->done);
}

static void ng_fs_on_out(uint32_t n)
{
	ng_fs_xfer *x = &ng_fs.x[n][0];
	uint32_t cnt = NG_PMA_RD(NG_BT_COUNT_RX(n)) & 0x3FFu;
	if (!x->busy)
		return;
	uint32_t room = (uint32_t)(x->len - x->done);
	if (cnt > room)
		cnt = room; /* the host sent more than asked for: keep what fits */
	ng_pma_read(x->buf + x->done, NG_PMA_RD(NG_BT_ADDR_RX(n)), cnt);
	x->done = (uint16_t)(x->done + cnt);
	if (cnt == x->mps && x->done < x->len) {
		ng_epr_set_stat_rx(n, NG_STAT_VALID);
		return;
	}
	x->busy = false;
	ng_fs_done((uint8_t)n, x->done);
}

static void ng_fs_bus_reset(void)
{
	memset(ng_fs.x, 0, sizeof ng_fs.x);
	ng_fs.pending_addr = 0;
	ng_fs.pma_next = NG_BTABLE_BYTES;
	NG_WR(NG_USB_BTABLE, 0);
	for (uint32_t n = 1; n < NG_USB_NEP; n++)
		ng_epr_setup(n, 0, NG_STAT_DISABLED, NG_STAT_DISABLED);
	ng_pma_alloc(0, false, NG_MPS0);
	ng_pma_alloc(0, true, NG_MPS0);
	ng_fs.x[0][0].mps = ng_fs.x[0][1].mps = NG_MPS0;
	ng_epr_setup(0, NG_EPR_TYPE_CONTROL, NG_STAT_NAK, NG_STAT_NAK);
	NG_WR(NG_USB_DADDR, NG_DADDR_EF);
}

void ng_stm32_usb_task(void)
{
	while (ng_fs.tail != ng_fs.head) {
		ng_fs_event e = ng_fs.q[ng_fs.tail & (NG_FS_QLEN - 1u)];
		ng_fs.tail++;
		switch (e.type) {
		case NG_EV_RESET:
			ng_fs_bus_reset();
			if (ng_fs.up && ng_fs.up->bus_reset)
				ng_fs.up->bus_reset(ng_fs.up_ctx);
			break;
		case NG_EV_SETUP:
			/* A SETUP cancels whatever EP0 was doing (USB 2.0 8.5.3). */
			ng_fs.x[0][0].busy = ng_fs.x[0][1].busy = false;
			if (ng_fs.up && ng_fs.up->setup)
				ng_fs.up->setup(ng_fs.up_ctx, e.setup);
			break;
		case NG_EV_OUT:
			ng_fs_on_out(e.ep);
			break;
		case NG_EV_IN:
			ng_fs_on_in(e.ep & 0x7Fu);
			break;
		case NG_EV_SUSPEND:
			if (ng_fs.up && ng_fs.up->suspend)
				ng_fs.up->suspend(ng_fs.up_ctx, true);
			break;
		case NG_EV_RESUME:
			if (ng_fs.up && ng_fs.up->suspend)
				ng_fs.up->suspend(ng_fs.up_ctx, false);
			break;
		}
	}
	NG_SET(NG_USB_CNTR, NG_CNTR_CTRM); /* in case the ISR had to pause */
}

/* ---- configuration ----------------------------------------------------- */

ng_status ng_stm32_usb_ep_open(uint8_t ep, uint8_t type, uint16_t mps)
{
	static const uint16_t types[4] = { NG_EPR_TYPE_CONTROL, NG_EPR_TYPE_ISO, NG_EPR_TYPE_BULK,
					   NG_EPR_TYPE_INTERRUPT };
	uint32_t n = ep & 0x7Fu, in = ep >> 7;
	if (n == 0 || n >= NG_USB_NEP || mps == 0 || mps > 64u || type > 3u || type == 1u)
		return NG_ERR_ARG;
	if (!ng_pma_alloc(n, in, mps))
		return NG_ERR_ARG;
	ng_fs.x[n][in] = (ng_fs_xfer){ .mps = mps };
	uint32_t r = NG_RD(NG_USB_EPR(n));
	uint32_t other = in ? (r & NG_EPR_STAT_RX) >> 12 : (r & NG_EPR_STAT_TX) >> 4;
	/* The new direction starts at DATA0 and NAKs until a transfer is
	 * queued; the other direction of the same register keeps its state. */
	uint32_t dtog = in ? NG_EPR_DTOG_TX : NG_EPR_DTOG_RX;
	uint32_t stat_mask = in ? NG_EPR_STAT_TX : NG_EPR_STAT_RX;
	uint32_t want = in ? NG_STAT_NAK << 4 : NG_STAT_NAK << 12;
	(void)other;
	NG_WR(NG_USB_EPR(n), types[type] | n | NG_EPR_CTR_RX | NG_EPR_CTR_TX | (r & dtog) |
				     ((r ^ want) & stat_mask));
	return NG_OK;
}

void ng_stm32_usb_ep_close(uint8_t ep)
{
	uint32_t n = ep & 0x7Fu, in = ep >> 7;
	if (n == 0 || n >= NG_USB_NEP)
		return;
	ng_fs.x[n][in].busy = false;
	if (in)
		ng_epr_set_stat_tx(n, NG_STAT_DISABLED);
	else
		ng_epr_set_stat_rx(n, NG_STAT_DISABLED);
}

void ng_stm32_usb_stall(uint8_t ep, bool stall)
{
	uint32_t n = ep & 0x7Fu, in = ep >> 7;
	if (n >= NG_USB_NEP)
		return;
	if (n == 0) {
		/* A control endpoint stalls both ways; the next SETUP clears it. */
		if (stall) {
			ng_epr_set_stat_tx(0, NG_STAT_STALL);
			ng_epr_set_stat_rx(0, NG_STAT_STALL);
		}
		return;
	}
	ng_fs.x[n][in].busy = false;
	uint32_t r = NG_RD(NG_USB_EPR(n));
	if (stall) {
		if (in)
			ng_epr_set_stat_tx(n, NG_STAT_STALL);
		else
			ng_epr_set_stat_rx(n, NG_STAT_STALL);
		return;
	}
	/* CLEAR_FEATURE(ENDPOINT_HALT): back to NAK and DATA0 (USB 2.0 9.4.5). */
	uint32_t dtog = in ? NG_EPR_DTOG_TX : NG_EPR_DTOG_RX;
	uint32_t stat_mask = in ? NG_EPR_STAT_TX : NG_EPR_STAT_RX;
	uint32_t want = in ? NG_STAT_NAK << 4 : NG_STAT_NAK << 12;
	NG_WR(NG_USB_EPR(n), (r & NG_EPR_RW) | NG_EPR_CTR_RX | NG_EPR_CTR_TX | (r & dtog) |
				     ((r ^ want) & stat_mask));
}

void ng_stm32_usb_set_address(uint8_t addr)
{
	/* Applied when the status stage's IN completes (ng_fs_on_in). */
	ng_fs.pending_addr = addr;
}

void ng_stm32_usb_init(const ng_dcd_upper *up, void *ctx)
{
	memset(&ng_fs, 0, sizeof ng_fs);
	ng_fs.up = up;
	ng_fs.up_ctx = ctx;
	NG_SET(NG_RCC_APB1ENR, NG_RCC_APB1ENR_USBEN);
	/* RM0008 23.4.2: leave power-down, wait tSTARTUP (1 us), release the
	 * reset, clear spurious flags, then unmask. */
	NG_WR(NG_USB_CNTR, NG_CNTR_FRES);
	ng_delay_us(2);
	NG_WR(NG_USB_CNTR, 0);
	NG_WR(NG_USB_ISTR, 0);
	NG_WR(NG_USB_BTABLE, 0);
	NG_WR(NG_USB_CNTR, NG_CNTR_CTRM | NG_CNTR_RESETM | NG_CNTR_SUSPM | NG_CNTR_WKUPM);
	ng_nvic_enable(NG_IRQ_USB_LP_CAN_RX0);
}

void ng_stm32_usb_connect(bool on)
{
	if (!on) {
		ng_board_usb_connect(false);
		return;
	}
#if NG_BOARD_PULLUP_FIXED
	/* A fixed pull-up: the host saw us at power-up, maybe before we were
	 * ready; hold D+ low for 10 ms so that it enumerates afresh. */
	ng_board_usb_connect(false);
	ng_delay_us(10000);
#endif
	ng_board_usb_connect(true);
}
