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
 *   3. the LED shows the state (fw.h, doc/firmware.md).
 * The boot loader left its boot record at the start of RAM (GET_INFO
 * 40..45); DFU_DETACH from the host asks it for DFU mode and resets. */
#include <string.h>
#include "fw.h"
#include "board.h"
#include "dcd_stm32f1.h"
#include "neug_device.h"
#include "stm32f103.h"
#include "ng/crc32.h"
#include "ng/selftest.h"

#include "ng/version.h"

/* String 4: the version `make firmware` writes into the image trailer, so
 * that `neug upgrade` sees the board come back with the image's revision. */
#ifndef NG_FW_REVISION
#define NG_FW_REVISION NG_VERSION
#endif
/* String descriptors 5 and 6 (doc/usb.md): what this image was built for,
 * and what runs it (NeuG reports its Chopstx version there). String 5
 * starts with the board's file name (firmware/module.mk), the name an image
 * trailer carries: `neug upgrade` matches the two. */
#ifndef NG_BOARD_ID
#define NG_BOARD_ID NG_BOARD_NAME
#endif
#define NG_FW_STR_(x) #x
#define NG_FW_STR(x) NG_FW_STR_(x)
#define NG_FW_CONFIG NG_BOARD_ID ":hse=" NG_FW_STR(NG_BOARD_HSE_HZ) ":flash=" \
	NG_FW_STR(NG_BOARD_FLASH_KB) "K:ram=" NG_FW_STR(NG_BOARD_RAM_KB) "K"
#define NG_FW_SYSTEM "bare metal, core " NG_VERSION

static ng_neug_dev ng_dev;
#ifdef NG_FW_HOST_MODEL
static ng_boot_info ng_boot_rec;
#define NG_BOOT_RECORD (&ng_boot_rec)
#else
#define NG_BOOT_RECORD ((ng_boot_info *)0x20000000u) /* boot/bootinfo.h */
#endif
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
			       .board = NG_BOARD_NAME, .revision = NG_FW_REVISION,
			       .config = NG_FW_CONFIG, .system = NG_FW_SYSTEM, .app_info = ng_fw_app_info };
	if (NG_BOOT_RECORD->magic == NG_BOOTINFO_MAGIC)
		cfg.boot = NG_BOOT_RECORD;
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
	if (ng_neug_dfu_detach(&ng_dev)) { /* DFU 1.1 bitWillDetach: we go ourselves */
		NG_BOOT_RECORD->magic = NG_BOOTINFO_MAGIC;
		NG_BOOT_RECORD->request = NG_BOOT_REQ_DFU;
		ng_noise_stop();
		ng_neug_connect(&ng_dev, false);
		ng_delay_us(20000);
		NG_WR(NG_SCB_AIRCR, NG_SCB_AIRCR_SYSRESETREQ);
		for (;;)
			;
	}

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
