/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The boot loader's vector table and reset handler (ARMv7-M B1.5.3): what
 * the chip runs after every reset. Only SysTick and the USB low-priority
 * interrupt (IRQ 20, RM0008 table 63) are used; the rest stop in a loop. */
#include <stdint.h>
#include "fw.h"
#include "dcd_stm32f1.h"

extern uint32_t ng_ld_data_load[], ng_ld_data_start[], ng_ld_data_end[];
extern uint32_t ng_ld_bss_start[], ng_ld_bss_end[], ng_ld_stack_top[];
int main(void);
void ng_loader_reset(void);
void ng_loader_fault(void);
void ng_systick_isr(void);

void ng_loader_reset(void)
{
	const uint32_t *src = ng_ld_data_load;
	for (uint32_t *dst = ng_ld_data_start; dst < ng_ld_data_end;)
		*dst++ = *src++;
	for (uint32_t *dst = ng_ld_bss_start; dst < ng_ld_bss_end;)
		*dst++ = 0;
	ng_clock_init();
	main();
	for (;;)
		;
}

void ng_loader_fault(void)
{
	for (;;)
		;
}

#define NG_LOADER_IRQS 21 /* up to USB_LP_CAN_RX0 */
typedef void (*ng_vector)(void);
__attribute__((section(".isr_vector"), used))
const ng_vector ng_loader_vectors[16 + NG_LOADER_IRQS] = {
	[0] = (ng_vector)(uintptr_t)ng_ld_stack_top,
	[1] = ng_loader_reset,
	[2 ... 14] = ng_loader_fault,
	[15] = ng_systick_isr,
	[16 ... 16 + 19] = ng_loader_fault,
	[16 + 20] = ng_stm32_usb_isr,
};
