/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The boot loader's vector table (ARMv7-M B1.5.3), in flash: the stack,
 * the reset vector (crt.c, then loader/main.c), NMI and HardFault, nothing
 * more. The loader enables no exception: its USB is polled
 * (NG_USB_POLLED) and so is SysTick (NG_SYSTICK_POLLED), and MemManage,
 * BusFault and UsageFault are off at reset (SHCSR), so they escalate to
 * HardFault: no other entry is ever read. */
#include <stdint.h>
#include "fw.h"
#include "stm32f103.h"

extern uint32_t ng_ld_stack_top[];

typedef void (*ng_vector)(void);
__attribute__((section(".isr_vector"), used))
const ng_vector ng_loader_vectors[4] = {
	(ng_vector)(uintptr_t)ng_ld_stack_top,
	ng_crt_start,
	ng_default_handler, /* NMI */
	ng_default_handler, /* HardFault */
};
