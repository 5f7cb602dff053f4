/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Flying Stone Tiny 01 (FST-01), the board NeuG was made for.
 * Sources: FST-01 schematic (FSIJ, gitlab.com/gniibe/fst-01, "fst-01.sch");
 * Chopstx board/board-fst-01.h (PA0 "AN0 for NeuG", PB1 "AN9 for NeuG",
 * PB0 LED 1:ON, PA10 "USB 1:ON", HSE 12 MHz, PLL x6) and NeuG's ADC driver
 * (FST-01: ADC2 on IN0 and IN9). MCU: STM32F103TBU6 (128 KiB flash, 20 KiB RAM). */
#ifndef NG_BOARD_H
#define NG_BOARD_H
#define NG_BOARD_NAME      "FST-01"
#define NG_BOARD_HSE_HZ    12000000
#define NG_BOARD_HSE_BYPASS 0
#define NG_BOARD_FLASH_KB  128
#define NG_BOARD_RAM_KB    20
#define NG_BOARD_LED_PORT  NG_GPIOB
#define NG_BOARD_LED_PIN   0
#define NG_BOARD_LED_ACTIVE_HIGH 1
/* D+ 1.5k pull-up switched by PA10 (high = connected). */
#define NG_BOARD_PULLUP_PORT NG_GPIOA
#define NG_BOARD_PULLUP_PIN  10
#define NG_BOARD_PULLUP_ACTIVE_HIGH 1
#define NG_BOARD_PULLUP_OPEN_DRAIN 0
/* ADC2 noise inputs, pulled up to VDD: IN0 = PA0, IN9 = PB1. */
#define NG_BOARD_AN1_CH 0
#define NG_BOARD_AN1_PORT NG_GPIOA
#define NG_BOARD_AN1_PIN 0
#define NG_BOARD_AN2_CH 9
#define NG_BOARD_AN2_PORT NG_GPIOB
#define NG_BOARD_AN2_PIN 1
#define NG_BOARD_JTAG_OFF 0
#endif
