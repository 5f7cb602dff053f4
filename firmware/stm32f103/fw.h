/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The STM32F103 firmware's internal interfaces: one small module per
 * peripheral, all used by main.c. Interrupt handlers only capture state;
 * everything else runs from the main loop. */
#ifndef NG_FW_H
#define NG_FW_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ng/status.h"

/* crt.c: .data, .bss, clocks, then main (the reset vector's work), and
 * the handler of every unexpected exception (a loop). */
void ng_crt_start(void);
void ng_default_handler(void);

/* main.c: power-up, and one pass of the main loop (main() runs them). */
void ng_fw_init(void);
void ng_fw_poll(void);

/* main.c: the start-up estimate (SP 800-90B 6.3.1 MCV per ADC over the
 * first NG_MCV_SAMPLES words): NG_FW_NOISE_* bits (0: passed) and each
 * ADC's mode count (of value mod 512, ng/mcv.h). */
#define NG_FW_NOISE_ADC1_WEAK  1u /* ADC1's estimate below twice its declared H */
#define NG_FW_NOISE_ADC2_WEAK  2u
#define NG_FW_NOISE_NO_SAMPLES 4u /* the ADCs delivered no batches */
uint32_t ng_fw_noise_state(uint32_t *mode1, uint32_t *mode2);

/* clock.c: the clock tree (RM0008 7.2), set from whatever state the RCC
 * is in. HSE -> PLL -> 72 MHz SYSCLK, AHB 72, APB1 36, APB2 72, ADC 12,
 * USB 48 (PLL / 1.5), flash 2 wait states. When the HSE does not become
 * ready (no crystal, no MCO: the Nucleo MB1136 C-01), HSI / 2 x 12 = 48 MHz
 * SYSCLK, AHB 48, APB1 24, APB2 48, ADC 12, USB 48 (PLL / 1), flash 1
 * wait state. Every time base (SysTick, delays, LED) uses ng_hclk_hz(). */
#define NG_CLOCK_HSE    1u /* external crystal or clock, PLL to 72 MHz */
#define NG_CLOCK_HSI    2u /* HSE failed: internal RC, PLL to 48 MHz */
#define NG_CLOCK_FAILED 3u /* the PLL did not lock: 8 MHz HSI, no USB */
uint32_t ng_clock_init(void);
uint32_t ng_clock_source(void); /* NG_CLOCK_*, what ng_clock_init set */
uint32_t ng_hclk_hz(void);
/* SysTick at 1 kHz from the core clock. */
void ng_systick_init(void);
/* Milliseconds since ng_systick_init (wraps after 49 days). */
uint32_t ng_millis(void);
/* Busy-waits for about us microseconds (the SysTick counter). */
void ng_delay_us(uint32_t us);
/* The 96-bit unique device ID, RM0008 30.2 (three 32-bit words). */
void ng_uid_read(uint32_t uid[3]);
/* Sleeps until an interrupt (WFI; ARMv7-M B1.5.19). */
void ng_wait_for_interrupt(void);

/* board.c: GPIO set-up (ports clocked, the status LED and the D+ pull-up;
 * the noise source's two inputs separately: the boot loader samples no
 * noise and leaves them as reset made them, floating inputs). */
void ng_board_init(void);
void ng_board_noise_pins(void);
void ng_board_led(bool on);
/* Connects (true) or disconnects the D+ pull-up. On boards with a fixed
 * pull-up, disconnecting drives D+ low (PA12 output), which is a detach only
 * before the USB peripheral is enabled; connecting releases the pin. */
void ng_board_usb_connect(bool on);

/* led.c: status patterns, advanced from the main loop with the time. */
enum {
	NG_LED_STARTING = 0, /* power-up self-test, start-up health test: 10 Hz blink */
	NG_LED_NO_HOST,      /* no USB configuration: 50 ms flash once a second */
	NG_LED_RUNNING,      /* output flowing: on, dark 50 ms per 32 blocks */
	NG_LED_IDLE,         /* configured, no reader (DTR off): 1 Hz, half on */
	NG_LED_FAILURE,      /* self-test or persistent health failure: SOS-like
			      * 3 short + 3 long, repeated */
	NG_LED_DFU,          /* the boot loader in DFU mode: two short flashes a second */
	/* The start-up estimate refused the noise (no output): one long flash,
	 * then one short (ADC1 too weak), two (ADC2) or three (both), repeated */
	NG_LED_NOISE_WEAK1,
	NG_LED_NOISE_WEAK2,
	NG_LED_NOISE_WEAK12,
	NG_LED_OFF,          /* USB suspend: dark */
	NG_LED_KEY_REFUSED   /* the boot loader in DFU mode because the key slot holds a
			      * weak owner key (boot/bootinfo.h NG_BOOT_KEY_REFUSED):
			      * DFU mode's 80 ms flash 5 times a second, no pause */
};
void ng_led_set(uint32_t pattern);
void ng_led_activity(void);
void ng_led_poll(uint32_t now_ms);

/* crc_hw.c: the CRC calculation unit (RM0008 4). The pipeline's cfg.crc. */
void ng_crc_hw_init(void);
uint32_t ng_crc_hw_word(void *user, uint32_t w);
uint32_t ng_crc_hw_words4(void *user, const uint32_t w[4]);  /* cfg.crc4 */
volatile uint32_t *ng_crc_hw_dr(void);                       /* cfg.crc_dr */

/* noise.c: the noise source, sampled as NeuG does (noise.c says how):
 * ADC1 (Vrefint, temperature) and ADC2 (two pulled-up pins) in fast
 * interleaved dual mode, a batch of words at a time through DMA1 channel 1,
 * both ADCs powered down after every batch. Words are (adc2 << 16) | adc1.
 * Batches per mode: conditioned 56, 64, 20; CRC32 32; raw 8. A mode's
 * batches make a group (one output's words: 140, 32, 8), gathered in one
 * of two buffers and handed over whole. */
#define NG_NOISE_GROUP_MAX 140u
#define NG_NOISE_SEQ_CONDITIONED 0u /* = NG_MODE_CONDITIONED */
#define NG_NOISE_SEQ_CRC32       1u /* = NG_MODE_CRC32 */
#define NG_NOISE_SEQ_RAW         2u /* = NG_MODE_RAW */
typedef struct {
	uint32_t dma_errors; /* DMA transfer errors (TEIF): the source stopped */
	uint32_t batches;    /* batches completed */
	uint32_t powerups;   /* ADC power-ups (one per batch) */
} ng_noise_stats;
/* Calibrates both ADCs (RM0008 11.4) and leaves them powered down; once. */
void ng_noise_init(void);
/* Starts batches in the sequence of a mode (NG_NOISE_SEQ_*), from its
 * first batch; forgets anything not yet read. */
void ng_noise_start(uint32_t mode);
/* Stops: both ADCs powered down, DMA off, nothing kept (not an error). */
void ng_noise_stop(void);
/* The oldest complete group (n words: 140, 32 or 8), or NULL when none is
 * ready. It stays valid until ng_noise_release. */
const uint32_t *ng_noise_group(size_t *n);
/* Done with the group ng_noise_group gave: its buffer may be filled again. */
void ng_noise_release(void);
/* True when a DMA error stopped the source. */
bool ng_noise_stopped(void);
void ng_noise_get_stats(ng_noise_stats *st);
/* The DMA1 channel 1 interrupt (IRQ 11): ends a batch, arms the next
 * (within a group at once; a group's first when its buffer is free). */
void ng_noise_isr(void);

#endif
