/* SPDX-License-Identifier: GPL-3.0-or-later */
/* NeuG on the STM32F103: power-up self-test, then one loop that moves noise
 * from the ADC/DMA buffers through the pipeline (health tests, CRC unit,
 * conditioning) to USB. Interrupts (DMA half/full, USB, SysTick) only
 * capture state; everything else happens here, in this order:
 *   1. the USB task: hardware events, chapter 9, class requests, callbacks
 *   2. noise: each ready half buffer goes into the pipeline while the
 *      pipeline's output queue has room; when it is full the source is
 *      stopped (not an error) and restarted once the host has read
 *   3. released 32-byte blocks go to the CDC bulk IN endpoint
 *   4. the LED pattern follows the state. */
#include <string.h>
#include "fw.h"
#include "board.h"
#include "usb_glue.h"
#include "ng/crc32.h"
#include "ng/pipeline.h"
#include "ng/selftest.h"

/* Stop converting when this many blocks wait for the host, restart below
 * NG_FW_QUEUE_LOW (hysteresis, so that the ADC is not toggled per block). */
#ifndef NG_FW_QUEUE_HIGH
#define NG_FW_QUEUE_HIGH 4u
#endif
#define NG_FW_QUEUE_LOW 2u
_Static_assert(NG_FW_QUEUE_LOW < NG_FW_QUEUE_HIGH, "queue hysteresis");

static ng_pipeline ng_pipe;
static uint32_t ng_half[NG_NOISE_HALF];
static uint32_t ng_fw_status; /* NG_FW_* below, for GET_INFO and the LED */
#define NG_FW_SELFTEST_FAILED 0x1u

/* The CRC unit must compute exactly what core's software CRC does. */
static bool ng_crc_hw_selftest(void)
{
	ng_crc32_ctx sw;
	ng_crc32_reset(&sw);
	ng_crc_hw_init();
	uint32_t w = 0x12345678u, same = 1;
	for (uint32_t i = 0; i < 16; i++, w = w * 1664525u + 1013904223u)
		same &= ng_crc_hw_word(NULL, w) == ng_crc32_word(&sw, w);
	return same != 0;
}

static void ng_fw_pipeline_start(uint32_t mode)
{
	ng_pipeline_config cfg = { .mode = mode, .h_milli = NG_DEFAULT_H_MILLI, .crc = ng_crc_hw_word };
	ng_uid_read(cfg.uid);
	ng_crc_hw_init(); /* reset once; the pipeline feeds the unique ID */
	ng_pipeline_init(&ng_pipe, &cfg);
}

ng_pipeline *ng_fw_pipeline(void)
{
	return &ng_pipe;
}

uint32_t ng_fw_selftest_status(void)
{
	return ng_fw_status;
}

static void ng_fw_noise(bool want)
{
	bool full = ng_pipeline_ready(&ng_pipe) >= NG_FW_QUEUE_HIGH;
	if (!want || full) {
		if (!ng_noise_stopped())
			ng_noise_stop();
		return;
	}
	if (ng_noise_stopped()) {
		if (ng_pipeline_ready(&ng_pipe) >= NG_FW_QUEUE_LOW)
			return;
		ng_noise_start();
	}
	while (ng_pipeline_ready(&ng_pipe) < NG_FW_QUEUE_HIGH && ng_noise_read(ng_half))
		ng_pipeline_put_many(&ng_pipe, ng_half, NG_NOISE_HALF);
}

int main(void)
{
	ng_systick_init();
	ng_board_init();
	ng_led_set(NG_LED_STARTING);
	if (ng_selftest() != NG_OK || !ng_crc_hw_selftest())
		ng_fw_status |= NG_FW_SELFTEST_FAILED;
	ng_fw_pipeline_start(NG_MODE_CONDITIONED);
	ng_noise_init();
	ng_noise_stop(); /* "stopped": ng_fw_noise starts it when output is wanted */
	ng_fw_usb_init();

	uint32_t sent = 0;
	for (;;) {
		uint32_t now = ng_millis();
		ng_fw_usb_task();
		bool failed = (ng_fw_status & NG_FW_SELFTEST_FAILED) != 0;
		ng_pipeline_stats st;
		ng_pipeline_get_stats(&ng_pipe, &st);
		if (st.status & NG_HEALTH_PERSISTENT)
			failed = true;
		/* Fill the pipeline during start-up even before a host reads,
		 * so that the 1024-sample start-up test is done early. */
		ng_fw_noise(!failed);
		if (!failed && ng_fw_usb_send(&ng_pipe, &sent) && (sent & 31u) == 0)
			ng_led_activity();
		if (failed)
			ng_led_set(NG_LED_FAILURE);
		else if (st.status & NG_HEALTH_STARTUP)
			ng_led_set(NG_LED_STARTING);
		else
			ng_led_set(ng_fw_usb_state());
		ng_led_poll(now);
	}
}
