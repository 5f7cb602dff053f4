/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The common "ST-Link/V2" USB-stick clones (STM32F103C8T6: 64 KiB flash,
 * 20 KiB RAM; some carry a C6 with 32 KiB, which this image does not fit).
 * Sources: Chopstx board/board-st-dongle.h (HSE 8 MHz, PLL x9, LED PA9 1:ON,
 * PA15 "USB 1:ON", PA0/PA1 AN0/AN1 with pull-up); the clone schematic
 * published with the "ST-Link v2 clone" teardowns (8 MHz crystal). PA15 is
 * JTDI after reset, so JTAG is switched off (SWD stays usable). */
#ifndef NG_BOARD_H
#define NG_BOARD_H
#define NG_BOARD_NAME      "ST Dongle"
#define NG_BOARD_HSE_HZ    8000000
#define NG_BOARD_HSE_BYPASS 0
#define NG_BOARD_FLASH_KB  64
#define NG_BOARD_RAM_KB    20
#define NG_BOARD_LED_PORT  NG_GPIOA
#define NG_BOARD_LED_PIN   9
#define NG_BOARD_LED_ACTIVE_HIGH 1
#define NG_BOARD_PULLUP_PORT NG_GPIOA
#define NG_BOARD_PULLUP_PIN  15
#define NG_BOARD_PULLUP_ACTIVE_HIGH 1
#define NG_BOARD_PULLUP_OPEN_DRAIN 0
#define NG_BOARD_AN1_CH 0
#define NG_BOARD_AN1_PORT NG_GPIOA
#define NG_BOARD_AN1_PIN 0
#define NG_BOARD_AN2_CH 1
#define NG_BOARD_AN2_PORT NG_GPIOA
#define NG_BOARD_AN2_PIN 1
#define NG_BOARD_JTAG_OFF 1
#endif
