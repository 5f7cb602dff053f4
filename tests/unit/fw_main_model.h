/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The whole firmware over the register model (fw_model.h), for the host
 * test (test_fw_main.c) and the Cortex-M3 measurement of the firmware's own
 * cost (tests/firmware/qemu/fw_cost.c). Include after main.c and the
 * drivers. */
#ifndef NG_FW_MAIN_MODEL_H
#define NG_FW_MAIN_MODEL_H

/* Power-up with the ADC playing samples[0..n) and the unique ID the
 * vectors were made with (RM0008 30.2). */
static void fw_main_power_up(const uint32_t *samples, size_t n)
{
	fw_model_reset();
	fw_spin = ng_fw_poll;
	fw_model.samples = samples;
	fw_model.nsamples = n;
	fw_model.dma_mem = (uint32_t *)ng_noise_buf;
	fw_model.dma_mem_words = sizeof ng_noise_buf / 4u;
	fw_model.dma_isr = ng_noise_isr;
	fw_model.usb_isr = ng_stm32_usb_isr;
	fw_model.systick_isr = ng_systick_isr; /* ng_millis runs on model time */
	*fw_plain(NG_UID_BASE) = 0x12345678u;
	*fw_plain(NG_UID_BASE + 4) = 0x9abcdef0u;
	*fw_plain(NG_UID_BASE + 8) = 0x0fedcba9u;
	ng_clock_init(); /* what startup.c does before main */
	ng_fw_init();
}

/* Enumerate, configure, line coding with the given parity, DTR on. True
 * when the device descriptor (234b:0001), SET_ADDRESS(3) and
 * SET_CONFIGURATION(1) went through. */
static bool fw_main_open(uint8_t parity, int *bad)
{
	uint8_t buf[64];
	fw_host_reset();
	ng_fw_poll();
	int r1 = control(0x80, 6, 0x0100, 0, 18, buf, bad);
	int r2 = control(0x00, 5, 3, 0, 0, NULL, bad);
	fw_model.host_addr = 3;
	int r3 = control(0x00, 9, 1, 0, 0, NULL, bad);
	uint8_t lc[7] = { 0x00, 0xC2, 0x01, 0x00, 0, parity, 8 };
	control(0x21, 0x20, 0, 0, 7, lc, bad);
	control(0x21, 0x22, 1, 0, 0, NULL, bad);
	return r1 == 18 && buf[8] == 0x4b && buf[9] == 0x23 && r2 == 0 && r3 == 0;
}

#endif
