/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A fake device controller (implements usb/dcd.h) plus a tiny "host
 * controller" that drives it, for unit tests and fuzzers. Header-only (the
 * test build compiles one .c per test). It checks the contract as it goes:
 * violations are counted in fk->errors with a message in fk->last_error.
 *
 * Host side: fk_control() runs a whole control transfer, fk_in()/fk_out()
 * move one packet on a data endpoint (NAK when nothing is armed), all of
 * them running the stack's task as a host controller's time would.
 *
 * SET_ADDRESS as dcd.h states it: set_address only records the address
 * (set_address_calls, set_address_last); it goes on the bus (address) when
 * endpoint 0's zero-length IN completes, and a SETUP, a bus reset or a
 * stall of endpoint 0 before then drops it. A set_address made while that
 * ZLP is already armed is a contract violation (a real controller could
 * have sent it before the address was known). */
#ifndef NG_FAKE_DCD_H
#define NG_FAKE_DCD_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "dcd.h"
#include "usbd.h"

enum { FK_OK = 0, FK_NAK = 1, FK_STALL = 2, FK_ERR = 3 };

typedef struct {
	bool open, stalled, pending;
	uint8_t type;
	uint16_t mps;
	uint8_t *buf;
	uint16_t len;
	int toggle;         /* next DATA toggle: 0 = DATA0 */
	unsigned packets;   /* packets completed */
	unsigned zlps;      /* zero-length packets completed */
} fk_ep;

typedef struct {
	ng_usbd_ctx *u;
	bool inited, connected;
	uint8_t address;          /* the address on the bus */
	uint8_t address_pending;  /* 0x80 | recorded by set_address; 0: none */
	uint8_t set_address_last; /* the argument of the last set_address */
	unsigned set_address_calls;
	unsigned errors;
	char last_error[200];
	fk_ep ep[2][16];
	void (*task)(void *user); /* the app's main-loop step; default ng_usbd_task */
	void *task_user;
} fk_dcd;

static void fk_error(fk_dcd *f, const char *msg)
{
	f->errors++;
	snprintf(f->last_error, sizeof f->last_error, "%s", msg);
}

static fk_ep *fk_ep_of(fk_dcd *f, uint8_t ep) { return &f->ep[NG_EP_IS_IN(ep) ? 1 : 0][NG_EP_NUM(ep)]; }

static void fk_reset_eps(fk_dcd *f)
{
	memset(f->ep, 0, sizeof f->ep);
	for (int d = 0; d < 2; d++) {
		f->ep[d][0].open = true;
		f->ep[d][0].mps = NG_EP0_SIZE;
	}
}

static void fk_op_init(void *drv, ng_usbd_ctx *u)
{
	fk_dcd *f = drv;
	f->u = u;
	f->inited = true;
	fk_reset_eps(f);
}

static void fk_op_connect(void *drv, bool on) { ((fk_dcd *)drv)->connected = on; }

static void fk_op_set_address(void *drv, uint8_t addr)
{
	fk_dcd *f = drv;
	if (addr > 127)
		fk_error(f, "set_address above 127");
	if (f->ep[1][0].pending && f->ep[1][0].len == 0)
		fk_error(f, "set_address after the status-stage ZLP was armed");
	f->address_pending = (uint8_t)(0x80u | addr);
	f->set_address_last = addr;
	f->set_address_calls++;
}

static ng_status fk_op_ep_open(void *drv, uint8_t ep, uint8_t type, uint16_t mps)
{
	fk_dcd *f = drv;
	if (NG_EP_NUM(ep) == 0 || mps > 64) {
		fk_error(f, "ep_open: bad endpoint or size");
		return NG_ERR_ARG;
	}
	fk_ep *e = fk_ep_of(f, ep);
	memset(e, 0, sizeof *e);
	e->open = true;
	e->type = type;
	e->mps = mps;
	return NG_OK;
}

static void fk_op_ep_close_all(void *drv)
{
	fk_dcd *f = drv;
	for (int d = 0; d < 2; d++)
		for (int n = 1; n < 16; n++)
			memset(&f->ep[d][n], 0, sizeof f->ep[d][n]);
}

static ng_status fk_op_ep_xfer(void *drv, uint8_t ep, uint8_t *buf, uint16_t len)
{
	fk_dcd *f = drv;
	fk_ep *e = fk_ep_of(f, ep);
	if (!e->open) {
		fk_error(f, "ep_xfer on a closed endpoint");
		return NG_ERR_ARG;
	}
	if (len > e->mps) {
		fk_error(f, "ep_xfer longer than max packet");
		return NG_ERR_ARG;
	}
	if (len && !buf) {
		fk_error(f, "ep_xfer: NULL buffer with a length");
		return NG_ERR_ARG;
	}
	if (e->pending && NG_EP_NUM(ep) != 0)
		return NG_ERR_BUSY;
	e->pending = true;
	e->buf = buf;
	e->len = len;
	return NG_OK;
}

static void fk_op_ep_stall(void *drv, uint8_t ep)
{
	fk_dcd *f = drv;
	if (NG_EP_NUM(ep) == 0) {
		f->ep[0][0].stalled = f->ep[1][0].stalled = true;
		f->ep[0][0].pending = f->ep[1][0].pending = false;
		f->address_pending = 0; /* no status stage: the address is dropped */
		return;
	}
	fk_ep *e = fk_ep_of(f, ep);
	e->stalled = true;
	e->pending = false;
}

static void fk_op_ep_clear_stall(void *drv, uint8_t ep)
{
	fk_dcd *f = drv;
	if (NG_EP_NUM(ep) == 0) {
		fk_error(f, "ep_clear_stall called for endpoint 0");
		return;
	}
	fk_ep *e = fk_ep_of(f, ep);
	e->stalled = false;
	e->pending = false;
	e->toggle = 0;
}

static const ng_dcd_ops fk_ops = {
	.init = fk_op_init,
	.connect = fk_op_connect,
	.set_address = fk_op_set_address,
	.ep_open = fk_op_ep_open,
	.ep_close_all = fk_op_ep_close_all,
	.ep_xfer = fk_op_ep_xfer,
	.ep_stall = fk_op_ep_stall,
	.ep_clear_stall = fk_op_ep_clear_stall,
};

/* ------------------------------------------------------------ host side */

static void fk_run(fk_dcd *f)
{
	if (f->task)
		f->task(f->task_user);
	else
		ng_usbd_task(f->u);
}

static void fk_bus_reset(fk_dcd *f)
{
	fk_reset_eps(f);
	f->address = 0;
	f->address_pending = 0;
	ng_usbd_event_bus_reset(f->u, true);
	fk_run(f);
}

/* Host IN token on ep: FK_OK with the packet in buf/len, FK_NAK, FK_STALL. */
static int fk_in(fk_dcd *f, uint8_t ep, uint8_t *buf, uint16_t cap, uint16_t *len)
{
	fk_run(f);
	fk_ep *e = fk_ep_of(f, ep);
	*len = 0;
	if (!e->open)
		return FK_ERR;
	if (e->stalled)
		return FK_STALL;
	if (!e->pending)
		return FK_NAK;
	if (e->len > cap) {
		fk_error(f, "IN packet larger than the host buffer");
		return FK_ERR;
	}
	if (e->len)
		memcpy(buf, e->buf, e->len);
	*len = e->len;
	e->pending = false;
	e->toggle ^= 1;
	e->packets++;
	if (e->len == 0)
		e->zlps++;
	if (ep == 0x80 && e->len == 0 && f->address_pending) {
		/* the status stage of SET_ADDRESS is done: the new address */
		f->address = f->address_pending & 0x7Fu;
		f->address_pending = 0;
	}
	ng_usbd_event_xfer_complete(f->u, ep, *len, true);
	fk_run(f);
	return FK_OK;
}

/* Host OUT packet of len bytes on ep. */
static int fk_out(fk_dcd *f, uint8_t ep, const uint8_t *data, uint16_t len)
{
	fk_run(f);
	fk_ep *e = fk_ep_of(f, ep);
	if (!e->open)
		return FK_ERR;
	if (e->stalled)
		return FK_STALL;
	if (!e->pending)
		return FK_NAK;
	if (len > e->mps)
		return FK_ERR; /* babble: the host never does that */
	if (len > e->len) {
		fk_error(f, "OUT packet larger than the armed buffer");
		return FK_ERR;
	}
	if (len)
		memcpy(e->buf, data, len);
	e->pending = false;
	e->toggle ^= 1;
	e->packets++;
	if (len == 0)
		e->zlps++;
	ng_usbd_event_xfer_complete(f->u, ep, len, true);
	fk_run(f);
	return FK_OK;
}

static void fk_setup(fk_dcd *f, const uint8_t setup[8])
{
	/* The driver's duty on SETUP (dcd.h): cancel, unstall, DATA1. */
	for (int d = 0; d < 2; d++) {
		f->ep[d][0].pending = false;
		f->ep[d][0].stalled = false;
	}
	f->address_pending = 0; /* a SET_ADDRESS without its status stage */
	ng_usbd_event_setup(f->u, setup, true);
	fk_run(f);
}

/* Runs a whole control transfer as a host controller would. For IN
 * requests data receives up to wLength bytes (*actual = count); for OUT
 * requests data holds wLength bytes. Returns FK_OK, FK_STALL (in any stage)
 * or FK_ERR (the device never answered: a stack bug). *zlp_seen tells
 * whether an IN data stage ended with a zero-length packet. */
static int fk_control_ex(fk_dcd *f, uint8_t bmRequestType, uint8_t bRequest, uint16_t wValue,
			 uint16_t wIndex, uint16_t wLength, uint8_t *data, uint16_t *actual, bool *zlp_seen)
{
	uint8_t setup[8] = {bmRequestType, bRequest, (uint8_t)wValue, (uint8_t)(wValue >> 8),
			    (uint8_t)wIndex, (uint8_t)(wIndex >> 8), (uint8_t)wLength, (uint8_t)(wLength >> 8)};
	uint16_t got = 0, n;
	int r, spins;
	if (actual)
		*actual = 0;
	if (zlp_seen)
		*zlp_seen = false;
	fk_setup(f, setup);
	if (bmRequestType & 0x80) {
		if (wLength == 0) { /* no data stage: status is IN */
			goto status_in;
		}
		for (spins = 0; spins < 10000; spins++) {
			uint8_t pkt[64];
			r = fk_in(f, 0x80, pkt, 64, &n);
			if (r == FK_STALL)
				return FK_STALL;
			if (r == FK_NAK)
				continue;
			if (r != FK_OK)
				return FK_ERR;
			if (got + n > wLength) {
				fk_error(f, "control IN data longer than wLength");
				return FK_ERR;
			}
			memcpy(data + got, pkt, n);
			got = (uint16_t)(got + n);
			if (n == 0 && zlp_seen)
				*zlp_seen = true;
			if (n < 64 || got == wLength)
				break;
		}
		if (spins == 10000)
			return FK_ERR;
		if (actual)
			*actual = got;
		for (spins = 0; spins < 100; spins++) { /* status: zero-length OUT */
			r = fk_out(f, 0x00, NULL, 0);
			if (r == FK_OK)
				return FK_OK;
			if (r == FK_STALL)
				return FK_STALL;
		}
		return FK_ERR;
	}
	while (got < wLength) {
		n = (uint16_t)(wLength - got > 64 ? 64 : wLength - got);
		for (spins = 0; spins < 100; spins++) {
			r = fk_out(f, 0x00, data + got, n);
			if (r == FK_STALL)
				return FK_STALL;
			if (r == FK_OK)
				break;
		}
		if (spins == 100)
			return FK_ERR;
		got = (uint16_t)(got + n);
	}
	if (wLength % 64 == 0 && wLength) {
		/* (a data stage of exactly wLength ends there, no ZLP from the host) */
	}
status_in:
	for (spins = 0; spins < 100; spins++) {
		uint8_t pkt[64];
		r = fk_in(f, 0x80, pkt, 64, &n);
		if (r == FK_STALL)
			return FK_STALL;
		if (r == FK_OK) {
			if (n != 0) {
				fk_error(f, "status stage IN was not zero-length");
				return FK_ERR;
			}
			return FK_OK;
		}
	}
	return FK_ERR;
}

static int fk_control(fk_dcd *f, uint8_t bmRequestType, uint8_t bRequest, uint16_t wValue,
		      uint16_t wIndex, uint16_t wLength, uint8_t *data, uint16_t *actual)
{
	return fk_control_ex(f, bmRequestType, bRequest, wValue, wIndex, wLength, data, actual, NULL);
}

#endif
