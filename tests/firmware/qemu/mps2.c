/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Start-up and semihosting for the QEMU mps2-an385 test images: the same
 * sections as the STM32 firmware (firmware/stm32f103/neug.ld), a vector
 * table with SysTick, and output through ARM semihosting (BKPT 0xAB on
 * M-profile; SYS_WRITE0 = 0x04, SYS_EXIT_EXTENDED = 0x20 with
 * ADS_Stopped_ApplicationExit = 0x20026 and the exit code). */
#include <stdint.h>
#include "mps2.h"

extern uint32_t ng_ld_data_load[], ng_ld_data_start[], ng_ld_data_end[];
extern uint32_t ng_ld_bss_start[], ng_ld_bss_end[], ng_ld_stack_top[];
int main(void);
void ng_reset_handler(void);
void ng_fault_handler(void);
void ng_tick_handler(void);

static uint32_t ng_semihost(uint32_t op, const void *arg)
{
	register uint32_t r0 __asm__("r0") = op;
	register const void *r1 __asm__("r1") = arg;
	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}

void ng_sh_puts(const char *s)
{
	ng_semihost(0x04, s);
}

void ng_sh_exit(int code)
{
	uint32_t blk[2] = { 0x20026u, (uint32_t)code };
	ng_semihost(0x20, blk);
	for (;;)
		;
}

static char *ng_fmt_u(char *p, uint32_t v)
{
	char tmp[11];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10u);
	while ((v /= 10u) != 0);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* A tiny formatter: %s, %u (uint32_t), %x (uint32_t, 8 digits). */
void ng_sh_printf(const char *fmt, ...)
{
	char buf[160], *p = buf, *end = buf + sizeof buf - 12;
	__builtin_va_list ap;
	__builtin_va_start(ap, fmt);
	for (; *fmt && p < end; fmt++) {
		if (*fmt != '%') {
			*p++ = *fmt;
			continue;
		}
		fmt++;
		if (*fmt == 's') {
			for (const char *s = __builtin_va_arg(ap, const char *); *s && p < end; s++)
				*p++ = *s;
		} else if (*fmt == 'u') {
			p = ng_fmt_u(p, __builtin_va_arg(ap, uint32_t));
		} else if (*fmt == 'x') {
			uint32_t v = __builtin_va_arg(ap, uint32_t);
			for (int i = 28; i >= 0; i -= 4)
				*p++ = "0123456789abcdef"[(v >> i) & 15u];
		} else {
			*p++ = *fmt;
		}
	}
	__builtin_va_end(ap);
	*p = 0;
	ng_sh_puts(buf);
}

static int ng_failed;

void ng_sh_check(int ok, const char *name)
{
	ng_sh_printf("%s: %s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		ng_failed++;
}

int ng_sh_failed(void)
{
	return ng_failed;
}

/* SysTick (ARMv7-M B3.3) at the mps2's 25 MHz CPU clock, 24 bits: the
 * interrupt counts wraps so that ng_ticks() is a 64-bit count. Under
 * `qemu -icount shift=0` one instruction is one nanosecond of virtual
 * time, so ticks measure instructions (calibrated by the bench). */
static volatile uint32_t ng_wraps;

void ng_tick_handler(void)
{
	ng_wraps++;
}

void ng_ticks_start(void)
{
	*(volatile uint32_t *)0xE000E014u = 0x00FFFFFFu; /* RVR */
	*(volatile uint32_t *)0xE000E018u = 0;           /* CVR */
	*(volatile uint32_t *)0xE000E010u = 7u;          /* core clock, TICKINT, ENABLE */
	while (*(volatile uint32_t *)0xE000E018u == 0)   /* until RVR is loaded */
		;
	ng_wraps = 0;
}

uint64_t ng_ticks(void)
{
	uint32_t w, v;
	do {
		w = ng_wraps;
		v = *(volatile uint32_t *)0xE000E018u;
	} while (w != ng_wraps);
	return (uint64_t)w * 0x1000000u + (0x00FFFFFFu - v);
}

void ng_reset_handler(void)
{
	const uint32_t *src = ng_ld_data_load;
	for (uint32_t *dst = ng_ld_data_start; dst < ng_ld_data_end;)
		*dst++ = *src++;
	for (uint32_t *dst = ng_ld_bss_start; dst < ng_ld_bss_end;)
		*dst++ = 0;
	ng_sh_exit(main());
}

void ng_fault_handler(void)
{
	ng_sh_puts("FAIL: fault exception (HardFault/MemManage/BusFault/UsageFault)\n");
	ng_sh_exit(3);
}

typedef void (*ng_vector)(void);
__attribute__((section(".isr_vector"), used))
const ng_vector ng_vectors[16 + 32] = {
	[0] = (ng_vector)(uintptr_t)ng_ld_stack_top,
	[1] = ng_reset_handler,
	[2 ... 14] = ng_fault_handler,
	[15] = ng_tick_handler,
	[16 ... 47] = ng_fault_handler,
};
