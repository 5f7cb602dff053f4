/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The whole firmware on the host: startup's clock init, main.c's power-up
 * and main loop with every driver (clock, board, LED, CRC unit, ADC/DMA
 * noise source, USB) over the register model written from RM0008
 * (fw_model.h: model time, interrupts taken between register accesses, the
 * ADC's ADON rules, DMA, USB), the real core/ and usb/. The model plays the
 * host (enumeration, line coding, DTR, bulk IN) and the ADC (adc.bin words
 * through DMA1 channel 1) and holds the unique ID of the vectors, so the
 * bytes read from bulk IN must be out-adc-m0.bin.
 *
 * Issue 17's findings, as this test checks them:
 *   1  the sampling regime: fast interleaved (DUALMOD 0111), SCAN, the
 *      sequences, 1.5-cycle sampling, ADC clock 12 MHz, DMA per batch of
 *      56/64/20 (conditioned), 32 (CRC32), 8 (raw), both CR2 = 0 after
 *      every batch, one power-up per batch, an output's batches gathered
 *      in one group buffer for the main loop; a main loop that does not come
 *      back for 20 ms loses nothing (no overrun)
 *   2  a dead ADC (constant half-word, the other live at ~3 bits) and the
 *      reverse: the start-up estimate refuses, LED, GET_INFO, no byte out
 *   3  no stray conversion: ADON never written 1 while 1 with nothing else
 *   4  the clock source in GET_INFO (HSE here; test_fw_clock.c the rest)
 *   6  suspend: ADCs off, LPMODE, WFI; resume: output flows again */
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
#include "fw_main_model.h"
#include <stdlib.h>
#include "check.h"

/* The device between two packets: one main-loop pass (interrupts are taken
 * by the model as they come). */
static void device(void)
{
	ng_fw_poll();
}

static uint32_t info32(uint16_t index, int *bad)
{
	uint8_t b[4] = { 0 };
	return control(0xC0, 254, 0, index, 4, b, bad) == 4 ? ng_get_le32(b) : 0xFFFFFFFFu;
}

/* What DMA batch sizes were programmed (CNDTR writes), in order, and
 * where (CMAR, in words from the start of the group buffers). */
static uint32_t batch_log[64], cmar_log[64], nbatch_log;
static void note_batches(void)
{
	static uint32_t last_powerups;
	if (fw_model.adc_powerups != last_powerups && nbatch_log < 64) {
		cmar_log[nbatch_log] = (*fw_plain(NG_DMA_CMAR1) - NG_DMA_ADDR(ng_noise_buf)) / 4u;
		batch_log[nbatch_log++] = *fw_plain(NG_DMA_CNDTR1 + 0x100u);
	}
	last_powerups = fw_model.adc_powerups;
}

static void power_up(const uint32_t *samples, size_t n)
{
	fw_main_power_up(samples, n);
}

static void host_open(uint8_t parity, int *bad)
{
	CHECK(fw_main_open(parity, bad),
	      "enumeration: device descriptor 234b:0001, SET_ADDRESS(3), SET_CONFIGURATION(1)");
}

/* Bulk IN for a while: up to max bytes into out; returns the count. */
static size_t host_read(uint8_t *out, size_t max, int passes)
{
	size_t nout = 0;
	uint8_t buf[64];
	for (int i = 0; i < passes && nout < max; i++) {
		fw_model_advance(20000); /* 20 us of conversions */
		device();
		note_batches();
		uint32_t len;
		int tog;
		if (fw_host_in(1, buf, &len, &tog) == FW_ACK) {
			if (nout + len <= max)
				memcpy(out + nout, buf, len);
			nout += len;
		}
		device();
	}
	return nout;
}

/* Words with ADC1's half-word live (about 3 bits: 8 values, one a little
 * more likely) and ADC2's constant (a pin stuck at VDD), or the reverse. */
static uint32_t *dead_adc_words(size_t n, int dead)
{
	uint32_t *w = malloc(n * 4);
	uint64_t s = ng_test_seed();
	for (size_t i = 0; i < n; i++) {
		uint32_t r = (uint32_t)ng_test_rand(&s);
		uint32_t live = 1500u + (r % 9u < 8u ? r % 8u : 0u), stuck = 4095u;
		w[i] = dead == 2 ? (stuck << 16) | live : (live << 16) | stuck;
	}
	return w;
}

int main(void)
{
	size_t nw, m0_len;
	uint32_t *adc = ng_test_vector_words("adc.bin", &nw);
	const uint8_t *m0 = ng_test_vector("out-adc-m0.bin", &m0_len);
	uint8_t buf[256];
	int bad = 0;

	power_up(adc, nw);
	CHECK(ng_fw_selftest_ok, "power-up: ng_selftest and the CRC unit check pass");
	CHECK(fw_model.next_sample >= NG_MCV_SAMPLES, "power-up: the start-up estimate read %zu words (%u wanted)",
	      fw_model.next_sample, NG_MCV_SAMPLES);
	uint32_t m1, m2, ns_status = ng_fw_noise_state(&m1, &m2);
	CHECK(ns_status == 0 && m1 > 0 && m2 > 0 && m1 <= ng_mcv_max_count(4096, 2) && m2 <= ng_mcv_max_count(4096, 2),
	      "adc.bin passes the start-up estimate (mode counts %u, %u of 4096; limit %u)", m1, m2,
	      ng_mcv_max_count(4096, 2));
	CHECK(((NG_RD(NG_GPIO_CRH(NG_GPIOC)) >> 20) & 0xFu) == NG_GPIO_MODE_OUT_PP &&
	      ((NG_RD(NG_GPIO_CRL(NG_GPIOA)) >> 0) & 0xFu) == NG_GPIO_MODE_IN_PULL &&
	      ((NG_RD(NG_GPIO_CRL(NG_GPIOA)) >> 4) & 0xFu) == NG_GPIO_MODE_IN_PULL,
	      "Blue Pill: LED PC13 output, noise pins PA0/PA1 inputs with pull-up");
	CHECK(!fw_model.adc_running && NG_RD(NG_ADC_CR2(NG_ADC1)) == 0 && NG_RD(NG_ADC_CR2(NG_ADC2)) == 0,
	      "no host yet: both ADCs powered down (CR2 = 0)");
	ng_fw_poll();
	CHECK(ng_led_pattern == NG_LED_NO_HOST, "LED: no host");

	/* From here the host sees the vectors' stream from its first word. */
	fw_model.next_sample = 0;
	uint32_t stray0 = fw_model.adc_stray;
	host_open(0, &bad);
	CHECK(ng_neug_dtr(&ng_dev) && fw_model.adc_powerups > 0, "DTR: the main loop starts the batches");
	CHECK(info32(NG_INFO_SELFTEST, &bad) == 0 && info32(NG_INFO_SOURCE_ERRORS, &bad) == 0,
	      "GET_INFO 34: self-test passed; 33: no source errors");
	CHECK(info32(NG_INFO_CLOCK, &bad) == NG_CLOCK_HSE && info32(NG_INFO_STARTUP, &bad) == 0 &&
	      info32(NG_INFO_STARTUP_MODE1, &bad) == m1 && info32(NG_INFO_STARTUP_MODE2, &bad) == m2 &&
	      info32(NG_INFO_STARTUP_N, &bad) == 4096,
	      "GET_INFO 35..39: clock HSE, start-up estimate passed, mode counts %u and %u of 4096", m1, m2);

	/* Finding 1: the regime, register for register (RM0008 11.12). */
	uint32_t cr1 = NG_RD(NG_ADC_CR1(NG_ADC1));
	CHECK(((cr1 >> 16) & 0xFu) == 7u && (cr1 & NG_ADC_CR1_SCAN) && (NG_RD(NG_ADC_CR1(NG_ADC2)) & NG_ADC_CR1_SCAN) &&
	      ((NG_RD(NG_ADC_CR1(NG_ADC2)) >> 16) & 0xFu) == 0,
	      "ADC1: fast interleaved dual mode (DUALMOD 0111), SCAN on both");
	CHECK((NG_RD(NG_ADC_SQR3(NG_ADC1)) & 0xFFFFFu) == (17u | 16u << 5 | 16u << 10 | 17u << 15) &&
	      ((NG_RD(NG_ADC_SQR1(NG_ADC1)) >> 20) & 0xFu) == 3u,
	      "ADC1 sequence: Vrefint, temperature, temperature, Vrefint");
	CHECK((NG_RD(NG_ADC_SQR3(NG_ADC2)) & 0xFFFFFu) == (0u | 1u << 5 | 0u << 10 | 1u << 15) &&
	      ((NG_RD(NG_ADC_SQR1(NG_ADC2)) >> 20) & 0xFu) == 3u,
	      "ADC2 sequence: the Blue Pill's pulled-up IN0 (PA0) and IN1 (PA1)");
	CHECK(NG_RD(NG_ADC_SMPR1(NG_ADC1)) == 0 && NG_RD(NG_ADC_SMPR2(NG_ADC1)) == 0 &&
	      NG_RD(NG_ADC_SMPR1(NG_ADC2)) == 0 && NG_RD(NG_ADC_SMPR2(NG_ADC2)) == 0 && fw_adc_hz() == 12000000u,
	      "1.5-cycle sampling on every channel, ADC clock 12 MHz (got %u Hz)", fw_adc_hz());

	/* Conversions and host reads interleaved, as on the bus. */
	static uint8_t out[6400];
	nbatch_log = 0;
	size_t nout = host_read(out, sizeof out, 4000);
	ng_noise_stats ns;
	ng_noise_get_stats(&ns);
	CHECK(nout >= 6000 && !memcmp(out, m0, nout < m0_len ? nout : m0_len),
	      "bulk IN: %zu bytes = out-adc-m0.bin (the firmware's whole path, hardware CRC, UID from the signature)", nout);
	CHECK(nbatch_log >= 6 && batch_log[0] == 56 && batch_log[1] == 64 && batch_log[2] == 20 && batch_log[3] == 56 &&
	      batch_log[4] == 64 && batch_log[5] == 20, "conditioned mode: DMA batches of 56, 64, 20 words (got %u %u %u %u)",
	      batch_log[0], batch_log[1], batch_log[2], batch_log[3]);
	CHECK(nbatch_log >= 6 && cmar_log[0] == 0 && cmar_log[1] == 56 && cmar_log[2] == 120 && cmar_log[3] == 140 &&
	      cmar_log[4] == 196 && cmar_log[5] == 260,
	      "an output's three batches land one after the other in one 140-word group buffer (words %u %u %u, %u %u %u)",
	      cmar_log[0], cmar_log[1], cmar_log[2], cmar_log[3], cmar_log[4], cmar_log[5]);
	CHECK(ns.powerups >= ns.batches && ns.batches > 10 && fw_model.adc_powerups >= ns.batches,
	      "both ADCs powered up once per batch (%u batches, %u power-ups)", ns.batches, fw_model.adc_powerups);
	CHECK(fw_model.adc_stray == stray0 && fw_model.adc_stray == 0,
	      "no stray conversion: ADON never rewritten alone (%u)", fw_model.adc_stray);
	CHECK(fw_model.adc_lost == 0, "every conversion of a batch reached memory (%u lost)", fw_model.adc_lost);

	fw_model.samples_wrap = true; /* beyond the vectors: adc.bin again */

	/* Between batches: CR2 = 0 on both. Run until a batch ends with the
	 * main loop away: the interrupt has powered both down. */
	for (int i = 0; i < 8; i++) { /* make room: the device wants samples */
		uint32_t l;
		int tg;
		fw_host_in(1, buf, &l, &tg);
		device();
	}
	CHECK(ng_neug_wants_samples(&ng_dev) > 0, "the device wants samples when the main loop goes away");
	fw_model_advance(50000000); /* 50 ms without the main loop */
	CHECK(NG_RD(NG_ADC_CR2(NG_ADC1)) == 0 && NG_RD(NG_ADC_CR2(NG_ADC2)) == 0 && !fw_model.adc_running,
	      "main loop away for 50 ms: both ADCs powered down (CR2 = 0) after their batches, not converting");
	CHECK(fw_model.adc_lost == 0 && info32(NG_INFO_SOURCE_ERRORS, &bad) == 0,
	      "a main loop too slow for the ADC loses nothing: no overrun (GET_INFO 33 = 0, %u lost)", fw_model.adc_lost);
	size_t more = host_read(out, sizeof out, 400);
	CHECK(more > 0 && fw_model.adc_stray == 0, "and output goes on when it comes back (%zu bytes)", more);

	/* The other modes' batches. */
	uint8_t lc[7] = { 0x00, 0xC2, 0x01, 0x00, 0, 1, 8 }; /* odd parity: CRC32 */
	control(0x21, 0x20, 0, 0, 7, lc, &bad);
	nbatch_log = 0;
	host_read(out, sizeof out, 200);
	CHECK(nbatch_log >= 2 && batch_log[nbatch_log - 1] == 32 && batch_log[nbatch_log - 2] == 32,
	      "CRC32 mode: batches of 32 words");
	lc[5] = 2; /* even: raw */
	control(0x21, 0x20, 0, 0, 7, lc, &bad);
	nbatch_log = 0;
	host_read(out, sizeof out, 200);
	CHECK(nbatch_log >= 2 && batch_log[nbatch_log - 1] == 8 && batch_log[nbatch_log - 2] == 8,
	      "raw mode: batches of 8 words");
	CHECK(fw_model.adc_stray == 0, "no stray conversion across mode changes (%u)", fw_model.adc_stray);
	lc[5] = 0;
	control(0x21, 0x20, 0, 0, 7, lc, &bad);

	/* The host stops reading: output fills, the ADCs are powered down. */
	for (int i = 0; i < 400; i++) {
		fw_model_advance(20000);
		device();
	}
	CHECK(!fw_model.adc_running && NG_RD(NG_ADC_CR2(NG_ADC1)) == 0 && ng_neug_wants_samples(&ng_dev) == 0,
	      "host not reading: output full, ADCs powered down");
	uint32_t len;
	int tog, got = 0;
	uint32_t pu = fw_model.adc_powerups;
	for (int i = 0; i < 200 && fw_model.adc_powerups == pu; i++) {
		got += fw_host_in(1, buf, &len, &tog) == FW_ACK;
		device();
	}
	CHECK(got > 0 && fw_model.adc_powerups > pu, "host reads again: batches start again");

	/* Finding 6: suspend. */
	fw_host_suspend();
	for (int i = 0; i < 5; i++)
		device();
	uint32_t cntr = NG_RD(NG_USB_CNTR);
	CHECK((cntr & NG_CNTR_FSUSP) && (cntr & NG_CNTR_LPMODE) && !(fw_model.istr & NG_ISTR_SUSP) &&
	      NG_RD(NG_ADC_CR2(NG_ADC1)) == 0 && NG_RD(NG_ADC_CR2(NG_ADC2)) == 0 && fw_model.wfi > 0 &&
	      ng_led_pattern == NG_LED_OFF,
	      "suspend: FSUSP, LPMODE, ADCs powered down, WFI, LED dark");
	fw_host_resume();
	for (int i = 0; i < 5; i++)
		device();
	pu = fw_model.adc_powerups;
	more = host_read(out, sizeof out, 100);
	CHECK(!(NG_RD(NG_USB_CNTR) & (NG_CNTR_FSUSP | NG_CNTR_LPMODE)) && more > 0 && fw_model.adc_powerups > pu,
	      "resume: FSUSP and LPMODE cleared, batches and output again");

	/* DTR off: no more samples wanted, the ADCs stop, LED idle. */
	control(0x21, 0x22, 0, 0, 0, NULL, &bad);
	device();
	CHECK(!fw_model.adc_running && NG_RD(NG_ADC_CR2(NG_ADC1)) == 0, "DTR off: ADCs powered down at once");
	fw_model_advance(1000000); /* the LED's pattern is chosen once a millisecond */
	device();
	CHECK(ng_led_pattern == NG_LED_IDLE, "DTR off: LED idle within 1 ms");
	CHECK(fw_model.adc_stray == 0, "no stray conversion in the whole run (%u)", fw_model.adc_stray);
	CHECK(!bad, "every control transfer had the right toggles");
	CHECK(fw_model.errors == 0, "no model errors (%s)", fw_model.why);

	/* Finding 2: a dead ADC fails closed on the firmware path. */
	for (int dead = 2; dead >= 1; dead--) {
		size_t n = 40000;
		uint32_t *w = dead_adc_words(n, dead);
		power_up(w, n);
		ns_status = ng_fw_noise_state(&m1, &m2);
		CHECK(ns_status == (dead == 2 ? NG_FW_NOISE_ADC2_WEAK : NG_FW_NOISE_ADC1_WEAK),
		      "ADC%d constant, ADC%d live (~3 bits): the start-up estimate refuses ADC%d (status %u, modes %u %u)",
		      dead, 3 - dead, dead, ns_status, m1, m2);
		bad = 0;
		uint32_t pu0 = fw_model.adc_powerups;
		host_open(0, &bad);
		CHECK(info32(NG_INFO_SELFTEST, &bad) == 2 && info32(NG_INFO_STARTUP, &bad) == (uint32_t)dead &&
		      info32(NG_INFO_STARTUP_MODE1 + (dead - 1), &bad) == 4096,
		      "GET_INFO 34 and 36 report the refusal of ADC%d, 37/38 its mode count 4096", dead);
		size_t k = host_read(out, sizeof out, 300);
		CHECK(k == 0 && fw_model.adc_powerups == pu0 && !fw_model.adc_running,
		      "mode 0: no byte out (%zu), the ADCs stay off", k);
		lc[5] = 2;
		control(0x21, 0x20, 0, 0, 7, lc, &bad);
		k = host_read(out, sizeof out, 300);
		CHECK(k == 0, "raw mode: no byte out either (%zu)", k);
		CHECK(ng_led_pattern == (dead == 2 ? NG_LED_NOISE_WEAK2 : NG_LED_NOISE_WEAK1),
		      "LED: the weak-noise pattern of ADC%d", dead);
		lc[5] = 0;
		free(w);
	}
	/* An ADC that dies after the start-up estimate: the pipeline's per-ADC
	 * raw-sample tests (RCT/APT on each half-word, H = 1.0) stop it. */
	for (int dead = 2; dead >= 1; dead--) {
		size_t n = 60000;
		uint32_t *w = malloc(n * 4);
		for (size_t i = 0; i < n; i++) {
			uint32_t a1 = adc[i % nw] & 0xFFFFu, a2 = adc[i % nw] >> 16;
			if (i >= 4300)
				*(dead == 2 ? &a2 : &a1) = 4095u;
			w[i] = a2 << 16 | a1;
		}
		power_up(w, n);
		CHECK(ng_fw_noise_state(&m1, &m2) == 0, "ADC%d alive at power-up: the start-up estimate passes", dead);
		bad = 0;
		host_open(0, &bad);
		size_t k = host_read(out, sizeof out, 600);
		ng_pipeline_stats pst;
		ng_neug_get_stats(&ng_dev, &pst);
		CHECK(k == 0 && (pst.status & NG_HEALTH_PERSISTENT) && ng_led_pattern == NG_LED_FAILURE &&
		      (info32(NG_INFO_STATUS, &bad) & NG_HEALTH_PERSISTENT),
		      "ADC%d stuck after start-up: the per-ADC tests latch a failure, no byte out (%zu), LED failure, "
		      "GET_INFO 16 says so", dead, k);
		free(w);
	}
	free(adc);
	free((void *)m0);
	return ng_check_exit();
}
