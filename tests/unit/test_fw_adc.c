/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The STM32 noise source driver (firmware/stm32f103/noise.c) and CRC unit
 * driver (crc_hw.c) against the register model written from RM0008
 * (fw_model.h) that converts the words of adc.bin through DMA1 channel 1 in
 * model time: batches of NeuG's sizes gathered in groups of one output's
 * words, every word reaches the pipeline in order, the hardware-CRC
 * pipeline gives out-adc-m0.bin, no stray conversion, a full pair of
 * buffers stops the ADCs instead of losing words, a mode change drops a
 * partial group, and DMA errors are reported, not hidden. */
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

static const uint32_t uid[3] = { 0x12345678u, 0x9abcdef0u, 0x0fedcba9u };

int main(void)
{
	size_t nw, m0_len;
	uint32_t *adc = ng_test_vector_words("adc.bin", &nw);
	const uint8_t *m0 = ng_test_vector("out-adc-m0.bin", &m0_len);

	fw_model_reset();
	fw_model.samples = adc;
	fw_model.nsamples = nw;
	fw_model.dma_mem = (uint32_t *)ng_noise_buf;
	fw_model.dma_mem_words = sizeof ng_noise_buf / 4u;
	fw_model.dma_isr = ng_noise_isr;
	CHECK(ng_clock_init() == NG_CLOCK_HSE && fw_adc_hz() == 12000000u, "FST-01: 12 MHz x6, ADC clock 72 / 6 = 12 MHz");
	ng_systick_init(); /* ng_delay_us counts SysTick */
	ng_noise_init();
	CHECK(NG_RD(NG_ADC_CR2(NG_ADC1)) == 0 && NG_RD(NG_ADC_CR2(NG_ADC2)) == 0 && fw_model.adc_words == 0,
	      "after calibration both ADCs are powered down, nothing converted");
	CHECK((NG_RD(NG_ADC_SQR3(NG_ADC2)) & 0xFFFFFu) == (0u | 9u << 5 | 0u << 10 | 9u << 15),
	      "ADC2: FST-01 IN0 (PA0), IN9 (PB1), IN0, IN9");

	/* Every word reaches the pipeline in order, a group of 140 at a time
	 * (one call per output, as main.c feeds it); with the
	 * CRC unit's model as its CRC engine the output is NeuG's
	 * (out-adc-m0.bin). */
	ng_crc_hw_init();
	static ng_pipeline p;
	ng_pipeline_config cfg = { .mode = NG_MODE_CONDITIONED, .health = NG_DEFAULT_LIMITS,
				   .adc_health = NG_DEFAULT_ADC_LIMITS };
	memcpy(cfg.uid, uid, sizeof uid);
	CHECK(ng_pipeline_init(&p, &cfg) == NG_OK, "pipeline initialised");
	uint32_t reg = 0;
	for (int i = 0; i < 3; i++)
		reg = ng_crc_hw_word(NULL, uid[i]);
	ng_test_pipeline_crc(&p, hw_word4, reg);
	static uint32_t got[28000];
	static uint8_t out[6400];
	size_t ngot = 0, nout = 0, sizes_ok = 1, calls = 0;
	uint32_t cndtr_log[6] = { 0 }, cmar_log[6] = { 0 }, ncndtr = 0, pu_seen = 0;
	uint64_t t0 = fw_model.now_ns;
	ng_noise_start(NG_NOISE_SEQ_CONDITIONED);
	while (fw_model.next_sample < nw && ngot + 140 <= 28000) {
		fw_model_advance(10000);
		if (ncndtr < 6 && fw_model.adc_powerups != pu_seen) { /* the batch just armed */
			cndtr_log[ncndtr] = *fw_plain(NG_DMA_CNDTR1 + 0x100u);
			cmar_log[ncndtr++] = (*fw_plain(NG_DMA_CMAR1) - NG_DMA_ADDR(ng_noise_buf)) / 4u;
			pu_seen = fw_model.adc_powerups;
		}
		size_t n;
		const uint32_t *b;
		while ((b = ng_noise_group(&n)) != NULL) {
			sizes_ok &= n == 140;
			calls++;
			memcpy(got + ngot, b, n * 4);
			ngot += n;
			ng_pipeline_put_many(&p, b, n);
			ng_noise_release();
			while (nout + 32 <= sizeof out && ng_pipeline_take(&p, out + nout))
				nout += 32;
		}
	}
	uint64_t dt = fw_model.now_ns - t0;
	ng_noise_stats st;
	ng_noise_get_stats(&st);
	CHECK(ngot > 27000 && !memcmp(got, adc, ngot * 4) && sizes_ok && calls == ngot / 140,
	      "%zu words of adc.bin reached the pipeline in order, in %zu groups of 140", ngot, calls);
	CHECK(ncndtr == 6 && cndtr_log[0] == 56 && cndtr_log[1] == 64 && cndtr_log[2] == 20 && cndtr_log[3] == 56 &&
	      cndtr_log[4] == 64 && cndtr_log[5] == 20 && st.batches >= 3u * calls && st.batches <= 3u * calls + 6u,
	      "DMA batches of 56, 64, 20 words (%u %u %u), three per group (%u batches, %zu groups)",
	      cndtr_log[0], cndtr_log[1], cndtr_log[2], st.batches, calls);
	CHECK(ncndtr == 6 && cmar_log[0] == 0 && cmar_log[1] == 56 && cmar_log[2] == 120 && cmar_log[3] == 140 &&
	      cmar_log[4] == 140 + 56 && cmar_log[5] == 140 + 120,
	      "each batch's DMA armed after the group's words so far, groups in alternate buffers (words %u %u %u %u %u %u)",
	      cmar_log[0], cmar_log[1], cmar_log[2], cmar_log[3], cmar_log[4], cmar_log[5]);
	CHECK(nout > 0 && !memcmp(out, m0, nout) && nout == (ngot / 140) * 32,
	      "hardware-CRC pipeline output = out-adc-m0.bin (%zu bytes)", nout);
	CHECK(fw_model.adc_lost == 0 && fw_model.adc_stray == 0 && st.powerups == st.batches + (fw_model.adc_running ? 1u : 0u),
	      "no conversion lost, none stray, one power-up per batch (%u batches)", st.batches);
	/* The regime's rate on the model: words per second, power-ups included. */
	printf("# model: %zu words in %.3f ms = %.0f words/s (%.0f conversions/s) with a batch power-up each 46.7 words\n",
	       ngot, dt / 1e6, ngot / (dt / 1e9), 2.0 * ngot / (dt / 1e9));
	CHECK(fw_model.errors == 0, "no model errors (%s)", fw_model.why);

	/* A main loop that keeps both buffers: the ADCs wait, powered down,
	 * after two whole groups. */
	fw_model.samples_wrap = true; /* beyond the vectors: adc.bin again */
	uint32_t words = fw_model.adc_words;
	ng_noise_start(NG_NOISE_SEQ_CONDITIONED);
	fw_model_advance(2000000);
	ng_noise_get_stats(&st);
	uint32_t batches0 = st.batches;
	CHECK(fw_model.adc_words == words + 2u * 140u && NG_RD(NG_ADC_CR2(NG_ADC1)) == 0 && fw_model.adc_lost == 0,
	      "conditioned, nothing released: two groups of 140 converted (%u words), then none", fw_model.adc_words - words);
	size_t n;
	const uint32_t *b = ng_noise_group(&n);
	ng_noise_release();
	fw_model_advance(500000);
	ng_noise_get_stats(&st);
	CHECK(b && n == 140 && fw_model.adc_words == words + 3u * 140u && st.batches == batches0 + 3u,
	      "a release arms exactly one more group: its three batches");

	/* A mode change mid-group drops the partial group: nothing of it
	 * reaches the main loop, and the new mode's first group starts at its
	 * buffer's first word. */
	ng_noise_start(NG_NOISE_SEQ_CONDITIONED);
	uint32_t w0 = fw_model.adc_words;
	while (fw_model.adc_words < w0 + 100u)
		fw_model_advance(1000); /* within the second batch */
	ng_noise_start(NG_NOISE_SEQ_CRC32);
	CHECK(ng_noise_group(&n) == NULL && fw_model.adc_stray == 0, "mode change mid-group: the partial group is dropped");
	size_t first = fw_model.next_sample;
	fw_model_advance(100000);
	b = ng_noise_group(&n);
	CHECK(b == ng_noise_buf[0] && n == 32 && !memcmp(b, adc + (first % nw), 32 * 4),
	      "then CRC32 groups of 32 from the first word converted after the change");

	/* Raw mode: both buffers full, no conversion until a release. */
	ng_noise_start(NG_NOISE_SEQ_RAW);
	fw_model_advance(1000000);
	words = fw_model.adc_words;
	fw_model_advance(1000000);
	CHECK(fw_model.adc_words == words && NG_RD(NG_ADC_CR2(NG_ADC1)) == 0 && fw_model.adc_lost == 0,
	      "both buffers full: no conversion until the main loop releases one, none lost");
	b = ng_noise_group(&n);
	CHECK(b && n == 8, "raw mode: groups of 8");
	ng_noise_release();
	fw_model_advance(100000);
	CHECK(fw_model.adc_words == words + 8, "a release arms exactly one more group (raw: one batch of 8)");

	/* The model's overrun: a main loop that masks interrupts past a
	 * batch's end keeps the ADCs converting with nowhere to put the
	 * words (RM0008 has no overrun flag on the F1: ADC1_DR is overwritten). */
	ng_noise_stop();
	ng_noise_start(NG_NOISE_SEQ_RAW);
	fw_model.irq_enabled = false;
	uint32_t lost0 = fw_model.adc_lost;
	fw_model_advance(100000);
	CHECK(fw_model.adc_lost > lost0 && fw_model.adc_running,
	      "interrupts masked for 100 us at a batch end: the model counts %u overwritten conversions",
	      fw_model.adc_lost - lost0);
	ng_irq_enable();
	b = ng_noise_group(&n);
	CHECK(b && n == 8, "unmasked: the interrupt ends the batch (whole, 8 words) and arms the next");
	fw_model.adc_lost = lost0;

	/* Stop and start in any order: never a stray ADON write. */
	ng_noise_stop();
	ng_noise_stop();
	ng_noise_start(NG_NOISE_SEQ_CRC32);
	ng_noise_start(NG_NOISE_SEQ_CRC32);
	ng_noise_stop();
	CHECK(fw_model.adc_stray == 0, "stop, stop, start, start, stop: no stray conversion (RM0008 11.12.3)");

	/* DMA transfer error. */
	ng_noise_start(NG_NOISE_SEQ_CONDITIONED);
	*fw_plain(NG_DMA_ISR) |= NG_DMA_TEIF1 | NG_DMA_GIF1;
	fw_model_advance(100);
	ng_noise_get_stats(&st);
	CHECK(st.dma_errors == 1 && ng_noise_stopped() && NG_RD(NG_ADC_CR2(NG_ADC1)) == 0,
	      "a DMA transfer error stops the source (ADCs off) and is counted");

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
