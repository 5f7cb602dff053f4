/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A register-level model of the STM32F103 peripherals the firmware drivers
 * touch, written from RM0008 (Rev 21) rather than from the drivers, for host
 * unit tests that #include the driver .c files with NG_FW_HOST_MODEL.
 *
 * Model time: fw_model.now_ns. Every register access the firmware makes
 * costs two cycles of the clock that actually runs (the model works it out
 * from RCC), so busy-wait loops take time; tests add time with
 * fw_model_advance(). Events due by then happen in order: oscillators become
 * ready, ADC conversions end, DMA transfers, and the interrupts whose handler
 * the test registered (fw_model.dma_isr, usb_isr, systick_isr) run at that
 * point, as a Cortex-M3 would take them between two instructions, unless
 * PRIMASK is set (ng_irq_disable), in which case they run at ng_irq_enable.
 *
 *   RCC (7.3)  HSI ready at once; HSE ready 1 ms after HSEON unless
 *              fw_model.hse_dead (a crystal or MCO that never starts); PLL
 *              locks 200 us after PLLON if its source is ready, never
 *              otherwise. PLLSRC, PLLXTPRE and PLLMUL are writable only with
 *              the PLL off, HSEBYP only with the HSE off (a write that
 *              changes them otherwise is a model error and is ignored); PLLON
 *              and HSEON cannot be cleared while they feed SYSCLK; SWS
 *              follows SW only when the selected clock is ready; SYSCLK above
 *              24 / 48 MHz needs 1 / 2 flash wait states (3.3.3).
 *   ADC (11)   CR2 ADON: 0 -> 1 powers up; writing 1 while it is 1 starts a
 *              conversion, but not when any other CR2 bit changes in the
 *              same write (11.12.3) - such a start outside a started group
 *              is counted in fw_model.adc_stray. CR2 = 0 powers down.
 *              SWSTART with EXTTRIG and EXTSEL = 111 on ADC1 starts the
 *              regular group of both (dual mode). Conversion time 12.5 +
 *              sample time cycles of the ADC clock (RCC ADCPRE of PCLK2);
 *              fast interleaved (DUALMOD 0111): ADC1 starts 7 cycles after
 *              ADC2, a 32-bit word each 14 cycles at 1.5-cycle sampling;
 *              regular simultaneous (0110): a word per conversion time. The
 *              first word of a group comes tSTAB (1 us) after power-up. A
 *              word the DMA cannot take (channel off, or CNDTR = 0) is
 *              overwritten by the next one: fw_model.adc_lost. CAL and RSTCAL
 *              complete at once.
 *   DMA1 ch1   transfers ADC1_DR words to CMAR (which must be the test's
 *              fw_model.dma_mem region), CNDTR counts down; HTIF/TCIF/GIF;
 *              non-circular: no transfer after CNDTR = 0; circular reloads.
 *   USB_EPnR   CTR_RX/CTR_TX rc_w0, DTOG/STAT toggle-on-write-1, SETUP
 *              read-only, EP_TYPE/EP_KIND/EA read-write (23.5.2)
 *   USB_ISTR   bits 14:8 rc_w0; CTR, DIR, EP_ID computed from the EPnR. With
 *              the bus idle (fw_model.bus_idle, the host suspended it) SUSP
 *              is set again as long as CNTR.FSUSP = 0 (23.4.5: the
 *              peripheral keeps detecting the idle bus until the software
 *              has forced suspend). Resume signalling sets WKUP and clears
 *              LPMODE (fw_host_resume).
 *   USB_DADDR  after the status stage of SET_ADDRESS (control() below), the
 *              device must answer at the new address within 2 ms of model
 *              time (USB 2.0 9.2.6.3): checked at the host's next token.
 *   PMA        256 halfwords at 0x40006000 + 4 * i; 32-bit CPU access is a
 *              model error (RM0008 23.5: byte or half-word only)
 *   USB hardware side: a SETUP is accepted whatever STAT_RX says, unless
 *              CTR_RX is still set (then no handshake); it sets both STATs to
 *              NAK and leaves DTOG_TX = 1, DTOG_RX = 1 (cleared at the SETUP
 *              PID, toggled by its DATA0: RM0008 23.4.2, 23.5.2); IN/OUT only
 *              when STAT is VALID, then STAT -> NAK, DTOG flips, CTR set
 *   GPIO       BSRR/BRR update ODR (9.2.5)
 *   CRC        DR write shifts a word in MSB first (poly 0x04C11DB7), CR
 *              RESET loads 0xFFFFFFFF
 *   SysTick    CVR counts down at HCLK from RVR (free-running from now_ns)
 * Everything else is plain memory. Model errors are counted in
 * fw_model.errors with the first message in fw_model.why. */
#ifndef NG_FW_MODEL_H
#define NG_FW_MODEL_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "../../firmware/stm32f103/stm32f103.h"
#include "../../firmware/stm32f103/usb_fs.h"
#include "../../firmware/stm32f103/fw.h"
#ifdef NG_BOARD_HEADER
#include "../../firmware/stm32f103/board.h"
#endif

#define FW_FN static __attribute__((unused))

#define FW_MODEL_REGS 256
#define FW_HSI_HZ 8000000u
#define FW_TSTAB_NS 1000u     /* ADC power-up time (datasheet tSTAB, 1 us max) */
#define FW_HSE_START_NS 1000000u
#define FW_PLL_LOCK_NS 200000u
#define FW_DADDR_NS 2000000u  /* USB 2.0 9.2.6.3: SET_ADDRESS recovery interval */

typedef void (*fw_isr_fn)(void);

static struct {
	uint32_t addr[FW_MODEL_REGS], val[FW_MODEL_REGS];
	uint32_t nregs;
	uint16_t epr[NG_USB_NEP];
	uint16_t istr;
	/* the packet memory at the board's stride (RM0008 23.5: each halfword
	 * at a 32-bit address, the upper half unused): USB offset u at pma[u & ~1] */
	uint16_t pma[NG_PMA_BYTES];
	bool irq_enabled, in_isr;
	uint32_t errors;
	char why[200];
	uint64_t now_ns;
	/* RCC */
	uint32_t hse_hz;        /* the board's crystal or MCO (0: the board header's) */
	bool hse_dead;          /* the HSE never becomes ready */
	uint64_t hse_on_ns, pll_on_ns;
	/* ADC/DMA */
	const uint32_t *samples;
	size_t nsamples, next_sample;
	bool samples_wrap;      /* start the samples again at their end (else 0 words) */
	uint32_t *dma_mem;      /* the buffer region CMAR must point into (set by the test) */
	size_t dma_mem_words;   /* its size in words */
	bool adc_running;       /* the regular group is converting */
	uint64_t adc_next_ns;   /* the next ADC1 end of conversion */
	uint32_t adc_group_left;/* words left in a non-continuous group */
	uint64_t adc_power_ns[2]; /* when ADON went 0 -> 1 */
	uint32_t adc_stray, adc_lost, adc_words, adc_powerups;
	/* interrupts the test wires to the firmware's handlers */
	fw_isr_fn dma_isr, usb_isr, systick_isr;
	uint64_t systick_next_ns;
	/* an interrupt injected right after the firmware reads one address
	 * (the ISR/main-loop race tests): runs inject() then, or when PRIMASK
	 * is cleared if it is set */
	uint32_t inject_addr;
	void (*inject)(void);
	bool inject_pending;
	/* USB */
	uint32_t crc;
	uint8_t host_addr;      /* the address the host talks to */
	bool bus_idle;          /* the host has suspended the bus */
	uint64_t daddr_deadline_ns; /* 0: none */
	uint8_t daddr_want;
	uint32_t gpioa_crh_at_usben, gpioa_odr_at_usben; /* PA8-15 when USBEN was set */
	uint32_t wfi;           /* WFI instructions executed */
} fw_model;

FW_FN void fw_model_error(const char *msg, uint32_t addr)
{
	if (!fw_model.errors++)
		snprintf(fw_model.why, sizeof fw_model.why, "%s at 0x%08x", msg, addr);
}

FW_FN uint32_t *fw_plain(uint32_t addr)
{
	for (uint32_t i = 0; i < fw_model.nregs; i++)
		if (fw_model.addr[i] == addr)
			return &fw_model.val[i];
	if (fw_model.nregs == FW_MODEL_REGS) {
		fw_model_error("model register table full", addr);
		return &fw_model.val[0];
	}
	fw_model.addr[fw_model.nregs] = addr;
	fw_model.val[fw_model.nregs] = 0;
	return &fw_model.val[fw_model.nregs++];
}

FW_FN void fw_model_reset(void)
{
	memset(&fw_model, 0, sizeof fw_model);
	fw_model.irq_enabled = true;
	fw_model.crc = 0xFFFFFFFFu;
	*fw_plain(NG_RCC_CR) = NG_RCC_CR_HSION | 0x80u; /* reset value 0x000XXX83 (HSIRDY computed) */
	*fw_plain(NG_GPIO_CRL(NG_GPIOA)) = *fw_plain(NG_GPIO_CRH(NG_GPIOA)) = 0x44444444u; /* floating inputs */
	*fw_plain(NG_GPIO_CRL(NG_GPIOB)) = *fw_plain(NG_GPIO_CRH(NG_GPIOB)) = 0x44444444u;
	*fw_plain(NG_GPIO_CRL(NG_GPIOC)) = *fw_plain(NG_GPIO_CRH(NG_GPIOC)) = 0x44444444u;
}

/* ---- clocks, from the RCC state ------------------------------------------ */

FW_FN bool fw_hse_ready(void)
{
	return (*fw_plain(NG_RCC_CR) & NG_RCC_CR_HSEON) && !fw_model.hse_dead &&
	       fw_model.now_ns - fw_model.hse_on_ns >= FW_HSE_START_NS;
}

FW_FN uint32_t fw_hse_hz(void)
{
#ifdef NG_BOARD_HSE_HZ
	return fw_model.hse_hz ? fw_model.hse_hz : NG_BOARD_HSE_HZ;
#else
	return fw_model.hse_hz ? fw_model.hse_hz : 8000000u;
#endif
}

FW_FN bool fw_pll_ready(void)
{
	uint32_t cfgr = *fw_plain(NG_RCC_CFGR);
	bool src = (cfgr & NG_RCC_CFGR_PLLSRC_HSE) ? fw_hse_ready() : true;
	return (*fw_plain(NG_RCC_CR) & NG_RCC_CR_PLLON) && src &&
	       fw_model.now_ns - fw_model.pll_on_ns >= FW_PLL_LOCK_NS;
}

FW_FN uint32_t fw_pll_hz(void)
{
	uint32_t cfgr = *fw_plain(NG_RCC_CFGR);
	uint32_t mul = ((cfgr >> 18) & 0xFu) + 2u;
	if (mul > 16u)
		mul = 16u;
	uint32_t in = (cfgr & NG_RCC_CFGR_PLLSRC_HSE) ? fw_hse_hz() / ((cfgr & (1u << 17)) ? 2u : 1u)
						       : FW_HSI_HZ / 2u;
	return in * mul;
}

/* The clock SYSCLK runs from now (the SWS field). */
FW_FN uint32_t fw_sws(void)
{
	return (*fw_plain(NG_RCC_CFGR) >> 2) & 3u;
}

FW_FN uint32_t fw_sysclk_hz(void)
{
	uint32_t sws = fw_sws();
	return sws == 1u ? fw_hse_hz() : sws == 2u ? fw_pll_hz() : FW_HSI_HZ;
}

FW_FN uint32_t fw_hclk_hz(void)
{
	uint32_t hpre = (*fw_plain(NG_RCC_CFGR) >> 4) & 0xFu;
	static const uint16_t div[8] = { 2, 4, 8, 16, 64, 128, 256, 512 };
	return (hpre & 8u) ? fw_sysclk_hz() / div[hpre & 7u] : fw_sysclk_hz();
}

FW_FN uint32_t fw_pclk2_hz(void)
{
	uint32_t p = (*fw_plain(NG_RCC_CFGR) >> 11) & 7u;
	return (p & 4u) ? fw_hclk_hz() >> ((p & 3u) + 1u) : fw_hclk_hz();
}

FW_FN uint32_t fw_adc_hz(void)
{
	return fw_pclk2_hz() / (2u * (((*fw_plain(NG_RCC_CFGR) >> 14) & 3u) + 1u));
}

/* The USB clock: PLL / 1.5 or PLL / 1 (USBPRE); 48 MHz or USB does not work. */
FW_FN uint32_t fw_usb_hz(void)
{
	uint32_t f = fw_pll_ready() ? fw_pll_hz() : 0u;
	return (*fw_plain(NG_RCC_CFGR) & NG_RCC_CFGR_USBPRE_DIV1) ? f : f * 2u / 3u;
}

/* ---- time and interrupts --------------------------------------------------- */

FW_FN void fw_run_isr(fw_isr_fn f)
{
	bool was = fw_model.in_isr;
	fw_model.in_isr = true;
	f();
	fw_model.in_isr = was;
}

static bool fw_dma_irq_pending(void);
FW_FN bool fw_usb_irq_pending(void);
static void fw_adc_eoc(void);

/* Interrupts that are due and may be taken now. */
FW_FN void fw_take_interrupts(void)
{
	if (fw_model.in_isr || !fw_model.irq_enabled)
		return;
	for (int guard = 0; guard < 64; guard++) {
		if (fw_model.inject_pending) {
			fw_model.inject_pending = false;
			fw_run_isr(fw_model.inject);
		} else if (fw_model.dma_isr && fw_dma_irq_pending()) {
			fw_run_isr(fw_model.dma_isr);
		} else if (fw_model.usb_isr && fw_usb_irq_pending()) {
			fw_run_isr(fw_model.usb_isr);
		} else {
			return;
		}
	}
}

/* Runs the model's events up to model time t. */
FW_FN void fw_run_until(uint64_t t)
{
	for (;;) {
		uint64_t next = t;
		if (fw_model.adc_running && fw_model.adc_next_ns <= next)
			next = fw_model.adc_next_ns;
		if (fw_model.systick_isr && fw_model.systick_next_ns && fw_model.systick_next_ns <= next)
			next = fw_model.systick_next_ns;
		fw_model.now_ns = next;
		if (fw_model.adc_running && fw_model.adc_next_ns == next) {
			fw_adc_eoc();
			fw_take_interrupts();
			continue;
		}
		if (fw_model.systick_isr && fw_model.systick_next_ns && fw_model.systick_next_ns == next) {
			uint32_t rvr = *fw_plain(NG_SYST_RVR);
			fw_model.systick_next_ns += (uint64_t)(rvr + 1u) * 1000000000u / fw_hclk_hz();
			if (!fw_model.in_isr && fw_model.irq_enabled)
				fw_run_isr(fw_model.systick_isr);
			continue;
		}
		if (next == t)
			return;
	}
}

FW_FN void fw_model_advance(uint64_t ns)
{
	fw_run_until(fw_model.now_ns + ns);
	fw_take_interrupts();
}

/* One register access by the CPU: two cycles of HCLK; interrupts due are
 * taken before it (between two instructions). */
FW_FN void fw_tick(void)
{
	fw_run_until(fw_model.now_ns + 2000000000ull / fw_hclk_hz());
	fw_take_interrupts();
}

FW_FN bool fw_is_epr(uint32_t a) { return a >= NG_USB && a < NG_USB + 4u * NG_USB_NEP; }
FW_FN bool fw_is_pma(uint32_t a) { return a >= NG_USB_PMA && a < NG_USB_PMA + 2u * NG_PMA_BYTES; }

FW_FN uint16_t fw_istr_now(void)
{
	uint16_t v = fw_model.istr & 0x7F00u;
	for (uint32_t n = 0; n < NG_USB_NEP; n++) {
		uint16_t r = fw_model.epr[n];
		if (r & (NG_EPR_CTR_RX | NG_EPR_CTR_TX)) {
			v |= (uint16_t)(NG_ISTR_CTR | n | ((r & NG_EPR_CTR_RX) ? NG_ISTR_DIR : 0));
			break;
		}
	}
	return v;
}

FW_FN uint32_t fw_crc_word(uint32_t crc, uint32_t w)
{
	crc ^= w;
	for (int i = 0; i < 32; i++)
		crc = (crc & 0x80000000u) ? (crc << 1) ^ 0x04C11DB7u : crc << 1;
	return crc;
}

/* ---- ADC and DMA ------------------------------------------------------------ */

FW_FN uint32_t fw_adc_sample_cycles2(uint32_t adc)
{
	/* twice the longest sample time of the group's channels, in ADC cycles */
	static const uint16_t smp2[8] = { 3, 15, 27, 57, 83, 111, 143, 479 };
	uint32_t len = ((*fw_plain(NG_ADC_SQR1(adc)) >> 20) & 0xFu) + 1u, worst = 0;
	for (uint32_t i = 0; i < len && i < 6; i++) {
		uint32_t ch = (*fw_plain(NG_ADC_SQR3(adc)) >> (5u * i)) & 0x1Fu;
		uint32_t reg = ch < 10 ? *fw_plain(NG_ADC_SMPR2(adc)) : *fw_plain(NG_ADC_SMPR1(adc));
		uint32_t s = smp2[(reg >> ((ch < 10 ? ch : ch - 10u) * 3u)) & 7u];
		if (s > worst)
			worst = s;
	}
	return worst;
}

/* ns per 32-bit word and to the first word after a start. */
FW_FN uint64_t fw_adc_word_ns(void)
{
	uint64_t cyc2 = fw_adc_sample_cycles2(NG_ADC1) + 25u; /* (sample + 12.5) * 2 */
	return cyc2 * 1000000000ull / (2ull * fw_adc_hz());
}

FW_FN bool fw_fast_interleaved(void)
{
	return ((*fw_plain(NG_ADC_CR1(NG_ADC1)) >> 16) & 0xFu) == 7u;
}

FW_FN void fw_adc_start(void)
{
	uint32_t cr2 = *fw_plain(NG_ADC_CR2(NG_ADC1));
	uint64_t t = fw_model.now_ns;
	uint64_t ready = fw_model.adc_power_ns[0] + FW_TSTAB_NS;
	if (t < ready)
		t = ready; /* the converter works only once stable */
	uint64_t first = fw_adc_word_ns();
	if (fw_fast_interleaved())
		first += 7ull * 1000000000ull / fw_adc_hz(); /* ADC1 starts 7 cycles after ADC2 */
	fw_model.adc_running = true;
	fw_model.adc_next_ns = t + first;
	fw_model.adc_group_left = (cr2 & NG_ADC_CR2_CONT) ? 0u
				  : ((*fw_plain(NG_ADC_SQR1(NG_ADC1)) >> 20) & 0xFu) + 1u;
}

/* ADC1 end of conversion: the word goes to ADC1_DR and, through a DMA
 * request, to memory. */
static void fw_adc_eoc(void)
{
	if (fw_model.samples_wrap && fw_model.next_sample >= fw_model.nsamples)
		fw_model.next_sample = 0;
	uint32_t word = fw_model.next_sample < fw_model.nsamples ? fw_model.samples[fw_model.next_sample] : 0u;
	if (fw_model.next_sample < fw_model.nsamples)
		fw_model.next_sample++;
	fw_model.adc_words++;
	*fw_plain(NG_ADC_DR(NG_ADC1)) = word;
	uint32_t cr2 = *fw_plain(NG_ADC_CR2(NG_ADC1));
	uint32_t ccr = *fw_plain(NG_DMA_CCR1);
	uint32_t *cndtr = fw_plain(NG_DMA_CNDTR1);
	if ((cr2 & NG_ADC_CR2_DMA) && (ccr & NG_DMA_CCR_EN) && *cndtr) {
		uint32_t cmar = *fw_plain(NG_DMA_CMAR1), base = (uint32_t)(uintptr_t)fw_model.dma_mem;
		size_t words = fw_model.dma_mem_words;
		uint32_t total = *fw_plain(NG_DMA_CNDTR1 + 0x100u); /* the programmed count (below) */
		uint32_t pos = total - *cndtr;
		uint32_t at = cmar - base + ((ccr & NG_DMA_CCR_MINC) ? 4u * pos : 0u);
		if (!fw_model.dma_mem || cmar < base || at / 4u >= words || *fw_plain(NG_DMA_CPAR1) != NG_ADC_DR(NG_ADC1)) {
			fw_model_error("DMA channel 1 not pointed at ADC1_DR -> the buffer", cmar);
		} else {
			fw_model.dma_mem[at / 4u] = word;
		}
		uint32_t *isr = fw_plain(NG_DMA_ISR);
		(*cndtr)--;
		if (*cndtr == total / 2u)
			*isr |= NG_DMA_HTIF1 | NG_DMA_GIF1;
		if (*cndtr == 0) {
			*isr |= NG_DMA_TCIF1 | NG_DMA_GIF1;
			if (ccr & NG_DMA_CCR_CIRC)
				*cndtr = total;
		}
	} else if (cr2 & NG_ADC_CR2_DMA) {
		fw_model.adc_lost++; /* nothing takes it: the next conversion overwrites it */
	}
	if (fw_model.adc_group_left && --fw_model.adc_group_left == 0) {
		fw_model.adc_running = false;
		return;
	}
	fw_model.adc_next_ns += fw_adc_word_ns();
}

static bool fw_dma_irq_pending(void)
{
	uint32_t isr = *fw_plain(NG_DMA_ISR), ccr = *fw_plain(NG_DMA_CCR1);
	return ((isr & NG_DMA_HTIF1) && (ccr & NG_DMA_CCR_HTIE)) ||
	       ((isr & NG_DMA_TCIF1) && (ccr & NG_DMA_CCR_TCIE)) ||
	       ((isr & NG_DMA_TEIF1) && (ccr & NG_DMA_CCR_TEIE));
}

FW_FN void fw_adc_cr2_write(uint32_t a, uint32_t v)
{
	uint32_t i = a == NG_ADC_CR2(NG_ADC1) ? 0u : 1u;
	uint32_t *r = fw_plain(a);
	uint32_t old = *r;
	uint32_t self = NG_ADC_CR2_SWSTART | NG_ADC_CR2_CAL | NG_ADC_CR2_RSTCAL; /* read back 0 */
	bool on = old & NG_ADC_CR2_ADON;
	*r = v & ~self;
	if (!(v & NG_ADC_CR2_ADON)) {
		if (on && i == 0)
			fw_model.adc_running = false; /* powered down: conversion stops */
		if (on && i == 1 && fw_model.adc_running)
			fw_model.adc_running = false; /* the slave is off: the dual group stops */
		return;
	}
	if (!on) {
		fw_model.adc_power_ns[i] = fw_model.now_ns;
		fw_model.adc_powerups++;
	} else if (((old ^ v) & ~(uint32_t)NG_ADC_CR2_ADON & ~self) == 0 && !(v & self)) {
		/* 11.12.3: ADON written 1 again, nothing else changed: a conversion starts */
		fw_model.adc_stray++;
		if (i == 0 && !fw_model.adc_running) {
			fw_adc_start();
			fw_model.adc_group_left = 1;
		}
		return;
	}
	if (i == 0 && (v & NG_ADC_CR2_SWSTART) && (v & NG_ADC_CR2_EXTTRIG) &&
	    (v & NG_ADC_CR2_EXTSEL_SWSTART) == NG_ADC_CR2_EXTSEL_SWSTART) {
		if (!(*fw_plain(NG_ADC_CR2(NG_ADC2)) & NG_ADC_CR2_ADON) &&
		    ((*fw_plain(NG_ADC_CR1(NG_ADC1)) >> 16) & 0xFu))
			fw_model_error("dual mode started with ADC2 powered down", a);
		fw_adc_start();
	}
	if (i == 0 && !(v & NG_ADC_CR2_CONT) && fw_model.adc_running && !fw_model.adc_group_left)
		fw_model.adc_group_left = 1; /* CONT cleared: the group ends */
}

/* ---- RCC writes -------------------------------------------------------------- */

FW_FN void fw_rcc_cr_write(uint32_t v)
{
	uint32_t *r = fw_plain(NG_RCC_CR), old = *r;
	uint32_t sws = fw_sws();
	if ((old ^ v) & NG_RCC_CR_HSEBYP && (old & NG_RCC_CR_HSEON)) {
		fw_model_error("HSEBYP written with the HSE on (RM0008 7.3.1)", NG_RCC_CR);
		v = (v & ~NG_RCC_CR_HSEBYP) | (old & NG_RCC_CR_HSEBYP);
	}
	if (!(v & NG_RCC_CR_PLLON) && (old & NG_RCC_CR_PLLON) && sws == 2u)
		v |= NG_RCC_CR_PLLON; /* cannot be reset while it is SYSCLK */
	if (!(v & NG_RCC_CR_HSEON) && (old & NG_RCC_CR_HSEON) &&
	    (sws == 1u || (sws == 2u && (*fw_plain(NG_RCC_CFGR) & NG_RCC_CFGR_PLLSRC_HSE))))
		v |= NG_RCC_CR_HSEON;
	if (!(v & NG_RCC_CR_HSION) && sws == 0u)
		v |= NG_RCC_CR_HSION;
	if ((v & NG_RCC_CR_HSEON) && !(old & NG_RCC_CR_HSEON))
		fw_model.hse_on_ns = fw_model.now_ns;
	if ((v & NG_RCC_CR_PLLON) && !(old & NG_RCC_CR_PLLON))
		fw_model.pll_on_ns = fw_model.now_ns;
	*r = v & ~(uint32_t)(NG_RCC_CR_HSERDY | NG_RCC_CR_PLLRDY | 2u);
}

FW_FN void fw_rcc_cfgr_write(uint32_t v)
{
	uint32_t *r = fw_plain(NG_RCC_CFGR), old = *r;
	const uint32_t pllf = (0xFu << 18) | (1u << 17) | NG_RCC_CFGR_PLLSRC_HSE;
	if (((old ^ v) & pllf) && (*fw_plain(NG_RCC_CR) & NG_RCC_CR_PLLON)) {
		fw_model_error("PLLSRC/PLLXTPRE/PLLMUL written with the PLL on (RM0008 7.3.2)", NG_RCC_CFGR);
		v = (v & ~pllf) | (old & pllf);
	}
	/* SWS follows SW when the selected clock is ready. */
	uint32_t sw = v & 3u, sws = (old >> 2) & 3u;
	bool ready = sw == 0u ? true : sw == 1u ? fw_hse_ready() : fw_pll_ready();
	if (ready && sw != 3u)
		sws = sw;
	*r = (v & ~NG_RCC_CFGR_SWS_MASK) | (sws << 2);
	uint32_t hz = fw_sysclk_hz(), lat = *fw_plain(NG_FLASH_ACR) & 7u;
	if ((hz > 48000000u && lat < 2u) || (hz > 24000000u && lat < 1u))
		fw_model_error("SYSCLK switched above the flash wait states' limit (RM0008 3.3.3)", hz);
}

uint32_t ng_model_read(uint32_t a)
{
	fw_tick();
	uint32_t v;
	if (fw_is_epr(a))
		v = fw_model.epr[(a - NG_USB) / 4u];
	else if (a == NG_USB_ISTR)
		v = fw_istr_now();
	else if (fw_is_pma(a)) {
		fw_model_error("32-bit read of the packet memory", a);
		v = 0;
	} else if (a == NG_CRC_DR)
		v = fw_model.crc;
	else if (a == NG_RCC_CR) {
		v = *fw_plain(a);
		v |= (v & NG_RCC_CR_HSION) ? 2u : 0u;
		v |= fw_hse_ready() ? NG_RCC_CR_HSERDY : 0u;
		v |= fw_pll_ready() ? NG_RCC_CR_PLLRDY : 0u;
	} else if (a == NG_RCC_CFGR) {
		/* a switch to a clock that became ready since */
		uint32_t *r = fw_plain(a), sw = *r & 3u;
		if (fw_sws() != sw && sw != 3u &&
		    (sw == 0u || (sw == 1u && fw_hse_ready()) || (sw == 2u && fw_pll_ready())))
			*r = (*r & ~NG_RCC_CFGR_SWS_MASK) | (sw << 2);
		v = *r;
	} else if (a == NG_SYST_CVR) {
		uint32_t rvr = *fw_plain(NG_SYST_RVR) & 0xFFFFFFu;
		uint64_t cyc = fw_model.now_ns * fw_hclk_hz() / 1000000000ull;
		v = rvr - (uint32_t)(cyc % ((uint64_t)rvr + 1u));
	} else
		v = *fw_plain(a);
	if (fw_model.inject && a == fw_model.inject_addr && !fw_model.in_isr) {
		fw_model.inject_addr = 0;
		fw_model.inject_pending = true;
		fw_take_interrupts();
	}
	return v;
}

void ng_model_write(uint32_t a, uint32_t v)
{
	fw_tick();
	if (fw_is_epr(a)) {
		uint32_t n = (a - NG_USB) / 4u;
		uint16_t old = fw_model.epr[n], w = (uint16_t)v;
		uint16_t ctr = old & w & (NG_EPR_CTR_RX | NG_EPR_CTR_TX);      /* rc_w0 */
		uint16_t tog = (old ^ w) & (NG_EPR_DTOG_RX | NG_EPR_STAT_RX |
					    NG_EPR_DTOG_TX | NG_EPR_STAT_TX); /* toggle */
		fw_model.epr[n] = (uint16_t)(ctr | tog | (old & NG_EPR_SETUP) | (w & NG_EPR_RW));
		return;
	}
	if (a == NG_USB_ISTR) {
		fw_model.istr &= (uint16_t)(v | 0x80FFu); /* bits 14:8 rc_w0 */
		if (fw_model.bus_idle && !(*fw_plain(NG_USB_CNTR) & NG_CNTR_FSUSP))
			fw_model.istr |= NG_ISTR_SUSP; /* the bus is still idle */
		return;
	}
	if (fw_is_pma(a)) {
		fw_model_error("32-bit write of the packet memory", a);
		return;
	}
	if (a == NG_CRC_DR) {
		fw_model.crc = fw_crc_word(fw_model.crc, v);
		return;
	}
	if (a == NG_CRC_CR) {
		if (v & NG_CRC_CR_RESET)
			fw_model.crc = 0xFFFFFFFFu;
		return;
	}
	if (a == NG_DMA_IFCR) {
		uint32_t *isr = fw_plain(NG_DMA_ISR);
		*isr &= ~v;
		if (v & NG_DMA_GIF1)
			*isr &= ~0xFu;
		return;
	}
	if (a == NG_ADC_CR2(NG_ADC1) || a == NG_ADC_CR2(NG_ADC2)) {
		fw_adc_cr2_write(a, v);
		return;
	}
	if (a == NG_RCC_CR) {
		fw_rcc_cr_write(v);
		return;
	}
	if (a == NG_RCC_CFGR) {
		fw_rcc_cfgr_write(v);
		return;
	}
	if (a == NG_GPIO_BSRR(NG_GPIOA) || a == NG_GPIO_BSRR(NG_GPIOB) || a == NG_GPIO_BSRR(NG_GPIOC)) {
		uint32_t *odr = fw_plain(a - 0x10u + 0x0Cu);
		*odr = (*odr & ~(v >> 16)) | (v & 0xFFFFu); /* set wins (9.2.5) */
	}
	if (a == NG_GPIO_BRR(NG_GPIOA) || a == NG_GPIO_BRR(NG_GPIOB) || a == NG_GPIO_BRR(NG_GPIOC))
		*fw_plain(a - 0x14u + 0x0Cu) &= ~(v & 0xFFFFu);
	if (a == NG_RCC_APB1ENR && (v & NG_RCC_APB1ENR_USBEN) && !(*fw_plain(a) & NG_RCC_APB1ENR_USBEN)) {
		fw_model.gpioa_crh_at_usben = *fw_plain(NG_GPIO_CRH(NG_GPIOA));
		fw_model.gpioa_odr_at_usben = *fw_plain(NG_GPIO_ODR(NG_GPIOA));
	}
	if (a == NG_DMA_CNDTR1)
		*fw_plain(NG_DMA_CNDTR1 + 0x100u) = v; /* the model's copy of the programmed count */
	if (a == NG_SYST_CSR && (v & 1u) && fw_model.systick_isr)
		fw_model.systick_next_ns = fw_model.now_ns +
			(uint64_t)((*fw_plain(NG_SYST_RVR) & 0xFFFFFFu) + 1u) * 1000000000u / fw_hclk_hz();
	*fw_plain(a) = v;
}

uint16_t ng_model_read16(uint32_t a)
{
	if (!fw_is_pma(a) || (a & 3u)) {
		fw_model_error("16-bit read outside the packet memory's halfwords", a);
		return 0;
	}
	return fw_model.pma[(a - NG_USB_PMA) / 2u];
}

void ng_model_write16(uint32_t a, uint16_t v)
{
	if (!fw_is_pma(a) || (a & 3u)) {
		fw_model_error("16-bit write outside the packet memory's halfwords", a);
		return;
	}
	fw_model.pma[(a - NG_USB_PMA) / 2u] = v;
}

void ng_model_irq(int enable)
{
	fw_model.irq_enabled = enable != 0;
	if (enable)
		fw_take_interrupts();
}

/* WFI: sleeps until an interrupt is pending (at most 10 ms of model time). */
void ng_model_wfi(void);
void ng_model_wfi(void)
{
	fw_model.wfi++;
	for (int i = 0; i < 100; i++) {
		if ((fw_model.usb_isr && fw_usb_irq_pending()) || (fw_model.dma_isr && fw_dma_irq_pending()))
			break;
		fw_run_until(fw_model.now_ns + 100000u);
	}
	fw_take_interrupts();
}

/* ---- the USB host side ------------------------------------------------- */

FW_FN uint32_t fw_pma_addr(uint32_t off) { return fw_model.pma[off & ~1u]; }

FW_FN void fw_pma_put(uint32_t usb_off, const uint8_t *p, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++) {
		uint16_t *h = &fw_model.pma[(usb_off + i) & ~1u];
		if ((usb_off + i) & 1u)
			*h = (uint16_t)((*h & 0x00FFu) | (p[i] << 8));
		else
			*h = (uint16_t)((*h & 0xFF00u) | p[i]);
	}
}

FW_FN void fw_pma_get(uint8_t *p, uint32_t usb_off, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++) {
		uint16_t h = fw_model.pma[(usb_off + i) & ~1u];
		p[i] = (uint8_t)(((usb_off + i) & 1u) ? h >> 8 : h);
	}
}

FW_FN uint32_t fw_rx_capacity(uint32_t n)
{
	uint16_t c = (uint16_t)fw_pma_addr(NG_BT_COUNT_RX(n));
	uint32_t nb = (c >> 10) & 0x1Fu;
	return (c & 0x8000u) ? (nb + 1u) * 32u : nb * 2u;
}

/* The endpoint register answering endpoint address ea at the host's
 * current device address, or NG_USB_NEP when nothing answers. */
FW_FN uint32_t fw_ep_of_addr(uint32_t ea)
{
	uint32_t d = *fw_plain(NG_USB_DADDR);
	if (fw_model.daddr_deadline_ns && fw_model.now_ns >= fw_model.daddr_deadline_ns) {
		if (d != (NG_DADDR_EF | fw_model.daddr_want))
			fw_model_error("DADDR not set within 2 ms of SET_ADDRESS's status stage (USB 2.0 9.2.6.3)", d);
		fw_model.daddr_deadline_ns = 0;
	}
	if (!(d & NG_DADDR_EF) || (d & 0x7Fu) != fw_model.host_addr)
		return NG_USB_NEP;
	for (uint32_t n = 0; n < NG_USB_NEP; n++)
		if ((fw_model.epr[n] & NG_EPR_EA) == ea &&
		    (fw_model.epr[n] & (NG_EPR_STAT_RX | NG_EPR_STAT_TX)))
			return n;
	return NG_USB_NEP;
}

#define FW_ACK   0
#define FW_NAK   1
#define FW_STALL 2
#define FW_ERR   3
#define FW_NOREPLY 4

/* The host sends a SETUP to endpoint 0 (always accepted). */
FW_FN int fw_host_setup(const uint8_t s[8])
{
	uint32_t n = fw_ep_of_addr(0);
	if (n == NG_USB_NEP || (fw_model.epr[n] & NG_EPR_TYPE) != NG_EPR_TYPE_CONTROL)
		return FW_ERR;
	if (fw_rx_capacity(n) < 8)
		return FW_ERR;
	/* RM0008 23.4.2: with CTR_RX still set, the SETUP is discarded without
	 * a handshake (the host retries). */
	if (fw_model.epr[n] & NG_EPR_CTR_RX)
		return FW_NOREPLY;
	fw_pma_put(fw_pma_addr(NG_BT_ADDR_RX(n)), s, 8);
	fw_model.pma[NG_BT_COUNT_RX(n)] = (uint16_t)((fw_model.pma[NG_BT_COUNT_RX(n)] & 0xFC00u) | 8u);
	uint16_t r = fw_model.epr[n];
	r = (uint16_t)((r & ~(NG_EPR_STAT_RX | NG_EPR_STAT_TX)) | (NG_STAT_NAK << 12) | (NG_STAT_NAK << 4));
	r |= NG_EPR_DTOG_RX | NG_EPR_DTOG_TX | NG_EPR_SETUP | NG_EPR_CTR_RX;
	fw_model.epr[n] = r;
	return FW_ACK;
}

/* An IN token to endpoint ea: copies the packet out; *dtog gets its PID. */
FW_FN int fw_host_in(uint32_t ea, uint8_t *buf, uint32_t *len, int *dtog)
{
	uint32_t n = fw_ep_of_addr(ea);
	if (n == NG_USB_NEP)
		return FW_ERR;
	uint16_t r = fw_model.epr[n];
	uint32_t st = (r & NG_EPR_STAT_TX) >> 4;
	if (st == NG_STAT_STALL)
		return FW_STALL;
	if (st != NG_STAT_VALID)
		return FW_NAK;
	*len = fw_pma_addr(NG_BT_COUNT_TX(n)) & 0x3FFu;
	fw_pma_get(buf, fw_pma_addr(NG_BT_ADDR_TX(n)), *len);
	if (dtog)
		*dtog = (r & NG_EPR_DTOG_TX) ? 1 : 0;
	r = (uint16_t)((r & ~NG_EPR_STAT_TX) | (NG_STAT_NAK << 4));
	r ^= NG_EPR_DTOG_TX;
	r |= NG_EPR_CTR_TX;
	fw_model.epr[n] = r;
	return FW_ACK;
}

FW_FN int fw_host_out(uint32_t ea, const uint8_t *buf, uint32_t len, int *dtog)
{
	uint32_t n = fw_ep_of_addr(ea);
	if (n == NG_USB_NEP)
		return FW_ERR;
	uint16_t r = fw_model.epr[n];
	uint32_t st = (r & NG_EPR_STAT_RX) >> 12;
	if (st == NG_STAT_STALL)
		return FW_STALL;
	if (st != NG_STAT_VALID)
		return FW_NAK;
	if (len > fw_rx_capacity(n)) {
		fw_model_error("OUT packet larger than the RX buffer (PMAOVR)", n);
		return FW_ERR;
	}
	fw_pma_put(fw_pma_addr(NG_BT_ADDR_RX(n)), buf, len);
	fw_model.pma[NG_BT_COUNT_RX(n)] = (uint16_t)((fw_model.pma[NG_BT_COUNT_RX(n)] & 0xFC00u) | len);
	if (dtog)
		*dtog = (r & NG_EPR_DTOG_RX) ? 1 : 0;
	r = (uint16_t)((r & ~(NG_EPR_STAT_RX | NG_EPR_SETUP)) | (NG_STAT_NAK << 12));
	r ^= NG_EPR_DTOG_RX;
	r |= NG_EPR_CTR_RX;
	fw_model.epr[n] = r;
	return FW_ACK;
}

/* A bus reset: the peripheral clears every EPnR and DADDR (RM0008 23.4.2). */
FW_FN void fw_host_reset(void)
{
	memset(fw_model.epr, 0, sizeof fw_model.epr);
	*fw_plain(NG_USB_DADDR) = 0;
	fw_model.istr |= NG_ISTR_RESET;
	fw_model.bus_idle = false;
	fw_model.daddr_deadline_ns = 0;
}

/* The host stops sending SOFs: after 3 ms of idle bus the peripheral sets
 * SUSP (and sets it again while FSUSP = 0: see ng_model_write). */
FW_FN void fw_host_suspend(void)
{
	fw_model.bus_idle = true;
	fw_model.istr |= NG_ISTR_SUSP;
}

/* Resume signalling: WKUP, LPMODE cleared by hardware (RM0008 23.4.5). */
FW_FN void fw_host_resume(void)
{
	fw_model.bus_idle = false;
	if (*fw_plain(NG_USB_CNTR) & NG_CNTR_FSUSP)
		fw_model.istr |= NG_ISTR_WKUP;
	*fw_plain(NG_USB_CNTR) &= ~(uint32_t)NG_CNTR_LPMODE;
}

/* Is an interrupt pending that the CNTR masks let through? */
FW_FN bool fw_usb_irq_pending(void)
{
	uint32_t cntr = *fw_plain(NG_USB_CNTR);
	uint16_t istr = fw_istr_now();
	return ((istr & NG_ISTR_CTR) && (cntr & NG_CNTR_CTRM)) ||
	       ((istr & NG_ISTR_RESET) && (cntr & NG_CNTR_RESETM)) ||
	       ((istr & NG_ISTR_SUSP) && (cntr & NG_CNTR_SUSPM)) ||
	       ((istr & NG_ISTR_WKUP) && (cntr & NG_CNTR_WKUPM));
}

/* ---- host-side transfers that let the device run between packets ----- */

/* What the device does between two packets (ISR + main loop); set by the test. */
static void (*fw_spin)(void);

/* IN token with retries while the device NAKs (it is busy in its loop). */
FW_FN int in_pkt(uint32_t ea, uint8_t *buf, uint32_t *len, int *tog)
{
	int rc = FW_NAK;
	for (int t = 0; t < 20 && (rc = fw_host_in(ea, buf, len, tog)) == FW_NAK; t++)
		fw_spin();
	fw_spin();
	return rc;
}

FW_FN int out_pkt(uint32_t ea, const uint8_t *buf, uint32_t len, int *tog)
{
	int rc = FW_NAK;
	for (int t = 0; t < 20 && (rc = fw_host_out(ea, buf, len, tog)) == FW_NAK; t++)
		fw_spin();
	fw_spin();
	return rc;
}

/* A control transfer as a host controller does it. Returns the bytes of
 * the IN data stage (or 0), -1 on STALL or a protocol error. Checks the
 * toggles: data stage DATA1, DATA0, ...; status stage DATA1. */
FW_FN int control(uint8_t bm, uint8_t req, uint16_t val, uint16_t idx, uint16_t wlen,
		   uint8_t *data, int *bad_toggle)
{
	uint8_t s[8] = { bm, req, (uint8_t)val, (uint8_t)(val >> 8), (uint8_t)idx, (uint8_t)(idx >> 8),
			 (uint8_t)wlen, (uint8_t)(wlen >> 8) };
	uint8_t pkt[64];
	uint32_t len;
	int tog, want = 1, got = 0;
	if (fw_host_setup(s) != FW_ACK)
		return -1;
	fw_spin();
	if (bm & 0x80) {
		while (got < wlen) {
			int rc = in_pkt(0, pkt, &len, &tog);
			if (rc != FW_ACK)
				return -1;
			*bad_toggle |= tog != want;
			want ^= 1;
			memcpy(data + got, pkt, len);
			got += (int)len;
			if (len < 64)
				break;
		}
		if (out_pkt(0, NULL, 0, &tog) != FW_ACK)
			return -1;
		*bad_toggle |= tog != 1;
		return got;
	}
	for (int off = 0; off < wlen; off += 64) {
		uint32_t n = wlen - off < 64 ? (uint32_t)(wlen - off) : 64u;
		if (out_pkt(0, data + off, n, &tog) != FW_ACK)
			return -1;
		*bad_toggle |= tog != want;
		want ^= 1;
	}
	if (in_pkt(0, pkt, &len, &tog) != FW_ACK || len != 0)
		return -1;
	*bad_toggle |= tog != 1;
	if (bm == 0x00 && req == 5) {
		/* SET_ADDRESS: the host waits the 2 ms recovery interval and then
		 * talks to the new address (USB 2.0 9.2.6.3); whatever the main
		 * loop does meanwhile (fw_spin ran once), interrupts are taken. */
		fw_model.daddr_deadline_ns = fw_model.now_ns + FW_DADDR_NS;
		fw_model.daddr_want = (uint8_t)(val & 0x7Fu);
		fw_model_advance(FW_DADDR_NS);
		fw_ep_of_addr(0);
	}
	return 0;
}

/* ---- the ADC fed with sample words ------------------------------------------ */

/* Model time for n words at the current conversion rate. */
FW_FN uint64_t fw_words_ns(uint32_t n)
{
	return (uint64_t)n * fw_adc_word_ns();
}

#endif
