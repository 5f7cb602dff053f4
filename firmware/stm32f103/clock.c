/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Clock tree (RM0008 7.2, figure 8), SysTick and the unique device ID.
 *
 *   HSE  8 MHz x9 -+
 *   HSE 12 MHz x6 -+-> PLLCLK 72 MHz = SYSCLK = HCLK; APB1 /2 = 36 MHz (its
 *                      maximum), APB2 /1 = 72, ADC = APB2 / 6 = 12 MHz,
 *                      USB = PLLCLK / 1.5 = 48 MHz (USBPRE = 0); flash 2 WS
 *   HSE timeout:       HSI / 2 x 12 = 48 MHz = SYSCLK = HCLK; APB1 /2 = 24,
 *                      APB2 /1 = 48, ADC = APB2 / 4 = 12 MHz, USB = PLLCLK / 1
 *                      = 48 MHz (USBPRE = 1); flash 1 WS (RM0008 3.3.3)
 * The ADC clock is 12 MHz either way, so the sampling regime (noise.c) does
 * not depend on which clock runs. The HSI is +-1% at 25 C (datasheet), so
 * USB on the HSI is outside USB 2.0's +-0.25% for full speed: it often
 * works, it is reported (GET_INFO, `neug info`), and it is the only way a
 * board without a crystal or MCO (Nucleo MB1136 C-01, UM1724) runs at all.
 *
 * From any RCC state (a debugger, a core-only reset, a bootloader that
 * left the PLL on): HSI on and selected, PLL off (RM0008 7.3.2: PLLSRC,
 * PLLXTPRE and PLLMUL can be written only with the PLL off), HSE off before
 * HSEBYP is written (7.3.1), then the sequence of a cold start. */
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
#define NG_HSI_HZ 8000000u
#define NG_HSI_PLL_MUL 12u /* HSI / 2 x 12 = 48 MHz */
_Static_assert(NG_HSI_HZ / 2u * NG_HSI_PLL_MUL == 48000000u, "the HSI fallback runs USB at 48 MHz");

/* Poll count: the HSE starts in 2 ms at most (datasheet tSU(HSE)); these
 * loops run at 8 MHz on the HSI, a few cycles per pass, so 2^19 passes is
 * well above 100 ms. The PLL locks in 200 us (tLOCK). */
#define NG_RCC_TIMEOUT 0x80000u

/* Zero until ng_clock_init (the loader has no initialised data): HSI. */
static uint32_t ng_hclk, ng_clock_src;

/* Waits for (reg & mask) == want; false after NG_RCC_TIMEOUT polls. */
static bool ng_rcc_wait(uint32_t reg, uint32_t mask, uint32_t want)
{
	for (uint32_t n = 0; n < NG_RCC_TIMEOUT; n++)
		if ((NG_RD(reg) & mask) == want)
			return true;
	return false;
}

/* An oscillator or the PLL (its ON bit in RCC_CR) on or off, then its RDY
 * bit (the next one up, RM0008 7.3.1) waited for. */
static bool ng_rcc_on(uint32_t on_bit, bool on)
{
	uint32_t cr = NG_RD(NG_RCC_CR) & ~on_bit;
	NG_WR(NG_RCC_CR, on ? cr | on_bit : cr);
	return ng_rcc_wait(NG_RCC_CR, on_bit << 1, on ? on_bit << 1 : 0u);
}

/* SYSCLK switched to sw (SW bits), then SWS (the two bits above) waited for. */
static bool ng_rcc_sysclk(uint32_t sw)
{
	NG_WR(NG_RCC_CFGR, (NG_RD(NG_RCC_CFGR) & ~NG_RCC_CFGR_SW_MASK) | sw);
	return ng_rcc_wait(NG_RCC_CFGR, NG_RCC_CFGR_SWS_MASK, sw << 2);
}
_Static_assert(NG_RCC_CR_HSIRDY == NG_RCC_CR_HSION << 1 && NG_RCC_CR_HSERDY == NG_RCC_CR_HSEON << 1 &&
	       NG_RCC_CR_PLLRDY == NG_RCC_CR_PLLON << 1 && NG_RCC_CFGR_SWS_HSI == NG_RCC_CFGR_SW_HSI << 2 &&
	       NG_RCC_CFGR_SWS_PLL == NG_RCC_CFGR_SW_PLL << 2 && NG_RCC_CFGR_SWS_MASK == NG_RCC_CFGR_SW_MASK << 2,
	       "RM0008 7.3.1, 7.3.2: each RDY bit above its ON bit, SWS two bits above SW");

/* SYSCLK on the HSI, whatever ran before; then the PLL and the HSE off, so
 * that every CFGR field and HSEBYP is writable; prescalers /1. */
static void ng_clock_hsi(void)
{
	ng_rcc_on(NG_RCC_CR_HSION, true);
	ng_rcc_sysclk(NG_RCC_CFGR_SW_HSI);
	ng_rcc_on(NG_RCC_CR_PLLON, false);
	NG_WR(NG_RCC_CFGR, 0);
	ng_rcc_on(NG_RCC_CR_HSEON, false);
}

/* After ng_clock_hsi: the PLL as cfgr says (source, multiplier, the
 * target SYSCLK's prescalers), with the flash wait states of acr; SYSCLK
 * switched to it. False when it does not lock or SYSCLK does not switch
 * (ng_clock_hsi then turns it off again). */
static bool ng_pll_run(uint32_t cfgr, uint32_t acr)
{
	NG_WR(NG_FLASH_ACR, acr); /* wait states before the faster clock */
	NG_WR(NG_RCC_CFGR, cfgr | NG_RCC_CFGR_SW_HSI); /* the PLL is off: its fields are writable */
	return ng_rcc_on(NG_RCC_CR_PLLON, true) && ng_rcc_sysclk(NG_RCC_CFGR_SW_PLL);
}

uint32_t ng_clock_init(void)
{
	uint32_t src = NG_CLOCK_HSE, hz = 72000000u;
	/* 1. SYSCLK on the HSI, PLL and HSE off; HSEBYP as the board wants it. */
	ng_clock_hsi();
	NG_WR(NG_RCC_CR, (NG_RD(NG_RCC_CR) & ~NG_RCC_CR_HSEBYP) | (NG_BOARD_HSE_BYPASS ? NG_RCC_CR_HSEBYP : 0u));
	/* 2. HSE on; 72 MHz from it if it starts. */
	if (!ng_rcc_on(NG_RCC_CR_HSEON, true) ||
	    !ng_pll_run(NG_RCC_CFGR_PLLMUL(NG_PLL_MUL) | NG_RCC_CFGR_PLLSRC_HSE | NG_RCC_CFGR_ADCPRE_DIV6 |
				NG_RCC_CFGR_PPRE1_DIV2,
			NG_FLASH_ACR_PRFTBE | NG_FLASH_ACR_LATENCY2)) {
		/* 3. No HSE: back to the HSI, the HSE stopped, 48 MHz from HSI / 2. */
		ng_clock_hsi();
		src = NG_CLOCK_HSI;
		hz = 48000000u;
		if (!ng_pll_run(NG_RCC_CFGR_PLLMUL(NG_HSI_PLL_MUL) | NG_RCC_CFGR_USBPRE_DIV1 |
					NG_RCC_CFGR_ADCPRE_DIV4 | NG_RCC_CFGR_PPRE1_DIV2,
				NG_FLASH_ACR_PRFTBE | NG_FLASH_ACR_LATENCY1)) {
			ng_clock_hsi(); /* 4. 8 MHz from the HSI, no USB */
			src = NG_CLOCK_FAILED;
			hz = NG_HSI_HZ;
		}
	}
	ng_hclk = hz;
	return ng_clock_src = src;
}

uint32_t ng_clock_source(void)
{
	return ng_clock_src;
}

uint32_t ng_hclk_hz(void)
{
	return ng_hclk ? ng_hclk : NG_HSI_HZ;
}

static volatile uint32_t ng_ms;

/* The boot loader takes no interrupt (NG_SYSTICK_POLLED; loader/startup.c):
 * there ng_millis counts the SysTick wraps it sees through COUNTFLAG
 * (ARMv7-M B3.3.3: set at a wrap, cleared by the read of SYST_CSR), so a
 * wait of more than 1 ms between two calls (a page erase) loses what it
 * missed. It only paces the LED there. */
#ifdef NG_SYSTICK_POLLED
#define NG_SYST_CSR_RUN 5u /* CLKSOURCE = core, ENABLE */
#else
#define NG_SYST_CSR_RUN 7u /* CLKSOURCE = core, TICKINT, ENABLE */
void ng_systick_isr(void);
void ng_systick_isr(void)
{
	ng_ms++;
}
#endif

void ng_systick_init(void)
{
	NG_WR(NG_SYST_RVR, ng_hclk / 1000u - 1u);
	NG_WR(NG_SYST_CVR, 0);
	NG_WR(NG_SYST_CSR, NG_SYST_CSR_RUN);
}

uint32_t ng_millis(void)
{
#ifdef NG_SYSTICK_POLLED
	if (NG_RD(NG_SYST_CSR) & (1u << 16)) /* COUNTFLAG */
		ng_ms++;
#endif
	return ng_ms;
}

#ifdef NG_SYSTICK_POLLED
/* The loader: whole SysTick periods through ng_millis, us / 1000 + 1 of
 * them at least (2 us waits 1 to 2 ms); never before ng_systick_init. */
void ng_delay_us(uint32_t us)
{
	uint32_t t = ng_millis();
	while (ng_millis() - t < us / 1000u + 2u)
		;
}
#else
void ng_delay_us(uint32_t us)
{
	/* SysTick counts down from RVR to 0 at HCLK; sum the elapsed ticks. */
	uint32_t reload = NG_RD(NG_SYST_RVR) + 1u;
	uint32_t want = us * (ng_hclk / 1000000u), got = 0;
	uint32_t last = NG_RD(NG_SYST_CVR);
	while (got < want) {
		uint32_t now = NG_RD(NG_SYST_CVR);
		got += now <= last ? last - now : last + reload - now;
		last = now;
	}
}
#endif

void ng_uid_read(uint32_t uid[3])
{
	for (uint32_t i = 0; i < 3; i++)
		uid[i] = NG_RD(NG_UID_BASE + 4u * i);
}

void ng_wait_for_interrupt(void)
{
	ng_wfi();
}
