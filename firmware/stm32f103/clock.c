/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Clock tree (RM0008 7.2, figure 8), SysTick and the unique device ID.
 *
 *   HSE 8 MHz  x9 -+
 *   HSE 12 MHz x6 -+-> PLLCLK 72 MHz = SYSCLK = HCLK (AHB /1)
 *                       APB1 /2 = 36 MHz (its maximum), APB2 /1 = 72 MHz
 *                       ADC  = APB2 / 8 = 9 MHz  (max 14 MHz; see noise.c)
 *                       USB  = PLLCLK / 1.5 = 48 MHz (USBPRE = 0)
 * Flash: 2 wait states for 48 < SYSCLK <= 72 MHz, prefetch on (3.3.3).
 * Tested: on QEMU this code is not run (no STM32 model); the sequence is
 * RM0008's: HSE on, wait HSERDY; PLL configured while off, on, wait PLLRDY;
 * wait states before the switch; SW = PLL, wait SWS. A crystal that never
 * starts leaves the device on HSI (8 MHz, USB unusable) and the LED dark. */
#include "fw.h"
#include "board.h"
#include "stm32f103.h"

#if NG_BOARD_HSE_HZ == 8000000
#define NG_PLL_MUL 9u
#elif NG_BOARD_HSE_HZ == 12000000
#define NG_PLL_MUL 6u
#else
#error "NG_BOARD_HSE_HZ must be 8 or 12 MHz"
#endif
_Static_assert(NG_BOARD_HSE_HZ / 1000000 * NG_PLL_MUL == 72, "SYSCLK must be 72 MHz (USB needs 48 = 72 / 1.5)");
#define NG_HCLK_HZ 72000000u

#define NG_HSE_TIMEOUT 0x80000u

void ng_clock_init(void)
{
	uint32_t n = 0;
	if ((NG_RD(NG_RCC_CFGR) & NG_RCC_CFGR_SWS_MASK) == NG_RCC_CFGR_SWS_PLL)
		return; /* the boot loader set the clocks already (PLLMUL is read-only while the PLL runs) */
	NG_SET(NG_RCC_CR, NG_RCC_CR_HSEON | (NG_BOARD_HSE_BYPASS ? NG_RCC_CR_HSEBYP : 0u));
	while (!(NG_RD(NG_RCC_CR) & NG_RCC_CR_HSERDY))
		if (++n == NG_HSE_TIMEOUT)
			return; /* no crystal: stay on HSI */
	NG_WR(NG_FLASH_ACR, NG_FLASH_ACR_PRFTBE | NG_FLASH_ACR_LATENCY2);
	NG_WR(NG_RCC_CFGR, NG_RCC_CFGR_PLLMUL(NG_PLL_MUL) | NG_RCC_CFGR_PLLSRC_HSE |
		       NG_RCC_CFGR_ADCPRE_DIV8 | NG_RCC_CFGR_PPRE1_DIV2);
	NG_SET(NG_RCC_CR, NG_RCC_CR_PLLON);
	while (!(NG_RD(NG_RCC_CR) & NG_RCC_CR_PLLRDY))
		;
	NG_SET(NG_RCC_CFGR, NG_RCC_CFGR_SW_PLL);
	while ((NG_RD(NG_RCC_CFGR) & NG_RCC_CFGR_SWS_MASK) != NG_RCC_CFGR_SWS_PLL)
		;
}

static volatile uint32_t ng_ms;

void ng_systick_isr(void);
void ng_systick_isr(void)
{
	ng_ms++;
}

void ng_systick_init(void)
{
	NG_WR(NG_SYST_RVR, NG_HCLK_HZ / 1000u - 1u);
	NG_WR(NG_SYST_CVR, 0);
	NG_WR(NG_SYST_CSR, 7u); /* CLKSOURCE = core, TICKINT, ENABLE */
}

uint32_t ng_millis(void)
{
	return ng_ms;
}

void ng_delay_us(uint32_t us)
{
	/* SysTick counts down from RVR at 72 MHz; sum the elapsed ticks. */
	uint32_t want = us * (NG_HCLK_HZ / 1000000u), got = 0;
	uint32_t last = NG_RD(NG_SYST_CVR);
	while (got < want) {
		uint32_t now = NG_RD(NG_SYST_CVR);
		got += now <= last ? last - now : last + NG_HCLK_HZ / 1000u - now;
		last = now;
	}
}

void ng_uid_read(uint32_t uid[3])
{
	for (uint32_t i = 0; i < 3; i++)
		uid[i] = NG_RD(NG_UID_BASE + 4u * i);
}
