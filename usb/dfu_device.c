/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The boot loader's DFU-mode device (dfu_device.h). */
#include <stddef.h>
#include "dfu_device.h"
#include "neug_device.h"

/* USB 2.0 §9.6.1; class 0: the interface says what it is (DFU 1.1 §4.2.1). */
static const uint8_t dfu_device_desc[18] = {
	18, 1, 0x00, 0x02, 0x00, 0x00, 0x00, NG_EP0_SIZE,
	(uint8_t)NG_NEUG_VID, (uint8_t)(NG_NEUG_VID >> 8),
	(uint8_t)NG_NEUG_PID, (uint8_t)(NG_NEUG_PID >> 8),
	(uint8_t)NG_NEUG_BCD_DEVICE, (uint8_t)(NG_NEUG_BCD_DEVICE >> 8),
	NG_NEUG_STR_MANUFACTURER, NG_NEUG_STR_PRODUCT, NG_NEUG_STR_SERIAL, 1,
};

#define DFU_CFG_LEN (9 + 9 + NG_DFU_FUNC_LEN)
static const uint8_t dfu_config_desc[DFU_CFG_LEN] = {
	9, 2, DFU_CFG_LEN, 0, 1, 1, 0, 0x80, 50,
	/* DFU 1.1 §4.2.3: interface 0, alternate setting 0, no endpoints */
	9, 4, 0, 0, 0, NG_DFU_CLASS, NG_DFU_SUBCLASS, NG_DFU_PROTO_DFU, NG_DFU_STR_ALT0,
	NG_DFU_FUNC_LEN, NG_DFU_DESC_FUNCTIONAL, NG_DFU_ATTRIBUTES,
	(uint8_t)NG_DFU_DETACH_TIMEOUT, (uint8_t)(NG_DFU_DETACH_TIMEOUT >> 8),
	(uint8_t)NG_DFU_TRANSFER_SIZE, (uint8_t)(NG_DFU_TRANSFER_SIZE >> 8),
	(uint8_t)NG_DFU_VERSION, (uint8_t)(NG_DFU_VERSION >> 8),
};

static const char *dfu_string(const ng_usbd_ctx *u, uint8_t index)
{
	const ng_dfu_dev *d = (const ng_dfu_dev *)(const void *)u; /* its first member */
	switch (index) {
	case NG_NEUG_STR_MANUFACTURER: return "Free Software Initiative of Japan";
	case NG_NEUG_STR_PRODUCT: return "NeuG boot loader (DFU)";
	case NG_NEUG_STR_SERIAL: return d->serial;
	case NG_DFU_STR_LOADER: return d->loader;
	case NG_DFU_STR_ALT0: return "NeuG application";
	default: return NULL;
	}
}

static const ng_usbd_desc dfu_desc = { dfu_device_desc, dfu_config_desc, dfu_string };
_Static_assert(offsetof(ng_dfu_dev, usbd) == 0, "the stack's context is the device's first member");

#ifndef NG_DFU_BACKEND_UPDATE
static uint8_t be_dnload(void *u, uint16_t blk, const uint8_t *data, uint16_t len, bool first)
{
	return ng_update_block(u, blk, data, len, first);
}
static uint8_t be_manifest(void *u) { return ng_update_manifest(u); }
static void be_abort(void *u) { ng_update_abort(u); }
static bool be_answer(void *u, const uint8_t *nonce, uint16_t len, uint8_t out[32])
{
	return ng_update_answer(u, nonce, len, out);
}
#endif

void ng_dfu_backend_update(ng_dfu_backend *be, ng_update *up)
{
	/* (every member is set: no memset) */
#ifdef NG_DFU_BACKEND_UPDATE
	be->dnload = NULL; /* dfu.c calls boot/update.h itself */
	be->manifest = NULL;
	be->abort = NULL;
	be->answer = NULL;
#else
	be->dnload = be_dnload;
	be->manifest = be_manifest;
	be->abort = be_abort;
	be->answer = be_answer;
#endif
	be->user = up;
}

ng_status ng_dfu_dev_init(ng_dfu_dev *d, const ng_dfu_dev_config *cfg, const ng_dcd_ops *ops, void *drv)
{
	if (!d || !cfg || !cfg->be || !ops)
		return NG_ERR_ARG;
	/* (every member is set below: no memset) */
	d->loader = cfg->loader;
	ng_usbd_serial(d->serial, cfg->uid);
	ng_dfu_init_mode(&d->dfu, cfg->be, cfg->boot);
	const ng_usbd_class *cl[1] = {&d->dfu.cls};
	return ng_usbd_init(&d->usbd, ops, drv, &dfu_desc, cl, 1);
}

void ng_dfu_dev_connect(ng_dfu_dev *d, bool on) { ng_usbd_connect(&d->usbd, on); }

uint8_t ng_dfu_dev_task(ng_dfu_dev *d)
{
	/* (a GETSTATUS does a block's work first, when it comes before this) */
	ng_usbd_task(&d->usbd);
	ng_dfu_task(&d->dfu);
	return ng_dfu_take_leave(&d->dfu, &d->usbd);
}
