/* SPDX-License-Identifier: GPL-3.0-or-later */
/* usb/dcd.h implemented on the virtual controller (host/emul/vhc.h): the
 * host counterpart of the STM32F103 USB peripheral driver. The stack's
 * packet-level ep_xfer maps onto the controller's one-packet endpoint
 * buffers; the controller's callbacks become ng_usbd_event_* (in_isr false). */
#ifndef NG_DCD_USBIP_H
#define NG_DCD_USBIP_H
#include <stdbool.h>
#include <stdint.h>
#include "dcd.h"
#include "vhc.h"

typedef struct {
	ng_vhc *hc;               /* set by the caller before ng_usbd_init */
	ng_usbd_ctx *usbd;        /* set by the init op */
	bool connected;
	uint8_t *out_buf[16];     /* armed OUT transfers: the stack's buffer */
	uint16_t out_cap[16];
	uint16_t in_len[16];      /* pending IN transfers: their length */
	bool in_pending[16];
	/* The application's main-loop work (ng_usbd_task, the sample source):
	 * returns true when it did something. */
	bool (*task)(void *user);
	/* Runs the stack's event processing (ng_neug_task / ng_usbd_task) after
	 * each event reported; task_user is passed. */
	void (*service)(void *user);
	void *task_user;
} ng_dcd_usbip;

/* The dcd.h side, for ng_usbd_init(…, &ng_dcd_usbip_ops, drv). */
extern const ng_dcd_ops ng_dcd_usbip_ops;
/* The vhc.h side: ng_usbip_config.ops = &ng_dcd_usbip_dev_ops, .user = drv. */
extern const ng_vhc_dev_ops ng_dcd_usbip_dev_ops;

#endif
