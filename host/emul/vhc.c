/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The virtual device controller: see vhc.h. */
#include "vhc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum ctl_stage { CS_SETUP, CS_DATA_IN, CS_DATA_OUT, CS_STATUS_IN, CS_STATUS_OUT };

void ng_vhc_log(const ng_vhc *hc, int level, const char *fmt, ...)
{
	if (!hc->cfg.log || level > hc->cfg.verbose)
		return;
	va_list ap;
	fputs("neug emulate: ", hc->cfg.log);
	va_start(ap, fmt);
	vfprintf(hc->cfg.log, fmt, ap);
	va_end(ap);
	fputc('\n', hc->cfg.log);
	fflush(hc->cfg.log);
}

/* ---- URB queues ---- */

ng_vhc_urb *ng_vhc_urb_new(uint32_t len)
{
	ng_vhc_urb *r = calloc(1, sizeof *r);
	if (!r || !(r->buf = calloc(1, len ? len : 1))) {
		free(r);
		return NULL;
	}
	return r;
}

void ng_vhc_urb_free(ng_vhc_urb *r)
{
	if (r) {
		free(r->buf);
		free(r);
	}
}

static ng_vhc_urb **queue_of(ng_vhc *hc, uint8_t epnum, bool in)
{
	if (epnum == 0)
		return &hc->q_ctl;
	return in ? &hc->q_in[epnum & 15] : &hc->q_out[epnum & 15];
}

/* Every FIFO: endpoint 0's, then IN and OUT of endpoints 1..15. Returns the count. */
static int all_queues(ng_vhc *hc, ng_vhc_urb **qs[31])
{
	int n = 0;
	qs[n++] = &hc->q_ctl;
	for (int e = 1; e < 16; e++) {
		qs[n++] = &hc->q_in[e];
		qs[n++] = &hc->q_out[e];
	}
	return n;
}

void ng_vhc_submit(ng_vhc *hc, ng_vhc_urb *r)
{
	ng_vhc_urb **q = queue_of(hc, r->epnum, r->in);
	while (*q)
		q = &(*q)->next;
	r->next = NULL;
	*q = r;
	hc->nurbs++;
}

/* An internal (probe) transfer ended. */
static void internal_result(ng_vhc *hc, const ng_vhc_urb *r, int32_t status)
{
	hc->internal_done++;
	if (status) {
		hc->internal_status = status;
		return;
	}
	if (r->setup[1] != 6) /* not GET_DESCRIPTOR (the SET_ADDRESS after attach) */
		return;
	if (r->setup[3] == 1) {
		memset(hc->dev_desc, 0, sizeof hc->dev_desc);
		memcpy(hc->dev_desc, r->buf, r->actual < 18 ? r->actual : 18);
	} else if (r->setup[3] == 2) {
		memcpy(hc->cfg_desc, r->buf, r->actual);
		hc->cfg_len = r->actual;
	}
}

/* Removes the head URB of its queue and reports it. */
static void complete(ng_vhc *hc, ng_vhc_urb **q, int32_t status)
{
	ng_vhc_urb *r = *q;
	*q = r->next;
	hc->nurbs--;
	ng_vhc_log(hc, 2, "RET_SUBMIT seq=%u ep=%u%s status=%d actual=%u", r->seqnum, r->epnum,
		   r->in ? "in" : "out", status, r->actual);
	if (r->internal)
		internal_result(hc, r, status);
	else if (hc->cfg.done)
		hc->cfg.done(hc->cfg.host, r, status);
	ng_vhc_urb_free(r);
}

bool ng_vhc_unlink(ng_vhc *hc, uint32_t seqnum)
{
	ng_vhc_urb **qs[31];
	int n = all_queues(hc, qs);
	for (int k = 0; k < n; k++) {
		for (ng_vhc_urb **p = qs[k]; *p; p = &(*p)->next) {
			if ((*p)->seqnum == seqnum && !(*p)->internal) {
				ng_vhc_urb *r = *p;
				*p = r->next;
				hc->nurbs--;
				ng_vhc_urb_free(r);
				return true;
			}
		}
	}
	return false;
}

void ng_vhc_drop_all(ng_vhc *hc)
{
	ng_vhc_urb **qs[31];
	int n = all_queues(hc, qs);
	for (int i = 0; i < n; i++) {
		while (*qs[i]) {
			ng_vhc_urb *r = *qs[i];
			*qs[i] = r->next;
			if (r->internal)
				internal_result(hc, r, -NG_URB_ECONNRESET);
			ng_vhc_urb_free(r);
		}
	}
	hc->nurbs = 0;
}

/* ---- endpoint registers ---- */

static void ep0_default(ng_vhc *hc)
{
	hc->in_hw[0].open = hc->out_hw[0].open = true;
	hc->in_hw[0].mps = hc->out_hw[0].mps = 64;
}

void ng_vhc_init(ng_vhc *hc, const ng_vhc_config *cfg)
{
	memset(hc, 0, sizeof *hc);
	hc->cfg = *cfg;
	ep0_default(hc);
}

void ng_vhc_reset(ng_vhc *hc)
{
	memset(hc->in_hw, 0, sizeof hc->in_hw);
	memset(hc->out_hw, 0, sizeof hc->out_hw);
	ep0_default(hc);
	hc->addr = 0;
	if (hc->cfg.ops->reset)
		hc->cfg.ops->reset(hc->cfg.user);
}

static ng_vhc_ep *hw_of(ng_vhc *hc, uint8_t ep) { return ep & 0x80 ? &hc->in_hw[ep & 15] : &hc->out_hw[ep & 15]; }

void ng_vhc_ep_open(ng_vhc *hc, uint8_t ep, uint8_t type, uint16_t mps)
{
	ng_vhc_ep *h = hw_of(hc, ep);
	memset(h, 0, sizeof *h);
	h->open = true;
	h->type = type & 3;
	h->mps = mps > NG_VHC_MAX_PACKET || mps == 0 ? NG_VHC_MAX_PACKET : mps;
}

void ng_vhc_ep_close(ng_vhc *hc, uint8_t ep)
{
	if ((ep & 15) == 0)
		return;
	memset(hw_of(hc, ep), 0, sizeof(ng_vhc_ep));
}

int ng_vhc_ep_in(ng_vhc *hc, uint8_t ep, const uint8_t *data, size_t len)
{
	ng_vhc_ep *h = &hc->in_hw[ep & 15];
	if (!h->open || (h->loaded && (ep & 15)) || len > h->mps)
		return -1; /* endpoint 0: a new packet replaces a loaded one */
	if (len)
		memcpy(h->pkt, data, len);
	h->n = (uint16_t)len;
	h->loaded = true;
	return 0;
}

bool ng_vhc_ep_in_busy(const ng_vhc *hc, uint8_t ep) { return hc->in_hw[ep & 15].loaded; }

void ng_vhc_ep_out_arm(ng_vhc *hc, uint8_t ep)
{
	ng_vhc_ep *h = &hc->out_hw[ep & 15];
	if (h->open)
		h->armed = true;
}

void ng_vhc_ep_stall(ng_vhc *hc, uint8_t ep, bool stall) { hw_of(hc, ep)->stall = stall; }

void ng_vhc_ep_cancel(ng_vhc *hc, uint8_t ep)
{
	ng_vhc_ep *h = hw_of(hc, ep);
	if (ep & 0x80)
		h->loaded = false;
	else
		h->armed = false;
}

bool ng_vhc_ep_stalled(const ng_vhc *hc, uint8_t ep)
{
	return (ep & 0x80 ? hc->in_hw[ep & 15] : hc->out_hw[ep & 15]).stall;
}

void ng_vhc_set_address(ng_vhc *hc, uint8_t addr)
{
	hc->addr = addr;
	ng_vhc_log(hc, 2, "device address %u", addr);
}

/* ---- moving packets ---- */

/* Takes the loaded IN packet of endpoint epnum into r. Returns true when the
 * packet ended r's transfer (short packet or length reached); *st is set. */
static bool take_in(ng_vhc *hc, ng_vhc_urb *r, uint8_t epnum, int32_t *st)
{
	ng_vhc_ep *h = &hc->in_hw[epnum];
	uint32_t room = r->len - r->actual, k = h->n;
	*st = 0;
	if (k > room) {
		memcpy(r->buf + r->actual, h->pkt, room);
		r->actual += room;
		*st = epnum ? -NG_URB_EOVERFLOW : 0; /* control: clamp to wLength */
	} else {
		memcpy(r->buf + r->actual, h->pkt, k);
		r->actual += k;
	}
	h->loaded = false;
	if (hc->cfg.ops->in_done)
		hc->cfg.ops->in_done(hc->cfg.user, (uint8_t)(0x80 | epnum));
	if (*st)
		return true;
	if (k < h->mps || r->actual == r->len) {
		if (k < h->mps && r->actual < r->len && (r->flags & NG_URB_SHORT_NOT_OK))
			*st = -NG_URB_EREMOTEIO;
		return true;
	}
	return false;
}

/* One step on endpoint 0. Returns true on progress. */
static bool pump_ctl(ng_vhc *hc)
{
	ng_vhc_urb *r = hc->q_ctl;
	ng_vhc_ep *hi = &hc->in_hw[0], *ho = &hc->out_hw[0];
	int32_t st;
	if (!r)
		return false;
	if (r->stage != CS_SETUP) { /* a stall ends the transfer in any later stage */
		bool in = r->stage == CS_DATA_IN || r->stage == CS_STATUS_IN;
		if ((in ? hi : ho)->stall) {
			complete(hc, &hc->q_ctl, -NG_URB_EPIPE);
			return true;
		}
	}
	switch (r->stage) {
	case CS_SETUP:
		hi->stall = ho->stall = false; /* a SETUP clears the endpoint 0 stall */
		hi->loaded = false;
		ho->armed = false;
		r->stage = r->len == 0 ? CS_STATUS_IN : r->in ? CS_DATA_IN : CS_DATA_OUT;
		ng_vhc_log(hc, 2, "SETUP %02x %02x wValue=%02x%02x wIndex=%02x%02x wLength=%u seq=%u",
			   r->setup[0], r->setup[1], r->setup[3], r->setup[2], r->setup[5], r->setup[4],
			   r->setup[6] | r->setup[7] << 8, r->seqnum);
		hc->cfg.ops->setup(hc->cfg.user, r->setup);
		return true;
	case CS_DATA_IN:
		if (!hi->loaded)
			return false;
		if (take_in(hc, r, 0, &st))
			r->stage = CS_STATUS_OUT;
		return true;
	case CS_DATA_OUT:
		if (!ho->armed)
			return false;
		{
			uint32_t k = r->len - r->actual;
			if (k > ho->mps)
				k = ho->mps;
			ho->armed = false;
			uint32_t at = r->actual;
			r->actual += k;
			if (r->actual == r->len)
				r->stage = CS_STATUS_IN;
			if (hc->cfg.ops->out)
				hc->cfg.ops->out(hc->cfg.user, 0, r->buf + at, k);
		}
		return true;
	case CS_STATUS_IN: /* the device's zero-length status packet */
		if (!hi->loaded)
			return false;
		hi->loaded = false;
		if (hc->cfg.ops->in_done)
			hc->cfg.ops->in_done(hc->cfg.user, 0x80);
		complete(hc, &hc->q_ctl, 0);
		return true;
	case CS_STATUS_OUT: /* the host's zero-length status packet */
		if (!ho->armed)
			return false;
		ho->armed = false;
		complete(hc, &hc->q_ctl, 0);
		if (hc->cfg.ops->out)
			hc->cfg.ops->out(hc->cfg.user, 0, NULL, 0);
		return true;
	}
	return false;
}

enum gate { G_IDLE, G_ENDED, G_GO };

/* Whether the head URB of q can move a packet on endpoint h: none queued
 * (G_IDLE); the endpoint is not open (-EPROTO) or stalled (-EPIPE), which ends
 * that URB (G_ENDED); or G_GO. */
static enum gate gate(ng_vhc *hc, ng_vhc_urb **q, const ng_vhc_ep *h)
{
	if (!*q)
		return G_IDLE;
	if (!h->open || h->stall) {
		complete(hc, q, h->open ? -NG_URB_EPIPE : -NG_URB_EPROTO);
		return G_ENDED;
	}
	return G_GO;
}

static bool pump_in(ng_vhc *hc, uint8_t e)
{
	ng_vhc_urb *r = hc->q_in[e];
	ng_vhc_ep *h = &hc->in_hw[e];
	int32_t st;
	enum gate g = gate(hc, &hc->q_in[e], h);
	if (g != G_GO)
		return g == G_ENDED;
	if (!h->loaded)
		return false;
	if (take_in(hc, r, e, &st))
		complete(hc, &hc->q_in[e], st);
	return true;
}

static bool pump_out(ng_vhc *hc, uint8_t e)
{
	ng_vhc_urb *r = hc->q_out[e];
	ng_vhc_ep *h = &hc->out_hw[e];
	enum gate g = gate(hc, &hc->q_out[e], h);
	if (g != G_GO)
		return g == G_ENDED;
	if (!h->armed)
		return false;
	uint32_t k = r->len - r->actual;
	uint8_t pkt[NG_VHC_MAX_PACKET];
	if (k > h->mps)
		k = h->mps;
	if (k == 0) { /* a zero-length URB, or the ZLP URB_ZERO_PACKET asks for */
		if (r->zlp_sent)
			return false;
		r->zlp_sent = true;
	}
	memcpy(pkt, r->buf + r->actual, k);
	r->actual += k;
	h->armed = false;
	bool done = r->actual == r->len &&
		    (k == 0 || !(r->flags & NG_URB_ZERO_PACKET) || k < h->mps);
	if (done)
		complete(hc, &hc->q_out[e], 0);
	if (hc->cfg.ops->out)
		hc->cfg.ops->out(hc->cfg.user, e, pkt, k);
	return true;
}

bool ng_vhc_run(ng_vhc *hc)
{
	for (int round = 0; round < 512; round++) {
		bool progress = false;
		if (hc->cfg.ops->task && hc->cfg.ops->task(hc->cfg.user))
			progress = true;
		if (hc->cfg.hold && hc->cfg.hold(hc->cfg.host))
			return false; /* the host side says when to go on */
		if (pump_ctl(hc))
			progress = true;
		for (uint8_t e = 1; e < 16; e++) {
			if (pump_in(hc, e))
				progress = true;
			if (pump_out(hc, e))
				progress = true;
		}
		if (!progress)
			return false;
	}
	return true;
}

/* ---- the controller's own control transfers ---- */

static int internal_ctl(ng_vhc *hc, uint8_t bmreq, uint8_t breq, uint16_t wvalue, uint16_t wlength)
{
	ng_vhc_urb *r = ng_vhc_urb_new(wlength);
	if (!r)
		return -1;
	r->internal = true;
	r->in = (bmreq & 0x80) != 0;
	r->len = wlength;
	r->setup[0] = bmreq;
	r->setup[1] = breq;
	r->setup[2] = (uint8_t)wvalue;
	r->setup[3] = (uint8_t)(wvalue >> 8);
	r->setup[6] = (uint8_t)wlength;
	r->setup[7] = (uint8_t)(wlength >> 8);
	ng_vhc_submit(hc, r);
	return 0;
}

void ng_vhc_attach(ng_vhc *hc, uint16_t devnum)
{
	ng_vhc_reset(hc);
	internal_ctl(hc, 0x00, 5, devnum, 0); /* SET_ADDRESS */
}

/* Runs one internal control transfer to the end (bounded). */
static int run_internal(ng_vhc *hc, uint8_t bmreq, uint8_t breq, uint16_t wvalue, uint16_t wlength)
{
	uint32_t want = hc->internal_done + 1;
	hc->internal_status = 0;
	if (internal_ctl(hc, bmreq, breq, wvalue, wlength) < 0)
		return -1;
	for (int i = 0; i < 100 && hc->internal_done < want; i++)
		ng_vhc_run(hc);
	if (hc->internal_done < want) {
		ng_vhc_drop_all(hc);
		return -1;
	}
	return hc->internal_status ? -1 : 0;
}

int ng_vhc_probe(ng_vhc *hc, char *err, size_t errlen)
{
	ng_vhc_reset(hc);
	hc->cfg_len = 0;
	if (run_internal(hc, 0x80, 6, 0x0100, 18) < 0 || hc->dev_desc[0] != 18 || hc->dev_desc[1] != 1) {
		snprintf(err, errlen, "the device did not return its device descriptor");
		goto fail;
	}
	hc->in_hw[0].mps = hc->out_hw[0].mps = hc->dev_desc[7] && hc->dev_desc[7] <= 64 ? hc->dev_desc[7] : 64;
	if (run_internal(hc, 0x80, 6, 0x0200, 9) < 0 || hc->cfg_len < 9) {
		snprintf(err, errlen, "the device did not return its configuration descriptor");
		goto fail;
	}
	uint16_t total = (uint16_t)(hc->cfg_desc[2] | hc->cfg_desc[3] << 8);
	if (total > sizeof hc->cfg_desc)
		total = sizeof hc->cfg_desc;
	if (run_internal(hc, 0x80, 6, 0x0200, total) < 0 || hc->cfg_len < 9) {
		snprintf(err, errlen, "the device did not return its full configuration descriptor");
		goto fail;
	}
	ng_vhc_reset(hc);
	ng_vhc_log(hc, 1, "device %02x%02x:%02x%02x, configuration of %u bytes, %u interfaces",
		   hc->dev_desc[9], hc->dev_desc[8], hc->dev_desc[11], hc->dev_desc[10], hc->cfg_len,
		   hc->cfg_desc[4]);
	return 0;
fail:
	ng_vhc_reset(hc);
	return -1;
}
