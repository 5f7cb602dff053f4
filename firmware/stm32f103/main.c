/* SPDX-License-Identifier: GPL-3.0-or-later */
/* NeuG on the STM32F103: power-up self-test and start-up estimate, then
 * one loop. Interrupts (DMA batch end, USB, SysTick) only capture state,
 * end an ADC batch and arm the next one, and apply a USB address;
 * everything else runs here, in this order:
 *   1. ng_neug_task: USB events (chapter 9, CDC, mass storage, GET_INFO)
 *      and released 32-byte blocks to the CDC bulk IN endpoint
 *   2. USB suspend: ADCs off, LED dark, WFI until the host resumes
 *   3. noise: while the device wants samples (host holds DTR, output room,
 *      no persistent failure) batches run in the current mode's sequence
 *      (noise.c) and each complete group of them (one output's words: 140,
 *      32 or 8) goes through the pipeline in one call (health tests, CRC
 *      unit, conditioning); when it wants none the ADCs are powered down. A failed power-up self-test or start-up estimate
 *      means no output at all
 *   4. the LED shows the state (fw.h, doc/firmware.md).
 * The boot loader left its boot record at the start of RAM (GET_INFO
 * 40..45); DFU_DETACH from the host asks it for DFU mode and resets. */
#include <string.h>
#include "fw.h"
#include "board.h"
#include "dcd_stm32f1.h"
#include "neug_device.h"
#include "stm32f103.h"
#include "usb_fs.h"
#include "ng/crc32.h"
#include "ng/mcv.h"
#include "ng/selftest.h"

#include "ng/version.h"

/* The composite device (usb/neug_device.h) on the STM32 driver, which
 * knows no class: one EPnR per endpoint number, so IN and OUT of a number
 * share a type, and the packet memory holds the buffer table, EP0's two
 * buffers and the device's endpoints: CDC notification IN (16 bytes,
 * given 64), CDC bulk IN and OUT, MSC bulk IN and OUT, 64 bytes each. */
_Static_assert(NG_NEUG_EP_NOTIFY == 0x82u && NG_NEUG_EP_DATA_IN == 0x81u && NG_NEUG_EP_DATA_OUT == 0x01u &&
	       NG_NEUG_EP_MSC_IN == 0x83u && NG_NEUG_EP_MSC_OUT == 0x03u,
	       "one EPnR per endpoint number, IN and OUT of a number of the same type (bulk 1, interrupt 2, bulk 3)");
_Static_assert(NG_BTABLE_BYTES + 2u * NG_EP0_SIZE + 64u + 4u * 64u <= NG_PMA_BYTES,
	       "buffer table, EP0 and the composite device's endpoints fit the 512-byte packet memory");

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

/* ---- the start-up estimate ---------------------------------------------- */

/* The declared min-entropy of one ADC's 12-bit half-word, and the start-up
 * estimate's bar: twice that (doc/firmware.md, "Start-up estimate"). */
#define NG_FW_ADC_H_BITS 1u
#define NG_FW_STARTUP_H_BITS (2u * NG_FW_ADC_H_BITS)

static ng_mcv ng_fw_mcv[2];          /* ADC1, ADC2 half-words */
static uint32_t ng_fw_noise_status;  /* NG_FW_NOISE_* bits; 0: passed */
static uint32_t ng_fw_mcv_mode[2];   /* the mode counts (bins of value mod 512) */

/* Runs the regime (the conditioned mode's batches) for NG_MCV_SAMPLES
 * words and estimates each ADC's min-entropy from them; the words are not
 * output. */
static void ng_fw_startup_estimate(void)
{
	ng_mcv_reset(&ng_fw_mcv[0]);
	ng_mcv_reset(&ng_fw_mcv[1]);
	ng_noise_start(NG_NOISE_SEQ_CONDITIONED);
	uint32_t idle = 0;
	while (ng_fw_mcv[0].n < NG_MCV_SAMPLES && idle < 200u) {
		size_t n;
		const uint32_t *b = ng_noise_group(&n);
		if (!b) {
			ng_wait_for_interrupt(); /* the DMA interrupt or SysTick (1 ms) */
			idle++;
			continue;
		}
		idle = 0;
		for (size_t i = 0; i < n && ng_fw_mcv[0].n < NG_MCV_SAMPLES; i++) {
			ng_mcv_add(&ng_fw_mcv[0], b[i] & 0xFFFu);
			ng_mcv_add(&ng_fw_mcv[1], (b[i] >> 16) & 0xFFFu);
		}
		ng_noise_release();
	}
	ng_noise_stop();
	uint32_t limit = ng_mcv_max_count(NG_MCV_SAMPLES, NG_FW_STARTUP_H_BITS);
	ng_fw_noise_status = 0;
	if (ng_fw_mcv[0].n < NG_MCV_SAMPLES)
		ng_fw_noise_status |= NG_FW_NOISE_NO_SAMPLES;
	for (uint32_t k = 0; k < 2; k++) {
		ng_fw_mcv_mode[k] = ng_mcv_mode(&ng_fw_mcv[k]);
		if (ng_fw_mcv[0].n < NG_MCV_SAMPLES || ng_fw_mcv_mode[k] > limit)
			ng_fw_noise_status |= k ? NG_FW_NOISE_ADC2_WEAK : NG_FW_NOISE_ADC1_WEAK;
	}
}

uint32_t ng_fw_noise_state(uint32_t *mode1, uint32_t *mode2)
{
	*mode1 = ng_fw_mcv_mode[0];
	*mode2 = ng_fw_mcv_mode[1];
	return ng_fw_noise_status;
}

/* GET_INFO 33..39 (usb/neug_device.h): what only the firmware knows. */
static uint32_t ng_fw_app_info(void *user, uint16_t index)
{
	(void)user;
	ng_noise_stats st;
	switch (index) {
	case NG_INFO_SELFTEST: /* 0 passed; 1 self-test; 2 the start-up estimate refused */
		return (ng_fw_selftest_ok ? 0u : 1u) | (ng_fw_noise_status ? 2u : 0u);
	case NG_INFO_CLOCK: return ng_clock_source();
	case NG_INFO_STARTUP: return ng_fw_noise_status;
	case NG_INFO_STARTUP_MODE1: return ng_fw_mcv_mode[0];
	case NG_INFO_STARTUP_MODE2: return ng_fw_mcv_mode[1];
	case NG_INFO_STARTUP_N: return ng_fw_mcv[0].n;
	case NG_INFO_SOURCE_ERRORS:
		ng_noise_get_stats(&st);
		return st.dma_errors;
	default: return 0;
	}
}

static bool ng_fw_running;
static uint32_t ng_fw_mode;
static uint32_t ng_fw_groups; /* groups fed: one output each, in every mode */
static uint32_t ng_fw_led_ms;  /* the millisecond the LED's pattern was chosen for */
static void ng_fw_led_choose(void);

/* Power-up: clocks are set (startup.c); self-test, device, noise source. */
void ng_fw_init(void)
{
	ng_systick_init();
	ng_board_init();
	ng_board_noise_pins();
	ng_led_set(NG_LED_STARTING);
	ng_led_poll(ng_millis());
	bool ok = ng_selftest() == NG_OK && ng_crc_hw_selftest();

	ng_neug_config cfg = { .adc_health = NG_DEFAULT_ADC_LIMITS, .crc_dr = ng_crc_hw_dr(),
			       .board = NG_BOARD_NAME, .revision = NG_FW_REVISION,
			       .config = NG_FW_CONFIG, .system = NG_FW_SYSTEM, .app_info = ng_fw_app_info };
	if (NG_BOOT_RECORD->magic == NG_BOOTINFO_MAGIC)
		cfg.boot = NG_BOOT_RECORD;
	ng_uid_read(cfg.uid);
	ng_crc_hw_init(); /* reset once; the pipeline feeds the unique ID, then it runs on */
	if (ng_neug_init(&ng_dev, &cfg, &ng_stm32_dcd_ops, NULL) != NG_OK)
		ok = false;
	ng_noise_init();
	ng_fw_startup_estimate();
	ng_fw_selftest_ok = ok;
	ng_fw_led_ms = ng_millis() - 1u; /* chosen on the first pass */
	ng_neug_connect(&ng_dev, true);
}

static const uint32_t ng_fw_weak_led[4] = { NG_LED_RUNNING, NG_LED_NOISE_WEAK1, NG_LED_NOISE_WEAK2,
					     NG_LED_NOISE_WEAK12 };


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

	if (ng_usbd_suspended(ng_neug_usbd(&ng_dev))) {
		/* RM0008 23.4.5: the driver's interrupt has set FSUSP and LPMODE;
		 * here the ADCs go off and the core sleeps until an interrupt (the
		 * USB wakeup, or SysTick: then this runs again). */
		if (ng_fw_running) {
			ng_noise_stop();
			ng_fw_running = false;
		}
		ng_led_set(NG_LED_OFF);
		ng_led_poll(ng_millis());
		ng_wait_for_interrupt();
		return;
	}

	bool ok = ng_fw_selftest_ok && !ng_fw_noise_status;
	size_t want = ok ? ng_neug_wants_samples(&ng_dev) : 0;
	uint32_t mode = ng_neug_mode(&ng_dev);
	if (want && (!ng_fw_running || mode != ng_fw_mode || ng_noise_stopped())) {
		ng_noise_start(mode); /* after a DMA error too: it has been counted */
		ng_fw_running = true;
		ng_fw_mode = mode;
	} else if (!want && ng_fw_running) {
		ng_noise_stop();
		ng_fw_running = false;
	}
	size_t n;
	const uint32_t *b;
	while (want && (b = ng_noise_group(&n)) != NULL) { /* want is whole outputs' words */
		/* n words fill at most n / samples per block blocks of the room
		 * want counted (fewer when a block fails): want - n is room left
		 * for sure; after a health failure it is counted again. */
		if (ng_neug_put_samples(&ng_dev, b, n) != NG_OK)
			want = ng_neug_wants_samples(&ng_dev);
		else
			want = want > n ? want - n : 0;
		ng_noise_release();
		if (++ng_fw_groups % 32u == 0)
			ng_led_activity();
	}

	/* The LED's pattern from the state, once a millisecond (the LED
	 * changes no faster): the health status alone, not the statistics. */
	const uint32_t now = ng_millis();
	if (now != ng_fw_led_ms) {
		ng_fw_led_ms = now;
		ng_fw_led_choose();
	}
	ng_led_poll(now);
}

/* The pattern the state calls for (fw.h, doc/firmware.md). */
static void ng_fw_led_choose(void)
{
	const uint32_t status = ng_pipeline_health(&ng_dev.pipe)->status;
	if (!ng_fw_selftest_ok || (status & NG_HEALTH_PERSISTENT))
		ng_led_set(NG_LED_FAILURE);
	else if (ng_fw_noise_status)
		ng_led_set(ng_fw_weak_led[ng_fw_noise_status & 3u]);
	else if (!ng_usbd_configuration(ng_neug_usbd(&ng_dev)))
		ng_led_set(NG_LED_NO_HOST);
	else if (!ng_neug_dtr(&ng_dev))
		ng_led_set(NG_LED_IDLE);
	else if (status & NG_HEALTH_STARTUP)
		ng_led_set(NG_LED_STARTING);
	else
		ng_led_set(NG_LED_RUNNING);
}

#ifndef NG_FW_HOST_MODEL /* the host test (tests/unit/test_fw_main.c) drives the two above */
int main(void)
{
	ng_fw_init();
	for (;;)
		ng_fw_poll();
}
#endif
