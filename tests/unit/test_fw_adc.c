/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The STM32 noise source driver (firmware/stm32f103/noise.c) and CRC unit
 * driver (crc_hw.c) against a register model (fw_model.h) that converts the
 * words of adc.bin through DMA1 channel 1: register set-up as RM0008 asks,
 * every word reaches the pipeline in order, the hardware-CRC pipeline gives
 * out-adc-m0.bin, and overruns and DMA errors are reported, not hidden. */
#define NG_FW_HOST_MODEL 1
#define NG_BOARD_HEADER "boards/fst-01.h"
#include "fw_model.h"
#include "../../firmware/stm32f103/clock.c"
#include "../../firmware/stm32f103/noise.c"
#include "../../firmware/stm32f103/crc_hw.c"
#include <stdlib.h>
#include "check.h"
#include "ng/crc32.h"
#include "ng/pipeline.h"
#include "pipeline_hook.h"

static uint32_t hw_word4(const uint32_t w[4])
{
	return ng_crc_hw_words4(NULL, w);
}

/* Converts n words, running the ISR whenever the model raises it. */
static void convert(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (fw_adc_convert(1) && fw_model.irq_enabled)
			ng_noise_isr();
}

static const uint32_t uid[3] = { 0x12345678u, 0x9abcdef0u, 0x0fedcba9u };

int main(void)
{
	size_t nw, m0_len;
	uint32_t *adc = ng_test_vector_words("adc.bin", &nw);
	const uint8_t *m0 = ng_test_vector("out-adc-m0.bin", &m0_len);

	fw_model_reset();
	fw_model.samples = adc;
	fw_model.nsamples = nw;
	fw_model.dma_mem = ng_noise_buf;
	ng_noise_init();
	ng_noise_start();

	/* Register set-up (RM0008 11.12, 13.4). */
	CHECK((NG_RD(NG_ADC_CR1(NG_ADC1)) & (0xFu << 16)) == NG_ADC_CR1_DUALMOD_REGSIM &&
	      (NG_RD(NG_ADC_CR1(NG_ADC2)) & (0xFu << 16)) == 0 && (NG_RD(NG_ADC_CR1(NG_ADC2)) & NG_ADC_CR1_SCAN) &&
	      (NG_RD(NG_ADC_CR2(NG_ADC2)) & (7u << 17)) == NG_ADC_CR2_EXTSEL_SWSTART &&
	      (NG_RD(NG_ADC_CR1(NG_ADC1)) & NG_ADC_CR1_SCAN), "ADC1: regular simultaneous (DUALMOD 0110), ADC2: scan, software trigger");
	CHECK((NG_RD(NG_ADC_SQR3(NG_ADC1)) & 0x3FFu) == (17u | 16u << 5) &&
	      ((NG_RD(NG_ADC_SQR1(NG_ADC1)) >> 20) & 0xFu) == 1u, "ADC1: Vrefint (17), temperature (16)");
	CHECK((NG_RD(NG_ADC_SQR3(NG_ADC2)) & 0x3FFu) == (0u | 9u << 5) &&
	      ((NG_RD(NG_ADC_SQR1(NG_ADC2)) >> 20) & 0xFu) == 1u, "ADC2: FST-01 IN0 (PA0), IN9 (PB1)");
	CHECK(((NG_RD(NG_ADC_SMPR1(NG_ADC1)) >> 18) & 077u) == 0 && NG_RD(NG_ADC_SMPR2(NG_ADC2)) == 0,
	      "1.5-cycle sample times");
	uint32_t cr2 = NG_RD(NG_ADC_CR2(NG_ADC1));
	CHECK((cr2 & NG_ADC_CR2_TSVREFE) && (cr2 & NG_ADC_CR2_DMA) && (cr2 & NG_ADC_CR2_CONT) &&
	      (cr2 & NG_ADC_CR2_ADON) && fw_model.adc_running, "ADC1: TSVREFE, DMA, continuous, started");
	uint32_t ccr = NG_RD(NG_DMA_CCR1);
	CHECK((ccr & 0xF00u) == (NG_DMA_CCR_PSIZE32 | NG_DMA_CCR_MSIZE32) && (ccr & NG_DMA_CCR_CIRC) &&
	      (ccr & NG_DMA_CCR_MINC) && (ccr & NG_DMA_CCR_HTIE) && (ccr & NG_DMA_CCR_TCIE) &&
	      (ccr & NG_DMA_CCR_TEIE) && (ccr & NG_DMA_CCR_EN) &&
	      NG_RD(NG_DMA_CNDTR1) == 2 * NG_NOISE_HALF && NG_RD(NG_DMA_CPAR1) == NG_ADC_DR(NG_ADC1),
	      "DMA1 ch1: ADC1_DR -> buffer, 32-bit, circular, half/full interrupts");

	/* Every word reaches the pipeline in order; with the CRC unit's model
	 * as its CRC engine the output is NeuG's (out-adc-m0.bin). */
	ng_crc_hw_init();
	static ng_pipeline p;
	ng_pipeline_config cfg = { .mode = NG_MODE_CONDITIONED, .h_milli = NG_DEFAULT_H_MILLI,
				   .adc_h_milli = NG_DEFAULT_ADC_H_MILLI };
	memcpy(cfg.uid, uid, sizeof uid);
	CHECK(ng_pipeline_init(&p, &cfg) == NG_OK, "pipeline initialised");
	uint32_t reg = 0;
	for (int i = 0; i < 3; i++)
		reg = ng_crc_hw_word(NULL, uid[i]);
	ng_test_pipeline_crc(&p, hw_word4, reg);
	static uint32_t got[28000];
	static uint8_t out[6400];
	size_t ngot = 0, nout = 0;
	uint32_t half[NG_NOISE_HALF];
	while (fw_model.next_sample < nw) {
		convert(NG_NOISE_HALF / 2);
		while (ng_noise_read(half)) {
			memcpy(got + ngot, half, sizeof half);
			ngot += NG_NOISE_HALF;
			ng_pipeline_put_many(&p, half, NG_NOISE_HALF);
			while (nout + 32 <= sizeof out && ng_pipeline_take(&p, out + nout))
				nout += 32;
		}
	}
	ng_noise_stats st;
	ng_noise_get_stats(&st);
	CHECK(ngot == nw / NG_NOISE_HALF * NG_NOISE_HALF && !memcmp(got, adc, ngot * 4) && st.overruns == 0,
	      "all %zu words of adc.bin reached the pipeline in order (%zu read, %u overruns)",
	      nw / NG_NOISE_HALF * NG_NOISE_HALF, ngot, st.overruns);
	CHECK(nout > 0 && !memcmp(out, m0, nout) && nout == (ngot / 140) * 32,
	      "hardware-CRC pipeline output = out-adc-m0.bin (%zu bytes)", nout);
	CHECK(fw_model.errors == 0, "no model errors (%s)", fw_model.why);

	/* Overrun: the main loop does not read for three halves. */
	fw_model.next_sample = 0;
	ng_noise_start();
	convert(3 * NG_NOISE_HALF);
	ng_noise_get_stats(&st);
	CHECK(st.overruns == 1 && ng_noise_stopped() && !fw_model.adc_running &&
	      !(NG_RD(NG_DMA_CCR1) & NG_DMA_CCR_EN), "an unread half being overwritten stops the source and counts an overrun");
	bool r1 = ng_noise_read(half);
	bool first_ok = r1 && !memcmp(half, adc + NG_NOISE_HALF, sizeof half);
	bool r2 = ng_noise_read(half);
	CHECK(first_ok && !r2, "only the intact half (words %u..%u) is delivered, the overwritten one never",
	      NG_NOISE_HALF, 2 * NG_NOISE_HALF - 1);
	convert(NG_NOISE_HALF);
	CHECK(!ng_noise_read(half), "a stopped source delivers nothing");
	ng_noise_start();
	size_t at = fw_model.next_sample;
	convert(NG_NOISE_HALF);
	CHECK(ng_noise_read(half) && !memcmp(half, adc + at, sizeof half) && !ng_noise_stopped(),
	      "after a restart, data flows again from half 0");

	/* The overwrite race: the DMA enters the half the main loop is copying
	 * before the interrupt has run. */
	ng_noise_start();
	convert(NG_NOISE_HALF);          /* HT: half 0 ready */
	fw_model.irq_enabled = false;    /* the ISR is held off... */
	convert(NG_NOISE_HALF + 1);      /* TC pending, the DMA writes half 0 again */
	fw_model.irq_enabled = true;
	uint32_t before = st.overruns;
	ng_noise_get_stats(&st);
	before = st.overruns;
	bool r = ng_noise_read(half);
	ng_noise_get_stats(&st);
	CHECK(!r && st.overruns == before + 1 && ng_noise_stopped(),
	      "a half overwritten while being read is dropped and counted");

	/* DMA transfer error. */
	ng_noise_start();
	*fw_plain(NG_DMA_ISR) |= NG_DMA_TEIF1 | NG_DMA_GIF1;
	ng_noise_isr();
	ng_noise_get_stats(&st);
	CHECK(st.dma_errors == 1 && ng_noise_stopped() && !ng_noise_read(half), "a DMA transfer error stops the source and is counted");

	/* The CRC unit driver against core's software CRC. */
	ng_crc_hw_init();
	ng_crc32_ctx sw;
	ng_crc32_reset(&sw);
	uint64_t s = ng_test_seed();
	int same = 1;
	for (int i = 0; i < 1000; i++) {
		uint32_t w = (uint32_t)ng_test_rand(&s);
		same &= ng_crc_hw_word(NULL, w) == ng_crc32_word(&sw, w);
	}
	CHECK(same, "CRC unit driver = ng_crc32_word over 1000 random words");
	free(adc);
	free((void *)m0);
	return ng_check_exit();
}
