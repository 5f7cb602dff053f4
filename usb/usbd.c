/* SPDX-License-Identifier: GPL-3.0-or-later */
/* USB 2.0 chapter 9 device framework over the packet-level dcd contract
 * (dcd.h): the event queue, control transfers (§8.5.3, §9.3), the standard
 * requests (§9.4), endpoint halt (§9.4.5) and the transfer layer the class
 * drivers use (usbd.h). Full speed only, one configuration, alternate
 * setting 0 only. Assumes a single main loop; never runs in an ISR. */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include "usbd.h"

enum { EV_RESET = 1, EV_SETUP, EV_XFER, EV_SUSPEND, EV_RESUME };

/* Control transfer stages; bit 7 (CTRL_IN) is endpoint 0's direction in
 * the stage, as in an endpoint address. */
#define CTRL_IN     0x80u
#define CTRL_STATUS 0x02u
enum { CTRL_IDLE = 0, CTRL_DATA_OUT = 1, CTRL_STATUS_OUT = CTRL_STATUS,
       CTRL_DATA_IN = CTRL_IN | 1, CTRL_STATUS_IN = CTRL_IN | CTRL_STATUS };

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


_Static_assert(sizeof(ng_usb_setup) == 8 && offsetof(ng_usb_setup, wValue) == 2 &&
		       offsetof(ng_usb_setup, wIndex) == 4 && offsetof(ng_usb_setup, wLength) == 6,
	       "ng_usb_setup has the setup packet's layout");

#define DIR(ep) (NG_EP_IS_IN(ep) ? 1 : 0)
/* Endpoint number n is one of the data endpoints this build has (none in
 * the boot loader's, where NG_USBD_MAX_EP is 1). */
#define DATA_EP(n) ((n) != 0 && (n) < NG_USBD_MAX_EP)

/* The driver's ops: the context's, or in a build for one driver (the boot
 * loader's: NG_USBD_DCD names that driver's ops) those directly, so that
 * the calls are plain calls the compiler may inline. */
#ifdef NG_USBD_DCD
extern const ng_dcd_ops NG_USBD_DCD;
#define DCD(u) (&NG_USBD_DCD)
#else
#define DCD(u) ((u)->ops)
#endif

/* ---------------------------------------------------------------- events */

#ifdef NG_USB_POLLED
static void dispatch(ng_usbd_ctx *u, uint8_t type, uint8_t ep, uint16_t len, const uint8_t *setup);
/* The driver reports from its poll op, inside ng_usbd_task: at once. */
#define push dispatch
#else
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
#endif

/* The driver's events (dcd.h EVENTS): each is queued (or, polled,
 * handled at once) the same way from an interrupt or from the main loop's
 * thread, so in_isr is not read (dcd.h says why it is in the contract). */
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

static uint8_t class_index(const ng_usbd_ctx *u, const ng_usbd_class *c)
{
	for (uint8_t i = 0; i < u->n_cls && i < NG_USBD_MAX_CLASSES; i++)
		if (u->cls[i] == c)
			return (uint8_t)(i + 1u);
	return 0;
}

/* Every data endpoint closed (the entries of endpoint 0 are never used:
 * the control pipe has its own state; none is ever set in a build without
 * data endpoints). */
static void ep_forget_all(ng_usbd_ctx *u)
{
	if (NG_USBD_MAX_EP > 1)
		memset(u->ep, 0, sizeof u->ep);
}

/* Tells every class that the configuration was set (on) or dropped. */
static void tell_configured(ng_usbd_ctx *u, bool on)
{
	for (uint8_t i = 0; i < u->n_cls && i < NG_USBD_MAX_CLASSES; i++)
		if (u->cls[i]->configured)
			u->cls[i]->configured(u->cls[i]->ctx, u, on);
}

/* Drops the configuration: the driver closes the endpoints, classes forget. */
static void deconfigure(ng_usbd_ctx *u, bool tell_driver)
{
	if (u->config == 0)
		return;
	if (tell_driver)
		DCD(u)->ep_close_all(u->drv);
	ep_forget_all(u);
	u->config = 0;
	tell_configured(u, false);
}

/* The host cleared a halt (or re-selected alternate setting 0): DATA0,
 * nothing pending, the owner told. */
static void ep_restart(ng_usbd_ctx *u, uint8_t d, uint8_t n)
{
	uint8_t ep = (uint8_t)(n | (d ? 0x80u : 0u));
	ng_usbd_ep *e = &u->ep[d][n];
	DCD(u)->ep_clear_stall(u->drv, ep);
	e->halted = false;
	e->busy = false;
	const ng_usbd_class *c = u->cls[e->owner - 1u];
	if (c->halt_cleared)
		c->halt_cleared(c->ctx, u, ep);
}

/* ------------------------------------------------- control (endpoint 0) */

static void ctrl_stall(ng_usbd_ctx *u)
{
	u->ctrl_state = CTRL_IDLE;
	DCD(u)->ep_stall(u->drv, 0x80); /* both directions until the next SETUP */
}

/* Enters control stage st and arms endpoint 0 for its next packet, straight
 * from or into ctrl_buf (USB 2.0 §8.5.3): IN data from ctrl_off (a ZLP once
 * all is sent), OUT data at ctrl_off (a full packet always fits: ctrl_off
 * is a multiple of 64 below wLength <= NG_USBD_CTRL_BUF), the status
 * stages zero-length. */
static void ctrl_go(ng_usbd_ctx *u, uint8_t st)
{
	u->ctrl_state = st;
	if (st & CTRL_STATUS)
		u->ctrl_len = u->ctrl_off = 0;
	uint16_t n = (uint16_t)(u->ctrl_len - u->ctrl_off);
	if (n > NG_EP0_SIZE || !(st & CTRL_IN))
		n = NG_EP0_SIZE;
	DCD(u)->ep_xfer(u->drv, (uint8_t)(st & CTRL_IN), u->ctrl_buf + u->ctrl_off, n); /* (CTRL_IN is 0x80) */
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

/* String descriptor index (§9.6.7) into ctrl_buf: 0 is the LANGID list
 * (0x0409, English (US)), the others the ASCII string as UTF-16LE (at most
 * 126 characters). Returns its length, 0 = no such string. */
static uint16_t string_desc(ng_usbd_ctx *u, uint8_t index)
{
	uint8_t *out = u->ctrl_buf;
	const char *s = index == 0 ? "\x09" : u->desc->string ? u->desc->string(u, index) : NULL;
	uint16_t n;
	if (!s)
		return 0;
	for (n = 0; n < 126 && s[n]; n++) {
		out[2 + 2 * n] = (uint8_t)s[n];
		out[3 + 2 * n] = 0;
	}
	if (index == 0)
		out[3] = 0x04; /* LANGID 0x0409 */
	out[0] = (uint8_t)(2 + 2 * n);
	out[1] = DESC_STRING;
	return out[0];
}


/* The standard requests a device answers (§9.4), as bmRequestType << 8 |
 * bRequest. In this order: only S_GET_DESCRIPTOR ... S_SET_CONFIGURATION
 * take a wValue (CLEAR/SET_FEATURE's one selector, ENDPOINT_HALT, is 0),
 * only S_GET_DESCRIPTOR a wIndex among those to the device. Anything
 * else STALLs: CLEAR/SET_FEATURE of the device (DEVICE_REMOTE_WAKEUP is not
 * offered, TEST_MODE is high speed only: §9.4.1, §9.4.9) or an interface
 * (none has features), SET_DESCRIPTOR, SYNCH_FRAME (no isochronous
 * endpoints), requests in the wrong direction, unknown ones. */
enum { S_GET_STATUS_DEV, S_GET_STATUS_IF, S_GET_STATUS_EP, S_GET_CONFIGURATION, S_GET_INTERFACE,
       S_GET_DESCRIPTOR, S_SET_ADDRESS, S_SET_CONFIGURATION, S_SET_INTERFACE, S_CLEAR_HALT, S_SET_HALT, S_N };
static const uint16_t std_keys[S_N] = {
	NG_REQ_KEY(0x80, REQ_GET_STATUS), NG_REQ_KEY(0x81, REQ_GET_STATUS),
	NG_REQ_KEY(0x82, REQ_GET_STATUS), NG_REQ_KEY(0x80, REQ_GET_CONFIGURATION),
	NG_REQ_KEY(0x81, REQ_GET_INTERFACE), NG_REQ_KEY(0x80, REQ_GET_DESCRIPTOR),
	NG_REQ_KEY(0x00, REQ_SET_ADDRESS), NG_REQ_KEY(0x00, REQ_SET_CONFIGURATION),
	NG_REQ_KEY(0x01, REQ_SET_INTERFACE), NG_REQ_KEY(0x02, REQ_CLEAR_FEATURE),
	NG_REQ_KEY(0x02, REQ_SET_FEATURE),
};

/* Standard requests, USB 2.0 §9.4. Returns the control stage to enter
 * (CTRL_IDLE: STALL); an IN reply is in ctrl_buf. */
static uint8_t std_request(ng_usbd_ctx *u, const ng_usb_setup *s)
{
	uint8_t tmp[2] = {0, 0};
	const void *reply = tmp;
	uint16_t n = 2;
	uint8_t r = 0, rcpt = s->bmRequestType & NG_REQ_RCPT_MASK;
	uint8_t ep = (uint8_t)s->wIndex, en = NG_EP_NUM(ep), ed = (uint8_t)DIR(ep);
	while (r < S_N && std_keys[r] != NG_REQ_KEY(s->bmRequestType, s->bRequest))
		r++;
	/* No host-to-device one has a data stage. */
	if (r == S_N || (!(s->bmRequestType & NG_REQ_DIR_IN) && s->wLength != 0) ||
	    (s->wValue != 0 && (r < S_GET_DESCRIPTOR || r > S_SET_CONFIGURATION)) ||
	    (rcpt == NG_REQ_RCPT_DEVICE && s->wIndex != 0 && r != S_GET_DESCRIPTOR))
		return CTRL_IDLE;
	/* §9.4: interface requests only in the Configured state; endpoint
	 * requests there too, but for endpoint 0 */
	if (rcpt == NG_REQ_RCPT_IFACE && (u->config == 0 || s->wIndex >= u->desc->config[4] /* bNumInterfaces */))
		return CTRL_IDLE;
	if (rcpt == NG_REQ_RCPT_EP && ((s->wIndex & 0xFF70u) != 0 || en >= NG_USBD_MAX_EP ||
				       (DATA_EP(en) && (u->config == 0 || !u->ep[ed][en].open))))
		return CTRL_IDLE;
	switch (r) {
	case S_GET_STATUS_DEV: /* §9.4.5: bus powered, no remote wakeup */
	case S_GET_STATUS_IF: /* reserved zero */
		break;
	case S_GET_STATUS_EP: /* Figure 9-6: bit 0 = Halt */
		tmp[0] = (uint8_t)(DATA_EP(en) && u->ep[ed][en].halted);
		break;
	case S_GET_CONFIGURATION: /* §9.4.2 */
		reply = &u->config;
		n = 1;
		break;
	case S_GET_INTERFACE: /* §9.4.4: alternate setting 0 only */
		n = 1;
		break;
	case S_GET_DESCRIPTOR: { /* §9.4.3 */
		uint8_t type = (uint8_t)(s->wValue >> 8), index = (uint8_t)s->wValue;
		const ng_usbd_desc *d = u->desc;
		if (type == DESC_DEVICE && index == 0) {
			reply = d->device;
			n = d->device[0];
		} else if (type == DESC_CONFIGURATION && index == 0) {
			reply = d->config;
			n = ng_get_le16(d->config + 2);
		} else if (type == DESC_STRING && (n = string_desc(u, index)) != 0) {
			reply = u->ctrl_buf;
		} else {
			/* DEVICE_QUALIFIER and OTHER_SPEED_CONFIGURATION: a
			 * full-speed-only device STALLs them (§9.6.2); anything
			 * else is unknown. */
			return CTRL_IDLE;
		}
		break;
	}
	case S_SET_ADDRESS: /* §9.4.6 */
		if (s->wValue > 127 || u->config != 0)
			return CTRL_IDLE;
		/* Accepted: the driver holds the address until the status stage
		 * armed next completes, then applies it (dcd.h SET_ADDRESS). */
		DCD(u)->set_address(u->drv, (uint8_t)s->wValue);
		return CTRL_STATUS_IN;
	case S_SET_CONFIGURATION: { /* §9.4.7 */
		/* Accepted at address 0 too: Linux's vhci-hcd answers SET_ADDRESS
		 * itself, so over USB/IP the device never sees one. */
		uint8_t value = u->desc->config[5]; /* bConfigurationValue */
		if (s->wValue != 0 && s->wValue != value)
			return CTRL_IDLE;
		deconfigure(u, true);
		if (s->wValue != 0) {
			u->config = value;
			tell_configured(u, true);
		}
		return CTRL_STATUS_IN;
	}
	case S_SET_INTERFACE: /* §9.4.10 */
		/* Re-selecting setting 0 restarts the interface's endpoints with
		 * DATA0, as the host resets its toggles too. */
		for (uint8_t d = 0; d < 2; d++)
			for (uint8_t i = 1; i < NG_USBD_MAX_EP; i++)
				if (u->ep[d][i].open && u->ep[d][i].iface == s->wIndex)
					ep_restart(u, d, i);
		return CTRL_STATUS_IN;
	case S_CLEAR_HALT:
		/* The toggle is reset whether or not the endpoint was halted;
		 * endpoint 0 has no halt to clear. */
		if (DATA_EP(en))
			ep_restart(u, ed, en);
		return CTRL_STATUS_IN;
	default: /* S_SET_HALT */
		/* Not implemented for the default control pipe ("neither
		 * required nor recommended", §9.4.5): STALL. */
		if (en == 0)
			return CTRL_IDLE;
		ng_usbd_stall(u, ep);
		return CTRL_STATUS_IN;
	}
	ng_usbd_control_reply(u, reply, n);
	return CTRL_DATA_IN;
}

/* A class or vendor request: to the class owning the interface (wIndex),
 * or a vendor request to the device, offered to each class in turn. */
static uint8_t class_request(ng_usbd_ctx *u, const ng_usb_setup *s)
{
	uint8_t rcpt = s->bmRequestType & NG_REQ_RCPT_MASK;
	uint8_t type = s->bmRequestType & NG_REQ_TYPE_MASK;
	bool iface = rcpt == NG_REQ_RCPT_IFACE;
	if (type == NG_REQ_TYPE_MASK || /* (type 3 is reserved) */
	    (iface ? u->config == 0 || (s->wIndex >> 8) != 0 : rcpt != NG_REQ_RCPT_DEVICE || type != NG_REQ_TYPE_VENDOR))
		return CTRL_IDLE;
	for (uint8_t i = 0; i < u->n_cls && i < NG_USBD_MAX_CLASSES; i++) {
		const ng_usbd_class *c = u->cls[i];
		if (iface && (uint8_t)(s->wIndex - c->first_iface) >= c->n_iface)
			continue; /* not one of its interfaces */
		if (c->control && c->control(c->ctx, u, s, NG_CTRL_SETUP, NULL, 0)) {
			u->ctrl_cls = c;
			if (s->bmRequestType & NG_REQ_DIR_IN)
				return CTRL_DATA_IN;
			return s->wLength ? CTRL_DATA_OUT : CTRL_STATUS_IN;
		}
		if (iface)
			break; /* its owner said no */
	}
	return CTRL_IDLE;
}

#ifndef NG_USB_POLLED
static bool setup_queued_after(const ng_usbd_ctx *u, uint8_t t);
/* The SETUP the task has just taken (the entry before evq_tail) is
 * superseded: see setup_queued_after. Kept out of line, off the task's
 * data-endpoint path. */
__attribute__((noinline, cold)) static bool setup_superseded(const ng_usbd_ctx *u)
{
	return setup_queued_after(u, (uint8_t)((u->evq_tail + NG_USBD_EVENT_QUEUE - 1u) % NG_USBD_EVENT_QUEUE));
}
#endif

static void handle_setup(ng_usbd_ctx *u, const uint8_t raw[8])
{
	ng_usb_setup *s = &u->setup;
#ifndef NG_USB_POLLED
	if (setup_superseded(u))
		return;
#endif
#if defined __BYTE_ORDER__ && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(s, raw, 8); /* the wire's layout (USB 2.0 table 9-2, little-endian) */
#else
	s->bmRequestType = raw[0];
	s->bRequest = raw[1];
	s->wValue = ng_get_le16(raw + 2);
	s->wIndex = ng_get_le16(raw + 4);
	s->wLength = ng_get_le16(raw + 6);
#endif
	/* A SETUP aborts whatever control transfer was going on (§8.5.3). */
	u->ctrl_len = u->ctrl_off = 0;
	uint8_t st = (s->bmRequestType & NG_REQ_TYPE_MASK) == NG_REQ_TYPE_STD ? std_request(u, s)
									     : class_request(u, s);
	/* A device-to-host request must have asked for data; an OUT data
	 * stage must fit ctrl_buf. */
	if ((st == CTRL_DATA_IN && s->wLength == 0) || (st == CTRL_DATA_OUT && s->wLength > NG_USBD_CTRL_BUF))
		st = CTRL_IDLE;
	if (st == CTRL_IDLE)
		ctrl_stall(u);
	else
		ctrl_go(u, st);
}

static void ctrl_xfer_done(ng_usbd_ctx *u, uint8_t ep, uint16_t len)
{
	uint8_t st = u->ctrl_state;
	bool in = (st & CTRL_IN) != 0;
	if (st == CTRL_IDLE || in != ((ep & CTRL_IN) != 0))
		return; /* stale, or not the direction this stage expects */
	if (!(st & CTRL_STATUS)) { /* a data stage */
		if (!in && len > u->setup.wLength - u->ctrl_off) { /* more than wLength: protocol error */
			ctrl_stall(u);
			return;
		}
		u->ctrl_off = (uint16_t)(u->ctrl_off + len);
		/* On while full packets come short of wLength; IN, while there is
		 * data left, and then a ZLP when the data, shorter than wLength,
		 * ended on a full packet (§5.5.3, §8.5.3.2). */
		if ((len == NG_EP0_SIZE && u->ctrl_off < u->setup.wLength) || (in && u->ctrl_off < u->ctrl_len)) {
			ctrl_go(u, st);
			return;
		}
		if (in) { /* the host's zero-length OUT is the status stage */
			ctrl_go(u, CTRL_STATUS_OUT);
			return;
		}
		const ng_usbd_class *c = u->ctrl_cls;
		if (!c->control(c->ctx, u, &u->setup, NG_CTRL_DATA, u->ctrl_buf, u->ctrl_off))
			ctrl_stall(u); /* STALL in the status stage */
		else
			ctrl_go(u, CTRL_STATUS_IN);
		return;
	}
	u->ctrl_state = CTRL_IDLE;
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
	if (DCD(u)->ep_xfer(u->drv, ep, e->buf ? e->buf + e->off : NULL, chunk) != NG_OK)
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
				DCD(u)->ep_xfer(u->drv, ep, NULL, 0);
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
	ng_status st = DCD(u)->ep_open(u->drv, ep_addr, type, max_packet);
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
	DCD(u)->ep_stall(u->drv, ep_addr);
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
	u->ctrl_state = CTRL_IDLE;
	u->suspended = false;
}

static void dispatch(ng_usbd_ctx *u, uint8_t type, uint8_t ep, uint16_t len, const uint8_t *setup)
{
	switch (type) {
	case EV_RESET: bus_reset(u); break;
	case EV_SETUP: handle_setup(u, setup); break;
	case EV_XFER:
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

#ifndef NG_USB_POLLED
/* True when a SETUP or bus reset is queued after position t: an
 * endpoint-0 completion or a SETUP before it belongs to a request the host
 * has given up (it sends the next SETUP only once the stack has answered
 * this one, or after a timeout), so it is dropped; a stale SETUP would arm
 * endpoint 0, or call set_address, for nothing (dcd.h SET_ADDRESS). */
static bool setup_queued_after(const ng_usbd_ctx *u, uint8_t t)
{
	uint8_t h = u->evq_head;
	for (t = (uint8_t)((t + 1u) % NG_USBD_EVENT_QUEUE); t != h; t = (uint8_t)((t + 1u) % NG_USBD_EVENT_QUEUE))
		if (u->evq[t].type == EV_SETUP || u->evq[t].type == EV_RESET)
			return true;
	return false;
}
#endif

void ng_usbd_task(ng_usbd_ctx *u)
{
	if (u->running)
		return;
	u->running = true;
#ifdef NG_USB_POLLED
	if (DCD(u)->poll)
		DCD(u)->poll(u->drv); /* its events are handled as it reports them */
#else
	while (u->evq_tail != u->evq_head) {
		uint8_t t = u->evq_tail;
		atomic_signal_fence(memory_order_acquire);
		uint8_t type = u->evq[t].type, ep = u->evq[t].ep, setup[8];
		uint16_t len = u->evq[t].len;
		if (type == EV_SETUP) /* (the only event that carries the 8 bytes) */
			memcpy(setup, u->evq[t].setup, 8);
		bool superseded = type == EV_XFER && NG_EP_NUM(ep) == 0 && setup_queued_after(u, t);
		atomic_signal_fence(memory_order_release);
		u->evq_tail = (uint8_t)((t + 1u) % NG_USBD_EVENT_QUEUE);
		if (!superseded)
			dispatch(u, type, ep, len, setup);
	}
#endif
	u->running = false;
}

ng_status ng_usbd_init(ng_usbd_ctx *u, const ng_dcd_ops *ops, void *drv,
		       const ng_usbd_desc *desc, const ng_usbd_class *const *classes, size_t n)
{
	if (!ops || !desc || !desc->device || !desc->config || n > NG_USBD_MAX_CLASSES ||
	    (n && !classes))
		return NG_ERR_ARG;
#ifdef NG_USBD_DCD
	if (ops != &NG_USBD_DCD)
		return NG_ERR_ARG; /* built for that driver only */
#endif
	memset(u, 0, sizeof *u);
#ifndef NG_USBD_DCD
	u->ops = ops;
#endif
	u->drv = drv;
	u->desc = desc;
	for (size_t i = 0; i < n; i++)
		u->cls[i] = classes[i];
	u->n_cls = (uint8_t)n;
	ep_forget_all(u);
	DCD(u)->init(drv, u);
	return NG_OK;
}

void ng_usbd_connect(ng_usbd_ctx *u, bool on)
{
	DCD(u)->connect(u->drv, on);
	if (!on)
		bus_reset(u);
}

uint8_t ng_usbd_configuration(const ng_usbd_ctx *u) { return u->config; }

bool ng_usbd_suspended(const ng_usbd_ctx *u) { return u->suspended; }

bool ng_usbd_control_idle(const ng_usbd_ctx *u) { return u->ctrl_state == CTRL_IDLE; }

void ng_usbd_serial(char out[25], const uint32_t uid[3])
{
	uint32_t v = 0;
	for (unsigned i = 0; i < 24; i++, v <<= 4) {
		if (i % 8 == 0)
			v = *uid++;
		uint32_t x = v >> 28;
		*out++ = (char)(x + (x < 10 ? '0' : 'A' - 10));
	}
	*out = 0;
}
