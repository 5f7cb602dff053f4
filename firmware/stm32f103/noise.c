/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The noise source: ADC1 and ADC2 in dual regular simultaneous mode
 * (RM0008 11.9.2) with DMA1 channel 1 (RM0008 13.3.7: ADC1 is on channel 1).
 *
 *   ADC1 sequence: IN17 (Vrefint), IN16 (temperature sensor; TSVREFE on)
 *   ADC2 sequence: the board's two pins, inputs with the internal pull-up
 *   Both: SCAN, CONT, 2 conversions, sample time 1.5 cycles, started
 *   together by ADC1 SWSTART; ADC1_DR reads (ADC2 << 16) | ADC1 in dual
 *   mode (RM0008 11.12.14), so one 32-bit DMA transfer per pair of
 *   conversions gives exactly the word format of the pipeline and vectors.
 *
 * Sample time: 1.5 cycles, the shortest, on every channel. NeuG does the
 * same ("deliberately do it wrong"): the temperature sensor and Vrefint
 * need 17.1 us for an accurate reading, and sampling them far too briefly
 * leaves the sampling capacitor unsettled, so the low bits carry thermal
 * and settling noise instead of a stable value; that noise is the point.
 * ADC clock 9 MHz (APB2 / 8): 14 cycles per conversion, one word per
 * 1.56 us, about 640k words/s. That is above what the conditioned mode
 * consumes (140 words per 32 bytes) and leaves the CPU 112 cycles per word;
 * /6 (12 MHz) would leave 84, too close to the pipeline's cost.
 *
 * Buffer: 2 x NG_NOISE_HALF words, DMA circular with HTIE and TCIE. The
 * interrupt only marks a half ready. When the DMA moves into a half that
 * the main loop has not read yet, the data there would be lost silently:
 * instead the interrupt stops the DMA and the ADCs, discards that half and
 * counts an overrun; the main loop reports it and restarts the source.
 *
 * Tested: on the host against a model of the DMA and ADC registers
 * (tests/unit/test_fw_adc.c), not in QEMU (no STM32 ADC model there). */
#include <string.h>
#include "fw.h"
#include "board.h"
#include "stm32f103.h"

_Static_assert(NG_NOISE_HALF % 32u == 0, "a half holds whole CRC32-mode blocks (32 words) and raw blocks (8 words)");
_Static_assert(NG_NOISE_HALF % 4u == 0, "the conditioned mode feeds the CRC 4 words at a time");
_Static_assert(2u * NG_NOISE_HALF <= 0xFFFFu, "DMA_CNDTR is 16 bits");

#define NG_SEQ_LEN 2u
#define NG_SQR1_L(n) (((uint32_t)(n) - 1u) << 20)
#define NG_SMPR_SH(ch) (((ch) < 10 ? (ch) : (ch) - 10) * 3u)
#define NG_SMPR_REG(a, ch) ((ch) < 10 ? NG_ADC_SMPR2(a) : NG_ADC_SMPR1(a))

static uint32_t ng_noise_buf[2 * NG_NOISE_HALF];
static volatile uint8_t ng_noise_ready[2];
static volatile uint8_t ng_noise_halted;
static volatile uint32_t ng_noise_ovr, ng_noise_terr;
static uint32_t ng_noise_next, ng_noise_count;

#define NG_CR2_COMMON (NG_ADC_CR2_ADON | NG_ADC_CR2_EXTSEL_SWSTART | NG_ADC_CR2_EXTTRIG)

static void ng_adc_calibrate(uint32_t adc)
{
	NG_WR(NG_ADC_CR2(adc), NG_ADC_CR2_ADON); /* power up; tSTAB = 1 us */
	ng_delay_us(10);
	NG_WR(NG_ADC_CR2(adc), NG_ADC_CR2_ADON | NG_ADC_CR2_RSTCAL);
	while (NG_RD(NG_ADC_CR2(adc)) & NG_ADC_CR2_RSTCAL)
		;
	NG_WR(NG_ADC_CR2(adc), NG_ADC_CR2_ADON | NG_ADC_CR2_CAL);
	while (NG_RD(NG_ADC_CR2(adc)) & NG_ADC_CR2_CAL)
		;
}

void ng_noise_init(void)
{
	NG_SET(NG_RCC_AHBENR, NG_RCC_AHBENR_DMA1EN);
	NG_SET(NG_RCC_APB2ENR, NG_RCC_APB2ENR_ADC1EN | NG_RCC_APB2ENR_ADC2EN);
	ng_adc_calibrate(NG_ADC1);
	ng_adc_calibrate(NG_ADC2);

	/* ADC2 (slave): the board's pins. DUALMOD exists in ADC1_CR1 only
	 * (reserved in ADC2); RM0008 11.9 asks for the software trigger on the
	 * slave so that nothing but the master starts it. */
	NG_WR(NG_ADC_CR1(NG_ADC2), NG_ADC_CR1_SCAN);
	NG_WR(NG_ADC_SMPR1(NG_ADC2), 0); /* NG_ADC_SMP_1P5 everywhere */
	NG_WR(NG_ADC_SMPR2(NG_ADC2), 0);
	NG_WR(NG_ADC_SQR1(NG_ADC2), NG_SQR1_L(NG_SEQ_LEN));
	NG_WR(NG_ADC_SQR3(NG_ADC2), NG_BOARD_AN1_CH | NG_BOARD_AN2_CH << 5);
	/* ADC1 (master): Vrefint then the temperature sensor. */
	NG_WR(NG_ADC_CR1(NG_ADC1), NG_ADC_CR1_DUALMOD_REGSIM | NG_ADC_CR1_SCAN);
	NG_WR(NG_ADC_SMPR1(NG_ADC1), NG_ADC_SMP_1P5 << NG_SMPR_SH(NG_ADC_CH_VREFINT) |
				     NG_ADC_SMP_1P5 << NG_SMPR_SH(NG_ADC_CH_TEMP));
	NG_WR(NG_ADC_SMPR2(NG_ADC1), 0);
	NG_WR(NG_ADC_SQR1(NG_ADC1), NG_SQR1_L(NG_SEQ_LEN));
	NG_WR(NG_ADC_SQR3(NG_ADC1), NG_ADC_CH_VREFINT | NG_ADC_CH_TEMP << 5);
	NG_WR(NG_ADC_CR2(NG_ADC1), NG_CR2_COMMON | NG_ADC_CR2_TSVREFE);
	NG_WR(NG_ADC_CR2(NG_ADC2), NG_CR2_COMMON);
	ng_nvic_enable(NG_IRQ_DMA1_CH1);
}

static void ng_noise_halt(void)
{
	NG_WR(NG_DMA_CCR1, 0);
	NG_WR(NG_ADC_CR2(NG_ADC1), NG_CR2_COMMON | NG_ADC_CR2_TSVREFE); /* CONT off */
	NG_WR(NG_ADC_CR2(NG_ADC2), NG_CR2_COMMON);
	NG_WR(NG_DMA_IFCR, NG_DMA_GIF1 | NG_DMA_TCIF1 | NG_DMA_HTIF1 | NG_DMA_TEIF1);
}

void ng_noise_stop(void)
{
	ng_irq_disable();
	ng_noise_halt();
	ng_noise_ready[0] = ng_noise_ready[1] = 0;
	ng_irq_enable();
}

void ng_noise_start(void)
{
	ng_noise_stop();
	ng_noise_next = 0;
	ng_noise_halted = 0;
	NG_WR(NG_DMA_CPAR1, NG_ADC_DR(NG_ADC1));
	NG_WR(NG_DMA_CMAR1, NG_DMA_ADDR(ng_noise_buf));
	NG_WR(NG_DMA_CNDTR1, 2u * NG_NOISE_HALF);
	NG_WR(NG_DMA_CCR1, NG_DMA_CCR_PL_HIGH | NG_DMA_CCR_MSIZE32 | NG_DMA_CCR_PSIZE32 |
			   NG_DMA_CCR_MINC | NG_DMA_CCR_CIRC | NG_DMA_CCR_TEIE |
			   NG_DMA_CCR_HTIE | NG_DMA_CCR_TCIE | NG_DMA_CCR_EN);
	NG_WR(NG_ADC_CR2(NG_ADC2), NG_CR2_COMMON | NG_ADC_CR2_CONT);
	NG_WR(NG_ADC_CR2(NG_ADC1), NG_CR2_COMMON | NG_ADC_CR2_TSVREFE | NG_ADC_CR2_CONT |
				   NG_ADC_CR2_DMA);
	NG_WR(NG_ADC_CR2(NG_ADC1), NG_CR2_COMMON | NG_ADC_CR2_TSVREFE | NG_ADC_CR2_CONT |
				   NG_ADC_CR2_DMA | NG_ADC_CR2_SWSTART);
}

/* Half h is complete and the DMA has moved on to half h ^ 1. */
static void ng_noise_done(uint32_t h)
{
	ng_noise_ready[h] = 1;
	if (ng_noise_ready[h ^ 1u]) {
		/* Overrun: half h ^ 1 was not read and is being overwritten. */
		ng_noise_halt();
		ng_noise_ready[h ^ 1u] = 0;
		ng_noise_ovr++;
		ng_noise_halted = 1;
	}
}

void ng_noise_isr(void)
{
	uint32_t f = NG_RD(NG_DMA_ISR) & (NG_DMA_TCIF1 | NG_DMA_HTIF1 | NG_DMA_TEIF1);
	/* Write the flags back one by one: CGIF1 would clear all of them. */
	NG_WR(NG_DMA_IFCR, f);
	if (f & NG_DMA_TEIF1) {
		/* The hardware disabled the channel (RM0008 13.3.6). */
		ng_noise_halt();
		ng_noise_ready[0] = ng_noise_ready[1] = 0;
		ng_noise_terr++;
		ng_noise_halted = 1;
		return;
	}
	/* Both flags at once: the main loop kept interrupts off for a whole
	 * half; HT came first. */
	if ((f & NG_DMA_HTIF1) && !ng_noise_halted)
		ng_noise_done(0);
	if ((f & NG_DMA_TCIF1) && !ng_noise_halted)
		ng_noise_done(1);
}

bool ng_noise_read(uint32_t out[NG_NOISE_HALF])
{
	uint32_t h = ng_noise_next;
	if (!ng_noise_ready[h] && ng_noise_halted)
		h ^= 1u; /* an overrun discarded half h: the other one is intact */
	if (!ng_noise_ready[h])
		return false;
	const uint32_t *src = &ng_noise_buf[h * NG_NOISE_HALF];
	memcpy(out, src, NG_NOISE_HALF * sizeof *out);   /* libc.c: ldm/stm on the M3 */
	/* Still valid after the copy? The interrupt clears the flag when the
	 * DMA had to move into this half; the DMA's position tells the rest
	 * (it may have entered the half just before the interrupt ran). */
	ng_irq_disable();
	uint32_t pos = 2u * NG_NOISE_HALF - NG_RD(NG_DMA_CNDTR1);
	bool in_half = (NG_RD(NG_DMA_CCR1) & NG_DMA_CCR_EN) && pos / NG_NOISE_HALF == h &&
		       pos != h * NG_NOISE_HALF;
	bool ok = ng_noise_ready[h] && !in_half;
	if (ng_noise_ready[h] && in_half) {
		/* Overwritten during the copy, before the interrupt saw it. */
		ng_noise_halt();
		ng_noise_ready[h ^ 1u] = 0;
		ng_noise_ovr++;
		ng_noise_halted = 1;
	}
	ng_noise_ready[h] = 0;
	ng_irq_enable();
	if (!ok)
		return false;
	ng_noise_next = h ^ 1u;
	ng_noise_count++;
	return true;
}

bool ng_noise_stopped(void)
{
	return ng_noise_halted != 0;
}

void ng_noise_get_stats(ng_noise_stats *st)
{
	st->overruns = ng_noise_ovr;
	st->dma_errors = ng_noise_terr;
	st->halves = ng_noise_count;
}
