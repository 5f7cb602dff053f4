/* SPDX-License-Identifier: GPL-3.0-or-later */
/* USB DFU 1.1 (dfu.h): the run-time interface of the application and the
 * DFU-mode interface of the boot loader. The state machine follows DFU 1.1
 * §6.1.2 (download) and §7 (manifestation); a request that is not valid in
 * the current state STALLs and, in DFU mode, moves to dfuERROR with
 * errSTALLEDPKT, as §6.1.2 says ("the device stalls ... and enters dfuERROR").
 * The flash work runs in ng_dfu_task (the main loop), never in a request. */
#include <string.h>
#include "dfu.h"

#define RT_CLASS_OUT 0x21u /* class, interface, host-to-device */
#define RT_CLASS_IN  0xA1u
#define RT_VENDOR_OUT 0x41u
#define RT_VENDOR_IN  0xC1u

void ng_dfu_functional_desc(uint8_t out[NG_DFU_FUNC_LEN])
{
	out[0] = NG_DFU_FUNC_LEN;
	out[1] = NG_DFU_DESC_FUNCTIONAL;
	out[2] = NG_DFU_ATTRIBUTES;
	ng_put_le16(out + 3, NG_DFU_DETACH_TIMEOUT);
	ng_put_le16(out + 5, NG_DFU_TRANSFER_SIZE);
	ng_put_le16(out + 7, NG_DFU_VERSION);
}

bool ng_dfu_boot_info_reply(ng_usbd_ctx *u, const ng_boot_info *bi, uint16_t index)
{
	uint8_t b[4];
	uint32_t v;
	if (!bi || bi->magic != NG_BOOTINFO_MAGIC)
		return false;
	switch (index) {
	case NG_INFO_IMAGE_DIGEST: ng_usbd_control_reply(u, bi->digest, sizeof bi->digest); return true;
	case NG_INFO_KEY_FINGERPRINT: ng_usbd_control_reply(u, bi->key_fp, sizeof bi->key_fp); return true;
	case NG_INFO_LOADER_VERSION: v = bi->loader_version; break;
	case NG_INFO_BOOT_STATUS: v = bi->status; break;
	case NG_INFO_IMAGE_VERSION: v = bi->image_version; break;
	case NG_INFO_IMAGE_LENGTH: v = bi->image_len; break;
	default: return false;
	}
	ng_put_le32(b, v);
	ng_usbd_control_reply(u, b, sizeof b);
	return true;
}

/* GETSTATUS reply (§6.1.2): bStatus, bwPollTimeout (3 bytes), bState, iString. */
static void reply_status(ng_dfu_ctx *d, ng_usbd_ctx *u, uint32_t poll_ms)
{
	uint8_t r[6] = {d->status, (uint8_t)poll_ms, (uint8_t)(poll_ms >> 8), (uint8_t)(poll_ms >> 16), d->state, 0};
	ng_usbd_control_reply(u, r, sizeof r);
}

static bool fail(ng_dfu_ctx *d, uint8_t status)
{
	d->state = NG_DFU_ERROR;
	d->status = status;
	d->work = false;
	return false;
}

#ifndef NG_DFU_MODE_ONLY
static bool runtime_control(ng_dfu_ctx *d, ng_usbd_ctx *u, const ng_usb_setup *s, uint8_t stage)
{
	if (stage != NG_CTRL_SETUP)
		return false;
	if (s->bmRequestType == RT_CLASS_OUT && s->bRequest == NG_DFU_DETACH && s->wLength == 0) {
		d->state = NG_DFU_APP_DETACH;
		d->leave = NG_DFU_LEAVE_DETACH;
		return true;
	}
	if (s->bmRequestType == RT_CLASS_IN && s->bRequest == NG_DFU_GETSTATUS) {
		reply_status(d, u, 0);
		return true;
	}
	if (s->bmRequestType == RT_CLASS_IN && s->bRequest == NG_DFU_GETSTATE) {
		ng_usbd_control_reply(u, &d->state, 1);
		return true;
	}
	return false;
}

#endif

/* The vendor requests of DFU mode: the challenge and its answer. */
static bool vendor_control(ng_dfu_ctx *d, ng_usbd_ctx *u, const ng_usb_setup *s, uint8_t stage,
			   const uint8_t *data, uint16_t len)
{
	if (d->state != NG_DFU_IDLE || s->wValue != 0)
		return false;
	if (s->bmRequestType == RT_VENDOR_OUT && s->bRequest == NG_DFU_REQ_CHALLENGE &&
	    s->wLength == NG_DFU_NONCE_LEN) {
		if (stage == NG_CTRL_DATA) {
			if (len != NG_DFU_NONCE_LEN)
				return false;
			memcpy(d->nonce, data, NG_DFU_NONCE_LEN);
			d->have_nonce = true;
		}
		return true;
	}
	if (s->bmRequestType == RT_VENDOR_IN && s->bRequest == NG_DFU_REQ_ANSWER && stage == NG_CTRL_SETUP) {
		uint8_t out[32];
		if (!d->have_nonce || !d->be->answer(d->be->user, d->nonce, NG_DFU_NONCE_LEN, out))
			return false;
		d->have_nonce = false; /* one answer per nonce */
		ng_usbd_control_reply(u, out, sizeof out);
		return true;
	}
	return false;
}

static bool mode_control(ng_dfu_ctx *d, ng_usbd_ctx *u, const ng_usb_setup *s, uint8_t stage,
			 const uint8_t *data, uint16_t len)
{
	if ((s->bmRequestType & NG_REQ_TYPE_MASK) == NG_REQ_TYPE_VENDOR)
		return vendor_control(d, u, s, stage, data, len);
	if (s->bmRequestType == RT_CLASS_OUT && s->bRequest == NG_DFU_DNLOAD) {
		if (stage == NG_CTRL_DATA) {
			if (len != s->wLength)
				return fail(d, NG_DFU_ERR_STALLEDPKT);
			memcpy(d->block, data, len);
			d->blk = s->wValue;
			d->len = len;
			d->state = NG_DFU_DNLOAD_SYNC;
			d->work = true;
			return true;
		}
		if (s->wLength > NG_DFU_TRANSFER_SIZE)
			return fail(d, NG_DFU_ERR_STALLEDPKT);
		if (d->state == NG_DFU_IDLE && s->wLength > 0) {
			d->first = true;
			d->manifested = false;
			d->have_nonce = false;
			return true;
		}
		if (d->state == NG_DFU_DNLOAD_IDLE) {
			d->first = false;
			if (s->wLength > 0)
				return true;
			d->state = NG_DFU_MANIFEST_SYNC; /* end of the download (§7) */
			d->len = 0;
			d->work = true;
			return true;
		}
		return fail(d, NG_DFU_ERR_STALLEDPKT);
	}
	if (stage != NG_CTRL_SETUP)
		return false;
	if (s->bmRequestType == RT_CLASS_IN && s->bRequest == NG_DFU_GETSTATUS) {
		if (d->state == NG_DFU_DNBUSY || d->state == NG_DFU_MANIFEST)
			ng_dfu_task(d); /* the host did not wait: finish first */
		uint32_t poll = 0;
		if (d->state == NG_DFU_DNLOAD_SYNC) {
			if (d->work) {
				d->state = NG_DFU_DNBUSY;
				poll = d->be->poll_dnload_ms;
			} else {
				d->state = NG_DFU_DNLOAD_IDLE;
			}
		} else if (d->state == NG_DFU_MANIFEST_SYNC) {
			if (d->work) {
				d->state = NG_DFU_MANIFEST;
				poll = d->be->poll_manifest_ms;
			} else {
				d->state = NG_DFU_IDLE; /* manifestation tolerant */
			}
		}
		reply_status(d, u, poll);
		return true;
	}
	if (s->bmRequestType == RT_CLASS_IN && s->bRequest == NG_DFU_GETSTATE) {
		ng_usbd_control_reply(u, &d->state, 1);
		return true;
	}
	if (s->bmRequestType == RT_CLASS_OUT && s->bRequest == NG_DFU_CLRSTATUS && s->wLength == 0) {
		if (d->state != NG_DFU_ERROR)
			return fail(d, NG_DFU_ERR_STALLEDPKT);
		d->state = NG_DFU_IDLE;
		d->status = NG_DFU_OK;
		return true;
	}
	if (s->bmRequestType == RT_CLASS_OUT && s->bRequest == NG_DFU_ABORT && s->wLength == 0) {
		switch (d->state) {
		case NG_DFU_IDLE:
		case NG_DFU_DNLOAD_SYNC:
		case NG_DFU_DNLOAD_IDLE:
		case NG_DFU_MANIFEST_SYNC:
		case NG_DFU_UPLOAD_IDLE:
			if (d->state != NG_DFU_IDLE && !d->manifested)
				d->be->abort(d->be->user);
			d->work = false;
			d->state = NG_DFU_IDLE;
			d->status = NG_DFU_OK;
			return true;
		default:
			return fail(d, NG_DFU_ERR_STALLEDPKT);
		}
	}
	if (s->bmRequestType == RT_CLASS_OUT && s->bRequest == NG_DFU_DETACH && s->wLength == 0 &&
	    d->state == NG_DFU_IDLE) {
		d->leave = NG_DFU_LEAVE_DETACH; /* ours: leave DFU mode, start the image if it is valid */
		return true;
	}
	return fail(d, NG_DFU_ERR_STALLEDPKT);
}

static bool dfu_control(void *ctx, ng_usbd_ctx *u, const ng_usb_setup *s, uint8_t stage,
			const uint8_t *data, uint16_t len)
{
	ng_dfu_ctx *d = ctx;
	if ((s->bmRequestType & NG_REQ_RCPT_MASK) != NG_REQ_RCPT_IFACE)
		return false; /* vendor requests to the device belong to others */
#ifdef NG_DFU_MODE_ONLY
	if (!d->be)
		return false; /* the boot loader's build: no run-time interface */
#else
	if (!d->be)
		return runtime_control(d, u, s, stage);
#endif
	return mode_control(d, u, s, stage, data, len);
}

/* Dropped by a USB reset (or SET_CONFIGURATION 0): after a successful
 * manifestation that means "run the new firmware" (§7, manifestation
 * tolerant devices). */
static void dfu_configured(void *ctx, ng_usbd_ctx *u, bool on)
{
	ng_dfu_ctx *d = ctx;
	(void)u;
	if (!on && d->be && d->manifested && (d->state == NG_DFU_IDLE || d->state == NG_DFU_MANIFEST_SYNC))
		d->leave = NG_DFU_LEAVE_DETACH;
}

static void init_common(ng_dfu_ctx *d, uint8_t iface)
{
	memset(d, 0, sizeof *d);
	d->cls.first_iface = iface;
	d->cls.n_iface = 1;
	d->cls.ctx = d;
	d->cls.control = dfu_control;
	d->cls.configured = dfu_configured;
}

void ng_dfu_init_runtime(ng_dfu_ctx *d, uint8_t iface)
{
	init_common(d, iface);
	d->state = NG_DFU_APP_IDLE;
}

void ng_dfu_init_mode(ng_dfu_ctx *d, const ng_dfu_backend *be)
{
	init_common(d, 0);
	d->be = be;
	d->state = NG_DFU_IDLE;
}

void ng_dfu_task(ng_dfu_ctx *d)
{
	if (!d->be || !d->work)
		return;
	d->work = false;
	uint8_t st;
	bool manifest = d->state == NG_DFU_MANIFEST_SYNC || d->state == NG_DFU_MANIFEST;
	if (manifest)
		st = d->be->manifest(d->be->user);
	else
		st = d->be->dnload(d->be->user, d->blk, d->block, d->len, d->first);
	if (st != NG_DFU_OK) {
		fail(d, st);
		return;
	}
	if (manifest) {
		d->manifested = true;
		d->state = NG_DFU_MANIFEST_SYNC; /* tolerant: GETSTATUS then says dfuIDLE */
	} else {
		d->state = NG_DFU_DNLOAD_SYNC;
	}
}

uint8_t ng_dfu_take_leave(ng_dfu_ctx *d, const ng_usbd_ctx *u)
{
	if (!ng_usbd_control_idle(u))
		return NG_DFU_LEAVE_NONE; /* the request's status stage is not over yet */
	uint8_t l = d->leave;
	d->leave = NG_DFU_LEAVE_NONE;
	return l;
}

uint8_t ng_dfu_state(const ng_dfu_ctx *d) { return d->state; }

uint8_t ng_dfu_status(const ng_dfu_ctx *d) { return d->status; }
