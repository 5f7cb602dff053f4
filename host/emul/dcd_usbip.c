/* SPDX-License-Identifier: GPL-3.0-or-later */
/* usb/dcd.h over the virtual controller; see dcd_usbip.h.
 * Packet-level both sides: one ep_xfer = one packet in or out of the
 * controller's endpoint buffer; vhc.c maps the host's URBs onto packets
 * (filling IN URBs until a short packet, splitting OUT URBs, ZLPs). */
#include "dcd_usbip.h"

#include <string.h>

static void d_init(void *drv, ng_usbd_ctx *u)
{
	ng_dcd_usbip *d = drv;
	d->usbd = u;
}

static void d_connect(void *drv, bool on)
{
	ng_dcd_usbip *d = drv;
	d->connected = on;
}

static void d_set_address(void *drv, uint8_t addr)
{
	ng_dcd_usbip *d = drv;
	/* At once (dcd.h allows it here): vhci-hcd answers SET_ADDRESS
	 * itself; this one comes from the controller (vhc.c) after import. */
	ng_vhc_set_address(d->hc, addr);
}

static void forget(ng_dcd_usbip *d, uint8_t num)
{
	d->out_buf[num] = NULL;
	d->out_cap[num] = 0;
	d->in_pending[num] = false;
}

static ng_status d_ep_open(void *drv, uint8_t ep, uint8_t type, uint16_t mps)
{
	ng_dcd_usbip *d = drv;
	uint8_t n = NG_EP_NUM(ep);
	if (n == 0 || mps == 0 || mps > NG_VHC_MAX_PACKET || type == NG_EP_CONTROL || type > 3)
		return NG_ERR_ARG;
	ng_vhc_ep_open(d->hc, ep, type, mps);
	if (NG_EP_IS_IN(ep))
		d->in_pending[n] = false;
	else
		d->out_buf[n] = NULL;
	return NG_OK;
}

static void d_ep_close_all(void *drv)
{
	ng_dcd_usbip *d = drv;
	for (uint8_t n = 1; n < 16; n++) {
		ng_vhc_ep_close(d->hc, n);
		ng_vhc_ep_close(d->hc, (uint8_t)(0x80 | n));
		forget(d, n);
	}
}

static ng_status d_ep_xfer(void *drv, uint8_t ep, uint8_t *buf, uint16_t len)
{
	ng_dcd_usbip *d = drv;
	uint8_t n = NG_EP_NUM(ep);
	if (NG_EP_IS_IN(ep)) {
		if (d->in_pending[n] && n != 0) /* endpoint 0: replaces the pending one */
			return NG_ERR_BUSY;
		if (ng_vhc_ep_in(d->hc, ep, buf, len) < 0)
			return NG_ERR_ARG; /* not open, or len > max packet */
		d->in_pending[n] = true;
		d->in_len[n] = len;
		return NG_OK;
	}
	if (d->out_buf[n] && n != 0)
		return NG_ERR_BUSY;
	if (!buf || len == 0)
		return NG_ERR_ARG;
	d->out_buf[n] = buf;
	d->out_cap[n] = len;
	ng_vhc_ep_out_arm(d->hc, n);
	return NG_OK;
}

/* A data endpoint halted or cleared: whatever was pending on it is dropped,
 * without an event. */
static void set_halt(ng_dcd_usbip *d, uint8_t ep, bool halt)
{
	ng_vhc_ep_cancel(d->hc, ep);
	if (NG_EP_IS_IN(ep))
		d->in_pending[NG_EP_NUM(ep)] = false;
	else
		d->out_buf[NG_EP_NUM(ep)] = NULL;
	ng_vhc_ep_stall(d->hc, ep, halt);
}

static void d_ep_stall(void *drv, uint8_t ep)
{
	ng_dcd_usbip *d = drv;
	if (NG_EP_NUM(ep) == 0) { /* a protocol stall: both directions, until the next SETUP */
		ng_vhc_ep_stall(d->hc, 0x00, true);
		ng_vhc_ep_stall(d->hc, 0x80, true);
		return;
	}
	/* dcd.h: a transfer pending on it is cancelled without an event */
	set_halt(d, ep, true);
}

static void d_ep_clear_stall(void *drv, uint8_t ep)
{
	/* dcd.h: nothing is pending afterwards (the toggle is the host's business
	 * over USB/IP) */
	set_halt(drv, ep, false);
}

const ng_dcd_ops ng_dcd_usbip_ops = {
	.init = d_init,
	.connect = d_connect,
	.set_address = d_set_address,
	.ep_open = d_ep_open,
	.ep_close_all = d_ep_close_all,
	.ep_xfer = d_ep_xfer,
	.ep_stall = d_ep_stall,
	.ep_clear_stall = d_ep_clear_stall,
};

/* ---- controller -> stack ---- */

/* Events only queue (dcd.h): let the stack process each one at once, so the
 * queue never holds more than one and the next packet sees its effect. */
static void service(ng_dcd_usbip *d)
{
	if (d->service && d->usbd)
		d->service(d->task_user);
}

static void c_reset(void *user)
{
	ng_dcd_usbip *d = user;
	for (uint8_t n = 0; n < 16; n++)
		forget(d, n);
	if (d->usbd)
		ng_usbd_event_bus_reset(d->usbd, false);
	service(d);
}

static void c_setup(void *user, const uint8_t setup[8])
{
	ng_dcd_usbip *d = user;
	forget(d, 0); /* the controller cancelled endpoint 0's transfers */
	if (d->usbd)
		ng_usbd_event_setup(d->usbd, setup, false);
	service(d);
}

static void c_out(void *user, uint8_t ep, const uint8_t *data, size_t len)
{
	ng_dcd_usbip *d = user;
	uint8_t n = NG_EP_NUM(ep);
	uint8_t *buf = d->out_buf[n];
	if (!buf)
		return;
	if (len > d->out_cap[n])
		len = d->out_cap[n];
	if (len)
		memcpy(buf, data, len);
	d->out_buf[n] = NULL;
	if (d->usbd)
		ng_usbd_event_xfer_complete(d->usbd, n, (uint16_t)len, false);
	service(d);
}

static void c_in_done(void *user, uint8_t ep)
{
	ng_dcd_usbip *d = user;
	uint8_t n = NG_EP_NUM(ep);
	if (!d->in_pending[n])
		return;
	d->in_pending[n] = false;
	if (d->usbd)
		ng_usbd_event_xfer_complete(d->usbd, (uint8_t)(0x80 | n), d->in_len[n], false);
	service(d);
}

static bool c_task(void *user)
{
	ng_dcd_usbip *d = user;
	return d->task ? d->task(d->task_user) : false;
}

const ng_vhc_dev_ops ng_dcd_usbip_dev_ops = {
	.reset = c_reset,
	.setup = c_setup,
	.out = c_out,
	.in_done = c_in_done,
	.task = c_task,
};
