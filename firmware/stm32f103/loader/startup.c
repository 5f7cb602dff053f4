/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The boot loader's vector tables (ARMv7-M B1.5.3). What the chip runs
 * after every reset (crt.c, then loader/main.c) is in flash: the stack,
 * the reset vector, NMI and HardFault, nothing more. Until DFU mode no
 * exception is enabled, and MemManage, BusFault and UsageFault are off at
 * reset (SHCSR), so they escalate to HardFault: no other entry is ever
 * read. DFU mode adds SysTick, its one interrupt (its USB is polled,
 * NG_USB_POLLED), and points VTOR at a table in RAM with it and the two
 * faults; the other entries stay zero, since nothing enables them. */
#include <stdint.h>
#include "fw.h"
#include "stm32f103.h"

extern uint32_t ng_ld_stack_top[];
void ng_systick_isr(void);

typedef void (*ng_vector)(void);
__attribute__((section(".isr_vector"), used))
const ng_vector ng_loader_vectors[4] = {
	(ng_vector)(uintptr_t)ng_ld_stack_top,
	ng_crt_start,
	ng_default_handler, /* NMI */
	ng_default_handler, /* HardFault */
};

/* Up to SysTick; 512-byte aligned, as PM0056 4.4.4 wants VTOR (TBLOFF is
 * bits 29:9). */
static ng_vector ng_loader_ram_vectors[16] __attribute__((aligned(512)));

void ng_loader_vectors_ram(void)
{
	ng_loader_ram_vectors[2] = ng_default_handler;
	ng_loader_ram_vectors[3] = ng_default_handler;
	ng_loader_ram_vectors[15] = ng_systick_isr;
	NG_WR(NG_SCB_VTOR, (uint32_t)(uintptr_t)ng_loader_ram_vectors);
}
