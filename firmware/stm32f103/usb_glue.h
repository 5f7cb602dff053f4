/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Between main.c and the USB stack: the composite device on this board. */
#ifndef NG_USB_GLUE_H
#define NG_USB_GLUE_H
#include <stdbool.h>
#include <stdint.h>
#include "ng/pipeline.h"

void ng_fw_usb_init(void);
void ng_fw_usb_task(void);
/* Queues released blocks on the data endpoint; true when one was queued
 * (*sent counts blocks). */
bool ng_fw_usb_send(ng_pipeline *p, uint32_t *sent);
/* NG_LED_NO_HOST, NG_LED_IDLE or NG_LED_RUNNING. */
uint32_t ng_fw_usb_state(void);
/* From main.c, for the vendor request GET_INFO. */
ng_pipeline *ng_fw_pipeline(void);
uint32_t ng_fw_selftest_status(void);
#endif
