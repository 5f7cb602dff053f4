/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The STM32F103 USB device driver's entry points (dcd_stm32f1.c). */
#ifndef NG_DCD_STM32F1_H
#define NG_DCD_STM32F1_H
#include <stdbool.h>
#include <stdint.h>
#include "ng/status.h"

/* What the driver calls, from ng_stm32_usb_task (never from the ISR). */
typedef struct {
	void (*bus_reset)(void *ctx);
	void (*setup)(void *ctx, const uint8_t setup[8]);
	void (*xfer_done)(void *ctx, uint8_t ep, uint16_t len);
	void (*suspend)(void *ctx, bool suspended);
} ng_dcd_upper;

/* Packet memory the composite device's endpoints need beyond EP0: CDC
 * notification IN (up to 64), CDC bulk IN and OUT, MSC bulk IN and OUT. */
#define NG_DCD_PMA_RESERVE (64u + 4u * 64u)

void ng_stm32_usb_init(const ng_dcd_upper *up, void *ctx);
void ng_stm32_usb_connect(bool on);
void ng_stm32_usb_isr(void);
void ng_stm32_usb_task(void);
void ng_stm32_usb_set_address(uint8_t addr);
/* type: 0 control, 2 bulk, 3 interrupt (bmAttributes & 3); mps <= 64. */
ng_status ng_stm32_usb_ep_open(uint8_t ep, uint8_t type, uint16_t mps);
void ng_stm32_usb_ep_close(uint8_t ep);
/* Queues a transfer of len bytes (IN) or up to len bytes (OUT; ends at a
 * short packet). len 0 on IN sends a zero-length packet. */
ng_status ng_stm32_usb_xfer(uint8_t ep, uint8_t *buf, uint16_t len);
void ng_stm32_usb_stall(uint8_t ep, bool stall);
#endif
