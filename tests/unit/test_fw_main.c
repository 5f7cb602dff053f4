/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The whole firmware on the host: main.c's power-up and main loop with
 * every driver (clock, board, LED, CRC unit, ADC/DMA noise source, USB)
 * over the register model (fw_model.h), the real core/ and usb/. The model
 * plays the host (enumeration, line coding, DTR, bulk IN) and the ADC
 * (adc.bin through DMA1 channel 1) and holds the unique ID of the vectors,
 * so the bytes read from bulk IN must be out-adc-m0.bin. Then: a host that
 * stops reading stops the ADC (no overrun), a main loop that falls behind
 * is reported (GET_INFO 33) and recovers, DTR off stops the ADC, and the
 * LED pattern follows the state. */
#define NG_FW_HOST_MODEL 1
#define NG_BOARD_HEADER "boards/blue-pill.h"
#include "fw_model.h"
#include "../../firmware/stm32f103/clock.c"
#include "../../firmware/stm32f103/board.c"
#include "../../firmware/stm32f103/led.c"
#include "../../firmware/stm32f103/crc_hw.c"
#include "../../firmware/stm32f103/noise.c"
#include "../../firmware/stm32f103/dcd_stm32f1.c"
#include "../../firmware/stm32f103/main.c"
#include <stdlib.h>
#include "check.h"

/* The device between two packets: pending interrupts, then one loop pass. */
static void device(void)
{
	for (int i = 0; i < 64 && fw_usb_irq_pending(); i++)
		ng_stm32_usb_isr();
	ng_fw_poll();
}

/* n conversions, with the DMA interrupt when the model raises it. */
static void convert(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (fw_adc_convert(1) && fw_model.irq_enabled)
			ng_noise_isr();
}

static uint32_t info32(uint16_t index, int *bad)
{
	uint8_t b[4] = { 0 };
	return control(0xC0, 254, 0, index, 4, b, bad) == 4 ? ng_get_le32(b) : 0xFFFFFFFFu;
}

int main(void)
{
	size_t nw, m0_len;
	uint32_t *adc = ng_test_vector_words("adc.bin", &nw);
	const uint8_t *m0 = ng_test_vector("out-adc-m0.bin", &m0_len);
	uint8_t buf[256];
	int bad = 0;

	fw_model_reset();
	fw_spin = device;
	fw_model.samples = adc;
	fw_model.nsamples = nw;
	fw_model.dma_mem = ng_noise_buf;
	/* The unique ID the vectors were made with (RM0008 30.2). */
	*fw_plain(NG_UID_BASE) = 0x12345678u;
	*fw_plain(NG_UID_BASE + 4) = 0x9abcdef0u;
	*fw_plain(NG_UID_BASE + 8) = 0x0fedcba9u;

	ng_clock_init(); /* what startup.c does before main */
	uint32_t cfgr = NG_RD(NG_RCC_CFGR);
	CHECK((cfgr & (0xFu << 18)) == NG_RCC_CFGR_PLLMUL(9) && (cfgr & NG_RCC_CFGR_PLLSRC_HSE) &&
	      !(cfgr & NG_RCC_CFGR_USBPRE_DIV1) && (cfgr & (7u << 8)) == NG_RCC_CFGR_PPRE1_DIV2 &&
	      (cfgr & (7u << 11)) == 0 && (cfgr & (3u << 14)) == NG_RCC_CFGR_ADCPRE_DIV8 &&
	      (cfgr & 3u) == 2u && (NG_RD(NG_FLASH_ACR) & 7u) == 2u && (NG_RD(NG_RCC_CR) & NG_RCC_CR_PLLON),
	      "clocks: 8 MHz x9 = 72 MHz from HSE, USB /1.5 = 48, APB1 /2, APB2 /1, ADC /8, flash 2 wait states");
	ng_fw_init();
	CHECK(ng_fw_selftest_ok, "power-up: ng_selftest and the CRC unit check pass");
	CHECK(((NG_RD(NG_GPIO_CRH(NG_GPIOC)) >> 20) & 0xFu) == NG_GPIO_MODE_OUT_PP &&
	      ((NG_RD(NG_GPIO_CRL(NG_GPIOA)) >> 0) & 0xFu) == NG_GPIO_MODE_IN_PULL &&
	      ((NG_RD(NG_GPIO_CRL(NG_GPIOA)) >> 4) & 0xFu) == NG_GPIO_MODE_IN_PULL,
	      "Blue Pill: LED PC13 output, noise pins PA0/PA1 inputs with pull-up");
	CHECK(!fw_model.adc_running, "no host yet: the ADC is not running");
	ng_fw_poll();
	CHECK(ng_led_pattern == NG_LED_NO_HOST, "LED: no host");

	fw_host_reset();
	device();
	CHECK(control(0x80, 6, 0x0100, 0, 18, buf, &bad) == 18 && buf[8] == 0x4b && buf[9] == 0x23,
	      "enumeration: device descriptor 234b:0001");
	control(0x00, 5, 3, 0, 0, NULL, &bad);
	fw_model.host_addr = 3;
	CHECK(control(0x00, 9, 1, 0, 0, NULL, &bad) == 0 && ng_led_pattern == NG_LED_IDLE,
	      "SET_ADDRESS(3), SET_CONFIGURATION(1); LED: idle (no DTR)");
	CHECK(info32(NG_INFO_SELFTEST, &bad) == 0 && info32(NG_INFO_SOURCE_ERRORS, &bad) == 0,
	      "GET_INFO 34: self-test passed; 33: no source errors");
	uint8_t lc[7] = { 0x00, 0xC2, 0x01, 0x00, 0, 0, 8 };
	control(0x21, 0x20, 0, 0, 7, lc, &bad);
	control(0x21, 0x22, 1, 0, 0, NULL, &bad);
	CHECK(fw_model.adc_running && ng_neug_dtr(&ng_dev), "DTR: the main loop starts the ADC");

	/* Conversions and host reads interleaved, as on the bus. */
	static uint8_t out[6400];
	size_t nout = 0;
	int saw_starting = 0, saw_running = 0;
	while (fw_model.next_sample + 16 <= nw && nout < sizeof out) {
		convert(16);
		device();
		uint32_t len;
		int tog;
		if (fw_host_in(1, buf, &len, &tog) == FW_ACK) {
			if (nout + len <= sizeof out)
				memcpy(out + nout, buf, len);
			nout += len;
		}
		device();
		saw_starting |= ng_led_pattern == NG_LED_STARTING;
		saw_running |= ng_led_pattern == NG_LED_RUNNING;
	}
	ng_noise_stats ns;
	ng_noise_get_stats(&ns);
	CHECK(nout >= 6000 && !memcmp(out, m0, nout < m0_len ? nout : m0_len),
	      "bulk IN: %zu bytes = out-adc-m0.bin (the firmware's whole path, hardware CRC, UID from the signature)", nout);
	CHECK(ns.overruns == 0 && ns.dma_errors == 0, "no overrun while the host keeps up (%u halves read)", ns.halves);
	CHECK(saw_starting && saw_running, "LED: start-up test, then running");

	/* The host stops reading: output fills, the ADC is stopped, no overrun. */
	fw_model.next_sample = 0;
	for (int i = 0; i < 400; i++) {
		convert(32);
		device();
	}
	ng_noise_get_stats(&ns);
	CHECK(!fw_model.adc_running && ns.overruns == 0 && ng_neug_wants_samples(&ng_dev) == 0,
	      "host not reading: output full, ADC stopped, no overrun counted");

	/* Reading again restarts it. */
	uint32_t len;
	int tog, got = 0;
	for (int i = 0; i < 200 && !fw_model.adc_running; i++) {
		got += fw_host_in(1, buf, &len, &tog) == FW_ACK;
		device();
	}
	CHECK(got > 0 && fw_model.adc_running, "host reads again: the ADC restarts");

	/* The main loop falls behind (three halves converted between passes). */
	uint32_t before = ns.overruns;
	convert(3 * NG_NOISE_HALF);
	ng_noise_get_stats(&ns);
	CHECK(ns.overruns == before + 1 && !fw_model.adc_running, "a half overwritten before it was read: an overrun, the source stops");
	device();
	CHECK(fw_model.adc_running, "the main loop restarts the source");
	CHECK(info32(NG_INFO_SOURCE_ERRORS, &bad) == before + 1, "GET_INFO 33 reports the overrun");

	/* DTR off: no more samples wanted, the ADC stops, LED idle. */
	control(0x21, 0x22, 0, 0, 0, NULL, &bad);
	device();
	CHECK(!fw_model.adc_running && ng_led_pattern == NG_LED_IDLE, "DTR off: ADC stopped, LED idle");
	CHECK(!bad, "every control transfer had the right toggles");
	CHECK(fw_model.errors == 0, "no model errors (%s)", fw_model.why);
	free(adc);
	free((void *)m0);
	return ng_check_exit();
}
