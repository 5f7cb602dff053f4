/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The boot loader's USB device in DFU mode (usb/dfu.h): VID:PID 234b:0001,
 * device class 0, one configuration with the DFU-mode interface 0 (alternate
 * setting 0 = the application's flash region), the strings of the
 * application's serial number (so a host finds the same board in both modes)
 * and GET_INFO 40..45 (the boot information). The firmware's loader and the
 * emulator (host/emul/emulate.c) run it over their drivers:
 *
 *     static ng_dfu_dev dev;
 *     ng_dfu_dev_init(&dev, &cfg, &my_dcd_ops, &my_dcd);
 *     ng_dfu_dev_connect(&dev, true);
 *     while (ng_dfu_dev_task(&dev) == NG_DFU_LEAVE_NONE)
 *         ;
 *     // leave: reset, check the image again, start it if it is valid
 *
 * Freestanding: no malloc, no stdio. Runs in the main loop only. */
#ifndef NG_DFU_DEVICE_H
#define NG_DFU_DEVICE_H
#include <stdbool.h>
#include <stdint.h>
#include "bootinfo.h"
#include "dcd.h"
#include "dfu.h"
#include "update.h"
#include "usbd.h"

typedef struct {
	uint32_t uid[3];            /* the unique device ID: serial number string */
	const ng_dfu_backend *be;   /* the update state machine */
	const ng_boot_info *boot;   /* GET_INFO 40..45; NULL: they STALL */
	const char *loader;         /* string 4: the loader's version, static, required */
} ng_dfu_dev_config;

/* Do not rely on the layout of this type; the caller owns it (static). */
typedef struct {
	ng_usbd_ctx usbd;
	ng_dfu_ctx dfu;
	const char *loader;
	char serial[25];
} ng_dfu_dev;

/* A DFU back end (dfu.h) over the loader's update state machine
 * (boot/update.h): be->user = up. */
void ng_dfu_backend_update(ng_dfu_backend *be, ng_update *up);

ng_status ng_dfu_dev_init(ng_dfu_dev *d, const ng_dfu_dev_config *cfg, const ng_dcd_ops *ops, void *drv);
void ng_dfu_dev_connect(ng_dfu_dev *d, bool on);
static inline ng_usbd_ctx *ng_dfu_dev_usbd(ng_dfu_dev *d) { return &d->usbd; }
/* USB events and the flash work; returns NG_DFU_LEAVE_* (see dfu.h). */
uint8_t ng_dfu_dev_task(ng_dfu_dev *d);

#endif
