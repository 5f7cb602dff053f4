/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Vector table and reset handler for the STM32F103 (Cortex-M3).
 * ARMv7-M ARM B1.5.3: word 0 is the initial SP, word 1 the reset vector,
 * then the 14 system exceptions and the device interrupts (RM0008 table 63:
 * 43 of them on medium-density parts; IRQ 11 DMA1 channel 1, IRQ 20 USB low
 * priority). The reset handler points VTOR here and runs crt.c. */
#include <stdint.h>
#include "fw.h"
#include "stm32f103.h"
typedef void (*ng_vector_fn)(void);

extern uint32_t ng_ld_stack_top[];
void ng_reset_handler(void);
void ng_systick_isr(void);
void ng_stm32_usb_isr(void);

extern const ng_vector_fn ng_vectors[];

void ng_reset_handler(void)
{
	NG_WR(NG_SCB_VTOR, (uint32_t)(uintptr_t)ng_vectors); /* the loader did too; a debugger may not */
	ng_crt_start();
}

#define NG_IRQS 43
typedef void (*ng_vector)(void);
__attribute__((section(".isr_vector"), used))
const ng_vector ng_vectors[16 + NG_IRQS] = {
	[0] = (ng_vector)(uintptr_t)ng_ld_stack_top,
	[1] = ng_reset_handler,
	[2 ... 14] = ng_default_handler, /* NMI .. PendSV */
	[15] = ng_systick_isr,
	[16 ... 16 + 10] = ng_default_handler,
	[16 + 11] = ng_noise_isr,        /* DMA1 channel 1 */
	[16 + 12 ... 16 + 19] = ng_default_handler,
	[16 + 20] = ng_stm32_usb_isr,    /* USB_LP_CAN_RX0 */
	[16 + 21 ... 16 + NG_IRQS - 1] = ng_default_handler,
};
_Static_assert(sizeof ng_vectors == 4u * (16u + 43u), "vector table size (RM0008 table 63)");
