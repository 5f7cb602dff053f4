/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The STM32F103 USB device driver (dcd_stm32f1.c): usb/dcd.h's ops. */
#ifndef NG_DCD_STM32F1_H
#define NG_DCD_STM32F1_H
#include "dcd.h"

extern const ng_dcd_ops ng_stm32_dcd_ops;
/* The USB_LP interrupt (IRQ 20). */
void ng_stm32_usb_isr(void);
#endif
