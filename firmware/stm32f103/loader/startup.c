/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The boot loader's vector table (ARMv7-M B1.5.3): what the chip runs
 * after every reset (crt.c, then loader/main.c). Only SysTick and the USB low-priority
 * interrupt (IRQ 20, RM0008 table 63) are used; the rest stop in a loop. */
#include <stdint.h>
#include "fw.h"
#include "dcd_stm32f1.h"

extern uint32_t ng_ld_stack_top[];
void ng_systick_isr(void);

#define NG_LOADER_IRQS 21 /* up to USB_LP_CAN_RX0 */
typedef void (*ng_vector)(void);
__attribute__((section(".isr_vector"), used))
const ng_vector ng_loader_vectors[16 + NG_LOADER_IRQS] = {
	[0] = (ng_vector)(uintptr_t)ng_ld_stack_top,
	[1] = ng_crt_start,
	[2 ... 14] = ng_default_handler,
	[15] = ng_systick_isr,
	[16 ... 16 + 19] = ng_default_handler,
	[16 + 20] = ng_stm32_usb_isr,
};
