/* SPDX-License-Identifier: GPL-3.0-or-later */
/* USB 2.0 chapter 9 device framework over the packet-level dcd contract
 * (dcd.h): the event queue, control transfers (§8.5.3, §9.3), the standard
 * requests (§9.4), endpoint halt (§9.4.5) and the transfer layer the class
 * drivers use (usbd.h). Full speed only, one configuration, alternate
 * setting 0 only. Assumes a single main loop; never runs in an ISR. */
#include <stdatomic.h>
#include <string.h>
#include "usbd.h"

enum { EV_RESET = 1, EV_SETUP, EV_XFER, EV_SUSPEND, EV_RESUME };

/* Control transfer states. */
enum { CTRL_IDLE = 0, CTRL_DATA_IN, CTRL_DATA_OUT, CTRL_STATUS_IN, CTRL_STATUS_OUT };

/* USB 2.0 Table 9-4 standard request codes. */
#define REQ_GET_STATUS        0u
#define REQ_CLEAR_FEATURE     1u
#define REQ_SET_FEATURE       3u
#define REQ_SET_ADDRESS       5u
#define REQ_GET_DESCRIPTOR    6u
#define REQ_SET_DESCRIPTOR    7u
#define REQ_GET_CONFIGURATION 8u
#define REQ_SET_CONFIGURATION 9u
#define REQ_GET_INTERFACE     10u
#define REQ_SET_INTERFACE     11u
#define REQ_SYNCH_FRAME       12u
/* Table 9-5 descriptor types. */
#define DESC_DEVICE           1u
#define DESC_CONFIGURATION    2u
#define DESC_STRING           3u
#define DESC_DEVICE_QUALIFIER 6u
/* Table 9-6 feature selectors. */
#define FEAT_ENDPOINT_HALT    0u

/* What a request handler decided. */
enum { R_STALL = 0, R_IN, R_OUT, R_ACK };

#define DIR(ep) (NG_EP_IS_IN(ep) ? 1 : 0)

/* ---------------------------------------------------------------- events */

static void push(ng_usbd_ctx *u, uint8_t type, uint8_t ep, uint16_t len, const uint8_t *setup)
{
	uint8_t h = u->evq_head;
	uint8_t next = (uint8_t)((h + 1u) % NG_USBD_EVENT_QUEUE);
	if (next == u->evq_tail) {
		u->evq_lost++;
		return;
	}
	u->evq[h].type = type;
	u->evq[h].ep = ep;
	u->evq[h].len = len;
	if (setup)
		memcpy(u->evq[h].setup, setup, 8);
	/* The entry is complete before the consumer can see the new head. */
	atomic_signal_fence(memory_order_release);
	u->evq_head = next;
}

void ng_usbd_event_bus_reset(ng_usbd_ctx *u, bool in_isr)
{
	(void)in_isr;
	push(u, EV_RESET, 0, 0, NULL);
}

void ng_usbd_event_setup(ng_usbd_ctx *u, const uint8_t setup[8], bool in_isr)
{
	(void)in_isr;
	push(u, EV_SETUP, 0, 0, setup);
}

void ng_usbd_event_xfer_complete(ng_usbd_ctx *u, uint8_t ep_addr, uint16_t len, bool in_isr)
{
	(void)in_isr;
	push(u, EV_XFER, ep_addr, len, NULL);
}

void ng_usbd_event_suspend(ng_usbd_ctx *u, bool in_isr)
{
	(void)in_isr;
	push(u, EV_SUSPEND, 0, 0, NULL);
}

void ng_usbd_event_resume(ng_usbd_ctx *u, bool in_isr)
{
	(void)in_isr;
	push(u, EV_RESUME, 0, 0, NULL);
}

/* ------------------------------------------------------------- helpers */

static const ng_usbd_class *iface_class(const ng_usbd_ctx *u, uint16_t iface)
{
	for (uint8_t i = 0; i < u->n_cls; i++) {
		const ng_usbd_class *c = u->cls[i];
		if (iface >= c->first_iface && iface < (uint16_t)(c->first_iface + c->n_iface))
			return c;
	}
	return NULL;
}

static uint8_t class_index(const ng_usbd_ctx *u, const ng_usbd_class *c)
{
	for (uint8_t i = 0; i < u->n_cls; i++)
		if (u->cls[i] == c)
			return (uint8_t)(i + 1u);
	return 0;
}

static uint8_t num_interfaces(const ng_usbd_ctx *u)
{
	return u->desc->config[4]; /* bNumInterfaces */
}

static void ep_forget_all(ng_usbd_ctx *u)
{
	memset(u->ep, 0, sizeof u->ep);
	u->ep[0][0].open = u->ep[1][0].open = true;
	u->ep[0][0].mps = u->ep[1][0].mps = NG_EP0_SIZE;
}

/* Drops the configuration: the driver closes the endpoints, classes forget. */
static void deconfigure(ng_usbd_ctx *u, bool tell_driver)
{
	if (u->config == 0)
		return;
	if (tell_driver)
		u->ops->ep_close_all(u->drv);
	ep_forget_all(u);
	u->config = 0;
	for (uint8_t i = 0; i < u->n_cls; i++)
		if (u->cls[i]->configured)
			u->cls[i]->configured(u->cls[i]->ctx, u, false);
}

/* ------------------------------------------------- control (endpoint 0) */

static void ctrl_stall(ng_usbd_ctx *u)
{
	u->ctrl_state = CTRL_IDLE;
	u->ops->ep_stall(u->drv, 0x80); /* both directions until the next SETUP */
}

static void ctrl_send_next(ng_usbd_ctx *u)
{
	uint16_t n = (uint16_t)(u->ctrl_len - u->ctrl_off);
	if (n > NG_EP0_SIZE)
		n = NG_EP0_SIZE;
	memcpy(u->ep0_pkt, u->ctrl_buf + u->ctrl_off, n);
	u->ops->ep_xfer(u->drv, 0x80, u->ep0_pkt, n);
}

void ng_usbd_control_reply(ng_usbd_ctx *u, const void *data, uint16_t len)
{
	if (len > NG_USBD_CTRL_BUF)
		len = NG_USBD_CTRL_BUF;
	if (len > u->setup.wLength)
		len = u->setup.wLength; /* USB 2.0 §9.3.5: never more than wLength */
	memmove(u->ctrl_buf, data, len);
	u->ctrl_len = len;
}

/* Standard requests, USB 2.0 §9.4. Returns R_*; an IN reply is in ctrl_buf. */
static int std_device(ng_usbd_ctx *u, const ng_usb_setup *s)
{
	uint8_t tmp[2];
	switch (s->bRequest) {
	case REQ_GET_STATUS: /* §9.4.5: bus powered, no remote wakeup */
		if (!(s->bmRequestType & NG_REQ_DIR_IN) || s->wValue != 0 || s->wIndex != 0)
			return R_STALL;
		tmp[0] = tmp[1] = 0;
		ng_usbd_control_reply(u, tmp, 2);
		return R_IN;
	case REQ_CLEAR_FEATURE:
	case REQ_SET_FEATURE:
		/* DEVICE_REMOTE_WAKEUP is not offered (bmAttributes), TEST_MODE is
		 * high speed only: both STALL (§9.4.1, §9.4.9). */
		return R_STALL;
	case REQ_SET_ADDRESS: /* §9.4.6: applied after the status stage */
		if ((s->bmRequestType & NG_REQ_DIR_IN) || s->wValue > 127 || s->wIndex != 0 ||
		    s->wLength != 0 || u->config != 0)
			return R_STALL;
		u->pending_address = (uint8_t)(s->wValue | 0x80u); /* bit 7: pending */
		return R_ACK;
	case REQ_GET_DESCRIPTOR: { /* §9.4.3 */
		if (!(s->bmRequestType & NG_REQ_DIR_IN))
			return R_STALL;
		uint8_t type = (uint8_t)(s->wValue >> 8), index = (uint8_t)s->wValue;
		const ng_usbd_desc *d = u->desc;
		if (type == DESC_DEVICE && index == 0) {
			ng_usbd_control_reply(u, d->device, d->device[0]);
			return R_IN;
		}
		if (type == DESC_CONFIGURATION && index == 0) {
			ng_usbd_control_reply(u, d->config, ng_get_le16(d->config + 2));
			return R_IN;
		}
		if (type == DESC_STRING && d->string) {
			uint16_t n = d->string(d->string_ctx, index, s->wIndex, u->ctrl_buf + 0,
					       (uint16_t)NG_USBD_CTRL_BUF);
			if (n == 0)
				return R_STALL;
			if (n > s->wLength)
				n = s->wLength;
			u->ctrl_len = n;
			return R_IN;
		}
		/* DEVICE_QUALIFIER and OTHER_SPEED_CONFIGURATION: a full-speed-only
		 * device STALLs them (§9.6.2); anything else is unknown. */
		return R_STALL;
	}
	case REQ_GET_CONFIGURATION: /* §9.4.2 */
		if (!(s->bmRequestType & NG_REQ_DIR_IN) || s->wValue != 0 || s->wIndex != 0)
			return R_STALL;
		ng_usbd_control_reply(u, &u->config, 1);
		return R_IN;
	case REQ_SET_CONFIGURATION: { /* §9.4.7 */
		/* Accepted at address 0 too: Linux's vhci-hcd answers SET_ADDRESS
		 * itself, so over USB/IP the device never sees one. */
		uint8_t value = u->desc->config[5]; /* bConfigurationValue */
		if ((s->bmRequestType & NG_REQ_DIR_IN) || s->wIndex != 0 || s->wLength != 0 ||
		    (s->wValue != 0 && s->wValue != value))
			return R_STALL;
		deconfigure(u, true);
		if (s->wValue != 0) {
			u->config = value;
			for (uint8_t i = 0; i < u->n_cls; i++)
				if (u->cls[i]->configured)
					u->cls[i]->configured(u->cls[i]->ctx, u, true);
		}
		return R_ACK;
	}
	default: /* SET_DESCRIPTOR, SYNCH_FRAME (no isochronous), unknown */
		return R_STALL;
	}
}

static int std_interface(ng_usbd_ctx *u, const ng_usb_setup *s)
{
	uint8_t tmp[2] = {0, 0};
	/* §9.4: interface requests are valid only in the Configured state */
	if (u->config == 0 || s->wIndex >= num_interfaces(u))
		return R_STALL;
	switch (s->bRequest) {
	case REQ_GET_STATUS: /* §9.4.5: all reserved zero */
		if (!(s->bmRequestType & NG_REQ_DIR_IN) || s->wValue != 0)
			return R_STALL;
		ng_usbd_control_reply(u, tmp, 2);
		return R_IN;
	case REQ_GET_INTERFACE: /* §9.4.4: alternate setting 0 only */
		if (!(s->bmRequestType & NG_REQ_DIR_IN) || s->wValue != 0)
			return R_STALL;
		ng_usbd_control_reply(u, tmp, 1);
		return R_IN;
	case REQ_SET_INTERFACE: { /* §9.4.10 */
		if ((s->bmRequestType & NG_REQ_DIR_IN) || s->wValue != 0 || s->wLength != 0)
			return R_STALL;
		/* Re-selecting setting 0 restarts the interface's endpoints with
		 * DATA0, as the host resets its toggles too. */
		for (uint8_t d = 0; d < 2; d++)
			for (uint8_t n = 1; n < NG_USBD_MAX_EP; n++) {
				if (!u->ep[d][n].open || u->ep[d][n].iface != s->wIndex)
					continue;
				uint8_t ep = (uint8_t)(n | (d ? 0x80u : 0u));
				u->ops->ep_clear_stall(u->drv, ep);
				u->ep[d][n].halted = false;
				u->ep[d][n].busy = false;
				const ng_usbd_class *c = u->cls[u->ep[d][n].owner - 1u];
				if (c->halt_cleared)
					c->halt_cleared(c->ctx, u, ep);
			}
		return R_ACK;
	}
	default: /* CLEAR/SET_FEATURE: no interface features; unknown */
		return R_STALL;
	}
}

static int std_endpoint(ng_usbd_ctx *u, const ng_usb_setup *s)
{
	uint8_t ep = (uint8_t)s->wIndex, n = NG_EP_NUM(ep), d = (uint8_t)DIR(ep);
	uint8_t tmp[2] = {0, 0};
	if ((s->wIndex & 0xFF70u) != 0 || n >= NG_USBD_MAX_EP)
		return R_STALL;
	/* §9.4: only endpoint 0 in the Address state */
	if (n != 0 && (u->config == 0 || !u->ep[d][n].open))
		return R_STALL;
	switch (s->bRequest) {
	case REQ_GET_STATUS: /* §9.4.5 Figure 9-6: bit 0 = Halt */
		if (!(s->bmRequestType & NG_REQ_DIR_IN) || s->wValue != 0)
			return R_STALL;
		tmp[0] = (n != 0 && u->ep[d][n].halted) ? 1 : 0;
		ng_usbd_control_reply(u, tmp, 2);
		return R_IN;
	case REQ_CLEAR_FEATURE:
		if ((s->bmRequestType & NG_REQ_DIR_IN) || s->wValue != FEAT_ENDPOINT_HALT || s->wLength != 0)
			return R_STALL;
		if (n == 0)
			return R_ACK; /* endpoint 0 has no halt to clear */
		/* The toggle is reset whether or not the endpoint was halted. */
		u->ops->ep_clear_stall(u->drv, ep);
		u->ep[d][n].halted = false;
		u->ep[d][n].busy = false;
		{
			const ng_usbd_class *c = u->cls[u->ep[d][n].owner - 1u];
			if (c->halt_cleared)
				c->halt_cleared(c->ctx, u, ep);
		}
		return R_ACK;
	case REQ_SET_FEATURE:
		/* The Halt feature is not implemented for the default control pipe
		 * ("neither required nor recommended", §9.4.5): STALL. */
		if ((s->bmRequestType & NG_REQ_DIR_IN) || s->wValue != FEAT_ENDPOINT_HALT || s->wLength != 0 ||
		    n == 0)
			return R_STALL;
		ng_usbd_stall(u, ep);
		return R_ACK;
	default: /* SYNCH_FRAME: no isochronous endpoints; unknown */
		return R_STALL;
	}
}

static int class_request(ng_usbd_ctx *u, const ng_usb_setup *s)
{
	uint8_t rcpt = s->bmRequestType & NG_REQ_RCPT_MASK;
	uint8_t type = s->bmRequestType & NG_REQ_TYPE_MASK;
	const ng_usbd_class *c = NULL;
	if (type != NG_REQ_TYPE_CLASS && type != NG_REQ_TYPE_VENDOR)
		return R_STALL;
	u->ctrl_len = 0;
	if (rcpt == NG_REQ_RCPT_IFACE) {
		if (u->config == 0)
			return R_STALL;
		c = iface_class(u, (uint8_t)s->wIndex);
		if (!c || (s->wIndex >> 8) != 0 || !c->control ||
		    !c->control(c->ctx, u, s, NG_CTRL_SETUP, NULL, 0))
			return R_STALL;
	} else if (rcpt == NG_REQ_RCPT_DEVICE && type == NG_REQ_TYPE_VENDOR) {
		for (uint8_t i = 0; i < u->n_cls && !c; i++)
			if (u->cls[i]->control &&
			    u->cls[i]->control(u->cls[i]->ctx, u, s, NG_CTRL_SETUP, NULL, 0))
				c = u->cls[i];
		if (!c)
			return R_STALL;
	} else {
		return R_STALL;
	}
	u->ctrl_cls = c;
	if (s->bmRequestType & NG_REQ_DIR_IN)
		return R_IN;
	return s->wLength ? R_OUT : R_ACK;
}

static void handle_setup(ng_usbd_ctx *u, const uint8_t raw[8])
{
	ng_usb_setup *s = &u->setup;
	s->bmRequestType = raw[0];
	s->bRequest = raw[1];
	s->wValue = ng_get_le16(raw + 2);
	s->wIndex = ng_get_le16(raw + 4);
	s->wLength = ng_get_le16(raw + 6);
	/* A SETUP aborts whatever control transfer was going on (§8.5.3). */
	u->ctrl_state = CTRL_IDLE;
	u->ctrl_cls = NULL;
	u->ctrl_len = u->ctrl_off = 0;
	u->pending_address = 0;
	int r = R_STALL;
	if ((s->bmRequestType & NG_REQ_TYPE_MASK) == NG_REQ_TYPE_STD) {
		switch (s->bmRequestType & NG_REQ_RCPT_MASK) {
		case NG_REQ_RCPT_DEVICE: r = std_device(u, s); break;
		case NG_REQ_RCPT_IFACE: r = std_interface(u, s); break;
		case NG_REQ_RCPT_EP: r = std_endpoint(u, s); break;
		default: r = R_STALL; break;
		}
		/* A device-to-host request must have asked for data, a
		 * host-to-device standard request never carries any here. */
		if (r == R_IN && s->wLength == 0)
			r = R_STALL;
	} else {
		r = class_request(u, s);
		if (r == R_OUT && s->wLength > NG_USBD_CTRL_BUF)
			r = R_STALL;
		if (r == R_IN && s->wLength == 0)
			r = R_STALL;
	}
	switch (r) {
	case R_IN:
		/* A data stage shorter than wLength that ends on a full packet is
		 * closed with a ZLP (§5.5.3, §8.5.3.2). */
		u->ctrl_zlp = u->ctrl_len < s->wLength && (u->ctrl_len % NG_EP0_SIZE) == 0;
		u->ctrl_state = CTRL_DATA_IN;
		ctrl_send_next(u);
		break;
	case R_OUT:
		u->ctrl_state = CTRL_DATA_OUT;
		u->ops->ep_xfer(u->drv, 0x00, u->ep0_pkt, NG_EP0_SIZE);
		break;
	case R_ACK:
		u->ctrl_state = CTRL_STATUS_IN;
		u->ops->ep_xfer(u->drv, 0x80, NULL, 0);
		break;
	default:
		u->pending_address = 0;
		ctrl_stall(u);
		break;
	}
}

static void ctrl_xfer_done(ng_usbd_ctx *u, uint8_t ep, uint16_t len)
{
	switch (u->ctrl_state) {
	case CTRL_DATA_IN:
		if (ep != 0x80)
			break;
		if (len == 0 && u->ctrl_off >= u->ctrl_len) { /* the closing ZLP went */
			u->ctrl_zlp = false;
		} else {
			u->ctrl_off = (uint16_t)(u->ctrl_off + len);
			if (u->ctrl_off < u->ctrl_len) {
				ctrl_send_next(u);
				break;
			}
			if (u->ctrl_zlp) {
				u->ctrl_zlp = false;
				u->ops->ep_xfer(u->drv, 0x80, NULL, 0);
				break;
			}
		}
		u->ctrl_state = CTRL_STATUS_OUT; /* host sends a zero-length OUT */
		u->ops->ep_xfer(u->drv, 0x00, u->ep0_pkt, NG_EP0_SIZE);
		break;
	case CTRL_DATA_OUT: {
		if (ep != 0x00)
			break;
		uint16_t room = (uint16_t)(u->setup.wLength - u->ctrl_off);
		if (len > room) { /* the host sent more than wLength: protocol error */
			ctrl_stall(u);
			break;
		}
		memcpy(u->ctrl_buf + u->ctrl_off, u->ep0_pkt, len);
		u->ctrl_off = (uint16_t)(u->ctrl_off + len);
		if (u->ctrl_off < u->setup.wLength && len == NG_EP0_SIZE) {
			u->ops->ep_xfer(u->drv, 0x00, u->ep0_pkt, NG_EP0_SIZE);
			break;
		}
		const ng_usbd_class *c = u->ctrl_cls;
		if (!c || !c->control(c->ctx, u, &u->setup, NG_CTRL_DATA, u->ctrl_buf, u->ctrl_off)) {
			ctrl_stall(u); /* STALL in the status stage */
			break;
		}
		u->ctrl_state = CTRL_STATUS_IN;
		u->ops->ep_xfer(u->drv, 0x80, NULL, 0);
		break;
	}
	case CTRL_STATUS_IN:
		if (ep != 0x80)
			break;
		u->ctrl_state = CTRL_IDLE;
		if (u->pending_address & 0x80u) { /* §9.4.6: after the status stage */
			u->address = u->pending_address & 0x7Fu;
			u->pending_address = 0;
			u->ops->set_address(u->drv, u->address);
		}
		break;
	case CTRL_STATUS_OUT:
		if (ep == 0x00)
			u->ctrl_state = CTRL_IDLE;
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------ data endpoints */

static void ep_start_packet(ng_usbd_ctx *u, uint8_t ep)
{
	uint8_t d = (uint8_t)DIR(ep), n = NG_EP_NUM(ep);
	ng_usbd_ep *e = &u->ep[d][n];
	uint16_t chunk;
	if (d) {
		chunk = (uint16_t)(e->len - e->off);
		if (chunk > e->mps)
			chunk = e->mps;
	} else {
		chunk = e->mps;
	}
	if (u->ops->ep_xfer(u->drv, ep, e->buf ? e->buf + e->off : NULL, chunk) != NG_OK)
		e->busy = false; /* the driver refused (closed meanwhile) */
}

static void ep_xfer_done(ng_usbd_ctx *u, uint8_t ep, uint16_t len)
{
	uint8_t d = (uint8_t)DIR(ep), n = NG_EP_NUM(ep);
	if (n >= NG_USBD_MAX_EP)
		return;
	ng_usbd_ep *e = &u->ep[d][n];
	if (!e->open || !e->busy)
		return; /* stale: the transfer was dropped meanwhile */
	if (d) {
		if (e->off >= e->len && e->zlp_pending) { /* (ZLP done) */
			e->zlp_pending = false;
		} else {
			e->off = (uint16_t)(e->off + len);
			if (e->off < e->len) {
				ep_start_packet(u, ep);
				return;
			}
			if (e->zlp_pending) {
				u->ops->ep_xfer(u->drv, ep, NULL, 0);
				return;
			}
		}
	} else {
		if (len > e->mps)
			len = e->mps;
		e->off = (uint16_t)(e->off + len);
		if (len == e->mps && e->off < e->len) {
			ep_start_packet(u, ep);
			return;
		}
	}
	e->busy = false;
	const ng_usbd_class *c = e->owner ? u->cls[e->owner - 1u] : NULL;
	if (c && c->xfer_done)
		c->xfer_done(c->ctx, u, ep, e->off);
}

ng_status ng_usbd_ep_open(ng_usbd_ctx *u, const ng_usbd_class *c, uint8_t iface,
			  uint8_t ep_addr, uint8_t type, uint16_t max_packet)
{
	uint8_t d = (uint8_t)DIR(ep_addr), n = NG_EP_NUM(ep_addr);
	uint8_t owner = class_index(u, c);
	if (n == 0 || n >= NG_USBD_MAX_EP || (ep_addr & 0x70u) || !owner || max_packet == 0 ||
	    max_packet > 64u || type == NG_EP_CONTROL)
		return NG_ERR_ARG;
	ng_status st = u->ops->ep_open(u->drv, ep_addr, type, max_packet);
	if (st != NG_OK)
		return st;
	ng_usbd_ep *e = &u->ep[d][n];
	memset(e, 0, sizeof *e);
	e->open = true;
	e->mps = max_packet;
	e->type = type;
	e->owner = owner;
	e->iface = iface;
	return NG_OK;
}

ng_status ng_usbd_xfer(ng_usbd_ctx *u, uint8_t ep_addr, uint8_t *buf, uint16_t len, uint8_t flags)
{
	uint8_t d = (uint8_t)DIR(ep_addr), n = NG_EP_NUM(ep_addr);
	if (n == 0 || n >= NG_USBD_MAX_EP || (ep_addr & 0x70u))
		return NG_ERR_ARG;
	ng_usbd_ep *e = &u->ep[d][n];
	if (!e->open)
		return NG_ERR_ARG;
	if (e->busy || e->halted)
		return NG_ERR_BUSY;
	if (!d && (len == 0 || len % e->mps))
		return NG_ERR_ARG;
	e->buf = buf;
	e->len = len;
	e->off = 0;
	e->flags = flags;
	e->zlp_pending = d && (flags & NG_XFER_ZLP) && len > 0 && (len % e->mps) == 0;
	e->busy = true;
	ep_start_packet(u, ep_addr);
	return e->busy ? NG_OK : NG_ERR_ARG;
}

void ng_usbd_xfer_cut(ng_usbd_ctx *u, uint8_t ep_addr)
{
	uint8_t n = NG_EP_NUM(ep_addr);
	if (!DIR(ep_addr) || n == 0 || n >= NG_USBD_MAX_EP)
		return;
	ng_usbd_ep *e = &u->ep[1][n];
	if (!e->open || !e->busy || e->off >= e->len)
		return; /* idle, or only the closing ZLP is left */
	uint16_t armed = (uint16_t)(e->len - e->off);
	if (armed > e->mps)
		armed = e->mps;
	e->len = (uint16_t)(e->off + armed);
	e->zlp_pending = (e->flags & NG_XFER_ZLP) && (e->len % e->mps) == 0;
}

bool ng_usbd_busy(const ng_usbd_ctx *u, uint8_t ep_addr)
{
	uint8_t n = NG_EP_NUM(ep_addr);
	return n < NG_USBD_MAX_EP && u->ep[DIR(ep_addr)][n].busy;
}

void ng_usbd_stall(ng_usbd_ctx *u, uint8_t ep_addr)
{
	uint8_t d = (uint8_t)DIR(ep_addr), n = NG_EP_NUM(ep_addr);
	if (n == 0 || n >= NG_USBD_MAX_EP || !u->ep[d][n].open)
		return;
	u->ops->ep_stall(u->drv, ep_addr);
	u->ep[d][n].halted = true;
	u->ep[d][n].busy = false;
	u->ep[d][n].zlp_pending = false;
}

bool ng_usbd_halted(const ng_usbd_ctx *u, uint8_t ep_addr)
{
	uint8_t n = NG_EP_NUM(ep_addr);
	return n < NG_USBD_MAX_EP && u->ep[DIR(ep_addr)][n].halted;
}

/* ----------------------------------------------------------- the task */

static void bus_reset(ng_usbd_ctx *u)
{
	deconfigure(u, false); /* the driver already closed everything */
	ep_forget_all(u);
	u->address = 0;
	u->pending_address = 0;
	u->ctrl_state = CTRL_IDLE;
	u->suspended = false;
}

/* True when a SETUP is queued after position t (endpoint-0 completions
 * before it belong to the aborted request). */
static bool setup_queued_after(const ng_usbd_ctx *u, uint8_t t)
{
	uint8_t h = u->evq_head;
	for (t = (uint8_t)((t + 1u) % NG_USBD_EVENT_QUEUE); t != h; t = (uint8_t)((t + 1u) % NG_USBD_EVENT_QUEUE))
		if (u->evq[t].type == EV_SETUP || u->evq[t].type == EV_RESET)
			return true;
	return false;
}

void ng_usbd_task(ng_usbd_ctx *u)
{
	if (u->running)
		return;
	u->running = true;
	while (u->evq_tail != u->evq_head) {
		uint8_t t = u->evq_tail;
		atomic_signal_fence(memory_order_acquire);
		uint8_t type = u->evq[t].type, ep = u->evq[t].ep, setup[8];
		uint16_t len = u->evq[t].len;
		memcpy(setup, u->evq[t].setup, 8);
		bool superseded = type == EV_XFER && NG_EP_NUM(ep) == 0 && setup_queued_after(u, t);
		atomic_signal_fence(memory_order_release);
		u->evq_tail = (uint8_t)((t + 1u) % NG_USBD_EVENT_QUEUE);
		switch (type) {
		case EV_RESET: bus_reset(u); break;
		case EV_SETUP: handle_setup(u, setup); break;
		case EV_XFER:
			if (superseded)
				break;
			if (NG_EP_NUM(ep) == 0)
				ctrl_xfer_done(u, ep, len);
			else
				ep_xfer_done(u, ep, len);
			break;
		case EV_SUSPEND: u->suspended = true; break;
		case EV_RESUME: u->suspended = false; break;
		default: break;
		}
	}
	u->running = false;
}

ng_status ng_usbd_init(ng_usbd_ctx *u, const ng_dcd_ops *ops, void *drv,
		       const ng_usbd_desc *desc, const ng_usbd_class *const *classes, size_t n)
{
	if (!ops || !desc || !desc->device || !desc->config || n > NG_USBD_MAX_CLASSES ||
	    (n && !classes))
		return NG_ERR_ARG;
	memset(u, 0, sizeof *u);
	u->ops = ops;
	u->drv = drv;
	u->desc = desc;
	for (size_t i = 0; i < n; i++)
		u->cls[i] = classes[i];
	u->n_cls = (uint8_t)n;
	ep_forget_all(u);
	ops->init(drv, u);
	return NG_OK;
}

void ng_usbd_connect(ng_usbd_ctx *u, bool on)
{
	u->ops->connect(u->drv, on);
	if (!on)
		bus_reset(u);
}

uint8_t ng_usbd_configuration(const ng_usbd_ctx *u) { return u->config; }

bool ng_usbd_suspended(const ng_usbd_ctx *u) { return u->suspended; }

bool ng_usbd_control_idle(const ng_usbd_ctx *u) { return u->ctrl_state == CTRL_IDLE; }

uint16_t ng_usbd_string_ascii(const char *s, uint8_t *out, uint16_t cap)
{
	size_t n = 0;
	while (s && s[n])
		n++;
	if (n > 126)
		n = 126;
	if (2 + 2 * n > cap)
		n = (size_t)(cap - 2) / 2;
	out[0] = (uint8_t)(2 + 2 * n);
	out[1] = DESC_STRING;
	for (size_t i = 0; i < n; i++) {
		out[2 + 2 * i] = (uint8_t)s[i];
		out[3 + 2 * i] = 0;
	}
	return out[0];
}

uint16_t ng_usbd_string_langid(uint8_t *out)
{
	out[0] = 4;
	out[1] = DESC_STRING;
	out[2] = 0x09;
	out[3] = 0x04;
	return 4;
}
