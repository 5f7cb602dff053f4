/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The clock set-up (firmware/stm32f103/clock.c) against the RCC of the
 * register model written from RM0008 (fw_model.h: an oscillator may never
 * become ready, PLL fields writable only with the PLL off, HSEBYP only with
 * the HSE off, flash wait states before a faster SYSCLK). The board is the
 * Nucleo-F103RB (HSE bypass from the ST-LINK's MCO, which the MB1136 C-01
 * does not have: UM1724). Issue 17's findings 4 (HSE timeout: 48 MHz from
 * the HSI with USB at 48 MHz, time bases from the clock that runs, the
 * source reported) and 5 (correct from any RCC state). */
#define NG_FW_HOST_MODEL 1
#define NG_BOARD_HEADER "boards/nucleo-f103rb.h"
#include "fw_model.h"
#include "../../firmware/stm32f103/clock.c"
#include "check.h"

/* SYSCLK, USB, APB1, ADC and flash as RM0008 requires them. */
static int clocks_ok(uint32_t sys)
{
	uint32_t cfgr = *fw_plain(NG_RCC_CFGR), ppre1 = (cfgr >> 8) & 7u;
	uint32_t apb1 = (ppre1 & 4u) ? fw_hclk_hz() >> ((ppre1 & 3u) + 1u) : fw_hclk_hz();
	return fw_sysclk_hz() == sys && fw_usb_hz() == 48000000u && apb1 <= 36000000u &&
	       fw_adc_hz() == 12000000u && fw_adc_hz() <= 14000000u;
}

/* The SysTick reload and a delay, measured in model time. */
static int timebase_ok(void)
{
	ng_systick_init();
	uint64_t t0 = fw_model.now_ns;
	ng_delay_us(1000);
	uint64_t dt = fw_model.now_ns - t0;
	return NG_RD(NG_SYST_RVR) == fw_hclk_hz() / 1000u - 1u && dt >= 1000000u && dt < 1100000u;
}

int main(void)
{
	/* Cold start, the MCO present (MB1136 C-02 and later). */
	fw_model_reset();
	ng_clock_init();
	CHECK(clocks_ok(72000000u) && (NG_RD(NG_RCC_CR) & NG_RCC_CR_HSEBYP) && (NG_RD(NG_FLASH_ACR) & 7u) == 2u,
	      "HSE bypass 8 MHz x9: SYSCLK 72, USB 48, APB1 36, ADC 12 MHz, 2 wait states");
	CHECK(timebase_ok(), "SysTick 1 kHz and ng_delay_us from 72 MHz");
#ifdef NG_CLOCK_HSE
	CHECK(ng_clock_source() == NG_CLOCK_HSE && ng_hclk_hz() == 72000000u, "clock source reported: HSE");
#endif
	CHECK(fw_model.errors == 0, "no model errors (%s)", fw_model.why);

	/* The HSE never becomes ready (MB1136 C-01: no MCO). */
	fw_model_reset();
	fw_model.hse_dead = true;
	ng_clock_init();
	CHECK(clocks_ok(48000000u) && (*fw_plain(NG_RCC_CFGR) & NG_RCC_CFGR_USBPRE_DIV1) &&
	      !(NG_RD(NG_RCC_CFGR) & NG_RCC_CFGR_PLLSRC_HSE) && (NG_RD(NG_FLASH_ACR) & 7u) >= 1u,
	      "no HSE: HSI / 2 x 12 = 48 MHz SYSCLK, USB 48 MHz (PLL / 1), ADC 12 MHz (got SYSCLK %u, USB %u)",
	      fw_sysclk_hz(), fw_usb_hz());
	CHECK(!(*fw_plain(NG_RCC_CR) & NG_RCC_CR_HSEON), "the dead HSE is switched off");
	CHECK(timebase_ok(), "SysTick and delays from the 48 MHz that runs");
#ifdef NG_CLOCK_HSI
	CHECK(ng_clock_source() == NG_CLOCK_HSI && ng_hclk_hz() == 48000000u, "clock source reported: HSI");
#endif
	CHECK(fw_model.errors == 0, "no model errors (%s)", fw_model.why);

	/* A debugger or a core-only reset left the PLL running SYSCLK from
	 * HSI / 2 x 16 = 64 MHz, and the HSE on without bypass. */
	fw_model_reset();
	*fw_plain(NG_FLASH_ACR) = NG_FLASH_ACR_LATENCY2;
	*fw_plain(NG_RCC_CR) = NG_RCC_CR_HSION | NG_RCC_CR_HSEON | NG_RCC_CR_PLLON;
	*fw_plain(NG_RCC_CFGR) = NG_RCC_CFGR_PLLMUL(16) | NG_RCC_CFGR_SW_PLL | NG_RCC_CFGR_SWS_PLL |
				 NG_RCC_CFGR_PPRE1_DIV2;
	fw_model.hse_on_ns = fw_model.pll_on_ns = 0;
	fw_model.now_ns = 5000000;
	CHECK(fw_sysclk_hz() == 64000000u, "model: SYSCLK 64 MHz from the PLL before init");
	ng_clock_init();
	CHECK(clocks_ok(72000000u) && (NG_RD(NG_RCC_CR) & NG_RCC_CR_HSEBYP) &&
	      (NG_RD(NG_RCC_CFGR) & NG_RCC_CFGR_PLLSRC_HSE) && ((NG_RD(NG_RCC_CFGR) >> 18) & 0xFu) == 7u,
	      "from a running PLL: 72 MHz from the HSE in bypass (SYSCLK %u)", fw_sysclk_hz());
	CHECK(fw_model.errors == 0, "no PLL field written with the PLL on, no HSEBYP with the HSE on (%s)", fw_model.why);

	/* The same state with the HSE gone: the HSI fallback, still no error. */
	fw_model_reset();
	fw_model.hse_dead = true;
	*fw_plain(NG_FLASH_ACR) = NG_FLASH_ACR_LATENCY2;
	*fw_plain(NG_RCC_CR) = NG_RCC_CR_HSION | NG_RCC_CR_PLLON;
	*fw_plain(NG_RCC_CFGR) = NG_RCC_CFGR_PLLMUL(16) | NG_RCC_CFGR_SW_PLL | NG_RCC_CFGR_SWS_PLL |
				 NG_RCC_CFGR_PPRE1_DIV2;
	fw_model.now_ns = 5000000;
	ng_clock_init();
	CHECK(clocks_ok(48000000u) && fw_model.errors == 0,
	      "from a running PLL with no HSE: the 48 MHz HSI fallback (SYSCLK %u; %s)", fw_sysclk_hz(), fw_model.why);
	return ng_check_exit();
}
