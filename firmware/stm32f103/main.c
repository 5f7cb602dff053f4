/* SPDX-License-Identifier: GPL-3.0-or-later */
/* NeuG on the STM32F103: power-up self-test, then one loop. Interrupts
 * (DMA half/full, USB, SysTick) only capture state; everything else runs
 * here, in this order:
 *   1. ng_neug_task: USB events (chapter 9, CDC, mass storage, GET_INFO)
 *      and released 32-byte blocks to the CDC bulk IN endpoint
 *   2. noise: while the device wants samples (host holds DTR, output room,
 *      no persistent failure) the ADC runs and each ready half buffer goes
 *      through the pipeline (health tests, CRC unit, conditioning); when it
 *      wants none the ADC is stopped, which is not an error. An overrun
 *      (a half the DMA had to overwrite) stops the source; it is counted
 *      (GET_INFO 33) and the source restarted; a failed power-up self-test
 *      (GET_INFO 34) means no output at all
 *   3. the LED shows the state (fw.h, doc/firmware.md). */
#include <string.h>
#include "fw.h"
#include "board.h"
#include "dcd_stm32f1.h"
#include "neug_device.h"
#include "ng/crc32.h"
#include "ng/selftest.h"

#ifndef NG_FW_REVISION
#define NG_FW_REVISION "NeuG-ng 0.1"
#endif

static ng_neug_dev ng_dev;
static uint32_t ng_half[NG_NOISE_HALF];
_Static_assert(sizeof ng_half == NG_NOISE_HALF * 4u, "one DMA half");

/* The CRC unit must compute exactly what core's software CRC does, word by
 * word and four words per call. */
static bool ng_crc_hw_selftest(void)
{
	ng_crc32_ctx sw;
	ng_crc32_reset(&sw);
	ng_crc_hw_init();
	uint32_t w = 0x12345678u, same = 1;
	for (uint32_t i = 0; i < 16; i++, w = w * 1664525u + 1013904223u)
		same &= ng_crc_hw_word(NULL, w) == ng_crc32_word(&sw, w);
	uint32_t four[4];   /* and the four-word path (cfg.crc4) */
	for (uint32_t i = 0; i < 4; i++, w = w * 1664525u + 1013904223u)
		four[i] = w;
	uint32_t r4 = ng_crc_hw_words4(NULL, four);
	for (uint32_t i = 0; i < 4; i++)
		ng_crc32_word(&sw, four[i]);
	same &= r4 == sw.reg;
	return same != 0;
}

static bool ng_fw_selftest_ok;

/* GET_INFO 33 and 34 (usb/neug_device.h): what only the firmware knows. */
static uint32_t ng_fw_app_info(void *user, uint16_t index)
{
	(void)user;
	if (index == NG_INFO_SELFTEST)
		return ng_fw_selftest_ok ? 0u : 1u;
	ng_noise_stats st;
	ng_noise_get_stats(&st);
	return st.overruns + st.dma_errors;
}

static bool ng_fw_running;
static uint64_t ng_fw_shown;

/* Power-up: clocks are set (startup.c); self-test, device, noise source. */
void ng_fw_init(void)
{
	ng_systick_init();
	ng_board_init();
	ng_led_set(NG_LED_STARTING);
	ng_led_poll(ng_millis());
	bool ok = ng_selftest() == NG_OK && ng_crc_hw_selftest();

	ng_neug_config cfg = { .adc_h_milli = NG_DEFAULT_ADC_H_MILLI, .crc_dr = ng_crc_hw_dr(),
			       .board = NG_BOARD_NAME, .revision = NG_FW_REVISION, .app_info = ng_fw_app_info };
	ng_uid_read(cfg.uid);
	ng_crc_hw_init(); /* reset once; the pipeline feeds the unique ID, then it runs on */
	if (ng_neug_init(&ng_dev, &cfg, &ng_stm32_dcd_ops, NULL) != NG_OK)
		ok = false;
	ng_fw_selftest_ok = ok;
	ng_noise_init();
	ng_neug_connect(&ng_dev, true);
}

/* One pass of the main loop. */
void ng_fw_poll(void)
{
	ng_neug_task(&ng_dev);

	size_t want = ng_fw_selftest_ok ? ng_neug_wants_samples(&ng_dev) : 0;
	if (want && (!ng_fw_running || ng_noise_stopped())) {
		ng_noise_start(); /* after an overrun too: it has been counted */
		ng_fw_running = true;
	} else if (!want && ng_fw_running) {
		ng_noise_stop();
		ng_fw_running = false;
	}
	while (want && ng_noise_read(ng_half)) {
		ng_neug_put_samples(&ng_dev, ng_half, NG_NOISE_HALF);
		want = ng_neug_wants_samples(&ng_dev);
	}

	ng_pipeline_stats st;
	ng_neug_get_stats(&ng_dev, &st);
	if (!ng_fw_selftest_ok || (st.status & NG_HEALTH_PERSISTENT))
		ng_led_set(NG_LED_FAILURE);
	else if (!ng_usbd_configuration(ng_neug_usbd(&ng_dev)))
		ng_led_set(NG_LED_NO_HOST);
	else if (!ng_neug_dtr(&ng_dev))
		ng_led_set(NG_LED_IDLE);
	else if (st.status & NG_HEALTH_STARTUP)
		ng_led_set(NG_LED_STARTING);
	else
		ng_led_set(NG_LED_RUNNING);
	if (st.blocks_out - ng_fw_shown >= 32) {
		ng_fw_shown = st.blocks_out;
		ng_led_activity();
	}
	ng_led_poll(ng_millis());
}

#ifndef NG_FW_HOST_MODEL /* the host test (tests/unit/test_fw_main.c) drives the two above */
int main(void)
{
	ng_fw_init();
	for (;;)
		ng_fw_poll();
}
#endif
