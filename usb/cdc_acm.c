/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CDC-ACM (USB CDC 1.2 + PSTN 1.2, Abstract Control Model): the class
 * requests of PSTN §6.3 that an ACM device with bmCapabilities 0x02 answers,
 * the SERIAL_STATE notification (§6.5.4), bulk data in, bulk OUT ignored. */
#include <string.h>
#include "cdc_acm.h"

static void arm_out(ng_cdc_acm_ctx *c, ng_usbd_ctx *u)
{
	if (c->configured && !ng_usbd_busy(u, c->ep_out) && !ng_usbd_halted(u, c->ep_out))
		ng_usbd_xfer(u, c->ep_out, c->out_buf, sizeof c->out_buf, 0);
}

/* PSTN 1.2 §6.5.4: SERIAL_STATE, 8-byte header + 2-byte UART state bitmap. */
static void send_notify(ng_cdc_acm_ctx *c, ng_usbd_ctx *u)
{
	if (!c->configured || !c->notify_wanted || ng_usbd_busy(u, c->ep_notify) ||
	    ng_usbd_halted(u, c->ep_notify))
		return;
	uint8_t *n = c->notify_buf;
	n[0] = 0xA1; /* class, interface, device-to-host */
	n[1] = NG_CDC_SERIAL_STATE;
	ng_put_le16(n + 2, 0);
	ng_put_le16(n + 4, c->cls.first_iface);
	ng_put_le16(n + 6, 2);
	ng_put_le16(n + 8, c->serial_state);
	if (ng_usbd_xfer(u, c->ep_notify, n, 10, 0) == NG_OK) {
		c->serial_state_sent = c->serial_state;
		c->notify_wanted = false;
	}
}

static void cdc_configured(void *ctx, ng_usbd_ctx *u, bool on)
{
	ng_cdc_acm_ctx *c = ctx;
	uint8_t comm = c->cls.first_iface;
	c->configured = false;
	if (on) {
		if (ng_usbd_ep_open(u, &c->cls, comm, c->ep_notify, NG_EP_INTERRUPT, NG_CDC_NOTIFY_SIZE) != NG_OK ||
		    ng_usbd_ep_open(u, &c->cls, (uint8_t)(comm + 1u), c->ep_in, NG_EP_BULK, NG_FS_BULK_SIZE) != NG_OK ||
		    ng_usbd_ep_open(u, &c->cls, (uint8_t)(comm + 1u), c->ep_out, NG_EP_BULK, NG_FS_BULK_SIZE) != NG_OK)
			return;
		c->configured = true;
		arm_out(c, u);
		if (c->serial_state)
			c->notify_wanted = true;
		send_notify(c, u);
	} else if (c->line_state) {
		/* A reset or deconfiguration drops DTR/RTS as far as we care. */
		c->line_state = 0;
		if (c->cb.line_state_cb)
			c->cb.line_state_cb(c->cb.user, 0);
	}
	if (c->cb.configured_cb)
		c->cb.configured_cb(c->cb.user, on && c->configured);
}

static bool coding_valid(const uint8_t *d)
{
	/* PSTN 1.2 §6.3.11 Table 17 */
	return d[4] <= 2 && d[5] <= 4 &&
	       (d[6] == 5 || d[6] == 6 || d[6] == 7 || d[6] == 8 || d[6] == 16);
}

static bool cdc_control(void *ctx, ng_usbd_ctx *u, const ng_usb_setup *s, uint8_t stage,
			const uint8_t *data, uint16_t len)
{
	ng_cdc_acm_ctx *c = ctx;
	uint8_t buf[7];
	/* Class requests to the communication interface only. */
	if ((s->bmRequestType & NG_REQ_TYPE_MASK) != NG_REQ_TYPE_CLASS ||
	    (s->bmRequestType & NG_REQ_RCPT_MASK) != NG_REQ_RCPT_IFACE ||
	    (uint8_t)s->wIndex != c->cls.first_iface)
		return false;
	bool in = (s->bmRequestType & NG_REQ_DIR_IN) != 0;
	switch (s->bRequest) {
	case NG_CDC_SET_LINE_CODING: /* PSTN 1.2 §6.3.10 */
		if (in || s->wValue != 0 || s->wLength != 7)
			return false;
		if (stage == NG_CTRL_SETUP)
			return true;
		if (len != 7 || !coding_valid(data))
			return false;
		c->coding.dwDTERate = ng_get_le32(data);
		c->coding.bCharFormat = data[4];
		c->coding.bParityType = data[5];
		c->coding.bDataBits = data[6];
		if (c->cb.line_coding_cb)
			c->cb.line_coding_cb(c->cb.user, &c->coding);
		return true;
	case NG_CDC_GET_LINE_CODING: /* PSTN 1.2 §6.3.11 */
		if (!in || s->wValue != 0 || s->wLength == 0)
			return false;
		ng_put_le32(buf, c->coding.dwDTERate);
		buf[4] = c->coding.bCharFormat;
		buf[5] = c->coding.bParityType;
		buf[6] = c->coding.bDataBits;
		ng_usbd_control_reply(u, buf, 7);
		return true;
	case NG_CDC_SET_CONTROL_LINE_STATE: /* PSTN 1.2 §6.3.12: D0 = DTR, D1 = RTS */
		if (in || s->wLength != 0 || (s->wValue & ~0x3u))
			return false;
		if (c->line_state != (uint8_t)s->wValue) {
			c->line_state = (uint8_t)s->wValue;
			if (c->cb.line_state_cb)
				c->cb.line_state_cb(c->cb.user, c->line_state);
		}
		return true;
	case NG_CDC_SEND_BREAK: /* PSTN 1.2 §6.3.13: wValue = ms, 0xFFFF = until 0 */
		if (in || s->wLength != 0)
			return false;
		c->break_ms = s->wValue;
		if (s->wValue)
			c->breaks++;
		return true;
	default: /* encapsulated commands (no AT command set), others */
		return false;
	}
}

static void cdc_xfer_done(void *ctx, ng_usbd_ctx *u, uint8_t ep, uint16_t len)
{
	ng_cdc_acm_ctx *c = ctx;
	if (ep == c->ep_out) {
		c->out_bytes += len; /* accepted and ignored (a tty may echo) */
		arm_out(c, u);
	} else if (ep == c->ep_in) {
		if (c->cb.tx_done_cb)
			c->cb.tx_done_cb(c->cb.user, len);
	} else if (ep == c->ep_notify) {
		if (c->serial_state != c->serial_state_sent)
			c->notify_wanted = true;
		send_notify(c, u);
	}
}

static void cdc_halt_cleared(void *ctx, ng_usbd_ctx *u, uint8_t ep)
{
	ng_cdc_acm_ctx *c = ctx;
	if (ep == c->ep_out) {
		arm_out(c, u);
	} else if (ep == c->ep_in) {
		/* the transfer in flight was dropped: the owner may send again */
		if (c->cb.tx_done_cb)
			c->cb.tx_done_cb(c->cb.user, 0);
	} else if (ep == c->ep_notify) {
		c->notify_wanted = true;
		send_notify(c, u);
	}
}

void ng_cdc_acm_init(ng_cdc_acm_ctx *c, uint8_t comm_iface, uint8_t ep_notify,
		     uint8_t ep_in, uint8_t ep_out, const ng_cdc_acm_callbacks *cb)
{
	memset(c, 0, sizeof *c);
	c->cls.first_iface = comm_iface;
	c->cls.n_iface = 2;
	c->cls.ctx = c;
	c->cls.configured = cdc_configured;
	c->cls.control = cdc_control;
	c->cls.xfer_done = cdc_xfer_done;
	c->cls.halt_cleared = cdc_halt_cleared;
	if (cb)
		c->cb = *cb;
	c->ep_notify = ep_notify;
	c->ep_in = ep_in;
	c->ep_out = ep_out;
	c->coding.dwDTERate = 115200;
	c->coding.bCharFormat = 0;
	c->coding.bParityType = NG_CDC_PARITY_NONE;
	c->coding.bDataBits = 8;
}

ng_status ng_cdc_acm_write(ng_cdc_acm_ctx *c, ng_usbd_ctx *u, uint8_t *buf, uint16_t len)
{
	if (!c->configured)
		return NG_ERR_BUSY;
	return ng_usbd_xfer(u, c->ep_in, buf, len, NG_XFER_ZLP);
}

void ng_cdc_acm_tx_cut(ng_cdc_acm_ctx *c, ng_usbd_ctx *u)
{
	if (c->configured)
		ng_usbd_xfer_cut(u, c->ep_in);
}

bool ng_cdc_acm_tx_busy(const ng_cdc_acm_ctx *c, const ng_usbd_ctx *u)
{
	return !c->configured || ng_usbd_busy(u, c->ep_in) || ng_usbd_halted(u, c->ep_in);
}

void ng_cdc_acm_serial_state(ng_cdc_acm_ctx *c, ng_usbd_ctx *u, uint16_t bits)
{
	c->serial_state = bits;
	if (bits != c->serial_state_sent)
		c->notify_wanted = true;
	send_notify(c, u);
}
