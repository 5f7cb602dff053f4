/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What runs before main, in the application and in the boot loader alike:
 * .data copied from flash, .bss zeroed, the clocks set (fw.h), then main.
 * Nothing runs before the copy. */
#include <stdint.h>
#include <string.h>
#include "fw.h"

extern uint32_t ng_ld_data_load[], ng_ld_data_start[], ng_ld_data_end[];
extern uint32_t ng_ld_bss_start[], ng_ld_bss_end[];
int main(void);

void ng_crt_start(void)
{
#ifndef NG_CRT_NO_DATA /* the boot loader has none (loader.ld checks) */
	const uint32_t *src = ng_ld_data_load;
	for (uint32_t *dst = ng_ld_data_start; dst < ng_ld_data_end;)
		*dst++ = *src++;
#endif
	memset(ng_ld_bss_start, 0, (size_t)((char *)ng_ld_bss_end - (char *)ng_ld_bss_start));
	ng_clock_init();
	main();
	for (;;)
		;
}

/* An unexpected exception: stop here (a debugger shows which one in IPSR).
 * The watchdog is not used, so the LED pattern stops changing. */
void ng_default_handler(void)
{
	for (;;)
		;
}
