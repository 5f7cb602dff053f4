/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The noise source, sampled as NeuG 1.0.x samples it: ADC1 and ADC2 in
 * fast interleaved dual mode (RM0008 11.9.5), a batch of words at a time
 * through DMA1 channel 1 (RM0008 13.3.7: ADC1 is on channel 1), both ADCs
 * powered down after every batch; the batches of one output gathered in one
 * buffer.
 *
 *   ADC1 (master) sequence: IN17 Vrefint, IN16 temperature, IN16, IN17
 *   (TSVREFE on); ADC2 (slave): the board's two pins, inputs with the
 *   internal pull-up, AN1, AN2, AN1, AN2. Both: SCAN, CONT, 4 conversions,
 *   sample time 1.5 cycles on every channel; ADC clock PCLK2 / 6 = 12 MHz
 *   (clock.c; PCLK2 / 4 when the HSI fallback runs at 48 MHz: also 12).
 *   DUALMOD 0111: ADC2 converts at the trigger, ADC1 7 ADC cycles later, so
 *   the two never sample at once; each ADC1 end of conversion moves ADC1_DR
 *   = (ADC2 << 16) | ADC1 (RM0008 11.12.14) by one 32-bit DMA transfer: the
 *   word format of the pipeline and the vectors.
 *
 * Per batch: DMA armed for n words (not circular, TCIE), ADC2_CR2 then
 * ADC1_CR2 written from 0 with ADON and, on ADC1, SWSTART: one write that
 * powers the ADC up and triggers the group, without waiting tSTAB (RM0008
 * 11.3.1); NeuG does the same on purpose: a converter that has just woken
 * samples a capacitor that has not settled, which is noise. At the last
 * transfer the DMA interrupt writes CR2 = 0 to both (power down: the
 * conversion stops, RM0008 11.12.3), so the batch ends within one
 * conversion of its last word whatever the main loop is doing. ADON is never
 * written 1 while it is 1: that write alone would start a conversion
 * (RM0008 11.12.3 ADON note).
 *
 * Batches: 56, 64, 20 words per conditioned output (140), 32 per CRC32-mode
 * output, 8 per raw-mode round (NeuG's); a mode's batches in order make a
 * group, one output's words. Two group buffers of 140 words: the batches of
 * a group land one after the other in the same buffer (batch k's DMA armed
 * at the words of the batches before it), and the main loop takes a whole
 * group in one piece, so the pipeline runs once per output. Within a group
 * the interrupt arms the next batch at once; at a group's end it arms the
 * next group's first batch into the other buffer if the main loop has
 * released it, so conversion overlaps the main loop's work; otherwise the
 * ADCs stay powered down until ng_noise_release. A group is never
 * overwritten: no data can be lost to a slow main loop (the ADCs just
 * wait). Stopping (a mode change, no samples wanted, suspend) drops a
 * partial group with the complete ones; the next start begins a group.
 *
 * Tested: on the host against a register model written from RM0008
 * (tests/unit/fw_model.h, test_fw_adc.c, test_fw_main.c), not in QEMU (no
 * STM32 ADC model there). */
#include <string.h>
#include "fw.h"
#include "board.h"
#include "stm32f103.h"

#define NG_SEQ_LEN 4u
#define NG_SQR1_L(n) (((uint32_t)(n) - 1u) << 20)
#define NG_SQR3(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 5 | (uint32_t)(c) << 10 | (uint32_t)(d) << 15)

/* CR2 while converting; ADC2's trigger is software (RM0008 11.9: the slave
 * must not see the master's trigger source). */
#define NG_CR2_ADC2_RUN (NG_ADC_CR2_ADON | NG_ADC_CR2_CONT | NG_ADC_CR2_EXTSEL_SWSTART | NG_ADC_CR2_EXTTRIG)
#define NG_CR2_ADC1_RUN (NG_CR2_ADC2_RUN | NG_ADC_CR2_DMA | NG_ADC_CR2_TSVREFE)

static const uint8_t ng_seq_conditioned[] = { 56, 64, 20 };
static const uint8_t ng_seq_crc32[] = { 32 };
static const uint8_t ng_seq_raw[] = { 8 };
_Static_assert(56 + 64 + 20 == NG_NOISE_GROUP_MAX, "NeuG's batches make one conditioned output");
_Static_assert(32 <= NG_NOISE_GROUP_MAX && NG_NOISE_GROUP_MAX <= 255, "a group fits a buffer, its length a byte");

static uint32_t ng_noise_buf[2][NG_NOISE_GROUP_MAX];
/* The state, in one place (the interrupt reaches it from one address). */
static struct {
	volatile uint8_t len[2];  /* words of the complete group in buffer b; 0: free */
	uint8_t off;              /* words of the group in the fill buffer so far */
	volatile uint8_t armed;   /* a batch is converting */
	volatile uint8_t on;      /* batches wanted */
	volatile uint8_t halted;  /* a DMA error stopped it */
	uint8_t fill, take;       /* buffer being / next to be filled; next to read */
	uint8_t arm_len;
	uint8_t seq_n, seq_i;
	const uint8_t *seq;
	volatile uint32_t terr, batches, powerups;
} ng_nz = { .seq = ng_seq_conditioned, .seq_n = sizeof ng_seq_conditioned };

static void ng_adc_calibrate(uint32_t adc)
{
	NG_WR(NG_ADC_CR2(adc), NG_ADC_CR2_ADON); /* power up (from 0); tSTAB = 1 us */
	ng_delay_us(10);
	NG_WR(NG_ADC_CR2(adc), NG_ADC_CR2_ADON | NG_ADC_CR2_RSTCAL); /* another bit changes: no start */
	while (NG_RD(NG_ADC_CR2(adc)) & NG_ADC_CR2_RSTCAL)
		;
	NG_WR(NG_ADC_CR2(adc), NG_ADC_CR2_ADON | NG_ADC_CR2_CAL);
	while (NG_RD(NG_ADC_CR2(adc)) & NG_ADC_CR2_CAL)
		;
	NG_WR(NG_ADC_CR2(adc), 0); /* powered down until the first batch */
}

void ng_noise_init(void)
{
	NG_SET(NG_RCC_AHBENR, NG_RCC_AHBENR_DMA1EN);
	NG_SET(NG_RCC_APB2ENR, NG_RCC_APB2ENR_ADC1EN | NG_RCC_APB2ENR_ADC2EN);
	ng_adc_calibrate(NG_ADC1);
	ng_adc_calibrate(NG_ADC2);
	/* ADC2 (slave): the board's pins. DUALMOD exists in ADC1_CR1 only. */
	NG_WR(NG_ADC_CR1(NG_ADC2), NG_ADC_CR1_SCAN);
	NG_WR(NG_ADC_SMPR1(NG_ADC2), 0); /* NG_ADC_SMP_1P5 on every channel */
	NG_WR(NG_ADC_SMPR2(NG_ADC2), 0);
	NG_WR(NG_ADC_SQR1(NG_ADC2), NG_SQR1_L(NG_SEQ_LEN));
	NG_WR(NG_ADC_SQR3(NG_ADC2), NG_SQR3(NG_BOARD_AN1_CH, NG_BOARD_AN2_CH, NG_BOARD_AN1_CH, NG_BOARD_AN2_CH));
	/* ADC1 (master): Vrefint, temperature, temperature, Vrefint. */
	NG_WR(NG_ADC_CR1(NG_ADC1), NG_ADC_CR1_DUALMOD_FASTINT | NG_ADC_CR1_SCAN);
	NG_WR(NG_ADC_SMPR1(NG_ADC1), 0);
	NG_WR(NG_ADC_SMPR2(NG_ADC1), 0);
	NG_WR(NG_ADC_SQR1(NG_ADC1), NG_SQR1_L(NG_SEQ_LEN));
	NG_WR(NG_ADC_SQR3(NG_ADC1), NG_SQR3(NG_ADC_CH_VREFINT, NG_ADC_CH_TEMP, NG_ADC_CH_TEMP, NG_ADC_CH_VREFINT));
	NG_WR(NG_DMA_CPAR1, NG_ADC_DR(NG_ADC1));
	ng_nvic_enable(NG_IRQ_DMA1_CH1);
}

/* Both ADCs powered down, the DMA channel off, its flags cleared (inlined:
 * the DMA interrupt's path at each batch's end). */
__attribute__((always_inline)) static inline void ng_noise_halt(void)
{
	NG_WR(NG_ADC_CR2(NG_ADC1), 0);
	NG_WR(NG_ADC_CR2(NG_ADC2), 0);
	NG_WR(NG_DMA_CCR1, 0);
	NG_WR(NG_DMA_IFCR, NG_DMA_GIF1 | NG_DMA_TCIF1 | NG_DMA_HTIF1 | NG_DMA_TEIF1);
	ng_nz.armed = 0;
}

/* Arms the next batch into the fill buffer, after the group's words so
 * far, when the buffer is free: always within a group, whose buffer holds
 * no complete group (interrupts off, or from the DMA interrupt). */
static void ng_noise_go(uint32_t b);
static void ng_noise_arm(void)
{
	uint32_t b = ng_nz.fill;
	if (!ng_nz.on || ng_nz.armed || ng_nz.halted || ng_nz.len[b])
		return;
	ng_noise_go(b);
}

/* Arms the next batch into buffer b (ng_noise_arm's conditions hold). */
static void ng_noise_go(uint32_t b)
{
	uint32_t n = ng_nz.seq[ng_nz.seq_i];
	ng_nz.arm_len = (uint8_t)n;
	NG_WR(NG_DMA_CMAR1, NG_DMA_ADDR(&ng_noise_buf[b][ng_nz.off]));
	NG_WR(NG_DMA_CNDTR1, n);
	NG_WR(NG_DMA_CCR1, NG_DMA_CCR_PL_HIGH | NG_DMA_CCR_MSIZE32 | NG_DMA_CCR_PSIZE32 |
			   NG_DMA_CCR_MINC | NG_DMA_CCR_TEIE | NG_DMA_CCR_TCIE | NG_DMA_CCR_EN);
	/* Power up from CR2 = 0 and trigger in the same write (no tSTAB wait). */
	NG_WR(NG_ADC_CR2(NG_ADC2), NG_CR2_ADC2_RUN);
	NG_WR(NG_ADC_CR2(NG_ADC1), NG_CR2_ADC1_RUN | NG_ADC_CR2_SWSTART);
	ng_nz.armed = 1;
	ng_nz.powerups++;
}

void ng_noise_stop(void)
{
	ng_irq_disable();
	ng_nz.on = 0;
	ng_noise_halt();
	ng_nz.len[0] = ng_nz.len[1] = 0;
	ng_nz.off = 0; /* a partial group is dropped */
	ng_nz.seq_i = 0;
	ng_irq_enable();
}

void ng_noise_start(uint32_t mode)
{
	ng_noise_stop();
	if (mode == NG_NOISE_SEQ_CRC32) {
		ng_nz.seq = ng_seq_crc32;
		ng_nz.seq_n = sizeof ng_seq_crc32;
	} else if (mode == NG_NOISE_SEQ_RAW) {
		ng_nz.seq = ng_seq_raw;
		ng_nz.seq_n = sizeof ng_seq_raw;
	} else {
		ng_nz.seq = ng_seq_conditioned;
		ng_nz.seq_n = sizeof ng_seq_conditioned;
	}
	ng_nz.fill = ng_nz.take = 0;
	ng_nz.halted = 0;
	ng_irq_disable();
	ng_nz.on = 1;
	ng_noise_arm();
	ng_irq_enable();
}

void ng_noise_isr(void)
{
	uint32_t f = NG_RD(NG_DMA_ISR) & (NG_DMA_TCIF1 | NG_DMA_HTIF1 | NG_DMA_TEIF1);
	if (f & NG_DMA_TEIF1) {
		/* The hardware disabled the channel (RM0008 13.3.6). */
		ng_noise_halt();
		ng_nz.terr++;
		ng_nz.halted = 1;
		return;
	}
	if (!(f & NG_DMA_TCIF1) || !ng_nz.armed) {
		NG_WR(NG_DMA_IFCR, f);
		return;
	}
	ng_noise_halt(); /* CR2 = 0 on both: the batch ends here */
	ng_nz.batches++;
	uint32_t b = ng_nz.fill, off = ng_nz.off + ng_nz.arm_len, i = ng_nz.seq_i + 1u;
	if (i == ng_nz.seq_n) { /* the group is complete */
		ng_nz.len[b] = (uint8_t)off;
		b ^= 1u;
		ng_nz.fill = (uint8_t)b;
		off = i = 0;
	}
	ng_nz.off = (uint8_t)off;
	ng_nz.seq_i = (uint8_t)i;
	/* The next batch at once, if its buffer is free: within a group it
	 * is; a batch was armed, so the source is on and not halted. */
	if (!ng_nz.len[b])
		ng_noise_go(b);
}

const uint32_t *ng_noise_group(size_t *n)
{
	uint32_t len = ng_nz.len[ng_nz.take];
	*n = len;
	return len ? ng_noise_buf[ng_nz.take] : NULL;
}

void ng_noise_release(void)
{
	ng_irq_disable();
	if (ng_nz.len[ng_nz.take]) {
		ng_nz.len[ng_nz.take] = 0;
		ng_nz.take ^= 1u;
	}
	ng_noise_arm();
	ng_irq_enable();
}

bool ng_noise_stopped(void)
{
	return ng_nz.halted != 0;
}

void ng_noise_get_stats(ng_noise_stats *st)
{
	st->dma_errors = ng_nz.terr;
	st->batches = ng_nz.batches;
	st->powerups = ng_nz.powerups;
}
