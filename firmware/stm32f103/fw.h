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

/* clock.c: HSE -> PLL -> 72 MHz SYSCLK, AHB 72, APB1 36, APB2 72, ADC 9,
 * USB 48 MHz, flash 2 wait states + prefetch (RM0008 7.2, 3.3.3). */
void ng_clock_init(void);
/* SysTick at 1 kHz from the 72 MHz core clock. */
void ng_systick_init(void);
/* Milliseconds since ng_systick_init (wraps after 49 days). */
uint32_t ng_millis(void);
/* Busy-waits for about us microseconds (the SysTick counter). */
void ng_delay_us(uint32_t us);
/* The 96-bit unique device ID, RM0008 30.2 (three 32-bit words). */
void ng_uid_read(uint32_t uid[3]);

/* board.c: GPIO set-up, the status LED and the D+ pull-up. */
void ng_board_init(void);
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
	NG_LED_DFU           /* the boot loader in DFU mode: two short flashes a second */
};
void ng_led_set(uint32_t pattern);
void ng_led_activity(void);
void ng_led_poll(uint32_t now_ms);

/* crc_hw.c: the CRC calculation unit (RM0008 4). The pipeline's cfg.crc. */
void ng_crc_hw_init(void);
uint32_t ng_crc_hw_word(void *user, uint32_t w);
uint32_t ng_crc_hw_words4(void *user, const uint32_t w[4]);  /* cfg.crc4 */
volatile uint32_t *ng_crc_hw_dr(void);                       /* cfg.crc_dr */

/* noise.c: the noise source. ADC1 (Vrefint, temperature sensor) and ADC2
 * (two pulled-up pins) in regular simultaneous mode; DMA1 channel 1 copies
 * ADC1_DR as 32-bit words (adc2 << 16 | adc1) into a circular buffer of two
 * halves of NG_NOISE_HALF words, with an interrupt at each half. A half
 * of 128 words is 200 us of samples at 640k words/s: twice the slack of 64
 * for the main loop to come back to it, and half as many pipeline calls
 * (each costs about 220 instructions of set-up; doc/firmware.md), for
 * 1.5 KiB of RAM (the buffer and main.c's copy). */
#define NG_NOISE_HALF 128u
typedef struct {
	uint32_t overruns;   /* halves overwritten before they were read (data lost, reported) */
	uint32_t dma_errors; /* DMA transfer errors (TEIF) */
	uint32_t halves;     /* halves read */
} ng_noise_stats;
/* Powers up and calibrates both ADCs (RM0008 11.4); call once. */
void ng_noise_init(void);
/* Starts, or restarts after an overrun or a stop, continuous conversion
 * into half 0; forgets anything not yet read. */
void ng_noise_start(void);
/* Stops conversion and DMA (not an error: used while no output is wanted). */
void ng_noise_stop(void);
/* Copies the next complete half, in order, into out; false when none is
 * ready. A half the DMA had to overwrite is never returned: the source
 * stops, the overrun is counted, and ng_noise_stopped() says so. */
bool ng_noise_read(uint32_t out[NG_NOISE_HALF]);
/* True when an overrun or a DMA error stopped the source. */
bool ng_noise_stopped(void);
void ng_noise_get_stats(ng_noise_stats *st);
/* The DMA1 channel 1 interrupt (IRQ 11): only marks halves ready. */
void ng_noise_isr(void);

#endif
