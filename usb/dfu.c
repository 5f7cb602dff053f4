/* SPDX-License-Identifier: GPL-3.0-or-later */
/* USB DFU 1.1 (dfu.h): the run-time interface of the application and the
 * DFU-mode interface of the boot loader. The state machine follows DFU 1.1
 * §6.1.2 (download) and §7 (manifestation); a request that is not valid in
 * the current state STALLs and, in DFU mode, moves to dfuERROR with
 * errSTALLEDPKT, as §6.1.2 says ("the device stalls ... and enters dfuERROR").
 * The flash work runs in ng_dfu_task (the main loop) after the request that
 * brought it; a GETSTATUS that comes first does it before it answers, so
 * the device never reports dfuDNBUSY or dfuMANIFEST (bwPollTimeout 0): the
 * answer is the block's (the manifestation's) outcome (§6.1.2, "block
 * complete"; §7, manifestation tolerant). */
#include <stddef.h>
#include <string.h>
#include "dfu.h"

/* The back end's calls: through its functions, or, in a build whose only
 * back end is the update state machine (NG_DFU_BACKEND_UPDATE: the boot
 * loader's, firmware/module.mk), straight to boot/update.h. */
#ifdef NG_DFU_BACKEND_UPDATE
#include "update.h"
#define BE_DNLOAD(be, ...)   ng_update_block((be)->user, __VA_ARGS__)
#define BE_MANIFEST(be)      ng_update_manifest((be)->user)
#define BE_ABORT(be)         ng_update_abort((be)->user)
#define BE_ANSWER(be, ...)   ng_update_answer((be)->user, __VA_ARGS__)
#else
#define BE_DNLOAD(be, ...)   (be)->dnload((be)->user, __VA_ARGS__)
#define BE_MANIFEST(be)      (be)->manifest((be)->user)
#define BE_ABORT(be)         (be)->abort((be)->user)
#define BE_ANSWER(be, ...)   (be)->answer((be)->user, __VA_ARGS__)
#endif

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
	/* where each index's value is, from NG_INFO_LOADER_VERSION on */
	static const uint8_t field[NG_INFO_IMAGE_LENGTH - NG_INFO_LOADER_VERSION + 2] = {
		offsetof(ng_boot_info, loader_version), offsetof(ng_boot_info, status),
		offsetof(ng_boot_info, digest), offsetof(ng_boot_info, key_fp),
		offsetof(ng_boot_info, image_version), offsetof(ng_boot_info, image_len),
		offsetof(ng_boot_info, floor), /* NG_INFO_VERSION_FLOOR, after them */
	};
	if (index == NG_INFO_VERSION_FLOOR)
		index = NG_INFO_IMAGE_LENGTH + 1;
	if (!bi || bi->magic != NG_BOOTINFO_MAGIC || index < NG_INFO_LOADER_VERSION || index > NG_INFO_IMAGE_LENGTH + 1)
		return false;
	const uint8_t *p = (const uint8_t *)bi + field[index - NG_INFO_LOADER_VERSION];
	uint16_t n = index == NG_INFO_IMAGE_DIGEST || index == NG_INFO_KEY_FINGERPRINT ? 32u : 4u;
#if !(defined __BYTE_ORDER__ && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
	uint8_t b[4];
	if (n == 4) { /* a uint32_t, little-endian on the wire */
		uint32_t v;
		memcpy(&v, p, sizeof v);
		ng_put_le32(b, v);
		p = b;
	}
#endif /* (on a little-endian target the field's bytes are the wire's) */
	ng_usbd_control_reply(u, p, n);
	return true;
}

/* GETSTATUS reply (§6.1.2): bStatus, bwPollTimeout (3 bytes, 0), bState, iString. */
static void reply_status(ng_dfu_ctx *d, ng_usbd_ctx *u)
{
	uint8_t r[6] = {d->status, 0, 0, 0, d->state, 0};
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
		reply_status(d, u);
		return true;
	}
	if (s->bmRequestType == RT_CLASS_IN && s->bRequest == NG_DFU_GETSTATE) {
		ng_usbd_control_reply(u, &d->state, 1);
		return true;
	}
	return false;
}

#endif

#define IN_STATE(x) (1u << NG_DFU_##x)

/* The DFU-mode requests (DFU 1.1 §3 table 3.2, and the challenge and
 * GET_INFO of dfu.h), as bmRequestType << 8 | bRequest, and the states each
 * is valid in (§6.1.2; bit n: state n). M_CLRSTATUS ... M_DETACH have no
 * data stage, M_CHALLENGE on a wValue of 0; UPLOAD is not offered
 * (bitCanUpload 0). */
enum { M_DNLOAD, M_CLRSTATUS, M_ABORT, M_DETACH, M_GETSTATUS, M_GETSTATE, M_CHALLENGE, M_ANSWER, M_INFO, M_N };
static const uint16_t mode_keys[M_N] = {
	NG_REQ_KEY(RT_CLASS_OUT, NG_DFU_DNLOAD), NG_REQ_KEY(RT_CLASS_OUT, NG_DFU_CLRSTATUS),
	NG_REQ_KEY(RT_CLASS_OUT, NG_DFU_ABORT), NG_REQ_KEY(RT_CLASS_OUT, NG_DFU_DETACH),
	NG_REQ_KEY(RT_CLASS_IN, NG_DFU_GETSTATUS), NG_REQ_KEY(RT_CLASS_IN, NG_DFU_GETSTATE),
	NG_REQ_KEY(RT_VENDOR_OUT, NG_DFU_REQ_CHALLENGE), NG_REQ_KEY(RT_VENDOR_IN, NG_DFU_REQ_ANSWER),
	NG_REQ_KEY(0xC0u, NG_DFU_REQ_GET_INFO), /* vendor, device */
};
static const uint16_t mode_states[M_N] = {
	IN_STATE(IDLE) | IN_STATE(DNLOAD_IDLE),
	IN_STATE(ERROR),
	IN_STATE(IDLE) | IN_STATE(DNLOAD_SYNC) | IN_STATE(DNLOAD_IDLE) | IN_STATE(MANIFEST_SYNC) | IN_STATE(UPLOAD_IDLE),
	IN_STATE(IDLE), /* ours: leave DFU mode, start the image if it is valid */
	0x7FFu,
	0x7FFu,
	IN_STATE(IDLE),
	IN_STATE(IDLE),
	0x7FFu,
};

static bool mode_control(ng_dfu_ctx *d, ng_usbd_ctx *u, const ng_usb_setup *s, uint8_t stage,
			 const uint8_t *data, uint16_t len)
{
	uint8_t r = 0, st = d->state;
	while (r < M_N && mode_keys[r] != NG_REQ_KEY(s->bmRequestType, s->bRequest))
		r++;
	if (r == M_N || !((mode_states[r] >> st) & 1u) || (r >= M_CLRSTATUS && r <= M_DETACH && s->wLength != 0) ||
	    (r >= M_CHALLENGE && s->wValue != 0))
		r = M_N;
	switch (r) {
	case M_DNLOAD:
		if (stage == NG_CTRL_DATA) {
			if (len != s->wLength)
				break;
			memcpy(d->block, data, len);
			d->blk = s->wValue;
			d->len = len;
			d->state = NG_DFU_DNLOAD_SYNC;
			d->work = true;
			return true;
		}
		if (s->wLength > NG_DFU_TRANSFER_SIZE)
			break;
		d->first = st == NG_DFU_IDLE;
		if (d->first) {
			if (s->wLength == 0)
				break;
			d->manifested = false;
			d->have_nonce = false;
		} else if (s->wLength == 0) {
			d->state = NG_DFU_MANIFEST_SYNC; /* end of the download (§7) */
			d->work = true;
		}
		return true;
	case M_CLRSTATUS:
		d->state = NG_DFU_IDLE;
		d->status = NG_DFU_OK;
		return true;
	case M_ABORT:
		if (st != NG_DFU_IDLE && !d->manifested)
			BE_ABORT(d->be);
		d->work = false;
		d->state = NG_DFU_IDLE;
		d->status = NG_DFU_OK;
		return true;
	case M_DETACH:
		d->leave = NG_DFU_LEAVE_DETACH;
		return true;
	case M_GETSTATUS:
		ng_dfu_task(d); /* a block or the manifestation still waiting: done first */
		if (d->state == NG_DFU_DNLOAD_SYNC)
			d->state = NG_DFU_DNLOAD_IDLE;
		if (d->state == NG_DFU_MANIFEST_SYNC)
			d->state = NG_DFU_IDLE; /* manifestation tolerant */
		reply_status(d, u);
		return true;
	case M_GETSTATE:
		ng_usbd_control_reply(u, &d->state, 1);
		return true;
	case M_CHALLENGE:
		if (s->wLength != NG_DFU_NONCE_LEN)
			break;
		if (stage == NG_CTRL_DATA) {
			if (len != NG_DFU_NONCE_LEN)
				break;
			memcpy(d->nonce, data, NG_DFU_NONCE_LEN);
			d->have_nonce = true;
		}
		return true;
	case M_ANSWER: {
		uint8_t out[32];
		if (!d->have_nonce || !BE_ANSWER(d->be, d->nonce, NG_DFU_NONCE_LEN, out))
			break;
		d->have_nonce = false; /* one answer per nonce */
		ng_usbd_control_reply(u, out, sizeof out);
		return true;
	}
	case M_INFO:
		if (ng_dfu_boot_info_reply(u, d->boot, s->wIndex))
			return true;
		break;
	default:
		break;
	}
	if ((s->bmRequestType & NG_REQ_TYPE_MASK) == NG_REQ_TYPE_VENDOR)
		return false; /* a refused vendor request leaves the DFU state alone */
	return fail(d, NG_DFU_ERR_STALLEDPKT);
}

static bool dfu_control(void *ctx, ng_usbd_ctx *u, const ng_usb_setup *s, uint8_t stage,
			const uint8_t *data, uint16_t len)
{
	ng_dfu_ctx *d = ctx;
#ifdef NG_DFU_MODE_ONLY
	if (!d->be)
		return false; /* the boot loader's build: no run-time interface */
#else
	if (!d->be) /* vendor requests to the device belong to others */
		return (s->bmRequestType & NG_REQ_RCPT_MASK) == NG_REQ_RCPT_IFACE && runtime_control(d, u, s, stage);
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
	if (!on && d->manifested && (d->state == NG_DFU_IDLE || d->state == NG_DFU_MANIFEST_SYNC)) /* (DFU mode) */
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

void ng_dfu_init_mode(ng_dfu_ctx *d, const ng_dfu_backend *be, const ng_boot_info *boot)
{
	init_common(d, 0);
	d->be = be;
	d->boot = boot;
	d->state = NG_DFU_IDLE;
}

void ng_dfu_task(ng_dfu_ctx *d)
{
	if (!d->work) /* (only DFU mode has work) */
		return;
	d->work = false;
	uint8_t st;
	bool manifest = d->state == NG_DFU_MANIFEST_SYNC;
	if (manifest)
		st = BE_MANIFEST(d->be);
	else
		st = BE_DNLOAD(d->be, d->blk, d->block, d->len, d->first);
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
