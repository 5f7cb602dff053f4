/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The STM32F103 USB device driver (dcd_stm32f1.c): usb/dcd.h's ops. */
#ifndef NG_DCD_STM32F1_H
#define NG_DCD_STM32F1_H
#include "dcd.h"

/* Packet memory the composite device's endpoints need beyond EP0: CDC
 * notification IN (16, rounded up to 64 for safety), CDC bulk IN and OUT,
 * MSC bulk IN and OUT, 64 bytes each. */
#define NG_DCD_PMA_RESERVE (64u + 4u * 64u)

extern const ng_dcd_ops ng_stm32_dcd_ops;
/* The USB_LP interrupt (IRQ 20). */
void ng_stm32_usb_isr(void);
#endif
